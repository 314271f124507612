package pdf

import (
	"bytes"
	"encoding/binary"
	"io"
	"sort"
	"strconv"
	"sync"

	"github.com/papierkram/papierkram/fault"
)

// scanner reads a PDF's objects from its bytes. Readers find objects through the
// cross-reference table, and pdfcpu takes an object at a table's offset whatever its
// header says ("1 0obj" will do); when the table is broken they search the file for
// "obj". So the scan takes every "obj" in the file, headers or not, for an object, and
// uses the tables only for the object numbers they give (which encryption keys depend
// on): nothing a table says can hide an object from the check. What it keeps per object
// is small and fixed.
type scanner struct {
	data []byte

	cands    []int // positions after each "obj" keyword, in file order
	candStm  []int // the stream each candidate starts, or -1
	streams  []stream
	trailers []trailer // trailer dictionaries and cross-reference stream dictionaries
	xrefIDs  []xrefID  // object numbers the cross-reference tables give to offsets

	objects   bitset // object numbers defined
	nObjects  int
	pageObjs  bitset // object numbers of /Type /Page dictionaries
	nPageObjs int
	lexed     int // bytes the parser has gone through, against budget
	budget    int

	catalogs map[int][]int   // object number -> the /Pages references of its definitions
	counts   map[int][]value // page tree node -> its /Count values
	ints     map[int][]int64 // integer objects (an indirect /Count or /Length)
	encrypts map[int][]int   // object number -> positions of /Filter /Standard dictionaries
	crypts   []*decrypter    // what the trailers' /Encrypt entries open with

	// With withPassword, the file is opened with password besides the empty password
	// (setupDecryption), and measured only if password opens it; opened is what it learnt.
	withPassword bool
	password     string
	opened       opening

	index    map[int][]int // stream object number -> its definitions in streams
	inflated int64         // bytes inflated, all streams and stages
	*inflaters
}

// id is an object's number and generation.
type id struct{ num, gen int }

type xrefID struct {
	offset int
	id     id
}

// stream is what the scan keeps of a stream object.
type stream struct {
	ids      []id // from its header and the cross-reference tables
	start    int  // first byte of the data
	typ      string
	filters  []string
	early0   []bool // LZW EarlyChange 0, per filter
	length   value  // /Length: an integer or a reference
	first, n int64  // /First and /N (object streams; /N of ICC profiles too)
	w        []int64
	index    []int64
	size     int64 // /W, /Index and /Size of cross-reference streams
	image    bool  // /Subtype /Image with /Width and /Height
	wd, ht   int64
	bpc      int64
	comps    int64 // colour components; 0: an ICC profile's, see iccRef
	iccRef   int

	raw   int   // length of the data, -1 until known
	exact bool  // inflated: x is known
	x     int64 // all filter stages' output together
	est   int64 // bound of x when not inflated
}

// trailer is what the scan keeps of a trailer or cross-reference stream dictionary.
type trailer struct {
	root, encrypt value
	id            []byte // first element of /ID
}

type bitset []uint64

// add sets n and reports whether it was new.
func (b *bitset) add(n int) bool {
	i := n / 64
	for len(*b) <= i {
		*b = append(*b, 0)
	}
	m := uint64(1) << (n % 64)
	if (*b)[i]&m != 0 {
		return false
	}
	(*b)[i] |= m
	return true
}

// keepKey lists the dictionary entries the scan looks at; others are skipped unparsed.
func keepKey(k string) bool {
	switch k {
	case "Type", "Filter", "DecodeParms", "Length", "N", "First", "Root", "Encrypt", "ID", "Size", "Index", "W", "Pages", "Count",
		"Subtype", "Width", "Height", "BitsPerComponent", "ColorSpace", "ImageMask":
		return true
	}
	return false
}

// maxFilters bounds a stream's filter chain; real ones have one or two.
const maxFilters = 8

var errOverlap = fault.New(fault.InvalidPDF, "the PDF is damaged: its objects run into each other")

// parse parses the value at pos in b, against the parse budget.
func (s *scanner) parse(b []byte, pos int, keep func(string) bool) (value, int, error) {
	l := lexer{b: b, p: pos}
	v := l.parseValue(0, keep)
	if s.lexed += l.p - pos; s.lexed > s.budget {
		return value{}, 0, errOverlap
	}
	return v, l.p, nil
}

