package pdf

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

// qpdfJSON is qpdf's view of a PDF: its objects by reference ("3 0 R"; a stream by its
// dictionary) and its pages' references in order.
type qpdfJSON struct {
	objects map[string]map[string]any
	pages   []string
}

func readQPDF(t *testing.T, pdf []byte) qpdfJSON {
	t.Helper()
	var raw struct {
		Pages []struct {
			Object string `json:"object"`
		} `json:"pages"`
		QPDF []map[string]json.RawMessage `json:"qpdf"`
	}
	if err := json.Unmarshal([]byte(testtool.Run(t, "qpdf", "--json=2", testtool.File(t, "j.pdf", pdf))), &raw); err != nil {
		t.Fatal(err)
	}
	q := qpdfJSON{objects: map[string]map[string]any{}}
	for _, p := range raw.Pages {
		q.pages = append(q.pages, p.Object)
	}
	for k, v := range raw.QPDF[1] {
		var o struct {
			Value  any `json:"value"`
			Stream struct {
				Dict map[string]any `json:"dict"`
			} `json:"stream"`
		}
		if err := json.Unmarshal(v, &o); err != nil {
			t.Fatal(err)
		}
		d, _ := o.Value.(map[string]any)
		if o.Stream.Dict != nil {
			d = o.Stream.Dict
		}
		q.objects[strings.TrimPrefix(k, "obj:")] = d
	}
	return q
}

// dict is the dictionary o stands for: itself, or the object it refers to.
func (q qpdfJSON) dict(o any) map[string]any {
	switch v := o.(type) {
	case map[string]any:
		return v
	case string:
		return q.objects[v]
	}
	return nil
}

func (q qpdfJSON) catalog(t *testing.T) map[string]any {
	for _, o := range q.objects {
		if o["/Type"] == "/Catalog" {
			return o
		}
	}
	t.Fatal("qpdf shows no catalog")
	return nil
}

// annotSubtypes lists the subtypes of a page's annotations, as qpdf reads them.
func (q qpdfJSON) annotSubtypes(page int) []string {
	var out []string
	annots, _ := q.dict(q.pages[page-1])["/Annots"].([]any)
	if s, ok := q.dict(q.pages[page-1])["/Annots"].(string); ok {
		annots, _ = any(q.objects[s]).([]any)
	}
	for _, a := range annots {
		st, _ := q.dict(a)["/Subtype"].(string)
		out = append(out, st)
	}
	slices.Sort(out)
	return out
}

// wordBoxes is pdftotext's bounding box of each word (xMin, yMin, xMax, yMax, from the top
// left corner of the page as shown) and the page's shown size, for page 1.
func wordBoxes(t *testing.T, pdf []byte) (map[string][4]float64, [2]float64) {
	t.Helper()
	out := testtool.Run(t, "pdftotext", "-bbox", "-f", "1", "-l", "1", testtool.File(t, "b.pdf", pdf), "-")
	attr := func(s, name string) float64 {
		_, v, _ := strings.Cut(s, name+`="`)
		v, _, _ = strings.Cut(v, `"`)
		f, _ := strconv.ParseFloat(v, 64)
		return f
	}
	words := map[string][4]float64{}
	var size [2]float64
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "<page "):
			size = [2]float64{attr(line, "width"), attr(line, "height")}
		case strings.HasPrefix(line, "<word "):
			w := line[strings.Index(line, ">")+1 : strings.LastIndex(line, "<")]
			words[w] = [4]float64{attr(line, "xMin"), attr(line, "yMin"), attr(line, "xMax"), attr(line, "yMax")}
		}
	}
	return words, size
}

