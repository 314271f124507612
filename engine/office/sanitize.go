package office

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"github.com/papierkram/papierkram/internal/lazyre"
	"io"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/archive"
)

// The sanitiser takes out of a document what would make LibreOffice load something from
// outside it: OOXML relationships that point outside the package (pictures, OLE links,
// attached templates, frames, sub-documents, other workbooks; hyperlinks stay), Word fields
// that include pictures or text from elsewhere (INCLUDEPICTURE, INCLUDETEXT, LINK, DDE, ...),
// Excel web queries, text imports and DDE links, and in OpenDocument every reference outside
// the package (xlink:href of pictures, objects, linked sections, sheet and cell range links,
// floating frames, fill images, fonts; DDE topics; data sources), except hyperlinks.
//
// It works on every entry of a zip package that is XML, whatever its name (a part may be
// called anything in OOXML), and on flat OpenDocument XML; packages inside packages
// (embedded documents) are cleaned too. Rules match local names, whatever the namespace
// prefix, and the scanner tolerates what is not well-formed, so that a part LibreOffice's
// more forgiving readers accept is still seen. Formats it cannot read (.doc, .xls, .rtf,
// HTML) pass unchanged: LibreOffice's own settings and the network isolation of soffice
// defend those.

// Limits of the unpacking: the entries read are the XML ones and the packages inside
// (variables for the tests).
var (
	sanMaxEntries       = 10000
	sanMaxPart    int64 = 256 << 20
	sanMaxTotal   int64 = 1 << 30
	sanMaxDepth         = 3 // packages inside packages
)

// sanitize returns doc without its references outside itself, for a document of type ext
// (its extension). LibreOffice tells formats by content, not by name, so every zip is
// treated as a package; it is always written anew (unchanged entries copied as they are),
// so that LibreOffice reads exactly the entries checked here, whatever the original's
// central directory, prefix or trailing data.
func sanitize(doc []byte, ext string) ([]byte, error) {
	budget := sanMaxTotal
	out, err := sanitizeZip(doc, 0, &budget)
	switch {
	case err == nil:
		return out, nil
	case !errors.Is(err, errNotZip):
		return nil, err
	case bytes.HasPrefix(doc, []byte("PK\x03\x04")):
		return nil, fault.New(fault.InvalidInput, "the document cannot be read: it is a damaged package")
	case flatODF[ext]:
		out, _, err := sanitizeXML(doc)
		if err != nil {
			return nil, fault.Wrap(fault.InvalidInput, err, "the document %v", err)
		}
		return out, nil
	}
	return doc, nil // .doc, .xls, .rtf, HTML: see the settings and the network isolation
}

// errNotZip is what Open says of data that is no zip: such a document is no package.
var errNotZip = archive.ErrNotZip

// flatODF are the single-file OpenDocument types: XML of the same vocabulary as a package's.
var flatODF = map[string]bool{"fodt": true, "fods": true, "fodp": true, "fodg": true}

