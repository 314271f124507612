package pdf

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

type badInput struct {
	data []byte
	code fault.Code
}

// badInputs are documents every operation refuses, with the code it refuses them with.
func badInputs(t *testing.T) map[string]badInput {
	t.Helper()
	full := testpdf.New(2)
	enc := filepath.Join(t.TempDir(), "enc.pdf")
	testtool.Run(t, "qpdf", "--encrypt", "user", "owner", "256", "--", testtool.File(t, "plain.pdf", full), enc)
	encrypted, err := os.ReadFile(enc)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]badInput{
		"empty":     {nil, fault.InvalidPDF},
		"text":      {[]byte("hello world"), fault.InvalidPDF},
		"truncated": {full[:len(full)/2], fault.InvalidPDF},
		"encrypted": {encrypted, fault.EncryptedPDF},
	}
}

// linked is a three-page PDF ("Eins", "Zwei", "Drei") whose pages 2 and 3 sit in a page
// tree node they inherit size, rotation and font from, with what refers to pages: an
// outline item to page 2 (/Dest) and one to page 3 (GoTo action), named destinations to
// both, the open action to page 2, a link on page 1 to page 2, a form field on page 1
// ("stays") and one on page 2 ("gone"), and an attachment.
func linked() []byte {
	return testpdf.Raw(
		"<< /Type /Catalog /Pages 2 0 R /Outlines 14 0 R /Names << /Dests 17 0 R /EmbeddedFiles 18 0 R >> /OpenAction [4 0 R /Fit] /AcroForm << /Fields [10 0 R 11 0 R] /DR << /Font << /F1 8 0 R >> >> /DA (/F1 0 Tf 0 g) >> >>",
		"<< /Type /Pages /Kids [3 0 R 9 0 R] /Count 3 /MediaBox [0 0 595 842] >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 8 0 R >> >> /Contents 5 0 R /Annots [12 0 R 11 0 R] >>",
		"<< /Type /Page /Parent 9 0 R /Contents 6 0 R /Annots [10 0 R] >>",
		testpdf.StreamBody("", "BT /F1 24 Tf 72 300 Td (Eins) Tj ET"),
		testpdf.StreamBody("", "BT /F1 24 Tf 72 300 Td (Zwei) Tj ET"),
		testpdf.StreamBody("", "BT /F1 24 Tf 72 300 Td (Drei) Tj ET"),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
		"<< /Type /Pages /Parent 2 0 R /Kids [4 0 R 13 0 R] /Count 2 /MediaBox [0 0 400 500] /Rotate 90 /Resources << /Font << /F1 8 0 R >> >> >>",
		"<< /Type /Annot /Subtype /Widget /FT /Tx /T (gone) /V (weg) /Rect [72 100 272 120] /P 4 0 R /F 4 >>",
		"<< /Type /Annot /Subtype /Widget /FT /Tx /T (stays) /V (da) /Rect [72 100 272 120] /P 3 0 R /F 4 >>",
		"<< /Type /Annot /Subtype /Link /Rect [72 700 200 720] /Border [0 0 0] /Dest [4 0 R /XYZ 0 500 0] >>",
		"<< /Type /Page /Parent 9 0 R /Contents 7 0 R >>",
		"<< /Type /Outlines /First 15 0 R /Last 16 0 R /Count 2 >>",
		"<< /Title (Zwei) /Parent 14 0 R /Next 16 0 R /Dest [4 0 R /Fit] >>",
		"<< /Title (Drei) /Parent 14 0 R /Prev 15 0 R /A << /S /GoTo /D [13 0 R /Fit] >> >>",
		"<< /Names [(drei) [13 0 R /Fit] (zwei) [4 0 R /Fit]] >>",
		"<< /Names [(data.xml) 19 0 R] >>",
		"<< /Type /Filespec /F (data.xml) /UF (data.xml) /EF << /F 20 0 R >> >>",
		testpdf.StreamBody("/Type /EmbeddedFile", "<x/>"),
	)
}

