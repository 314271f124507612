package pdf

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/fault"
)

// Bookmark is an entry of a document's outline (ISO 32000-2, 12.3.3).
type Bookmark struct {
	Title string `json:"title"`
	// Page is the page the entry goes to, from 1; 0 when it goes nowhere in the document
	// (a link, a script, a destination that names no page).
	Page     int        `json:"page"`
	Bold     bool       `json:"bold,omitempty"`
	Italic   bool       `json:"italic,omitempty"`
	Color    string     `json:"color,omitempty"` // #RRGGBB
	Children []Bookmark `json:"children,omitempty"`
}

// Limits of an outline: the bookmarks of the largest manuals stay far below them, and
// each entry costs a few objects.
const (
	MaxBookmarks      = 10_000
	MaxBookmarkDepth  = 32
	MaxBookmarkTitle  = 1000 // characters
	maxBookmarksBytes = 16 << 20
)

// Bookmarks returns the document's outline as a tree; a document without one has an empty
// list. A list whose /Next or /First runs back into itself ends where it does.
func Bookmarks(ctx context.Context, data []byte) (bms []Bookmark, err error) {
	if ctx.Err() != nil {
		return nil, fault.FromContext(ctx, "the bookmarks were not read")
	}
	d, err := ReadToRead(data) // only read: a defect viewers read past is no reason to refuse
	if err != nil {
		return nil, err
	}
	defer recoverInto(&err, "bookmarks")
	return d.bookmarks()
}

func (d *Doc) bookmarks() ([]Bookmark, error) {
	cat, err := d.ctx.Catalog()
	if err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "the PDF has no readable catalog")
	}
	root, _ := d.ctx.DereferenceDict(cat["Outlines"])
	if root == nil {
		return []Bookmark{}, nil
	}
	w := &outlineReader{d: d, pages: d.pageNumbers(), seen: map[int]bool{}}
	return w.list(root["First"], 1)
}

// outlineReader reads outline items, each object once.
type outlineReader struct {
	d     *Doc
	pages map[int]int // page object number -> page number
	seen  map[int]bool
	n     int
	names map[string]types.Object // named destinations, read when first needed
}

func (w *outlineReader) list(o types.Object, depth int) ([]Bookmark, error) {
	out := []Bookmark{}
	for o != nil {
		if ref, ok := o.(types.IndirectRef); ok {
			if w.seen[ref.ObjectNumber.Value()] {
				break
			}
			w.seen[ref.ObjectNumber.Value()] = true
		}
		item, err := w.d.ctx.DereferenceDict(o)
		if err != nil || item == nil {
			break
		}
		if depth > MaxBookmarkDepth {
			return nil, fault.New(fault.Unprocessable, "the PDF's outline is nested more than %d levels deep", MaxBookmarkDepth)
		}
		if w.n++; w.n > MaxBookmarks {
			return nil, fault.New(fault.Unprocessable, "the PDF's outline has more than %d entries", MaxBookmarks)
		}
		bm := Bookmark{Title: cleanTitle(w.d.text(item["Title"])), Page: w.page(item)}
		if f, err := w.d.ctx.DereferenceInteger(item["F"]); err == nil && f != nil {
			bm.Italic, bm.Bold = f.Value()&1 != 0, f.Value()&2 != 0
		}
		bm.Color = w.color(item["C"])
		if bm.Children, err = w.list(item["First"], depth+1); err != nil {
			return nil, err
		}
		if len(bm.Children) == 0 {
			bm.Children = nil
		}
		out = append(out, bm)
		o = item["Next"]
	}
	return out, nil
}

// cleanTitle makes a title one line: viewers show it so.
func cleanTitle(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s))
}

func (w *outlineReader) color(o types.Object) string {
	arr, err := w.d.ctx.DereferenceArray(o)
	if err != nil || len(arr) != 3 {
		return ""
	}
	var c [3]int
	for i, v := range arr {
		var f float64
		switch v := v.(type) {
		case types.Integer:
			f = float64(v)
		case types.Float:
			f = float64(v)
		default:
			return ""
		}
		c[i] = int(math.Round(min(max(f, 0), 1) * 255))
	}
	return fmt.Sprintf("#%02X%02X%02X", c[0], c[1], c[2])
}