func sanitizeZip(doc []byte, depth int, budget *int64) ([]byte, error) {
	// The directory through the project's zip reader; the entries are streamed below, each
	// sniffed by its first bytes and read only when it is markup, within the budget.
	z, err := archive.Open(doc, archive.Limits{Noun: "the document", Entries: sanMaxEntries, Part: sanMaxPart, Total: *budget})
	if err != nil {
		return nil, err
	}
	seen := make(map[string]bool, len(z.Files))
	type entry struct {
		f    *zip.File
		data []byte // new content, or nil: copied as it is
	}
	entries := make([]entry, len(z.Files))
	// The relationship parts last: a hyperlink's relationship stays only if its part uses
	// it as nothing else (LibreOffice takes a picture from any external relationship,
	// whatever its type). refs are the ids each part uses outside hyperlinks.
	refs := map[string]map[string]bool{}
	var rels []int
	for i, f := range z.Files {
		// Two entries of one name: which one would LibreOffice read?
		if seen[f.Name] {
			return nil, fault.New(fault.InvalidInput, "the document's package holds the part %q twice", f.Name)
		}
		seen[f.Name] = true
		entries[i].f = f
		if _, ok := relsSource(f.Name); ok {
			rels = append(rels, i)
			continue
		}
		part := partKey(f.Name)
		if refs[part] == nil {
			refs[part] = map[string]bool{}
		}
		data, err := sanitizeEntry(f, depth, budget, &cleaner{refs: refs[part]})
		if err != nil {
			return nil, err
		}
		entries[i].data = data
	}
	for _, i := range rels {
		source, _ := relsSource(entries[i].f.Name)
		data, err := sanitizeEntry(entries[i].f, depth, budget, &cleaner{used: refs[source]})
		if err != nil {
			return nil, err
		}
		entries[i].data = data
	}
	// Unchanged entries are copied compressed as they are, the others stored anew.
	var buf bytes.Buffer
	buf.Grow(len(doc))
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		if e.data == nil {
			if err := w.Copy(e.f); err != nil {
				return nil, fault.Wrap(fault.InvalidInput, err, "the document's part %q cannot be read", e.f.Name)
			}
			continue
		}
		h := &zip.FileHeader{Name: e.f.Name, Method: zip.Deflate, Modified: e.f.Modified, NonUTF8: e.f.NonUTF8}
		if e.f.Method == zip.Store {
			h.Method = zip.Store
		}
		out, err := w.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := out.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// relsSource is the part whose relationships the entry holds (dir/_rels/x.xml.rels:
// dir/x.xml; _rels/.rels: "", the package's own), as a partKey.
func relsSource(name string) (string, bool) {
	dir, file := path.Split(partKey(name))
	if !strings.HasSuffix(file, ".rels") || !strings.HasSuffix("/"+dir, "/_rels/") {
		return "", false
	}
	return strings.TrimSuffix(dir, "_rels/") + strings.TrimSuffix(file, ".rels"), true
}

// partKey names a part as OPC compares names (case-insensitive), with \ read as / and no
// leading /: entries a reader might take for the same part share their key.
func partKey(name string) string {
	return strings.ToLower(strings.TrimLeft(strings.ReplaceAll(name, "\\", "/"), "/"))
}

// sanitizeEntry returns the cleaned content of one entry, or nil when it stays as it is;
// rules carries what the rules collect or need across parts.
func sanitizeEntry(f *zip.File, depth int, budget *int64, rules *cleaner) ([]byte, error) {
	if f.FileInfo().IsDir() {
		return nil, nil
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "the document's part %q cannot be read (%v)", f.Name, err)
	}
	defer rc.Close()
	head := make([]byte, 512)
	n, err := io.ReadFull(rc, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, fault.Wrap(fault.InvalidInput, err, "the document's part %q is damaged (%v)", f.Name, err)
	}
	head = head[:n]
	if err := checkEncoding(head); err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "the document's part %q %v", f.Name, err)
	}
	kind := sniff(head)
	if kind == sniffBinary {
		return nil, nil // pictures, binary objects: nothing LibreOffice resolves
	}
	limit := min(sanMaxPart, *budget)
	rest, err := io.ReadAll(io.LimitReader(rc, limit-int64(n)+1))
	if err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "the document's part %q is damaged (%v)", f.Name, err)
	}
	data := append(head, rest...)
	if int64(len(data)) > limit {
		return nil, fault.New(fault.PayloadTooLarge, "the document's part %q unpacks to more than %d bytes", f.Name, limit)
	}
	*budget -= int64(len(data))
	if kind == sniffSpace && sniff(data) != sniffXML {
		return nil, nil // white space, then no markup
	}
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		// A package inside (an embedded workbook or document).
		if depth+1 >= sanMaxDepth {
			return nil, fault.New(fault.InvalidInput, "the document nests packages more than %d deep", sanMaxDepth)
		}
		out, err := sanitizeZip(data, depth+1, budget)
		if errors.Is(err, errNotZip) {
			return nil, nil // starts like one, but is none: LibreOffice cannot open it either
		}
		return out, err
	}
	out, changed, err := sanitizeXMLWith(data, rules)
	if err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "the document's part %q %v", f.Name, err)
	}
	if !changed {
		return nil, nil
	}
	return out, nil
}