// pageShapes lists each page's size and rotation as pdfinfo reports them.
func pageShapes(t *testing.T, pdf []byte) []string {
	t.Helper()
	info := testtool.Info(t, pdf, "-f", "1", "-l", "100")
	var out []string
	for i := 1; ; i++ {
		size, ok := info[fmt.Sprintf("Page %4d size", i)]
		if !ok {
			return out
		}
		size, _, _ = strings.Cut(size, " pts")
		out = append(out, size+" rot "+info[fmt.Sprintf("Page %4d rot", i)])
	}
}

// outline is qpdf's reading of the outline: each item's title and the page it leads to
// (0: none).
func outline(t *testing.T, pdf []byte) map[string]int {
	t.Helper()
	var q struct {
		Outlines []struct {
			Title string `json:"title"`
			Page  *int   `json:"destpageposfrom1"`
		} `json:"outlines"`
	}
	if err := json.Unmarshal([]byte(testtool.Run(t, "qpdf", "--json=2", "--json-key=outlines", testtool.File(t, "o.pdf", pdf))), &q); err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, o := range q.Outlines {
		out[o.Title] = 0
		if o.Page != nil {
			out[o.Title] = *o.Page
		}
	}
	return out
}

// firstLines is the first line of each page's text (pdftotext shows form field values
// below it).
func firstLines(t *testing.T, pdf []byte) []string {
	t.Helper()
	pages := testtool.PageTexts(t, pdf)
	for i, p := range pages {
		pages[i], _, _ = strings.Cut(p, "\n")
	}
	return pages
}

func fieldNames(t *testing.T, pdf []byte) []string {
	t.Helper()
	fields, err := mustRead(t, pdf).FormFields()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range fields {
		names = append(names, f.Name)
	}
	return names
}

// TestDeletePages: the pages left, in order; the document's information kept; nothing of
// the deleted pages in the file.
func TestDeletePages(t *testing.T) {
	in := testpdf.Make(testpdf.Options{Pages: 5, Title: "Akte"})
	out, err := DeletePages(context.Background(), in, "2,4-4")
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	if got, want := testtool.PageTexts(t, out), []string{"Page 1", "Page 3", "Page 5"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("pages %q, want %q", got, want)
	}
	if info := testtool.Info(t, out); info["Title"] != "Akte" {
		t.Errorf("title %q", info["Title"])
	}
	if !bytes.Contains(out, []byte("(Page 3)")) || bytes.Contains(out, []byte("(Page 2)")) || bytes.Contains(out, []byte("(Page 4)")) {
		t.Error("the deleted pages' content is still in the file (or the kept pages' is not)")
	}
	if mustRead(t, out).PageCount() != 3 {
		t.Error("Read does not see 3 pages")
	}
	// The last objects of the file belong to the last page: the cross-reference table
	// must not count them when they are gone.
	last, err := DeletePages(context.Background(), in, "5")
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, last)
	if got := testtool.PageTexts(t, last); len(got) != 4 || got[3] != "Page 4" {
		t.Errorf("without the last page: %q", got)
	}
}

