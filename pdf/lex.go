package pdf

import (
	"bytes"
	"strconv"
)

// A small PDF lexer and parser for the bounds check (bounds.go). It reads untrusted bytes
// before pdfcpu does, so it allocates little, never recurses deeper than maxParseDepth and
// treats anything it does not understand as an opaque value instead of failing.

func isWhite(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func isDelim(c byte) bool {
	switch c {
	case '(', ')', '<', '>', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func isRegular(c byte) bool { return !isWhite(c) && !isDelim(c) }

// IsWhite and IsDelimiter classify a byte as ISO 32000-1, 7.2.2 does, for the other
// readers of PDF syntax (the validator's content and file lexers).
func IsWhite(c byte) bool     { return isWhite(c) }
func IsDelimiter(c byte) bool { return isDelim(c) }

type tokKind uint8

const (
	tEOF       tokKind = iota
	tDictOpen          // <<
	tDictClose         // >>
	tArrOpen           // [
	tArrClose          // ]
	tName              // /Name; the token's text is without the slash
	tString            // (...)
	tHex               // <...>
	tRegular           // number, keyword, true, false, null, R
	tOther             // { } ) or a lone >
)

type token struct {
	kind       tokKind
	start, end int
}

type lexer struct {
	b     []byte
	p     int
	built int // values built by parseValue, against maxValues
}

// maxValues bounds the values one parse builds: an array of millions of numbers costs a
// few bytes each in the file and a hundred in memory.
const maxValues = 1 << 16

func (l *lexer) text(t token) []byte { return l.b[t.start:t.end] }

// skipSpace skips white space and comments.
func (l *lexer) skipSpace() {
	for l.p < len(l.b) {
		c := l.b[l.p]
		switch {
		case isWhite(c):
			l.p++
		case c == '%':
			for l.p < len(l.b) && l.b[l.p] != '\n' && l.b[l.p] != '\r' {
				l.p++
			}
		default:
			return
		}
	}
}

func (l *lexer) next() token {
	l.skipSpace()
	s := l.p
	if s >= len(l.b) {
		return token{tEOF, s, s}
	}
	switch c := l.b[s]; c {
	case '<':
		if s+1 < len(l.b) && l.b[s+1] == '<' {
			l.p += 2
			return token{tDictOpen, s, l.p}
		}
		if i := bytes.IndexByte(l.b[s+1:], '>'); i >= 0 {
			l.p = s + i + 2
		} else {
			l.p = len(l.b)
		}
		return token{tHex, s, l.p}
	case '>':
		if s+1 < len(l.b) && l.b[s+1] == '>' {
			l.p += 2
			return token{tDictClose, s, l.p}
		}
		l.p++
		return token{tOther, s, l.p}
	case '[':
		l.p++
		return token{tArrOpen, s, l.p}
	case ']':
		l.p++
		return token{tArrClose, s, l.p}
	case '(':
		depth := 0
		for l.p < len(l.b) {
			switch l.b[l.p] {
			case '\\':
				l.p++
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					l.p++
					return token{tString, s, l.p}
				}
			}
			l.p++
		}
		l.p = len(l.b)
		return token{tString, s, l.p}
	case '/':
		l.p++
		for l.p < len(l.b) && isRegular(l.b[l.p]) {
			l.p++
		}
		return token{tName, s + 1, l.p}
	case ')', '{', '}':
		l.p++
		return token{tOther, s, l.p}
	}
	for l.p < len(l.b) && isRegular(l.b[l.p]) {
		l.p++
	}
	return token{tRegular, s, l.p}
}

// Values. Only what the bounds check needs is kept: numbers, names, references, strings
// (raw, decoded on demand), and dictionaries and arrays down to maxParseDepth.
type kind uint8

const (
	vOther kind = iota // keywords and reals (raw), values beyond maxParseDepth
	vInt
	vName
	vRef
	vString
	vHex
	vDict
	vArray
)

const maxParseDepth = 4

type value struct {
	kind kind
	num  int64  // vInt; object number of a vRef
	gen  int64  // generation of a vRef
	raw  []byte // vName (escapes decoded), vString and vHex (as written), keywords
	dict []entry
	arr  []value
}

type entry struct {
	key string
	val value
}

// get returns the value of key; of a key written twice, the last, as pdfcpu reads it.
func (v value) get(key string) value {
	for i := len(v.dict) - 1; i >= 0; i-- {
		if v.dict[i].key == key {
			return v.dict[i].val
		}
	}
	return value{}
}

// twice reports whether key is written more than once.
func (v value) twice(key string) bool {
	n := 0
	for _, e := range v.dict {
		if e.key == key {
			n++
		}
	}
	return n > 1
}

func (v value) name() string {
	if v.kind != vName {
		return ""
	}
	return string(v.raw)
}

func (v value) isName(n string) bool { return v.kind == vName && string(v.raw) == n }

func (v value) int() (int64, bool) { return v.num, v.kind == vInt }

// keyword is the text of a keyword value (true, false, null), else "".
func (v value) keyword() string {
	if v.kind != vOther {
		return ""
	}
	return string(v.raw)
}

// integer parses a PDF integer token (an optional sign and at most 18 digits).
func integer(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	return n, err == nil
}

// parseValue parses the value that starts with the next token. Containers deeper than
// maxParseDepth are skipped; keep, when not nil, says which keys of a dictionary at depth
// 0 to parse (the others are skipped, so that big resource dictionaries cost no
// allocation).
func (l *lexer) parseValue(depth int, keep func(string) bool) value {
	t := l.next()
	return l.valueFrom(t, depth, keep)
}

func (l *lexer) valueFrom(t token, depth int, keep func(string) bool) value {
	if l.built++; l.built > maxValues {
		// Past the budget, containers are skipped and nothing more is kept.
		if t.kind == tDictOpen || t.kind == tArrOpen {
			l.skipContainer(1)
		}
		return value{}
	}
	switch t.kind {
	case tDictOpen:
		if depth >= maxParseDepth {
			l.skipContainer(1)
			return value{}
		}
		v := value{kind: vDict}
		for {
			k := l.next()
			switch k.kind {
			case tDictClose, tEOF:
				return v
			case tName:
			default:
				if k.kind == tRegular && objKeyword(l.text(k)) {
					// The dictionary never closed: it ends where the object does.
					l.p = k.start
					return v
				}
				// Not a key: damaged; keep going as a reader would.
				if k.kind == tDictOpen || k.kind == tArrOpen {
					l.skipContainer(1)
				}
				continue
			}
			if l.built >= maxValues {
				l.skipValue()
				continue
			}
			key := nameText(l.text(k))
			if keep != nil && depth == 0 && !keep(key) {
				l.skipValue()
				continue
			}
			val := l.parseValue(depth+1, nil)
			v.dict = append(v.dict, entry{key, val})
		}
	case tArrOpen:
		if depth >= maxParseDepth {
			l.skipContainer(1)
			return value{}
		}
		v := value{kind: vArray}
		for {
			save := l.p
			e := l.next()
			if e.kind == tArrClose || e.kind == tEOF {
				return v
			}
			if e.kind == tDictClose || e.kind == tRegular && objKeyword(l.text(e)) {
				// Damaged: the array never closed; end it here.
				l.p = save
				return v
			}
			if l.built >= maxValues {
				if e.kind == tDictOpen || e.kind == tArrOpen {
					l.skipContainer(1)
				}
				continue
			}
			v.arr = append(v.arr, l.valueFrom(e, depth+1, nil))
		}
	case tName:
		return value{kind: vName, raw: []byte(nameText(l.text(t)))}
	case tString:
		return value{kind: vString, raw: l.text(t)}
	case tHex:
		return value{kind: vHex, raw: l.text(t)}
	case tRegular:
		n, ok := integer(l.text(t))
		if !ok {
			return value{raw: l.text(t)}
		}
		// "n g R" is a reference.
		save := l.p
		if g := l.next(); g.kind == tRegular {
			if gen, ok := integer(l.text(g)); ok {
				if r := l.next(); r.kind == tRegular && string(l.text(r)) == "R" {
					return value{kind: vRef, num: n, gen: gen}
				}
			}
		}
		l.p = save
		return value{kind: vInt, num: n}
	}
	return value{}
}

// skipValue skips the value that starts with the next token.
func (l *lexer) skipValue() {
	t := l.next()
	switch t.kind {
	case tDictOpen, tArrOpen:
		l.skipContainer(1)
	case tRegular:
		// A reference is three tokens.
		save := l.p
		if g := l.next(); g.kind == tRegular {
			if r := l.next(); r.kind == tRegular && string(l.text(r)) == "R" {
				return
			}
		}
		l.p = save
	}
}

// skipContainer skips to the end of depth open dictionaries or arrays, counting brackets
// without recursion.
func (l *lexer) skipContainer(depth int) {
	for depth > 0 {
		switch t := l.next(); t.kind {
		case tDictOpen, tArrOpen:
			depth++
		case tDictClose, tArrClose:
			depth--
		case tRegular:
			if objKeyword(l.text(t)) {
				l.p = t.start
				return
			}
		case tEOF:
			return
		}
	}
}

// objKeyword reports keywords that end an object: a container still open there was
// never closed. Stopping at them keeps a damaged object from swallowing the file.
func objKeyword(b []byte) bool {
	switch string(b) {
	case "obj", "endobj", "stream", "endstream", "xref", "trailer", "startxref":
		return true
	}
	return false
}

// nameText decodes the #xx escapes of a name: /Fl#61teDecode is /FlateDecode to every
// reader, so it must be to the bounds check too.
func nameText(b []byte) string {
	if bytes.IndexByte(b, '#') < 0 {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '#' && i+2 < len(b) {
			if h, ok := unhex(b[i+1]); ok {
				if lo, ok := unhex(b[i+2]); ok {
					out = append(out, h<<4|lo)
					i += 2
					continue
				}
			}
		}
		out = append(out, b[i])
	}
	return string(out)
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// decodeHex decodes the digits of a hex string, skipping white space; an odd last digit
// counts as followed by 0 (ISO 32000-1, 7.3.4.3).
func decodeHex(h []byte) []byte {
	out := make([]byte, 0, len(h)/2+1)
	var hi byte
	half := false
	for _, c := range h {
		d, ok := unhex(c)
		if !ok {
			continue
		}
		if half {
			out = append(out, hi<<4|d)
		} else {
			hi = d
		}
		half = !half
	}
	if half {
		out = append(out, hi<<4)
	}
	return out
}

// str decodes a literal or hex string value (the /ID and /O /U entries of encryption).
func (v value) str() []byte {
	switch v.kind {
	case vHex:
		return decodeHex(bytes.TrimSuffix(bytes.TrimPrefix(v.raw, []byte("<")), []byte(">")))
	case vString:
		b := v.raw
		if len(b) >= 2 {
			b = b[1 : len(b)-1]
		}
		return DecodeLiteral(b)
	}
	return nil
}

// DecodeHex decodes a hexadecimal string's digits (without the angle brackets), skipping
// white space; an odd last digit counts as followed by 0 (ISO 32000-1, 7.3.4.3).
func DecodeHex(h []byte) []byte { return decodeHex(h) }

// DecodeLiteral decodes a literal string's text (without the parentheses): escapes,
// octal codes, line continuations, end-of-line markers read as LF (ISO 32000-1, 7.3.4.2).
func DecodeLiteral(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '\r' {
			// An end of line in a literal string is read as \n.
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
			out = append(out, '\n')
			continue
		}
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			continue
		}
		i++
		switch c = b[i]; c {
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case '\r':
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
		case '\n':
		default:
			if c >= '0' && c <= '7' {
				n := int(c - '0')
				for k := 0; k < 2 && i+1 < len(b) && b[i+1] >= '0' && b[i+1] <= '7'; k++ {
					i++
					n = n*8 + int(b[i]-'0')
				}
				out = append(out, byte(n))
			} else {
				out = append(out, c)
			}
		}
	}
	return out
}
