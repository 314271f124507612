package receipt

import (
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// BenchmarkExtract measures one receipt end to end without a model (decode, assess,
// deskew, OCR, rules, checks) against the baseline of the same run: a bare tesseract
// process on the same file, which is what OCR alone costs. It reports ms per receipt and
// the ratio pipeline/baseline.
func BenchmarkExtract(b *testing.B) {
	data, err := os.ReadFile(scans + "/aldi_02032020_19_02423.jpg")
	if err != nil {
		b.Fatal(err)
	}
	e := newExtractor(b)
	base := measure(b, 3, func() {
		cmd := exec.Command("tesseract", scans+"/aldi_02032020_19_02423.jpg", "-", "-l", "deu+eng", "--psm", "6")
		cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	})
	b.ResetTimer()
	for b.Loop() {
		if _, err := e.Extract(b.Context(), data, "aldi.jpg"); err != nil {
			b.Fatal(err)
		}
	}
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(per.Milliseconds()), "ms/receipt")
	b.ReportMetric(float64(base.Milliseconds()), "baseline-ms")
	b.ReportMetric(float64(per)/float64(base), "x-baseline")
}

// BenchmarkBatch20 extracts 20 receipts two at a time (the machine's cores), as
// /api/receipts/extract-batch does, and reports receipts per second.
func BenchmarkBatch20(b *testing.B) {
	cases := corpus(b)[:20]
	files := make([][]byte, len(cases))
	for i, c := range cases {
		files[i], _ = os.ReadFile(c.file)
	}
	e := newExtractor(b)
	for b.Loop() {
		var wg sync.WaitGroup
		sem := make(chan struct{}, 2)
		for _, f := range files {
			wg.Go(func() {
				sem <- struct{}{}
				defer func() { <-sem }()
				if _, err := e.Extract(b.Context(), f, "r.jpg"); err != nil {
					b.Error(err)
				}
			})
		}
		wg.Wait()
	}
	b.ReportMetric(float64(20*b.N)/b.Elapsed().Seconds(), "receipts/s")
}

func measure(b *testing.B, n int, f func()) time.Duration {
	start := time.Now()
	for range n {
		f()
	}
	return time.Since(start) / time.Duration(n)
}
