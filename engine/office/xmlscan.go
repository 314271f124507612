package office

import (
	"bytes"
	"errors"
)

// A tolerant XML tag scanner for the sanitiser. It reports start tags with the byte spans
// of their attribute values, end tags, text and CDATA, and skips comments, processing
// instructions and declarations. On well-formed XML it sees exactly the elements a parser
// sees; on what is not (Excel's VML, HTML) it goes on as a browser would rather than stop,
// so nothing after a flaw goes unseen. It keeps no namespaces: the rules match local names.

type evKind int

const (
	evStart evKind = iota
	evEnd
	evText
	evCDATA
)

// Names are slices of the scanned document (no copies: a workbook has millions of tags);
// an event's attributes are valid only during the callback.
type xmlAttr struct {
	name         []byte
	vstart, vend int // the value's bytes without quotes; -1 for an attribute without value
	quoted       bool
}

type xmlEvent struct {
	kind         evKind
	name         []byte
	attrs        []xmlAttr
	selfClosing  bool
	start, end   int // the whole markup (or text)
	tstart, tend int // text or CDATA content
}

// text is the event's character data, references resolved; ok is false for an entity that
// cannot be resolved.
func (ev xmlEvent) text(b []byte) (string, bool) {
	if ev.kind == evCDATA {
		return string(b[ev.tstart:ev.tend]), true
	}
	return unescape(b[ev.tstart:ev.tend])
}

var errDTD = errors.New("declares a DTD with its own entities or elements, which is not accepted")

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// scanXML calls fn for each event of b. It fails only on a DTD with an internal subset:
// entities declared there could turn into references the rules would not see.
func scanXML(b []byte, fn func(xmlEvent)) error {
	var attrs []xmlAttr // reused from tag to tag
	i := 0
	for i < len(b) {
		if b[i] != '<' {
			j := bytes.IndexByte(b[i:], '<')
			if j < 0 {
				j = len(b) - i
			}
			fn(xmlEvent{kind: evText, start: i, end: i + j, tstart: i, tend: i + j})
			i += j
			continue
		}
		rest := b[i:]
		switch {
		case bytes.HasPrefix(rest, []byte("<!--")):
			i = skipTo(b, i+4, "-->")
		case bytes.HasPrefix(rest, []byte("<![CDATA[")):
			end := bytes.Index(b[i+9:], []byte("]]>"))
			if end < 0 {
				fn(xmlEvent{kind: evCDATA, start: i, end: len(b), tstart: i + 9, tend: len(b)})
				return nil
			}
			fn(xmlEvent{kind: evCDATA, start: i, end: i + 9 + end + 3, tstart: i + 9, tend: i + 9 + end})
			i += 9 + end + 3
		case bytes.HasPrefix(rest, []byte("<?")):
			i = skipTo(b, i+2, "?>")
		case bytes.HasPrefix(rest, []byte("<!")):
			end, subset := declEnd(b, i+2)
			if subset {
				return errDTD
			}
			i = end
		case bytes.HasPrefix(rest, []byte("</")):
			j := i + 2
			for j < len(b) && !isSpace(b[j]) && b[j] != '>' {
				j++
			}
			name := b[i+2 : j]
			end := bytes.IndexByte(b[j:], '>')
			if end < 0 {
				end = len(b) - j - 1
			}
			fn(xmlEvent{kind: evEnd, name: name, start: i, end: j + end + 1})
			i = j + end + 1
		case len(rest) > 1 && nameStart(rest[1]):
			ev, next := startTag(b, i, attrs[:0])
			fn(ev)
			attrs = ev.attrs
			i = next
		default: // a lone "<": text
			fn(xmlEvent{kind: evText, start: i, end: i + 1, tstart: i, tend: i + 1})
			i++
		}
	}
	return nil
}

func nameStart(c byte) bool {
	return c == '_' || c == ':' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= 0x80
}

// skipTo is the index after the next sep from i, or the end.
func skipTo(b []byte, i int, sep string) int {
	if j := bytes.Index(b[i:], []byte(sep)); j >= 0 {
		return i + j + len(sep)
	}
	return len(b)
}

// declEnd is the end of a declaration (<!DOCTYPE ...>) whose content starts at i, past
// quoted literals; subset tells whether it has an internal subset ([...]).
func declEnd(b []byte, i int) (int, bool) {
	for i < len(b) {
		switch c := b[i]; c {
		case '"', '\'':
			j := bytes.IndexByte(b[i+1:], c)
			if j < 0 {
				return len(b), false
			}
			i += j + 2
		case '[':
			return len(b), true
		case '>':
			return i + 1, false
		default:
			i++
		}
	}
	return len(b), false
}

// startTag reads the start tag at i. A "<" where a name or attribute would start ends the
// tag there: the scan goes on with the markup it opens.
func startTag(b []byte, i int, attrs []xmlAttr) (xmlEvent, int) {
	ev := xmlEvent{kind: evStart, start: i, attrs: attrs}
	j := i + 1
	for j < len(b) && !isSpace(b[j]) && b[j] != '>' && b[j] != '/' && b[j] != '<' {
		j++
	}
	ev.name = b[i+1 : j]
	for {
		for j < len(b) && isSpace(b[j]) {
			j++
		}
		if j >= len(b) {
			ev.end = len(b)
			return ev, len(b)
		}
		switch {
		case b[j] == '<':
			ev.end = j
			return ev, j
		case b[j] == '>':
			ev.end = j + 1
			return ev, j + 1
		case b[j] == '/' && j+1 < len(b) && b[j+1] == '>':
			ev.selfClosing = true
			ev.end = j + 2
			return ev, j + 2
		case b[j] == '/':
			j++
			continue
		}
		// An attribute: name, then = and a value, quoted or (not XML, but tolerated) bare.
		n := j
		for j < len(b) && !isSpace(b[j]) && b[j] != '=' && b[j] != '>' && b[j] != '<' && !(b[j] == '/' && j+1 < len(b) && b[j+1] == '>') {
			j++
		}
		a := xmlAttr{name: b[n:j], vstart: -1, vend: -1}
		k := j
		for k < len(b) && isSpace(b[k]) {
			k++
		}
		if k < len(b) && b[k] == '=' {
			k++
			for k < len(b) && isSpace(b[k]) {
				k++
			}
			if k < len(b) && (b[k] == '"' || b[k] == '\'') {
				q := b[k]
				e := bytes.IndexByte(b[k+1:], q)
				if e < 0 {
					e = len(b) - k - 1
				}
				a.vstart, a.vend, a.quoted = k+1, k+1+e, true
				j = min(k+1+e+1, len(b))
			} else {
				e := k
				for e < len(b) && !isSpace(b[e]) && b[e] != '>' && b[e] != '<' {
					e++
				}
				a.vstart, a.vend = k, e
				j = e
			}
		}
		if len(a.name) > 0 {
			ev.attrs = append(ev.attrs, a)
		} else if j == n {
			j++ // a stray character: move on
		}
	}
}