// page is the page an item's /Dest or GoTo action goes to, or 0.
func (w *outlineReader) page(item types.Dict) int {
	dest := item["Dest"]
	if dest == nil {
		a, _ := w.d.ctx.DereferenceDict(item["A"])
		if a == nil || a.NameEntry("S") == nil || *a.NameEntry("S") != "GoTo" {
			return 0
		}
		dest = a["D"]
	}
	for range 4 { // a name to an array or a dictionary with /D
		o, err := w.d.ctx.Dereference(dest)
		if err != nil {
			return 0
		}
		switch v := o.(type) {
		case types.Array:
			if len(v) == 0 {
				return 0
			}
			if ref, ok := v[0].(types.IndirectRef); ok {
				return w.pages[ref.ObjectNumber.Value()]
			}
			return 0
		case types.Dict:
			dest = v["D"]
		case types.Name:
			dest = w.named(string(v))
		case types.StringLiteral, types.HexLiteral:
			dest = w.named(w.d.text(v))
		default:
			return 0
		}
	}
	return 0
}

// named looks a named destination up in the catalog's /Dests (PDF 1.1) and the /Dests
// name tree.
func (w *outlineReader) named(name string) types.Object {
	if w.names == nil {
		w.names = map[string]types.Object{}
		cat, err := w.d.ctx.Catalog()
		if err != nil {
			return nil
		}
		if dests, _ := w.d.ctx.DereferenceDict(cat["Dests"]); dests != nil {
			for k, v := range dests {
				w.names[k] = v
			}
		}
		if names, _ := w.d.ctx.DereferenceDict(cat["Names"]); names != nil {
			w.nameTree(names["Dests"], 0, map[int]bool{})
		}
	}
	return w.names[name]
}

func (w *outlineReader) nameTree(o types.Object, depth int, seen map[int]bool) {
	if ref, ok := o.(types.IndirectRef); ok {
		if seen[ref.ObjectNumber.Value()] {
			return
		}
		seen[ref.ObjectNumber.Value()] = true
	}
	node, _ := w.d.ctx.DereferenceDict(o)
	if node == nil || depth > 64 {
		return
	}
	if arr, _ := w.d.ctx.DereferenceArray(node["Names"]); arr != nil {
		for i := 0; i+1 < len(arr); i += 2 {
			if k := w.d.text(arr[i]); k != "" {
				if _, dup := w.names[k]; !dup {
					w.names[k] = arr[i+1]
				}
			}
		}
	}
	kids, _ := w.d.ctx.DereferenceArray(node["Kids"])
	for _, k := range kids {
		w.nameTree(k, depth+1, seen)
	}
}

// SetBookmarks returns the document with bms as its outline: in place of the outline it
// has with replace, else after its top-level entries. Entries go to the top of their page
// with the page fitted in the window, and show open. An empty bms with replace removes the
// outline. A page the document lacks is fault.InvalidPageSpec naming the bookmark.
func SetBookmarks(ctx context.Context, data []byte, bms []Bookmark, replace bool) (out []byte, err error) {
	if ctx.Err() != nil {
		return nil, fault.FromContext(ctx, "the bookmarks were not set")
	}
	if err := checkBookmarks(bms); err != nil {
		return nil, err
	}
	d, err := Read(data)
	if err != nil {
		return nil, err
	}
	if err := pagesExist(bms, "", d.PageCount()); err != nil {
		return nil, err
	}
	if len(bms) == 0 && !replace {
		return data, nil
	}
	defer recoverInto(&err, "set bookmarks")
	c := d.ctx
	cat, err := c.Catalog()
	if err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "the PDF has no readable catalog")
	}
	root, _ := c.DereferenceDict(cat["Outlines"])
	if replace && root != nil {
		d.freeOutline(root)
		delete(root, "First")
		delete(root, "Last")
		delete(root, "Count")
	}
	if len(bms) == 0 {
		if r, ok := cat["Outlines"].(types.IndirectRef); ok {
			c.FreeObject(r.ObjectNumber.Value())
		}
		delete(cat, "Outlines")
		return write(c)
	}
	w := outlineWriter{c: c, pages: map[int]types.IndirectRef{}}
	for i := 1; i <= c.PageCount; i++ {
		if _, ref, _, err := c.PageDict(i, false); err == nil && ref != nil {
			w.pages[i] = *ref
		}
	}
	rootRef, isRef := cat["Outlines"].(types.IndirectRef)
	if root == nil || !isRef {
		if root == nil {
			root = types.Dict{"Type": types.Name("Outlines")}
		}
		ref, err := c.IndRefForNewObject(root)
		if err != nil {
			return nil, fault.Wrap(fault.Internal, err, "the outline cannot be made")
		}
		rootRef = *ref
		cat["Outlines"] = rootRef
	}
	first, last, err := w.items(bms, rootRef)
	if err != nil {
		return nil, err
	}
	if lastRef, lastItem := d.lastItem(root); lastItem != nil {
		lastItem["Next"] = first
		w.dicts[first.ObjectNumber.Value()]["Prev"] = lastRef
	} else {
		root["First"] = first
	}
	root["Last"] = last
	root["Count"] = types.Integer(d.visible(root["First"], map[int]bool{}))
	return write(c)
}

