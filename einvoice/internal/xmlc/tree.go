package xmlc

import (
	"bytes"
	"context"
	"fmt"

	"github.com/papierkram/papierkram/fault"
)

// Limits of Parse. An e-invoice of 10,000 lines with attachments stays far below them.
const (
	MaxSize     = 100 << 20 // bytes; embedded attachments make real invoices large
	MaxDepth    = 64
	MaxElements = 2_000_000
	// MaxAttrs bounds the attributes of one element, namespace declarations included: an
	// e-invoice element has a handful (a root with its namespaces about twenty).
	MaxAttrs = 256
	// MaxAttributes bounds the attributes of a document: one per element is generous
	// (currencyID, unitCode, schemeID sit on leaves).
	MaxAttributes = MaxElements
)

// Node is an element: its namespace URI and local name, attributes, text and children.
type Node struct {
	Space, Local string
	Attrs        []Attr
	Text         string
	Kids         []*Node
	Line         int
	Keep         bool   // written even when empty: the schema requires the element
	Name         string // "prefix:local" of a node built by a Codec writer (its Space is not set)
	raw          string // the text with its surrounding white space, when that differs
}

// RawText is the element's text as written, white space around it included (validation
// rules that look at line breaks need it).
func (n *Node) RawText() string {
	if n.raw != "" {
		return n.raw
	}
	return n.Text
}

// Attr is an attribute; Space is empty for unqualified attributes.
type Attr struct{ Space, Local, Value string }

// Attr returns the value of the unqualified attribute local, or "".
func (n *Node) Attr(local string) string {
	for _, a := range n.Attrs {
		if a.Space == "" && a.Local == local {
			return a.Value
		}
	}
	return ""
}

// Parse reads an XML document into a tree. Anything a well-formed invoice never has is
// refused: a DOCTYPE (and with it every entity definition), more than one root, text outside
// the root, and documents beyond the limits. Errors are fault.InvalidInput with the line.
func Parse(ctx context.Context, data []byte) (*Node, error) {
	if len(data) > MaxSize {
		return nil, fault.New(fault.PayloadTooLarge, "the XML is %d bytes; at most %d are accepted", len(data), MaxSize)
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] != '<' {
		head := t[:min(len(t), 8)]
		return nil, fault.New(fault.InvalidInput, "the document is not XML (it starts with %q)", head)
	}
	root, err := scan(ctx, data)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return nil, fault.New(fault.InvalidInput, "the document is not XML: no root element")
	}
	return root, nil
}

// errAt is the one shape of input errors: a message with the line and the element path,
// both also as problem extensions.
func errAt(line int, path, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	where := fmt.Sprintf("line %d", line)
	if path != "" {
		where += ", " + path
	}
	e := fault.New(fault.InvalidInput, "%s: %s", where, msg).With("line", line)
	if path != "" {
		e = e.With("path", path)
	}
	return e
}

// Serialize writes n as a UTF-8 document with an XML declaration. prefixes maps namespace
// URIs to the prefixes declared on the root; nodes in another namespace are an error of
// the binding, not of the input.
func Serialize(n *Node, ns []Namespace) []byte {
	var b bytes.Buffer
	// One allocation of about the right size: growing (or a fixed large guess) is a
	// measurable share of writing a typical invoice.
	b.Grow(estimate(n, 0) + 512)
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	prefix := make(map[string]string, len(ns))
	for _, x := range ns {
		prefix[x.URI] = x.Prefix
	}
	write(&b, n, prefix, ns, 0)
	return b.Bytes()
}

// estimate is the serialized size of n without escaping, a close lower bound.
func estimate(n *Node, depth int) int {
	name := len(n.Name)
	if name == 0 {
		name = len(n.Local) + 4
	}
	s := 2*depth + 2*name + 6 + len(n.Text)
	for _, a := range n.Attrs {
		s += len(a.Local) + len(a.Value) + 8
	}
	for _, k := range n.Kids {
		s += estimate(k, depth+1)
	}
	return s
}

// Namespace is a prefix declared on the root element.
type Namespace struct{ Prefix, URI string }

func qname(space, local string, prefix map[string]string) string {
	if p := prefix[space]; p != "" {
		return p + ":" + local
	}
	return local
}

func write(b *bytes.Buffer, n *Node, prefix map[string]string, ns []Namespace, depth int) {
	for range depth {
		b.WriteString("  ")
	}
	name := n.Name
	if name == "" {
		name = qname(n.Space, n.Local, prefix)
	}
	b.WriteByte('<')
	b.WriteString(name)
	if depth == 0 {
		for _, x := range ns {
			b.WriteString(" xmlns")
			if x.Prefix != "" {
				b.WriteByte(':')
				b.WriteString(x.Prefix)
			}
			b.WriteString(`="`)
			escape(b, x.URI)
			b.WriteByte('"')
		}
	}
	for _, a := range n.Attrs {
		b.WriteByte(' ')
		b.WriteString(qname(a.Space, a.Local, prefix))
		b.WriteString(`="`)
		escape(b, a.Value)
		b.WriteByte('"')
	}
	switch {
	case len(n.Kids) > 0:
		b.WriteString(">\n")
		for _, k := range n.Kids {
			write(b, k, prefix, ns, depth+1)
		}
		for range depth {
			b.WriteString("  ")
		}
	case n.Text != "":
		b.WriteByte('>')
		escape(b, n.Text)
	default:
		b.WriteString("/>\n")
		return
	}
	b.WriteString("</")
	b.WriteString(name)
	b.WriteString(">\n")
}

// escape writes s as XML character data usable in text and in double-quoted attributes.
func escape(b *bytes.Buffer, s string) {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '&':
			esc = "&amp;"
		case '"':
			esc = "&quot;"
		case '\r':
			esc = "&#xD;"
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(esc)
		last = i + 1
	}
	b.WriteString(s[last:])
}