// TestDeletePagesReferences: what pointed at a deleted page leads nowhere and does not
// keep it in the file; what pointed elsewhere still leads there; the attachment, the
// other field and the inherited page attributes stay.
func TestDeletePagesReferences(t *testing.T) {
	in := linked()
	if got := outline(t, in); !reflect.DeepEqual(got, map[string]int{"Zwei": 2, "Drei": 3}) {
		t.Fatalf("input outline %v", got)
	}
	out, err := DeletePages(context.Background(), in, "2")
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	if got, want := firstLines(t, out), []string{"Eins", "Drei"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("pages %q, want %q", got, want)
	}
	if got, want := pageShapes(t, out), []string{"595 x 842 rot 0", "400 x 500 rot 90"}; !reflect.DeepEqual(got, want) {
		t.Errorf("page shapes %q, want %q", got, want)
	}
	for _, gone := range []string{"(Zwei) Tj", "(weg)", "(zwei)"} {
		if bytes.Contains(out, []byte(gone)) {
			t.Errorf("%s is still in the file", gone)
		}
	}
	if got := outline(t, out); !reflect.DeepEqual(got, map[string]int{"Zwei": 0, "Drei": 2}) {
		t.Errorf("outline %v: Zwei should lead nowhere, Drei to page 2", got)
	}
	if got := fieldNames(t, out); !reflect.DeepEqual(got, []string{"stays"}) {
		t.Errorf("fields %v", got)
	}
	q := readQPDF(t, out)
	cat := q.catalog(t)
	if _, ok := cat["/OpenAction"]; ok {
		t.Error("the open action to the deleted page is still there")
	}
	names := q.dict(q.dict(cat["/Names"])["/Dests"])
	if got, _ := json.Marshal(names["/Names"]); !strings.Contains(string(got), "drei") || strings.Contains(string(got), "zwei") {
		t.Errorf("named destinations %s", got)
	}
	for _, a := range q.dict(q.pages[0])["/Annots"].([]any) {
		if l := q.dict(a); l["/Subtype"] == "/Link" && l["/Dest"] != nil {
			t.Errorf("the link still has its destination %v", l["/Dest"])
		}
	}
	files, err := mustRead(t, out).Attachments(1 << 20)
	if err != nil || len(files) != 1 || string(files[0].Data) != "<x/>" {
		t.Errorf("attachments %+v %v", files, err)
	}
}