// scanObjects takes every "obj" in the file (but endobj) for the start of an object,
// parses it and notes its streams. Stream data is searched as well as the rest: a reader
// whose table points into it would find objects there.
func (s *scanner) scanObjects() error {
	b := s.data
	for pos := 0; pos < len(b); {
		i := bytes.Index(b[pos:], []byte("obj"))
		if i < 0 {
			break
		}
		at := pos + i
		pos = at + 3
		if at >= 3 && string(b[at-3:at]) == "end" {
			continue
		}
		var ids []id
		if num, gen, ok := header(b, at); ok {
			if err := s.defined(num, true); err != nil {
				return err
			}
			ids = append(ids, id{num, gen})
		} else if num, gen, ok := lenientHeader(b, at); ok {
			// pdfcpu repairs a broken table with such headers too.
			if err := s.defined(num, false); err != nil {
				return err
			}
			if num < MaxObjectNumber {
				ids = append(ids, id{num, gen})
			}
		}
		v, end, err := s.parse(b, pos, keepKey)
		if err != nil {
			return err
		}
		s.cands = append(s.cands, pos)
		s.candStm = append(s.candStm, -1)
		for _, x := range ids {
			s.note(x.num, v)
		}
		if v.kind != vDict {
			continue
		}
		if v.get("Filter").isName("Standard") {
			// An encryption dictionary, parsed whole if a trailer names it.
			if s.encrypts == nil {
				s.encrypts = map[int][]int{}
			}
			for _, x := range ids {
				s.encrypts[x.num] = append(s.encrypts[x.num], pos)
			}
		}
		p := end
		for p < len(b) && isWhite(b[p]) {
			p++
		}
		if !bytes.HasPrefix(b[p:], []byte("stream")) {
			continue
		}
		p += len("stream")
		if p < len(b) && b[p] == '\r' {
			p++
		}
		if p < len(b) && b[p] == '\n' {
			p++
		}
		st, err := newStream(ids, p, v)
		if err != nil {
			return err
		}
		s.candStm[len(s.candStm)-1] = len(s.streams)
		s.streams = append(s.streams, st)
		if st.typ == "XRef" {
			s.trailers = append(s.trailers, newTrailer(v))
			if err := xrefStreamSize(&st); err != nil {
				return err
			}
		}
		pos = p
	}
	return nil
}

func newStream(ids []id, start int, d value) (stream, error) {
	st := stream{ids: ids, start: start, raw: -1, typ: d.get("Type").name(), length: d.get("Length")}
	// Readers differ on which of two entries counts; the check could measure the other.
	for _, k := range []string{"Filter", "DecodeParms", "Type", "Subtype", "Width", "Height", "BitsPerComponent", "ColorSpace", "ImageMask"} {
		if d.twice(k) {
			return st, fault.New(fault.InvalidPDF, "the PDF is damaged: a stream dictionary has /%s twice", k)
		}
	}
	switch f := d.get("Filter"); f.kind {
	case vName:
		st.filters = []string{f.name()}
	case vArray:
		if len(f.arr) > maxFilters {
			return st, fault.New(fault.InvalidPDF, "a stream of the PDF has %d filters; at most %d are accepted", len(f.arr), maxFilters)
		}
		for _, e := range f.arr {
			st.filters = append(st.filters, e.name())
		}
	}
	var parms []value
	switch p := d.get("DecodeParms"); p.kind {
	case vDict:
		parms = []value{p}
	case vArray:
		parms = p.arr
	}
	for i := range st.filters {
		ec, ok := int64(1), false
		if i < len(parms) {
			ec, ok = parms[i].get("EarlyChange").int()
		}
		st.early0 = append(st.early0, ok && ec == 0)
	}
	st.first, _ = d.get("First").int()
	st.n, _ = d.get("N").int()
	if st.typ == "XRef" {
		st.size, _ = d.get("Size").int()
		for _, e := range d.get("W").arr {
			st.w = append(st.w, e.num)
		}
		if idx := d.get("Index"); idx.kind == vArray {
			for _, e := range idx.arr {
				st.index = append(st.index, e.num)
			}
		}
	}
	if d.get("Subtype").isName("Image") {
		w, ok1 := d.get("Width").int()
		h, ok2 := d.get("Height").int()
		if ok1 && ok2 && w >= 0 && h >= 0 && w <= 1<<24 && h <= 1<<24 {
			st.image, st.wd, st.ht = true, w, h
			st.bpc, ok1 = d.get("BitsPerComponent").int()
			if !ok1 || st.bpc < 1 || st.bpc > 16 {
				st.bpc = 8
			}
			if d.get("ImageMask").keyword() == "true" {
				st.bpc, st.comps = 1, 1
			} else {
				st.comps, st.iccRef = components(d.get("ColorSpace"))
			}
		}
	}
	return st, nil
}

