package pdf

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/fault"
)

// Limits of the work a PDF may cause. A few MB of zeros compressed with Flate inflate to
// GBs, and a file of 10 MB can hold 100,000 pages; readers (pdfcpu in this process,
// poppler and Ghostscript beside it) would spend seconds to minutes and GBs of memory
// before noticing. Check measures a file against these limits before anything parses it.
// Real documents stay far below them (docs/decisions.md).
const (
	// MaxStreamBytes bounds what one stream decodes to (each filter stage).
	MaxStreamBytes = 256 << 20
	// MaxDecodedBytes bounds what all streams of a document decode to together, and what
	// the checks of the documents one merge joins inflate together.
	MaxDecodedBytes = 1 << 30
	// MaxPageContentBytes bounds the decoded content streams of one page: pdfcpu holds
	// about six times a page's content in memory while it copies the page.
	MaxPageContentBytes = 64 << 20
	// MaxContentBytes bounds the decoded page content a document has, and that one split,
	// extraction or merge copies. A content stream drawn by several pages counts once per
	// page, as pdfcpu, poppler and Ghostscript decode and parse it once per page (about
	// 70 ms per MB in pdfcpu).
	MaxContentBytes = 256 << 20
	// MaxObjects bounds the objects of a document; pdfcpu takes about 30 µs and 3 KB of
	// memory for each.
	MaxObjects = 250_000
	// MaxObjectNumber bounds object numbers and cross-reference sizes, by which pdfcpu
	// sizes its tables.
	MaxObjectNumber = 1_000_000
	// maxObjStmBytes bounds a decoded object stream, which the check and pdfcpu hold in
	// memory whole. Writers put 100 to 200 small objects into one: kilobytes.
	maxObjStmBytes = 64 << 20
)

const mib = 1 << 20

// Check refuses a PDF that exceeds the limits above, before any reader parses it: 413
// payload_too_large for what inflates too far or has too many objects, 400 invalid_pdf
// for too many pages. Read calls it; code that hands a PDF to a reader without Read calls
// it itself. It inflates what it must without keeping the output, so its memory stays
// small whatever the file inflates to.
func Check(data []byte) error {
	_, err := check(data)
	return err
}

// check is Check, returning the bytes it inflated (at most what the streams decode to).
func check(data []byte) (inflated int64, err error) {
	defer recoverInto(&err, "check")
	return scan(data)
}

func scan(data []byte) (int64, error) {
	s := newScanner(data)
	defer s.put()
	if err := s.run(); err != nil {
		return 0, err
	}
	return s.inflated, nil
}

func newScanner(data []byte) *scanner {
	return &scanner{data: data, budget: 16*len(data) + 1<<20, inflaters: getInflaters()}
}

func (s *scanner) run() error {
	if err := s.scanObjects(); err != nil {
		return err
	}
	if err := s.scanTrailers(); err != nil {
		return err
	}
	// Pages first, as inflating is the slow part; again after it, since object streams
	// may hold the page tree.
	if err := s.checkPages(); err != nil {
		return err
	}
	// Cross-reference streams first: they number the objects, and keys depend on numbers.
	for i := range s.streams {
		if s.streams[i].typ == "XRef" {
			if err := s.inflate(&s.streams[i]); err != nil {
				return err
			}
		}
	}
	s.mapXrefIDs()
	if err := s.setupDecryption(); err != nil {
		return err
	}
	// Nothing reads a file the password does not open (nor, then, one not encrypted).
	if s.withPassword && !s.opened.ok {
		return nil
	}
	if err := s.measure(); err != nil {
		return err
	}
	return s.checkPages()
}

