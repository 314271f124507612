package pdf

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/tiff"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testtool"
)

// marked is a w x h white image with a red block at its top-left corner and a green one
// at its top-right, so that a rendering shows how it was turned.
func marked(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	bw, bh := w/4, h/4
	for y := range h {
		for x := range w {
			c := color.RGBA{255, 255, 255, 255}
			switch {
			case x < bw && y < bh:
				c = color.RGBA{255, 0, 0, 255}
			case x >= w-bw && y < bh:
				c = color.RGBA{0, 160, 0, 255}
			}
			img.Set(x, y, c)
		}
	}
	return img
}

func pngOf(t testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withPHYs inserts a pHYs chunk of dpi after the PNG's header chunk.
func withPHYs(p []byte, dpi float64) []byte {
	ppm := uint32(math.Round(dpi / 0.0254))
	data := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, ppm), ppm)
	data = append(data, 1)
	chunk := binary.BigEndian.AppendUint32(nil, uint32(len(data)))
	chunk = append(chunk, "pHYs"...)
	chunk = append(chunk, data...)
	chunk = binary.BigEndian.AppendUint32(chunk, crc32.ChecksumIEEE(chunk[4:]))
	at := 8 + 8 + 13 + 4 // signature, IHDR
	return append(append(append([]byte(nil), p[:at]...), chunk...), p[at:]...)
}