// components is the number of colour components of a colour space: 0 with the object
// number of an ICC profile, whose /N says; 4 where unknown (a named resource, an unusual
// space), more than most have.
func components(cs value) (int64, int) {
	name := cs.name()
	if cs.kind == vArray && len(cs.arr) > 0 {
		name = cs.arr[0].name()
	}
	switch name {
	case "DeviceGray", "G", "CalGray", "Indexed", "I", "Separation":
		return 1, 0
	case "DeviceRGB", "RGB", "CalRGB", "Lab":
		return 3, 0
	case "DeviceN":
		if len(cs.arr) > 1 && cs.arr[1].kind == vArray {
			return max(int64(len(cs.arr[1].arr)), 1), 0
		}
	case "ICCBased":
		if len(cs.arr) > 1 && cs.arr[1].kind == vRef {
			return 0, int(cs.arr[1].num)
		}
	}
	return 4, 0
}

func newTrailer(d value) trailer {
	t := trailer{root: d.get("Root"), encrypt: d.get("Encrypt")}
	if id := d.get("ID"); id.kind == vArray && len(id.arr) > 0 {
		t.id = id.arr[0].str()
	}
	return t
}

// header reads "num gen" before the obj keyword at at, white space between them.
func header(b []byte, at int) (num, gen int, ok bool) {
	digits := func(end int) int {
		start := end
		for start > 0 && b[start-1] >= '0' && b[start-1] <= '9' {
			start--
		}
		return start
	}
	white := func(end int) int {
		for end > 0 && isWhite(b[end-1]) {
			end--
		}
		return end
	}
	ge := white(at)
	gs := digits(ge)
	if gs == ge {
		return 0, 0, false
	}
	ne := white(gs)
	if ne == gs {
		return 0, 0, false
	}
	ns := digits(ne)
	if ns == ne || ns > 0 && isRegular(b[ns-1]) {
		return 0, 0, false
	}
	return atoi(b[ns:ne]), atoi(b[gs:ge]), true
}

// atoi reads digits; a number too long to be an object number reads as MaxObjectNumber.
func atoi(b []byte) int {
	b = bytes.TrimLeft(b, "0")
	if len(b) > 9 {
		return MaxObjectNumber
	}
	n, _ := strconv.Atoi(string(b))
	return n
}

// lenientHeader reads a header as pdfcpu does when it repairs a table: the digits and
// spaces of the line before "obj", the first number the object's, the second its
// generation.
func lenientHeader(b []byte, at int) (num, gen int, ok bool) {
	start := at
	for start > 0 && at-start < 256 && b[start-1] != '\n' && b[start-1] != '\r' {
		start--
	}
	var clean []byte
	for _, c := range b[start:at] {
		if c >= '0' && c <= '9' || c == ' ' {
			clean = append(clean, c)
		}
	}
	f := bytes.Fields(clean)
	if len(f) < 2 {
		return 0, 0, false
	}
	num, gen = atoi(f[0]), atoi(f[1])
	return num, gen, num > 0
}

// defined counts object num. Object numbers from headers and tables must stay below
// MaxObjectNumber; from what a lenient reading takes for a header they only count.
func (s *scanner) defined(num int, strict bool) error {
	if num >= MaxObjectNumber {
		if strict {
			return fault.New(fault.PayloadTooLarge, "the PDF uses object number %d; object numbers must stay below %d", num, MaxObjectNumber)
		}
	} else if !s.objects.add(num) {
		return nil
	}
	if s.nObjects++; s.nObjects > MaxObjects {
		return fault.New(fault.PayloadTooLarge, "the PDF has more than %d objects, the limit", MaxObjects)
	}
	return nil
}