func TestDeletePagesRefused(t *testing.T) {
	in := testpdf.New(3)
	for spec, code := range map[string]fault.Code{
		"1-3":   fault.InvalidPageSpec,
		"all":   fault.InvalidPageSpec,
		"3,1-2": fault.InvalidPageSpec,
		"4":     fault.InvalidPageSpec,
		"x":     fault.InvalidPageSpec,
		"3-1":   fault.InvalidPageSpec,
	} {
		if _, err := DeletePages(context.Background(), in, spec); fault.CodeOf(err) != code {
			t.Errorf("%q: %v, want %s", spec, err, code)
		}
	}
	for name, c := range badInputs(t) {
		if _, err := DeletePages(context.Background(), c.data, "1"); fault.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := DeletePages(ctx, in, "1"); fault.CodeOf(err) != fault.Canceled {
		t.Errorf("cancelled: %v", err)
	}
}

// TestReorder: the pages in the new order with their inherited attributes; bookmarks,
// fields and links follow their pages.
func TestReorder(t *testing.T) {
	out, err := Reorder(context.Background(), linked(), "3,1-2")
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	if got, want := firstLines(t, out), []string{"Drei", "Eins", "Zwei"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("pages %q, want %q", got, want)
	}
	if got, want := pageShapes(t, out), []string{"400 x 500 rot 90", "595 x 842 rot 0", "400 x 500 rot 90"}; !reflect.DeepEqual(got, want) {
		t.Errorf("page shapes %q, want %q", got, want)
	}
	if got := outline(t, out); !reflect.DeepEqual(got, map[string]int{"Zwei": 3, "Drei": 1}) {
		t.Errorf("outline %v", got)
	}
	fields, _ := mustRead(t, out).FormFields()
	pages := map[string]int{}
	for _, f := range fields {
		pages[f.Name] = f.Widgets[0].Page
	}
	if !reflect.DeepEqual(pages, map[string]int{"stays": 2, "gone": 3}) {
		t.Errorf("widget pages %v", pages)
	}

	plain, err := Reorder(context.Background(), testpdf.New(4), "4,3,2,1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := testtool.PageTexts(t, plain), []string{"Page 4", "Page 3", "Page 2", "Page 1"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("reversed %q", got)
	}
}

func TestReorderRefused(t *testing.T) {
	in := testpdf.New(5)
	for spec, want := range map[string][]string{
		"1,2,3":         {"missing: 4-5"},
		"1-5,2":         {"more than once: 2"},
		"5,4,3,1,1,3":   {"missing: 2", "more than once: 1,3"},
		"5-1":           {"backwards"},
		"1-6":           {"beyond"},
		"":              nil, // "all" in order: accepted
		"1,2,3,4,5,x,2": {"cannot read"},
	} {
		_, err := Reorder(context.Background(), in, spec)
		if want == nil {
			if err != nil {
				t.Errorf("%q: %v", spec, err)
			}
			continue
		}
		if fault.CodeOf(err) != fault.InvalidPageSpec {
			t.Errorf("%q: %v, want invalid_page_spec", spec, err)
			continue
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%q: %q does not say %q", spec, err, w)
			}
		}
	}
	for name, c := range badInputs(t) {
		if _, err := Reorder(context.Background(), c.data, "1"); fault.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
}

// TestInsertPDF: the other document's pages after the page given, with their own size;
// its bookmarks join the document's.
func TestInsertPDF(t *testing.T) {
	other, err := mustRead(t, testpdf.Make(testpdf.Options{Pages: 2, Width: 300, Height: 400})).SetOutline([]OutlineItem{{Title: "Beilage", Page: 2}})
	if err != nil {
		t.Fatal(err)
	}
	a4, small := "595 x 842 rot 0", "300 x 400 rot 0"
	for after, want := range map[int][]string{
		0: {small, small, a4, a4, a4},
		1: {a4, small, small, a4, a4},
		3: {a4, a4, a4, small, small},
	} {
		out, err := Insert(context.Background(), linked(), InsertOptions{After: after, PDF: other})
		if err != nil {
			t.Fatalf("after %d: %v", after, err)
		}
		testtool.QPDFCheck(t, out)
		texts := firstLines(t, out)
		shapes := pageShapes(t, out)
		for i := range shapes {
			shapes[i] = strings.Replace(shapes[i], "400 x 500 rot 90", a4, 1) // linked's own pages 2 and 3
		}
		if !reflect.DeepEqual(shapes, want) {
			t.Errorf("after %d: shapes %q, want %q", after, shapes, want)
		}
		if texts[after] != "Page 1" || texts[after+1] != "Page 2" {
			t.Errorf("after %d: pages %q", after, texts)
		}
		bm := outline(t, out)
		if bm["Beilage"] != after+2 || bm["Drei"] != map[int]int{0: 5, 1: 5, 3: 3}[after] {
			t.Errorf("after %d: outline %v", after, bm)
		}
		if got := fieldNames(t, out); !slices.Contains(got, "stays") || !slices.Contains(got, "gone") {
			t.Errorf("after %d: fields %v", after, got)
		}
	}
}

// TestInsertBlank: blank pages of the neighbouring page's size and rotation.
func TestInsertBlank(t *testing.T) {
	in := testpdf.Make(testpdf.Options{Pages: 2, Width: 400, Height: 300, Rotate: 90})
	for after, want := range map[int][]string{
		0: {"", "", "Page 1", "Page 2"},
		1: {"Page 1", "", "", "Page 2"},
		2: {"Page 1", "Page 2", "", ""},
	} {
		out, err := Insert(context.Background(), in, InsertOptions{After: after, Blank: 2})
		if err != nil {
			t.Fatal(err)
		}
		testtool.QPDFCheck(t, out)
		got := testtool.PageTexts(t, out)
		for len(got) < len(want) {
			got = append(got, "") // pdftotext's blank last pages
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("after %d: pages %q, want %q", after, got, want)
		}
		if got := pageShapes(t, out); !reflect.DeepEqual(got, slices.Repeat([]string{"400 x 300 rot 90"}, 4)) {
			t.Errorf("after %d: shapes %q", after, got)
		}
		mustRead(t, out)
	}
}

func TestInsertRefused(t *testing.T) {
	in, other := testpdf.New(2), testpdf.New(1)
	for name, c := range map[string]struct {
		o     InsertOptions
		code  fault.Code
		field string
	}{
		"both":         {InsertOptions{PDF: other, Blank: 1}, fault.InvalidInput, "blank"},
		"neither":      {InsertOptions{After: 1}, fault.InvalidInput, "insert"},
		"negative":     {InsertOptions{Blank: -1}, fault.InvalidInput, "blank"},
		"after beyond": {InsertOptions{After: 3, Blank: 1}, fault.InvalidPageSpec, "after"},
		"after below":  {InsertOptions{After: -1, PDF: other}, fault.InvalidPageSpec, "after"},
		"too many":     {InsertOptions{Blank: MaxPages - 1}, fault.InvalidInput, "blank"},
		"not a PDF":    {InsertOptions{PDF: []byte("nope")}, fault.InvalidPDF, "insert"},
	} {
		_, err := Insert(context.Background(), in, c.o)
		if fault.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
			continue
		}
		if f := fault.As(err).Details["field"]; f != c.field {
			t.Errorf("%s: field %v, want %s", name, f, c.field)
		}
	}
	for name, c := range badInputs(t) {
		if _, err := Insert(context.Background(), c.data, InsertOptions{Blank: 1}); fault.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
		if _, err := Insert(context.Background(), in, InsertOptions{PDF: c.data}); c.data != nil && fault.CodeOf(err) != c.code {
			t.Errorf("%s inserted: %v, want %s", name, err, c.code)
		}
	}
}

