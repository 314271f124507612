package testpdf

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"strings"
)

// Hostile PDFs for the tests of the PDF bounds check: small files that inflate to GBs or
// declare 100,000 pages. They are built without ever holding what they inflate to.

// Zeros returns a zlib stream (FlateDecode) that inflates to n zero bytes; about n/1000
// bytes long. Deflate reaches a steady state on zeros, so after the first megabytes one
// compressed megabyte block is repeated instead of compressing each again.
func Zeros(n int64) []byte {
	const chunk = 1 << 20
	var out, seg bytes.Buffer
	out.Write([]byte{0x78, 0xda})
	w, _ := flate.NewWriter(&seg, flate.BestCompression)
	zeros := make([]byte, chunk)
	var prev []byte
	for left := n; left > 0; {
		k := min(left, chunk)
		w.Write(zeros[:k])
		w.Flush()
		cur := bytes.Clone(seg.Bytes())
		seg.Reset()
		out.Write(cur)
		left -= k
		if k == chunk && bytes.Equal(prev, cur) {
			for ; left >= chunk; left -= chunk {
				out.Write(cur)
			}
		}
		prev = cur
	}
	w.Close()
	out.Write(seg.Bytes())
	// Adler-32 of n zero bytes: a stays 1, b adds 1 per byte.
	out.Write(binary.BigEndian.AppendUint32(nil, uint32(n%65521)<<16|1))
	return out.Bytes()
}

// ContentBomb returns a one-page PDF whose page content is streams Flate streams of
// zeros, total bytes together: with 1 stream of 2 GiB, 2 MB that inflate to 2 GiB.
func ContentBomb(total int64, streams int) []byte {
	w := NewWriter()
	w.Obj(1, "<</Type/Catalog/Pages 2 0 R>>")
	w.Obj(2, "<</Type/Pages/Kids[3 0 R]/Count 1>>")
	var refs strings.Builder
	for i := range streams {
		fmt.Fprintf(&refs, "%d 0 R ", 4+i)
	}
	w.Obj(3, fmt.Sprintf("<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]/Contents[%s]>>", refs.String()))
	z := Zeros(total / int64(streams))
	for i := range streams {
		w.Stream(4+i, "/Filter/FlateDecode", z)
	}
	return w.Finish("")
}

// Encryption encrypts a generated PDF: Dict is the encryption dictionary (written as
// object 9), ID the trailer's first /ID string (hex), Stream encrypts the data of stream
// object num (generation 0).
type Encryption struct {
	Dict, ID string
	Stream   func(num int, data []byte) []byte
}

// ObjectStreamBomb returns a one-page PDF whose catalog, page tree root and page sit in
// three object streams, each of which inflates to per bytes (the object, then zeros),
// with a cross-reference stream. pdfcpu inflates each while it reads. With enc the
// streams are encrypted (the cross-reference stream never is).
func ObjectStreamBomb(per int64, enc *Encryption) []byte {
	crypt := func(num int, data []byte) []byte {
		if enc == nil {
			return data
		}
		return enc.Stream(num, data)
	}
	var b bytes.Buffer
	b.WriteString(header)
	objs := []string{
		"<</Type/Catalog/Pages 2 0 R>>",
		"<</Type/Pages/Kids[3 0 R]/Count 1>>",
		"<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]/Contents 4 0 R>>",
	}
	// Objects 1 to 3 in object streams 5 to 7, object 4 the page content, 8 the
	// cross-reference stream.
	type loc struct{ typ, a int }
	locs := map[int]loc{}
	content := "BT /F1 24 Tf 72 700 Td (Bomb) Tj ET"
	locs[4] = loc{1, b.Len()}
	c := crypt(4, []byte(content))
	fmt.Fprintf(&b, "4 0 obj\n<</Length %d>>\nstream\n", len(c))
	b.Write(c)
	b.WriteString("\nendstream\nendobj\n")
	z := Zeros(per)
	for i, o := range objs {
		num := 5 + i
		prolog := fmt.Sprintf("%d 0 ", i+1)
		head := prolog + o + "\n"
		data := crypt(num, zlibConcat([]byte(head), z, per))
		locs[i+1] = loc{2, num}
		locs[num] = loc{1, b.Len()}
		fmt.Fprintf(&b, "%d 0 obj\n<</Type/ObjStm/N 1/First %d/Filter/FlateDecode/Length %d>>\nstream\n", num, len(prolog), len(data))
		b.Write(data)
		b.WriteString("\nendstream\nendobj\n")
	}
	size, trailer := 9, ""
	if enc != nil {
		size = 10
		locs[9] = loc{1, b.Len()}
		fmt.Fprintf(&b, "9 0 obj\n%s\nendobj\n", enc.Dict)
		trailer = fmt.Sprintf("/Encrypt 9 0 R/ID[<%s><%s>]", enc.ID, enc.ID)
	}
	locs[8] = loc{1, b.Len()}
	var x bytes.Buffer
	for n := range size {
		switch l, ok := locs[n]; {
		case !ok:
			x.Write([]byte{0, 0, 0, 0, 0, 0xff, 0xff})
		case l.typ == 1:
			x.WriteByte(1)
			x.Write(binary.BigEndian.AppendUint32(nil, uint32(l.a)))
			x.Write([]byte{0, 0})
		default:
			x.WriteByte(2)
			x.Write(binary.BigEndian.AppendUint32(nil, uint32(l.a)))
			x.Write([]byte{0, 0})
		}
	}
	start := b.Len()
	fmt.Fprintf(&b, "8 0 obj\n<</Type/XRef/Size %d/W[1 4 2]/Root 1 0 R%s/Length %d>>\nstream\n", size, trailer, x.Len())
	b.Write(x.Bytes())
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", start)
	return b.Bytes()
}