// lastItem is the last top-level item of the outline root, following /Next as readers do.
func (d *Doc) lastItem(root types.Dict) (types.IndirectRef, types.Dict) {
	var ref types.IndirectRef
	var last types.Dict
	seen := map[int]bool{}
	for o := root["First"]; o != nil; {
		r, ok := o.(types.IndirectRef)
		if !ok || seen[r.ObjectNumber.Value()] {
			break
		}
		seen[r.ObjectNumber.Value()] = true
		item, err := d.ctx.DereferenceDict(r)
		if err != nil || item == nil {
			break
		}
		ref, last = r, item
		o = item["Next"]
	}
	return ref, last
}

// visible counts the items a viewer shows of the list from o: each item, and the
// children of the open ones (a positive /Count).
func (d *Doc) visible(o types.Object, seen map[int]bool) int {
	n := 0
	for o != nil {
		r, ok := o.(types.IndirectRef)
		if !ok || seen[r.ObjectNumber.Value()] {
			break
		}
		seen[r.ObjectNumber.Value()] = true
		item, err := d.ctx.DereferenceDict(r)
		if err != nil || item == nil {
			break
		}
		n++
		if c, err := d.ctx.DereferenceInteger(item["Count"]); err == nil && c != nil && c.Value() > 0 {
			n += d.visible(item["First"], seen)
		}
		o = item["Next"]
	}
	return n
}

// freeOutline frees the objects of the outline being replaced, so that the table pdfcpu
// writes does not count objects the file no longer has.
func (d *Doc) freeOutline(root types.Dict) {
	if root == nil {
		return
	}
	seen := map[int]bool{}
	var free func(o types.Object, depth int)
	free = func(o types.Object, depth int) {
		for o != nil && depth <= MaxBookmarkDepth {
			r, ok := o.(types.IndirectRef)
			if !ok || seen[r.ObjectNumber.Value()] {
				return
			}
			seen[r.ObjectNumber.Value()] = true
			item, err := d.ctx.DereferenceDict(r)
			if err != nil || item == nil {
				return
			}
			free(item["First"], depth+1)
			o = item["Next"]
			d.ctx.FreeObject(r.ObjectNumber.Value())
		}
	}
	free(root["First"], 0)
}

type outlineWriter struct {
	c     *model.Context
	pages map[int]types.IndirectRef
	dicts map[int]types.Dict // the items written, by object number
}

// items writes bms as a list under parent and returns its first and last item.
func (w *outlineWriter) items(bms []Bookmark, parent types.IndirectRef) (first, last types.IndirectRef, err error) {
	if w.dicts == nil {
		w.dicts = map[int]types.Dict{}
	}
	var prev types.Dict
	for i, bm := range bms {
		item := types.Dict{
			"Title":  pdfText(bm.Title),
			"Parent": parent,
			"Dest":   types.Array{w.pages[bm.Page], types.Name("Fit")},
		}
		if f := bookmarkFlags(bm); f != 0 {
			item["F"] = types.Integer(f)
		}
		if bm.Color != "" {
			rgb, _ := strconv.ParseUint(bm.Color[1:], 16, 32)
			item["C"] = types.Array{colorPart(rgb >> 16), colorPart(rgb >> 8), colorPart(rgb)}
		}
		ref, err := w.c.IndRefForNewObject(item)
		if err != nil {
			return first, last, fault.Wrap(fault.Internal, err, "the outline cannot be made")
		}
		w.dicts[ref.ObjectNumber.Value()] = item
		if i == 0 {
			first = *ref
		} else {
			prev["Next"] = *ref
			item["Prev"] = last
		}
		if len(bm.Children) > 0 {
			f, l, err := w.items(bm.Children, *ref)
			if err != nil {
				return first, last, err
			}
			item["First"], item["Last"] = f, l
			item["Count"] = types.Integer(openCount(bm.Children))
		}
		prev, last = item, *ref
	}
	return first, last, nil
}

func bookmarkFlags(bm Bookmark) int {
	f := 0
	if bm.Italic {
		f |= 1
	}
	if bm.Bold {
		f |= 2
	}
	return f
}

