package zugferd

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testtool"
)

const leitweg = "04011000-12345-03"

// xsdOK fails unless xmllint accepts x against the schema of its syntax and root.
func xsdOK(t *testing.T, x []byte, s syntax.Syntax) {
	t.Helper()
	schema := "cii-d16b/CII/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd"
	if s == syntax.UBL {
		schema = "ubl-2.1/maindoc/UBL-Invoice-2.1.xsd"
		if strings.Contains(string(x[:min(len(x), 300)]), "<CreditNote") {
			schema = "ubl-2.1/maindoc/UBL-CreditNote-2.1.xsd"
		}
	}
	if out, err := exec.Command("xmllint", "--noout", "--schema", filepath.Join(corpusDir(t), "schemas", schema), testtool.File(t, "x.xml", x)).CombinedOutput(); err != nil {
		t.Errorf("xmllint: %v\n%s", err, out)
	}
}

// sourceGaps are the XRechnung rules an EN 16931 example can fail for what its source does
// not carry: payment instructions (BR-DE-1), a seller contact (BR-DE-2), electronic
// addresses (PEPPOL R010, R020), or what PEPPOL asks more strictly than EN 16931: a gross
// price the net price follows from (R046: EN16931_Sachversicherung has gross 1163.40, net
// 1000.00, no allowance), a percentage with every allowance base amount (R042:
// EN16931_Rabatte), no empty elements (R008: EN16931_Betriebskostenabrechnung attaches an
// empty PDF).
var sourceGaps = map[string]bool{"BR-DE-1": true, "BR-DE-2": true, "PEPPOL-EN16931-R010": true, "PEPPOL-EN16931-R020": true,
	"PEPPOL-EN16931-R046": true, "PEPPOL-EN16931-R042": true, "PEPPOL-EN16931-R008": true}

// TestToXRechnungExamples: every EN16931 and XRECHNUNG example becomes UBL and CII that the
// XSDs accept, carrying the source's number, totals and lines. The XRECHNUNG examples pass
// our validation outright; an EN16931 example fails only rules in sourceGaps, and with the
// Leitweg-ID given never BR-DE-15.
func TestToXRechnungExamples(t *testing.T) {
	dirs := []string{"3. EN16931", "5. XRECHNUNG"}
	n := 0
	for _, dir := range dirs {
		pdfs, _ := filepath.Glob(filepath.Join(corpusDir(t), "zugferd", "2.3-examples", dir, "*", "*.pdf"))
		for _, f := range pdfs {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []syntax.Syntax{syntax.UBL, syntax.CII} {
				n++
				t.Run(filepath.Base(f)+"/"+string(s), func(t *testing.T) {
					c, err := ToXRechnung(context.Background(), data, ConvertOptions{Syntax: s, LeitwegID: leitweg})
					if err != nil {
						t.Fatal(err)
					}
					xsdOK(t, c.XML, s)
					got, in, err := syntax.Read(context.Background(), c.XML)
					if err != nil {
						t.Fatal(err)
					}
					src, _, _ := syntax.Read(context.Background(), c.Source.XML)
					if in.Syntax != s || in.Profile != einvoice.XRechnung || in.XRechnungVersion != "3.0" {
						t.Errorf("read back as %+v", in)
					}
					if got.Number != src.Number || got.Totals.AmountDue.String() != src.Totals.AmountDue.String() || len(got.Lines) != len(src.Lines) {
						t.Errorf("number %s/%s, due %s/%s, lines %d/%d", got.Number, src.Number, got.Totals.AmountDue, src.Totals.AmountDue, len(got.Lines), len(src.Lines))
					}
					if want := src.BuyerReference; want != "" && got.BuyerReference != want || want == "" && got.BuyerReference != leitweg {
						t.Errorf("BT-10 %q (source %q): append mode keeps an existing one and fills an empty one", got.BuyerReference, want)
					}
					for _, x := range c.Report.Failed() {
						if x.Severity != rules.Fatal {
							continue
						}
						if dir == "5. XRECHNUNG" || !sourceGaps[x.ID] {
							t.Errorf("%s: %s at %s", x.ID, x.Message, x.Location)
						}
					}
				})
			}
		}
	}
	if n < 40 {
		t.Fatalf("only %d conversions", n)
	}
}

