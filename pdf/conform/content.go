package conform

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/pdf"
)

// The content pass reads every content stream the walker queued, operator by operator:
// device colours set without an output intent (6.2.4.3), q/Q nesting (6.1.13-8),
// operators ISO 32000-1 does not define (6.2.2-1), resources a form names without having
// its own (6.2.2-2), inline images (6.1.10, 6.2.8) and the fonts text is shown in, with
// their rendering mode (6.2.11).

// operand is one operand as written.
type operand struct {
	kind byte // 'n' number, '/' name, '(' string, '<' hex string, '[' array, 'd' dictionary, 'k' other keyword
	text []byte
	raw  []byte    // a name as written, before #-escapes are expanded
	arr  []operand // array elements
	dict map[string]operand
}

func (o operand) name() string {
	if o.kind == '/' {
		return string(o.text)
	}
	return ""
}

func (o operand) num() (float64, bool) {
	if o.kind != 'n' {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(o.text), 64)
	return f, err == nil
}

// lexer reads a content stream.
type lexer struct {
	b   []byte
	p   int
	tok int // where the last token read begins
}

var (
	isSpace     = pdf.IsWhite
	isDelimiter = pdf.IsDelimiter
)

func (l *lexer) skip() {
	for l.p < len(l.b) {
		c := l.b[l.p]
		if isSpace(c) {
			l.p++
		} else if c == '%' {
			for l.p < len(l.b) && l.b[l.p] != '\n' && l.b[l.p] != '\r' {
				l.p++
			}
		} else {
			return
		}
	}
}

// maxNesting bounds arrays and dictionaries in operands.
const maxNesting = 32

// next reads one token: an operand, or an operator (kind 'k'). ok is false at the end.
func (l *lexer) next(depth int) (operand, bool) {
	l.skip()
	if l.p >= len(l.b) {
		return operand{}, false
	}
	c := l.b[l.p]
	start := l.p
	l.tok = start
	switch {
	case c == '/':
		l.p++
		for l.p < len(l.b) && !isSpace(l.b[l.p]) && !isDelimiter(l.b[l.p]) {
			l.p++
		}
		return operand{kind: '/', text: unescapeName(l.b[start+1 : l.p]), raw: l.b[start+1 : l.p]}, true
	case c == '(':
		l.p++
		nest := 1
		for l.p < len(l.b) && nest > 0 {
			switch l.b[l.p] {
			case '\\':
				l.p++
			case '(':
				nest++
			case ')':
				nest--
			}
			l.p++
		}
		return operand{kind: '(', text: l.b[start+1 : max(start+1, l.p-1)]}, true
	case c == '<' && l.p+1 < len(l.b) && l.b[l.p+1] == '<':
		l.p += 2
		d := map[string]operand{}
		for depth < maxNesting {
			l.skip()
			if l.p+1 < len(l.b) && l.b[l.p] == '>' && l.b[l.p+1] == '>' {
				l.p += 2
				break
			}
			k, ok := l.next(depth + 1)
			if !ok {
				break
			}
			v, ok := l.next(depth + 1)
			if !ok {
				break
			}
			d[k.name()] = v
		}
		return operand{kind: 'd', dict: d}, true
	case c == '<':
		l.p++
		for l.p < len(l.b) && l.b[l.p] != '>' {
			l.p++
		}
		l.p++
		return operand{kind: '<', text: l.b[start+1 : min(len(l.b), max(start+1, l.p-1))]}, true
	case c == '[':
		l.p++
		var arr []operand
		for depth < maxNesting {
			l.skip()
			if l.p >= len(l.b) {
				break
			}
			if l.b[l.p] == ']' {
				l.p++
				break
			}
			v, ok := l.next(depth + 1)
			if !ok {
				break
			}
			arr = append(arr, v)
		}
		return operand{kind: '[', arr: arr}, true
	case c == ']' || c == '>' || c == ')' || c == '{' || c == '}':
		l.p++
		return operand{kind: 'k', text: l.b[start:l.p]}, true
	}
	for l.p < len(l.b) && !isSpace(l.b[l.p]) && !isDelimiter(l.b[l.p]) {
		l.p++
	}
	t := l.b[start:l.p]
	if len(t) > 0 && (t[0] >= '0' && t[0] <= '9' || t[0] == '-' || t[0] == '+' || t[0] == '.') {
		return operand{kind: 'n', text: t}, true
	}
	if string(t) == "true" || string(t) == "false" || string(t) == "null" {
		return operand{kind: 'b', text: t}, true
	}
	return operand{kind: 'k', text: t}, true
}

