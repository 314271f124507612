package ocr

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/ghostscript"
	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/engine/tesseract"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/pagerange"
	"github.com/papierkram/papierkram/pdf/pdfa"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// lines is the text of the test pages: German words with umlauts and ß beside English.
var lines = []string{
	"Rechnung Nr. 4711",
	"Größe der Lieferung: 12 Kartons",
	"Müller GmbH, Hauptstraße 5",
	"Überweisung bis zum 31.03.2025",
	"Gesamtbetrag 1.234,56 EUR",
	"The quick brown fox jumps over the lazy dog",
	"Vielen Dank für Ihren Auftrag!",
}

// textContent draws lines in 16 pt Helvetica from the top left of an A4 page, turned by
// skew degrees about the lower left corner.
func textContent(skew float64) string {
	a := skew * math.Pi / 180
	var b strings.Builder
	fmt.Fprintf(&b, "q %.5f %.5f %.5f %.5f 0 0 cm BT /F1 16 Tf 72 760 Td 22 TL\n", math.Cos(a), math.Sin(a), -math.Sin(a), math.Cos(a))
	for _, l := range lines {
		b.WriteString("(")
		for _, r := range l { // WinAnsiEncoding is Latin-1 for these letters
			b.WriteByte(byte(r))
		}
		b.WriteString(") '\n")
	}
	b.WriteString("ET Q")
	return b.String()
}

const helvetica = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"

// textPDF is one A4 page of lines with /Rotate rotate, the text turned by skew degrees.
func textPDF(rotate int, skew float64) []byte {
	return testpdf.Raw("<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Rotate %d /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>", rotate),
		helvetica,
		testpdf.StreamBody("", textContent(skew)))
}

// scan renders a PDF's first page as a grey JPEG at dpi, as a scanner would deliver it.
func scan(t testing.TB, doc []byte, dpi int) []byte {
	t.Helper()
	return []byte(testtool.Run(t, "pdftoppm", "-r", strconv.Itoa(dpi), "-gray", "-jpeg", "-singlefile", testtool.File(t, "scan.pdf", doc)))
}

// scanPage is a page of an image-only PDF: the JPEG fills the media box.
type scanPage struct {
	jpeg   []byte
	box    [4]float64
	rotate int
	text   bool // a page of vector text instead, with no image
}

var a4 = [4]float64{0, 0, 595, 842}

// scanPDF makes an image-only PDF, a scan as scanners and img2pdf write them.
func scanPDF(t testing.TB, pages ...scanPage) []byte {
	t.Helper()
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", helvetica}
	var kids []string
	for _, p := range pages {
		n := len(objs) + 1 // page, content, image
		kids = append(kids, fmt.Sprintf("%d 0 R", n))
		w, h := p.box[2]-p.box[0], p.box[3]-p.box[1]
		res, content := "/Font << /F1 3 0 R >>", textContent(0)
		if !p.text {
			res = fmt.Sprintf("/XObject << /Im0 %d 0 R >>", n+2)
			content = fmt.Sprintf("q %g 0 0 %g %g %g cm /Im0 Do Q", w, h, p.box[0], p.box[1])
		}
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [%g %g %g %g] /Rotate %d /Resources << %s >> /Contents %d 0 R >>", p.box[0], p.box[1], p.box[2], p.box[3], p.rotate, res, n+1),
			testpdf.StreamBody("", content))
		if !p.text {
			cfg, _, err := image.DecodeConfig(bytes.NewReader(p.jpeg))
			if err != nil {
				t.Fatal(err)
			}
			cs := "/DeviceRGB" // pdftoppm -gray writes three components all the same
			if cfg.ColorModel == color.GrayModel {
				cs = "/DeviceGray"
			}
			objs = append(objs, testpdf.StreamBody(fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace %s /BitsPerComponent 8 /Filter /DCTDecode", cfg.Width, cfg.Height, cs), p.jpeg))
		}
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages))
	return testpdf.Raw(objs...)
}

