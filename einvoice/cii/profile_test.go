package cii

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/internal/corpus"
	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
)

// TestAllowedInVersions checks that AllowedIn really answers per version: every path that
// one generated table has and the other lacks must get two different answers. Were the
// tables equal, a wrong -schemas on either go:generate line would go unnoticed.
func TestAllowedInVersions(t *testing.T) {
	lines := func(s string) []string { return strings.Split(s, "\n") }
	diffs := 0
	for _, p := range einvoice.Profiles {
		v108, v107 := lines(profilePaths[p]), lines(profilePaths107[p])
		for _, path := range v108 {
			if !slices.Contains(v107, path) {
				diffs++
				if !AllowedIn("1.08", p, path) || AllowedIn("1.07", p, path) {
					t.Errorf("%s %s: only the 1.08 schema has it, AllowedIn says 1.08 %v, 1.07 %v",
						p, path, AllowedIn("1.08", p, path), AllowedIn("1.07", p, path))
				}
			}
		}
		for _, path := range v107 {
			if !slices.Contains(v108, path) {
				diffs++
				if AllowedIn("1.08", p, path) || !AllowedIn("1.07", p, path) {
					t.Errorf("%s %s: only the 1.07 schema has it, AllowedIn says 1.08 %v, 1.07 %v",
						p, path, AllowedIn("1.08", p, path), AllowedIn("1.07", p, path))
				}
			}
		}
	}
	if diffs == 0 {
		t.Fatal("the 1.07 and 1.08 tables are equal; expected ZUGFeRD 2.4's EXTENDED additions")
	}

	// Factur-X 1.08 added a seller per line item to EXTENDED (ZUGFeRD 2.4).
	const lineSeller = "SupplyChainTradeTransaction/IncludedSupplyChainTradeLineItem/SpecifiedLineTradeAgreement/ItemSellerTradeParty"
	for _, c := range []struct {
		version string
		want    bool
	}{{"1.08", true}, {"1.07", false}, {"", true}, {"2.4", true}} {
		if got := AllowedIn(c.version, einvoice.Extended, lineSeller); got != c.want {
			t.Errorf("AllowedIn(%q, EXTENDED, …/ItemSellerTradeParty) = %v, want %v", c.version, got, c.want)
		}
	}
	if !Allowed(einvoice.Extended, lineSeller) {
		t.Error("Allowed must stay the 1.08 answer")
	}
	if !AllowedIn("1.07", einvoice.XRechnung, lineSeller) {
		t.Error("XRechnung allows every path in every version")
	}
}

// TestAllowedIn107CoversOfficialExamples checks the 1.07 tables against the official
// ZUGFeRD 2.3 examples: what FeRD publishes as valid must be allowed, element and
// attribute alike, else the generator misreads the 1.07.2 schemas.
func TestAllowedIn107CoversOfficialExamples(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(corpus.Dir(t), "zugferd", "2.3-examples", "*", "*", "factur-x.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no ZUGFeRD 2.3 examples (*/*/factur-x.xml) in the corpus")
	}
	seen := map[einvoice.Profile]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		root, err := xmlc.Parse(context.Background(), data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		p := einvoice.ProfileOf(guideline(root))
		if p == "" || p == einvoice.XRechnung {
			t.Fatalf("%s: guideline %q names no Factur-X profile", f, guideline(root))
		}
		seen[p]++
		name, _ := filepath.Rel(corpus.Dir(t), f)
		var walk func(n *xmlc.Node, prefix string)
		walk = func(n *xmlc.Node, prefix string) {
			for _, k := range n.Kids {
				path := prefix + k.Local
				if !AllowedIn("1.07", p, path) {
					t.Errorf("%s (%s): %s not allowed", name, p, path)
				}
				for _, a := range k.Attrs {
					// Qualified attributes (xsi:…) are not the profile's to allow.
					if a.Space == "" && !AllowedIn("1.07", p, path+"/@"+a.Local) {
						t.Errorf("%s (%s): %s/@%s not allowed", name, p, path, a.Local)
					}
				}
				walk(k, path+"/")
			}
		}
		walk(root, "")
	}
	for _, p := range []einvoice.Profile{einvoice.Minimum, einvoice.BasicWL, einvoice.Basic, einvoice.EN16931, einvoice.Extended} {
		if seen[p] == 0 {
			t.Errorf("no official example of %s", p)
		}
	}
}

// guideline is the document's BT-24, which names its profile.
func guideline(root *xmlc.Node) string {
	for _, ctx := range root.Kids {
		if ctx.Local != "ExchangedDocumentContext" {
			continue
		}
		for _, g := range ctx.Kids {
			if g.Local != "GuidelineSpecifiedDocumentContextParameter" {
				continue
			}
			for _, id := range g.Kids {
				if id.Local == "ID" {
					return id.Text
				}
			}
		}
	}
	return ""
}
