package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

func imageOf(t *testing.T, res *http.Response, wantType string) image.Image {
	t.Helper()
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != wantType {
		t.Fatalf("%d %q: %.300s", res.StatusCode, res.Header.Get("Content-Type"), b)
	}
	var img image.Image
	var err error
	if wantType == "image/png" {
		img, err = png.Decode(bytes.NewReader(b))
	} else {
		img, err = jpeg.Decode(bytes.NewReader(b))
	}
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// darkPixels counts pixels that are not near-white: text was drawn.
func darkPixels(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r < 0x8000 && g < 0x8000 && bl < 0x8000 {
				n++
			}
		}
	}
	return n
}

func TestPreview(t *testing.T) {
	e := newTestEnv(t)
	src := testpdf.New(3) // A4: 595 × 842 pt
	img := imageOf(t, e.upload("/api/preview", [2]any{"file", src}), "image/png")
	// Default 96 dpi: 595*96/72 = 793.3 -> 794 (poppler rounds up), 842*96/72 = 1122.7 -> 1123.
	if b := img.Bounds(); b.Dx() < 793 || b.Dx() > 794 || b.Dy() < 1122 || b.Dy() > 1123 {
		t.Fatalf("96 dpi size %v", b)
	}
	if darkPixels(img) < 50 {
		t.Fatal("rendered page is blank")
	}
	img = imageOf(t, e.upload("/api/preview?page=2&format=JPEG&dpi=150&maxWidth=400", [2]any{"file", src}), "image/jpeg")
	if b := img.Bounds(); b.Dx() != 400 || b.Dy() < 565 || b.Dy() > 567 {
		t.Fatalf("maxWidth 400: %v", b)
	}
	// maxWidth larger than the natural width does not scale up.
	img = imageOf(t, e.upload("/api/preview?dpi=72&maxWidth=5000", [2]any{"file", src}), "image/png")
	if b := img.Bounds(); b.Dx() != 595 {
		t.Fatalf("no upscaling expected: %v", b)
	}
	// Base64 input.
	body, _ := json.Marshal(map[string]string{"file": base64.StdEncoding.EncodeToString(src)})
	img = imageOf(t, e.do("POST", "/api/preview/base64?page=3&dpi=36", testKey, body), "image/png")
	if b := img.Bounds(); b.Dx() < 297 || b.Dx() > 298 {
		t.Fatalf("36 dpi: %v", b)
	}

	wantProblem(t, e.upload("/api/preview?page=4", [2]any{"file", src}), 400, "invalid_page_spec")
	wantProblem(t, e.upload("/api/preview?dpi=301", [2]any{"file", src}), 400, "invalid_input")
	wantProblem(t, e.upload("/api/preview?format=GIF", [2]any{"file", src}), 400, "invalid_input")
	wantProblem(t, e.upload("/api/preview", [2]any{"file", []byte("GIF89a")}), 400, "invalid_pdf")
	poster := testpdf.Make(testpdf.Options{Pages: 1, Width: 2384 * 2, Height: 3370 * 2})
	wantProblem(t, e.upload("/api/preview?dpi=300", [2]any{"file", poster}), 400, "invalid_input")
}

func TestPreviewPages(t *testing.T) {
	e := newTestEnv(t)
	src := testpdf.New(60)
	res := e.upload("/api/preview/pages?pages=1-3,7&dpi=36", [2]any{"file", src})
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("%d %s", res.StatusCode, b)
	}
	var out PreviewResponse
	json.NewDecoder(res.Body).Decode(&out)
	res.Body.Close()
	if out.Count != 4 || len(out.Images) != 4 || out.Images[3].Page != 7 {
		t.Fatalf("pages %+v", out.Count)
	}
	for _, im := range out.Images {
		b, _ := base64.StdEncoding.DecodeString(im.File)
		cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
		if err != nil || cfg.Width != im.Width || cfg.Height != im.Height || im.Width < 297 || im.Width > 298 {
			t.Fatalf("image %d: %v %+v vs %dx%d", im.Page, err, cfg, im.Width, im.Height)
		}
	}
	p := wantProblem(t, e.upload("/api/preview/pages?pages=1-51", [2]any{"file", src}), 400, "invalid_page_spec")
	if !strings.Contains(p["detail"].(string), "at most 50") {
		t.Fatalf("detail %v", p["detail"])
	}
	wantProblem(t, e.upload("/api/preview/pages", [2]any{"file", src}), 400, "invalid_page_spec") // all = 60 pages
	body, _ := json.Marshal(map[string]string{"file": base64.StdEncoding.EncodeToString(testpdf.New(2))})
	res = e.do("POST", "/api/preview/pages/base64?format=JPEG", testKey, body)
	json.NewDecoder(res.Body).Decode(&out)
	res.Body.Close()
	if out.Count != 2 || out.Images[0].ContentType != "image/jpeg" || out.Images[0].Width != 595 {
		t.Fatalf("base64 pages %+v", out.Images[0].Width)
	}
}

