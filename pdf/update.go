package pdf

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/fault"
)

// Changes are the metadata fields to set; a nil field stays as it is.
type Changes struct {
	Title, Author, Subject, Keywords, Creator, Producer *string
	CreationDate                                        *time.Time
}

// SetMetadata returns the document with changed metadata, written to the Info dictionary
// and the XMP packet alike, with ModDate now. It appends an incremental update (ISO 32000-1,
// 7.5.6): the original bytes stay as they were, so nothing else changes, earlier signatures
// keep their byte ranges, and a PDF/A file keeps its identification and extension schemas.
func (d *Doc) SetMetadata(ch Changes, now time.Time) ([]byte, error) {
	return d.appendUpdate(ch, now, nil)
}

// newInfo applies ch to the document's metadata m and returns the new Info dictionary
// (every entry it had, Trapped and custom keys too, with the fields of m mirrored and
// ModDate now) and the metadata the XMP packet gets.
func newInfo(old types.Dict, m Metadata, ch Changes, now time.Time) (types.Dict, Metadata) {
	for k, v := range map[string]*string{"Title": ch.Title, "Author": ch.Author, "Subject": ch.Subject, "Keywords": ch.Keywords, "Creator": ch.Creator, "Producer": ch.Producer} {
		if v != nil {
			*m.field(k) = *v
		}
	}
	if ch.CreationDate != nil {
		m.CreationDate = ch.CreationDate
	}
	now = now.UTC().Truncate(time.Second)
	m.ModDate = &now
	if m.CreationDate != nil {
		t := m.CreationDate.UTC()
		m.CreationDate = &t
	}
	info := maps.Clone(old)
	if info == nil {
		info = types.Dict{}
	}
	for _, k := range infoKeys {
		if v := *m.field(k); v != "" {
			info[k] = pdfText(v)
		} else {
			delete(info, k)
		}
	}
	info["ModDate"] = types.StringLiteral(pdfDate(*m.ModDate))
	if m.CreationDate != nil {
		info["CreationDate"] = types.StringLiteral(pdfDate(*m.CreationDate))
	}
	return info, m
}

// appendUpdate writes the metadata changes and, when add is not nil, the embedded file
// and XMP schema as one incremental update.
func (d *Doc) appendUpdate(ch Changes, now time.Time, add *EmbedOptions) (out []byte, err error) {
	defer recoverInto(&err, "update")
	base, doc := d.src, d
	prev, ok := lastStartXRef(base)
	if !ok || d.ctx.Read.RepairOffset != 0 || d.ctx.Size == nil || d.ctx.Root == nil {
		// A file whose cross-reference table needed repair cannot take an increment that
		// points back into it; write it clean first, then update that.
		clean, err := write(d.ctx)
		if err != nil {
			return nil, err
		}
		if doc, err = Read(clean); err != nil {
			return nil, err
		}
		base = clean
		if prev, ok = lastStartXRef(base); !ok {
			return nil, fault.New(fault.Internal, "rewritten PDF has no startxref")
		}
	}
	m, err := doc.Metadata()
	if err != nil {
		return nil, err
	}
	info, m := newInfo(doc.infoDict(), m, ch, now)
	var schema *XMPSchema
	if add != nil {
		schema = add.Schema
	}
	xmp, err := updateXMP(doc.XMP(), m, schema)
	if err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "the PDF's XMP metadata cannot be read")
	}

	u := &update{buf: bytes.NewBuffer(append(bytes.Clone(base), '\n')), size: *doc.ctx.Size}
	infoRef := u.ref(doc.ctx.Info)
	u.object(infoRef, []byte(info.PDFString()))
	cat, err := doc.ctx.Catalog()
	if err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "the PDF has no readable catalog")
	}
	newCat, catChanged := maps.Clone(cat), false
	if r, ok := cat["Metadata"].(types.IndirectRef); ok {
		u.stream(u.ref(&r), xmp)
	} else {
		xref := u.ref(nil)
		u.stream(xref, xmp)
		newCat["Metadata"] = *types.NewIndirectRef(xref.num, xref.gen)
		catChanged = true
	}
	if add != nil && add.file != nil {
		doc.embed(u, newCat, add, now)
		catChanged = true
	}
	if catChanged {
		u.object(u.ref(doc.ctx.Root), []byte(newCat.PDFString()))
	}
	trailer := fmt.Sprintf("/Root %d %d R /Info %d %d R /Prev %d", doc.ctx.Root.ObjectNumber.Value(), doc.ctx.Root.GenerationNumber.Value(), infoRef.num, infoRef.gen, prev)
	if len(doc.ctx.ID) > 0 {
		trailer += " /ID " + doc.ctx.ID.PDFString()
	}
	u.finish(trailer, doc.ctx.Read.UsingXRefStreams)
	return u.buf.Bytes(), nil
}