// engines are real poppler and Tesseract engines, stopped when the test ends.
func engines(t testing.TB) (*poppler.Poppler, *tesseract.Tesseract) {
	pop := poppler.New(engine.Config{Concurrency: 2, TempRoot: t.TempDir()})
	ts := tesseract.New(engine.Config{Concurrency: 2, TempRoot: t.TempDir()})
	t.Cleanup(func() {
		pop.Supervisor().Stop(context.Background())
		ts.Supervisor().Stop(context.Background())
	})
	return pop, ts
}

// word is a word of pdftotext -bbox: its text and box in points from the top left corner
// of the page as displayed.
type word struct {
	text                   string
	xMin, yMin, xMax, yMax float64
}

var wordRE = regexp.MustCompile(`<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">([^<]*)</word>`)

func words(t testing.TB, doc []byte, page int) []word {
	t.Helper()
	out := testtool.Run(t, "pdftotext", "-bbox", "-f", strconv.Itoa(page), "-l", strconv.Itoa(page), testtool.File(t, "words.pdf", doc), "-")
	var ws []word
	for _, m := range wordRE.FindAllStringSubmatch(out, -1) {
		w := word{text: html.UnescapeString(m[5])}
		w.xMin, _ = strconv.ParseFloat(m[1], 64)
		w.yMin, _ = strconv.ParseFloat(m[2], 64)
		w.xMax, _ = strconv.ParseFloat(m[3], 64)
		w.yMax, _ = strconv.ParseFloat(m[4], 64)
		ws = append(ws, w)
	}
	return ws
}

// inRegister checks that the words of want (the text PDF's own, where they are on the
// image) were read and lie where they are on the image: the left edge within 3 pt and the
// baseline within 2 pt (the lines are 22 pt apart). pdftotext's box of a Helvetica word
// ends 0.207 of its height below the baseline (Helvetica's descent, 207 of 925 units of
// its box); that of a GlyphLessFont word on the baseline (Tesseract gives it no descent).
// A font rewritten by Ghostscript has other metrics: with loose, the baseline need only
// lie within the word's box. Four in five words must, and the German ones with umlauts
// and ß all.
func inRegister(t *testing.T, got, want []word, loose bool) {
	t.Helper()
	placed := 0
	for _, w := range want {
		baseline := w.yMax - (w.yMax-w.yMin)*207/925
		best := math.Inf(1)
		for _, g := range got {
			if g.text != w.text {
				continue
			}
			dx, dy := g.xMin-w.xMin, g.yMax-baseline
			if loose && g.yMin <= baseline && baseline <= g.yMax {
				dy = 0
			}
			if math.Abs(dx) <= 3 && math.Abs(dy) <= 2 {
				best = 0
				break
			}
			best = min(best, math.Hypot(dx, dy))
		}
		if best == 0 {
			placed++
			continue
		}
		switch w.text {
		case "Rechnung", "Größe", "Müller", "Hauptstraße", "Überweisung":
			t.Errorf("%q is not in register (nearest %.1f pt away)", w.text, best)
		}
	}
	if placed*5 < len(want)*4 {
		t.Errorf("%d of %d words in register; got %v", placed, len(want), got)
	}
}

var (
	mainOnce   sync.Once
	mainIn     []byte
	mainJPEGs  [][]byte
	mainResult *Result
	mainErr    error
)