const (
	sniffBinary = iota
	sniffXML    // markup (or a package inside)
	sniffSpace  // nothing but white space so far: read on
)

// sniff tells markup (after an optional UTF-8 byte order mark and white space, which an XML
// parser skips) and nested packages from the rest.
func sniff(b []byte) int {
	if bytes.HasPrefix(b, []byte("PK\x03\x04")) {
		return sniffXML
	}
	b = bytes.TrimPrefix(b, []byte("\xEF\xBB\xBF"))
	b = bytes.TrimLeft(b, " \t\r\n")
	switch {
	case len(b) == 0:
		return sniffSpace
	case b[0] == '<':
		return sniffXML
	}
	return sniffBinary
}

// checkEncoding refuses XML in an encoding where markup is not ASCII (UTF-16 and UTF-32,
// EBCDIC, UTF-7): the rules here read bytes, LibreOffice's parser would read characters.
// Binary parts that merely start with such bytes pass: markup must follow.
func checkEncoding(head []byte) error {
	wide := func(b []byte) bool {
		return bytes.Contains(b[:min(len(b), 64)], []byte("<\x00")) || bytes.Contains(b[:min(len(b), 64)], []byte("\x00<"))
	}
	switch {
	case bytes.HasPrefix(head, []byte{0xFE, 0xFF}), bytes.HasPrefix(head, []byte{0xFF, 0xFE}), bytes.HasPrefix(head, []byte{0, 0, 0xFE, 0xFF}):
		if wide(head) {
			return errors.New("is in UTF-16 or UTF-32; save it as UTF-8")
		}
	case bytes.HasPrefix(head, []byte("<\x00")), bytes.HasPrefix(head, []byte("\x00<")), bytes.HasPrefix(head, []byte("\x00\x00<\x00")), bytes.HasPrefix(head, []byte("\x00\x00\x00<")):
		return errors.New("is in UTF-16 or UTF-32; save it as UTF-8")
	case bytes.HasPrefix(head, []byte{0x4C, 0x6F, 0xA7, 0x94}): // "<?xm" in EBCDIC
		return errors.New("is in EBCDIC; save it as UTF-8")
	case bytes.HasPrefix(head, []byte("+/v")) && bytes.Contains(head[:min(len(head), 64)], []byte("+ADw")):
		return errors.New("is in UTF-7; save it as UTF-8")
	}
	b := bytes.TrimPrefix(head, []byte("\xEF\xBB\xBF"))
	if !bytes.HasPrefix(b, []byte("<?xml")) {
		return nil
	}
	end := bytes.Index(b, []byte("?>"))
	if end < 0 {
		end = len(b)
	}
	m := encodingDecl.FindSubmatch(b[:end])
	if m == nil {
		return nil
	}
	enc := strings.ToLower(string(m[2]))
	for _, ok := range []string{"utf-8", "utf8", "us-ascii", "ascii", "iso-8859-", "iso8859-", "latin", "windows-125", "cp125"} {
		if strings.HasPrefix(enc, ok) {
			return nil
		}
	}
	return fmt.Errorf("is in the encoding %q; save it as UTF-8", m[2])
}

var encodingDecl = lazyre.New(`encoding\s*=\s*(["'])([^"']*)(["'])`)

// edit replaces doc[start:end].
type edit struct {
	start, end int
	repl       string
}

// maxRounds bounds sanitizeXML's passes: taking something out can join what was around
// it into new markup, so the rules run again on their result until nothing changes.
const maxRounds = 8

// sanitizeXML applies the rules to one XML document, until they change nothing more.
func sanitizeXML(b []byte) ([]byte, bool, error) { return sanitizeXMLWith(b, &cleaner{}) }

// sanitizeXMLWith is sanitizeXML with what the rules share across parts (refs, used).
func sanitizeXMLWith(b []byte, rules *cleaner) ([]byte, bool, error) {
	changed := false
	for range maxRounds {
		out, ch, err := sanitizeOnce(b, rules)
		if err != nil || !ch {
			return out, changed, err
		}
		b, changed = out, true
	}
	return nil, false, errors.New("does not settle: it is built to defeat this check")
}

