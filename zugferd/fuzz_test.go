package zugferd

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/fault"
)

// FuzzValidate: a damaged or hostile PDF gets an error or a report, never a panic or a hang.
func FuzzValidate(f *testing.F) {
	data, err := os.ReadFile(filepath.Join(corpusDir(f), "zugferd", "2.3-examples", "0. MINIMUM", "MINIMUM_Rechnung", "MINIMUM_Rechnung.pdf"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("%PDF-1.7\n%%EOF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Validate(context.Background(), data, ValidateOptions{})
		if err == nil && r.Valid && (!r.XML.Valid || !r.PDF.Valid) {
			t.Fatal("valid although a part is not")
		}
	})
}

// FuzzEmbed: embedding into a damaged or hostile PDF (that claims to be PDF/A-3, so no
// converter runs) is a coded error or a file that validates, never a panic or an uncoded
// failure.
func FuzzEmbed(f *testing.F) {
	data, err := os.ReadFile(filepath.Join(corpusDir(f), "pdf", "invoice-blanks", "MustangGnuaccountingBeispielRE-20201121_508blankoA3.pdf"))
	if err != nil {
		f.Fatal(err)
	}
	xml := exampleXML(f, einvoice.EN16931)
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte("%PDF-1.7\n1 0 obj<</Type/Catalog/Names 1 0 R/AF 1 0 R>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Embed(context.Background(), nil, data, xml, Options{})
		if err != nil {
			if fault.As(err) == nil {
				t.Fatalf("uncoded error: %v", err)
			}
			return
		}
		if r, err := Validate(context.Background(), res.PDF, ValidateOptions{}); err != nil || !r.Valid {
			t.Fatalf("embedded file does not validate: %v", err)
		}
	})
}

// FuzzToXRechnung: a damaged ZUGFeRD PDF converts or fails with a coded error.
func FuzzToXRechnung(f *testing.F) {
	data, err := os.ReadFile(filepath.Join(corpusDir(f), "zugferd", "2.3-examples", "5. XRECHNUNG", "XRECHNUNG_Einfach", "XRECHNUNG_Einfach.pdf"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ToXRechnung(context.Background(), data, ConvertOptions{Validate: true}); err != nil && fault.As(err) == nil {
			t.Fatalf("uncoded error: %v", err)
		}
	})
}