// nextRaw reads one token of a file's object: unlike next, arrays and dictionaries are not
// gathered (their delimiters come as keywords), so every element is seen.
func (l *lexer) nextRaw() (operand, bool) {
	l.skip()
	if l.p >= len(l.b) {
		return operand{}, false
	}
	l.tok = l.p
	switch c := l.b[l.p]; {
	case c == '[' || c == ']':
		l.p++
		return operand{kind: 'k', text: l.b[l.p-1 : l.p]}, true
	case c == '<' && l.p+1 < len(l.b) && l.b[l.p+1] == '<', c == '>' && l.p+1 < len(l.b) && l.b[l.p+1] == '>':
		l.p += 2
		return operand{kind: 'k', text: l.b[l.p-2 : l.p]}, true
	}
	return l.next(0)
}

// inlineData skips an inline image's data after ID, to EI.
func (l *lexer) inlineData() {
	if l.p < len(l.b) && isSpace(l.b[l.p]) {
		l.p++
	}
	for l.p < len(l.b) {
		i := bytes.Index(l.b[l.p:], []byte("EI"))
		if i < 0 {
			l.p = len(l.b)
			return
		}
		at := l.p + i
		before := at == 0 || isSpace(l.b[at-1])
		after := at+2 >= len(l.b) || isSpace(l.b[at+2]) || isDelimiter(l.b[at+2])
		l.p = at + 2
		if before && after {
			return
		}
	}
}

// unescapeName expands #xx escapes of a name.
func unescapeName(b []byte) []byte {
	if bytes.IndexByte(b, '#') < 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '#' && i+2 < len(b) {
			if v, err := strconv.ParseUint(string(b[i+1:i+3]), 16, 8); err == nil {
				out = append(out, byte(v))
				i += 2
				continue
			}
		}
		out = append(out, b[i])
	}
	return out
}

// operators are those ISO 32000-1 defines (Annex A).
var operators = map[string]bool{}

func init() {
	for _, op := range []string{"b", "B", "b*", "B*", "BDC", "BI", "BMC", "BT", "BX", "c", "cm", "CS", "cs", "d", "d0", "d1", "Do",
		"DP", "EI", "EMC", "ET", "EX", "f", "F", "f*", "G", "g", "gs", "h", "i", "ID", "j", "J", "K", "k", "l", "m", "M", "MP", "n",
		"q", "Q", "re", "RG", "rg", "ri", "s", "S", "SC", "sc", "SCN", "scn", "sh", "T*", "Tc", "Td", "TD", "Tf", "Tj", "TJ", "TL",
		"Tm", "Tr", "Ts", "Tw", "Tz", "v", "w", "W", "W*", "y", "'", "\""} {
		operators[op] = true
	}
}

// maxNestingQ is the deepest q/Q nesting PDF/A allows (6.1.13-8).
const maxNestingQ = 28

// checkContent reads the queued content streams.
func (c *checker) checkContent() {
	w := c.walk
	if w == nil {
		return
	}
	for i := 0; i < len(w.contents) && c.ctx.Err() == nil; i++ {
		w.readContent(w.contents[i])
	}
	c.checkFonts()
	// 6.2.10-2: without an output intent, a page that uses transparency needs a group
	// with a blending colour space.
	if !w.hasIntent {
		for p := range w.transparent {
			w.c.check(w.pageGroupCS[p], "6.2.10-2", fmt.Sprintf("page %d", p))
		}
	}
}