func sanitizeOnce(b []byte, rules *cleaner) ([]byte, bool, error) {
	s := &cleaner{b: b, refs: rules.refs, used: rules.used}
	if err := scanXML(b, s.event); err != nil {
		return nil, false, err
	}
	s.endFields(len(b))
	if len(s.edits) == 0 {
		return b, false, nil
	}
	var out bytes.Buffer
	out.Grow(len(b))
	pos := 0
	for _, e := range s.edits {
		if e.start < pos { // inside an element already dropped
			continue
		}
		out.Write(b[pos:e.start])
		out.WriteString(e.repl)
		pos = e.end
	}
	out.Write(b[pos:])
	return out.Bytes(), true, nil
}

// cleaner holds the rules' state over one document's events.
type cleaner struct {
	b     []byte
	edits []edit
	depth int

	refs map[string]bool // collected: the relationship ids the part uses outside hyperlinks
	used map[string]bool // for a relationship part: those of its source part

	drop      int // the depth at which an element being dropped closes, 0 when none
	dropStart int

	fields []*field // Word's complex fields, innermost last
	instr  *field   // the instrText being read: its text and span
}

type span struct{ start, end int }

// field is a Word complex field: its instruction, and where its instruction text lies.
type field struct {
	instr strings.Builder
	bad   bool // an entity that cannot be resolved
	spans []span
	done  bool // its instruction is complete (separate or end seen)
}

// localName is a qualified name without its prefix.
func localName(qname []byte) []byte {
	if i := bytes.LastIndexByte(qname, ':'); i >= 0 {
		return qname[i+1:]
	}
	return qname
}

func (c *cleaner) event(ev xmlEvent) {
	switch ev.kind {
	case evStart:
		if c.instr != nil { // instrText holds text only: any tag closes it
			c.endInstr(ev.start)
		}
		c.start(ev)
		if !ev.selfClosing {
			c.depth++
		}
	case evEnd:
		if c.instr != nil { // instrText holds text only: any end tag closes it
			c.endInstr(ev.start)
		}
		if c.drop > 0 && c.depth == c.drop {
			c.edits = append(c.edits, edit{c.dropStart, ev.end, ""})
			c.drop = 0
		}
		if c.depth > 0 {
			c.depth--
		}
	case evText, evCDATA:
		if c.instr != nil {
			t, ok := ev.text(c.b)
			c.instr.instr.WriteString(t)
			c.instr.bad = c.instr.bad || !ok
		}
	}
}

// endInstr adds the instruction text just read to its field; text outside any field is
// judged on its own.
func (c *cleaner) endInstr(end int) {
	in := c.instr
	c.instr = nil
	in.spans[0].end = end
	if f := c.open(); f != nil {
		f.instr.WriteString(in.instr.String())
		f.bad = f.bad || in.bad
		f.spans = append(f.spans, in.spans[0])
		return
	}
	c.decide(in)
}

