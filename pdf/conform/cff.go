package conform

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"strings"
)

// A reader of the CFF font programs PDFs embed (FontFile3 /Type1C and /CIDFontType0C;
// Adobe Technical Note 5176), as far as the glyph checks need: which glyphs there are,
// by name or by CID, and each one's advance width from its Type 2 charstring (Note 5177).

// cffFont is what the checks read of a CFF program.
type cffFont struct {
	glyphs   int
	cidKeyed bool
	names    map[string]int // glyph name -> glyph index (name-keyed fonts)
	cids     map[int]int    // CID -> glyph index (CID-keyed fonts)
	widths   []float64      // advance per glyph, in thousandths of an em (NaN: not read)
	encoding map[int]int    // the program's own encoding: code -> glyph index
}

var errCFF = errors.New("conform: unreadable CFF data")

// cffIndex reads an INDEX at p: its items and the offset after it.
func cffIndex(b []byte, p int) ([][]byte, int, error) {
	if p < 0 || p+2 > len(b) {
		return nil, 0, errCFF
	}
	count := int(binary.BigEndian.Uint16(b[p:]))
	if count == 0 {
		return nil, p + 2, nil
	}
	if p+3 > len(b) {
		return nil, 0, errCFF
	}
	size := int(b[p+2])
	if size < 1 || size > 4 || p+3+(count+1)*size > len(b) || count > 65536 {
		return nil, 0, errCFF
	}
	off := func(i int) int {
		v := 0
		for _, c := range b[p+3+i*size : p+3+(i+1)*size] {
			v = v<<8 | int(c)
		}
		return v
	}
	base := p + 3 + (count+1)*size - 1
	items := make([][]byte, count)
	for i := range items {
		s, e := base+off(i), base+off(i+1)
		if s > e || e > len(b) || s < base {
			return nil, 0, errCFF
		}
		items[i] = b[s:e]
	}
	return items, base + off(count), nil
}

// cffDict reads a DICT: operator (12 escapes as 1200+n) -> operands.
func cffDict(b []byte) map[int][]float64 {
	d := map[int][]float64{}
	var ops []float64
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c <= 21:
			op := int(c)
			i++
			if c == 12 && i < len(b) {
				op = 1200 + int(b[i])
				i++
			}
			d[op] = ops
			ops = nil
		case c == 28 && i+2 < len(b):
			ops = append(ops, float64(int16(binary.BigEndian.Uint16(b[i+1:]))))
			i += 3
		case c == 29 && i+4 < len(b):
			ops = append(ops, float64(int32(binary.BigEndian.Uint32(b[i+1:]))))
			i += 5
		case c == 30:
			// A real, in nibbles: digits, . E E- - and f to end.
			var t strings.Builder
			i++
		nibbles:
			for ; i < len(b); i++ {
				for _, n := range [2]byte{b[i] >> 4, b[i] & 0x0f} {
					switch {
					case n <= 9:
						t.WriteByte('0' + n)
					case n == 0xa:
						t.WriteByte('.')
					case n == 0xb:
						t.WriteByte('E')
					case n == 0xc:
						t.WriteString("E-")
					case n == 0xe:
						t.WriteByte('-')
					case n == 0xf:
						i++
						break nibbles
					}
				}
			}
			v, _ := strconv.ParseFloat(t.String(), 64)
			ops = append(ops, v)
		case c >= 32 && c <= 246:
			ops = append(ops, float64(int(c)-139))
			i++
		case c >= 247 && c <= 250 && i+1 < len(b):
			ops = append(ops, float64((int(c)-247)*256+int(b[i+1])+108))
			i += 2
		case c >= 251 && c <= 254 && i+1 < len(b):
			ops = append(ops, float64(-(int(c)-251)*256-int(b[i+1])-108))
			i += 2
		default:
			return d
		}
		if len(ops) > 48 {
			return d
		}
	}
	return d
}

func dictOperand(d map[int][]float64, op, i int) (int, bool) {
	v := d[op]
	if i >= len(v) {
		return 0, false
	}
	return int(v[i]), true
}

