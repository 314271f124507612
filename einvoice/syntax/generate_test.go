package syntax_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/internal/corpus"
	"github.com/papierkram/papierkram/einvoice/syntax"
)

// parseAndGenerate is what a client of the API does: parse (JSON out), generate from that
// JSON in the document's syntax.
func parseAndGenerate(t *testing.T, data []byte, edit func(*einvoice.Invoice)) (*einvoice.Invoice, *einvoice.Invoice, syntax.Info) {
	t.Helper()
	inv, info, err := syntax.Read(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(inv)
	}
	b, err := json.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	var req einvoice.Invoice
	if err := json.Unmarshal(b, &req); err != nil {
		t.Fatal(err)
	}
	out, err := syntax.Generate(&req, info.Syntax, "")
	if err != nil {
		t.Fatal(err)
	}
	again, _, err := syntax.Read(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	return inv, again, info
}

// TestGenerateKeepsForeignSpecification: BT-24 is never rewritten, also in CII when it
// names no profile of ours. CEN's own CII examples name ZUGFeRD 1.0's COMFORT profile
// (generate refused them) and a Peppol BIS invoice was made an EN 16931 one.
func TestGenerateKeepsForeignSpecification(t *testing.T) {
	dir := corpus.Dir(t)
	comfort, err := os.ReadFile(filepath.Join(dir, "en16931/examples-cii/CII_business_example_02.xml"))
	if err != nil {
		t.Fatal(err)
	}
	xr, err := os.ReadFile(filepath.Join(dir, "xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_uncefact.xml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		data []byte
		spec string
	}{
		{"ZUGFeRD 1.0 COMFORT", comfort, "urn:ferd:CrossIndustryDocument:invoice:1p0:comfort"},
		{"Peppol BIS", xr, einvoice.GuidelinePeppolBIS3},
	} {
		t.Run(c.name, func(t *testing.T) {
			src, again, _ := parseAndGenerate(t, c.data, func(inv *einvoice.Invoice) { inv.Specification = c.spec })
			if again.Specification != c.spec {
				t.Errorf("BT-24 %q, want %q", again.Specification, c.spec)
			}
			if again.Totals.AmountDue.String() != src.Totals.AmountDue.String() || len(again.Lines) != len(src.Lines) || again.Seller.Name != src.Seller.Name {
				t.Errorf("content lost: %d lines (had %d), amount due %s (was %s)", len(again.Lines), len(src.Lines), again.Totals.AmountDue, src.Totals.AmountDue)
			}
		})
	}
}
