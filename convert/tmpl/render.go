package tmpl

import (
	"archive/zip"
	"encoding/base64"
	"fmt"
	"html"
	"math"
	"path"
	"strconv"
	"strings"
	"time"

	qrcode "github.com/skip2/go-qrcode"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/archive"
)

// Limits of rendering: a template and its data cannot blow up into gigabytes.
const (
	maxOutput = 50 << 20
	maxDepth  = 20
)

// node is a parsed template: text, a value tag, or a section with its content.
type node struct {
	text    string
	tag     *valueTag
	section *section
}

type valueTag struct {
	helper string   // "" for a plain value
	name   string   // the value's name
	args   []string // the helper's further arguments
}

type section struct {
	kind, name string
	body       []node
}

// parse turns a text template into nodes; sections nest.
func parse(src string) ([]node, error) {
	type frame struct {
		sec   *section
		nodes []node
	}
	stack := []frame{{}}
	last := 0
	for _, m := range Any.FindAllStringIndex(src, -1) {
		top := &stack[len(stack)-1]
		if m[0] > last {
			top.nodes = append(top.nodes, node{text: src[last:m[0]]})
		}
		last = m[1]
		tag := src[m[0]:m[1]]
		if s := Section.FindStringSubmatch(tag); s != nil && s[0] == tag {
			switch s[1] {
			case "#", "^":
				if len(stack) > maxDepth {
					return nil, fault.New(fault.InvalidInput, "template: sections nest deeper than %d", maxDepth)
				}
				stack = append(stack, frame{sec: &section{kind: s[1], name: s[2]}})
			case "/":
				if top.sec == nil || top.sec.name != s[2] {
					return nil, fault.New(fault.InvalidInput, "template: {/%s} closes no open {#%s}", s[2], s[2])
				}
				top.sec.body = top.nodes
				sec := top.sec
				stack = stack[:len(stack)-1]
				up := &stack[len(stack)-1]
				up.nodes = append(up.nodes, node{section: sec})
			}
			continue
		}
		v, err := parseValue(tag)
		if err != nil {
			return nil, err
		}
		top.nodes = append(top.nodes, node{tag: v})
	}
	if len(stack) > 1 {
		return nil, fault.New(fault.InvalidInput, "template: {%s%s} is never closed", stack[len(stack)-1].sec.kind, stack[len(stack)-1].sec.name)
	}
	if last < len(src) {
		stack[0].nodes = append(stack[0].nodes, node{text: src[last:]})
	}
	return stack[0].nodes, nil
}

var helpers = map[string]bool{"money": true, "number": true, "date": true, "qr": true, "barcode": true, "image": true, "upper": true, "lower": true}

// parseValue reads {{name}} or {{helper name arg...}}; arguments may be quoted.
func parseValue(tag string) (*valueTag, error) {
	inner := strings.TrimSpace(tag[2 : len(tag)-2])
	var words []string
	for inner != "" {
		if inner[0] == '"' {
			end := strings.IndexByte(inner[1:], '"')
			if end < 0 {
				return nil, fault.New(fault.InvalidInput, "template: unclosed quote in %s", tag)
			}
			words = append(words, inner[1:end+1])
			inner = strings.TrimSpace(inner[end+2:])
			continue
		}
		w, rest, _ := strings.Cut(inner, " ")
		words = append(words, w)
		inner = strings.TrimSpace(rest)
	}
	if len(words) == 0 {
		return nil, fault.New(fault.InvalidInput, "template: empty tag %s", tag)
	}
	v := &valueTag{}
	// One word is a value, whatever its name ({{number}} is the invoice number); a helper
	// takes a value name after it.
	if len(words) > 1 && helpers[words[0]] {
		v.helper, words = words[0], words[1:]
	} else if len(words) > 1 {
		return nil, fault.New(fault.InvalidInput, "template: unknown helper %q in %s; money, number, date, qr, image, upper or lower", words[0], tag)
	}
	if !Value.MatchString("{{" + words[0] + "}}") {
		return nil, fault.New(fault.InvalidInput, "template: %q is not a value name", words[0])
	}
	v.name, v.args = words[0], words[1:]
	return v, nil
}

// RenderHTML fills an HTML template: values are HTML-escaped, sections repeat or drop
// their content, and the helpers format for the locale (BCP 47, e.g. de-DE):
// {{money total}} or {{money total "USD"}} (currency default EUR, or the data's currency),
// {{number qty 2}}, {{date issued}} or {{date issued "02.01.2006"}} (Go layout), {{qr iban}}
// (an inline PNG QR code, optional size in pixels), {{image logo}} (a data:image/png,
// jpeg, gif or webp URI from the data), {{upper x}}, {{lower x}}.
func RenderHTML(src string, data map[string]any, locale string) (string, error) {
	nodes, err := parse(src)
	if err != nil {
		return "", err
	}
	r := renderer{loc: localeOf(locale)}
	if c, ok := data["currency"].(string); ok {
		r.currency = c
	}
	if err := r.render(nodes, New(data)); err != nil {
		return "", err
	}
	return r.out.String(), nil
}