// parseCFF reads a CFF program.
func parseCFF(b []byte) (*cffFont, error) {
	if len(b) < 4 {
		return nil, errCFF
	}
	_, p, err := cffIndex(b, int(b[2])) // names
	if err != nil {
		return nil, err
	}
	tops, p, err := cffIndex(b, p)
	if err != nil || len(tops) == 0 {
		return nil, errCFF
	}
	stringsIdx, p, err := cffIndex(b, p)
	if err != nil {
		return nil, err
	}
	if _, _, err = cffIndex(b, p); err != nil { // global subrs
		return nil, err
	}
	top := cffDict(tops[0])
	csOff, ok := dictOperand(top, 17, 0)
	if !ok {
		return nil, errCFF
	}
	charStrings, _, err := cffIndex(b, csOff)
	if err != nil || len(charStrings) == 0 {
		return nil, errCFF
	}
	f := &cffFont{glyphs: len(charStrings), widths: make([]float64, len(charStrings))}
	_, f.cidKeyed = top[1230]
	// The widths' defaults: the Private DICT's, or each font DICT's for a CID-keyed font.
	type private struct{ dflt, nominal float64 }
	readPrivate := func(d map[int][]float64) private {
		pr := private{}
		size, ok1 := dictOperand(d, 18, 0)
		off, ok2 := dictOperand(d, 18, 1)
		if !ok1 || !ok2 || off < 0 || size < 0 || off+size > len(b) {
			return pr
		}
		pd := cffDict(b[off : off+size])
		if v := pd[20]; len(v) > 0 {
			pr.dflt = v[0]
		}
		if v := pd[21]; len(v) > 0 {
			pr.nominal = v[0]
		}
		return pr
	}
	privates := []private{readPrivate(top)}
	fdOf := func(int) int { return 0 }
	if f.cidKeyed {
		if off, ok := dictOperand(top, 1236, 0); ok {
			fds, _, err := cffIndex(b, off)
			if err == nil && len(fds) > 0 {
				privates = privates[:0]
				for _, fd := range fds {
					privates = append(privates, readPrivate(cffDict(fd)))
				}
			}
		}
		if off, ok := dictOperand(top, 1237, 0); ok && off >= 0 && off < len(b) {
			fdOf = fdSelect(b, off, f.glyphs)
		}
	}
	// Widths are in glyph space: the FontMatrix (default 0.001) makes them thousandths of
	// an em.
	scale := 1.0
	if m := top[1207]; len(m) > 0 && m[0] != 0 {
		scale = m[0] * 1000
	}
	for g, cs := range charStrings {
		pr := privates[min(fdOf(g), len(privates)-1)]
		f.widths[g] = charStringWidth(cs, pr.dflt, pr.nominal) * scale
	}
	// Glyph names or CIDs from the charset; 0, 1, 2 are the predefined ISOAdobe, Expert
	// and ExpertSubset charsets, which name-keyed subsets do not use.
	sids := make([]int, f.glyphs)
	if off, ok := dictOperand(top, 15, 0); ok && off > 2 {
		readCharset(b, off, sids)
	} else {
		for g := range sids {
			sids[g] = g
		}
	}
	if f.cidKeyed {
		f.cids = map[int]int{}
		for g, cid := range sids {
			f.cids[cid] = g
		}
	} else {
		f.names = map[string]int{}
		for g, sid := range sids {
			f.names[sidName(sid, stringsIdx)] = g
		}
		if off, ok := dictOperand(top, 16, 0); ok && off > 1 {
			f.encoding = readEncoding(b, off)
		}
	}
	return f, nil
}

// fdSelect reads an FDSelect (formats 0 and 3): glyph -> font DICT.
func fdSelect(b []byte, p, glyphs int) func(int) int {
	switch b[p] {
	case 0:
		return func(g int) int {
			if p+1+g < len(b) {
				return int(b[p+1+g])
			}
			return 0
		}
	case 3:
		if p+3 > len(b) {
			break
		}
		n := int(binary.BigEndian.Uint16(b[p+1:]))
		return func(g int) int {
			for i := 0; i < n; i++ {
				r := p + 3 + 3*i
				if r+5 > len(b) {
					return 0
				}
				first, fd, next := int(binary.BigEndian.Uint16(b[r:])), int(b[r+2]), int(binary.BigEndian.Uint16(b[r+3:]))
				if g >= first && g < next {
					return fd
				}
			}
			return 0
		}
	}
	return func(int) int { return 0 }
}