// mainScan is a scan of ten pages read once for the tests of TestSearchable:
//  1. upright; 2. lying on its side; 3. upside down; 4.–6. displayed upright by a
//     /Rotate of 270, 90 and 180 of a sideways or upside-down image; 7. a media box away
//     from the origin; 8. skewed by 3°; 9. vector text (no scan); 10. blank.
func mainScan(t *testing.T) (in []byte, jpegs [][]byte, r *Result) {
	mainOnce.Do(func() {
		up, side, down, otherSide := scan(t, textPDF(0, 0), 200), scan(t, textPDF(90, 0), 200), scan(t, textPDF(180, 0), 200), scan(t, textPDF(270, 0), 200)
		skewed := scan(t, textPDF(0, 3), 200)
		blank := scan(t, testpdf.Raw("<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>"), 200)
		landscape := [4]float64{0, 0, 842, 595}
		mainJPEGs = [][]byte{up, side, down, side, otherSide, down, up, skewed, nil, blank}
		mainIn = scanPDF(t,
			scanPage{jpeg: up, box: a4},
			scanPage{jpeg: side, box: landscape},
			scanPage{jpeg: down, box: a4},
			scanPage{jpeg: side, box: landscape, rotate: 270},
			scanPage{jpeg: otherSide, box: landscape, rotate: 90},
			scanPage{jpeg: down, box: a4, rotate: 180},
			scanPage{jpeg: up, box: [4]float64{100, 200, 695, 1042}},
			scanPage{jpeg: skewed, box: a4},
			scanPage{text: true, box: a4},
			scanPage{jpeg: blank, box: a4},
		)
		pop, ts := engines(t)
		mainResult, mainErr = Searchable(context.Background(), pop, ts, mainIn, Options{})
	})
	if mainErr != nil {
		t.Fatal(mainErr)
	}
	return mainIn, mainJPEGs, mainResult
}

// TestSearchable makes a scan searchable and checks the result with poppler and qpdf.
func TestSearchable(t *testing.T) {
	in, jpegs, r := mainScan(t)
	out := r.PDF
	testtool.QPDFCheck(t, out)
	if _, err := pdf.Read(out); err != nil {
		t.Fatalf("pdf.Read of the result: %v", err)
	}
	upright := words(t, textPDF(0, 0), 1)
	if len(upright) < 30 {
		t.Fatalf("the text PDF has %d words", len(upright))
	}

	t.Run("pages", func(t *testing.T) {
		want := []PageResult{
			{Page: 1}, {Page: 2, Rotated: 270}, {Page: 3, Rotated: 180}, {Page: 4}, {Page: 5}, {Page: 6},
			{Page: 7}, {Page: 8}, {Page: 9, Skipped: true}, {Page: 10},
		}
		if len(r.Pages) != len(want) {
			t.Fatalf("%d page results: %+v", len(r.Pages), r.Pages)
		}
		for i, w := range want {
			g := r.Pages[i]
			if g.Page != w.Page || g.Rotated != w.Rotated || g.Skipped != w.Skipped {
				t.Errorf("page %d: %+v, want page %d rotated %d skipped %v", i+1, g, w.Page, w.Rotated, w.Skipped)
			}
			readable := !w.Skipped && w.Page != 10
			if readable && (g.Words < 30 || g.Confidence < 80 || g.DPI != DefaultDPI) {
				t.Errorf("page %d read badly: %+v", w.Page, g)
			}
			if w.Page == 10 && g.Words != 0 {
				t.Errorf("blank page: %+v", g)
			}
		}
	})

	t.Run("text in register", func(t *testing.T) {
		for _, p := range []int{1, 2, 3, 4, 5, 6, 7} {
			t.Run(strconv.Itoa(p), func(t *testing.T) { inRegister(t, words(t, out, p), upright, false) })
		}
		// Skew needs no deskewing: Tesseract reads the slanted lines and writes them
		// slanted. (pdftotext's layout analysis breaks slanted lines where the baseline
		// steps; in content order, -raw, they are whole.)
		raw := testtool.Run(t, "pdftotext", "-raw", "-f", "8", "-l", "8", testtool.File(t, "skew.pdf", out), "-")
		for _, l := range lines {
			if !strings.Contains(raw, l) {
				t.Errorf("the skewed page has no line %q:\n%s", l, raw)
			}
		}
		if ws := words(t, out, 10); len(ws) != 0 {
			t.Errorf("the blank page has text %v", ws)
		}
		if a, b := testtool.PageTexts(t, in)[8], testtool.PageTexts(t, out)[8]; a != b || !strings.Contains(a, "Größe") {
			t.Errorf("the text page changed:\n%s\n%s", a, b)
		}
	})

	t.Run("upright", func(t *testing.T) {
		info := testtool.Info(t, out, "-l", "10")
		for p, want := range []string{"0", "270", "180", "270", "90", "180", "0", "0", "0", "0"} {
			if got := info[fmt.Sprintf("Page %4d rot", p+1)]; got != want {
				t.Errorf("page %d rot %q, want %s", p+1, got, want)
			}
		}
	})

	t.Run("invisible layer", func(t *testing.T) {
		fonts := testtool.Run(t, "pdffonts", testtool.File(t, "fonts.pdf", out))
		if !regexp.MustCompile(`GlyphLessFont +CID TrueType +Identity-H +yes`).MatchString(fonts) {
			t.Errorf("pdffonts:\n%s", fonts)
		}
		// One copy of the font for all pages, beside the text page's Helvetica.
		if n := strings.Count(fonts, "GlyphLessFont"); n != 1 {
			t.Errorf("%d copies of GlyphLessFont:\n%s", n, fonts)
		}
		// Invisible: the rendered pages are the input's, pixel for pixel.
		for _, p := range []string{"1", "2", "5"} {
			a := testtool.Run(t, "pdftoppm", "-r", "50", "-gray", "-f", p, "-l", p, "-singlefile", testtool.File(t, "a.pdf", in))
			b := testtool.Run(t, "pdftoppm", "-r", "50", "-gray", "-f", p, "-l", p, "-singlefile", testtool.File(t, "b.pdf", out))
			if p != "2" && a != b { // page 2 is turned upright now
				t.Errorf("page %s looks different", p)
			}
		}
	})

	t.Run("images unchanged", func(t *testing.T) {
		list := func(doc []byte) string {
			return testtool.Run(t, "pdfimages", "-list", testtool.File(t, "list.pdf", doc))
		}
		// page num type width height color comp bpc enc interp object ID x-ppi y-ppi size ratio
		strip := regexp.MustCompile(`(?m)^(\s*\d+\s+\d+\s+\w+\s+\d+\s+\d+\s+\w+\s+\d+\s+\d+\s+\w+\s+\w+)\s+\d+\s+\d+(.*)$`)
		a, b := strip.ReplaceAllString(list(in), "$1$2"), strip.ReplaceAllString(list(out), "$1$2")
		if a != b || strings.Count(a, "jpeg") != 9 {
			t.Errorf("images differ:\n%s\n%s", a, b)
		}
		dir := t.TempDir()
		testtool.Run(t, "pdfimages", "-j", testtool.File(t, "img.pdf", out), filepath.Join(dir, "img"))
		k := 0
		for _, j := range jpegs {
			if j == nil {
				continue
			}
			got, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("img-%03d.jpg", k)))
			if err != nil || !bytes.Equal(got, j) {
				t.Errorf("image %d is not the scan's JPEG (%v)", k, err)
			}
			k++
		}
	})
}

