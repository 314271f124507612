package rules

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice/internal/corpus"
	"github.com/papierkram/papierkram/fault"
)

func fatalIDs(r *Report) []string {
	var ids []string
	for _, x := range r.Failed() {
		if x.Severity == Fatal {
			ids = append(ids, x.ID)
		}
	}
	return ids
}

// TestFacturX107: the official ZUGFeRD 2.3 / Factur-X 1.07 examples pass the 1.07 rules
// when asked for, including the one the 1.08 rules reject (BR-FX-EN-04 is new in 1.08);
// the report names the rule set, its version and that the request chose it.
func TestFacturX107(t *testing.T) {
	files := corpus.Files(t, "zugferd/2.3-examples", func(name string) bool { return name == "factur-x.xml" })
	if len(files) < 8 {
		t.Fatalf("only %d ZUGFeRD 2.3 examples", len(files))
	}
	rejectedBy108 := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(filepath.Dir(f))
		auto, err := Validate(context.Background(), data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if auto.Profile == "XRECHNUNG" || auto.Profile == "" {
			continue // an XRechnung in ZUGFeRD's clothes: judged as XRechnung
		}
		if auto.RuleSet.ID != "facturx-1.08" || auto.RuleSet.ChosenBy != "document" {
			t.Errorf("%s: chosen by the document %+v, want facturx-1.08", name, auto.RuleSet)
		}
		if !auto.Valid {
			rejectedBy108++
		}
		r, err := ValidateWith(context.Background(), data, Options{RuleSet: "facturx-1.07"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !r.Valid {
			t.Errorf("%s: the 1.07 rules reject an official 1.07 example: %v", name, fatalIDs(r))
		}
		if r.RuleSet.ID != "facturx-1.07" || r.RuleSet.ChosenBy != "request" || !slices.Contains(r.RuleSets, "Factur-X 1.07 "+string(r.Profile)) {
			t.Errorf("%s: report names %+v %v", name, r.RuleSet, r.RuleSets)
		}
	}
	if rejectedBy108 == 0 {
		t.Error("no 2.3 example is rejected by the 1.08 rules: the test would not see 1.07 being applied")
	}
}

// TestFacturX107Rules: the 1.07 rule set judges by the 1.07.3 profile Schematron and the
// 1.07.2 profile schemas, as the official 1.07 validation does (bench/einvoicediff
// -facturx-version 1.07 found each verdict so): a currency outside the profile's code list
// fails its code list rule (FX-SCH-A-000040, 1.08's id of the same assertion), not CEN's
// BR-CL-04; elements out of the schema's order fail FX-XSD. Where the versions differ, each
// is held to its own: two VAT totals in a line's monetary summation are one too many for
// the 1.07.2 schema and 1.07.3's occurrence rule (FX-SCH-107-01, our id: 1.08 allows two
// and numbers no such rule), while 1.08 only allows one per currency (FX-SCH-A-000372);
// 1.07.3 EXTENDED sums every line, 1.08 leaves an INFORMATION line out of the totals.
func TestFacturX107Rules(t *testing.T) {
	const fxWaren = "zugferd/2.3-examples/4. EXTENDED/EXTENDED_Warenrechnung/factur-x.xml"
	const (
		lineTotal = "<ram:LineTotalAmount>100.00</ram:LineTotalAmount>"
		vatTotal  = "<ram:TaxTotalAmount currencyID=\"EUR\">19.00</ram:TaxTotalAmount>"
	)
	checkFXWith(t, "facturx-1.07", []fxCase{
		{"currency outside the list", fxBasic, "<ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>", "<ram:InvoiceCurrencyCode>XXY</ram:InvoiceCurrencyCode>",
			[]string{"FX-SCH-A-000040"}, []string{"BR-CL-04", "FX-XSD"}},
		{"type code before the number", fxBasic, "<ram:ID>471102</ram:ID>\n    <ram:TypeCode>380</ram:TypeCode>", "<ram:TypeCode>380</ram:TypeCode>\n    <ram:ID>471102</ram:ID>",
			[]string{"FX-XSD"}, nil},
		{"two VAT totals in a line", fxWaren, lineTotal, lineTotal + vatTotal + vatTotal,
			[]string{"FX-SCH-107-01", "FX-XSD"}, nil},
		{"information line", fxWaren, "<ram:LineID>2</ram:LineID>", "<ram:LineID>2</ram:LineID><ram:LineStatusReasonCode>INFORMATION</ram:LineStatusReasonCode>",
			nil, []string{"BR-FXEXT-CO-10", "BR-FXEXT-CO-13", "BR-FXEXT-S-08"}},
	})
	checkFXWith(t, "facturx-1.08", []fxCase{
		{"two VAT totals in a line", fxWaren, lineTotal, lineTotal + vatTotal + vatTotal,
			[]string{"FX-SCH-A-000372"}, []string{"FX-XSD", "FX-SCH-107-01"}},
		{"information line", fxWaren, "<ram:LineID>2</ram:LineID>", "<ram:LineID>2</ram:LineID><ram:LineStatusReasonCode>INFORMATION</ram:LineStatusReasonCode>",
			[]string{"BR-FXEXT-CO-10", "BR-FXEXT-CO-13", "BR-FXEXT-S-08"}, nil},
	})
}

// TestRuleSetAskedFor: an XRechnung without its buyer reference (BT-10) fails BR-DE-15
// under XRechnung, chosen by its BT-24, and passes EN 16931 when that is asked for; a rule
// set that does not fit the document, or does not exist, is a 400.
func TestRuleSetAskedFor(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpus.Dir(t), "xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_ubl.xml"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	i, j := strings.Index(s, "<cbc:BuyerReference>"), strings.Index(s, "</cbc:BuyerReference>")
	if i < 0 || j < i {
		t.Fatal("no buyer reference in the sample")
	}
	noBT10 := []byte(s[:i] + s[j+len("</cbc:BuyerReference>"):])
	xr, err := Validate(context.Background(), noBT10)
	if err != nil {
		t.Fatal(err)
	}
	if xr.RuleSet.ID != "xrechnung-3.0" || !slices.Contains(fatalIDs(xr), "BR-DE-15") {
		t.Errorf("by its BT-24: %s, failed %v; want xrechnung-3.0 failing BR-DE-15", xr.RuleSet.ID, fatalIDs(xr))
	}
	en, err := ValidateWith(context.Background(), noBT10, Options{RuleSet: "EN16931"})
	if err != nil {
		t.Fatal(err)
	}
	if !en.Valid || en.RuleSet.ID != "en16931" || en.RuleSet.ChosenBy != "request" {
		t.Errorf("asked for EN 16931: valid=%v %+v failed %v", en.Valid, en.RuleSet, fatalIDs(en))
	}
	for _, set := range []string{"facturx-1.08", "peppol-2.0"} {
		if _, err := ValidateWith(context.Background(), noBT10, Options{RuleSet: set}); !fault.Is(err, fault.InvalidInput) {
			t.Errorf("%s on a UBL XRechnung: %v, want invalid input", set, err)
		}
	}
}

// TestFacturXTotalsWarning: a BASIC invoice whose total with VAT is not the total without
// VAT plus the VAT (both BT-112 and BT-115 a euro too high) is valid under Factur-X, whose
// own BR-CO-15 for BASIC never fails, and reports CEN's BR-CO-15 as a warning saying why;
// judged by EN 16931 alone, BR-CO-15 is fatal.
func TestFacturXTotalsWarning(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpus.Dir(t), "zugferd/2.3-examples/2. BASIC/BASIC_Einfach/factur-x.xml"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(data), "<ram:GrandTotalAmount>235.62<", "<ram:GrandTotalAmount>236.62<", 1)
	s = strings.Replace(s, "<ram:DuePayableAmount>235.62<", "<ram:DuePayableAmount>236.62<", 1)
	if s == string(data) {
		t.Fatal("the sample's totals changed")
	}
	sev := func(r *Report) (Severity, string) {
		for _, x := range r.Failed() {
			if x.ID == "BR-CO-15" {
				return x.Severity, x.Scenario
			}
		}
		return "", ""
	}
	fx, err := Validate(context.Background(), []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	if got, why := sev(fx); !fx.Valid || got != Warning || why == "" {
		t.Errorf("Factur-X BASIC: valid %v, BR-CO-15 %q (%q), fatal %v", fx.Valid, got, why, fatalIDs(fx))
	}
	en, err := ValidateWith(context.Background(), []byte(s), Options{RuleSet: "en16931"})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := sev(en); en.Valid || got != Fatal {
		t.Errorf("EN 16931: valid %v, BR-CO-15 %q", en.Valid, got)
	}
}
