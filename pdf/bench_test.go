package pdf

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/pdf/pagerange"
)

// cliTime is the mean time of a command over n runs, measured in the same run as the
// benchmark it is compared with.
func cliTime(b *testing.B, n int, name string, args ...string) time.Duration {
	b.Helper()
	start := time.Now()
	for range n {
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			b.Fatalf("%s: %v %s", name, err, out)
		}
	}
	return time.Since(start) / time.Duration(n)
}

func inputFile(b *testing.B, data []byte) string {
	p := filepath.Join(b.TempDir(), "in.pdf")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkInspect20MB reads the metadata of a 20 MB PDF; vs-pdfinfo is its time divided by
// pdfinfo's on the same file (below 1: faster than the CLI).
func BenchmarkInspect20MB(b *testing.B) {
	data := testpdf.Make(testpdf.Options{Pages: 20, Filler: 1 << 20})
	base := cliTime(b, 20, "pdfinfo", inputFile(b, data))
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		if _, err := Inspect(data); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start))/float64(b.N)/float64(base), "vs-pdfinfo")
}

// BenchmarkSplit100 splits a 100-page PDF into single pages; vs-qpdf compares with
// qpdf --split-pages on the same file.
func BenchmarkSplit100(b *testing.B) {
	data := testpdf.New(100)
	in := inputFile(b, data)
	out := filepath.Join(b.TempDir(), "p.pdf")
	base := cliTime(b, 10, "qpdf", "--split-pages", in, out)
	b.ResetTimer()
	start := time.Now()
	for b.Loop() {
		d, err := Read(data)
		if err != nil {
			b.Fatal(err)
		}
		sp, _ := pagerange.Parse("all", d.PageCount())
		if _, err := d.Split(sp); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(time.Since(start))/float64(b.N)/float64(base), "vs-qpdf")
}

// BenchmarkCheck measures the bounds check on corpus ZUGFeRD PDFs (a one-page invoice; the
// corpus's largest file, 2 MB with a 1 MB compressed XML attachment and a PDF one) and on
// the 20 MB file of BenchmarkInspect20MB. vs-read is its time divided by pdfcpu's read and
// validation of the same file, which is what Read cost before the check; read-vs-read is
// Read's time now (the check, pdfcpu, the page content measured) divided by the same.
func BenchmarkCheck(b *testing.B) {
	for name, data := range map[string][]byte{
		"invoice": readCorpusB(b, "zugferd/2.3-examples/3. EN16931/EN16931_Einfach/EN16931_Einfach.pdf"),
		"largest": readCorpusB(b, "zugferd/2.3-examples/5. XRECHNUNG/XRECHNUNG_Elektron/XRECHNUNG_Elektron.pdf"),
		"20MB":    testpdf.Make(testpdf.Options{Pages: 20, Filler: 1 << 20}),
	} {
		b.Run(name, func(b *testing.B) {
			const n = 20
			timed := func(f func() error) time.Duration {
				start := time.Now()
				for range n {
					if err := f(); err != nil {
						b.Fatal(err)
					}
				}
				return time.Since(start) / n
			}
			base := timed(func() error { return pdfcpuRead(data) })
			read := timed(func() error { _, err := Read(data); return err })
			b.SetBytes(int64(len(data)))
			b.ResetTimer()
			start := time.Now()
			for b.Loop() {
				if err := Check(data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(time.Since(start))/float64(b.N)/float64(base), "vs-read")
			b.ReportMetric(float64(read)/float64(base), "read-vs-read")
		})
	}
}

func readCorpusB(b *testing.B, rel string) []byte {
	data, err := os.ReadFile(filepath.Join(corpus, rel))
	if err != nil {
		b.Fatal(err)
	}
	return data
}
