package compress

import (
	"bytes"
	"context"
	"image/color"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// Inputs of the benchmarks. tuning/ are the files the settings were chosen on: the
// levels on the receipt scans (BenchmarkLevelsOCR), RGB at high and JPEG 2000 re-encoding
// on the Photoshop page, the threshold on the taxi scan. heldout/ were not looked at while
// choosing, and tell whether the choice holds elsewhere.
func benchInputs(b *testing.B) []struct {
	name string
	data []byte
} {
	en := "zugferd/2.3-examples/3. EN16931/"
	return []struct {
		name string
		data []byte
	}{
		{"tuning/receipts-300dpi", receiptsPDF(b, 6)},
		{"tuning/taxi-scan", readCorpus(b, en+"EN16931_Reisekostenabrechnung/attachments/EN16931_Reisekostenabrechnung_Taxi-Nue-und-Berlin.pdf")},
		{"tuning/photoshop-jpx", readCorpus(b, en+"EN16931_Elektron/attachments/EN16931_Elektron_ElektronRapport.pdf")},
		{"heldout/zugferd20-pdfa3", readCorpus(b, "zugferd/zugferd20/zugferd_2p0_EN16931_Einfach.pdf")},
		{"heldout/facturx-attachments", readCorpus(b, en+"EN16931_Elektron/EN16931_Elektron.pdf")},
		{"heldout/invoice-a3", readCorpus(b, "pdf/invoice-blanks/MustangGnuaccountingBeispielRE-20201121_508blankoA3.pdf")},
		{"heldout/generated-photos-300dpi", imagePDF(photoPage(300, 101), photoPage(300, 102), photoPage(300, 103))},
	}
}

// receiptsPDF puts the first n receipt scans of the corpus (300 dpi JPEGs) on a page each,
// at their size.
func receiptsPDF(b testing.TB, n int) []byte {
	dir := filepath.Join(corpus, "receipts", "de-scans")
	files, _ := filepath.Glob(filepath.Join(dir, "*.jpg"))
	sort.Strings(files)
	if len(files) < n {
		b.Fatalf("%d receipts in %s", len(files), dir)
	}
	var pages []page
	for _, f := range files[:n] {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		cfg, err := jpeg.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		cs := "/DeviceRGB"
		switch cfg.ColorModel {
		case color.GrayModel:
			cs = "/DeviceGray"
		case color.CMYKModel:
			cs = "/DeviceCMYK"
		}
		im := pdfImage{cfg.Width, cfg.Height, "/ColorSpace " + cs + " /BitsPerComponent 8 /Filter /DCTDecode", data}
		pages = append(pages, page{float64(cfg.Width) * 72 / 300, float64(cfg.Height) * 72 / 300, []pdfImage{im}})
	}
	return imagePDF(pages...)
}

// ebook runs plain Ghostscript with its /ebook preset (150 dpi, JPEG, the usual
// "compress a PDF" command line) on in and returns the result and the time it took.
func ebook(b *testing.B, in string) ([]byte, time.Duration) {
	out := filepath.Join(b.TempDir(), "ebook.pdf")
	start := time.Now()
	if msg, err := exec.Command("gs", "-q", "-dBATCH", "-dNOPAUSE", "-dSAFER", "-sDEVICE=pdfwrite", "-dPDFSETTINGS=/ebook", "-sOutputFile="+out, in).CombinedOutput(); err != nil {
		b.Fatalf("gs: %v %s", err, msg)
	}
	d := time.Since(start)
	data, err := os.ReadFile(out)
	if err != nil {
		b.Fatal(err)
	}
	return data, d
}

// BenchmarkCompress compresses each input at every level and with plain
// gs -dPDFSETTINGS=/ebook, side by side in one run. size_ratio is output bytes over input
// bytes (lower is better; 1 when nothing got smaller); vs_ebook_size and vs_ebook_time
// divide ours by Ghostscript /ebook's on the same input, measured in the same run (the
// ebook time as the mean of three runs). fell_back is 1 when a lossy level returned the
// lossless result (the note says why).
//
//	go test -run '^$' -bench BenchmarkCompress -benchtime 3x ./pdf/compress/
func BenchmarkCompress(b *testing.B) {
	g := gs(b)
	for _, in := range benchInputs(b) {
		b.Run(in.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "in.pdf")
			if err := os.WriteFile(path, in.data, 0o600); err != nil {
				b.Fatal(err)
			}
			var ebookSize int
			var ebookTime time.Duration
			for range 3 {
				out, d := ebook(b, path)
				ebookSize, ebookTime = len(out), ebookTime+d/3
			}
			b.Run("gs-ebook", func(b *testing.B) {
				b.SetBytes(int64(len(in.data)))
				var size int
				for b.Loop() {
					out, _ := ebook(b, path)
					size = len(out)
				}
				b.ReportMetric(float64(size)/float64(len(in.data)), "size_ratio")
			})
			for _, level := range []Level{Lossless, Medium, High} {
				b.Run(string(level), func(b *testing.B) {
					b.SetBytes(int64(len(in.data)))
					var r *Result
					start := time.Now()
					for b.Loop() {
						var err error
						if r, err = Compress(context.Background(), g, in.data, Options{Level: level}); err != nil {
							b.Fatal(err)
						}
					}
					per := time.Since(start) / time.Duration(b.N)
					fell := 0.0
					if level != Lossless && r.Level == Lossless {
						fell = 1
						b.Logf("%s %s: %s", in.name, level, r.Note)
					}
					b.ReportMetric(float64(r.After)/float64(r.Before), "size_ratio")
					b.ReportMetric(float64(r.After)/float64(ebookSize), "vs_ebook_size")
					b.ReportMetric(float64(per)/float64(ebookTime), "vs_ebook_time")
					b.ReportMetric(fell, "fell_back")
				})
			}
		})
	}
}