// TestSearchablePages: pages=2 reads page 2 alone and leaves the others as they were;
// the result can be made PDF/A-3b.
func TestSearchablePages(t *testing.T) {
	up := scan(t, textPDF(0, 0), 150)
	in := scanPDF(t, scanPage{jpeg: up, box: a4}, scanPage{jpeg: up, box: a4}, scanPage{jpeg: up, box: a4})
	pop, ts := engines(t)
	r, err := Searchable(t.Context(), pop, ts, in, Options{Pages: "2", DPI: 200})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Pages) != 1 || r.Pages[0].Page != 2 || r.Pages[0].DPI != 200 || r.Pages[0].Words < 30 {
		t.Fatalf("pages %+v", r.Pages)
	}
	testtool.QPDFCheck(t, r.PDF)
	if a, c := words(t, r.PDF, 1), words(t, r.PDF, 3); len(a) != 0 || len(c) != 0 {
		t.Errorf("pages 1 and 3 have text: %v %v", a, c)
	}
	for _, p := range []string{"1", "3"} {
		if fonts := testtool.Run(t, "pdffonts", "-f", p, "-l", p, testtool.File(t, "f.pdf", r.PDF)); strings.Contains(fonts, "GlyphLessFont") {
			t.Errorf("page %s has the layer's font:\n%s", p, fonts)
		}
	}
	if text := testtool.PageTexts(t, r.PDF)[1]; !strings.Contains(text, "Rechnung") || !strings.Contains(text, "Größe") {
		t.Errorf("page 2: %q", text)
	}
	// PDF/A-3b is a step after this one (Ghostscript rewrites the file): the layer stays
	// searchable and in register.
	gs := ghostscript.New(engine.Config{Concurrency: 1, TempRoot: t.TempDir()})
	t.Cleanup(func() { gs.Supervisor().Stop(context.Background()) })
	a, err := pdfa.Convert(t.Context(), gs, r.PDF, pdfa.Options{})
	if err != nil {
		t.Fatal(err)
	}
	inRegister(t, words(t, a, 2), words(t, textPDF(0, 0), 1), true)

	// Once read, the page has text and a second run leaves the document alone.
	again, err := Searchable(t.Context(), pop, ts, r.PDF, Options{Pages: "2"})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.PDF, r.PDF) || !again.Pages[0].Skipped {
		t.Errorf("a second run changed the document: %+v", again.Pages)
	}
}

