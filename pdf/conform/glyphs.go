package conform

import (
	"encoding/binary"
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/text/encoding/charmap"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// The glyphs text is shown with, looked up in embedded TrueType programs (FontFile2, read
// by golang.org/x/image/font/sfnt): each used glyph is present (6.2.11.4.1-2), is not
// .notdef (6.2.11.8), and its width in the font dictionary agrees with the program's
// (6.2.11.5). Type 1 and CFF programs are not read yet.

// program is an embedded TrueType font as read for the glyph checks.
type program struct {
	font *sfnt.Font
	buf  sfnt.Buffer
	upem float64
}

// trueType parses a font's embedded FontFile2 once; nil when there is none or it cannot
// be read (other rules report what is wrong with it).
func (w *walker) trueType(u *fontUse, desc types.Dict, cid bool) *program {
	if u.programRead {
		return u.program
	}
	u.programRead = true
	s := w.stream(desc["FontFile2"])
	data := decoded(s)
	if data == nil {
		return nil
	}
	f, err := sfnt.Parse(data)
	if err != nil {
		// What readers accept and sfnt does not (see rebuildFont): once more, rebuilt.
		if f, err = sfnt.Parse(rebuildFont(data, false)); err != nil && cid {
			// A CIDFont's glyphs are found by CID, not through its cmap, which subsetters
			// often leave broken: a minimal one stands in.
			f, err = sfnt.Parse(rebuildFont(data, true))
		}
		if err != nil {
			return nil
		}
	}
	u.program = &program{font: f, upem: float64(f.UnitsPerEm())}
	return u.program
}

// glyphTables are the tables the glyph checks need; the others (names, a post table
// with names subsetting broke) stay out of the rebuilt file.
var glyphTables = map[string]bool{"cmap": true, "head": true, "hhea": true, "hmtx": true, "maxp": true, "loca": true, "glyf": true, "name": true, "OS/2": true}

// rebuildFont rewrites a TrueType file as sfnt reads it: subsetters leave directory
// entries of tables they dropped, tables on unaligned offsets and post tables sfnt
// refuses, which readers accept. The tables the checks need and the data holds are
// copied, each on a four-byte boundary, in tag order.
func rebuildFont(b []byte, emptyCmap bool) []byte {
	if len(b) < 12 {
		return b
	}
	n := int(binary.BigEndian.Uint16(b[4:6]))
	if 12+16*n > len(b) {
		return b
	}
	type table struct {
		tag  []byte
		data []byte
	}
	var tables []table
	for i := 0; i < n; i++ {
		rec := b[12+16*i : 12+16*i+16]
		off, length := int(binary.BigEndian.Uint32(rec[8:12])), int(binary.BigEndian.Uint32(rec[12:16]))
		if off < 0 || length < 0 || off+length > len(b) || off+length < off || !glyphTables[string(rec[:4])] || emptyCmap && string(rec[:4]) == "cmap" {
			continue
		}
		tables = append(tables, table{rec[:4], b[off : off+length]})
	}
	// sfnt needs a post table, and only its header: version 3 (no glyph names).
	post := make([]byte, 32)
	binary.BigEndian.PutUint32(post, 0x00030000)
	tables = append(tables, table{[]byte("post"), post})
	if emptyCmap {
		// One (3,1) subtable of format 4 with the closing segment only: maps nothing.
		cm := []byte{0, 0, 0, 1, 0, 3, 0, 1, 0, 0, 0, 12,
			0, 4, 0, 24, 0, 0, 0, 2, 0, 2, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0xff, 0xff, 0, 1, 0, 0}
		tables = append(tables, table{[]byte("cmap"), cm})
	}
	sort.Slice(tables, func(i, j int) bool { return string(tables[i].tag) < string(tables[j].tag) })
	out := append([]byte(nil), b[:12]...)
	binary.BigEndian.PutUint16(out[4:6], uint16(len(tables)))
	dir := len(out)
	out = append(out, make([]byte, 16*len(tables))...)
	for i, t := range tables {
		for len(out)%4 != 0 {
			out = append(out, 0)
		}
		rec := out[dir+16*i : dir+16*i+16]
		copy(rec[:4], t.tag)
		binary.BigEndian.PutUint32(rec[8:12], uint32(len(out)))
		binary.BigEndian.PutUint32(rec[12:16], uint32(len(t.data)))
		out = append(out, t.data...)
	}
	return out
}

// empty tells whether glyph g has no outline.
func (p *program) empty(g sfnt.GlyphIndex) bool {
	segs, err := p.font.LoadGlyph(&p.buf, g, fixed.I(int(p.upem)), nil)
	return err == nil && len(segs) == 0
}

// advance is glyph g's advance width in thousandths of an em, as a PDF width array gives it.
func (p *program) advance(g sfnt.GlyphIndex) (float64, bool) {
	ppem := fixed.I(int(p.upem))
	a, err := p.font.GlyphAdvance(&p.buf, g, ppem, font.HintingNone)
	if err != nil {
		return 0, false
	}
	return float64(a) / 64 * 1000 / p.upem, true
}

// glyphs checks the codes of shown text against the font's program.
func (w *walker) glyphs(u *fontUse, text []byte, mode int) {
	if mode == 3 || len(text) == 0 {
		return
	}
	d := u.dict
	switch w.name(d["Subtype"]) {
	case "TrueType":
		w.simpleTrueType(u, text)
	case "Type3":
		w.type3Widths(u, text)
	case "Type1", "MMType1":
		w.simpleCFF(u, text)
	case "Type0":
		desc := w.array(d["DescendantFonts"])
		if len(desc) == 0 {
			return
		}
		cid := w.dict(desc[0])
		switch w.name(cid["Subtype"]) {
		case "CIDFontType2":
			w.cidTrueType(u, cid, text)
		case "CIDFontType0":
			w.cidCFF(u, cid, text)
		}
	}
}

// codes splits shown bytes into a Type 0 font's codes and their CIDs: two bytes each for
// Identity-H and -V, by the embedded CMap otherwise; nil for a predefined CMap this
// check does not read.
func (w *walker) codes(u *fontUse, text []byte) (codes, cids []int) {
	enc := u.dict["Encoding"]
	switch w.name(enc) {
	case "Identity-H", "Identity-V":
		for i := 0; i+1 < len(text); i += 2 {
			c := int(text[i])<<8 | int(text[i+1])
			codes, cids = append(codes, c), append(cids, c)
		}
		if len(text)%2 == 1 {
			// A byte short of a code: no glyph can be drawn for it.
			codes, cids = append(codes, -1-int(text[len(text)-1])), append(cids, -1)
		}
		return codes, cids
	case "":
	default:
		return nil, nil
	}
	if u.cmap == nil {
		u.cmap = readCIDMap(decoded(w.stream(enc)))
	}
	for i := 0; i+u.cmap.width <= len(text); i += u.cmap.width {
		c := 0
		for _, b := range text[i : i+u.cmap.width] {
			c = c<<8 | int(b)
		}
		cid, ok := u.cmap.cids[c]
		if !ok {
			cid = 0 // unmapped: .notdef (ISO 32000-1, 9.7.6.3)
		}
		codes, cids = append(codes, c), append(cids, cid)
	}
	return codes, cids
}

// simpleTrueType: one byte per code, through the encoding to a Unicode cmap lookup.
func (w *walker) simpleTrueType(u *fontUse, text []byte) {
	d := u.dict
	desc := w.dict(d["FontDescriptor"])
	flags, _ := w.number(desc["Flags"])
	if int(flags)&4 != 0 {
		return // symbolic: codes go to a (3,0) or (1,0) cmap directly, not read here
	}
	p := w.trueType(u, desc, false)
	if p == nil {
		return
	}
	enc := w.name(d["Encoding"])
	var differences types.Array
	if ed := w.dict(d["Encoding"]); ed != nil {
		enc = w.name(ed["BaseEncoding"])
		differences = w.array(ed["Differences"])
	}
	cm := charmap.Windows1252
	if enc == "MacRomanEncoding" {
		cm = charmap.Macintosh
	}
	first, _ := w.number(d["FirstChar"])
	widths := w.array(d["Widths"])
	for _, code := range text {
		if !u.first(int(code)) {
			continue
		}
		if differs(w, differences, int(code)) {
			continue // a glyph name of its own: the Adobe Glyph List is not read here
		}
		r := cm.DecodeByte(code)
		if r < 0x20 || r == utf8.RuneError {
			// No character in the encoding: the code names .notdef.
			w.c.fail("6.2.11.8-1", u.loc+" code "+itoa(int(code)))
			continue
		}
		g, err := p.font.GlyphIndex(&p.buf, r)
		if err != nil {
			continue
		}
		if g == 0 || int(g) >= p.font.NumGlyphs() || p.empty(g) && !unicode.IsSpace(r) {
			// Not in the program, or a subset's empty slot for a character that draws.
			w.c.fail("6.2.11.4.1-2", u.loc+" code "+itoa(int(code)))
			continue
		}
		if i := int(code) - int(first); i >= 0 && i < len(widths) {
			if want, ok := w.number(widths[i]); ok {
				if got, ok := p.advance(g); ok && abs(got-want) > 1 {
					w.c.fail("6.2.11.5-1", u.loc+" code "+itoa(int(code)))
				}
			}
		}
	}
}

// type3Widths compares each shown glyph's width in Widths with the one its glyph
// procedure declares (d0 or d1), both in glyph space.
func (w *walker) type3Widths(u *fontUse, text []byte) {
	d := u.dict
	enc := w.dict(d["Encoding"])
	procs := w.dict(d["CharProcs"])
	first, _ := w.number(d["FirstChar"])
	widths := w.array(d["Widths"])
	for _, code := range text {
		if !u.first(int(code)) {
			continue
		}
		name := glyphName(w, w.array(enc["Differences"]), int(code))
		proc := decoded(w.stream(procs[name]))
		i := int(code) - int(first)
		if proc == nil || i < 0 || i >= len(widths) {
			continue
		}
		want, ok := w.number(widths[i])
		if !ok {
			continue
		}
		l := &lexer{b: proc}
		var nums []float64
		for k := 0; k < 16; k++ {
			t, ok := l.next(0)
			if !ok {
				break
			}
			if v, ok := t.num(); ok {
				nums = append(nums, v)
				continue
			}
			if op := string(t.text); (op == "d0" || op == "d1") && len(nums) >= 2 {
				wx := nums[len(nums)-2]
				if op == "d1" && len(nums) >= 6 {
					wx = nums[len(nums)-6]
				}
				if abs(wx-want) > 1 {
					w.c.fail("6.2.11.5-1", u.loc+" code "+itoa(int(code)))
				}
			}
			break
		}
	}
}

// glyphName is the name a Differences array gives code, or "".
func glyphName(w *walker, diff types.Array, code int) string {
	next := -1
	for _, x := range diff {
		if n, ok := w.number(x); ok {
			next = int(n)
			continue
		}
		if next == code {
			return w.name(x)
		}
		next++
	}
	return ""
}

// differs tells whether a Differences array gives code a name of its own.
func differs(w *walker, diff types.Array, code int) bool { return glyphName(w, diff, code) != "" }

// cidTrueType: codes to CIDs (Identity or the embedded CMap), CIDs to glyphs by
// CIDToGIDMap.
func (w *walker) cidTrueType(u *fontUse, cid types.Dict, text []byte) {
	desc := w.dict(cid["FontDescriptor"])
	p := w.trueType(u, desc, true)
	if p == nil {
		return
	}
	var gidMap []byte
	if s := w.stream(cid["CIDToGIDMap"]); s != nil {
		gidMap = decoded(s)
	}
	if u.widths == nil {
		u.widths = w.cidWidths(cid)
		if tu := w.stream(u.dict["ToUnicode"]); tu != nil {
			u.text = readToUnicode(decoded(tu))
		}
		if set := decoded(w.stream(desc["CIDSet"])); set != nil && gidMap == nil {
			// With the Identity map a CID is its glyph: every glyph the program draws
			// (a subset's empty slots do not count) is in the CIDSet.
			for g := 1; g < p.font.NumGlyphs(); g++ {
				if !inSet(set, g) && !p.empty(sfnt.GlyphIndex(g)) {
					w.c.fail("6.2.11.4.2-2", u.loc+" CID "+itoa(g)+" not in CIDSet")
					break
				}
			}
		}
	}
	dw := w.defaultWidth(cid)
	codes, cids := w.codes(u, text)
	for i, c := range cids {
		code := codes[i]
		if !w.cidToCheck(u, code, c) {
			continue
		}
		g := c
		if gidMap != nil {
			if 2*c+1 >= len(gidMap) {
				w.c.fail("6.2.11.4.1-2", u.loc+" CID "+itoa(c))
				continue
			}
			g = int(gidMap[2*c])<<8 | int(gidMap[2*c+1])
		}
		r, known := u.text[code]
		if g == 0 || g >= p.font.NumGlyphs() || known && !unicode.IsSpace(r) && p.empty(sfnt.GlyphIndex(g)) {
			w.c.fail("6.2.11.4.1-2", u.loc+" CID "+itoa(c))
			continue
		}
		want, ok := u.widths[c]
		if !ok {
			want = dw
		}
		if got, ok := p.advance(sfnt.GlyphIndex(g)); ok && abs(got-want) > 1 {
			w.c.fail("6.2.11.5-1", u.loc+" CID "+itoa(c))
		}
	}
}

// cidWidths reads a CIDFont's W array: c [w1 w2 …] and c_first c_last w.
func (w *walker) cidWidths(cid types.Dict) map[int]float64 {
	out := map[int]float64{}
	a := w.array(cid["W"])
	for i := 0; i < len(a) && len(out) < 1<<16; {
		first, ok := w.number(a[i])
		if !ok || i+1 >= len(a) {
			break
		}
		if list := w.array(a[i+1]); list != nil {
			for j, x := range list {
				if v, ok := w.number(x); ok {
					out[int(first)+j] = v
				}
			}
			i += 2
			continue
		}
		last, ok1 := w.number(a[i+1])
		if i+2 >= len(a) || !ok1 {
			break
		}
		v, _ := w.number(a[i+2])
		for c := int(first); c <= int(last) && c-int(first) < 1<<16; c++ {
			out[c] = v
		}
		i += 3
	}
	return out
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// cffProgram parses a font's embedded FontFile3 once, and checks its CharSet or CIDSet
// against it (6.2.11.4.2); nil when there is none or it cannot be read.
func (w *walker) cffProgram(u *fontUse, desc types.Dict) *cffFont {
	if u.cffRead {
		return u.cff
	}
	u.cffRead = true
	f, err := parseCFF(decoded(w.stream(desc["FontFile3"])))
	if err != nil {
		return nil
	}
	u.cff = f
	base := w.name(u.dict["BaseFont"])
	subset := len(base) > 7 && base[6] == '+' && strings.ToUpper(base[:6]) == base[:6]
	if cs := textOf(w.deref(desc["CharSet"])); subset && cs != "" && !f.cidKeyed {
		listed := map[string]bool{}
		for _, n := range strings.Split(cs, "/") {
			listed[strings.TrimSpace(n)] = true
		}
		for name := range f.names {
			if name != ".notdef" && name != "" && !listed[name] {
				w.c.fail("6.2.11.4.2-1", u.loc+" glyph "+name+" not in CharSet")
				break
			}
		}
	}
	return f
}

// simpleName is the glyph name code has in a simple font: its Differences, else its base
// encoding's (WinAnsi, and Standard for ASCII); false when not known here.
func (w *walker) simpleName(d types.Dict, code int) (string, bool) {
	enc := w.name(d["Encoding"])
	if ed := w.dict(d["Encoding"]); ed != nil {
		if n := glyphName(w, w.array(ed["Differences"]), code); n != "" {
			return n, true
		}
		enc = w.name(ed["BaseEncoding"])
	}
	switch enc {
	case "WinAnsiEncoding":
		if code >= 32 && code-32 < len(winAnsiNames) {
			return winAnsiNames[code-32], true
		}
		return ".notdef", true
	case "StandardEncoding":
		if code >= 32 && code <= 126 {
			switch code {
			case 39:
				return "quoteright", true
			case 96:
				return "quoteleft", true
			}
			return winAnsiNames[code-32], true
		}
	}
	return "", false
}

// simpleCFF checks the codes shown in a Type 1 font whose program is CFF.
func (w *walker) simpleCFF(u *fontUse, text []byte) {
	d := u.dict
	f := w.cffProgram(u, w.dict(d["FontDescriptor"]))
	if f == nil || f.cidKeyed {
		return
	}
	first, _ := w.number(d["FirstChar"])
	widths := w.array(d["Widths"])
	for _, b := range text {
		code := int(b)
		if !u.first(code) {
			continue
		}
		g, found := -1, false
		if name, ok := w.simpleName(d, code); ok {
			if name == ".notdef" {
				w.c.fail("6.2.11.8-1", u.loc+" code "+itoa(code))
				continue
			}
			g, found = f.names[name]
		} else if f.encoding != nil && d["Encoding"] == nil {
			g, found = f.encoding[code] // the program's own encoding
		} else {
			continue
		}
		if !found || g <= 0 || g >= f.glyphs {
			w.c.fail("6.2.11.4.1-2", u.loc+" code "+itoa(code))
			continue
		}
		if i := code - int(first); i >= 0 && i < len(widths) {
			if want, ok := w.number(widths[i]); ok && !math.IsNaN(f.widths[g]) && abs(f.widths[g]-want) > 1 {
				w.c.fail("6.2.11.5-1", u.loc+" code "+itoa(code))
			}
		}
	}
}

// cidCFF checks the codes shown in a Type 0 font whose CIDFont is CFF (CIDFontType0).
func (w *walker) cidCFF(u *fontUse, cid types.Dict, text []byte) {
	desc := w.dict(cid["FontDescriptor"])
	f := w.cffProgram(u, desc)
	if f == nil || !f.cidKeyed {
		return
	}
	if u.widths == nil {
		u.widths = w.cidWidths(cid)
		if set := decoded(w.stream(desc["CIDSet"])); set != nil {
			for c := range f.cids {
				if c > 0 && !inSet(set, c) {
					w.c.fail("6.2.11.4.2-2", u.loc+" CID "+itoa(c)+" not in CIDSet")
					break
				}
			}
		}
	}
	dw := w.defaultWidth(cid)
	codes, cids := w.codes(u, text)
	for i, c := range cids {
		if !w.cidToCheck(u, codes[i], c) {
			continue
		}
		g, ok := f.cids[c]
		if !ok || g <= 0 {
			w.c.fail("6.2.11.4.1-2", u.loc+" CID "+itoa(c))
			continue
		}
		want, ok := u.widths[c]
		if !ok {
			want = dw
		}
		if !math.IsNaN(f.widths[g]) && abs(f.widths[g]-want) > 1 {
			w.c.fail("6.2.11.5-1", u.loc+" CID "+itoa(c))
		}
	}
}

// inSet tells whether a CIDSet stream (a bit per CID, the high bit first) has cid.
func inSet(set []byte, cid int) bool {
	return cid/8 < len(set) && set[cid/8]&(0x80>>(cid%8)) != 0
}

// defaultWidth is a CIDFont's DW, 1000 when absent.
func (w *walker) defaultWidth(cid types.Dict) float64 {
	if v, ok := w.number(cid["DW"]); ok {
		return v
	}
	return 1000
}

// cidToCheck tells whether a shown CID's glyph is still to be looked up: each code once,
// an incomplete code (no glyph) and CID 0 (.notdef) failing at once.
func (w *walker) cidToCheck(u *fontUse, code, cid int) bool {
	if !u.first(code) {
		return false
	}
	switch {
	case cid < 0:
		w.c.fail("6.2.11.4.1-2", u.loc+" an incomplete code")
		return false
	case cid == 0:
		w.c.fail("6.2.11.8-1", u.loc+" CID 0")
		return false
	}
	return true
}