// TestToolboxKeepsInvoice: every operation keeps what hangs off the catalog of a ZUGFeRD
// invoice: its factur-x.xml byte for byte, its XMP packet with the PDF/A identification.
func TestToolboxKeepsInvoice(t *testing.T) {
	in := readCorpus(t, "zugferd/2.3-examples/3. EN16931/EN16931_Einfach/EN16931_Einfach.pdf")
	d := mustRead(t, in)
	files, err := d.Attachments(1 << 20)
	if err != nil || len(files) != 1 {
		t.Fatalf("corpus attachments %v %v", files, err)
	}
	part, _ := d.PDFA()
	n := d.PageCount()
	bg := context.Background()
	steps := map[string]func([]byte) ([]byte, error){
		"insert blank": func(b []byte) ([]byte, error) { return Insert(bg, b, InsertOptions{After: n, Blank: 1}) },
		"insert pdf":   func(b []byte) ([]byte, error) { return Insert(bg, b, InsertOptions{After: 0, PDF: testpdf.New(1)}) },
		"reorder": func(b []byte) ([]byte, error) {
			b, err := Insert(bg, b, InsertOptions{After: n, Blank: 1})
			if err != nil {
				return nil, err
			}
			return Reorder(bg, b, strconv.Itoa(n+1)+",1-"+strconv.Itoa(n))
		},
		"delete": func(b []byte) ([]byte, error) {
			b, err := Insert(bg, b, InsertOptions{After: 0, Blank: 2})
			if err != nil {
				return nil, err
			}
			return DeletePages(bg, b, "1-2")
		},
		"stamp":        func(b []byte) ([]byte, error) { return Stamp(bg, b, StampOptions{Text: "Bezahlt", Rotation: 30}) },
		"watermark":    func(b []byte) ([]byte, error) { return Stamp(bg, b, StampOptions{Image: stampPDF(0), Under: true}) },
		"page numbers": func(b []byte) ([]byte, error) { return NumberPages(bg, b, PageNumberOptions{}) },
		"flatten":      func(b []byte) ([]byte, error) { return Flatten(bg, b, FlattenOptions{Annotations: true}) },
	}
	for name, step := range steps {
		t.Run(name, func(t *testing.T) {
			out, err := step(in)
			if err != nil {
				t.Fatal(err)
			}
			testtool.QPDFCheck(t, out)
			d := mustRead(t, out)
			got, err := d.Attachments(1 << 20)
			if err != nil || len(got) != 1 || got[0].Name != files[0].Name || !bytes.Equal(got[0].Data, files[0].Data) {
				t.Errorf("attachments %v %v", got, err)
			}
			if p, _ := d.PDFA(); p != part {
				t.Errorf("PDF/A part %d, was %d", p, part)
			}
			if text := strings.ToLower(testtool.Text(t, out)); !strings.Contains(text, "rechnung") {
				t.Errorf("the invoice's text is gone:\n%s", text)
			}
		})
	}
}
