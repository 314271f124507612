package tesseract

import (
	"bytes"
	"fmt"
	"image"
	_ "image/jpeg"
	"os"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testtool"
)

// TestTextLayer reads a real scanned receipt into a text-only page: the words are there
// for pdftotext, in Tesseract's embedded GlyphLessFont, on a page of the image's size at
// the resolution given, with no image.
func TestTextLayer(t *testing.T) {
	img, err := os.ReadFile("../../../shared/corpus/receipts/de-scans/aldi_02032020_19_02423.jpg")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img))
	if err != nil {
		t.Fatal(err)
	}
	l, err := newTesseract(t).TextLayer(t.Context(), img, 300, "deu+eng")
	if err != nil {
		t.Fatal(err)
	}
	if l.Words < 50 || l.Confidence < 40 || l.Confidence > 100 {
		t.Errorf("words %d, confidence %.1f", l.Words, l.Confidence)
	}
	f := testtool.File(t, "layer.pdf", l.PDF)
	text := testtool.Run(t, "pdftotext", f, "-")
	for _, want := range []string{"ZU ZAHLEN", "ÖFFNUNGSZEITEN", "Paderborn"} {
		if !strings.Contains(text, want) {
			t.Errorf("pdftotext has no %q:\n%s", want, text)
		}
	}
	if fonts := testtool.Run(t, "pdffonts", f); !strings.Contains(fonts, "GlyphLessFont") || !strings.Contains(fonts, " yes ") {
		t.Errorf("pdffonts:\n%s", fonts)
	}
	if imgs := testtool.Run(t, "pdfimages", "-list", f); strings.Count(imgs, "\n") != 2 { // the header only
		t.Errorf("the layer has images:\n%s", imgs)
	}
	want := fmt.Sprintf("%g x %g pts", float64(cfg.Width)*72/300, float64(cfg.Height)*72/300)
	if got := testtool.Info(t, l.PDF)["Page size"]; !strings.HasPrefix(got, want) {
		t.Errorf("page size %q, want %q", got, want)
	}
}

// TestTextLayerRefuses: what the caller got wrong is invalid input, a language that is not
// installed too, even beside one that is (Tesseract would read on without it).
func TestTextLayerRefuses(t *testing.T) {
	img, err := os.ReadFile("../../../shared/corpus/receipts/de-scans/aldi_02032020_19_02423.jpg")
	if err != nil {
		t.Fatal(err)
	}
	ts := newTesseract(t)
	for name, c := range map[string]struct {
		img   []byte
		dpi   int
		langs string
		msg   string
	}{
		"not installed":        {img, 300, "xyz", `"xyz" is not installed`},
		"one of two installed": {img, 300, "deu+xyz", `"xyz" is not installed`},
		"path":                 {img, 300, "../eng", "Tesseract codes"},
		"option":               {img, 300, "-psm", "Tesseract codes"},
		"empty code":           {img, 300, "deu+", "Tesseract codes"},
		"dpi":                  {img, 5, "deu", "resolution"},
		"not an image":         {[]byte("not an image"), 300, "deu", "cannot be read"},
	} {
		t.Run(name, func(t *testing.T) {
			l, err := ts.TextLayer(t.Context(), c.img, c.dpi, c.langs)
			if fault.CodeOf(err) != fault.InvalidInput || !strings.Contains(err.Error(), c.msg) || l != nil {
				t.Errorf("err = %v (%s), want invalid input with %q", err, fault.CodeOf(err), c.msg)
			}
		})
	}
}
