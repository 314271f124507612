package zugferd

import (
	"os"
	"path/filepath"
	"testing"

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
			if r, err := Validate(data); err != nil || !r.Valid {
				b.Fatal(err)
			}
		}
	})
}
