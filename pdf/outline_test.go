package pdf

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

// qpdfOutline is an entry of qpdf --json's outlines.
type qpdfOutline struct {
	Title string        `json:"title"`
	Page  int           `json:"destpageposfrom1"`
	Open  bool          `json:"open"`
	Kids  []qpdfOutline `json:"kids"`
}

func qpdfOutlines(t *testing.T, pdf []byte) []qpdfOutline {
	t.Helper()
	out := testtool.Run(t, "qpdf", "--json", "--json-key=outlines", testtool.File(t, "outline.pdf", pdf))
	var v struct{ Outlines []qpdfOutline }
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("qpdf --json: %v", err)
	}
	return v.Outlines
}

// asQPDF is the outline as qpdf reports it: titles, pages and nesting.
func asQPDF(bms []Bookmark) []qpdfOutline {
	out := []qpdfOutline{}
	for _, bm := range bms {
		kids := asQPDF(bm.Children)
		// Every entry shows open: qpdf takes an entry without /Count for open too.
		out = append(out, qpdfOutline{Title: bm.Title, Page: bm.Page, Open: true, Kids: kids})
	}
	return out
}

func sampleBookmarks() []Bookmark {
	return []Bookmark{
		{Title: "Einführung und Überblick", Page: 1, Bold: true, Children: []Bookmark{
			{Title: "Grüße aus Köln", Page: 1, Color: "#FF0000"},
			{Title: "Ελληνικά και русский", Page: 2, Italic: true, Children: []Bookmark{
				{Title: "日本語の見出し", Page: 2, Bold: true, Italic: true, Color: "#0080FF"},
			}},
		}},
		{Title: "Kapitel (2) \\ Anhang", Page: 4},
		{Title: "Schluss", Page: 3, Color: "#000000"},
	}
}

func TestSetBookmarksRoundTrip(t *testing.T) {
	src := testpdf.New(4)
	none, err := Bookmarks(context.Background(), src)
	if err != nil || none == nil || len(none) != 0 {
		t.Fatalf("no outline: %#v %v", none, err)
	}
	want := sampleBookmarks()
	out, err := SetBookmarks(context.Background(), src, want, true)
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	got, err := Bookmarks(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back\n%#v\nwant\n%#v", got, want)
	}
	if q := qpdfOutlines(t, out); !reflect.DeepEqual(q, asQPDF(want)) {
		t.Fatalf("qpdf sees\n%+v\nwant\n%+v", q, asQPDF(want))
	}
	// The pages are as they were.
	if got := testtool.PageTexts(t, out); !slices.Equal(got, []string{"Page 1", "Page 2", "Page 3", "Page 4"}) {
		t.Fatalf("pages %q", got)
	}
	// Replacing drops the old entries; an empty replacement removes the outline.
	repl := []Bookmark{{Title: "Neu", Page: 2}}
	out2, err := SetBookmarks(context.Background(), out, repl, true)
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out2)
	if q := qpdfOutlines(t, out2); !reflect.DeepEqual(q, asQPDF(repl)) {
		t.Fatalf("after replace qpdf sees %+v", q)
	}
	out3, err := SetBookmarks(context.Background(), out2, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out3)
	if q := qpdfOutlines(t, out3); len(q) != 0 {
		t.Fatalf("after removal qpdf sees %+v", q)
	}
	if bms, err := Bookmarks(context.Background(), out3); err != nil || len(bms) != 0 {
		t.Fatalf("after removal: %v %v", bms, err)
	}
}

// objectsPDF writes objects (by number) with a cross-reference section of one subsection each.
func objectsPDF(objs map[int]string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n")
	var nums []int
	for n := range objs {
		nums = append(nums, n)
	}
	slices.Sort(nums)
	offsets := map[int]int{}
	for _, n := range nums {
		offsets[n] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, objs[n])
	}
	x := b.Len()
	b.WriteString("xref\n0 1\n0000000000 65535 f \n")
	for _, n := range nums {
		fmt.Fprintf(&b, "%d 1\n%010d 00000 n \n", n, offsets[n])
	}
	fmt.Fprintf(&b, "trailer\n<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n", nums[len(nums)-1]+1, x)
	return b.Bytes()
}

