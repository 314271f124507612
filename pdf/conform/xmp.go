package conform

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// The XMP data model (XMP Specification Part 1, 7.9) read from RDF/XML: what the schema
// checks of 6.6.2.3 need, and the errors that make a packet invalid (6.6.2.1-4).

const (
	nsRDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	nsXML = "http://www.w3.org/XML/1998/namespace"
	nsX   = "adobe:ns:meta/"
)

type xkind uint8

const (
	xSimple xkind = iota
	xStruct
	xBag
	xSeq
	xAlt
)

// xnode is a property, a struct field or an array item.
type xnode struct {
	ns, prefix, name string // empty for array items
	kind             xkind
	value            string
	lang             string   // xml:lang qualifier
	children         []*xnode // fields or items
}

func (n *xnode) qname() string {
	if n.prefix != "" {
		return n.prefix + ":" + n.name
	}
	return n.name
}

// langAlt tells whether n is an Alt whose items are all text with a language.
func (n *xnode) langAlt() bool {
	if n.kind != xAlt {
		return false
	}
	for _, c := range n.children {
		if c.kind != xSimple || c.lang == "" {
			return false
		}
	}
	return true
}

// packet is a parsed XMP packet.
type packet struct {
	props []*xnode // top-level properties, in document order
}

// elem is an XML element as read, namespaces resolved.
type elem struct {
	name     xml.Name
	prefix   string
	attrs    []xml.Attr
	prefixes map[string]string // attribute namespace -> prefix as written
	children []*elem
	text     strings.Builder
	hasText  bool // non-white-space character data
}

// buildTree parses b into an element tree (encoding/xml checks well-formedness), keeping
// the prefixes as written (6.6.4 and 6.6.2.3.3 check them).
func buildTree(b []byte) (*elem, error) {
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = true
	dec.CharsetReader = func(label string, r io.Reader) (io.Reader, error) {
		if strings.EqualFold(label, "utf-8") {
			return r, nil
		}
		return nil, fmt.Errorf("encoding %s", label)
	}
	raw := xml.NewDecoder(bytes.NewReader(b))
	raw.Strict = true
	var stack []*elem
	var root *elem
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			// The prefix as written: RawToken of the same element, read in step.
			rt, err := nextStart(raw)
			if err != nil {
				return nil, err
			}
			if t.Name.Space == "" {
				return nil, fmt.Errorf("element %s has no namespace", t.Name.Local)
			}
			e := &elem{name: t.Name, prefix: rt.Name.Space, prefixes: map[string]string{}}
			for i, a := range t.Attr {
				if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
					continue
				}
				e.attrs = append(e.attrs, a)
				if i < len(rt.Attr) {
					e.prefixes[a.Name.Space] = rt.Attr[i].Name.Space
				}
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, e)
			} else if root == nil {
				root = e
			}
			stack = append(stack, e)
			if len(stack) > 200 {
				return nil, errors.New("XMP nested too deeply")
			}
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				e := stack[len(stack)-1]
				e.text.Write(t)
				if len(bytes.TrimSpace(t)) > 0 {
					e.hasText = true
				}
			}
		}
	}
	if root == nil {
		return nil, errors.New("no XML element")
	}
	return root, nil
}

// nextStart reads raw up to its next start element.
func nextStart(raw *xml.Decoder) (xml.StartElement, error) {
	for {
		tok, err := raw.RawToken()
		if err != nil {
			return xml.StartElement{}, err
		}
		if s, ok := tok.(xml.StartElement); ok {
			return s, nil
		}
	}
}

func (e *elem) is(space, local string) bool { return e.name.Space == space && e.name.Local == local }

func (e *elem) attr(space, local string) (string, bool) {
	for _, a := range e.attrs {
		if a.Name.Space == space && a.Name.Local == local {
			return a.Value, true
		}
	}
	return "", false
}

// parseXMP reads an XMP packet: the RDF inside x:xmpmeta (or bare), as the XMP
// Specification serialises it. An error means the packet is not valid XMP (6.6.2.1-4).
func parseXMP(b []byte) (*packet, error) {
	if !utf8.Valid(b) {
		return nil, errors.New("not UTF-8")
	}
	root, err := buildTree(b)
	if err != nil {
		return nil, err
	}
	rdf := findRDF(root)
	if rdf == nil {
		return nil, errors.New("no rdf:RDF element")
	}
	p := &packet{}
	about, aboutSet := "", false
	for _, d := range rdf.children {
		if !d.is(nsRDF, "Description") {
			return nil, fmt.Errorf("rdf:RDF holds %s, not rdf:Description", d.name.Local)
		}
		if a, ok := d.attr(nsRDF, "about"); ok {
			if aboutSet && a != about && a != "" && about != "" {
				return nil, errors.New("rdf:Description elements name different rdf:about values")
			}
			if !aboutSet || about == "" {
				about, aboutSet = a, true
			}
		}
		props, err := descriptionFields(d)
		if err != nil {
			return nil, err
		}
		p.props = append(p.props, props...)
	}
	return p, nil
}

// findRDF finds rdf:RDF at the root or under x:xmpmeta / x:xapmeta.
func findRDF(root *elem) *elem {
	if root.is(nsRDF, "RDF") {
		return root
	}
	if root.name.Space == nsX || root.name.Local == "xmpmeta" || root.name.Local == "xapmeta" {
		for _, c := range root.children {
			if c.is(nsRDF, "RDF") {
				return c
			}
		}
	}
	return nil
}