func (c *cleaner) start(ev xmlEvent) {
	local := string(localName(ev.name)) // the interesting ones are short: no allocation
	switch local {
	case "Relationship":
		if c.dangerousRelationship(ev) {
			if ev.selfClosing {
				c.edits = append(c.edits, edit{ev.start, ev.end, ""})
			} else if c.drop == 0 {
				c.drop, c.dropStart = c.depth+1, ev.start
			}
		}
		return
	case "fldSimple":
		for _, a := range ev.attrs {
			if string(localName(a.name)) == "instr" && dangerousField(c.value(a)) {
				c.blank(a)
			}
		}
	case "fldChar":
		for _, a := range ev.attrs {
			if string(localName(a.name)) != "fldCharType" {
				continue
			}
			switch v, _ := c.value(a); strings.TrimSpace(v) {
			case "begin":
				c.fields = append(c.fields, &field{})
			case "separate":
				if f := c.open(); f != nil {
					c.decide(f)
				}
			case "end":
				if f := c.open(); f != nil {
					c.decide(f)
				}
				if n := len(c.fields); n > 0 {
					c.fields = c.fields[:n-1]
				}
			}
		}
	case "instrText", "delInstrText":
		if !ev.selfClosing {
			c.instr = &field{spans: []span{{start: ev.end}}}
		}
	}
	hyperlink := local == "hyperlink" || strings.HasPrefix(local, "hlink") // w:hyperlink, a:hlinkClick
	for _, a := range ev.attrs {
		an := string(localName(a.name))
		if relRefs[an] && !hyperlink && c.refs != nil {
			if v, ok := c.value(a); ok {
				c.refs[strings.TrimSpace(v)] = true
			}
		}
		switch {
		case an == "href" || an == "src" || an == "image-data":
			// Hyperlinks (text:a, draw:a, svg a) are only links; every other reference
			// is loaded.
			if local != "a" && outsidePackage(c.value(a)) {
				c.blank(a)
			}
		case an == "dde-topic" || an == "ddeTopic" || an == "sourceFile" || an == "odcFile" || (an == "url" && local == "webPr"):
			// DDE (LibreOffice opens the topic as a document), Excel text imports, web
			// queries and connection files: nothing of these is kept.
			if v, _ := c.value(a); v != "" {
				c.blank(a)
			}
		case an == "database-name" || an == "datasource":
			// A data source given as a URL or path is opened as a database.
			if outsidePackage(c.value(a)) {
				c.blank(a)
			}
		}
	}
}

// relRefs are the attributes (r:id, r:embed, r:link, o:relid, ...) that name a
// relationship of their part.
var relRefs = map[string]bool{"id": true, "embed": true, "link": true, "pict": true, "relid": true, "dm": true, "lo": true, "qs": true, "cs": true, "href": true}

// open is the innermost field whose instruction is still being read.
func (c *cleaner) open() *field {
	if n := len(c.fields); n > 0 && !c.fields[n-1].done {
		return c.fields[n-1]
	}
	return nil
}

// decide blanks a field's instruction when it loads something.
func (c *cleaner) decide(f *field) {
	f.done = true
	if dangerousField(f.instr.String(), !f.bad) {
		for _, s := range f.spans {
			c.edits = append(c.edits, edit{s.start, s.end, ""})
		}
	}
}

// endFields decides the fields left open at the end of the document.
func (c *cleaner) endFields(end int) {
	if c.instr != nil {
		c.endInstr(end)
	}
	for _, f := range c.fields {
		if !f.done {
			c.decide(f)
		}
	}
	sortEdits(c.edits)
}

// sortEdits orders the edits by position (a field's spans are added when it ends).
func sortEdits(es []edit) {
	slices.SortStableFunc(es, func(a, b edit) int { return a.start - b.start })
}

// blank empties an attribute's value.
func (c *cleaner) blank(a xmlAttr) {
	switch {
	case a.quoted:
		c.edits = append(c.edits, edit{a.vstart, a.vend, ""})
	case a.vstart >= 0:
		c.edits = append(c.edits, edit{a.vstart, a.vend, `""`})
	}
}

// value is an attribute's value with its references resolved; ok is false when it holds
// one this cannot resolve (then the rules take the worst).
func (c *cleaner) value(a xmlAttr) (string, bool) {
	if a.vstart < 0 {
		return "", true
	}
	return unescape(c.b[a.vstart:a.vend])
}

// dangerousRelationship: an OOXML relationship to something outside the package, other
// than a hyperlink that its part uses as a hyperlink only.
func (c *cleaner) dangerousRelationship(ev xmlEvent) bool {
	external, hyperlink, typed := false, true, false
	for _, a := range ev.attrs {
		v, ok := c.value(a)
		v = strings.TrimSpace(v)
		switch string(localName(a.name)) {
		case "Id":
			if !ok || c.used[v] {
				hyperlink = false // its part uses it for something else too
			}
		case "TargetMode":
			// LibreOffice reads only "External" as external; anything but "Internal"
			// counts here.
			if !ok || !strings.EqualFold(v, "Internal") {
				external = true
			}
		case "Target":
			if !ok || absoluteTarget(v) {
				external = true
			}
		case "Type":
			typed = true
			if !ok || !strings.HasSuffix(v, "/hyperlink") {
				hyperlink = false
			}
		}
	}
	return external && !(hyperlink && typed)
}