func TestPageCountAndText(t *testing.T) {
	e := newTestEnv(t)
	m := decode(t, e.upload("/api/preview/page-count", [2]any{"file", testpdf.New(7)}))
	if m["pages"] != float64(7) {
		t.Fatalf("page count %v", m)
	}
	res := e.upload("/api/pdf-tools/text?pages=2,4", [2]any{"file", testpdf.New(5)})
	var tr TextResult
	json.NewDecoder(res.Body).Decode(&tr)
	res.Body.Close()
	if tr.Count != 2 || tr.Pages[0].Page != 2 || strings.TrimSpace(tr.Pages[0].Text) != "Page 2" || strings.TrimSpace(tr.Pages[1].Text) != "Page 4" {
		t.Fatalf("text %+v", tr)
	}
}

func TestPDFAEndpoint(t *testing.T) {
	e := newTestEnv(t)
	b := pdfBody(t, e.upload("/api/pdf-tools/pdfa?title=Bericht&author=Eva", [2]any{"file", testpdf.New(2)}))
	meta := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "a.pdf", b))
	if !strings.Contains(meta, "pdfaid:part") || !strings.Contains(meta, "Bericht") || !strings.Contains(meta, "Eva") {
		t.Fatalf("XMP:\n%s", meta)
	}
	if info := testtool.Info(t, b); info["Title"] != "Bericht" || info["Author"] != "Eva" {
		t.Fatalf("info %v", info)
	}
	if js := testtool.Run(t, "qpdf", "--json", testtool.File(t, "j.pdf", b)); !strings.Contains(js, `"/GTS_PDFA1"`) {
		t.Fatal("no OutputIntent")
	}
	body, _ := json.Marshal(map[string]string{"file": base64.StdEncoding.EncodeToString(testpdf.New(1))})
	pdfBody(t, e.do("POST", "/api/pdf-tools/pdfa/base64", testKey, body))
	wantProblem(t, e.do("POST", "/api/pdf-tools/pdfa/base64", testKey, `{"file":"%%%"}`), 400, "invalid_input")
	wantProblem(t, e.do("POST", "/api/pdf-tools/pdfa/base64", testKey, `{"file":"aGVsbG8="}`), 400, "invalid_pdf")
}

// TestReadingToolsReadPastObjectDefects: a PDF whose object graph breaks a rule that viewers
// and poppler read past (an embedded file's /ModDate written "+00:00", as some invoice
// generators write it) is read by the tools that only read — page count, text, previews,
// metadata, bookmarks, form fields — while the tools that write a new document from it
// still refuse it, as they did.
func TestReadingToolsReadPastObjectDefects(t *testing.T) {
	e := newTestEnv(t)
	good := corpusBytes(t, "zugferd/2.3-examples/3. EN16931/EN16931_Einfach/EN16931_Einfach.pdf")
	// "D:…+00'00'" as "D:…+00:00'": the same length, so the cross-reference offsets stay.
	bad := bytes.ReplaceAll(good, []byte(`\05300\04700\047`), []byte(`\05300\07200\047`))
	if bytes.Equal(bad, good) {
		t.Fatal("the example's ModDate is not where the test expects it")
	}
	wantProblem(t, e.upload("/api/pdf-tools/split", [2]any{"file", bad}), 400, "invalid_pdf")

	if m := decode(t, e.upload("/api/preview/page-count", [2]any{"file", bad})); m["pages"] != float64(2) {
		t.Errorf("page count %v", m)
	}
	res := e.upload("/api/pdf-tools/text", [2]any{"file", bad})
	var tr TextResult
	json.NewDecoder(res.Body).Decode(&tr)
	res.Body.Close()
	if tr.Count != 2 || !strings.Contains(tr.Pages[0].Text, "Lieferant GmbH") {
		t.Errorf("text %d: %+v", res.StatusCode, tr)
	}
	res = e.upload("/api/preview", [2]any{"file", bad})
	img, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !bytes.HasPrefix(img, []byte("\x89PNG")) {
		t.Errorf("preview %d: %.200q", res.StatusCode, img)
	}
	if m := decode(t, e.upload("/api/pdf-tools/metadata", [2]any{"file", bad})); m["pages"] != float64(2) {
		t.Errorf("metadata %v", m)
	}
	for _, path := range []string{"/api/pdf-tools/bookmarks", "/api/pdf-forms/fields"} {
		if res := e.upload(path, [2]any{"file", bad}); res.StatusCode != 200 {
			b, _ := io.ReadAll(res.Body)
			t.Errorf("%s: %d %s", path, res.StatusCode, b)
		}
	}
}
