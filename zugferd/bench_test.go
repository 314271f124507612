package zugferd

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/pdf"
)

// BenchmarkValidate checks a Factur-X EN 16931 example PDF; the baseline in the same run
// is reading the PDF alone, so the ratio is the cost of extraction and both checks.
func BenchmarkValidate(b *testing.B) {
	data, err := os.ReadFile(filepath.Join(corpusDir(b), "zugferd", "2.3-examples", "3. EN16931", "EN16931_Einfach", "EN16931_Einfach.pdf"))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("read-pdf", func(b *testing.B) {
		for b.Loop() {
			if _, err := pdf.Read(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("validate", func(b *testing.B) {
		for b.Loop() {
			if r, err := Validate(context.Background(), data, ValidateOptions{}); err != nil || !r.Valid {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkEmbed embeds an EN 16931 invoice into the 1-page PDF/A-3 blank (no conversion)
// and into the PDF 1.4 blank (with the Ghostscript PDF/A conversion); the baseline in the
// same run is reading the PDF/A-3 blank alone.
func BenchmarkEmbed(b *testing.B) {
	dir := filepath.Join(corpusDir(b), "pdf", "invoice-blanks")
	a3, err := os.ReadFile(filepath.Join(dir, "MustangGnuaccountingBeispielRE-20201121_508blankoA3.pdf"))
	if err != nil {
		b.Fatal(err)
	}
	plain, err := os.ReadFile(filepath.Join(dir, "MustangGnuaccountingBeispielRE-20170509_505PDF14.pdf"))
	if err != nil {
		b.Fatal(err)
	}
	xml := exampleXML(b, einvoice.EN16931)
	b.Run("read-pdf", func(b *testing.B) {
		for b.Loop() {
			if _, err := pdf.Read(a3); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("pdfa3", func(b *testing.B) {
		for b.Loop() {
			if r, err := Embed(context.Background(), nil, a3, xml, Options{}); err != nil || r.Converted {
				b.Fatal(err)
			}
		}
	})
	g := gs(b)
	b.Run("with-conversion", func(b *testing.B) {
		for b.Loop() {
			if r, err := Embed(context.Background(), g, plain, xml, Options{}); err != nil || !r.Converted {
				b.Fatal(err)
			}
		}
	})
}