// schemeRE is a URI scheme, or a drive letter.
var schemeRE = lazyre.New(`^[A-Za-z][A-Za-z0-9+.\-]*:`)

// absoluteTarget: a relationship target that is not a part name (relative or
// "/word/media/..."): a URL, a UNC or Windows path.
func absoluteTarget(t string) bool {
	return schemeRE.MatchString(t) || strings.HasPrefix(t, "//") || strings.ContainsRune(t, '\\')
}

// outsidePackage: an ODF (or SVG) reference that does not stay inside the package: a
// URL (other than data:), an absolute or Windows path, or a relative one that climbs out
// ("../x.png" is next to the document's file). Fragment-only references stay.
func outsidePackage(ref string, ok bool) bool {
	if !ok {
		return true
	}
	ref = strings.TrimFunc(ref, func(r rune) bool { return r <= ' ' })
	switch {
	case ref == "" || strings.HasPrefix(ref, "#"):
		return false
	case strings.HasPrefix(strings.ToLower(ref), "data:"):
		return false
	case schemeRE.MatchString(ref), strings.HasPrefix(ref, "/"), strings.ContainsRune(ref, '\\'):
		return true
	}
	p, err := url.PathUnescape(ref)
	if err != nil || strings.ContainsAny(p, "\\") || schemeRE.MatchString(p) || strings.HasPrefix(p, "/") {
		return true
	}
	if i := strings.IndexAny(p, "?#"); i >= 0 {
		p = p[:i]
	}
	for _, seg := range strings.Split(path.Clean(p), "/") {
		if seg == ".." {
			return true
		}
	}
	return false
}

// fieldsLoading are the Word fields that load a picture, text, data or a document from
// elsewhere.
var fieldsLoading = map[string]bool{
	"INCLUDEPICTURE": true, "INCLUDETEXT": true, "INCLUDE": true, "IMPORT": true,
	"LINK": true, "DDE": true, "DDEAUTO": true, "DATABASE": true, "RD": true,
}

// dangerousField tells whether a field instruction loads something from elsewhere.
func dangerousField(instr string, ok bool) bool {
	if !ok {
		return true
	}
	instr = strings.TrimLeftFunc(instr, func(r rune) bool { return r <= ' ' || r == '\u00a0' || r == '\u3000' })
	end := strings.IndexFunc(instr, func(r rune) bool { return r <= ' ' || r == '"' || r == '\\' || r == '\u00a0' })
	if end < 0 {
		end = len(instr)
	}
	return fieldsLoading[strings.ToUpper(instr[:end])]
}

// unescape resolves XML's predefined entities and character references; ok is false for
// any other entity (declared in a DTD, which LibreOffice might expand).
func unescape(raw []byte) (string, bool) {
	if bytes.IndexByte(raw, '&') < 0 {
		return string(raw), true
	}
	var b strings.Builder
	ok := true
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '&')
		if i < 0 {
			b.Write(raw)
			break
		}
		b.Write(raw[:i])
		raw = raw[i:]
		j := bytes.IndexByte(raw, ';')
		if j < 0 {
			b.Write(raw)
			ok = false
			break
		}
		name := string(raw[1:j])
		raw = raw[j+1:]
		switch name {
		case "amp":
			b.WriteByte('&')
		case "lt":
			b.WriteByte('<')
		case "gt":
			b.WriteByte('>')
		case "quot":
			b.WriteByte('"')
		case "apos":
			b.WriteByte('\'')
		default:
			var n uint64
			var err error
			switch {
			case strings.HasPrefix(name, "#x") || strings.HasPrefix(name, "#X"):
				n, err = strconv.ParseUint(name[2:], 16, 32)
			case strings.HasPrefix(name, "#"):
				n, err = strconv.ParseUint(name[1:], 10, 32)
			default:
				err = errors.New("entity")
			}
			if err != nil {
				ok = false
				continue
			}
			b.WriteRune(rune(n))
		}
	}
	return b.String(), ok
}