// TestToXRechnungFailures: each failure names its cause with the documented code.
func TestToXRechnungFailures(t *testing.T) {
	ex := func(rel string) []byte {
		b, err := os.ReadFile(filepath.Join(corpusDir(t), "zugferd", rel))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	en := ex("2.3-examples/3. EN16931/EN16931_Einfach/EN16931_Einfach.pdf")
	xr := ex("2.3-examples/5. XRECHNUNG/XRECHNUNG_Einfach/XRECHNUNG_Einfach.pdf")
	for name, c := range map[string]struct {
		pdf  []byte
		o    ConvertOptions
		code fault.Code
		msg  string
	}{
		"minimum":        {ex("2.3-examples/0. MINIMUM/MINIMUM_Rechnung/MINIMUM_Rechnung.pdf"), ConvertOptions{}, fault.Unprocessable, "invoice lines (BG-25)"},
		"basic wl":       {ex("2.3-examples/1. BASIC WL/BASIC-WL_Einfach/BASIC-WL_Einfach.pdf"), ConvertOptions{Syntax: syntax.CII}, fault.Unprocessable, "BG-25"},
		"zugferd 1.0":    {ex("zugferd10/ZUGFeRD_1p0_BASIC_Einfach.pdf"), ConvertOptions{}, fault.InvalidInput, "ZUGFeRD 1.0"},
		"enforce, no id": {en, ConvertOptions{EnforceLeitwegID: true}, fault.Unprocessable, "no Leitweg-ID"},
		"strict, no id":  {en, ConvertOptions{LeitwegIDMode: "strict", LeitwegID: leitweg}, fault.Unprocessable, "strict"},
		"bad id":         {en, ConvertOptions{LeitwegID: "04011000-12345-04"}, fault.InvalidInput, "check digits"},
		"bad mode":       {en, ConvertOptions{LeitwegIDMode: "merge"}, fault.InvalidInput, "leitwegIdMode"},
		"bad version":    {en, ConvertOptions{Version: "4.0"}, fault.InvalidInput, "targetVersion"},
		"validate":       {en, ConvertOptions{Validate: true, LeitwegID: leitweg}, fault.Unprocessable, "BR-DE-2"},
		"not a pdf":      {[]byte("%PDF-1.7 broken"), ConvertOptions{}, fault.InvalidPDF, ""},
	} {
		_, err := ToXRechnung(context.Background(), c.pdf, c.o)
		if fault.CodeOf(err) != c.code || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %s with %q", name, err, c.code, c.msg)
		}
		if name == "validate" {
			if r, ok := fault.As(err).Details["report"].(*rules.Report); !ok || r.Valid {
				t.Errorf("validate: no failing report in the details")
			}
		}
	}

	// The example's own BT-10, 04011000-12345-34, has wrong check digits: enforcing fails
	// on it, in strict mode as in append mode, and replacing it helps.
	for _, mode := range []string{"strict", "append"} {
		_, err := ToXRechnung(context.Background(), xr, ConvertOptions{EnforceLeitwegID: true, LeitwegIDMode: mode, LeitwegID: leitweg})
		if fault.CodeOf(err) != fault.Unprocessable || !strings.Contains(err.Error(), "04011000-12345-34") {
			t.Errorf("enforce (%s) on a bad existing id: %v", mode, err)
		}
	}
	c, err := ToXRechnung(context.Background(), xr, ConvertOptions{Syntax: syntax.CII, EnforceLeitwegID: true, LeitwegIDMode: "replace", LeitwegID: leitweg, Validate: true})
	if err != nil || !c.Report.Valid {
		t.Fatalf("XRECHNUNG enforce+replace+validate: %v", err)
	}
	if got, _, _ := syntax.Read(context.Background(), c.XML); got.BuyerReference != leitweg {
		t.Errorf("replace: BT-10 %q", got.BuyerReference)
	}
	other := "991-33333TEST-33"
	c, err = ToXRechnung(context.Background(), xr, ConvertOptions{LeitwegID: other, LeitwegIDMode: "replace", Validate: true, Version: "2.3"})
	if err != nil {
		t.Fatal(err)
	}
	got, in, _ := syntax.Read(context.Background(), c.XML)
	if got.BuyerReference != other || in.XRechnungVersion != "2.3" || in.Syntax != syntax.UBL {
		t.Errorf("replace: BT-10 %q, version %s, syntax %s", got.BuyerReference, in.XRechnungVersion, in.Syntax)
	}
}