// readCharset fills sids (glyph -> SID or CID) from a charset of format 0, 1 or 2.
func readCharset(b []byte, p int, sids []int) {
	if p < 0 || p >= len(b) {
		return
	}
	format := b[p]
	p++
	g := 1
	for g < len(sids) && p+1 < len(b) {
		switch format {
		case 0:
			sids[g] = int(binary.BigEndian.Uint16(b[p:]))
			g, p = g+1, p+2
		case 1, 2:
			first := int(binary.BigEndian.Uint16(b[p:]))
			left, step := 0, 3
			if format == 1 {
				if p+2 >= len(b) {
					return
				}
				left = int(b[p+2])
			} else {
				if p+3 >= len(b) {
					return
				}
				left, step = int(binary.BigEndian.Uint16(b[p+2:])), 4
			}
			for i := 0; i <= left && g < len(sids); i++ {
				sids[g] = first + i
				g++
			}
			p += step
		default:
			return
		}
	}
}

// readEncoding reads a custom encoding (formats 0 and 1; supplements ignored): code ->
// glyph.
func readEncoding(b []byte, p int) map[int]int {
	out := map[int]int{}
	if p < 0 || p+1 >= len(b) {
		return out
	}
	format, n := b[p]&0x7f, int(b[p+1])
	switch format {
	case 0:
		for i := 0; i < n && p+2+i < len(b); i++ {
			out[int(b[p+2+i])] = i + 1
		}
	case 1:
		g := 1
		for i := 0; i < n && p+3+2*i < len(b); i++ {
			first, left := int(b[p+2+2*i]), int(b[p+3+2*i])
			for c := first; c <= first+left; c++ {
				out[c] = g
				g++
			}
		}
	}
	return out
}

// charStringWidth is a Type 2 charstring's advance width: the optional first operand of
// its first stack-clearing operator, plus nominalWidthX, else defaultWidthX. NaN when the
// charstring calls a subroutine before saying (rare; not followed).
func charStringWidth(cs []byte, dflt, nominal float64) float64 {
	n := 0 // operands on the stack
	var first float64
	for i := 0; i < len(cs); {
		c := cs[i]
		switch {
		case c >= 32:
			var v float64
			switch {
			case c <= 246:
				v, i = float64(int(c)-139), i+1
			case c <= 250 && i+1 < len(cs):
				v, i = float64((int(c)-247)*256+int(cs[i+1])+108), i+2
			case c <= 254 && i+1 < len(cs):
				v, i = float64(-(int(c)-251)*256-int(cs[i+1])-108), i+2
			case c == 255 && i+4 < len(cs):
				v, i = float64(int32(binary.BigEndian.Uint32(cs[i+1:])))/65536, i+5
			default:
				return math.NaN()
			}
			if n == 0 {
				first = v
			}
			n++
		case c == 28 && i+2 < len(cs):
			v := float64(int16(binary.BigEndian.Uint16(cs[i+1:])))
			if n == 0 {
				first = v
			}
			n, i = n+1, i+3
		default:
			// The operators that clear the stack, and the operand count they take
			// without a width (stems and masks: pairs).
			var odd bool
			switch c {
			case 1, 3, 18, 23, 19, 20: // hstem vstem hstemhm vstemhm hintmask cntrmask
				odd = n%2 == 1
			case 21: // rmoveto
				odd = n > 2
			case 4, 22: // vmoveto hmoveto
				odd = n > 1
			case 14: // endchar
				odd = n == 1 || n == 5
			default:
				return math.NaN()
			}
			if odd {
				return nominal + first
			}
			return dflt
		}
	}
	return dflt
}

// sidName is the glyph name of a string id: one of CFF's standard strings, or the font's.
func sidName(sid int, strs [][]byte) string {
	if sid < len(cffStandardNames) {
		return cffStandardNames[sid]
	}
	if i := sid - 391; i >= 0 && i < len(strs) {
		return string(strs[i])
	}
	return ""
}