// TestSearchableRefuses: every bad input and option has its fault code, before any page
// is read where the input can tell.
func TestSearchableRefuses(t *testing.T) {
	pop, ts := engines(t)
	good := scanPDF(t, scanPage{jpeg: scan(t, textPDF(0, 0), 100), box: a4})
	plain := testtool.File(t, "plain.pdf", good)
	enc := filepath.Join(t.TempDir(), "enc.pdf")
	testtool.Run(t, "qpdf", "--encrypt", "user", "owner", "256", "--", plain, enc)
	encrypted, err := os.ReadFile(enc)
	if err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	for name, c := range map[string]struct {
		ctx  context.Context
		data []byte
		o    Options
		code fault.Code
	}{
		"not a PDF":            {t.Context(), []byte("GIF89a not a pdf"), Options{}, fault.InvalidPDF},
		"truncated":            {t.Context(), good[:len(good)/3], Options{}, fault.InvalidPDF},
		"encrypted":            {t.Context(), encrypted, Options{}, fault.EncryptedPDF},
		"page beyond the last": {t.Context(), good, Options{Pages: "2"}, fault.InvalidPageSpec},
		"bad page spec":        {t.Context(), good, Options{Pages: "1-x"}, fault.InvalidPageSpec},
		"language syntax":      {t.Context(), good, Options{Languages: "deu;eng"}, fault.InvalidInput},
		"six languages":        {t.Context(), good, Options{Languages: "deu+eng+fra+ita+spa+por"}, fault.InvalidInput},
		"osd":                  {t.Context(), good, Options{Languages: "osd"}, fault.InvalidInput},
		"not installed":        {t.Context(), good, Options{Languages: "deu+xyz"}, fault.InvalidInput},
		"dpi too low":          {t.Context(), good, Options{DPI: 72}, fault.InvalidInput},
		"dpi too high":         {t.Context(), good, Options{DPI: 1200}, fault.InvalidInput},
		"canceled":             {canceled, good, Options{}, fault.Canceled},
	} {
		t.Run(name, func(t *testing.T) {
			r, err := Searchable(c.ctx, pop, ts, c.data, c.o)
			if fault.CodeOf(err) != c.code || r != nil {
				t.Errorf("err = %v (%s), want %s", err, fault.CodeOf(err), c.code)
			}
		})
	}
	if _, err := Searchable(t.Context(), nil, ts, good, Options{}); fault.CodeOf(err) != fault.EngineUnavailable {
		t.Errorf("without a renderer: %v", err)
	}
}

