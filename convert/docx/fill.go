package docx

import (
	"regexp"
	"strings"

	"github.com/beevik/etree"

	"github.com/papierkram/papierkram/convert/tmpl"
)

// filler fills one package, part by part.
type filler struct {
	pkg    *Package
	part   string
	rels   *etree.Document // the current part's relationships, loaded when an image needs them
	images int
	nextID int
}

func isW(e *etree.Element, tag string) bool { return e.Tag == tag && e.NamespaceURI() == nsW }

// texts are a paragraph's w:t elements in order, not those of paragraphs nested in it
// (text boxes).
func texts(p *etree.Element) []*etree.Element {
	var out []*etree.Element
	var walk func(e *etree.Element)
	walk = func(e *etree.Element) {
		for _, c := range e.ChildElements() {
			switch {
			case isW(c, "t"):
				out = append(out, c)
			case isW(c, "p"), isW(c, "del"), isW(c, "txbxContent"):
			default:
				walk(c)
			}
		}
	}
	walk(p)
	return out
}

func textOf(ts []*etree.Element) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.Text())
	}
	return b.String()
}

func setText(t *etree.Element, s string) {
	t.SetText(s)
	if strings.TrimSpace(s) != s || s == "" {
		t.CreateAttr("xml:space", "preserve")
	}
}

// repair moves every tag that Word split over several runs into the first of them, so that
// each tag lies within one w:t.
func repair(p *etree.Element) {
	for {
		ts := texts(p)
		full := textOf(ts)
		if !strings.Contains(full, "{") {
			return
		}
		// offsets of each w:t in full
		starts := make([]int, len(ts)+1)
		for i, t := range ts {
			starts[i+1] = starts[i] + len(t.Text())
		}
		fixed := false
		for _, m := range tmpl.Any.FindAllStringIndex(full, -1) {
			a, b := m[0], m[1]
			first, last := -1, -1
			for i := range ts {
				if starts[i] <= a && a < starts[i+1] {
					first = i
				}
				if starts[i] < b && b <= starts[i+1] {
					last = i
				}
			}
			if first < 0 || last < 0 || first == last {
				continue
			}
			setText(ts[first], ts[first].Text()[:a-starts[first]]+full[a:b])
			for i := first + 1; i < last; i++ {
				setText(ts[i], "")
			}
			setText(ts[last], ts[last].Text()[b-starts[last]:])
			fixed = true
			break
		}
		if !fixed {
			return
		}
	}
}

// section is a {#name}, {^name} or {/name} tag.
type section struct {
	kind, name string
}

func sections(s string) []section {
	var out []section
	for _, m := range tmpl.Section.FindAllStringSubmatch(s, -1) {
		out = append(out, section{m[1], m[2]})
	}
	return out
}

// textOfElement is the text of any element's paragraphs.
func textOfElement(e *etree.Element) string {
	if isW(e, "p") {
		return textOf(texts(e))
	}
	var b strings.Builder
	for _, c := range e.ChildElements() {
		b.WriteString(textOfElement(c))
	}
	return b.String()
}

// removeTag deletes the first occurrence of a tag's text from an element's w:t nodes.
func removeTag(e *etree.Element, kind, name string) {
	re := regexp.MustCompile(`\{` + regexp.QuoteMeta(kind) + `\s*` + regexp.QuoteMeta(name) + `\s*\}`)
	var walk func(e *etree.Element) bool
	walk = func(e *etree.Element) bool {
		for _, c := range e.ChildElements() {
			if isW(c, "t") {
				if loc := re.FindStringIndex(c.Text()); loc != nil {
					setText(c, c.Text()[:loc[0]]+c.Text()[loc[1]:])
					return true
				}
				continue
			}
			if walk(c) {
				return true
			}
		}
		return false
	}
	walk(e)
}

// fill processes the children of parent: sections first (they add or remove elements),
// then values in each paragraph.
func (f *filler) fill(parent *etree.Element, sc tmpl.Scope) error {
	for i := 0; i < len(parent.ChildElements()); i++ {
		kids := parent.ChildElements()
		el := kids[i]
		if isW(el, "p") {
			repair(el)
		}
		if isW(el, "p") || isW(el, "tr") {
			n, done, err := f.block(parent, kids, i, sc)
			if err != nil {
				return err
			}
			if done {
				// The n elements now at i are filled already: filling them again would
				// read tags out of the values (a value may hold "{{...}}").
				i += n - 1
				continue
			}
		}
		switch {
		case isW(el, "p"):
			if err := f.paragraph(el, sc); err != nil {
				return err
			}
		default:
			if err := f.fill(el, sc); err != nil {
				return err
			}
		}
	}
	return nil
}

