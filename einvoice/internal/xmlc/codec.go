package xmlc

import (
	"encoding/base64"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/fault"
)

// Codec walks a tree with binding code that is the same for reading and writing: Elem
// enters a child element (reading: the first of that name, if any; writing: a new one,
// dropped again when nothing was written into it), Text/Attr/Dec move one value between the
// tree and a Go field. Element names are "prefix:local" with the syntax's prefixes.
type Codec struct {
	slab    []Node  // writer nodes, allocated in blocks
	refs    []*Node // writer children lists, allocated in blocks
	writing bool
	cur     *Node
	ns      map[string]string // prefix → URI
	path    []string
	err     error
}

// NewReader binds root for reading.
func NewReader(root *Node, ns []Namespace) *Codec {
	c := &Codec{cur: root, ns: nsMap(ns)}
	c.path = append(c.path, root.Local)
	return c
}

// NewWriter starts a tree whose root element is name.
func NewWriter(name string, ns []Namespace) *Codec {
	c := &Codec{writing: true, ns: nsMap(ns)}
	c.cur = c.node(name)
	c.path = append(c.path, name)
	return c
}

func nsMap(ns []Namespace) map[string]string {
	m := make(map[string]string, len(ns))
	for _, x := range ns {
		m[x.Prefix] = x.URI
	}
	return m
}

// Writing reports the direction.
func (c *Codec) Writing() bool { return c.writing }

// Node is the element the codec is at.
func (c *Codec) Node() *Node { return c.cur }

// Err is the first error met, nil if none.
func (c *Codec) Err() error { return c.err }

// Fail records an input error at the current element (the first one wins).
func (c *Codec) Fail(format string, args ...any) {
	switch {
	case c.err != nil:
	case c.writing:
		c.err = fault.New(fault.InvalidInput, "%s: %s", c.Path(), fmt.Sprintf(format, args...)).With("path", c.Path())
	default:
		c.err = errAt(c.cur.Line, c.Path(), format, args...)
	}
}

// Path is the element path of the current element, "/rsm:A/ram:B".
func (c *Codec) Path() string { return "/" + strings.Join(c.path, "/") }

func (c *Codec) split(name string) (space, local string) {
	p, l, ok := strings.Cut(name, ":")
	if !ok {
		return c.ns[""], name
	}
	return c.ns[p], l
}

// Has reports whether the current element has a child called name.
func (c *Codec) Has(name string) bool {
	sp, local := c.split(name)
	for _, k := range c.cur.Kids {
		if k.Local == local && k.Space == sp {
			return true
		}
	}
	return false
}

// Children are the current element's children called name (reading).
func (c *Codec) Children(name string) []*Node {
	sp, local := c.split(name)
	var out []*Node
	for _, k := range c.cur.Kids {
		if k.Local == local && k.Space == sp {
			out = append(out, k)
		}
	}
	return out
}

// Enter runs f at n, a child of the current element (reading).
func (c *Codec) Enter(name string, n *Node, f func()) {
	cur := c.cur
	c.cur = n
	c.path = append(c.path, name)
	f()
	c.path = c.path[:len(c.path)-1]
	c.cur = cur
}

// Elem runs f inside the child element name: when reading, the first one, and only if there
// is one; when writing, a new child that is kept only if f wrote something into it.
func (c *Codec) Elem(name string, f func()) {
	if !c.writing {
		sp, local := c.split(name)
		for _, k := range c.cur.Kids {
			if k.Local == local && k.Space == sp {
				c.Enter(name, k, f)
				return
			}
		}
		return
	}
	n := c.node(name)
	c.Enter(name, n, f)
	if n.Text != "" || len(n.Kids) > 0 {
		c.add(n)
	}
}

// add appends a written child to the current element. Children lists start in shared
// blocks: growing each from nothing was most of a write's allocations.
func (c *Codec) add(n *Node) {
	const first = 8
	if c.cur.Kids == nil {
		if len(c.refs) < first {
			c.refs = make([]*Node, 64*first)
		}
		c.cur.Kids = c.refs[:0:first]
		c.refs = c.refs[first:]
	}
	c.cur.Kids = append(c.cur.Kids, n)
}

// Required is Elem for an element the schema requires even when it is empty.
func (c *Codec) Required(name string, f func()) {
	if !c.writing {
		c.Elem(name, f)
		return
	}
	n := c.node(name)
	n.Keep = true
	c.Enter(name, n, f)
	c.add(n)
}

// node makes a writer node; the qualified name is kept whole for Serialize.
func (c *Codec) node(name string) *Node {
	if len(c.slab) == 0 {
		c.slab = make([]Node, 256)
	}
	n := &c.slab[0]
	c.slab = c.slab[1:]
	n.Name = name
	n.Local = name[strings.IndexByte(name, ':')+1:]
	return n
}