// TestPlacement: the layer's corners land on the page's as displayed, whatever its
// rotation and media box.
func TestPlacement(t *testing.T) {
	box := rect(10, 20, 310, 420) // 300 × 400
	for _, rot := range []int{0, 90, 180, 270} {
		p := page{box: box, rotate: rot, dpi: 72}
		w, h := p.size()
		lh := h + 0.5 // a layer half a point taller, as when pixels are rounded up
		m := placement(p, lh)
		apply := func(u, v float64) (float64, float64) { return m[0]*u + m[2]*v + m[4], m[1]*u + m[3]*v + m[5] }
		// The layer's top left corner is the displayed page's top left corner, which is
		// the media box corner that /Rotate turns there.
		topLeft := map[int][2]float64{0: {10, 420}, 90: {10, 20}, 180: {310, 20}, 270: {310, 420}}[rot]
		topRight := map[int][2]float64{0: {310, 420}, 90: {10, 420}, 180: {10, 20}, 270: {310, 20}}[rot]
		if x, y := apply(0, lh); math.Abs(x-topLeft[0]) > 1e-9 || math.Abs(y-topLeft[1]) > 1e-9 {
			t.Errorf("rotate %d: top left at %v,%v, want %v", rot, x, y, topLeft)
		}
		if x, y := apply(w, lh); math.Abs(x-topRight[0]) > 1e-9 || math.Abs(y-topRight[1]) > 1e-9 {
			t.Errorf("rotate %d: top right at %v,%v, want %v", rot, x, y, topRight)
		}
	}
}

// TestLineTurn reads the direction of Tesseract's lines from layer content.
func TestLineTurn(t *testing.T) {
	line := func(m string, words int) string {
		return "BT 3 Tr " + m + " Tm /f-0-0 15 Tf" + strings.Repeat(" [ <0052006500630068006e0075006e00670020> ] TJ 10 0 Td", words) + " ET\n"
	}
	for _, c := range []struct {
		content string
		want    int
	}{
		{line("1 0 0 1 73.2 738.08", 5), 0},
		{line("0.002 -1 1 0.002 737.76 521.8", 5), 270}, // runs down the page
		{line("0 1 -1 0 100 100", 5), 90},
		{line("-1 0 0 -1 500 500", 5), 180},
		{line("0.998 0.052 -0.052 0.998 72 700", 5), 0}, // 3° of skew
		{line("0 1 -1 0 100 100", 1), 0},                // too few letters to tell
		{line("0 1 -1 0 100 100", 4) + line("1 0 0 1 72 700", 4), 0},
		{line("0 1 -1 0 100 100", 9) + line("1 0 0 1 72 700", 2), 90},
		{line("0.7 0.7 -0.7 0.7 100 100", 9), 0}, // 45°: no way up
		{"", 0},
		{"Tm Tm <> <0052> 1 2 Tm", 0},
	} {
		if got := lineTurn([]byte(c.content)); got != c.want {
			t.Errorf("lineTurn(%q) = %d, want %d", c.content, got, c.want)
		}
	}
}