// note records what the page checks need from object num.
func (s *scanner) note(num int, v value) {
	switch v.kind {
	case vInt:
		if s.ints == nil {
			s.ints = map[int][]int64{}
		}
		s.ints[num] = append(s.ints[num], v.num)
	case vDict:
		switch v.get("Type").name() {
		case "Page":
			if s.pageObjs.add(num) {
				s.nPageObjs++
			}
		case "Pages":
			if c := v.get("Count"); c.kind == vInt || c.kind == vRef {
				if s.counts == nil {
					s.counts = map[int][]value{}
				}
				s.counts[num] = append(s.counts[num], c)
			}
		}
		if p := v.get("Pages"); p.kind == vRef {
			if s.catalogs == nil {
				s.catalogs = map[int][]int{}
			}
			s.catalogs[num] = append(s.catalogs[num], int(p.num))
		}
	}
}

// scanTrailers reads the trailer dictionaries and classic cross-reference sections.
func (s *scanner) scanTrailers() error {
	b := s.data
	for pos := 0; pos < len(b); {
		i := bytes.Index(b[pos:], []byte("trailer"))
		if i < 0 {
			break
		}
		at := pos + i
		pos = at + len("trailer")
		if at > 0 && isRegular(b[at-1]) || pos < len(b) && isRegular(b[pos]) {
			continue
		}
		v, _, err := s.parse(b, pos, keepKey)
		if err != nil {
			return err
		}
		if v.kind != vDict {
			continue
		}
		s.trailers = append(s.trailers, newTrailer(v))
		if n, ok := v.get("Size").int(); ok && n > MaxObjectNumber {
			return fault.New(fault.PayloadTooLarge, "the PDF's cross-reference table declares %d objects; the limit is %d", n, MaxObjectNumber)
		}
	}
	for pos := 0; pos < len(b); {
		i := bytes.Index(b[pos:], []byte("xref"))
		if i < 0 {
			break
		}
		at := pos + i
		pos = at + len("xref")
		if at > 0 && isRegular(b[at-1]) || pos < len(b) && isRegular(b[pos]) {
			continue
		}
		if err := s.xrefSection(pos); err != nil {
			return err
		}
	}
	return nil
}

// xrefSection reads a classic cross-reference section: subsections of "first count"
// and count entries "offset generation n|f". pdfcpu makes a table entry for each.
func (s *scanner) xrefSection(pos int) error {
	l := lexer{b: s.data, p: pos}
	for {
		save := l.p
		a, c := l.next(), l.next()
		first, ok1 := integer(l.text(a))
		count, ok2 := integer(l.text(c))
		// An entry starts with a 10-digit offset; a header's numbers are shorter.
		if a.kind != tRegular || c.kind != tRegular || !ok1 || !ok2 || a.end-a.start >= 10 || first < 0 || count < 0 {
			l.p = save
			return nil
		}
		if first+count > MaxObjectNumber {
			return fault.New(fault.PayloadTooLarge, "the PDF's cross-reference table declares objects up to %d; the limit is %d", first+count, MaxObjectNumber)
		}
		for i := range count {
			o, g, t := l.next(), l.next(), l.next()
			off, ok1 := integer(l.text(o))
			gen, ok2 := integer(l.text(g))
			if !ok1 || !ok2 || t.kind != tRegular {
				return nil
			}
			if string(l.text(t)) != "n" {
				continue
			}
			num := int(first + i)
			if err := s.defined(num, true); err != nil {
				return err
			}
			if off >= 0 && off < int64(len(s.data)) {
				s.xrefIDs = append(s.xrefIDs, xrefID{int(off), id{num, int(gen)}})
			}
		}
	}
}

// xrefStreamSize checks the /Size and /Index of a cross-reference stream, by which pdfcpu
// allocates.
func xrefStreamSize(st *stream) error {
	top := st.size
	for i := 0; i+1 < len(st.index); i += 2 {
		if a, c := st.index[i], st.index[i+1]; a >= 0 && c >= 0 && a+c > top {
			top = a + c
		}
	}
	if top > MaxObjectNumber {
		return fault.New(fault.PayloadTooLarge, "the PDF's cross-reference stream declares %d objects; the limit is %d", top, MaxObjectNumber)
	}
	return nil
}