// zlibConcat returns a zlib stream of head followed by n zero bytes, z being Zeros(n).
func zlibConcat(head, z []byte, n int64) []byte {
	// Zeros' deflate data begins after its 2-byte header and ends before its 4-byte
	// checksum; put a stored block with head in front (BFINAL 0, BTYPE 00).
	var out bytes.Buffer
	out.Write(z[:2])
	out.WriteByte(0)
	out.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(head))))
	out.Write(binary.LittleEndian.AppendUint16(nil, ^uint16(len(head))))
	out.Write(head)
	out.Write(z[2 : len(z)-4])
	out.Write(binary.BigEndian.AppendUint32(nil, adler(head, n)))
	return out.Bytes()
}

// adler is the Adler-32 of head followed by n zero bytes.
func adler(head []byte, n int64) uint32 {
	const mod = 65521
	a, b := uint64(1), uint64(0)
	for _, c := range head {
		a = (a + uint64(c)) % mod
		b = (b + a) % mod
	}
	// n more bytes of 0: a stays, b grows by a each.
	b = (b + a*uint64(n%mod)) % mod
	return uint32(b<<16 | a)
}

// ManyPages returns a PDF of n pages that share one content stream, under page tree
// nodes of 1000 pages each; /Count of the root says claimed (n when claimed is 0).
func ManyPages(n, claimed int) []byte {
	if claimed == 0 {
		claimed = n
	}
	w := NewWriter()
	w.Obj(1, "<</Type/Catalog/Pages 2 0 R>>")
	w.Stream(3, "", []byte("BT /F1 12 Tf 72 720 Td (x) Tj ET"))
	const fan = 1000
	nodes := (n + fan - 1) / fan
	var kids strings.Builder
	next := 4 + nodes
	for i := range nodes {
		node := 4 + i
		fmt.Fprintf(&kids, "%d 0 R ", node)
		cnt := min(fan, n-i*fan)
		var k strings.Builder
		for range cnt {
			w.Obj(next, fmt.Sprintf("<</Type/Page/Parent %d 0 R/Contents 3 0 R>>", node))
			fmt.Fprintf(&k, "%d 0 R ", next)
			next++
		}
		w.Obj(node, fmt.Sprintf("<</Type/Pages/Parent 2 0 R/Count %d/Kids[%s]>>", cnt, k.String()))
	}
	w.Obj(2, fmt.Sprintf("<</Type/Pages/Kids[%s]/Count %d/MediaBox[0 0 595 842]>>", kids.String(), claimed))
	return w.Finish("")
}

