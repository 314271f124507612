package conform

import (
	"bytes"
	"fmt"
	"github.com/papierkram/papierkram/internal/lazyre"
	"strconv"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// standard14 are the fonts a PDF reader has (ISO 32000-1, 9.6.2.2).
var standard14 = map[string]bool{"Times-Roman": true, "Times-Bold": true, "Times-Italic": true, "Times-BoldItalic": true,
	"Helvetica": true, "Helvetica-Bold": true, "Helvetica-Oblique": true, "Helvetica-BoldOblique": true, "Courier": true,
	"Courier-Bold": true, "Courier-Oblique": true, "Courier-BoldOblique": true, "Symbol": true, "ZapfDingbats": true}

// predefinedCMaps are the CMaps of ISO 32000-1, Table 118, which need not be embedded.
var predefinedCMaps = map[string]bool{}

func init() {
	for _, n := range []string{"GB-EUC", "GBpc-EUC", "GBK-EUC", "GBKp-EUC", "GBK2K", "UniGB-UCS2", "UniGB-UTF16", "B5pc", "HKscs-B5",
		"ETen-B5", "ETenms-B5", "CNS-EUC", "UniCNS-UCS2", "UniCNS-UTF16", "90ms-RKSJ", "90msp-RKSJ", "Add-RKSJ", "EUC", "Ext-RKSJ",
		"UniJIS-UCS2", "UniJIS-UCS2-HW", "UniJIS-UTF16", "KSC-EUC", "KSCms-UHC", "KSCms-UHC-HW", "UniKS-UCS2", "UniKS-UTF16", "Identity"} {
		predefinedCMaps[n+"-H"], predefinedCMaps[n+"-V"] = true, true
	}
	for _, n := range []string{"83pv-RKSJ-H", "90pv-RKSJ-H", "KSCpc-EUC-H", "H", "V"} {
		predefinedCMaps[n] = true
	}
}

// fontUse is what the content pass learnt of a font.
type fontUse struct {
	dict        types.Dict
	loc         string
	rendered    bool         // text was shown in it with a rendering mode other than 3 (invisible)
	seen        map[int]bool // codes whose glyph was checked
	program     *program     // its embedded TrueType program, read on first use
	programRead bool
	cff         *cffFont // its embedded CFF program, read on first use
	cffRead     bool
	cmap        *cidMap         // a Type 0 font's embedded CMap, read on first use
	widths      map[int]float64 // a CIDFont's W
	text        map[int]rune    // its ToUnicode map
}

// first tells whether code is shown in u the first time (each glyph is checked once).
func (u *fontUse) first(code int) bool {
	if u.seen[code] {
		return false
	}
	u.seen[code] = true
	return true
}

// font checks a font dictionary the first time content selects it (6.2.11.2, 6.2.11.3,
// 6.2.11.6).
func (w *walker) font(o types.Object, loc string) {
	d := w.dict(o)
	if d == nil || !w.first("font", o) {
		return
	}
	loc = where(o, loc)
	if w.fonts == nil {
		w.fonts = map[string]*fontUse{}
	}
	w.fonts[objKeyOf(o)] = &fontUse{dict: d, loc: loc, seen: map[int]bool{}}
	c := w.c
	sub := w.name(d["Subtype"])
	c.check(w.name(d["Type"]) == "Font", "6.2.11.2-1", loc)
	c.check(sub == "Type1" || sub == "MMType1" || sub == "TrueType" || sub == "Type3" || sub == "Type0", "6.2.11.2-2", loc)
	base := w.name(d["BaseFont"])
	c.check(sub == "Type3" || base != "", "6.2.11.2-3", loc)
	desc := w.dict(d["FontDescriptor"])
	embedded := w.fontFile(desc) != nil
	switch sub {
	case "Type1", "MMType1", "TrueType":
		standard := sub == "Type1" && standard14[base] && !embedded
		first, hasFirst := w.number(d["FirstChar"])
		last, hasLast := w.number(d["LastChar"])
		c.check(standard || hasFirst, "6.2.11.2-4", loc)
		c.check(standard || hasLast, "6.2.11.2-5", loc)
		widths := w.array(d["Widths"])
		c.check(standard || widths != nil && hasFirst && hasLast && float64(len(widths)) == last-first+1, "6.2.11.2-6", loc)
		w.fontFile3(desc, loc)
		if sub == "TrueType" {
			flags, _ := w.number(desc["Flags"])
			symbolic := int(flags)&4 != 0
			enc := d["Encoding"]
			if symbolic {
				c.check(enc == nil, "6.2.11.6-3", loc)
			} else {
				name := w.name(enc)
				agl := true
				if ed := w.dict(enc); ed != nil {
					name = w.name(ed["BaseEncoding"])
					for _, x := range w.array(ed["Differences"]) {
						if n := w.name(x); n != "" && !inAGL(n) {
							agl = false
						}
					}
				}
				c.check((name == "MacRomanEncoding" || name == "WinAnsiEncoding") && agl, "6.2.11.6-2", loc)
			}
		}
	case "Type0":
		w.type0(d, loc)
	}
}

// objKeyOf names an indirect object by number, a direct one by what it says.
func objKeyOf(o types.Object) string {
	if r, ok := o.(types.IndirectRef); ok {
		return fmt.Sprintf("%d", r.ObjectNumber.Value())
	}
	if o == nil {
		return "null"
	}
	return o.PDFString()
}

// fontFile is the font program a descriptor embeds, or nil.
func (w *walker) fontFile(desc types.Dict) *types.StreamDict {
	for _, k := range []string{"FontFile", "FontFile2", "FontFile3"} {
		if s := w.stream(desc[k]); s != nil {
			return s
		}
	}
	return nil
}

// fontFile3 checks an embedded FontFile3's Subtype (6.2.11.2-7).
func (w *walker) fontFile3(desc types.Dict, loc string) {
	if s := w.stream(desc["FontFile3"]); s != nil {
		st := w.name(s.Dict["Subtype"])
		w.c.check(st == "" || st == "Type1C" || st == "CIDFontType0C" || st == "OpenType", "6.2.11.2-7", loc)
	}
}

// type0 checks a composite font and its CIDFont.
func (w *walker) type0(d types.Dict, loc string) {
	c := w.c
	desc := w.array(d["DescendantFonts"])
	if len(desc) == 0 {
		return
	}
	cid := w.dict(desc[0])
	cidSub := w.name(cid["Subtype"])
	c.check(w.name(cid["Type"]) == "Font", "6.2.11.2-1", loc+" CIDFont")
	c.check(cidSub == "CIDFontType0" || cidSub == "CIDFontType2", "6.2.11.2-2", loc+" CIDFont")
	c.check(w.name(cid["BaseFont"]) != "", "6.2.11.2-3", loc+" CIDFont")
	fd := w.dict(cid["FontDescriptor"])
	w.fontFile3(fd, loc+" CIDFont")
	if m, ok := cid["CIDToGIDMap"]; ok {
		// A stream, or the name Identity.
		c.check(w.stream(m) != nil || w.name(m) == "Identity", "6.2.11.3.2-1", loc+" CIDFont CIDToGIDMap")
	} else if cidSub == "CIDFontType2" && w.stream(fd["FontFile2"]) != nil {
		c.fail("6.2.11.3.2-1", loc+" CIDFont")
	}
	enc := d["Encoding"]
	cmapName := w.name(enc)
	var cmapInfo types.Dict
	if cmapName != "" {
		c.check(predefinedCMaps[cmapName], "6.2.11.3.3-1", loc+" Encoding "+cmapName)
	} else if s := w.stream(enc); s != nil {
		cmapName = w.name(s.Dict["CMapName"])
		cmapInfo = w.dict(s.Dict["CIDSystemInfo"])
		if wm, ok := w.number(s.Dict["WMode"]); ok || bytes.Contains(decoded(s), []byte("/WMode")) {
			c.check(streamWMode(decoded(s)) == int(wm), "6.2.11.3.3-2", loc+" CMap")
		}
		if use := s.Dict["UseCMap"]; use != nil {
			// Only a predefined CMap may be used: by name, or embedded under its name.
			n := w.name(use)
			if u := w.stream(use); u != nil {
				n = w.name(u.Dict["CMapName"])
			}
			c.check(predefinedCMaps[n], "6.2.11.3.3-3", loc+" UseCMap "+n)
		}
		c.check(maxCID(decoded(s)) <= 65535, "6.1.13-10", loc+" CMap")
	}
	if cmapName != "Identity-H" && cmapName != "Identity-V" {
		info := w.dict(cid["CIDSystemInfo"])
		reg, ord := textOf(w.deref(info["Registry"])), textOf(w.deref(info["Ordering"]))
		if cmapInfo == nil && predefinedCMaps[cmapName] {
			// A predefined CMap's own system info: its name's character collection.
			return
		}
		sup, _ := w.number(info["Supplement"])
		csup, hasSup := w.number(cmapInfo["Supplement"])
		ok := cmapInfo != nil && reg == textOf(w.deref(cmapInfo["Registry"])) && ord == textOf(w.deref(cmapInfo["Ordering"])) && hasSup && sup <= csup
		c.check(ok, "6.2.11.3.1-1", loc)
	}
}

var (
	reWMode    = lazyre.New(`/WMode\s+(\d)\s+def`)
	reCIDRange = lazyre.New(`<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(\d+)`)
	reCIDChar  = lazyre.New(`<([0-9A-Fa-f]+)>\s*(\d+)`)
)

// maxCID is the largest CID an embedded CMap program maps to (cidrange and cidchar).
func maxCID(b []byte) int64 {
	var top int64
	for _, sec := range sections(b, "begincidrange", "endcidrange") {
		for _, m := range reCIDRange.FindAllSubmatch(sec, -1) {
			lo, _ := strconv.ParseInt(string(m[1]), 16, 64)
			hi, _ := strconv.ParseInt(string(m[2]), 16, 64)
			cid, _ := strconv.ParseInt(string(m[3]), 10, 64)
			top = max(top, cid+hi-lo)
		}
	}
	for _, sec := range sections(b, "begincidchar", "endcidchar") {
		for _, m := range reCIDChar.FindAllSubmatch(sec, -1) {
			cid, _ := strconv.ParseInt(string(m[2]), 10, 64)
			top = max(top, cid)
		}
	}
	return top
}

// sections are the parts of b between each begin and the end that follows it.
func sections(b []byte, begin, end string) [][]byte {
	var out [][]byte
	for {
		i := bytes.Index(b, []byte(begin))
		if i < 0 {
			return out
		}
		b = b[i+len(begin):]
		j := bytes.Index(b, []byte(end))
		if j < 0 {
			return append(out, b)
		}
		out = append(out, b[:j])
		b = b[j:]
	}
}

// streamWMode is the WMode an embedded CMap program sets, 0 when it sets none.
func streamWMode(b []byte) int {
	if m := reWMode.FindSubmatch(b); m != nil {
		return int(m[1][0] - '0')
	}
	return 0
}

// showText notes text shown in font with the rendering mode; a Type 3 font's glyphs are
// content of their own, drawn on the page.
func (w *walker) showText(font types.Object, mode int, ct content, strings [][]byte) {
	d := w.dict(font)
	if d == nil {
		return
	}
	if u := w.fonts[objKeyOf(font)]; u != nil && mode != 3 {
		u.rendered = true
		for _, s := range strings {
			w.glyphs(u, s, mode)
		}
	}
	if w.name(d["Subtype"]) != "Type3" || !w.first(fmt.Sprintf("type3 p%d", ct.page), font) {
		return
	}
	res := w.dict(d["Resources"])
	inherited := res == nil
	if inherited {
		res = ct.resources // what ISO 32000-1 allows (9.6.5) and PDF/A does not (6.2.2-2)
	}
	for name, proc := range w.dict(d["CharProcs"]) {
		if b := decoded(w.stream(proc)); b != nil {
			w.contents = append(w.contents, content{data: b, resources: res, loc: where(font, ct.loc+" Type3 glyph "+name), page: ct.page, inherited: inherited})
		}
	}
}

// checkFonts: every font text is rendered in is embedded (6.2.11.4.1).
func (c *checker) checkFonts() {
	w := c.walk
	for _, u := range w.fonts {
		if !u.rendered {
			continue
		}
		d := u.dict
		sub := w.name(d["Subtype"])
		switch sub {
		case "Type3":
			continue
		case "Type0":
			if desc := w.array(d["DescendantFonts"]); len(desc) > 0 {
				d = w.dict(desc[0])
			}
		}
		embedded := w.fontFile(w.dict(d["FontDescriptor"])) != nil
		c.check(embedded, "6.2.11.4.1-1", u.loc)
		c.check(embedded, "7.21.4.1-1", u.loc)
		if c.profile == PDFA2U || c.profile == PDFA3U {
			w.unicode(u)
		}
	}
}

// unicode: level U wants every rendered font's codes mapped to Unicode (6.2.11.7.2).
func (w *walker) unicode(u *fontUse) {
	c := w.c
	d := u.dict
	if tu := w.stream(d["ToUnicode"]); tu != nil {
		for _, r := range readToUnicodeAll(decoded(tu)) {
			if r == 0 || r == 0xFEFF || r == 0xFFFE {
				c.fail("6.2.11.7.2-2", u.loc+" ToUnicode")
				break
			}
		}
		return
	}
	ok := false
	switch sub := w.name(d["Subtype"]); sub {
	case "Type0":
		// A CIDFont of one of the CJK collections maps to Unicode through the collection
		// (ISO 19005-2, 6.2.11.7.2), whatever its CMap.
		if desc := w.array(d["DescendantFonts"]); len(desc) > 0 {
			info := w.dict(w.dict(desc[0])["CIDSystemInfo"])
			switch textOf(w.deref(info["Ordering"])) {
			case "GB1", "CNS1", "Japan1", "Korea1":
				ok = textOf(w.deref(info["Registry"])) == "Adobe"
			}
		}
	case "TrueType":
		flags, _ := w.number(w.dict(d["FontDescriptor"])["Flags"])
		ok = int(flags)&4 == 0 // non-symbolic: through its encoding's glyph names
	default:
		enc := w.name(d["Encoding"])
		if ed := w.dict(d["Encoding"]); ed != nil {
			enc = w.name(ed["BaseEncoding"])
			if enc == "" && len(w.array(ed["Differences"])) > 0 {
				enc = "Differences"
			}
		}
		switch enc {
		case "WinAnsiEncoding", "MacRomanEncoding", "MacExpertEncoding", "StandardEncoding", "Differences":
			// Glyph names of a standard encoding, and Differences names from the Adobe
			// Glyph List, map to Unicode by name.
			ok = true
			if ed := w.dict(d["Encoding"]); ed != nil {
				for _, x := range w.array(ed["Differences"]) {
					if n := w.name(x); n != "" && !inAGL(n) {
						ok = false
					}
				}
			}
		case "":
			ok = sub == "Type1" // a Type 1 font's own encoding: its glyph names are not read here
		}
	}
	c.check(ok, "6.2.11.7.2-1", u.loc)
}
