package conform

import (
	"bytes"
	"fmt"
	"github.com/papierkram/papierkram/internal/lazyre"
	"math"
	"sort"
	"strconv"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// The file pass reads the bytes as written: header, end of file, cross-reference
// keywords, and every object at the offset the cross-reference table gives (object
// syntax, number, string and name limits, stream keywords and lengths).

var reHeader = lazyre.New(`^%PDF-1\.[0-7]$`)

func (c *checker) checkFile() {
	b := c.raw
	line, rest := firstLine(b)
	c.check(reHeader.Match(line), "6.1.2-1", "header")
	second, _ := firstLine(rest)
	high := 0
	if len(second) > 0 && second[0] == '%' {
		for _, x := range second[1:] {
			if x > 127 {
				high++
			} else {
				break
			}
		}
	}
	c.check(high >= 4, "6.1.2-2", "header comment")
	c.checkEOF(b)
	c.checkXRefKeywords(b)
	c.checkObjectSyntax(b)
}

// firstLine splits b after its first end-of-line marker.
func firstLine(b []byte) (line, rest []byte) {
	i := bytes.IndexAny(b, "\r\n")
	if i < 0 {
		return b, nil
	}
	j := i + 1
	if b[i] == '\r' && j < len(b) && b[j] == '\n' {
		j++
	}
	return b[:i], b[j:]
}

// checkEOF: nothing but one end-of-line marker after the last %%EOF (6.1.3-3).
func (c *checker) checkEOF(b []byte) {
	i := bytes.LastIndex(b, []byte("%%EOF"))
	if i < 0 {
		c.fail("6.1.3-3", "no %%EOF")
		return
	}
	tail := string(b[i+5:])
	c.check(tail == "" || tail == "\n" || tail == "\r" || tail == "\r\n", "6.1.3-3", fmt.Sprintf("%d bytes after %%%%EOF", len(tail)))
}

var reXRef = lazyre.New(`(^|[\r\n])xref`)

// checkXRefKeywords: xref is followed by one end-of-line marker and the subsection header
// (6.1.4-2).
func (c *checker) checkXRefKeywords(b []byte) {
	for _, m := range reXRef.FindAllIndex(b, -1) {
		p := m[1]
		n := 0
		switch {
		case bytes.HasPrefix(b[p:], []byte("\r\n")):
			n = 2
		case p < len(b) && (b[p] == '\n' || b[p] == '\r'):
			n = 1
		}
		ok := n > 0 && p+n < len(b) && b[p+n] >= '0' && b[p+n] <= '9'
		c.check(ok, "6.1.4-2", fmt.Sprintf("xref at %d", p-4))
	}
}

// checkObjectSyntax reads each object at its offset.
func (c *checker) checkObjectSyntax(b []byte) {
	ctx := c.doc.Context()
	c.check(len(ctx.Table) <= 8388607, "6.1.13-7", "file")
	type at struct {
		num int
		off int64
	}
	var objs []at
	for n, e := range ctx.Table {
		if e == nil || e.Free || e.Compressed || e.Offset == nil || *e.Offset <= 0 || *e.Offset >= int64(len(b)) {
			continue
		}
		objs = append(objs, at{n, *e.Offset})
	}
	sort.Slice(objs, func(i, j int) bool { return objs[i].off < objs[j].off })
	for _, o := range objs {
		if c.ctx.Err() != nil {
			return
		}
		c.objectSyntax(b, int(o.off), o.num)
	}
}

var reObjHeader = lazyre.New(`^(\d+)(\s+)(\d+)(\s+)obj`)

// objectSyntax checks the object at off.
func (c *checker) objectSyntax(b []byte, off, num int) {
	loc := fmt.Sprintf("obj %d", num)
	m := reObjHeader.FindSubmatchIndex(b[off:min(len(b), off+64)])
	if m == nil {
		return // the table points elsewhere; pdfcpu repaired it, other rules see the damage
	}
	sp1, sp2 := b[off+m[4]:off+m[5]], b[off+m[8]:off+m[9]]
	eolBefore := off > 0 && (b[off-1] == '\n' || b[off-1] == '\r')
	p := off + m[1]
	eolAfter := p < len(b) && (b[p] == '\n' || b[p] == '\r')
	c.check(string(sp1) == " " && string(sp2) == " " && eolBefore && eolAfter, "6.1.9-1", loc)
	l := &lexer{b: b, p: p}
	for i := 0; i < 1_000_000; i++ {
		t, ok := l.nextRaw()
		if !ok {
			return
		}
		start := l.tok
		switch t.kind {
		case 'n':
			c.checkNumber(t.text, loc)
		case '(':
			c.check(literalLength(t.text) <= 32767, "6.1.13-3", loc)
		case '<':
			c.checkHex(t.text, loc)
		case '/':
			c.check(len(t.text) <= 127, "6.1.13-4", loc)
		case 'k':
			switch string(t.text) {
			case "endobj":
				before := start > 0 && (b[start-1] == '\n' || b[start-1] == '\r')
				after := l.p >= len(b) || b[l.p] == '\n' || b[l.p] == '\r'
				c.check(before && after, "6.1.9-1", loc+" endobj")
				return
			case "stream":
				c.streamSyntax(b, l, num, loc)
			case "obj":
				return // the next object: this one had no endobj
			}
		}
	}
}

// checkHex: a hexadecimal string's digits (6.1.6) and length (6.1.13-3).
func (c *checker) checkHex(t []byte, loc string) {
	digits := 0
	onlyHex := true
	for _, x := range t {
		switch {
		case isSpace(x):
		case x >= '0' && x <= '9' || x >= 'a' && x <= 'f' || x >= 'A' && x <= 'F':
			digits++
		default:
			onlyHex = false
		}
	}
	c.check(digits%2 == 0, "6.1.6-1", loc)
	c.check(onlyHex, "6.1.6-2", loc)
	c.check(digits/2 <= 32767, "6.1.13-3", loc)
}

// checkNumber: integers and reals within the limits of 6.1.13.
func (c *checker) checkNumber(t []byte, loc string) {
	if bytes.IndexByte(t, '.') < 0 {
		v, err := strconv.ParseInt(string(t), 10, 64)
		c.check(err == nil && v >= math.MinInt32 && v <= math.MaxInt32, "6.1.13-1", loc)
		return
	}
	v, err := strconv.ParseFloat(string(t), 64)
	if err != nil {
		return
	}
	c.check(math.Abs(v) <= 3.403e38, "6.1.13-2", loc)
	c.check(v == 0 || math.Abs(v) >= 1.175e-38, "6.1.13-5", loc)
}

// literalLength is the number of bytes a literal string's text stands for.
func literalLength(t []byte) int {
	n := 0
	for i := 0; i < len(t); i++ {
		if t[i] != '\\' || i+1 >= len(t) {
			n++
			continue
		}
		i++
		switch x := t[i]; {
		case x == '\r':
			if i+1 < len(t) && t[i+1] == '\n' {
				i++
			}
		case x == '\n':
		case x >= '0' && x <= '7':
			for k := 0; k < 2 && i+1 < len(t) && t[i+1] >= '0' && t[i+1] <= '7'; k++ {
				i++
			}
			n++
		default:
			n++
		}
	}
	return n
}

// streamSyntax checks a stream's keywords and Length (6.1.7.1-1, -2) and skips its data.
func (c *checker) streamSyntax(b []byte, l *lexer, num int, loc string) {
	p := l.p
	start := p
	switch {
	case bytes.HasPrefix(b[p:], []byte("\r\n")):
		start = p + 2
	case p < len(b) && b[p] == '\n':
		start = p + 1
	default:
		c.fail("6.1.7.1-2", loc+" stream keyword")
		if p < len(b) && b[p] == '\r' {
			start = p + 1
		}
	}
	// Where Length says the data ends, an end-of-line marker and endstream follow: the
	// first endstream found by search would be wrong for a stream holding a PDF.
	if e, ok := c.doc.Context().Table[num]; ok && e != nil {
		if sd, ok := e.Object.(types.StreamDict); ok {
			if v, ok := c.walk.number(sd.Dict["Length"]); ok && v >= 0 && start+int(v) <= len(b) {
				after := b[start+int(v):]
				for _, eol := range []string{"\r\nendstream", "\nendstream", "\rendstream"} {
					if bytes.HasPrefix(after, []byte(eol)) {
						l.p = start + int(v) + len(eol)
						return
					}
				}
			}
		}
	}
	end := bytes.Index(b[start:], []byte("endstream"))
	if end < 0 {
		l.p = len(b)
		return
	}
	end += start
	// The data ends before the end-of-line marker that precedes endstream; when that marker
	// is CR LF, the CR may also be the data's last byte: either reading counts.
	real, alt := end, -1
	eol := false
	if real > start && b[real-1] == '\n' {
		real--
		eol = true
		if real > start && b[real-1] == '\r' {
			alt = real - start
			real--
		}
	} else if real > start && b[real-1] == '\r' {
		real--
		eol = true
	}
	if !eol {
		c.fail("6.1.7.1-2", loc+" endstream keyword")
	}
	if e, ok := c.doc.Context().Table[num]; ok && e != nil {
		if sd, ok := e.Object.(types.StreamDict); ok && sd.StreamLength != nil {
			length := *sd.StreamLength
			if lo := sd.Dict["Length"]; lo != nil {
				if v, ok := c.walk.number(lo); ok {
					length = int64(v)
				}
			}
			c.check(length == int64(real-start) || length == int64(alt), "6.1.7.1-1", fmt.Sprintf("%s Length %d, %d bytes", loc, length, real-start))
		}
	}
	l.p = end + len("endstream")
}