func colorPart(v uint64) types.Float {
	return types.Float(math.Round(float64(v&0xff)/255*10000) / 10000)
}

// openCount is the number of items shown under an open item with children bms.
func openCount(bms []Bookmark) int {
	n := len(bms)
	for _, bm := range bms {
		n += openCount(bm.Children)
	}
	return n
}

// ParseBookmarks reads a JSON array of bookmarks (the shape of Bookmark) strictly: an
// unknown or repeated key, a value of the wrong type, a missing title or page, a page
// below 1, a color not written #RRGGBB or a title longer than MaxBookmarkTitle characters
// or with control characters is fault.InvalidInput naming where it is (details "field",
// e.g. "[2].children[0].page"). So are more than MaxBookmarks entries or nesting deeper
// than MaxBookmarkDepth. Whether the pages exist is SetBookmarks' to check. null children,
// color, bold or italic count as absent.
func ParseBookmarks(data []byte) ([]Bookmark, error) {
	if len(data) > maxBookmarksBytes {
		return nil, fault.New(fault.PayloadTooLarge, "the bookmarks are %d bytes of JSON; at most %d MiB are accepted", len(data), maxBookmarksBytes/mib)
	}
	p := &bookmarkParser{dec: json.NewDecoder(bytes.NewReader(data))}
	p.dec.UseNumber()
	t, err := p.token("")
	if err != nil {
		return nil, err
	}
	bms, err := p.list(t, "", 1)
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); err != io.EOF {
		return nil, p.fail("", "unexpected data after the list of bookmarks")
	}
	return bms, nil
}

type bookmarkParser struct {
	dec *json.Decoder
	n   int
}

func (p *bookmarkParser) fail(path, format string, args ...any) error {
	where := "the bookmarks"
	if path != "" {
		where = "bookmark " + path
	}
	return fault.New(fault.InvalidInput, "%s: %s", where, fmt.Sprintf(format, args...)).With("field", path)
}

// token reads the next token; a syntax error names the byte where it is.
func (p *bookmarkParser) token(path string) (json.Token, error) {
	t, err := p.dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, p.fail(path, "the JSON ends early")
		}
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, p.fail(path, "invalid JSON at byte %d: %s", se.Offset, se.Error())
		}
		return nil, p.fail(path, "invalid JSON at byte %d: %s", p.dec.InputOffset(), err.Error())
	}
	return t, nil
}

// list reads a list of bookmarks that starts with t.
func (p *bookmarkParser) list(t json.Token, path string, depth int) ([]Bookmark, error) {
	if t != json.Delim('[') {
		return nil, p.fail(path, "want a list of bookmarks, got %s", jsonKind(t))
	}
	if depth > MaxBookmarkDepth && p.dec.More() {
		return nil, p.fail(path, "bookmarks are nested more than %d levels deep", MaxBookmarkDepth)
	}
	out := []Bookmark{}
	for i := 0; p.dec.More(); i++ {
		bm, err := p.entry(fmt.Sprintf("%s[%d]", path, i), depth)
		if err != nil {
			return nil, err
		}
		out = append(out, bm)
	}
	if _, err := p.token(path); err != nil { // ]
		return nil, err
	}
	return out, nil
}