type objRef struct{ num, gen int }

// update appends objects and a cross-reference section to a PDF.
type update struct {
	buf     *bytes.Buffer
	size    int // the trailer's /Size: one past the highest object number
	offsets map[objRef]int
}

// ref reuses an existing object's number, or allocates a new one when r is nil.
func (u *update) ref(r *types.IndirectRef) objRef {
	if r != nil {
		return objRef{r.ObjectNumber.Value(), r.GenerationNumber.Value()}
	}
	n := u.size
	u.size++
	return objRef{n, 0}
}

func (u *update) mark(r objRef) {
	if u.offsets == nil {
		u.offsets = map[objRef]int{}
	}
	u.offsets[r] = u.buf.Len()
}

func (u *update) object(r objRef, body []byte) {
	u.mark(r)
	fmt.Fprintf(u.buf, "%d %d obj\n", r.num, r.gen)
	u.buf.Write(body)
	u.buf.WriteString("\nendobj\n")
}

// stream writes an XMP metadata stream, unfiltered as PDF/A wants it.
func (u *update) stream(r objRef, data []byte) {
	u.mark(r)
	fmt.Fprintf(u.buf, "%d %d obj\n<</Type/Metadata/Subtype/XML/Length %d>>\nstream\n", r.num, r.gen, len(data))
	u.buf.Write(data)
	u.buf.WriteString("\nendstream\nendobj\n")
}

// finish writes the cross-reference section in the form the file already uses (a stream
// for files with cross-reference streams, else a classic table) and the trailer.
func (u *update) finish(trailer string, xrefStream bool) {
	var refs []objRef
	for r := range u.offsets {
		refs = append(refs, r)
	}
	if xrefStream {
		self := u.ref(nil)
		start := u.buf.Len()
		refs = append(refs, self)
		u.offsets[self] = start
		slices.SortFunc(refs, func(a, b objRef) int { return a.num - b.num })
		var data bytes.Buffer
		var index []string
		for _, r := range refs {
			index = append(index, strconv.Itoa(r.num), "1")
			data.WriteByte(1)
			binary.Write(&data, binary.BigEndian, uint32(u.offsets[r]))
			binary.Write(&data, binary.BigEndian, uint16(r.gen))
		}
		fmt.Fprintf(u.buf, "%d 0 obj\n<</Type/XRef/Size %d/W[1 4 2]/Index[%s]%s/Length %d>>\nstream\n",
			self.num, u.size, strings.Join(index, " "), trailer, data.Len())
		u.buf.Write(data.Bytes())
		fmt.Fprintf(u.buf, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", start)
		return
	}
	slices.SortFunc(refs, func(a, b objRef) int { return a.num - b.num })
	start := u.buf.Len()
	u.buf.WriteString("xref\n")
	for _, r := range refs {
		fmt.Fprintf(u.buf, "%d 1\n%010d %05d n \n", r.num, u.offsets[r], r.gen)
	}
	fmt.Fprintf(u.buf, "trailer\n<</Size %d %s>>\nstartxref\n%d\n%%%%EOF\n", u.size, trailer, start)
}

// lastStartXRef finds the offset the file's last startxref names.
func lastStartXRef(b []byte) (int, bool) {
	tail := b[max(0, len(b)-2048):]
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(tail[i+len("startxref"):]))
	if len(f) == 0 {
		return 0, false
	}
	n, err := strconv.Atoi(f[0])
	return n, err == nil && n >= 0 && n < len(b)
}

// pdfText encodes a text string: a literal when it is plain ASCII, else UTF-16BE with BOM.
func pdfText(s string) types.Object {
	ascii := true
	for _, r := range s {
		if r < 0x20 || r > 0x7e {
			ascii = false
			break
		}
	}
	if ascii {
		r := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
		return types.StringLiteral(r.Replace(s))
	}
	u := utf16.Encode([]rune(s))
	b := make([]byte, 2+2*len(u))
	b[0], b[1] = 0xfe, 0xff
	for i, c := range u {
		binary.BigEndian.PutUint16(b[2+2*i:], c)
	}
	return types.HexLiteral(hex.EncodeToString(b))
}

func pdfDate(t time.Time) string { return "D:" + t.UTC().Format("20060102150405") + "+00'00'" }