// xrefStream reads the entries of a decoded cross-reference stream: objects at offsets
// (type 1) and in object streams (type 2).
func (s *scanner) xrefStream(st *stream, data []byte) error {
	if len(st.w) != 3 {
		return nil
	}
	width := 0
	for _, w := range st.w {
		if w < 0 || w > 8 {
			return nil
		}
		width += int(w)
	}
	if width == 0 {
		return nil
	}
	index := st.index
	if len(index) == 0 {
		index = []int64{0, st.size}
	}
	field := func(b []byte) int64 {
		var buf [8]byte
		copy(buf[8-len(b):], b)
		return int64(binary.BigEndian.Uint64(buf[:]))
	}
	for i := 0; i+1 < len(index); i += 2 {
		first, count := index[i], index[i+1]
		for k := int64(0); k < count && len(data) >= width; k++ {
			e := data[:width]
			data = data[width:]
			typ := int64(1)
			if st.w[0] > 0 {
				typ = field(e[:st.w[0]])
			}
			f2 := field(e[st.w[0] : st.w[0]+st.w[1]])
			f3 := field(e[st.w[0]+st.w[1]:])
			num := first + k
			if typ != 1 && typ != 2 || num < 0 {
				continue
			}
			if err := s.defined(int(min(num, MaxObjectNumber)), true); err != nil {
				return err
			}
			if typ == 1 && f2 >= 0 && f2 < int64(len(s.data)) {
				s.xrefIDs = append(s.xrefIDs, xrefID{int(f2), id{int(num), int(f3)}})
			}
		}
	}
	return nil
}

// mapXrefIDs gives each stream the object numbers the tables give to its offset: pdfcpu
// reads an object at a table's offset from the first "obj" after it.
func (s *scanner) mapXrefIDs() {
	for _, x := range s.xrefIDs {
		i := sort.SearchInts(s.cands, x.offset+3)
		if i < len(s.cands) && s.cands[i]-x.offset <= 64 && s.candStm[i] >= 0 {
			st := &s.streams[s.candStm[i]]
			if len(st.ids) < 8 && !containsID(st.ids, x.id) {
				st.ids = append(st.ids, x.id)
			}
		}
	}
}

func containsID(ids []id, x id) bool {
	for _, y := range ids {
		if y == x {
			return true
		}
	}
	return false
}

// maxDecrypters bounds the different encryptions the trailers may name: a real file has
// one, and each is tried on every stream.
const maxDecrypters = 4

// setupDecryption prepares a decrypter for every /Encrypt a trailer names: with the empty
// password and, when the scanner has one, with its password, whose opening it notes in
// s.opened. Usually there is one or none; with several (a damaged or crafted file), each
// is tried on every stream, as a reader might use any of them.
func (s *scanner) setupDecryption() error {
	var lastID []byte
	for _, t := range s.trailers {
		if t.id != nil {
			lastID = t.id
		}
	}
	op := &s.opened
	var opened []*decrypter // the password's, added after the empty password's
	tried := map[string]bool{}
	standard := false
	for _, t := range s.trailers {
		if t.encrypt.kind != vRef {
			continue
		}
		op.encrypted = true
		standard = standard || len(s.encrypts[int(t.encrypt.num)]) > 0
		fid := t.id
		if fid == nil {
			fid = lastID
		}
		for _, pos := range s.encrypts[int(t.encrypt.num)] {
			k := strconv.Itoa(pos) + "/" + string(fid)
			if tried[k] {
				continue
			}
			if tried[k] = true; len(tried) > 2*maxDecrypters {
				return fault.New(fault.InvalidPDF, "the PDF names more than %d encryptions", maxDecrypters)
			}
			enc, _, err := s.parse(s.data, pos, nil)
			if err != nil {
				return err
			}
			s.addDecrypter(newDecrypter(enc, fid, nil))
			if !s.withPassword {
				continue
			}
			r, _ := enc.get("R").int()
			for _, cand := range passwordForms(s.password, r) {
				d := newDecrypter(enc, fid, cand)
				if d == nil {
					continue
				}
				if !op.ok {
					op.ok, op.r, op.pw, op.key = true, r, cand, d.key
				}
				op.dicts = append(op.dicts, pos)
				opened = append(opened, d)
				break
			}
		}
	}
	if s.withPassword && op.encrypted && !standard {
		return fault.New(fault.Unprocessable, "the PDF is encrypted with a method other than a password (certificates or another security handler); it cannot be decrypted here")
	}
	for _, d := range opened {
		s.addDecrypter(d)
	}
	if len(s.crypts) > maxDecrypters {
		return fault.New(fault.InvalidPDF, "the PDF names more than %d encryptions", maxDecrypters)
	}
	return nil
}

