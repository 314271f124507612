package rules

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice/internal/corpus"
	"github.com/papierkram/papierkram/fault"
)

// FuzzValidate: no input makes validation panic or hang under any rule set, nor makes a
// rule panic (which validation answers as an internal error: a bug of ours, which fails
// the fuzz run); what parses as CII or UBL gets a report whose counts add up.
func FuzzValidate(f *testing.F) {
	for _, rel := range []string{
		"xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_ubl.xml",
		"xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_uncefact.xml",
		"zugferd/2.3-examples/0. MINIMUM/MINIMUM_Rechnung/factur-x.xml",
		"en16931/examples-ubl/issue116.xml", // names Peppol BIS Billing 3.0
	} {
		data, err := os.ReadFile(filepath.Join(corpus.Dir(f), rel))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		if strings.HasSuffix(rel, "_ubl.xml") {
			zoned, _ := corpus.WithZones(string(data)) // dates with a time zone
			f.Add([]byte(zoned))
		}
	}
	f.Add([]byte(`<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Every rule set, as asked for, and the one the document chooses.
		for _, set := range append([]RuleSet{{ID: "auto"}}, RuleSets...) {
			r, err := ValidateWith(context.Background(), data, Options{RuleSet: set.ID})
			if err != nil {
				if c := fault.CodeOf(err); c != fault.InvalidInput && c != fault.PayloadTooLarge {
					t.Fatalf("%s: error of code %s: %v", set.ID, c, err)
				}
				continue
			}
			if r.Summary.Passed+r.Summary.Errors+r.Summary.Warnings != r.Summary.Checked {
				t.Fatalf("%s: summary does not add up: %+v", set.ID, r.Summary)
			}
			if r.Valid != (r.Summary.Errors == 0) {
				t.Fatalf("%s: valid disagrees with the error count", set.ID)
			}
		}
	})
}
