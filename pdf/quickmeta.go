package pdf

import (
	"bytes"
	"maps"
	"strconv"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// quickMetadata writes metadata changes as the incremental update Doc.SetMetadata writes,
// without reading the document, for the files our own engines make: one classic
// cross-reference section (no /Prev, no cross-reference stream), a trailer with /Root and
// /Info, an Info dictionary of direct values, and a catalog without an XMP packet. Only
// the trailer, the Info dictionary and the catalog are parsed. ok is false for any other
// file (or anything unexpected): the caller then reads it in full.
func quickMetadata(data []byte, ch Changes, now time.Time) (out []byte, ok bool) {
	defer func() {
		if recover() != nil {
			out, ok = nil, false
		}
	}()
	prev, ok := lastStartXRef(data)
	if !ok {
		return nil, false
	}
	offsets, trailer, ok := classicXRef(data, prev)
	if !ok || trailer["Prev"] != nil || trailer["XRefStm"] != nil || trailer["Encrypt"] != nil {
		return nil, false
	}
	size, _ := trailer["Size"].(types.Integer)
	root, _ := trailer["Root"].(types.IndirectRef)
	infoRef, _ := trailer["Info"].(types.IndirectRef)
	if size <= 0 || root.ObjectNumber == 0 || infoRef.ObjectNumber == 0 {
		return nil, false
	}
	cat, ok := directDict(data, offsets, root)
	if !ok || cat["Metadata"] != nil {
		return nil, false // an XMP packet to keep in step: the full path reads and updates it
	}
	old, ok := directDict(data, offsets, infoRef)
	if !ok {
		return nil, false
	}
	var m Metadata
	for k, v := range old {
		if _, indirect := v.(types.IndirectRef); indirect {
			return nil, false
		}
		if f := m.field(k); f != nil {
			*f = textOf(v)
		}
	}
	m.CreationDate = dateOf(textOf(old["CreationDate"]))
	info, m := newInfo(old, m, ch, now)
	xmp, err := updateXMP(nil, m, nil)
	if err != nil {
		return nil, false
	}

	u := &update{buf: bytes.NewBuffer(append(bytes.Clone(data), '\n')), size: int(size)}
	ir := u.ref(&infoRef)
	u.object(ir, []byte(info.PDFString()))
	xr := u.ref(nil)
	u.stream(xr, xmp)
	newCat := maps.Clone(cat)
	newCat["Metadata"] = *types.NewIndirectRef(xr.num, xr.gen)
	u.object(u.ref(&root), []byte(newCat.PDFString()))
	t := "/Root " + root.PDFString() + " /Info " + infoRef.PDFString() + " /Prev " + strconv.Itoa(prev)
	if id, ok := trailer["ID"].(types.Array); ok {
		t += " /ID " + id.PDFString()
	}
	u.finish(t, false)
	return u.buf.Bytes(), true
}

// classicXRef reads the cross-reference table at offset and the trailer after it: the
// offsets of the objects in use, by number (generation 0 only, as a fresh file has them).
func classicXRef(data []byte, offset int) (map[int]int, types.Dict, bool) {
	rest := data[offset:]
	line, rest, ok := nextLine(rest)
	if !ok || string(bytes.TrimSpace(line)) != "xref" {
		return nil, nil, false
	}
	offsets := map[int]int{}
	for {
		line, rest, ok = nextLine(rest)
		if !ok {
			return nil, nil, false
		}
		f := bytes.Fields(line)
		if len(f) > 0 && bytes.HasPrefix(f[0], []byte("trailer")) { // "trailer" or "trailer<<…"
			break
		}
		if len(f) != 2 {
			return nil, nil, false
		}
		first, err1 := strconv.Atoi(string(f[0]))
		count, err2 := strconv.Atoi(string(f[1]))
		if err1 != nil || err2 != nil || first < 0 || count < 0 || count > len(rest)/20+1 {
			return nil, nil, false
		}
		for i := range count {
			// Entries are 20 bytes: 10 digits, space, 5 digits, space, n or f, two bytes of
			// line end.
			if len(rest) < 20 {
				return nil, nil, false
			}
			e := rest[:20]
			rest = rest[20:]
			if e[17] != 'n' {
				continue
			}
			off, err := strconv.Atoi(string(e[:10]))
			gen, err2 := strconv.Atoi(string(e[11:16]))
			if err != nil || err2 != nil || gen != 0 || off <= 0 || off >= len(data) {
				return nil, nil, false
			}
			offsets[first+i] = off
		}
	}
	end := bytes.Index(rest, []byte("startxref"))
	i := bytes.Index(data[offset:], []byte("trailer"))
	if end < 0 || i < 0 {
		return nil, nil, false
	}
	s := string(data[offset+i+len("trailer") : len(data)-len(rest)+end])
	o, err := model.ParseObject(&s)
	if d, ok := o.(types.Dict); err == nil && ok {
		return offsets, d, true
	}
	return nil, nil, false
}

// directDict parses the dictionary object r (no stream) at its offset.
func directDict(data []byte, offsets map[int]int, r types.IndirectRef) (types.Dict, bool) {
	if r.GenerationNumber != 0 {
		return nil, false
	}
	off, ok := offsets[r.ObjectNumber.Value()]
	if !ok {
		return nil, false
	}
	body := data[off:]
	head := strconv.Itoa(r.ObjectNumber.Value()) + " 0 obj"
	if !bytes.HasPrefix(body, []byte(head)) {
		return nil, false
	}
	body = body[len(head):]
	end := bytes.Index(body, []byte("endobj"))
	if end < 0 || bytes.Contains(body[:end], []byte("stream")) {
		return nil, false
	}
	s := string(body[:end])
	o, err := model.ParseObject(&s)
	d, ok := o.(types.Dict)
	return d, err == nil && ok
}

// nextLine splits off one line (ended by CR, LF or CRLF).
func nextLine(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexAny(b, "\r\n")
	if i < 0 {
		return nil, nil, false
	}
	line, rest = b[:i], b[i+1:]
	if b[i] == '\r' && len(rest) > 0 && rest[0] == '\n' {
		rest = rest[1:]
	}
	return line, rest, true
}