// TestTurn turns a 3×2 image each way; the result is a PGM of the turned pixels.
func TestTurn(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 3, 2))
	for i, v := range []uint8{10, 20, 30, 40, 50, 60} { // rows: 10 20 30 / 40 50 60
		src.Set(i%3, i/3, color.RGBA{v, v, v, 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, src); err != nil {
		t.Fatal(err)
	}
	for deg, want := range map[int]string{
		90:  "P5\n2 3\n255\n" + string([]byte{40, 10, 50, 20, 60, 30}),
		180: "P5\n3 2\n255\n" + string([]byte{60, 50, 40, 30, 20, 10}),
		270: "P5\n2 3\n255\n" + string([]byte{30, 60, 20, 50, 10, 40}),
	} {
		got, err := turn(b.Bytes(), deg)
		if err != nil || string(got) != want {
			t.Errorf("turn %d = %q, %v; want %q", deg, got, err, want)
		}
	}
	if _, err := turn([]byte("no image"), 90); err == nil {
		t.Error("turned bytes that are no image")
	}
}

// TestPixelBudget: a poster-sized page is read at a lower resolution, within maxPixels.
func TestPixelBudget(t *testing.T) {
	doc := testpdf.Make(testpdf.Options{Pages: 2, Width: 2384, Height: 3370}) // A0
	c, err := readContext(doc)
	if err != nil {
		t.Fatal(err)
	}
	sp := pagerangeAll(t, 2)
	pages, err := selectPages(c, sp, 300)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 2 {
		t.Fatalf("%d pages", len(pages))
	}
	for _, p := range pages {
		w, h := p.size()
		px := math.Ceil(w*float64(p.dpi)/72) * math.Ceil(h*float64(p.dpi)/72)
		if p.dpi >= 300 || p.dpi < 100 || px > maxPixels {
			t.Errorf("A0 at %d dpi: %.0f pixels", p.dpi, px)
		}
	}
	a4pages, err := selectPages(must(readContext(testpdf.New(1))), pagerangeAll(t, 1), 600)
	if err != nil || a4pages[0].dpi != 600 {
		t.Errorf("A4 at 600 dpi is within the budget: %+v %v", a4pages, err)
	}
}

// TestRotation normalises /Rotate as poppler does.
func TestRotation(t *testing.T) {
	for in, want := range map[int]int{0: 0, 90: 90, -90: 270, 450: 90, 720: 0, 45: 0, -180: 180} {
		if got := rotation(in); got != want {
			t.Errorf("rotation(%d) = %d, want %d", in, got, want)
		}
	}
}

func rect(x0, y0, x1, y1 float64) types.Rectangle {
	return types.Rectangle{LL: types.Point{X: x0, Y: y0}, UR: types.Point{X: x1, Y: y1}}
}

func pagerangeAll(t *testing.T, n int) pagerange.Spec {
	t.Helper()
	sp, err := pagerange.Parse("", n)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// layerPDF is a text-only page of w × h points shaped as Tesseract writes one: a Type0
// GlyphLessFont and one line of invisible text.
func layerPDF(w, h float64) []byte {
	content := fmt.Sprintf("q %g 0 0 %g 0 0 cm Q\nBT\n3 Tr 1 0 0 1 10 %g Tm /f-0-0 12 Tf 100 Tz [ <0052006500630068006e0075006e0067> ] TJ\nET", w, h, h-20)
	return testpdf.Raw("<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] /Resources << /Font << /f-0-0 5 0 R >> >> /Contents 4 0 R >>", w, h),
		testpdf.StreamBody("", content),
		"<< /Type /Font /Subtype /Type0 /BaseFont /GlyphLessFont /Encoding /Identity-H /DescendantFonts [6 0 R] /ToUnicode 8 0 R >>",
		"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /GlyphLessFont /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor 7 0 R /DW 500 >>",
		"<< /Type /FontDescriptor /FontName /GlyphLessFont /Flags 5 /FontBBox [0 0 500 1000] /ItalicAngle 0 /Ascent 1000 /Descent 0 /CapHeight 1000 /StemV 80 >>",
		testpdf.StreamBody("", "/CIDInit /ProcSet findresource begin 12 dict begin begincmap 1 begincodespacerange <0000> <FFFF> endcodespacerange 1 beginbfrange <0000> <FFFF> <0000> endbfrange endcmap end end"))
}

// FuzzOverlay lays a text layer over every page (up to four) of PDFs that pdf.Read
// accepts: whatever their page trees, resources and content arrays, it fails with an error
// or writes a PDF that pdf.Read reads again with as many pages.
func FuzzOverlay(f *testing.F) {
	f.Add(testpdf.New(2))
	f.Add(testpdf.Make(testpdf.Options{Pages: 1, Rotate: 90}))
	f.Add(testpdf.Form())
	f.Add(scanPDF(f, scanPage{text: true, box: [4]float64{50, 50, 300, 400}, rotate: 270}, scanPage{text: true, box: a4}))
	f.Add(testpdf.Raw("<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 /MediaBox [0 0 200 300] /Resources << /XObject << /OCR 5 0 R >> >> /Rotate -90 >>",
		"<< /Type /Page /Parent 2 0 R /Contents [6 0 R 6 0 R] >>",
		"<< /Type /Page /Parent 2 0 R /Resources 7 0 R >>",
		testpdf.StreamBody("/Type /XObject /Subtype /Form /BBox [0 0 10 10]", "0 0 m 10 10 l S"),
		testpdf.StreamBody("", "q 1 0 0 1 5 5 cm /OCR Do"),
		"<< /XObject 8 0 R >>",
		"<< /OCR 5 0 R /OCR1 5 0 R >>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := pdf.Read(data); err != nil {
			return
		}
		c, err := readContext(data)
		if err != nil {
			return
		}
		pages, err := selectPages(c, pagerangeAll(t, c.PageCount), MinDPI)
		if err != nil {
			return
		}
		ov := newOverlay(c)
		for i, p := range pages[:min(len(pages), 4)] {
			turn := 90 * (i % 4) // the layer of an image turned so far
			img := p
			img.rotate = (p.rotate + turn) % 360
			w, h := img.size()
			px := 72 / float64(p.dpi)
			layer := &tesseract.Layer{PDF: layerPDF(math.Ceil(w/px)*px, math.Ceil(h/px)*px), Words: 1}
			if _, err := ov.add(p, layer, turn); err != nil {
				return
			}
		}
		out, err := write(c)
		if err != nil {
			return
		}
		d, err := pdf.Read(out)
		if err != nil {
			t.Fatalf("the result cannot be read: %v", err)
		}
		if d.PageCount() != len(pages) {
			t.Fatalf("%d pages, was %d", d.PageCount(), len(pages))
		}
	})
}

