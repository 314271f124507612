package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice/syntax"
)

// assertID finds the id of every assertion of a Schematron file, as the official rule sets
// report them: the id attribute, or where a file has none the bracketed id its text starts
// with ("[BR-22]-…", as Factur-X writes them).
var (
	assertIDAttr = regexp.MustCompile(`<(?:sch:)?assert\b[^>]*?\bid="([^"]+)"`)
	assertIDText = regexp.MustCompile(`<(?:sch:)?assert\b[^>]*>\s*\[((?:BR|CII|PEPPOL)-[A-Za-z0-9-]+)\]`)
)

func officialIDs(t *testing.T, re *regexp.Regexp, files ...string) []string {
	t.Helper()
	var ids []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllSubmatch(b, -1) {
			if id := string(m[1]); !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
	}
	if len(ids) == 0 {
		t.Fatalf("no rule ids in %v", files)
	}
	return ids
}

// TestOfficialRulesAreBound: every rule id of an official rule set we apply is bound, in
// each syntax it applies to, in the rule set that applies it. A new release of the
// artefacts (internal/official, ../shared/corpus) names here what is still to be bound.
func TestOfficialRulesAreBound(t *testing.T) {
	bound := map[string]map[string]bool{} // rule set → ids
	for _, b := range Bindings() {
		set := b.RuleSet
		if strings.HasPrefix(set, "XRechnung 3.0 ") {
			set = "XRechnung 3.0 " + string(b.Syntax)
		}
		if bound[set] == nil {
			bound[set] = map[string]bool{}
		}
		bound[set][b.ID] = true
	}
	cen := filepath.Join("internal", "official", "en16931-1.3.16")
	kosit := filepath.Join("internal", "official", "xrechnung-schematron", "src", "validation", "schematron")
	fx := filepath.Join("..", "..", "..", "shared", "corpus", "schemas", "factur-x-1.08")
	cases := []struct {
		set   string
		files []string
		re    *regexp.Regexp
	}{
		{"EN16931-UBL", []string{cen + "/ubl/schematron/abstract/EN16931-model.sch", cen + "/ubl/schematron/abstract/EN16931-syntax.sch", cen + "/ubl/schematron/codelist/EN16931-UBL-codes.sch"}, assertIDAttr},
		{"EN16931-CII", []string{cen + "/cii/schematron/abstract/EN16931-CII-model.sch", cen + "/cii/schematron/abstract/EN16931-CII-syntax.sch", cen + "/cii/schematron/codelist/EN16931-CII-codes.sch"}, assertIDAttr},
		{"XRechnung 3.0 " + string(syntax.UBL), []string{kosit + "/ubl/XRechnung-UBL-validation.sch"}, assertIDAttr},
		{"XRechnung 3.0 " + string(syntax.CII), []string{kosit + "/cii/XRechnung-CII-validation.sch"}, assertIDAttr},
		{"Factur-X 1.08 MINIMUM", []string{fx + "/0_Factur-X_1.08_MINIMUM/FACTUR-X_MINIMUM.sch"}, assertIDText},
		{"Factur-X 1.08 BASICWL", []string{fx + "/1_Factur-X_1.08_BASICWL/FACTUR-X_BASIC-WL.sch"}, assertIDText},
		{"Factur-X 1.08 BASIC", []string{fx + "/2_Factur-X_1.08_BASIC/FACTUR-X_BASIC.sch"}, assertIDText},
		{"Factur-X 1.08 EN16931", []string{fx + "/3_Factur-X_1.08_EN16931/FACTUR-X_EN16931.sch"}, assertIDText},
		{"Factur-X 1.08 EXTENDED", []string{fx + "/4_Factur-X_1.08_EXTENDED/FACTUR-X_EXTENDED.sch"}, assertIDText},
	}
	fx107 := filepath.Join("internal", "official", "factur-x-1.07.3")
	for i, p := range []string{"MINIMUM", "BASICWL", "BASIC", "EN16931", "EXTENDED"} {
		cases = append(cases, struct {
			set   string
			files []string
			re    *regexp.Regexp
		}{"Factur-X 1.07 " + p, []string{fmt.Sprintf("%s/%d_Factur-X_1.07.3_%s/Factur-X_1.07.3_%s.sch", fx107, i, p, p)}, assertIDText})
	}
	for _, c := range cases {
		if bound[c.set] == nil {
			t.Errorf("no rule set %q", c.set)
			continue
		}
		var missing []string
		for _, id := range officialIDs(t, c.re, c.files...) {
			if !bound[c.set][id] && !bound[strings.Replace(c.set, "XRechnung 3.0 ", "EN16931-", 1)][id] {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			t.Errorf("%s: %d official rule ids have no binding: %s", c.set, len(missing), strings.Join(missing, " "))
		}
	}
}