// outlinePDF is a three-page PDF whose catalog has extra entries and whose outline is
// given as objects from 20 on (20 the outline root).
func outlinePDF(catalog string, outline map[int]string) []byte {
	objs := map[int]string{
		1: "<</Type/Catalog/Pages 2 0 R/Outlines 20 0 R" + catalog + ">>",
		2: "<</Type/Pages/Kids[4 0 R 6 0 R 8 0 R]/Count 3>>",
		3: "<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>",
	}
	for i := range 3 {
		objs[4+2*i] = fmt.Sprintf("<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]/Resources<</Font<</F1 3 0 R>>>>/Contents %d 0 R>>", 5+2*i)
		content := fmt.Sprintf("BT /F1 24 Tf 72 700 Td (Page %d) Tj ET", i+1)
		objs[5+2*i] = fmt.Sprintf("<</Length %d>>\nstream\n%s\nendstream", len(content), content)
	}
	for n, o := range outline {
		objs[n] = o
	}
	return objectsPDF(objs)
}

// An outline another tool wrote, with every kind of destination: an array, a named
// destination in the name tree (through a GoTo action) and in the catalog's /Dests, a
// destination dictionary, a link that goes to no page; styles and colours.
func handmadeOutline() []byte {
	return outlinePDF("/Names<</Dests 30 0 R>>/Dests<</drei[8 0 R/Fit]/vier 31 0 R>>", map[int]string{
		20: "<</Type/Outlines/First 21 0 R/Last 25 0 R/Count 5>>",
		21: "<</Title(Erstes)/Parent 20 0 R/Next 22 0 R/Dest[4 0 R/XYZ 0 842 0]/F 2/C[1 0 0]>>",
		22: "<</Title<FEFF00DC0062006500720020006A0061>/Parent 20 0 R/Prev 21 0 R/Next 23 0 R/A<</S/GoTo/D(zwei)>>/First 24 0 R/Last 24 0 R/Count 1>>",
		23: "<</Title(Drittes)/Parent 20 0 R/Prev 22 0 R/Next 25 0 R/Dest/drei/F 1>>",
		24: "<</Title(Unter zwei)/Parent 22 0 R/Dest/vier/C[0 0.5 1]>>",
		25: "<</Title(Link)/Parent 20 0 R/Prev 23 0 R/A<</S/URI/URI(https://example.org)>>>>",
		30: "<</Names[(zwei)[6 0 R/Fit]]>>",
		31: "<</D[6 0 R/FitH 800]>>",
	})
}