// measure decides what each stream decodes to, inflating only where that matters.
// Inflating everything would make the check cost many times pdfcpu's read on documents
// with large compressed fonts, images or attachments, which pdfcpu does not inflate, so
// most streams are bounded instead: Flate expands at most 1032 times, LZW 4096, run
// length 64, ASCII85 4, and an image decodes to no more than its declared size as far as
// any reader is concerned. A stream is inflated when its bound could break a limit:
//   - object and cross-reference streams (parsed: the page tree may be inside);
//   - any stream whose bound is over MaxStreamBytes;
//   - then the streams with the largest bounds, until the bounds and exact sizes of all
//     together fit MaxDecodedBytes, or none is left to inflate.
func (s *scanner) measure() error {
	s.index = make(map[int][]int, len(s.streams))
	for i, st := range s.streams {
		for _, x := range st.ids {
			s.index[x.num] = append(s.index[x.num], i)
		}
	}
	for i := range s.streams {
		if st := &s.streams[i]; st.typ == "ObjStm" && !st.exact {
			if err := s.inflate(st); err != nil {
				return err
			}
		}
	}
	var open []int
	for i := range s.streams {
		st := &s.streams[i]
		if st.exact {
			continue
		}
		st.est = s.bound(st)
		if st.est > MaxStreamBytes {
			if err := s.inflate(st); err != nil {
				return err
			}
			continue
		}
		open = append(open, i)
	}
	total := int64(0)
	for _, st := range s.streams {
		if st.exact {
			total += st.x
		} else {
			total += st.est
		}
	}
	slices.SortFunc(open, func(a, b int) int { return cmp.Compare(s.streams[b].est, s.streams[a].est) })
	for _, i := range open {
		if total <= MaxDecodedBytes {
			break
		}
		st := &s.streams[i]
		if err := s.inflate(st); err != nil {
			return err
		}
		total += st.x - st.est
	}
	if total > MaxDecodedBytes {
		return errDocument
	}
	return nil
}

var errDocument = fault.New(fault.PayloadTooLarge, "the PDF's streams inflate to more than %d MiB, the limit per document", MaxDecodedBytes/mib)

var (
	errStreamLimit = errors.New("stream limit")
	errDocLimit    = errors.New("document limit")
)

// expansion is the most a filter's output can exceed its input, per byte of input; 0 for
// filters the check does not decode.
func expansion(name string) int64 {
	switch name {
	case "FlateDecode", "Fl":
		return 1032 // a 258-byte match in 2 bits
	case "LZWDecode", "LZW":
		return 4096 // a code of at least 8 bits for a string of at most 4096 bytes
	case "RunLengthDecode", "RL":
		return 64 // 128 bytes from 2
	case "ASCII85Decode", "A85":
		return 4 // z
	case "ASCIIHexDecode", "AHx":
		return 1
	}
	return 0
}

// bound is the most the stream's filter stages can produce together, and for an image
// what a reader decodes of it at most (its declared size).
func (s *scanner) bound(st *stream) int64 {
	in := int64(s.rawLength(st))
	var sum int64
	for _, f := range st.filters {
		e := expansion(f)
		if e == 0 {
			break
		}
		in = satMul(in, e)
		sum = satAdd(sum, in)
	}
	if img := s.imageBytes(st); img >= 0 {
		sum = min(sum, img)
	}
	return sum
}

