package receipt

import (
	"bytes"
	"image"
	"image/gif"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"golang.org/x/image/tiff"
)

// TestFormats: the same scan as PNG, GIF, TIFF, WebP (cwebp) and an image-only PDF (a scan
// without text, read by rendering and OCR) reads to the same total and date.
func TestFormats(t *testing.T) {
	src := scans + "/real_24042020_08_02642.jpg"
	jpg, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	img, _, err := image.Decode(bytes.NewReader(jpg))
	if err != nil {
		t.Fatal(err)
	}
	enc := func(f func(*bytes.Buffer) error) []byte {
		var buf bytes.Buffer
		if err := f(&buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	webp := filepath.Join(t.TempDir(), "r.webp")
	if out, err := exec.Command("cwebp", "-quiet", "-q", "90", src, "-o", webp).CombinedOutput(); err != nil {
		t.Fatalf("cwebp: %v %s", err, out)
	}
	webpData, _ := os.ReadFile(webp)
	var pdf bytes.Buffer
	if err := api.ImportImages(nil, &pdf, []io.Reader{bytes.NewReader(jpg)}, nil, nil); err != nil {
		t.Fatal(err)
	}
	e := newExtractor(t)
	for name, data := range map[string][]byte{
		"png":  enc(func(b *bytes.Buffer) error { return png.Encode(b, img) }),
		"gif":  enc(func(b *bytes.Buffer) error { return gif.Encode(b, img, nil) }),
		"tiff": enc(func(b *bytes.Buffer) error { return tiff.Encode(b, img, nil) }),
		"webp": webpData,
		"pdf":  pdf.Bytes(),
	} {
		start := time.Now()
		r, err := e.Extract(t.Context(), data, "r."+name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		t.Logf("%s: %v, %d bytes, quality %+v", name, time.Since(start), len(data), r.Quality)
		if r.Data.Gross.String() != "26.42" || r.Data.Date != "2020-04-24" || r.Source != "OCR" {
			t.Errorf("%s: total %s, date %s, source %s", name, r.Data.Gross, r.Data.Date, r.Source)
		}
	}
}

// TestOrientation: a receipt photographed sideways is turned upright before it is read.
func TestOrientation(t *testing.T) {
	g, _ := corpusImage(t)
	sideways, err := encodePNG(turn(g, 90))
	if err != nil {
		t.Fatal(err)
	}
	r, err := newExtractor(t).Extract(t.Context(), sideways, "sideways.png")
	if err != nil {
		t.Fatal(err)
	}
	if r.Quality.Rotated != 270 || r.Data.Gross.String() != "24.23" {
		t.Errorf("rotated %d, total %s", r.Quality.Rotated, r.Data.Gross)
	}
}