// readContent runs one content stream.
func (w *walker) readContent(ct content) {
	c := w.c
	l := &lexer{b: ct.data}
	var ops []operand
	depth := 0
	tooDeep := false
	renderMode := 0
	var font types.Object
	fontName := ""
	res := ct.resources
	named := func(category, name string) types.Object {
		if name != "" && (ct.own && res == nil || ct.inherited) {
			c.fail("6.2.2-2", ct.loc+" names /"+name+" without its own Resources")
		}
		return w.dict(res[category])[name]
	}
	// The colour state: whether colour was set in this stream (a page's content starts in
	// DeviceGray black), and overprinting with an ICCBased CMYK space (6.2.4.2-2).
	fillSet, strokeSet := false, false
	var opStroke, opFill bool
	var opm float64
	cmykFill, cmykStroke := false, false
	// Painting uses the current colours: the overprint rule and the initial colour apply
	// to what is painted, not to what is set.
	paint := func(fill, stroke bool) {
		if opm == 1 && (fill && cmykFill && opFill || stroke && cmykStroke && opStroke) {
			c.fail("6.2.4.2-2", ct.loc)
		}
		if ct.page == 0 || ct.own || ct.inherited {
			return
		}
		if fill && !fillSet || stroke && !strokeSet {
			w.useDevice("DeviceGray", res, ct.loc+" initial colour")
			fillSet, strokeSet = true, true
		}
	}
	for n := 0; n < 10_000_000; n++ {
		t, ok := l.next(0)
		if !ok {
			break
		}
		if t.kind != 'k' {
			switch t.kind {
			case 'n':
				c.checkNumber(t.text, ct.loc)
			case '(':
				c.check(literalLength(t.text) <= 32767, "6.1.13-3", ct.loc)
			case '<':
				c.checkHex(t.text, ct.loc)
			}
			ops = append(ops, t)
			if len(ops) > 64 {
				ops = ops[1:]
			}
			continue
		}
		op := string(t.text)
		arg := func(i int) operand {
			if j := len(ops) - 1 - i; j >= 0 {
				return ops[j]
			}
			return operand{}
		}
		switch op {
		case "q":
			depth++
			if depth > maxNestingQ && !tooDeep {
				c.fail("6.1.13-8", ct.loc)
				tooDeep = true
			}
		case "Q":
			depth = max(0, depth-1)
		case "rg", "RG", "k", "K", "g", "G":
			family := map[byte]string{'r': "DeviceRGB", 'R': "DeviceRGB", 'k': "DeviceCMYK", 'K': "DeviceCMYK", 'g': "DeviceGray", 'G': "DeviceGray"}[op[0]]
			w.useDevice(family, res, ct.loc+" "+op)
			if op[0] >= 'a' {
				fillSet, cmykFill = true, false
			} else {
				strokeSet, cmykStroke = true, false
			}
		case "ri":
			c.check(renderingIntents[arg(0).name()], "6.2.6-1", ct.loc+" ri")
		case "f", "F", "f*":
			paint(true, false)
		case "S", "s":
			paint(false, true)
		case "B", "B*", "b", "b*":
			paint(true, true)
		case "cs", "CS":
			name := arg(0).name()
			if op == "cs" {
				fillSet, cmykFill = true, false
			} else {
				strokeSet, cmykStroke = true, false
			}
			switch name {
			case "DeviceRGB", "DeviceCMYK", "DeviceGray":
				w.useDevice(name, res, ct.loc+" "+op)
			case "Pattern":
			default:
				cs := named("ColorSpace", name)
				w.colorSpace(cs, ct.loc+" ColorSpace "+name, 0)
				w.useColorSpace(cs, res, ct.loc+" "+op+" /"+name)
				if w.iccCMYK(cs) {
					if op == "cs" {
						cmykFill = true
					} else {
						cmykStroke = true
					}
				}
			}
		case "gs":
			name := arg(0).name()
			gs := named("ExtGState", name)
			w.extGState(gs, ct.loc+" ExtGState "+name, ct.page)
			if d := w.dict(gs); d != nil {
				if v, ok := w.boolean(d["OP"]); ok {
					opStroke, opFill = v, v
				}
				if v, ok := w.boolean(d["op"]); ok {
					opFill = v
				}
				if v, ok := w.number(d["OPM"]); ok {
					opm = v
				}
			}
		case "Do":
			name := arg(0).name()
			w.xobjectIn(named("XObject", name), res, ct.loc+" XObject "+name, ct.page)
		case "sh":
			name := arg(0).name()
			w.shading(named("Shading", name), res, ct.loc+" Shading "+name)
		case "scn", "SCN":
			if name := arg(0).name(); name != "" {
				w.pattern(named("Pattern", name), ct.loc+" Pattern "+name, ct.page)
			}
		case "Tf":
			fontName = arg(1).name()
			font = named("Font", fontName)
			w.font(font, ct.loc+" Font "+fontName)
		case "Tr":
			if v, ok := arg(0).num(); ok {
				renderMode = int(v)
			}
		case "Tj", "TJ", "'", "\"":
			if renderMode != 3 && renderMode != 7 {
				paint(renderMode == 0 || renderMode == 2 || renderMode == 4 || renderMode == 6, renderMode == 1 || renderMode == 2 || renderMode == 5 || renderMode == 6)
			}
			w.showText(font, renderMode, ct, shown(op, ops))
		case "BI":
			w.inlineImage(l, res, ct.loc)
		case "BX", "EX":
		default:
			if !operators[op] {
				c.fail("6.2.2-1", ct.loc+" operator "+op)
			}
		}
		ops = ops[:0]
	}
}