type renderer struct {
	out      strings.Builder
	loc      locale
	currency string
}

func (r *renderer) render(nodes []node, sc Scope) error {
	for _, n := range nodes {
		switch {
		case n.section != nil:
			for _, inner := range sc.Expand(n.section.kind, n.section.name) {
				if err := r.render(n.section.body, inner); err != nil {
					return err
				}
			}
		case n.tag != nil:
			s, err := r.value(n.tag, sc)
			if err != nil {
				return err
			}
			r.out.WriteString(s)
		default:
			r.out.WriteString(n.text)
		}
		if r.out.Len() > maxOutput {
			return fault.New(fault.PayloadTooLarge, "the rendered template exceeds %d MB", maxOutput>>20)
		}
	}
	return nil
}

// value renders one tag, escaped for HTML (the qr and image helpers write their own markup).
func (r *renderer) value(t *valueTag, sc Scope) (string, error) {
	v, _ := sc.Lookup(t.name)
	arg := func(i int) string {
		if i < len(t.args) {
			return t.args[i]
		}
		return ""
	}
	switch t.helper {
	case "":
		return html.EscapeString(Format(v)), nil
	case "upper":
		return html.EscapeString(strings.ToUpper(Format(v))), nil
	case "lower":
		return html.EscapeString(strings.ToLower(Format(v))), nil
	case "money", "number":
		if v == nil {
			return "", nil
		}
		x, err := number(v)
		if err != nil {
			return "", fault.Wrap(fault.InvalidInput, err, "template: %s of %s: %v", t.helper, t.name, err)
		}
		if t.helper == "number" {
			decimals := 2
			if a := arg(0); a != "" {
				if decimals, err = strconv.Atoi(a); err != nil || decimals < 0 || decimals > 10 {
					return "", fault.New(fault.InvalidInput, "template: number of %s: %q is not a count of decimals", t.name, a)
				}
			}
			return html.EscapeString(r.loc.number(x, decimals)), nil
		}
		cur := strings.ToUpper(arg(0))
		if cur == "" {
			cur = strings.ToUpper(r.currency)
		}
		if cur == "" {
			cur = "EUR"
		}
		return html.EscapeString(r.loc.money(x, cur)), nil
	case "date":
		s := Format(v)
		if s == "" {
			return "", nil
		}
		d, err := parseDate(s)
		if err != nil {
			return "", fault.Wrap(fault.InvalidInput, err, "template: date of %s: %v", t.name, err)
		}
		layout := arg(0)
		if layout == "" {
			layout = r.loc.dateLayout
		}
		return html.EscapeString(d.Format(layout)), nil
	case "qr":
		s := Format(v)
		if s == "" {
			return "", nil
		}
		size := 160
		if a := arg(0); a != "" {
			n, err := strconv.Atoi(a)
			if err != nil || n < 32 || n > 2000 {
				return "", fault.New(fault.InvalidInput, "template: qr of %s: size %q is not 32 to 2000 pixels", t.name, a)
			}
			size = n
		}
		png, err := qrcode.Encode(s, qrcode.Medium, size)
		if err != nil {
			return "", fault.Wrap(fault.InvalidInput, err, "template: qr of %s: %v", t.name, err)
		}
		return fmt.Sprintf(`<img class="qr" width="%d" height="%d" alt="QR code" src="data:image/png;base64,%s">`, size, size, base64.StdEncoding.EncodeToString(png)), nil
	case "barcode":
		s := Format(v)
		if s == "" {
			return "", nil
		}
		svg, err := barcode(s, strings.ToLower(arg(0)), arg(1))
		if err != nil {
			return "", fault.Wrap(fault.InvalidInput, err, "template: barcode of %s: %v", t.name, err)
		}
		return svg, nil
	case "image":
		s := Format(v)
		if s == "" {
			return "", nil
		}
		ok := false
		for _, p := range []string{"data:image/png;base64,", "data:image/jpeg;base64,", "data:image/gif;base64,", "data:image/webp;base64,"} {
			if strings.HasPrefix(s, p) {
				_, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, p))
				ok = err == nil
			}
		}
		if !ok {
			return "", fault.New(fault.InvalidInput, "template: image of %s: a data:image/png, jpeg, gif or webp URI in Base64", t.name)
		}
		return `<img alt="" src="` + html.EscapeString(s) + `">`, nil
	}
	return "", nil
}

func number(v any) (float64, error) {
	switch x := v.(type) {
	case float64:
		return x, nil
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, fmt.Errorf("%q is not a number", x)
		}
		return f, nil
	}
	return 0, fmt.Errorf("not a number")
}