// Page returns a one-page PDF whose content stream has the dictionary entries dict and the
// data as given (encoded already), for tests of filters.
func Page(dict string, data []byte) []byte {
	w := NewWriter()
	w.Obj(1, "<</Type/Catalog/Pages 2 0 R>>")
	w.Obj(2, "<</Type/Pages/Kids[3 0 R]/Count 1>>")
	w.Obj(3, "<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]/Contents 4 0 R>>")
	w.Stream(4, dict, data)
	return w.Finish("")
}

// SharedContent returns a PDF of n pages that all draw one Flate content stream of size
// zero bytes: a reader that copies or draws every page decodes it n times.
func SharedContent(n int, size int64) []byte {
	w := NewWriter()
	w.Obj(1, "<</Type/Catalog/Pages 2 0 R>>")
	w.Stream(3, "/Filter/FlateDecode", Zeros(size))
	var kids strings.Builder
	for i := range n {
		w.Obj(4+i, "<</Type/Page/Parent 2 0 R/Contents 3 0 R>>")
		fmt.Fprintf(&kids, "%d 0 R ", 4+i)
	}
	w.Obj(2, fmt.Sprintf("<</Type/Pages/Kids[%s]/Count %d/MediaBox[0 0 595 842]>>", kids.String(), n))
	return w.Finish("")
}

// ManyObjects returns a one-page PDF with n more objects (small integers) that nothing
// uses.
func ManyObjects(n int) []byte {
	w := NewWriter()
	w.Obj(1, "<</Type/Catalog/Pages 2 0 R>>")
	w.Obj(2, "<</Type/Pages/Kids[3 0 R]/Count 1>>")
	w.Obj(3, "<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>")
	for i := range n {
		w.Obj(4+i, "0")
	}
	return w.Finish("")
}

// Padding returns a one-page PDF with streams Flate streams of zeros, total bytes
// together, that no page draws (as embedded files or thumbnails would be).
func Padding(total int64, streams int) []byte {
	w := NewWriter()
	w.Obj(1, "<</Type/Catalog/Pages 2 0 R>>")
	w.Obj(2, "<</Type/Pages/Kids[3 0 R]/Count 1>>")
	w.Obj(3, "<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>")
	z := Zeros(total / int64(streams))
	for i := range streams {
		w.Stream(4+i, "/Filter/FlateDecode", z)
	}
	return w.Finish("")
}

// ContentPages returns a PDF of n pages, each drawing its own Flate content stream of
// size zero bytes.
func ContentPages(n int, size int64) []byte {
	w := NewWriter()
	w.Obj(1, "<</Type/Catalog/Pages 2 0 R>>")
	z := Zeros(size)
	var kids strings.Builder
	for i := range n {
		w.Obj(3+2*i, fmt.Sprintf("<</Type/Page/Parent 2 0 R/Contents %d 0 R>>", 4+2*i))
		w.Stream(4+2*i, "/Filter/FlateDecode", z)
		fmt.Fprintf(&kids, "%d 0 R ", 3+2*i)
	}
	w.Obj(2, fmt.Sprintf("<</Type/Pages/Kids[%s]/Count %d/MediaBox[0 0 595 842]>>", kids.String(), n))
	return w.Finish("")
}

// Attachments returns a one-page PDF with n embedded files (a.xml, b.xml, ...), each a
// Flate stream of size zero bytes.
func Attachments(n int, size int64) []byte {
	w := NewWriter()
	var names strings.Builder
	for i := range n {
		fmt.Fprintf(&names, "(%c.xml) %d 0 R ", 'a'+i, 4+2*i)
	}
	w.Obj(1, fmt.Sprintf("<</Type/Catalog/Pages 2 0 R/Names<</EmbeddedFiles<</Names[%s]>>>>>>", names.String()))
	w.Obj(2, "<</Type/Pages/Kids[3 0 R]/Count 1>>")
	w.Obj(3, "<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]>>")
	z := Zeros(size)
	for i := range n {
		w.Obj(4+2*i, fmt.Sprintf("<</Type/Filespec/F(%c.xml)/UF(%c.xml)/EF<</F %d 0 R>>>>", 'a'+i, 'a'+i, 5+2*i))
		w.Stream(5+2*i, "/Type/EmbeddedFile/Subtype/text#2Fxml/Filter/FlateDecode", z)
	}
	return w.Finish("")
}