// FuzzLineTurn reads layer content of any shape without failing.
func FuzzLineTurn(f *testing.F) {
	f.Add([]byte("BT 3 Tr 0.002 -1 1 0.002 737.76 521.8 Tm /f-0-0 15 Tf [ <0052006500630068006e0075006e00670020> ] TJ ET"))
	f.Add([]byte("1 2 3 4 5 6 7 Tm <> < > <0> Tm NaN Inf 1e400 -0 Tm"))
	f.Fuzz(func(t *testing.T, content []byte) {
		if r := lineTurn(content); r%90 != 0 || r < 0 || r > 270 {
			t.Fatalf("lineTurn = %d", r)
		}
	})
}

// texts is a TextReader that answers from a map and records the ranges asked for.
type texts struct {
	page  map[int]string
	asked [][2]int
}

func (x *texts) Text(_ context.Context, _ []byte, first, last int, _ bool) ([]string, error) {
	x.asked = append(x.asked, [2]int{first, last})
	var out []string
	for p := first; p <= last; p++ {
		out = append(out, x.page[p])
	}
	return out, nil
}

// TestMarkText asks pdftotext about at most textSpan pages at once and marks the pages
// with at least minTextLetters letters.
func TestMarkText(t *testing.T) {
	long := strings.Repeat("Rechnung ", 4) // 32 letters
	x := &texts{page: map[int]string{2: "Seite 2 von 9 — 1234567890", 61: long, 119: long, 200: long}}
	var pages []page
	for _, nr := range []int{1, 2, 60, 61, 119} {
		pages = append(pages, page{nr: nr})
	}
	if err := markText(t.Context(), x, nil, pages); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(x.asked) != "[[1 2] [60 61] [119 119]]" {
		t.Errorf("asked for %v", x.asked)
	}
	for _, p := range pages {
		if want := p.nr == 61 || p.nr == 119; p.text != want {
			t.Errorf("page %d: text %v", p.nr, p.text)
		}
	}
}

// canceling cancels the request once it has read one page.
type canceling struct {
	*tesseract.Tesseract
	cancel context.CancelFunc
	reads  atomic.Int32
}

func (c *canceling) TextLayer(ctx context.Context, img []byte, dpi int, langs string) (*tesseract.Layer, error) {
	defer c.cancel()
	c.reads.Add(1)
	return c.Tesseract.TextLayer(ctx, img, dpi, langs)
}

// TestSearchableCanceled: a request that ends stops the work between pages.
func TestSearchableCanceled(t *testing.T) {
	up := scan(t, textPDF(0, 0), 100)
	var pages []scanPage
	for range 8 {
		pages = append(pages, scanPage{jpeg: up, box: a4})
	}
	pop, ts := engines(t)
	ctx, cancel := context.WithCancel(t.Context())
	c := &canceling{Tesseract: ts, cancel: cancel}
	r, err := Searchable(ctx, pop, c, scanPDF(t, pages...), Options{DPI: 100})
	if fault.CodeOf(err) != fault.Canceled || r != nil {
		t.Errorf("err = %v (%s)", err, fault.CodeOf(err))
	}
	if n := c.reads.Load(); n > maxWorkers {
		t.Errorf("%d pages read after the request ended", n)
	}
}
