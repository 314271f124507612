package tmpl

import (
	"bytes"
	"github.com/papierkram/papierkram/internal/lazyre"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/archive"
)

// Tag patterns, shared by every filler.
var (
	// Any finds every tag, whole: a value or a section marker.
	Any = lazyre.New(`\{\{[^{}]*\}\}|\{[#^/][^{}]*\}`)
	// Value is a value tag; group 1 is the name.
	Value = lazyre.New(`\{\{\s*([A-Za-z0-9_][A-Za-z0-9_.\-]*)\s*\}\}`)
	// Section is a section marker; group 1 is #, ^ or /, group 2 the name.
	Section = lazyre.New(`\{([#^/])\s*([A-Za-z0-9_][A-Za-z0-9_.\-]*)\s*\}`)
)

// Scope resolves names: the innermost section's item first, then the outer ones.
type Scope struct {
	vars   map[string]any
	parent *Scope
}

// New is the outermost scope of the data.
func New(vars map[string]any) Scope { return Scope{vars: vars} }

// Lookup finds a dotted name, innermost scope first.
func (s Scope) Lookup(name string) (any, bool) {
	for sc := &s; sc != nil; sc = sc.parent {
		if v, ok := resolve(sc.vars, name); ok {
			return v, true
		}
	}
	return nil, false
}

// resolve follows a dotted name through nested objects.
func resolve(m map[string]any, name string) (any, bool) {
	var cur any = m
	for part := range strings.SplitSeq(name, ".") {
		obj, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = obj[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// Expand gives the scopes a section's content is filled with, once each: one per item of
// a list ({{this}} naming a plain item), the object of an object, the current scope
// for another truthy value; none for an empty one. An inverted section (kind '^') is kept
// once exactly when the value is not truthy.
func (s Scope) Expand(kind, name string) []Scope {
	v, _ := s.Lookup(name)
	if kind == "^" {
		if !Truthy(v) {
			return []Scope{s}
		}
		return nil
	}
	switch x := v.(type) {
	case []any:
		out := make([]Scope, 0, len(x))
		for _, item := range x {
			m, ok := item.(map[string]any)
			if !ok {
				m = map[string]any{"this": item}
			}
			out = append(out, Scope{vars: m, parent: &s})
		}
		return out
	case map[string]any:
		return []Scope{{vars: x, parent: &s}}
	}
	if Truthy(v) {
		return []Scope{s}
	}
	return nil
}

// Truthy is a section's condition: not nil, false, "", "false", "0", 0 or an empty list.
func Truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != "" && x != "false" && x != "0"
	case float64:
		return x != 0
	case []any:
		return len(x) > 0
	}
	return true
}

// Format is a value as text: strings as they are, numbers as written in JSON (shortest
// form), booleans as true/false; anything else (nil, objects, lists) is empty.
func Format(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

// Template file kinds.
const (
	KindHTML = "html"
	KindDOCX = "docx"
	KindXLSX = "xlsx"
	KindZip  = "zip" // HTML with its assets: index.html (or one .html file) and images, fonts, CSS
)

// maxZipEntries bounds the zip listing read to tell a template's kind.
const maxZipEntries = 10_000

// Detect names a template file's kind by its content: a Word or Excel package, a zip of
// HTML with assets, or HTML text. Anything else is fault.InvalidInput.
func Detect(data []byte) (string, error) {
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		z, err := archive.Open(data, bundleLimits)
		if err != nil {
			return "", err
		}
		html := 0
		for _, f := range z.Files {
			switch name := strings.ToLower(f.Name); {
			case name == "word/document.xml":
				return KindDOCX, nil
			case name == "xl/workbook.xml":
				return KindXLSX, nil
			case strings.HasSuffix(name, ".html") || strings.HasSuffix(name, ".htm"):
				html++
			}
		}
		if html > 0 {
			return KindZip, nil
		}
		return "", fault.New(fault.InvalidInput, "the zip holds no HTML page, and is no .docx or .xlsx")
	}
	text := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\ufeff")), " \t\r\n")
	if utf8.Valid(data) && len(text) > 0 && text[0] == '<' {
		return KindHTML, nil
	}
	return "", fault.New(fault.UnsupportedMediaType, "a template is HTML, a .docx, an .xlsx or a zip of HTML and assets")
}
