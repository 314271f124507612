package ghostscript

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

// photoPDF is a one-page PDF (A6) with the text "Photo" over a JPEG (quality 95) of
// shading and noise at dpi.
func photoPDF(dpi int) []byte {
	const wPt, hPt = 298, 420
	w, h := wPt*dpi/72, hPt*dpi/72
	r := rand.New(rand.NewPCG(3, 4))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			v := uint8((x*200/w + y*50/h) + r.IntN(6))
			img.SetRGBA(x, y, color.RGBA{v, 255 - v, uint8(y * 255 / h), 255})
		}
	}
	var j bytes.Buffer
	jpeg.Encode(&j, img, &jpeg.Options{Quality: 95})
	content := fmt.Sprintf("q %d 0 0 %d 0 0 cm /Im0 Do Q BT /F1 24 Tf 36 %d Td (Photo) Tj ET", wPt, hPt, hPt-40)
	return testpdf.Raw(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /Font << /F1 4 0 R >> /XObject << /Im0 5 0 R >> >> /Contents 6 0 R >>", wPt, hPt),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		testpdf.StreamBody(fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode", w, h), j.Bytes()),
		testpdf.StreamBody("", content),
	)
}

// cmykPDF is a one-page PDF drawing a raw 300×300 CMYK image.
func cmykPDF() []byte {
	px := make([]byte, 300*300*4)
	for i := range px {
		px[i] = byte(i * 7 % 251)
	}
	content := "q 216 0 0 216 0 0 cm /Im0 Do Q"
	return []byte(fmt.Sprintf("%%PDF-1.7\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n"+
		"3 0 obj\n<< /Type /Page /Parent 2 0 R /MediaBox [0 0 216 216] /Resources << /XObject << /Im0 4 0 R >> >> /Contents 5 0 R >>\nendobj\n"+
		"4 0 obj\n<< /Type /XObject /Subtype /Image /Width 300 /Height 300 /ColorSpace /DeviceCMYK /BitsPerComponent 8 /Length %d >>\nstream\n%s\nendstream\nendobj\n"+
		"5 0 obj\n<< /Length %d >>\nstream\n%s\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%%%EOF\n", len(px), px, len(content), content))
}

// imageColor is the colour space pdfimages -list reports for the first image.
func imageColor(t *testing.T, pdf []byte) string {
	t.Helper()
	lines := strings.Split(testtool.Run(t, "pdfimages", "-list", testtool.File(t, "c.pdf", pdf)), "\n")
	if len(lines) < 3 || len(strings.Fields(lines[2])) < 6 {
		t.Fatal("no images")
	}
	return strings.Fields(lines[2])[5]
}

// imagePPI is the x resolution and encoding pdfimages -list reports for the first image.
func imagePPI(t *testing.T, pdf []byte) (int, string) {
	t.Helper()
	lines := strings.Split(testtool.Run(t, "pdfimages", "-list", testtool.File(t, "i.pdf", pdf)), "\n")
	if len(lines) < 3 {
		t.Fatal("no images")
	}
	f := strings.Fields(lines[2])
	ppi, _ := strconv.Atoi(f[12])
	return ppi, f[8]
}

func TestDistill(t *testing.T) {
	g := New(engine.Config{Concurrency: 2, JobTimeout: 60 * time.Second, TempRoot: t.TempDir()})
	t.Cleanup(func() { g.Supervisor().Stop(context.Background()) })
	in := photoPDF(300)
	ctx := context.Background()

	out, err := g.Distill(ctx, in, DistillSettings{DPI: 120, Quality: 70})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	if ppi, enc := imagePPI(t, out); ppi < 118 || ppi > 122 || enc != "jpeg" {
		t.Fatalf("image at %d dpi, %s", ppi, enc)
	}
	if len(out) > len(in)/3 {
		t.Fatalf("%d -> %d bytes", len(in), len(out))
	}
	if txt := testtool.Text(t, out); !strings.Contains(txt, "Photo") {
		t.Fatalf("text %q", txt)
	}
	for _, leak := range []string{"Invocation", "-dBATCH", "setdistillerparams", "QFactor"} {
		if bytes.Contains(out, []byte(leak)) {
			t.Errorf("the PDF contains %q", leak)
		}
	}

	// No DPI: the resolution stays; the quality still applies.
	lo, err := g.Distill(ctx, in, DistillSettings{Quality: 30})
	if err != nil {
		t.Fatal(err)
	}
	hi, err := g.Distill(ctx, in, DistillSettings{Quality: 90})
	if err != nil {
		t.Fatal(err)
	}
	if ppi, _ := imagePPI(t, lo); ppi != 300 {
		t.Fatalf("resampled to %d dpi without a DPI", ppi)
	}
	if len(lo) >= len(hi)*7/10 {
		t.Fatalf("quality 30: %d bytes, quality 90: %d bytes", len(lo), len(hi))
	}

	// PDF/A-2: identification and OutputIntent.
	a2, err := g.Distill(ctx, in, DistillSettings{DPI: 150, Quality: 75, PDFA: 2})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, a2)
	meta := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "a.pdf", a2))
	if !strings.Contains(meta, "pdfaid:part='2'") && !strings.Contains(meta, `pdfaid:part="2"`) {
		t.Fatalf("no PDF/A-2 identification:\n%s", meta)
	}
	if js := testtool.Run(t, "qpdf", "--json", testtool.File(t, "j.pdf", a2)); !strings.Contains(js, `"/GTS_PDFA1"`) || !strings.Contains(js, `"/DestOutputProfile"`) {
		t.Fatal("no PDF/A OutputIntent")
	}

	// RGB converts CMYK; without it colours stay as they were.
	cmyk := cmykPDF()
	for rgb, want := range map[bool]string{false: "cmyk", true: "rgb"} {
		out, err := g.Distill(ctx, cmyk, DistillSettings{Quality: 75, RGB: rgb})
		if err != nil {
			t.Fatal(err)
		}
		if got := imageColor(t, out); got != want {
			t.Fatalf("RGB %v: image in %s", rgb, got)
		}
	}

	for _, s := range []DistillSettings{{Quality: 101}, {Quality: -1}, {DPI: -1}, {PDFA: 4}} {
		if _, err := g.Distill(ctx, in, s); fault.CodeOf(err) != fault.InvalidInput {
			t.Errorf("%+v: %v", s, err)
		}
	}
	if _, err := g.Distill(ctx, []byte("%PDF-1.7\nnothing here\n"), DistillSettings{DPI: 150}); fault.CodeOf(err) != fault.InvalidPDF {
		t.Errorf("garbage: %v", err)
	}
}

// pdfwrite ignores a QFactor of exactly 1 (libjpeg's default quality 75 applies), so
// quality 50 must not ask for it.
func TestJPEGParams(t *testing.T) {
	for q, want := range map[int]string{50: "/QFactor 1.001", 75: "/QFactor 0.500", 25: "/QFactor 2.000", 100: "/QFactor 0.010", 95: "/HSamples [1 1 1 1]", 80: "/HSamples [2 1 1 2]"} {
		if p := jpegParams(q); strings.Count(p, want) != 4 {
			t.Errorf("quality %d: %s", q, p)
		}
	}
}