func TestBookmarksOfAnotherTool(t *testing.T) {
	data := handmadeOutline()
	testtool.QPDFCheck(t, data)
	got, err := Bookmarks(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	want := []Bookmark{
		{Title: "Erstes", Page: 1, Bold: true, Color: "#FF0000"},
		{Title: "Über ja", Page: 2, Children: []Bookmark{{Title: "Unter zwei", Page: 2, Color: "#0080FF"}}},
		{Title: "Drittes", Page: 3, Italic: true},
		{Title: "Link", Page: 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%#v\nwant\n%#v", got, want)
	}
	// qpdf agrees on titles and pages (it has no page for the link either, nor for a
	// destination dictionary in the catalog's /Dests, which it does not follow).
	q := qpdfOutlines(t, data)
	if len(q) != 4 || q[1].Title != "Über ja" || q[1].Page != 2 || q[2].Page != 3 || q[1].Kids[0].Title != "Unter zwei" || q[3].Page != 0 {
		t.Fatalf("qpdf: %+v", q)
	}

	// Appending keeps the entries there are and adds after them.
	add := []Bookmark{{Title: "Anhang", Page: 3, Children: []Bookmark{{Title: "Anlage 1", Page: 3}}}}
	out, err := SetBookmarks(context.Background(), data, add, false)
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	got, err = Bookmarks(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, append(slices.Clone(want), add...)) {
		t.Fatalf("after append\n%#v", got)
	}
	q = qpdfOutlines(t, out)
	if len(q) != 5 || q[4].Title != "Anhang" || q[4].Kids[0].Title != "Anlage 1" || q[0].Title != "Erstes" {
		t.Fatalf("qpdf after append: %+v", q)
	}
	// The root's /Count is what a viewer shows: the five top-level entries, the open
	// entry's child and the new child.
	if !strings.Contains(testtool.Run(t, "qpdf", "--show-object=20", testtool.File(t, "out.pdf", out)), "/Count 7") {
		t.Fatal(testtool.Run(t, "qpdf", "--show-object=20", testtool.File(t, "out.pdf", out)))
	}
	// Replacing drops them.
	out, err = SetBookmarks(context.Background(), data, add, true)
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	if got, _ := Bookmarks(context.Background(), out); !reflect.DeepEqual(got, add) {
		t.Fatalf("after replace %#v", got)
	}
}

// Outlines whose lists run back into themselves end there, or pdfcpu drops them while
// reading; nothing hangs.
func TestBookmarksCycles(t *testing.T) {
	for name, items := range map[string]map[int]string{
		"next cycle": {
			20: "<</Type/Outlines/First 21 0 R/Last 22 0 R>>",
			21: "<</Title(A)/Parent 20 0 R/Next 22 0 R/Dest[4 0 R/Fit]>>",
			22: "<</Title(B)/Parent 20 0 R/Next 21 0 R/Dest[6 0 R/Fit]>>",
		},
		"first is itself": {
			20: "<</Type/Outlines/First 21 0 R/Last 22 0 R>>",
			21: "<</Title(A)/Parent 20 0 R/First 21 0 R/Next 22 0 R/Dest[4 0 R/Fit]>>",
			22: "<</Title(B)/Parent 20 0 R/Dest[6 0 R/Fit]>>",
		},
		"first is the parent's sibling": {
			20: "<</Type/Outlines/First 21 0 R/Last 22 0 R>>",
			21: "<</Title(A)/Parent 20 0 R/First 23 0 R/Next 22 0 R/Dest[4 0 R/Fit]>>",
			22: "<</Title(B)/Parent 20 0 R/Dest[6 0 R/Fit]/First 21 0 R>>",
			23: "<</Title(A1)/Parent 21 0 R/Next 22 0 R/Dest[8 0 R/Fit]>>",
		},
	} {
		t.Run(name, func(t *testing.T) {
			data := outlinePDF("", items)
			done := make(chan struct{})
			var got []Bookmark
			var err error
			go func() {
				defer close(done)
				if got, err = Bookmarks(context.Background(), data); err != nil {
					return
				}
				// Appending walks the list to its end.
				var out []byte
				if out, err = SetBookmarks(context.Background(), data, []Bookmark{{Title: "C", Page: 3}}, false); err == nil {
					_, err = Bookmarks(context.Background(), out)
				}
			}()
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				t.Fatal("hangs")
			}
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			var count func([]Bookmark)
			count = func(bms []Bookmark) {
				for _, b := range bms {
					n++
					count(b.Children)
				}
			}
			count(got)
			if n > 3 || n > 0 && got[0].Title != "A" {
				t.Fatalf("%#v", got)
			}
		})
	}
}

func TestSetBookmarksRefuses(t *testing.T) {
	src := testpdf.New(3)
	for name, c := range map[string]struct {
		bms   []Bookmark
		code  fault.Code
		field string
	}{
		"page beyond":      {[]Bookmark{{Title: "A", Page: 1, Children: []Bookmark{{Title: "Zu weit", Page: 4}}}}, fault.InvalidPageSpec, "[0].children[0].page"},
		"page 0":           {[]Bookmark{{Title: "A", Page: 0}}, fault.InvalidInput, "[0].page"},
		"empty title":      {[]Bookmark{{Title: "A", Page: 1}, {Title: " ", Page: 1}}, fault.InvalidInput, "[1].title"},
		"line break":       {[]Bookmark{{Title: "A\nB", Page: 1}}, fault.InvalidInput, "[0].title"},
		"long title":       {[]Bookmark{{Title: strings.Repeat("ü", 1001), Page: 1}}, fault.InvalidInput, "[0].title"},
		"color":            {[]Bookmark{{Title: "A", Page: 1, Color: "red"}}, fault.InvalidInput, "[0].color"},
		"too deep":         {deepBookmarks(33), fault.InvalidInput, strings.Repeat("[0].children", 32)},
		"too many entries": {manyBookmarks(MaxBookmarks + 1), fault.InvalidInput, fmt.Sprintf("[%d]", MaxBookmarks)},
	} {
		_, err := SetBookmarks(context.Background(), src, c.bms, true)
		e := fault.As(err)
		if e == nil || e.Code != c.code || e.Details["field"] != c.field {
			t.Fatalf("%s: %v (%+v)", name, err, e)
		}
		if c.code == fault.InvalidPageSpec && !strings.Contains(err.Error(), "Zu weit") {
			t.Fatalf("%s: the message does not name the bookmark: %v", name, err)
		}
	}
	// The deepest and the most entries allowed are taken.
	if _, err := SetBookmarks(context.Background(), src, deepBookmarks(32), true); err != nil {
		t.Fatal(err)
	}
	_, err := SetBookmarks(context.Background(), []byte("kein PDF"), []Bookmark{{Title: "A", Page: 1}}, true)
	expectFault(t, err, fault.InvalidPDF)
	_, err = Bookmarks(context.Background(), src[:len(src)/3])
	expectFault(t, err, fault.InvalidPDF)
	// Appending nothing leaves the file as it was.
	if out, err := SetBookmarks(context.Background(), src, nil, false); err != nil || !bytes.Equal(out, src) {
		t.Fatalf("append nothing: %v", err)
	}
}

func deepBookmarks(depth int) []Bookmark {
	bms := []Bookmark{{Title: "Ebene", Page: 1}}
	for range depth - 1 {
		bms = []Bookmark{{Title: "Ebene", Page: 1, Children: bms}}
	}
	return bms
}

func manyBookmarks(n int) []Bookmark {
	bms := make([]Bookmark, n)
	for i := range bms {
		bms[i] = Bookmark{Title: fmt.Sprint("Eintrag ", i), Page: 1}
	}
	return bms
}

func TestSetBookmarksMany(t *testing.T) {
	bms := manyBookmarks(MaxBookmarks)
	out, err := SetBookmarks(context.Background(), testpdf.New(2), bms, true)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Bookmarks(context.Background(), out)
	if err != nil || !reflect.DeepEqual(got, bms) {
		t.Fatalf("%d read back: %v", len(got), err)
	}
}

func TestParseBookmarks(t *testing.T) {
	in := `[{"title":"Einführung","page":1,"bold":true,"color":"#ff8000","children":[
		{"title":"日本語","page":2,"italic":true,"children":null},
		{"title":"Leer","page":3,"children":[],"color":null,"bold":null}]},
		{"title":"Zwei","page":4}]`
	got, err := ParseBookmarks([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Bookmark{
		{Title: "Einführung", Page: 1, Bold: true, Color: "#FF8000", Children: []Bookmark{
			{Title: "日本語", Page: 2, Italic: true},
			{Title: "Leer", Page: 3},
		}},
		{Title: "Zwei", Page: 4},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %#v", got)
	}
	// What Bookmark marshals to parses back.
	b, _ := json.Marshal(sampleBookmarks())
	if got, err := ParseBookmarks(b); err != nil || !reflect.DeepEqual(got, sampleBookmarks()) {
		t.Fatalf("marshalled tree: %v", err)
	}
	if got, err := ParseBookmarks([]byte(" [ ] ")); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("empty list: %#v %v", got, err)
	}
}

func TestParseBookmarksRefuses(t *testing.T) {
	deep := strings.Repeat(`[{"title":"a","page":1,"children":`, 33) + "[]" + strings.Repeat("}]", 33)
	var many strings.Builder
	many.WriteString("[")
	for i := range MaxBookmarks + 1 {
		if i > 0 {
			many.WriteString(",")
		}
		many.WriteString(`{"title":"x","page":1}`)
	}
	many.WriteString("]")
	for _, c := range []struct {
		in, field, msg string
	}{
		{`[{"title":"a","page":1,"Title":"b"}]`, "[0].Title", `unknown key "Title"`},
		{`[{"title":"a","page":1},{"title":"b","page":2,"children":[{"title":"c","page":1,"url":"x"}]}]`, "[1].children[0].url", "unknown key"},
		{`[{"title":"a","title":"b","page":1}]`, "[0].title", "given twice"},
		{`[{"title":"a"}]`, "[0].page", "page is missing"},
		{`[{"page":1}]`, "[0].title", "title is missing"},
		{`[{"title":1,"page":1}]`, "[0].title", "want a string, got a number"},
		{`[{"title":"a","page":"1"}]`, "[0].page", "want a number, got a string"},
		{`[{"title":"a","page":1.5}]`, "[0].page", "whole page number"},
		{`[{"title":"a","page":1e40}]`, "[0].page", "whole page number"},
		{`[{"title":"a","page":-1}]`, "[0].page", "1 or more"},
		{`[{"title":"a","page":null}]`, "[0].page", "want a number, got null"},
		{`[{"title":"a","page":1,"bold":"yes"}]`, "[0].bold", "true or false"},
		{`[{"title":"a","page":1,"color":"#12345"}]`, "[0].color", "#RRGGBB"},
		{`[{"title":"a","page":1,"color":"#GGGGGG"}]`, "[0].color", "#RRGGBB"},
		{`[{"title":"a","page":1,"children":{}}]`, "[0].children", "want a list"},
		{`[{"title":"a\tb","page":1}]`, "[0].title", "control characters"},
		{`[{"title":"` + strings.Repeat("ß", 1001) + `","page":1}]`, "[0].title", "1001 characters"},
		{`[1]`, "[0]", "want an object"},
		{`{"title":"a","page":1}`, "", "want a list"},
		{`null`, "", "want a list"},
		{`[{"title":"a","page":1}] []`, "", "after the list"},
		{`[{"title":"a","page":1}`, "", "ends early"},
		{`[{"title":"a","page":1,}]`, "[0]", "invalid JSON"},
		{``, "", "ends early"},
		{deep, strings.Repeat("[0].children", 32), "more than 32 levels"},
		{many.String(), fmt.Sprintf("[%d]", MaxBookmarks), "more than 10000"},
	} {
		_, err := ParseBookmarks([]byte(c.in))
		e := fault.As(err)
		if e == nil || e.Code != fault.InvalidInput || e.Details["field"] != c.field || !strings.Contains(e.Message, c.msg) {
			in := c.in
			if len(in) > 80 {
				in = in[:80]
			}
			t.Errorf("%s: %v (field %v), want field %q and %q", in, err, e.Details["field"], c.field, c.msg)
		}
	}
	_, err := ParseBookmarks(bytes.Repeat([]byte(" "), maxBookmarksBytes+1))
	expectFault(t, err, fault.PayloadTooLarge)
}

func FuzzParseBookmarks(f *testing.F) {
	b, _ := json.Marshal(sampleBookmarks())
	f.Add(b)
	f.Add([]byte(`[{"title":"a","page":1,"children":[{"title":"b","page":2,"children":null}]}]`))
	f.Add([]byte(`[{"title":"a","page":1,"color":"#abcdef","bold":true,"italic":false}]`))
	f.Add([]byte(`[{"title":"a","page":1,"x":[1,{"y":2}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		bms, err := ParseBookmarks(data)
		if err != nil {
			if c := fault.CodeOf(err); c != fault.InvalidInput && c != fault.PayloadTooLarge {
				t.Fatalf("code %s: %v", c, err)
			}
			return
		}
		// What parses is valid, and parses again to itself once written.
		if err := checkBookmarks(bms); err != nil {
			t.Fatalf("parsed but invalid: %v", err)
		}
		again, err := json.Marshal(bms)
		if err != nil {
			t.Fatal(err)
		}
		bms2, err := ParseBookmarks(again)
		if err != nil || !reflect.DeepEqual(bms, bms2) {
			t.Fatalf("round trip: %v\n%#v\n%#v", err, bms, bms2)
		}
	})
}

// The reader's own guards, on cycles made after pdfcpu has read and repaired the file.
func TestOutlineReaderCycles(t *testing.T) {
	for name, mangle := range map[string]func(items map[int]types.Dict){
		"next to itself":      func(it map[int]types.Dict) { it[23]["Next"] = *types.NewIndirectRef(23, 0) },
		"next to the first":   func(it map[int]types.Dict) { it[25]["Next"] = *types.NewIndirectRef(21, 0) },
		"first to the parent": func(it map[int]types.Dict) { it[24]["First"] = *types.NewIndirectRef(22, 0) },
		"first to the root's": func(it map[int]types.Dict) { it[24]["First"] = *types.NewIndirectRef(21, 0) },
	} {
		t.Run(name, func(t *testing.T) {
			d := mustRead(t, handmadeOutline())
			items := map[int]types.Dict{}
			for n := 21; n <= 25; n++ {
				dict, err := d.ctx.DereferenceDict(*types.NewIndirectRef(n, 0))
				if err != nil || dict == nil {
					t.Fatalf("item %d: %v", n, err)
				}
				items[n] = dict
			}
			mangle(items)
			bms, err := d.bookmarks()
			if err != nil {
				t.Fatal(err)
			}
			titles := []string{}
			var walk func([]Bookmark)
			walk = func(bms []Bookmark) {
				for _, b := range bms {
					titles = append(titles, b.Title)
					walk(b.Children)
				}
			}
			walk(bms)
			// Every item once at most, in reading order.
			if len(titles) > 5 || titles[0] != "Erstes" {
				t.Fatalf("titles %q", titles)
			}
			cat, _ := d.ctx.Catalog()
			root, _ := d.ctx.DereferenceDict(cat["Outlines"])
			if _, last := d.lastItem(root); last == nil {
				t.Fatal("no last item")
			}
			if n := d.visible(root["First"], map[int]bool{}); n < 1 || n > 5 {
				t.Fatalf("visible %d", n)
			}
		})
	}
}
