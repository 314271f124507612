package pdf

import (
	"bytes"
	"context"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

// oneLine joins a page's text into one line with single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestStampText: the text exactly as given, on the pages chosen only; the pages keep their
// rotation.
func TestStampText(t *testing.T) {
	const text = `Geprüft: 50 % € Grüße, ß; a:b,c %p %P %% %t \n Ende`
	in := testpdf.Make(testpdf.Options{Pages: 3, Rotate: 90})
	out, err := Stamp(context.Background(), in, StampOptions{Text: text, Pages: "2"})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	mustRead(t, out)
	pages := testtool.PageTexts(t, out)
	for i, p := range pages {
		if got := strings.Contains(oneLine(p), text); got != (i == 1) {
			t.Errorf("page %d: stamp shown %v:\n%s", i+1, got, p)
		}
	}
	for i, s := range pageShapes(t, out) {
		if s != "595 x 842 rot 90" {
			t.Errorf("page %d: %s", i+1, s)
		}
	}

	lines, err := Stamp(context.Background(), in, StampOptions{Text: "Zeile eins\r\nZeile zwei", FontSize: 12})
	if err != nil {
		t.Fatal(err)
	}
	p := testtool.PageTexts(t, lines)[2]
	if i, j := strings.Index(p, "Zeile eins"), strings.Index(p, "Zeile zwei"); i < 0 || j < i || !strings.Contains(p[i:j], "\n") {
		t.Errorf("two lines:\n%s", p)
	}
}

// TestStampPosition: each anchor on the page as shown, for every page rotation, with
// offsets; a turned stamp stays in its corner.
func TestStampPosition(t *testing.T) {
	const near = 8.0 // points: the font's box is taller than its letters
	for _, rot := range []int{0, 90, 180, 270} {
		in := testpdf.Make(testpdf.Options{Pages: 1, Width: 400, Height: 600, Rotate: rot})
		for _, c := range []struct {
			o      StampOptions
			x, y   float64 // where the word's box should start (top left origin), -1: centred
			rotate bool
		}{
			{StampOptions{Position: "tl"}, 0, 0, false},
			{StampOptions{Position: "tl", OffsetX: 100, OffsetY: -50}, 100, 50, false},
			{StampOptions{Position: "br"}, math.Inf(1), math.Inf(1), false},
			{StampOptions{Position: "c"}, -1, -1, false},
			{StampOptions{Position: "bl", Rotation: 90}, 0, math.Inf(1), true},
			{StampOptions{Position: "tr", Rotation: -30}, math.Inf(1), 0, true},
		} {
			c.o.Text = "Marke"
			out, err := Stamp(context.Background(), in, c.o)
			if err != nil {
				t.Fatal(err)
			}
			mustRead(t, out)
			// pdftotext may cut a turned word in pieces: the stamp is all but the page's
			// own text.
			words, size := wordBoxes(t, out)
			b := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
			for w, wb := range words {
				if w != "Page" && w != "1" {
					b = [4]float64{min(b[0], wb[0]), min(b[1], wb[1]), max(b[2], wb[2]), max(b[3], wb[3])}
				}
			}
			if math.IsInf(b[0], 0) {
				t.Fatalf("rotate %d %+v: no stamp in %v", rot, c.o, words)
			}
			if rot%180 != 0 { // pdftotext gives the unturned size, the words as shown
				size[0], size[1] = size[1], size[0]
			}
			near := near
			if c.rotate && c.o.Rotation != 90 {
				near = 16 // the corner of a turned box is not where its letters end
			}
			check := func(what string, got, want, end, span float64) {
				switch {
				case want == -1:
					if mid := (got + end) / 2; math.Abs(mid-span/2) > near {
						t.Errorf("rotate %d %+v: %s centre %.1f, want %.1f", rot, c.o, what, mid, span/2)
					}
				case math.IsInf(want, 1):
					if end > span+1 || span-end > near {
						t.Errorf("rotate %d %+v: %s end %.1f, want near %.1f", rot, c.o, what, end, span)
					}
				default:
					if got < want-1 || got-want > near {
						t.Errorf("rotate %d %+v: %s start %.1f, want near %.1f", rot, c.o, what, got, want)
					}
				}
			}
			check("x", b[0], c.x, b[2], size[0])
			check("y", b[1], c.y, b[3], size[1])
			if tall := b[3]-b[1] > b[2]-b[0]; tall != (c.o.Rotation == 90) {
				t.Errorf("rotate %d %+v: word box %v", rot, c.o, b)
			}
		}
	}
}

// TestWatermark: a stamp under the content is covered by what the page paints; on top it
// shows. Both keep the page's own text readable.
func TestWatermark(t *testing.T) {
	in := testpdf.Raw(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		testpdf.StreamBody("", "1 1 1 rg 0 0 595 842 re f 0 g BT /F1 24 Tf 72 780 Td (Inhalt) Tj ET"),
	)
	band := func(pdf []byte) int { return render(t, pdf, 1).dark(0, 300, 595, 540) }
	o := StampOptions{Text: "WASSER", FontSize: 100, Opacity: 1}
	over, err := Stamp(context.Background(), in, o)
	if err != nil {
		t.Fatal(err)
	}
	o.Under = true
	under, err := Stamp(context.Background(), in, o)
	if err != nil {
		t.Fatal(err)
	}
	if n := band(over); n < 1000 {
		t.Errorf("on top: %d dark pixels, the stamp does not show", n)
	}
	if n := band(under); n != 0 {
		t.Errorf("under: %d dark pixels, the page's white does not cover the stamp", n)
	}
	for _, out := range [][]byte{over, under} {
		testtool.QPDFCheck(t, out)
		mustRead(t, out)
		if text := oneLine(testtool.Text(t, out)); !strings.Contains(text, "Inhalt") || !strings.Contains(text, "WASSER") {
			t.Errorf("text %q", text)
		}
	}
	// A watermark's default opacity is 0.3.
	o.Opacity = 0
	faint, err := Stamp(context.Background(), in, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := opacities(t, faint); !reflect.DeepEqual(got, []float64{0.3}) {
		t.Errorf("watermark opacities %v", got)
	}
}

// opacities lists the fill opacities (/ca) of the graphics states of page 1's resources.
func opacities(t *testing.T, pdf []byte) []float64 {
	q := readQPDF(t, pdf)
	var out []float64
	res := q.dict(q.dict(q.pages[0])["/Resources"])
	for _, gs := range q.dict(res["/ExtGState"]) {
		if ca, ok := q.dict(gs)["/ca"].(float64); ok {
			out = append(out, ca)
		}
	}
	return out
}

func TestStampOpacity(t *testing.T) {
	in := testpdf.New(1)
	half, err := Stamp(context.Background(), in, StampOptions{Text: "halb", Opacity: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if got := opacities(t, half); !reflect.DeepEqual(got, []float64{0.5}) {
		t.Errorf("opacities %v, want [0.5]", got)
	}
	full, err := Stamp(context.Background(), in, StampOptions{Text: "voll"})
	if err != nil {
		t.Fatal(err)
	}
	if got := opacities(t, full); len(got) != 0 {
		t.Errorf("an opaque stamp has opacities %v", got)
	}
}

func pngImage(t *testing.T, w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = []byte{200, 0, 0, 255}[i%4]
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func jpegImage(t *testing.T, w, h int) []byte {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// images lists pdfimages' images: page, width, height and horizontal resolution.
func images(t *testing.T, pdf []byte) [][4]int {
	var out [][4]int
	lines := strings.Split(testtool.Run(t, "pdfimages", "-list", testtool.File(t, "i.pdf", pdf)), "\n")
	for _, l := range lines[2:] {
		f := strings.Fields(l)
		if len(f) < 14 {
			continue
		}
		var row [4]int
		for i, col := range []int{0, 3, 4, 12} {
			row[i], _ = strconv.Atoi(f[col])
		}
		out = append(out, row)
	}
	return out
}

// TestStampImage: a PNG and a JPEG on the chosen pages, sized by Scale (the image fits in
// that part of the page).
func TestStampImage(t *testing.T) {
	in := testpdf.New(3)
	// 60x30 pixels fit in half of A4's width: 297.5 points wide, 14.5 pixels per inch.
	out, err := Stamp(context.Background(), in, StampOptions{Image: pngImage(t, 60, 30), Pages: "1,3"})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	mustRead(t, out)
	if got, want := images(t, out), [][4]int{{1, 60, 30, 15}, {3, 60, 30, 15}}; !reflect.DeepEqual(got, want) {
		t.Errorf("png: images %v, want %v", got, want)
	}
	// 30x90 fits in A4's full height: 842 points tall, 280.7 points wide, 8 ppi.
	out, err = Stamp(context.Background(), in, StampOptions{Image: jpegImage(t, 30, 90), Pages: "2", Scale: 1, Under: true})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	mustRead(t, out)
	if got, want := images(t, out), [][4]int{{2, 30, 90, 8}}; !reflect.DeepEqual(got, want) {
		t.Errorf("jpeg: images %v, want %v", got, want)
	}
	if r := render(t, out, 2); r.at(297, 421) == [3]byte{255, 255, 255} {
		t.Error("jpeg: nothing drawn at the centre")
	}
}

// stampPDF is a one-page PDF that says "Freigabe", 200x100 points, turned by rotate.
func stampPDF(rotate int) []byte {
	return testpdf.Raw(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 100] /Rotate "+strconv.Itoa(rotate)+" /Resources << /Font << /F9 4 0 R >> >> /Contents 5 0 R /Annots [6 0 R] >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>",
		testpdf.StreamBody("", "0 0 1 RG 4 w 2 2 196 96 re S BT /F9 28 Tf 30 40 Td (Freigabe) Tj ET"),
		"<< /Type /Annot /Subtype /Link /Rect [0 0 200 100] /Dest [3 0 R /Fit] >>",
	)
}

// TestStampPDF: the first page of a PDF as a stamp, shown as its page is shown, its font
// along with it; its link left behind.
func TestStampPDF(t *testing.T) {
	in := testpdf.New(2)
	for _, rot := range []int{0, 90} {
		out, err := Stamp(context.Background(), in, StampOptions{Image: stampPDF(rot), Pages: "2", Position: "tr"})
		if err != nil {
			t.Fatal(err)
		}
		testtool.QPDFCheck(t, out)
		d := mustRead(t, out)
		if d.PageCount() != 2 {
			t.Fatalf("rotate %d: %d pages", rot, d.PageCount())
		}
		pages := testtool.PageTexts(t, out)
		if strings.Contains(pages[0], "Freigabe") || !strings.Contains(pages[1], "Freigabe") {
			t.Fatalf("rotate %d: pages %q", rot, pages)
		}
		if q := readQPDF(t, out); len(q.annotSubtypes(2)) != 0 {
			t.Errorf("rotate %d: the stamp's link came along", rot)
		}
		if fonts := testtool.Run(t, "pdffonts", testtool.File(t, "f.pdf", out)); !strings.Contains(fonts, "Helvetica-Bold") {
			t.Errorf("rotate %d: pdffonts:\n%s", rot, fonts)
		}
		// Page 2 of testpdf.New is A4; the stamp is half its width wide (or, turned, half
		// its height tall) at the top right corner.
		r := render(t, out, 2)
		w, h := 297, 149
		if rot == 90 {
			w, h = 210, 421
		}
		if r.dark(595-w, 842-h, 595, 842) == 0 || r.dark(0, 0, 595-w-2, 842-h-2) > 2000 {
			t.Errorf("rotate %d: the stamp is not in the top right %dx%d", rot, w, h)
		}
	}
}

// TestStampRefused: each bad option is fault.InvalidInput naming the option.
func TestStampRefused(t *testing.T) {
	in := testpdf.New(3)
	// The header says 8000x7000 pixels; nothing else is read.
	huge := pngImage(t, 1, 1)
	binary.BigEndian.PutUint32(huge[16:], 8000)
	binary.BigEndian.PutUint32(huge[20:], 7000)
	binary.BigEndian.PutUint32(huge[29:], crc32.ChecksumIEEE(huge[12:29]))
	for name, c := range map[string]struct {
		o     StampOptions
		code  fault.Code
		field string
	}{
		"position":        {StampOptions{Text: "x", Position: "xx"}, fault.InvalidInput, "position"},
		"opacity":         {StampOptions{Text: "x", Opacity: 2}, fault.InvalidInput, "opacity"},
		"negative":        {StampOptions{Text: "x", Opacity: -0.1}, fault.InvalidInput, "opacity"},
		"not a number":    {StampOptions{Text: "x", Opacity: math.NaN()}, fault.InvalidInput, "opacity"},
		"color":           {StampOptions{Text: "x", Color: "red"}, fault.InvalidInput, "color"},
		"short color":     {StampOptions{Text: "x", Color: "#fff"}, fault.InvalidInput, "color"},
		"both":            {StampOptions{Text: "x", Image: pngImage(t, 2, 2)}, fault.InvalidInput, "image"},
		"neither":         {StampOptions{}, fault.InvalidInput, "text"},
		"blank text":      {StampOptions{Text: " \n "}, fault.InvalidInput, "text"},
		"rotation":        {StampOptions{Text: "x", Rotation: 361}, fault.InvalidInput, "rotation"},
		"font size":       {StampOptions{Text: "x", FontSize: 501}, fault.InvalidInput, "fontSize"},
		"scale":           {StampOptions{Image: pngImage(t, 2, 2), Scale: 1.5}, fault.InvalidInput, "scale"},
		"offset":          {StampOptions{Text: "x", OffsetX: math.Inf(1)}, fault.InvalidInput, "offsetX"},
		"offset y":        {StampOptions{Text: "x", OffsetY: -20000}, fault.InvalidInput, "offsetY"},
		"not in the font": {StampOptions{Text: "Łódź ✓"}, fault.InvalidInput, "text"},
		"control":         {StampOptions{Text: "a\x00b"}, fault.InvalidInput, "text"},
		"long":            {StampOptions{Text: strings.Repeat("x", 1001)}, fault.InvalidInput, "text"},
		"not an image":    {StampOptions{Image: []byte("GIF89a")}, fault.InvalidInput, "image"},
		"broken png":      {StampOptions{Image: []byte("\x89PNG\r\n\x1a\nxx")}, fault.InvalidInput, "image"},
		"broken jpeg":     {StampOptions{Image: []byte{0xff, 0xd8, 0xff, 0}}, fault.InvalidInput, "image"},
		"huge png":        {StampOptions{Image: huge}, fault.PayloadTooLarge, "image"},
		"broken pdf":      {StampOptions{Image: []byte("%PDF-1.7\nnothing")}, fault.InvalidPDF, "image"},
		"pages":           {StampOptions{Text: "x", Pages: "4"}, fault.InvalidPageSpec, ""},
	} {
		_, err := Stamp(context.Background(), in, c.o)
		if fault.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
			continue
		}
		if f, _ := fault.As(err).Details["field"].(string); f != c.field {
			t.Errorf("%s: field %q, want %q (%v)", name, f, c.field, err)
		}
	}
	// 2 MiB of content drawn on 200 pages is more than a PDF may draw.
	heavy := testpdf.ContentPages(1, 2<<20)
	if _, err := Stamp(context.Background(), testpdf.New(200), StampOptions{Image: heavy}); fault.CodeOf(err) != fault.PayloadTooLarge {
		t.Errorf("heavy stamp: %v", err)
	}
	if _, err := Stamp(context.Background(), testpdf.New(200), StampOptions{Image: heavy, Pages: "1-10"}); err != nil {
		t.Errorf("heavy stamp on 10 pages: %v", err)
	}
	for name, c := range badInputs(t) {
		if _, err := Stamp(context.Background(), c.data, StampOptions{Text: "x"}); fault.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Stamp(ctx, in, StampOptions{Text: "x"}); fault.CodeOf(err) != fault.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

// TestNumberPages: the label on the pages chosen, counted from Start; at the bottom
// centre, 20 points from the edge.
func TestNumberPages(t *testing.T) {
	in := testpdf.New(3)
	out, err := NumberPages(context.Background(), in, PageNumberOptions{Pattern: "Seite {page} von {pages}"})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	mustRead(t, out)
	for i, p := range testtool.PageTexts(t, out) {
		if want := "Seite " + strconv.Itoa(i+1) + " von 3"; !strings.Contains(oneLine(p), want) {
			t.Errorf("page %d lacks %q:\n%s", i+1, want, p)
		}
	}
	words, size := wordBoxes(t, out)
	s, v := words["Seite"], words["von"]
	if size[1]-s[3] < 19 || size[1]-s[3] > 24 || math.Abs((s[0]+v[2])/2-size[0]/2) > 15 {
		t.Errorf("label at %v..%v on %v, not at the bottom centre", s, v, size)
	}

	out, err = NumberPages(context.Background(), in, PageNumberOptions{Pages: "2-", Start: 5, Position: "tr", FontSize: 14})
	if err != nil {
		t.Fatal(err)
	}
	mustRead(t, out)
	pages := testtool.PageTexts(t, out)
	// pdftotext drops the narrow spaces around the slash.
	if strings.Contains(pages[0], "/") || !strings.Contains(pages[1], "5/6") || !strings.Contains(pages[2], "6/6") {
		t.Errorf("pages 2- from 5: %q", pages)
	}

	out, err = NumberPages(context.Background(), in, PageNumberOptions{Pattern: "{page}0 % {pages}%"})
	if err != nil {
		t.Fatal(err)
	}
	if p := testtool.PageTexts(t, out)[1]; !strings.Contains(p, "20 % 3%") {
		t.Errorf("percent: %q", p)
	}
}

func TestNumberPagesRefused(t *testing.T) {
	in := testpdf.New(3)
	for name, c := range map[string]struct {
		o     PageNumberOptions
		code  fault.Code
		field string
	}{
		"position":  {PageNumberOptions{Position: "bottom"}, fault.InvalidInput, "position"},
		"font size": {PageNumberOptions{FontSize: -1}, fault.InvalidInput, "fontSize"},
		"start":     {PageNumberOptions{Start: -1}, fault.InvalidInput, "start"},
		"pattern":   {PageNumberOptions{Pattern: "Strona {page} z {pages} – ś"}, fault.InvalidInput, "pattern"},
		"long":      {PageNumberOptions{Pattern: strings.Repeat("{page}", 40)}, fault.InvalidInput, "pattern"},
		"pages":     {PageNumberOptions{Pages: "2-9"}, fault.InvalidPageSpec, ""},
	} {
		_, err := NumberPages(context.Background(), in, c.o)
		if fault.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
			continue
		}
		if f, _ := fault.As(err).Details["field"].(string); f != c.field {
			t.Errorf("%s: field %q, want %q", name, f, c.field)
		}
	}
	for name, c := range badInputs(t) {
		if _, err := NumberPages(context.Background(), c.data, PageNumberOptions{}); fault.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
}

// TestDocNumberPages: the method compose uses numbers every page; a character Helvetica
// lacks prints as "?".
func TestDocNumberPages(t *testing.T) {
	out, err := mustRead(t, testpdf.New(2)).NumberPages("Łódź {page}/{pages}")
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	pages := testtool.PageTexts(t, out)
	if !strings.Contains(pages[0], "?ód? 1/2") || !strings.Contains(pages[1], "?ód? 2/2") {
		t.Fatalf("pages %q", pages)
	}
	if _, err := mustRead(t, testpdf.New(1)).NumberPages(" "); fault.CodeOf(err) != fault.InvalidInput {
		t.Fatalf("empty label: %v", err)
	}
}

// FuzzStampImage: whatever the image bytes, Stamp answers with a fault of the caller's
// making or a PDF that reads back; it does not panic.
func FuzzStampImage(f *testing.F) {
	var b bytes.Buffer
	img := image.NewNRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.NRGBA{10, 20, 30, 128})
	png.Encode(&b, img)
	f.Add(b.Bytes())
	b.Reset()
	jpeg.Encode(&b, img, nil)
	f.Add(b.Bytes())
	f.Add(stampPDF(0))
	f.Add([]byte("\x89PNG\r\n\x1a\n"))
	in := testpdf.New(1)
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := Stamp(context.Background(), in, StampOptions{Image: data})
		if err != nil {
			switch fault.CodeOf(err) {
			case fault.InvalidInput, fault.InvalidPDF, fault.EncryptedPDF, fault.PayloadTooLarge:
			default:
				t.Fatalf("%v", err)
			}
			if strings.Contains(err.Error(), "panic") {
				t.Fatalf("%v", err)
			}
			return
		}
		if _, err := Read(out); err != nil {
			t.Fatalf("the stamped PDF does not read back: %v", err)
		}
	})
}