// Each runs f once per child element name when reading, and count times, in new elements,
// when writing.
func (c *Codec) Each(name string, count int, f func(i int)) {
	if !c.writing {
		for i, k := range c.Children(name) {
			c.Enter(name, k, func() { f(i) })
		}
		return
	}
	for i := range count {
		c.Elem(name, func() { f(i) })
	}
}

// List binds a slice to the repeated child element name.
func List[T any](c *Codec, name string, s *[]T, f func(*T)) {
	if c.writing {
		for i := range *s {
			c.Elem(name, func() { f(&(*s)[i]) })
		}
		return
	}
	for _, k := range c.Children(name) {
		var v T
		c.Enter(name, k, func() { f(&v) })
		*s = append(*s, v)
	}
}

// Value binds the current element's text.
func (c *Codec) Value(v *string) {
	if c.writing {
		if *v != "" && c.check(*v) {
			c.cur.Text = *v
		}
		return
	}
	*v = c.cur.Text
}

// Lines binds multi-line text whose final line break carries meaning (XRechnung's cash
// discount lines in the payment terms end with one): reading keeps a trailing line break,
// dropping only the indentation around the text.
func (c *Codec) Lines(name string, v *string) {
	if c.writing {
		c.Text(name, v)
		return
	}
	c.Elem(name, func() {
		s := strings.TrimLeft(c.cur.RawText(), " \t\r\n")
		*v = strings.TrimRight(s, " \t")
		if t := strings.TrimRight(*v, "\r\n"); t != *v {
			*v = t + "\n" // one line break, however it was written
		}
	})
}

// Const writes s as the element's text; reading ignores it.
func (c *Codec) Const(name, s string) {
	if c.writing {
		c.Elem(name, func() { c.cur.Text = s })
	}
}

// Text binds the text of the child element name.
func (c *Codec) Text(name string, v *string) {
	if c.writing && *v == "" {
		return
	}
	c.Elem(name, func() { c.Value(v) })
}

// Attr binds an unqualified attribute of the current element. Written attributes only
// survive on elements that get text or children.
func (c *Codec) Attr(name string, v *string) {
	if !c.writing {
		*v = c.cur.Attr(name)
		return
	}
	if *v == "" || !c.check(*v) {
		return
	}
	c.cur.Attrs = append(c.cur.Attrs, Attr{Local: name, Value: *v})
}

// ConstAttr writes an attribute with a fixed value.
func (c *Codec) ConstAttr(name, v string) {
	if c.writing {
		c.cur.Attrs = append(c.cur.Attrs, Attr{Local: name, Value: v})
	}
}

// DecValue binds the current element's text as a decimal.
func (c *Codec) DecValue(v *einvoice.Decimal) {
	if c.writing {
		if v.Valid() {
			c.cur.Text = v.String()
		}
		return
	}
	if c.cur.Text == "" {
		c.Fail("empty number")
		return
	}
	d, err := einvoice.ParseDecimal(c.cur.Text)
	if err != nil {
		c.Fail("%q is %v", clip(c.cur.Text), err)
		return
	}
	*v = d
}

// Dec binds the child element name as a decimal.
func (c *Codec) Dec(name string, v *einvoice.Decimal) {
	if c.writing && !v.Valid() {
		return
	}
	c.Elem(name, func() { c.DecValue(v) })
}

// Amount binds the child element name as a decimal with a currencyID attribute (written
// when currency is not "").
func (c *Codec) Amount(name string, v *einvoice.Decimal, currency string) {
	if c.writing && !v.Valid() {
		return
	}
	c.Elem(name, func() {
		if c.writing && currency != "" {
			c.ConstAttr("currencyID", currency)
		}
		c.DecValue(v)
	})
}

// ISODate binds the current element's text as an xs:date: written as YYYY-MM-DD, read with
// an optional time zone, which is dropped (see einvoice.ParseUBLDate).
func (c *Codec) ISODate(v *einvoice.Date) {
	if c.writing {
		if *v != "" {
			c.cur.Text = string(*v)
		}
		return
	}
	d, err := einvoice.ParseUBLDate(c.cur.Text)
	if err != nil {
		c.Fail("%v", err)
		return
	}
	*v = d
}

// check refuses text XML cannot carry (control characters, broken UTF-8).
func (c *Codec) check(s string) bool {
	if !utf8.ValidString(s) {
		c.Fail("text is not valid UTF-8")
		return false
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
			c.Fail("text contains the control character U+%04X, which XML cannot carry", r)
			return false
		}
	}
	return true
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Binary binds the current element's text as Base64 (xsd:base64Binary).
func Binary(c *Codec, v *[]byte) {
	if c.writing {
		if len(*v) > 0 {
			c.cur.Text = base64.StdEncoding.EncodeToString(*v)
		}
		return
	}
	s := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, c.cur.Text)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		c.Fail("the embedded document is not valid Base64")
		return
	}
	*v = b
}
