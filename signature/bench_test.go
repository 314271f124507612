package signature

import (
	"context"
	"testing"
	"time"

	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testpki"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/pagerange"
)

// benchSign signs an n-page PDF; vs-readwrite is its time divided by a plain parse and
// rewrite of the same file (pdfcpu), measured in the same run.
func benchSign(b *testing.B, pages int) {
	data := testpdf.New(pages)
	c := creds(testpki.Valid(b))
	start := time.Now()
	const baseRuns = 20
	for range baseRuns {
		d, err := pdf.Read(data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := d.Extract(pagerange.Spec{{From: 1, To: d.PageCount()}}); err != nil {
			b.Fatal(err)
		}
	}
	base := time.Since(start) / baseRuns
	b.ResetTimer()
	start = time.Now()
	for b.Loop() {
		if _, err := Sign(context.Background(), data, c, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start))/float64(b.N)/float64(base), "vs-readwrite")
}

func BenchmarkSign1Page(b *testing.B)    { benchSign(b, 1) }
func BenchmarkSign100Pages(b *testing.B) { benchSign(b, 100) }