func satMul(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// imageBytes is the size an image XObject declares (rows of width x components x bits),
// or -1 if the stream is no image or says too little.
func (s *scanner) imageBytes(st *stream) int64 {
	if !st.image {
		return -1
	}
	comps := st.comps
	if comps == 0 {
		comps = 4
		for _, i := range s.index[st.iccRef] {
			if n := s.streams[i].n; n >= 1 && n <= 32 {
				comps = n
			}
		}
	}
	return (st.wd*comps*st.bpc + 7) / 8 * st.ht
}

// rawLength is the length of a stream's data as a reader takes it: up to the first
// endstream, or further if /Length says so (the larger, as bounds must not be cut short
// by an endstream hidden in the data).
func (s *scanner) rawLength(st *stream) int {
	if st.raw >= 0 {
		return st.raw
	}
	src := s.data[st.start:]
	n := len(src)
	if i := bytes.Index(src, []byte("endstream")); i >= 0 {
		n = i
	}
	var lengths []int64
	switch st.length.kind {
	case vInt:
		lengths = []int64{st.length.num}
	case vRef:
		lengths = s.ints[int(st.length.num)]
	}
	for _, l := range lengths {
		if l > int64(n) {
			n = int(min(l, int64(len(src))))
		}
	}
	st.raw = n
	return n
}

// inflate decodes a stream, counting, and sets its exact size; an object stream is
// parsed, a cross-reference stream read.
func (s *scanner) inflate(st *stream) error {
	src := s.data[st.start:]
	st.exact = true
	if len(st.filters) == 0 {
		if st.typ == "ObjStm" || st.typ == "XRef" {
			return s.parsed(st, src[:s.rawLength(st)])
		}
		return nil
	}
	readers := []func() io.Reader{func() io.Reader { return bytes.NewReader(src) }}
	// Cross-reference streams are never encrypted; metadata may be left in the clear; a
	// Crypt filter names its own (in practice: Identity). Each number a header or table
	// gives the object is tried, as keys depend on it.
	if st.typ != "XRef" && !slices.Contains(st.filters, "Crypt") {
		for _, d := range s.crypts {
			if st.typ == "Metadata" && d.plainXMP {
				continue
			}
			for _, x := range st.ids {
				readers = append(readers, func() io.Reader { return d.reader(x.num, x.gen, bytes.NewReader(src)) })
				if d.r >= 5 {
					break // one key for all objects
				}
			}
		}
	}
	for _, r := range readers {
		sum, err := s.decode(st, r)
		if err != nil {
			return err
		}
		st.x = max(st.x, sum)
	}
	// A reader decodes no more of an image than it declares.
	if img := s.imageBytes(st); img >= 0 {
		st.x = min(st.x, img)
	}
	return nil
}

// decode runs the data through the stream's filters, counting every stage's output, and
// returns all stages' output together. An object or cross-reference stream within its
// limit is decoded once more, into a buffer of the size measured, and parsed.
func (s *scanner) decode(st *stream, src func() io.Reader) (sum int64, err error) {
	limit := int64(MaxStreamBytes)
	if st.typ == "ObjStm" || st.typ == "XRef" {
		limit = maxObjStmBytes
	}
	before := s.inflated
	c := s.chain(st.filters, st.early0, src(), limit, &s.inflated)
	if c == nil {
		return 0, nil
	}
	for err == nil {
		_, err = c.Read(s.buf)
	}
	s.zrBusy = false
	switch {
	case err == errDocLimit:
		return 0, errDocument
	case err == errStreamLimit:
		return 0, fault.New(fault.PayloadTooLarge, "%s of the PDF inflates to more than %d MiB, the limit per %s", st.what(), limit/mib, st.kind())
	}
	sum = s.inflated - before
	if limit == maxObjStmBytes && c.n > 0 {
		content := make([]byte, c.n)
		var again int64 // counted once, above
		n, _ := io.ReadFull(s.chain(st.filters, st.early0, src(), limit, &again), content)
		s.zrBusy = false
		if err := s.parsed(st, content[:n]); err != nil {
			return 0, err
		}
	}
	return sum, nil
}

// kind says what sort of stream st is, for messages.
func (st *stream) kind() string {
	switch st.typ {
	case "ObjStm":
		return "object stream"
	case "XRef":
		return "cross-reference stream"
	}
	return "stream"
}

// what names st for messages: "stream 4", or "a stream" if it has no number.
func (st *stream) what() string {
	if len(st.ids) == 0 {
		return "a " + st.kind()
	}
	return fmt.Sprintf("%s %d", st.kind(), st.ids[0].num)
}

// parsed takes in the decoded data of an object or cross-reference stream.
func (s *scanner) parsed(st *stream, data []byte) error {
	if st.typ == "XRef" {
		return s.xrefStream(st, data)
	}
	return s.objectStream(st, data)
}

// chain returns r decoded by filters, each stage counted against limit and into total,
// or nil if none decodes.
func (z *inflaters) chain(filters []string, early0 []bool, r io.Reader, limit int64, total *int64) *counter {
	var last *counter
	for i, f := range filters {
		d, err := z.decoder(f, early0[i], r)
		if err != nil {
			// Not decoded (an image filter) or not decodable (damaged): measuring stops.
			break
		}
		last = &counter{r: d, limit: limit, total: total}
		r = last
	}
	return last
}

// counter counts what a decoder produces against the limits.
type counter struct {
	r     io.Reader
	n     int64
	limit int64  // per stream
	total *int64 // of the document, against MaxDecodedBytes
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	*c.total += int64(n)
	switch {
	case c.n > c.limit:
		return n, errStreamLimit
	case *c.total > MaxDecodedBytes:
		return n, errDocLimit
	}
	return n, err
}

// contentSizes measures each page's content streams as pdfcpu holds them (decrypted,
// found through its table), in page order, and refuses a document whose pages draw more
// than the content limits allow. A stream is inflated once however many pages draw it.
func contentSizes(x *model.XRefTable) ([]int64, error) {
	root, err := x.Catalog()
	if err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "the PDF has no catalog")
	}
	damaged := fault.New(fault.InvalidPDF, "the PDF's page tree is damaged")
	z := getInflaters()
	defer z.put()
	measured := map[int]int64{}
	var sizes []int64
	var total, inflated int64
	streamSize := func(o types.Object) (int64, error) {
		r, ok := o.(types.IndirectRef)
		if !ok {
			return 0, nil
		}
		if n, ok := measured[r.ObjectNumber.Value()]; ok {
			return n, nil
		}
		sd, _, err := x.DereferenceStreamDict(r)
		if err != nil || sd == nil {
			return 0, nil
		}
		var filters []string
		var early0 []bool
		for _, f := range sd.FilterPipeline {
			filters = append(filters, f.Name)
			ec := f.DecodeParms.IntEntry("EarlyChange")
			early0 = append(early0, ec != nil && *ec == 0)
		}
		n := int64(len(sd.Raw))
		if c := z.chain(filters, early0, bytes.NewReader(sd.Raw), MaxPageContentBytes, &inflated); c != nil {
			for err == nil {
				_, err = c.Read(z.buf)
			}
			z.zrBusy = false
			if err == errDocLimit {
				return 0, errDocument
			}
			n = c.n
		}
		measured[r.ObjectNumber.Value()] = n
		return n, nil
	}
	visited := map[int]bool{}
	var walk func(o types.Object, depth int) error
	walk = func(o types.Object, depth int) error {
		if depth > 64 || len(sizes) > 2*MaxPages {
			return damaged
		}
		if r, ok := o.(types.IndirectRef); ok {
			if visited[r.ObjectNumber.Value()] {
				return damaged
			}
			visited[r.ObjectNumber.Value()] = true
		}
		d, err := x.DereferenceDict(o)
		if err != nil || d == nil {
			return damaged
		}
		kids, found := d.Find("Kids")
		if t := d.Type(); found && (t == nil || *t != "Page") {
			arr, err := x.DereferenceArray(kids)
			if err != nil {
				return damaged
			}
			for _, k := range arr {
				if err := walk(k, depth+1); err != nil {
					return err
				}
			}
			return nil
		}
		var n int64
		if c, found := d.Find("Contents"); found {
			refs := []types.Object{c}
			if arr, err := x.DereferenceArray(c); err == nil {
				refs = arr
			}
			for _, r := range refs {
				m, err := streamSize(r)
				if err != nil {
					return err
				}
				n += m
			}
		}
		if n > MaxPageContentBytes {
			return fault.New(fault.PayloadTooLarge, "page %d of the PDF draws more than %d MiB of content, the limit per page", len(sizes)+1, MaxPageContentBytes/mib)
		}
		if total += n; total > MaxContentBytes {
			return fault.New(fault.PayloadTooLarge, "the PDF's pages draw more than %d MiB of content (a stream shared by pages counts once per page), the limit", MaxContentBytes/mib)
		}
		sizes = append(sizes, n)
		return nil
	}
	pages, found := root.Find("Pages")
	if !found {
		return nil, fault.New(fault.InvalidPDF, "the PDF has no pages")
	}
	if err := walk(pages, 0); err != nil {
		return nil, err
	}
	return sizes, nil
}

// contentOf sums the content sizes of pages (1-based, repeats counted) and refuses more
// than MaxContentBytes: pdfcpu decodes a page's content for every copy it makes.
func (d *Doc) contentOf(pages []int) error {
	var n int64
	for _, p := range pages {
		if p >= 1 && p <= len(d.content) {
			n += d.content[p-1]
		}
	}
	if n > MaxContentBytes {
		return fault.New(fault.PayloadTooLarge, "the pages asked for draw %d MiB of content; at most %d MiB can be copied per request", n/mib, MaxContentBytes/mib)
	}
	return nil
}
