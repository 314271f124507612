package conform

import (
	"github.com/papierkram/papierkram/internal/lazyre"
	"strconv"
	"unicode/utf16"
)

// A reader of the CMap programs PDFs embed: Type 0 encodings (codes to CIDs) and
// ToUnicode maps (codes to text), as far as the glyph checks need them.

var (
	reCodespace = lazyre.New(`<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>`)
	reBFChar    = lazyre.New(`<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]*)>`)
	reBFRange   = lazyre.New(`<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]*)>`)
)

// maxMapped bounds the codes a CMap program may map here.
const maxMapped = 1 << 17

// cidMap is a CMap program's code-to-CID mapping, by the byte length of the codes.
type cidMap struct {
	width int // bytes per code (of its first codespace range; 2 for most)
	cids  map[int]int
}

// readCIDMap reads cidrange and cidchar sections.
func readCIDMap(b []byte) *cidMap {
	m := &cidMap{width: 2, cids: map[int]int{}}
	for _, sec := range sections(b, "begincodespacerange", "endcodespacerange") {
		if c := reCodespace.FindSubmatch(sec); c != nil {
			m.width = min(4, max(1, (len(c[1])+1)/2))
		}
		break
	}
	for _, sec := range sections(b, "begincidrange", "endcidrange") {
		for _, r := range reCIDRange.FindAllSubmatch(sec, -1) {
			lo, _ := strconv.ParseInt(string(r[1]), 16, 64)
			hi, _ := strconv.ParseInt(string(r[2]), 16, 64)
			cid, _ := strconv.ParseInt(string(r[3]), 10, 64)
			for c := lo; c <= hi && len(m.cids) < maxMapped; c++ {
				m.cids[int(c)] = int(cid + c - lo)
			}
		}
	}
	for _, sec := range sections(b, "begincidchar", "endcidchar") {
		for _, r := range reCIDChar.FindAllSubmatch(sec, -1) {
			code, _ := strconv.ParseInt(string(r[1]), 16, 64)
			cid, _ := strconv.ParseInt(string(r[2]), 10, 64)
			if len(m.cids) < maxMapped {
				m.cids[int(code)] = int(cid)
			}
		}
	}
	return m
}

// readToUnicode reads bfchar and bfrange sections: code to the text's first character.
func readToUnicode(b []byte) map[int]rune {
	out := map[int]rune{}
	first := func(h []byte) rune {
		var u []uint16
		for i := 0; i+4 <= len(h); i += 4 {
			v, _ := strconv.ParseUint(string(h[i:i+4]), 16, 16)
			u = append(u, uint16(v))
		}
		if r := utf16.Decode(u); len(r) > 0 {
			return r[0]
		}
		return -1
	}
	for _, sec := range sections(b, "beginbfchar", "endbfchar") {
		for _, r := range reBFChar.FindAllSubmatch(sec, -1) {
			code, _ := strconv.ParseInt(string(r[1]), 16, 64)
			if len(out) < maxMapped {
				out[int(code)] = first(r[2])
			}
		}
	}
	for _, sec := range sections(b, "beginbfrange", "endbfrange") {
		for _, r := range reBFRange.FindAllSubmatch(sec, -1) {
			lo, _ := strconv.ParseInt(string(r[1]), 16, 64)
			hi, _ := strconv.ParseInt(string(r[2]), 16, 64)
			base := first(r[3])
			for c := lo; c <= hi && len(out) < maxMapped && base >= 0; c++ {
				out[int(c)] = base + rune(c-lo)
			}
		}
	}
	return out
}

// readToUnicodeAll is every Unicode value a ToUnicode program maps to (the characters of
// its bfchar destinations and the first and last of its bfranges).
func readToUnicodeAll(b []byte) []rune {
	var out []rune
	all := func(h []byte) {
		for i := 0; i+4 <= len(h) && len(out) < maxMapped; i += 4 {
			v, _ := strconv.ParseUint(string(h[i:i+4]), 16, 16)
			out = append(out, rune(v))
		}
	}
	for _, sec := range sections(b, "beginbfchar", "endbfchar") {
		for _, r := range reBFChar.FindAllSubmatch(sec, -1) {
			all(r[2])
		}
	}
	for _, sec := range sections(b, "beginbfrange", "endbfrange") {
		for _, r := range reBFRange.FindAllSubmatch(sec, -1) {
			all(r[3])
		}
	}
	return out
}