func (p *bookmarkParser) entry(path string, depth int) (bm Bookmark, err error) {
	if p.n++; p.n > MaxBookmarks {
		return bm, p.fail(path, "more than %d bookmarks", MaxBookmarks)
	}
	t, err := p.token(path)
	if err != nil {
		return bm, err
	}
	if t != json.Delim('{') {
		return bm, p.fail(path, "want an object, got %s", jsonKind(t))
	}
	seen := map[string]bool{}
	for p.dec.More() {
		k, err := p.token(path)
		if err != nil {
			return bm, err
		}
		key, _ := k.(string)
		field := path + "." + key
		if seen[key] {
			return bm, p.fail(field, "the key %q is given twice", key)
		}
		seen[key] = true
		v, err := p.token(field)
		if err != nil {
			return bm, err
		}
		if key == "children" {
			if v == nil {
				continue
			}
			if bm.Children, err = p.list(v, field, depth+1); err != nil {
				return bm, err
			}
			if len(bm.Children) == 0 {
				bm.Children = nil
			}
			continue
		}
		if d, ok := v.(json.Delim); ok && (d == '{' || d == '[') {
			return bm, p.fail(field, "want a %s, got %s", map[string]string{"title": "string", "page": "number", "color": "string", "bold": "boolean", "italic": "boolean"}[key], jsonKind(v))
		}
		if v == nil && key != "title" && key != "page" {
			continue
		}
		switch key {
		case "title":
			s, ok := v.(string)
			if !ok {
				return bm, p.fail(field, "want a string, got %s", jsonKind(v))
			}
			bm.Title = s
		case "page":
			n, ok := v.(json.Number)
			if !ok {
				return bm, p.fail(field, "want a number, got %s", jsonKind(v))
			}
			i, err := strconv.ParseInt(string(n), 10, 32)
			if err != nil {
				return bm, p.fail(field, "want a whole page number, got %s", n)
			}
			bm.Page = int(i)
		case "bold", "italic":
			b, ok := v.(bool)
			if !ok {
				return bm, p.fail(field, "want true or false, got %s", jsonKind(v))
			}
			if key == "bold" {
				bm.Bold = b
			} else {
				bm.Italic = b
			}
		case "color":
			s, ok := v.(string)
			if !ok {
				return bm, p.fail(field, "want a string #RRGGBB, got %s", jsonKind(v))
			}
			bm.Color = s
		default:
			return bm, p.fail(field, "unknown key %q (known: title, page, bold, italic, color, children)", key)
		}
	}
	if _, err := p.token(path); err != nil { // }
		return bm, err
	}
	if !seen["title"] {
		return bm, p.fail(path+".title", "the title is missing")
	}
	if !seen["page"] {
		return bm, p.fail(path+".page", "the page is missing")
	}
	if bm.Color, err = checkBookmark(bm, path); err != nil {
		return bm, err
	}
	return bm, nil
}

func jsonKind(t json.Token) string {
	switch v := t.(type) {
	case nil:
		return "null"
	case json.Delim:
		if v == '[' {
			return "a list"
		}
		return "an object"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", t)
}

// checkBookmark checks one entry's own fields and returns its color written in capitals.
func checkBookmark(bm Bookmark, path string) (string, error) {
	fail := func(field, format string, args ...any) error {
		return fault.New(fault.InvalidInput, "bookmark %s: %s", path, fmt.Sprintf(format, args...)).With("field", path+"."+field)
	}
	if strings.TrimSpace(bm.Title) == "" {
		return "", fail("title", "the title is empty")
	}
	if !utf8.ValidString(bm.Title) {
		return "", fail("title", "the title is not valid UTF-8")
	}
	if n := utf8.RuneCountInString(bm.Title); n > MaxBookmarkTitle {
		return "", fail("title", "the title has %d characters; at most %d are allowed", n, MaxBookmarkTitle)
	}
	if strings.IndexFunc(bm.Title, unicode.IsControl) >= 0 {
		return "", fail("title", "the title has control characters (line breaks, tabs); a title is one line")
	}
	if bm.Page < 1 {
		return "", fail("page", "the page must be 1 or more, not %d", bm.Page)
	}
	if bm.Color == "" {
		return "", nil
	}
	c := strings.ToUpper(bm.Color)
	if len(c) != 7 || c[0] != '#' || strings.Trim(c[1:], "0123456789ABCDEF") != "" {
		return "", fail("color", "the color %q is not written #RRGGBB", bm.Color)
	}
	return c, nil
}

// checkBookmarks checks a tree given in Go as ParseBookmarks checks JSON.
func checkBookmarks(bms []Bookmark) error {
	n := 0
	var walk func(bms []Bookmark, path string, depth int) error
	walk = func(bms []Bookmark, path string, depth int) error {
		if depth > MaxBookmarkDepth && len(bms) > 0 {
			return fault.New(fault.InvalidInput, "bookmarks are nested more than %d levels deep", MaxBookmarkDepth).With("field", path)
		}
		for i := range bms {
			p := fmt.Sprintf("%s[%d]", path, i)
			if n++; n > MaxBookmarks {
				return fault.New(fault.InvalidInput, "more than %d bookmarks", MaxBookmarks).With("field", p)
			}
			if _, err := checkBookmark(bms[i], p); err != nil {
				return err
			}
			if err := walk(bms[i].Children, p+".children", depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(bms, "", 1)
}

func pagesExist(bms []Bookmark, path string, pages int) error {
	for i, bm := range bms {
		p := fmt.Sprintf("%s[%d]", path, i)
		if bm.Page > pages {
			return fault.New(fault.InvalidPageSpec, "bookmark %s (%q) goes to page %d; the PDF has %d pages", p, bm.Title, bm.Page, pages).With("field", p+".page")
		}
		if err := pagesExist(bm.Children, p+".children", pages); err != nil {
			return err
		}
	}
	return nil
}