// descriptionFields are the properties of a node element: its property attributes and its
// property elements.
func descriptionFields(d *elem) ([]*xnode, error) {
	var out []*xnode
	for _, a := range d.attrs {
		switch {
		case (a.Name.Space == nsRDF || a.Name.Space == "") && (a.Name.Local == "about" || a.Name.Local == "ID" || a.Name.Local == "nodeID"):
			// An unqualified about is old RDF that XMP readers still take.
			continue
		case a.Name.Space == nsXML:
			continue
		case a.Name.Space == nsRDF:
			return nil, fmt.Errorf("rdf:%s is not a property", a.Name.Local)
		case a.Name.Space == "":
			return nil, fmt.Errorf("attribute %s has no namespace", a.Name.Local)
		}
		out = append(out, &xnode{ns: a.Name.Space, prefix: d.prefixes[a.Name.Space], name: a.Name.Local, value: a.Value})
	}
	if d.hasText {
		return nil, errors.New("text beside properties in a node element")
	}
	for _, c := range d.children {
		n, err := propertyElement(c)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// propertyElement reads a property element (or an rdf:li) into a node.
func propertyElement(e *elem) (*xnode, error) {
	if e.name.Space == nsRDF && e.name.Local != "li" && e.name.Local != "value" {
		return nil, fmt.Errorf("rdf:%s is not a property element", e.name.Local)
	}
	n := &xnode{ns: e.name.Space, prefix: e.prefix, name: e.name.Local}
	if e.name.Space == nsRDF && e.name.Local == "li" {
		n.ns, n.prefix, n.name = "", "", ""
	}
	if l, ok := e.attr(nsXML, "lang"); ok {
		n.lang = l
	}
	var propAttrs []xml.Attr
	parseType := ""
	resource, hasResource := "", false
	for _, a := range e.attrs {
		switch {
		case a.Name.Space == nsXML:
		case a.Name.Space == nsRDF && a.Name.Local == "parseType":
			parseType = a.Value
		case a.Name.Space == nsRDF && a.Name.Local == "resource":
			resource, hasResource = a.Value, true
		case a.Name.Space == nsRDF && (a.Name.Local == "ID" || a.Name.Local == "nodeID" || a.Name.Local == "datatype"):
		case a.Name.Space == nsRDF:
			return nil, fmt.Errorf("rdf:%s on a property element", a.Name.Local)
		case a.Name.Space == "":
			return nil, fmt.Errorf("attribute %s has no namespace", a.Name.Local)
		default:
			propAttrs = append(propAttrs, a)
		}
	}
	switch {
	case parseType == "Resource":
		if e.hasText {
			return nil, errors.New("text in a parseType=Resource property")
		}
		n.kind = xStruct
		for _, c := range e.children {
			f, err := propertyElement(c)
			if err != nil {
				return nil, err
			}
			n.children = append(n.children, f)
		}
		return withValue(n)
	case parseType != "":
		return nil, fmt.Errorf("rdf:parseType=%q is not allowed in XMP", parseType)
	case hasResource:
		if len(e.children) > 0 || e.hasText {
			return nil, errors.New("rdf:resource on a property with content")
		}
		n.value = resource
		return n, nil
	case len(e.children) > 0:
		if e.hasText {
			return nil, errors.New("text beside elements in a property")
		}
		if len(e.children) != 1 {
			return nil, fmt.Errorf("property %s holds %d elements", e.name.Local, len(e.children))
		}
		c := e.children[0]
		switch {
		case c.is(nsRDF, "Bag"), c.is(nsRDF, "Seq"), c.is(nsRDF, "Alt"):
			n.kind = map[string]xkind{"Bag": xBag, "Seq": xSeq, "Alt": xAlt}[c.name.Local]
			if c.hasText {
				return nil, errors.New("text in an array")
			}
			for _, li := range c.children {
				if !li.is(nsRDF, "li") {
					return nil, fmt.Errorf("array item %s is not rdf:li", li.name.Local)
				}
				item, err := propertyElement(li)
				if err != nil {
					return nil, err
				}
				n.children = append(n.children, item)
			}
			return n, nil
		case c.is(nsRDF, "Description"):
			n.kind = xStruct
			fields, err := descriptionFields(c)
			if err != nil {
				return nil, err
			}
			n.children = fields
			return withValue(n)
		case c.name.Space == nsRDF:
			return nil, fmt.Errorf("rdf:%s inside a property", c.name.Local)
		default:
			// A typed node element: a struct whose type is the element's name.
			n.kind = xStruct
			fields, err := descriptionFields(c)
			if err != nil {
				return nil, err
			}
			n.children = fields
			return n, nil
		}
	case len(propAttrs) > 0:
		// An empty property element with property attributes: a struct.
		if e.hasText {
			return nil, errors.New("text in a property with property attributes")
		}
		n.kind = xStruct
		for _, a := range propAttrs {
			n.children = append(n.children, &xnode{ns: a.Name.Space, prefix: e.prefixes[a.Name.Space], name: a.Name.Local, value: a.Value})
		}
		return n, nil
	default:
		n.value = e.text.String()
		return n, nil
	}
}

// withValue turns a struct with an rdf:value field into the simple value it qualifies.
func withValue(n *xnode) (*xnode, error) {
	for _, f := range n.children {
		if f.ns == nsRDF && f.name == "value" {
			v := *f
			v.ns, v.prefix, v.name = n.ns, n.prefix, n.name
			return &v, nil
		}
	}
	return n, nil
}