// annotated is a one-page PDF with annotations of every kind Flatten treats differently:
// free text "Anmerkung" (with appearance), a stamp "Genehmigt" whose appearance is turned
// by its /Matrix, a hidden square whose appearance says "Versteckt", a link, a text note
// with an appearance and its pop-up, and a circle without appearance.
func annotated() []byte {
	ap := func(extra, content string) string {
		return testpdf.StreamBody("/Type /XObject /Subtype /Form /BBox [0 0 200 40] /Resources << /Font << /F1 4 0 R >> >> "+extra, content)
	}
	return testpdf.Raw(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R /Annots [6 0 R 8 0 R 10 0 R 12 0 R 13 0 R 15 0 R 16 0 R] >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		testpdf.StreamBody("", "BT /F1 24 Tf 72 760 Td (Seite) Tj ET"),
		"<< /Type /Annot /Subtype /FreeText /Rect [72 600 272 640] /Contents (Anmerkung) /DA (/F1 14 Tf 0 g) /F 4 /AP << /N 7 0 R >> >>",
		ap("", "BT /F1 14 Tf 5 12 Td (Anmerkung) Tj ET"),
		"<< /Type /Annot /Subtype /Stamp /Rect [400 300 440 500] /F 4 /AP << /N 9 0 R >> >>",
		ap("/Matrix [0 1 -1 0 0 0]", "BT /F1 20 Tf 5 12 Td (Genehmigt) Tj ET"),
		"<< /Type /Annot /Subtype /Square /Rect [72 400 272 440] /F 2 /AP << /N 11 0 R >> >>",
		ap("", "BT /F1 14 Tf 5 12 Td (Versteckt) Tj ET"),
		"<< /Type /Annot /Subtype /Link /Rect [72 700 200 720] /Border [0 0 0] /A << /S /URI /URI (https://example.org/) >> >>",
		"<< /Type /Annot /Subtype /Text /Rect [300 700 320 720] /Contents (Notiz) /F 4 /AP << /N 14 0 R >> /Popup 15 0 R >>",
		testpdf.StreamBody("/Type /XObject /Subtype /Form /BBox [0 0 20 20]", "0 0 1 rg 0 0 20 20 re f"),
		"<< /Type /Annot /Subtype /Popup /Rect [320 600 500 700] /Parent 13 0 R >>",
		"<< /Type /Annot /Subtype /Circle /Rect [72 200 172 300] /C [1 0 0] >>",
	)
}

// TestFlattenAnnotations: annotations with appearances become page content where they
// were (a turned appearance turned), hidden ones vanish, links and annotations without an
// appearance stay, a flattened note takes its pop-up along.
func TestFlattenAnnotations(t *testing.T) {
	in := annotated()
	if got := readQPDF(t, in).annotSubtypes(1); len(got) != 7 {
		t.Fatalf("input annotations %v", got)
	}
	out, err := Flatten(context.Background(), in, FlattenOptions{Annotations: true})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	mustRead(t, out)
	if got := readQPDF(t, out).annotSubtypes(1); !slices.Equal(got, []string{"/Circle", "/Link"}) {
		t.Fatalf("annotations left %v, want the circle and the link", got)
	}
	words, _ := wordBoxes(t, out)
	for _, w := range []string{"Seite", "Anmerkung", "Genehmigt"} {
		if _, ok := words[w]; !ok {
			t.Errorf("%q is not on the page: %v", w, words)
		}
	}
	if _, ok := words["Versteckt"]; ok {
		t.Error("the hidden annotation was drawn")
	}
	// The stamp's appearance is turned a quarter by its matrix: drawn upwards inside the
	// annotation's rectangle [400 300 440 500] (top-left origin: y 342 to 542).
	g := words["Genehmigt"]
	if g[0] < 399 || g[2] > 441 || g[1] < 341 || g[3] > 543 || g[3]-g[1] < g[2]-g[0] {
		t.Errorf("Genehmigt drawn at %v, not upwards in x 400-440, y 342-542", g)
	}
	a := words["Anmerkung"]
	if a[0] < 72 || a[0] > 90 || a[1] < 842-640 || a[3] > 842-600 {
		t.Errorf("Anmerkung drawn at %v, not in its rectangle", a)
	}
	// The blue square of the note's appearance is page content now.
	if got := render(t, out, 1).at(310, 710); got != [3]byte{0, 0, 255} {
		t.Errorf("note icon pixel %v, want blue", got)
	}

	// Without Annotations nothing but a form is flattened, and there is none.
	same, err := Flatten(context.Background(), in, FlattenOptions{})
	if err != nil || !bytes.Equal(same, in) {
		t.Fatalf("nothing to flatten: changed (%v)", err)
	}
}

// raster is a page rendered by pdftoppm at 72 dpi: a pixel per point.
type raster struct {
	w, h int
	rgb  []byte
}