// block expands a section that opens in kids[i] and closes in kids[i] or a later sibling.
// A section opening and closing inside one paragraph is left to paragraph.
func (f *filler) block(parent *etree.Element, kids []*etree.Element, i int, sc tmpl.Scope) (int, bool, error) {
	secs := sections(textOfElement(kids[i]))
	if len(secs) == 0 || secs[0].kind == "/" {
		return 0, false, nil
	}
	open := secs[0]
	// Within the same element?
	depth := 0
	for _, s := range secs {
		if s.name != open.name {
			continue
		}
		if s.kind == "/" {
			depth--
		} else {
			depth++
		}
		if depth == 0 {
			if isW(kids[i], "p") {
				return 0, false, nil // inline: paragraph handles it
			}
			n, err := f.expand(parent, kids, i, i, open, sc)
			return n, true, err
		}
	}
	for j := i + 1; j < len(kids); j++ {
		if !sameKind(kids[i], kids[j]) {
			continue
		}
		if isW(kids[j], "p") {
			repair(kids[j])
		}
		for _, s := range sections(textOfElement(kids[j])) {
			if s.name != open.name {
				continue
			}
			if s.kind == "/" {
				depth--
			} else {
				depth++
			}
			if depth == 0 {
				n, err := f.expand(parent, kids, i, j, open, sc)
				return n, true, err
			}
		}
	}
	return 0, false, f.errorf("{%s%s} has no closing {/%s}", open.kind, open.name, open.name)
}

func sameKind(a, b *etree.Element) bool { return a.Tag == b.Tag }

// expand replaces kids[i..j] by the section's content, repeated or kept or dropped, and
// says how many elements it inserted.
func (f *filler) expand(parent *etree.Element, kids []*etree.Element, i, j int, open section, sc tmpl.Scope) (int, error) {
	removeTag(kids[i], open.kind, open.name)
	removeTag(kids[j], "/", open.name)
	var block []*etree.Element
	for k := i; k <= j; k++ {
		// Marker paragraphs holding nothing else disappear; rows always stay.
		if (k == i || k == j) && isW(kids[k], "p") && strings.TrimSpace(textOfElement(kids[k])) == "" && len(kids[k].FindElements(".//drawing")) == 0 {
			continue
		}
		block = append(block, kids[k])
	}
	scopes := sc.Expand(open.kind, open.name)
	at := kids[i].Index()
	for k := i; k <= j; k++ {
		parent.RemoveChild(kids[k])
	}
	n := 0
	for _, s := range scopes {
		// The holder hangs in the document while it is filled, so that the copies
		// resolve the w: namespace through their ancestors.
		holder := parent.CreateElement("holder")
		for _, b := range block {
			holder.AddChild(b.Copy())
		}
		if err := f.fill(holder, s); err != nil {
			return 0, err
		}
		parent.RemoveChild(holder)
		for _, c := range holder.ChildElements() {
			holder.RemoveChild(c)
			parent.InsertChildAt(at, c)
			at++
			n++
		}
	}
	return n, nil
}

// paragraph handles sections within one paragraph, then values.
func (f *filler) paragraph(p *etree.Element, sc tmpl.Scope) error {
	for guard := 0; guard < 1000; guard++ {
		ts := texts(p)
		full := textOf(ts)
		loc := tmpl.Section.FindStringSubmatchIndex(full)
		if loc == nil {
			break
		}
		kind, name := full[loc[2]:loc[3]], full[loc[4]:loc[5]]
		if kind == "/" {
			return f.errorf("{/%s} without an opening tag", name)
		}
		closeRe := regexp.MustCompile(`\{/\s*` + regexp.QuoteMeta(name) + `\s*\}`)
		cl := closeRe.FindStringIndex(full[loc[1]:])
		if cl == nil {
			return f.errorf("{%s%s} has no closing {/%s} in the same paragraph or a following one", kind, name, name)
		}
		innerEnd := loc[1] + cl[0]
		v, _ := sc.Lookup(name)
		keep := tmpl.Truthy(v)
		if kind == "^" {
			keep = !keep
		}
		if _, isList := v.([]any); isList && kind == "#" {
			return f.errorf("the list {#%s} repeats whole paragraphs or table rows: put {#%s} and {/%s} in their own paragraphs or in one table row", name, name, name)
		}
		// Delete [loc[0], loc[1]) and [innerEnd, innerEnd+len(close)) and, when dropped, the inner text.
		cuts := [][2]int{{innerEnd, loc[1] + cl[1]}, {loc[0], loc[1]}}
		if !keep {
			cuts = [][2]int{{loc[0], loc[1] + cl[1]}}
		}
		for _, c := range cuts {
			cut(ts, c[0], c[1])
		}
	}
	return f.values(p, sc)
}

// cut deletes full-text bytes [a, b) from the w:t nodes.
func cut(ts []*etree.Element, a, b int) {
	off := 0
	for _, t := range ts {
		s := t.Text()
		lo, hi := max(a-off, 0), min(b-off, len(s))
		if lo < hi {
			setText(t, s[:lo]+s[hi:])
		}
		off += len(s)
	}
}

// values replaces {{name}} tags; an image value splits the run around a picture.
func (f *filler) values(p *etree.Element, sc tmpl.Scope) error {
	for _, t := range texts(p) {
		s := t.Text()
		if !strings.Contains(s, "{{") {
			continue
		}
		for {
			m := tmpl.Value.FindStringSubmatchIndex(s)
			if m == nil {
				break
			}
			name := s[m[2]:m[3]]
			v, _ := sc.Lookup(name)
			if img, ok, err := imageValue(v); err != nil {
				return f.errorf("{{%s}}: %v", name, err)
			} else if ok {
				setText(t, s[:m[0]])
				rest, err := f.insertImage(t, img, s[m[1]:])
				if err != nil {
					return err
				}
				// Continue in the text after the picture.
				t, s = rest, rest.Text()
				continue
			}
			s = s[:m[0]] + tmpl.Format(v) + s[m[1]:]
			setText(t, s)
		}
	}
	return nil
}