// shown are the strings a text-showing operator shows: its string operand, or the strings
// of TJ's array.
func shown(op string, ops []operand) [][]byte {
	var out [][]byte
	add := func(o operand) {
		switch o.kind {
		case '(':
			out = append(out, pdf.DecodeLiteral(o.text))
		case '<':
			out = append(out, pdf.DecodeHex(o.text))
		}
	}
	if len(ops) == 0 {
		return nil
	}
	last := ops[len(ops)-1]
	if op == "TJ" {
		for _, x := range last.arr {
			add(x)
		}
		return out
	}
	add(last)
	return out
}

// inlineImage reads an inline image's dictionary (after BI) and skips its data.
func (w *walker) inlineImage(l *lexer, res types.Dict, loc string) {
	d := map[string]operand{}
	for i := 0; i < 1000; i++ {
		k, ok := l.next(0)
		if !ok {
			return
		}
		if k.kind == 'k' && string(k.text) == "ID" {
			break
		}
		v, ok := l.next(0)
		if !ok {
			return
		}
		d[k.name()] = v
	}
	l.inlineData()
	loc += " inline image"
	filters := []operand{d["F"]}
	if f, ok := d["Filter"]; ok {
		filters = []operand{f}
	}
	if filters[0].kind == '[' {
		filters = filters[0].arr
	}
	for _, f := range filters {
		switch n := f.name(); n {
		case "":
		case "AHx", "A85", "Fl", "RL", "CCF", "DCT", "ASCIIHexDecode", "ASCII85Decode", "FlateDecode", "RunLengthDecode", "CCITTFaxDecode", "DCTDecode":
		default:
			w.c.fail("6.1.10-1", loc+" /"+n)
		}
	}
	for _, k := range []string{"I", "Interpolate"} {
		if v, ok := d[k]; ok {
			w.c.check(string(v.text) != "true", "6.2.8-3", loc)
		}
	}
	if v, ok := d["Intent"]; ok {
		w.c.check(renderingIntents[v.name()], "6.2.6-1", loc)
	}
	mask := string(d["IM"].text) == "true" || string(d["ImageMask"].text) == "true"
	if mask {
		return
	}
	cs, ok := d["CS"]
	if !ok {
		cs = d["ColorSpace"]
	}
	switch n := cs.name(); n {
	case "RGB", "DeviceRGB":
		w.useDevice("DeviceRGB", res, loc)
	case "CMYK", "DeviceCMYK":
		w.useDevice("DeviceCMYK", res, loc)
	case "G", "DeviceGray":
		w.useDevice("DeviceGray", res, loc)
	case "":
	default:
		w.useColorSpace(w.dict(res["ColorSpace"])[n], res, loc)
	}
}