func parseDate(s string) (time.Time, error) {
	for _, layout := range []string{time.DateOnly, time.RFC3339, "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date (YYYY-MM-DD)", s)
}

// locale is how numbers, amounts and dates are written.
type locale struct {
	group, decimal string
	symbolAfter    bool // 1.234,56 € rather than €1,234.56
	dateLayout     string
}

// locales by language, refined by region where the region changes the writing.
var locales = map[string]locale{
	"de":    {".", ",", true, "02.01.2006"},
	"de-CH": {"’", ".", true, "02.01.2006"},
	"en":    {",", ".", false, "2006-01-02"},
	"en-US": {",", ".", false, "01/02/2006"},
	"en-GB": {",", ".", false, "02/01/2006"},
	"fr":    {"\u202f", ",", true, "02/01/2006"},
	"es":    {".", ",", true, "02/01/2006"},
	"it":    {".", ",", true, "02/01/2006"},
	"nl":    {".", ",", false, "02-01-2006"},
	"pl":    {"\u00a0", ",", true, "02.01.2006"},
}

func localeOf(tag string) locale {
	tag = strings.ReplaceAll(strings.TrimSpace(tag), "_", "-")
	if tag == "" {
		tag = "de-DE"
	}
	if l, ok := locales[tag]; ok {
		return l
	}
	lang, _, _ := strings.Cut(tag, "-")
	if l, ok := locales[strings.ToLower(lang)]; ok {
		return l
	}
	return locale{",", ".", false, "2006-01-02"}
}

var symbols = map[string]string{"EUR": "€", "USD": "$", "GBP": "£", "JPY": "¥", "CHF": "CHF", "PLN": "zł", "SEK": "kr", "DKK": "kr", "NOK": "kr", "CZK": "Kč", "HUF": "Ft"}

func (l locale) number(x float64, decimals int) string {
	s := strconv.FormatFloat(math.Abs(x), 'f', decimals, 64)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if x < 0 && strings.Trim(s, "0.") != "" {
		b.WriteByte('-')
	}
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteString(l.group)
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString(l.decimal)
		b.WriteString(frac)
	}
	return b.String()
}

func (l locale) money(x float64, cur string) string {
	sym, ok := symbols[cur]
	if !ok {
		sym = cur
	}
	n := l.number(x, 2)
	if l.symbolAfter {
		return n + "\u00a0" + sym
	}
	if neg := strings.HasPrefix(n, "-"); neg {
		return "-" + sym + n[1:]
	}
	return sym + n
}

// bundleLimits bound a zip template: its page and the files inlined into it unpack to at
// most 50 MB together.
var bundleLimits = archive.Limits{Noun: "the zip template", Entries: maxZipEntries, Part: 50 << 20, Total: 50 << 20}

// Bundle reads a zip template (HTML with its assets): the page is index.html, or the zip's
// only .html file; every other file the page names by its path (in src, href or url()) is
// inlined as a data: URL, so the page needs no file system and no network.
func Bundle(data []byte) (string, error) {
	z, err := archive.Open(data, bundleLimits)
	if err != nil {
		return "", err
	}
	var page *zip.File
	var pages []*zip.File
	assets := map[string]*zip.File{}
	for _, f := range z.Files {
		name := strings.TrimPrefix(f.Name, "./")
		switch lower := strings.ToLower(name); {
		case strings.HasSuffix(name, "/"):
		case lower == "index.html" || lower == "index.htm":
			page = f
		case strings.HasSuffix(lower, ".html") || strings.HasSuffix(lower, ".htm"):
			pages = append(pages, f)
		default:
			assets[name] = f
		}
	}
	if page == nil && len(pages) == 1 {
		page = pages[0]
	}
	if page == nil {
		return "", fault.New(fault.InvalidInput, "the zip template needs index.html (or exactly one .html file)")
	}
	html, err := z.Read(page)
	if err != nil {
		return "", err
	}
	out := string(html)
	for name, f := range assets {
		if !strings.Contains(out, name) {
			continue
		}
		b, err := z.Read(f)
		if err != nil {
			return "", err
		}
		uri := "data:" + mimeOf(name) + ";base64," + base64.StdEncoding.EncodeToString(b)
		for _, q := range []string{`"`, `'`, `(`} {
			closing := map[string]string{`"`: `"`, `'`: `'`, `(`: `)`}[q]
			out = strings.ReplaceAll(out, q+name+closing, q+uri+closing)
			out = strings.ReplaceAll(out, q+"./"+name+closing, q+uri+closing)
		}
	}
	return out, nil
}

func mimeOf(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	case ".svg":
		return "image/svg+xml"
	case ".css":
		return "text/css"
	case ".ttf":
		return "font/ttf"
	case ".otf":
		return "font/otf"
	case ".woff":
		return "font/woff"
	case ".woff2":
		return "font/woff2"
	}
	return "application/octet-stream"
}