func render(t *testing.T, pdf []byte, page int) raster {
	t.Helper()
	p := strconv.Itoa(page)
	ppm := []byte(testtool.Run(t, "pdftoppm", "-r", "72", "-f", p, "-l", p, testtool.File(t, "p.pdf", pdf)))
	hdr, fields := 0, 0
	for i := 0; i < len(ppm) && fields < 4; i++ {
		if ppm[i] == ' ' || ppm[i] == '\n' {
			fields++
			hdr = i + 1
		}
	}
	var r raster
	if f := strings.Fields(string(ppm[:hdr])); len(f) == 4 && f[0] == "P6" {
		r.w, _ = strconv.Atoi(f[1])
		r.h, _ = strconv.Atoi(f[2])
	}
	if r.w == 0 || hdr+r.w*r.h*3 > len(ppm) {
		t.Fatalf("cannot read pdftoppm's output (%dx%d)", r.w, r.h)
	}
	r.rgb = ppm[hdr : hdr+r.w*r.h*3]
	return r
}

// at is the colour at x, y (points from the bottom left of the page as shown).
func (r raster) at(x, y int) [3]byte {
	o := ((r.h-1-y)*r.w + x) * 3
	return [3]byte{r.rgb[o], r.rgb[o+1], r.rgb[o+2]}
}

// dark counts the pixels darker than mid-grey in the rectangle x0 <= x < x1, y0 <= y < y1.
func (r raster) dark(x0, y0, x1, y1 int) int {
	n := 0
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			if c := r.at(x, y); int(c[0])+int(c[1])+int(c[2]) < 3*128 {
				n++
			}
		}
	}
	return n
}

// TestFlattenForm: a filled form becomes page content; the values stay visible, the form
// is gone.
func TestFlattenForm(t *testing.T) {
	var values map[string]any
	json.Unmarshal([]byte(`{"name":"Erika Mustermann","address.city":"Köln","agree":true,"country":"AT"}`), &values)
	filled, err := mustRead(t, testpdf.Form()).FillForm(values, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, all := range []bool{false, true} {
		out, err := Flatten(context.Background(), filled, FlattenOptions{Annotations: all})
		if err != nil {
			t.Fatal(err)
		}
		testtool.QPDFCheck(t, out)
		q := readQPDF(t, out)
		if _, ok := q.catalog(t)["/AcroForm"]; ok {
			t.Errorf("annotations %v: the AcroForm is still there", all)
		}
		if got := q.annotSubtypes(1); len(got) != 0 {
			t.Errorf("annotations %v: annotations left: %v", all, got)
		}
		text := testtool.Text(t, out)
		for _, want := range []string{"Form", "Erika Mustermann", "Köln", "AT", "A-1"} {
			if !strings.Contains(text, want) {
				t.Errorf("annotations %v: pdftotext lacks %q:\n%s", all, want, text)
			}
		}
		if f, err := mustRead(t, out).FormFields(); err != nil || len(f) != 0 {
			t.Errorf("annotations %v: fields after flattening: %v %v", all, f, err)
		}
	}
}

// TestFlattenInheritedResources: a page whose font comes from the page tree keeps it when
// flattening gives it resources of its own.
func TestFlattenInheritedResources(t *testing.T) {
	in := testpdf.Raw(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 /Resources << /Font << /F1 4 0 R >> >> /MediaBox [0 0 400 400] >>",
		"<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Annots [6 0 R] >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		testpdf.StreamBody("", "BT /F1 24 Tf 72 300 Td (Inherited) Tj ET"),
		"<< /Type /Annot /Subtype /FreeText /Rect [72 100 272 140] /DA (/F1 14 Tf 0 g) /AP << /N 7 0 R >> >>",
		testpdf.StreamBody("/BBox [0 0 200 40] /Resources << /Font << /F1 4 0 R >> >>", "BT /F1 14 Tf 5 12 Td (Kommentar) Tj ET"),
	)
	out, err := Flatten(context.Background(), in, FlattenOptions{Annotations: true})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	mustRead(t, out)
	text := testtool.Text(t, out)
	if !strings.Contains(text, "Inherited") || !strings.Contains(text, "Kommentar") {
		t.Fatalf("text after flattening:\n%s", text)
	}
	if fonts := testtool.Run(t, "pdffonts", testtool.File(t, "f.pdf", out)); !strings.Contains(fonts, "Helvetica") {
		t.Fatalf("pdffonts:\n%s", fonts)
	}
}

func TestFlattenBadInput(t *testing.T) {
	for name, c := range badInputs(t) {
		if _, err := Flatten(context.Background(), c.data, FlattenOptions{Annotations: true}); fault.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Flatten(ctx, annotated(), FlattenOptions{}); fault.CodeOf(err) != fault.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}