// cffStandardNames are CFF's standard strings 0 to 228 (Technical Note 5176, Appendix A):
// the ISOAdobe glyph names. The expert names after them do not occur in the fonts checked.
var cffStandardNames = strings.Fields(`.notdef space exclam quotedbl numbersign dollar percent
ampersand quoteright parenleft parenright asterisk plus comma hyphen period slash zero one two
three four five six seven eight nine colon semicolon less equal greater question at A B C D E F
G H I J K L M N O P Q R S T U V W X Y Z bracketleft backslash bracketright asciicircum
underscore quoteleft a b c d e f g h i j k l m n o p q r s t u v w x y z braceleft bar
braceright asciitilde exclamdown cent sterling fraction yen florin section currency quotesingle
quotedblleft guillemotleft guilsinglleft guilsinglright fi fl endash dagger daggerdbl
periodcentered paragraph bullet quotesinglbase quotedblbase quotedblright guillemotright
ellipsis perthousand questiondown grave acute circumflex tilde macron breve dotaccent dieresis
ring cedilla hungarumlaut ogonek caron emdash AE ordfeminine Lslash Oslash OE ordmasculine ae
dotlessi lslash oslash oe germandbls onesuperior logicalnot mu trademark Eth onehalf plusminus
Thorn onequarter divide brokenbar degree thorn threequarters twosuperior registered minus eth
multiply threesuperior copyright Aacute Acircumflex Adieresis Agrave Aring Atilde Ccedilla
Eacute Ecircumflex Edieresis Egrave Iacute Icircumflex Idieresis Igrave Ntilde Oacute
Ocircumflex Odieresis Ograve Otilde Scaron Uacute Ucircumflex Udieresis Ugrave Yacute
Ydieresis Zcaron aacute acircumflex adieresis agrave aring atilde ccedilla eacute ecircumflex
edieresis egrave iacute icircumflex idieresis igrave ntilde oacute ocircumflex odieresis ograve
otilde scaron uacute ucircumflex udieresis ugrave yacute ydieresis zcaron`)

// winAnsiNames are the glyph names of WinAnsiEncoding's codes 32 to 255 (ISO 32000-1,
// Annex D); "" where the encoding has none.
var winAnsiNames = strings.Fields(`space exclam quotedbl numbersign dollar percent ampersand
quotesingle parenleft parenright asterisk plus comma hyphen period slash zero one two three four
five six seven eight nine colon semicolon less equal greater question at A B C D E F G H I J K L
M N O P Q R S T U V W X Y Z bracketleft backslash bracketright asciicircum underscore grave a b
c d e f g h i j k l m n o p q r s t u v w x y z braceleft bar braceright asciitilde bullet Euro
bullet quotesinglbase florin quotedblbase ellipsis dagger daggerdbl circumflex perthousand
Scaron guilsinglleft OE bullet Zcaron bullet bullet quoteleft quoteright quotedblleft
quotedblright bullet endash emdash tilde trademark scaron guilsinglright oe bullet zcaron
Ydieresis space exclamdown cent sterling currency yen brokenbar section dieresis copyright
ordfeminine guillemotleft logicalnot hyphen registered macron degree plusminus twosuperior
threesuperior acute mu paragraph periodcentered cedilla onesuperior ordmasculine guillemotright
onequarter onehalf threequarters questiondown Agrave Aacute Acircumflex Atilde Adieresis Aring
AE Ccedilla Egrave Eacute Ecircumflex Edieresis Igrave Iacute Icircumflex Idieresis Eth Ntilde
Ograve Oacute Ocircumflex Otilde Odieresis multiply Oslash Ugrave Uacute Ucircumflex Udieresis
Yacute Thorn germandbls agrave aacute acircumflex atilde adieresis aring ae ccedilla egrave
eacute ecircumflex edieresis igrave iacute icircumflex idieresis eth ntilde ograve oacute
ocircumflex otilde odieresis divide oslash ugrave uacute ucircumflex udieresis yacute thorn
ydieresis`)