// BenchmarkLevelsOCR is the measurement behind the levels: receipt scans at 300 dpi,
// compressed at each level and with gs /ebook, rendered at 300 dpi and read by Tesseract.
// recall is the share of the words Tesseract reads in the original that it still reads in
// the compressed file (as a multiset); size_ratio as in BenchmarkCompress. Slow (OCR):
//
//	go test -run '^$' -bench BenchmarkLevelsOCR -benchtime 1x ./pdf/compress/
func BenchmarkLevelsOCR(b *testing.B) {
	g := gs(b)
	in := receiptsPDF(b, 6)
	ref := ocrWords(b, in)
	path := filepath.Join(b.TempDir(), "in.pdf")
	os.WriteFile(path, in, 0o600)
	for _, c := range []struct {
		name string
		o    *Options
	}{
		{"medium", &Options{Level: Medium}},
		{"high", &Options{Level: High}},
		{"200dpi-q85", &Options{Level: Medium, DPI: 200, Quality: 85}},
		{"120dpi-q60", &Options{Level: High, DPI: 120}},
		{"72dpi-q50", &Options{Level: High, DPI: 72, Quality: 50}},
		{"gs-ebook", nil},
	} {
		b.Run(c.name, func(b *testing.B) {
			var out []byte
			for b.Loop() {
				if c.o == nil {
					out, _ = ebook(b, path)
					continue
				}
				r, err := Compress(context.Background(), g, in, *c.o)
				if err != nil {
					b.Fatal(err)
				}
				out = r.PDF
			}
			b.ReportMetric(float64(len(out))/float64(len(in)), "size_ratio")
			b.ReportMetric(recall(ref, ocrWords(b, out)), "recall")
		})
	}
}

// ocrWords renders data at 300 dpi and returns Tesseract's words (German) of all pages.
func ocrWords(b *testing.B, data []byte) []string {
	dir := b.TempDir()
	in := filepath.Join(dir, "in.pdf")
	os.WriteFile(in, data, 0o600)
	if msg, err := exec.Command("pdftoppm", "-r", "300", "-png", in, filepath.Join(dir, "p")).CombinedOutput(); err != nil {
		b.Fatalf("pdftoppm: %v %s", err, msg)
	}
	pngs, _ := filepath.Glob(filepath.Join(dir, "p-*.png"))
	sort.Strings(pngs)
	var words []string
	for _, p := range pngs {
		cmd := exec.Command("tesseract", p, "-", "-l", "deu")
		cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("tesseract: %v", err)
		}
		for _, w := range strings.Fields(string(out)) {
			if len([]rune(w)) >= 2 {
				words = append(words, w)
			}
		}
	}
	return words
}

// recall is the share of ref's words (counted with repeats) found in got.
func recall(ref, got []string) float64 {
	have := map[string]int{}
	for _, w := range got {
		have[w]++
	}
	found := 0
	for _, w := range ref {
		if have[w] > 0 {
			have[w]--
			found++
		}
	}
	return float64(found) / float64(max(1, len(ref)))
}