// addDecrypter adds d to the decrypters tried on every stream unless it is nil, leaves
// the streams as they are, or has a key already there.
func (s *scanner) addDecrypter(d *decrypter) {
	if d == nil || d.identity {
		return
	}
	for _, c := range s.crypts {
		if bytes.Equal(c.key, d.key) {
			return
		}
	}
	s.crypts = append(s.crypts, d)
}

// objectStream parses the objects of a decoded object stream: they count as objects,
// and pages, catalogs and page tree nodes among them matter to the page checks.
func (s *scanner) objectStream(st *stream, content []byte) error {
	first := st.first
	if first < 0 || first > int64(len(content)) {
		return nil
	}
	s.budget += 16 * len(content)
	l := lexer{b: content[:first]}
	type item struct{ num, off int }
	var items []item
	for int64(len(items)) < st.n {
		a, b := l.next(), l.next()
		num, ok1 := integer(l.text(a))
		off, ok2 := integer(l.text(b))
		if a.kind != tRegular || b.kind != tRegular || !ok1 || !ok2 || num < 0 || off < 0 || first+off > int64(len(content)) {
			break
		}
		items = append(items, item{int(min(num, MaxObjectNumber)), int(first + off)})
	}
	for i, it := range items {
		// An object ends where the next begins; offsets out of order end it at once.
		end := len(content)
		if i+1 < len(items) {
			end = max(items[i+1].off, it.off)
		}
		if err := s.defined(it.num, true); err != nil {
			return err
		}
		v, _, err := s.parse(content[:end], it.off, keepKey)
		if err != nil {
			return err
		}
		s.note(it.num, v)
	}
	return nil
}

// checkPages refuses a document whose page tree root declares more than MaxPages pages.
// Every trailer's root is looked at, and the highest count wins: a reader may use any. A
// /Count that understates is caught by the number of page objects, which leaves room for
// pages an edit removed but left in the file, or else by pdfcpu's full count.
func (s *scanner) checkPages() error {
	pages := int64(0)
	for _, t := range s.trailers {
		if t.root.kind != vRef {
			continue
		}
		for _, p := range s.catalogs[int(t.root.num)] {
			for _, c := range s.counts[p] {
				switch c.kind {
				case vInt:
					pages = max(pages, c.num)
				case vRef:
					for _, n := range s.ints[int(c.num)] {
						pages = max(pages, n)
					}
				}
			}
		}
	}
	if pages > MaxPages {
		return fault.New(fault.InvalidPDF, "the PDF has %d pages; at most %d are accepted", pages, MaxPages)
	}
	if s.nPageObjs > 2*MaxPages {
		return fault.New(fault.InvalidPDF, "the PDF has more than %d page objects; at most %d pages are accepted", 2*MaxPages, MaxPages)
	}
	return nil
}

// inflaters holds what decoding reuses across streams, and across documents: a zlib
// reader and a buffer cost more to allocate than a small document takes to measure.
type inflaters struct {
	buf    []byte        // drain buffer
	zr     io.ReadCloser // reused zlib reader
	zrBusy bool          // zr is in use by the current stream
}

var inflaterPool = sync.Pool{New: func() any { return &inflaters{buf: make([]byte, 32<<10)} }}

func getInflaters() *inflaters { return inflaterPool.Get().(*inflaters) }

func (z *inflaters) put() {
	z.zrBusy = false
	inflaterPool.Put(z)
}