func jpegOf(t testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// withEXIF has exiftool give a JPEG an orientation and a resolution.
func withEXIF(t *testing.T, j []byte, orientation int, dpi int) []byte {
	t.Helper()
	p := testtool.File(t, "exif.jpg", j)
	testtool.Run(t, "exiftool", "-q", "-overwrite_original", fmt.Sprintf("-Orientation#=%d", orientation),
		fmt.Sprintf("-XResolution=%d", dpi), fmt.Sprintf("-YResolution=%d", dpi), "-ResolutionUnit=inches", p)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func webpOf(t testing.TB, img image.Image) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "img.webp")
	testtool.Run(t, "cwebp", "-quiet", "-q", "90", testtool.File(t, "img.png", pngOf(t, img)), "-o", out)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pdfimagesList returns pdfimages -list's rows: page, width, height, encoding, x-ppi.
func pdfimagesList(t *testing.T, pdf []byte) [][]string {
	t.Helper()
	out := testtool.Run(t, "pdfimages", "-list", testtool.File(t, "img.pdf", pdf))
	var rows [][]string
	for _, line := range strings.Split(out, "\n")[2:] {
		f := strings.Fields(line)
		if len(f) < 14 {
			continue
		}
		rows = append(rows, []string{f[0], f[3], f[4], f[8], f[12]})
	}
	return rows
}

// pageSizesOf returns pdfinfo's page sizes in points.
func pageSizesOf(t *testing.T, pdf []byte, n int) [][2]float64 {
	t.Helper()
	info := testtool.Info(t, pdf, "-f", "1", "-l", strconv.Itoa(n))
	var out [][2]float64
	for i := 1; i <= n; i++ {
		var w, h float64
		if _, err := fmt.Sscanf(info[fmt.Sprintf("Page %4d size", i)], "%g x %g", &w, &h); err != nil {
			t.Fatalf("page %d size %q: %v", i, info[fmt.Sprintf("Page %4d size", i)], err)
		}
		out = append(out, [2]float64{w, h})
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 0.02 }

func TestImagesToPDFNaturalSizes(t *testing.T) {
	img := marked(400, 200)
	tiffDeflate := func() []byte {
		var b bytes.Buffer
		if err := tiff.Encode(&b, marked(144, 72), &tiff.Options{Compression: tiff.Deflate}); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}()
	images := [][]byte{
		withPHYs(pngOf(t, img), 300),        // 400 x 200 at 300 dpi: 96 x 48
		jpegOf(t, img),                      // no resolution: 150 dpi, 192 x 96
		withEXIF(t, jpegOf(t, img), 6, 200), // turned: 200 x 400 at 200 dpi, 72 x 144
		testtool.TIFF([]testtool.TIFFPage{{W: 100, H: 50, DPI: 100}, {W: 50, H: 100, DPI: 200}}, false), // 72 x 36, 18 x 36
		tiffDeflate,    // 72 dpi (x/image/tiff writes it): 144 x 72
		webpOf(t, img), // no resolution: 192 x 96
	}
	out, err := ImagesToPDF(context.Background(), images, ImagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	d, err := Read(out)
	if err != nil || d.PageCount() != 7 {
		t.Fatalf("Read: %v", err)
	}
	want := [][2]float64{{96, 48}, {192, 96}, {72, 144}, {72, 36}, {18, 36}, {144, 72}, {192, 96}}
	for i, s := range pageSizesOf(t, out, 7) {
		if !near(s[0], want[i][0]) || !near(s[1], want[i][1]) {
			t.Errorf("page %d: %v, want %v", i+1, s, want[i])
		}
	}
	// Each image once, at its pixel size and resolution; JPEGs as they were.
	rows := pdfimagesList(t, out)
	wantRows := [][]string{
		{"1", "400", "200", "image", "300"}, {"2", "400", "200", "jpeg", "150"}, {"3", "400", "200", "jpeg", "200"},
		{"4", "100", "50", "image", "100"}, {"5", "50", "100", "image", "200"}, {"6", "144", "72", "image", "72"}, {"7", "400", "200", "image", "150"},
	}
	if len(rows) < len(wantRows) {
		t.Fatalf("pdfimages: %q", rows)
	}
	j := 0
	for _, r := range rows {
		if r[3] == "smask" {
			continue
		}
		if j >= len(wantRows) || strings.Join(r, " ") != strings.Join(wantRows[j], " ") {
			t.Fatalf("pdfimages row %q, want %q (all %q)", r, wantRows[min(j, len(wantRows)-1)], rows)
		}
		j++
	}
	if j != len(wantRows) {
		t.Fatalf("pdfimages: %q", rows)
	}
	// The JPEGs are embedded byte for byte.
	if !bytes.Contains(out, images[1]) || !bytes.Contains(out, images[2]) {
		t.Fatal("a JPEG was re-encoded")
	}
}

// pixelAt renders page 1 of pdf at 72 dpi and returns the colour at x, y (fractions of
// the page from the top left).
func pixelAt(t *testing.T, pdf []byte, fx, fy float64) color.RGBA {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "page")
	testtool.Run(t, "pdftoppm", "-r", "72", "-f", "1", "-l", "1", "-png", "-singlefile", testtool.File(t, "r.pdf", pdf), prefix)
	f, err := os.Open(prefix + ".png")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	b := img.Bounds()
	r, g, bl, _ := img.At(b.Min.X+int(fx*float64(b.Dx())), b.Min.Y+int(fy*float64(b.Dy()))).RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 255}
}

func isRed(c color.RGBA) bool   { return c.R > 200 && c.G < 80 && c.B < 80 }
func isGreen(c color.RGBA) bool { return c.G > 100 && c.R < 80 && c.B < 80 }

// Each EXIF orientation shows the image as a viewer shows it: where the stored image's
// top-left (red) and top-right (green) corners end up, rendered by poppler.
func TestImagesToPDFOrientation(t *testing.T) {
	src := jpegOf(t, marked(320, 160))
	corners := map[string][2]float64{"tl": {0.1, 0.1}, "tr": {0.9, 0.1}, "bl": {0.1, 0.9}, "br": {0.9, 0.9}}
	for o, want := range map[int][2]string{
		1: {"tl", "tr"}, 2: {"tr", "tl"}, 3: {"br", "bl"}, 4: {"bl", "br"},
		5: {"tl", "bl"}, 6: {"tr", "br"}, 7: {"br", "tr"}, 8: {"bl", "tl"},
	} {
		for _, size := range []string{"", "A4"} {
			out, err := ImagesToPDF(context.Background(), [][]byte{withEXIF(t, src, o, 72)}, ImagesOptions{PageSize: size})
			if err != nil {
				t.Fatal(err)
			}
			s := pageSizesOf(t, out, 1)[0]
			if turned := o >= 5; (s[0] < s[1]) != turned {
				t.Fatalf("orientation %d, %q: page %v", o, size, s)
			}
			if size != "" {
				continue // the fitted image has white bands; the natural size checks the corners
			}
			red, green := corners[want[0]], corners[want[1]]
			if c := pixelAt(t, out, red[0], red[1]); !isRed(c) {
				t.Errorf("orientation %d: %s is %v, want red", o, want[0], c)
			}
			if c := pixelAt(t, out, green[0], green[1]); !isGreen(c) {
				t.Errorf("orientation %d: %s is %v, want green", o, want[1], c)
			}
		}
	}
}

func TestImagesToPDFPageSizes(t *testing.T) {
	land := pngOf(t, marked(400, 200))   // 2:1
	port := jpegOf(t, marked(300, 600))  // 1:2
	square := pngOf(t, marked(100, 100)) // 1:1
	for _, c := range []struct {
		size   string
		margin float64
		pw, ph float64 // portrait
	}{
		{"a4", 0, 595.276, 841.89},
		{"A4", 36, 595.276, 841.89},
		{"Letter", 72, 612, 792},
		{"LEGAL", 10, 612, 1008},
		{"A3", 0, 841.89, 1190.551},
		{"A5", 20, 419.528, 595.276},
	} {
		out, err := ImagesToPDF(context.Background(), [][]byte{land, port, square}, ImagesOptions{PageSize: c.size, Margin: c.margin})
		if err != nil {
			t.Fatal(err)
		}
		testtool.QPDFCheck(t, out)
		sizes := pageSizesOf(t, out, 3)
		// The landscape image on a landscape page, the others on portrait ones.
		for i, want := range [][2]float64{{c.ph, c.pw}, {c.pw, c.ph}, {c.pw, c.ph}} {
			if !near(sizes[i][0], want[0]) || !near(sizes[i][1], want[1]) {
				t.Fatalf("%s page %d: %v, want %v", c.size, i+1, sizes[i], want)
			}
		}
		// Fitted within the margins, keeping the aspect: pdfimages' resolution is the
		// image's pixels over the inches it takes.
		rows := pdfimagesList(t, out)
		for i, px := range [][2]float64{{400, 200}, {300, 600}, {100, 100}} {
			pw, ph := sizes[i][0]-2*c.margin, sizes[i][1]-2*c.margin
			s := min(pw/px[0], ph/px[1]) // points per pixel
			ppi, _ := strconv.ParseFloat(rows[i][4], 64)
			if math.Abs(ppi-72/s) > 1 {
				t.Fatalf("%s image %d: %v ppi, want %.1f (%q)", c.size, i+1, ppi, 72/s, rows)
			}
		}
	}
}

func TestImagesToPDFRefuses(t *testing.T) {
	good := pngOf(t, marked(40, 20))
	j := jpegOf(t, marked(200, 100))
	w := webpOf(t, marked(200, 100))
	// A PNG header that claims 20,000 x 20,000 pixels, and one of 10,000 x 10,000 RGB,
	// 100 megapixels but 286 MiB in the PDF.
	header := func(w, h uint32, colorType byte) []byte {
		b := []byte("\x89PNG\r\n\x1a\n")
		ihdr := append([]byte("IHDR"), binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(nil, w), h)...)
		ihdr = append(ihdr, 8, colorType, 0, 0, 0)
		b = binary.BigEndian.AppendUint32(b, 13)
		b = append(b, ihdr...)
		b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(ihdr))
		return b
	}
	for name, c := range map[string]struct {
		images [][]byte
		o      ImagesOptions
		code   fault.Code
		image  int
		msg    string
	}{
		"no images":        {nil, ImagesOptions{}, fault.InvalidInput, 0, "no images"},
		"GIF":              {[][]byte{good, []byte("GIF89a\x01\x00\x01\x00")}, ImagesOptions{}, fault.UnsupportedMediaType, 2, "image 2 is a GIF"},
		"PDF":              {[][]byte{[]byte("%PDF-1.7\n")}, ImagesOptions{}, fault.UnsupportedMediaType, 1, "is a PDF"},
		"empty":            {[][]byte{good, good, {}}, ImagesOptions{}, fault.UnsupportedMediaType, 3, "is empty"},
		"truncated PNG":    {[][]byte{good[:len(good)-30]}, ImagesOptions{}, fault.InvalidInput, 1, "image 1"},
		"truncated JPEG":   {[][]byte{good, j[:len(j)/2]}, ImagesOptions{}, fault.InvalidInput, 2, "damaged JPEG"},
		"JPEG header only": {[][]byte{j[:200]}, ImagesOptions{}, fault.InvalidInput, 1, "image 1"},
		"truncated WebP":   {[][]byte{w[:len(w)/2]}, ImagesOptions{}, fault.InvalidInput, 1, "image 1"},
		"truncated TIFF":   {[][]byte{testtool.TIFF([]testtool.TIFFPage{{W: 100, H: 50, DPI: 100}}, false)[:3000]}, ImagesOptions{}, fault.InvalidInput, 1, "image 1"},
		"TIFF in a circle": {[][]byte{testtool.TIFF([]testtool.TIFFPage{{W: 10, H: 10, DPI: 100}, {W: 10, H: 10, DPI: 100}}, true)}, ImagesOptions{}, fault.InvalidInput, 1, "circle"},
		"400 megapixels":   {[][]byte{good, header(20000, 20000, 2)}, ImagesOptions{}, fault.PayloadTooLarge, 2, "at most 100 megapixels"},
		"286 MiB":          {[][]byte{header(10000, 10000, 2)}, ImagesOptions{}, fault.PayloadTooLarge, 1, "decodes to 286 MiB"},
		"TIFF pages":       {[][]byte{testtool.TIFF([]testtool.TIFFPage{{W: 10, H: 10, DPI: 100}, {W: 1, H: 1, DPI: 100, Claim: [2]int{20000, 20000}}}, false)}, ImagesOptions{}, fault.PayloadTooLarge, 1, "at most 100 megapixels"},
		"page size":        {[][]byte{good}, ImagesOptions{PageSize: "B5"}, fault.InvalidInput, 0, "unknown page size"},
		"margin alone":     {[][]byte{good}, ImagesOptions{Margin: 10}, fault.InvalidInput, 0, "needs a page size"},
		"margin negative":  {[][]byte{good}, ImagesOptions{PageSize: "A4", Margin: -1}, fault.InvalidInput, 0, "margin"},
		"margin NaN":       {[][]byte{good}, ImagesOptions{PageSize: "A4", Margin: math.NaN()}, fault.InvalidInput, 0, "margin"},
		"margin too large": {[][]byte{good}, ImagesOptions{PageSize: "A5", Margin: 190}, fault.InvalidInput, 0, "less than an inch"},
	} {
		start := time.Now()
		_, err := ImagesToPDF(context.Background(), c.images, c.o)
		e := fault.As(err)
		if e == nil || e.Code != c.code || !strings.Contains(e.Message, c.msg) {
			t.Errorf("%s: %v, want %s with %q", name, err, c.code, c.msg)
			continue
		}
		if c.image > 0 && e.Details["image"] != c.image {
			t.Errorf("%s: details %v, want image %d", name, e.Details, c.image)
		}
		if took := time.Since(start); took > 5*time.Second*raceSlowdown {
			t.Errorf("%s: refused after %v", name, took)
		}
	}
	many := make([][]byte, MaxImages+1)
	for i := range many {
		many[i] = good
	}
	_, err := ImagesToPDF(context.Background(), many, ImagesOptions{})
	expectFault(t, err, fault.PayloadTooLarge)
	pages := make([]testtool.TIFFPage, 300)
	for i := range pages {
		pages[i] = testtool.TIFFPage{W: 4, H: 4, DPI: 100}
	}
	_, err = ImagesToPDF(context.Background(), [][]byte{testtool.TIFF(pages, false), testtool.TIFF(pages, false)}, ImagesOptions{})
	expectFault(t, err, fault.PayloadTooLarge)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = ImagesToPDF(ctx, [][]byte{good}, ImagesOptions{})
	expectFault(t, err, fault.Canceled)
}

