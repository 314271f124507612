package ocr

import (
	"bytes"
	"image"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/engine/tesseract"
	"github.com/papierkram/papierkram/internal/testtool"
)

const corpus = "../../../shared/corpus/"

// receiptScan is ten real scanned receipts (JPEGs from a Canon scanner at 300 dpi), one
// page each at the image's size.
func receiptScan(b *testing.B) []byte {
	files, err := filepath.Glob(corpus + "receipts/de-scans/*.jpg")
	if err != nil || len(files) < 10 {
		b.Fatalf("%d receipts: %v", len(files), err)
	}
	sort.Strings(files)
	var pages []scanPage
	for _, f := range files[:10] {
		jpg, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		cfg, _, err := image.DecodeConfig(bytes.NewReader(jpg))
		if err != nil {
			b.Fatal(err)
		}
		pages = append(pages, scanPage{jpeg: jpg, box: [4]float64{0, 0, float64(cfg.Width) * 72 / 300, float64(cfg.Height) * 72 / 300}})
	}
	return scanPDF(b, pages...)
}

// invoiceScan is ten A4 invoices (the first pages of the corpus's ZUGFeRD examples) as a
// scanner would deliver them: grey, 300 dpi, JPEG.
func invoiceScan(b *testing.B) []byte {
	files, err := filepath.Glob(corpus + "zugferd/2.3-examples/3. EN16931/*/*.pdf")
	if err != nil || len(files) < 10 {
		b.Fatalf("%d invoices: %v", len(files), err)
	}
	sort.Strings(files)
	var pages []scanPage
	for _, f := range files[:10] {
		jpg := testtool.Run(b, "pdftoppm", "-r", "300", "-gray", "-jpeg", "-jpegopt", "quality=85", "-singlefile", "-f", "1", "-l", "1", f)
		pages = append(pages, scanPage{jpeg: []byte(jpg), box: a4})
	}
	return scanPDF(b, pages...)
}

// baseline is what a script does without us: each page rendered to PNG at 300 dpi
// (pdftoppm), made a PDF by Tesseract (tesseract page.png out -l deu+eng pdf), one page
// after the other, and the pages merged (qpdf). It returns the whole time, Tesseract's
// part of it, and the merged PDF's size.
func baseline(b *testing.B, scan []byte, pages int) (total, tess time.Duration, size int) {
	dir := b.TempDir()
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, scan, 0o600); err != nil {
		b.Fatal(err)
	}
	run := func(name string, args ...string) time.Duration {
		start := time.Now()
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", name, err, out)
		}
		return time.Since(start)
	}
	merge := []string{"--empty", "--pages"}
	for p := 1; p <= pages; p++ {
		n := strconv.Itoa(p)
		png, out := filepath.Join(dir, "p"+n), filepath.Join(dir, "o"+n)
		total += run("pdftoppm", "-r", "300", "-png", "-singlefile", "-f", n, "-l", n, in, png)
		t := run("tesseract", png+".png", out, "-l", "deu+eng", "pdf")
		total, tess = total+t, tess+t
		merge = append(merge, out+".pdf")
	}
	merged := filepath.Join(dir, "merged.pdf")
	total += run("qpdf", append(merge, "--", merged)...)
	fi, err := os.Stat(merged)
	if err != nil {
		b.Fatal(err)
	}
	return total, tess, int(fi.Size())
}

// BenchmarkOCR makes a 10-page scan searchable and compares with the baseline script, in
// the same run: x-baseline is our time over the script's (below 1: faster), x-tesseract
// over the script's Tesseract runs alone; out-KB and baseline-KB are the sizes of the two
// results. Our engines run as the server's do: NumCPU Tesseract jobs at once, each on one
// thread. Run with -benchtime 1x: one pass takes tens of seconds.
func BenchmarkOCR(b *testing.B) {
	for _, c := range []struct {
		name string
		scan func(*testing.B) []byte
	}{{"receipts", receiptScan}, {"invoices", invoiceScan}} {
		b.Run(c.name, func(b *testing.B) {
			scan := c.scan(b)
			base, tess, baseSize := baseline(b, scan, 10)
			pop := poppler.New(engine.Config{Concurrency: 2 * runtime.NumCPU(), TempRoot: b.TempDir()})
			ts := tesseract.New(engine.Config{Concurrency: runtime.NumCPU(), TempRoot: b.TempDir()})
			b.Cleanup(func() {
				pop.Supervisor().Stop(b.Context())
				ts.Supervisor().Stop(b.Context())
			})
			var r *Result
			b.ResetTimer()
			start := time.Now()
			for b.Loop() {
				var err error
				if r, err = Searchable(b.Context(), pop, ts, scan, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			per := time.Since(start) / time.Duration(b.N)
			words := 0
			for _, p := range r.Pages {
				words += p.Words
			}
			b.ReportMetric(per.Seconds(), "s/doc")
			b.ReportMetric(base.Seconds(), "baseline-s")
			b.ReportMetric(float64(per)/float64(base), "x-baseline")
			b.ReportMetric(float64(per)/float64(tess), "x-tesseract")
			b.ReportMetric(float64(len(scan))/1024, "in-KB")
			b.ReportMetric(float64(len(r.PDF))/1024, "out-KB")
			b.ReportMetric(float64(baseSize)/1024, "baseline-KB")
			b.ReportMetric(float64(words), "words")
		})
	}
}
