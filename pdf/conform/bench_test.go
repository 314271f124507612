package conform

import (
	"context"
	"testing"

	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/pdf"
)

// tenPages is a 10-page document with text on each page.
var tenPages = testpdf.Make(testpdf.Options{Pages: 10, Filler: 2000})

// BenchmarkCheck validates a 10-page PDF; BenchmarkRead is the parse alone, the baseline:
// the ratio of the two is the validator's own cost.
func BenchmarkCheck(b *testing.B) {
	for b.Loop() {
		if _, err := Check(context.Background(), tenPages, PDFA3B); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRead(b *testing.B) {
	for b.Loop() {
		if _, err := pdf.ReadLenient(tenPages); err != nil {
			b.Fatal(err)
		}
	}
}