// The largest images taken are taken without the memory of a bomb: 100 megapixels of
// grey is 95 MiB in the PDF.
func TestImagesToPDFLargeImage(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 10000, 10000))
	p := pngOf(t, img)
	runtime.GC()
	out, err := ImagesToPDF(context.Background(), [][]byte{p}, ImagesOptions{PageSize: "A4"})
	if err != nil {
		t.Fatal(err)
	}
	if rows := pdfimagesList(t, out); len(rows) != 1 || rows[0][1] != "10000" || rows[0][2] != "10000" {
		t.Fatalf("pdfimages %q", rows)
	}
}

func FuzzImagesToPDF(f *testing.F) {
	img := marked(16, 8)
	f.Add(pngOf(f, img))
	f.Add(jpegOf(f, img))
	f.Add(testtool.TIFF([]testtool.TIFFPage{{W: 4, H: 2, DPI: 100}, {W: 2, H: 4, DPI: 50}}, false))
	var b bytes.Buffer
	tiff.Encode(&b, img, &tiff.Options{Compression: tiff.Deflate})
	f.Add(b.Bytes())
	f.Add(webpOf(f, img))
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8 "))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Large images are the bomb tests' matter; here the parsers' robustness is.
		if pp, err := sniffImage(0, data); err == nil {
			px := 0
			for _, p := range pp {
				px += p.w * p.h
			}
			if px > 1<<20 {
				return
			}
		}
		out, err := ImagesToPDF(context.Background(), [][]byte{data}, ImagesOptions{})
		if err != nil {
			switch fault.CodeOf(err) {
			case fault.InvalidInput, fault.UnsupportedMediaType, fault.PayloadTooLarge:
				return
			}
			t.Fatalf("code %s: %v", fault.CodeOf(err), err)
		}
		if _, err := Read(out); err != nil {
			t.Fatalf("the result does not read: %v", err)
		}
	})
}

// A JFIF resolution (here in dots per centimetre) sizes the page; EXIF's counts only
// without one.
func TestImagesToPDFJFIFResolution(t *testing.T) {
	j := withEXIF(t, jpegOf(t, marked(600, 300)), 1, 96)
	app0 := []byte{0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 2, 0, 118, 0, 118, 0, 0} // 118 dots/cm: 299.72 dpi
	j = append(append(append([]byte(nil), j[:2]...), app0...), j[2:]...)
	out, err := ImagesToPDF(context.Background(), [][]byte{j}, ImagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := pageSizesOf(t, out, 1)[0]; !near(s[0], 600/2.54/118*72) || !near(s[1], 300/2.54/118*72) {
		t.Fatalf("page %v", s)
	}
	if rows := pdfimagesList(t, out); len(rows) != 1 || rows[0][4] != "300" {
		t.Fatalf("pdfimages %q", rows)
	}
}
