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

// schAssert is an assertion of a Factur-X profile Schematron: its attributes and its
// text; schAssertID its id attribute.
var (
	schAssert   = regexp.MustCompile(`(?s)<assert\b([^>]*)>(.*?)</assert>`)
	schAssertID = regexp.MustCompile(`\bid="([^"]+)"`)
)

// fxStructure is a structure or code list assertion of a Factur-X profile Schematron (one
// whose message starts with no bracketed rule id): its text, white space normalised, and
// its id attribute ("" in 1.07.3, which numbers none).
type fxStructure struct{ text, id string }

func fxStructures(t *testing.T, files ...string) []fxStructure {
	t.Helper()
	var out []fxStructure
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range schAssert.FindAllSubmatch(b, -1) {
			x := fxStructure{text: strings.Join(strings.Fields(string(m[2])), " ")}
			if x.text == "" || strings.HasPrefix(x.text, "[") {
				continue // no message (MINIMUM 1.08, unbound: fxschgen), or a rule id
			}
			if id := schAssertID.FindSubmatch(m[1]); id != nil {
				x.id = string(id[1])
			}
			out = append(out, x)
		}
	}
	return out
}

// fx107Own are 1.07.3's structure assertions 1.08 has no text (so no id) for: our id, or
// "" for one no document can fail, which fxschgen leaves out ("@currencyID" asked of a
// ram:TaxTotalAmount whose context already compares its currencyID).
var fx107Own = map[string]string{
	"Element 'ram:TaxTotalAmount' may occur at maximum 1 times.": "FX-SCH-107-01",
	"Attribute '@currencyID' is required in this context.":       "",
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
	// The structure and code list assertions (no bracketed id): 1.08's by their ids, and
	// 1.07.3's, which has none, by the id 1.08 gives the same text, as fxschgen binds them.
	byText := map[string]string{}
	for _, x := range fxStructures(t, fx+"/0_Factur-X_1.08_MINIMUM/FACTUR-X_MINIMUM.sch", fx+"/1_Factur-X_1.08_BASICWL/FACTUR-X_BASIC-WL.sch",
		fx+"/2_Factur-X_1.08_BASIC/FACTUR-X_BASIC.sch", fx+"/3_Factur-X_1.08_EN16931/FACTUR-X_EN16931.sch", fx+"/4_Factur-X_1.08_EXTENDED/FACTUR-X_EXTENDED.sch") {
		byText[x.text] = x.id
	}
	structure := map[string][]string{} // rule set → ids
	for _, c := range cases {
		if !strings.HasPrefix(c.set, "Factur-X ") {
			continue
		}
		for _, x := range fxStructures(t, c.files...) {
			id, own := x.id, false
			if id == "" {
				if id, own = fx107Own[x.text]; !own {
					id = byText[x.text]
				}
			}
			switch {
			case id == "" && !own:
				t.Errorf("%s: no id for %q", c.set, x.text)
			case id != "" && !slices.Contains(structure[c.set], id):
				structure[c.set] = append(structure[c.set], id)
			}
		}
	}
	for _, c := range cases {
		if bound[c.set] == nil {
			t.Errorf("no rule set %q", c.set)
			continue
		}
		var missing []string
		for _, id := range append(officialIDs(t, c.re, c.files...), structure[c.set]...) {
			if !bound[c.set][id] && !bound[strings.Replace(c.set, "XRechnung 3.0 ", "EN16931-", 1)][id] {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			t.Errorf("%s: %d official rule ids have no binding: %s", c.set, len(missing), strings.Join(missing, " "))
		}
	}
}
