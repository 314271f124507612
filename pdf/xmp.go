package pdf

import (
	"fmt"
	"strings"
	"time"

	"github.com/beevik/etree"
)

// XMP namespaces of the properties that mirror the Info dictionary (ISO 16684-1, PDF/A).
const (
	nsRDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	nsX   = "adobe:ns:meta/"
	nsDC  = "http://purl.org/dc/elements/1.1/"
	nsXMP = "http://ns.adobe.com/xap/1.0/"
	nsPDF = "http://ns.adobe.com/pdf/1.3/"
)

// xmpProp says where an Info entry lives in XMP and how its value is shaped.
type xmpProp struct {
	ns, prefix, name string
	shape            string // "alt" (language alternative), "seq" (ordered list), "" (simple)
}

var xmpProps = map[string]xmpProp{
	"Title":        {nsDC, "dc", "title", "alt"},
	"Author":       {nsDC, "dc", "creator", "seq"},
	"Subject":      {nsDC, "dc", "description", "alt"},
	"Keywords":     {nsPDF, "pdf", "Keywords", ""},
	"Creator":      {nsXMP, "xmp", "CreatorTool", ""},
	"Producer":     {nsPDF, "pdf", "Producer", ""},
	"CreationDate": {nsXMP, "xmp", "CreateDate", ""},
	"ModDate":      {nsXMP, "xmp", "ModifyDate", ""},
}

// xmpOrder is the order updateXMP writes the properties in.
var xmpOrder = []string{"Title", "Author", "Subject", "Keywords", "Creator", "Producer", "CreationDate", "ModDate"}

// readXMP reads the Info-mirroring properties of an XMP packet, as elements or attributes.
func readXMP(packet []byte) (Metadata, error) {
	var m Metadata
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(packet); err != nil {
		return m, err
	}
	for _, desc := range descriptions(doc) {
		for key, p := range xmpProps {
			v := ""
			if a := attrNS(desc, p.ns, p.name); a != nil {
				v = a.Value
			} else if el := childNS(desc, p.ns, p.name); el != nil {
				v = valueOf(el)
			}
			if v == "" {
				continue
			}
			switch key {
			case "CreationDate", "ModDate":
				if t, err := parseXMPDate(v); err == nil {
					if key == "CreationDate" {
						m.CreationDate = &t
					} else {
						m.ModDate = &t
					}
				}
			default:
				if f := m.field(key); *f == "" {
					*f = v
				}
			}
		}
	}
	return m, nil
}

// valueOf reads a simple, Alt (x-default first) or Seq value; a Seq joins with ", ".
func valueOf(el *etree.Element) string {
	for _, c := range el.ChildElements() {
		if c.NamespaceURI() != nsRDF {
			continue
		}
		var items []string
		for _, li := range c.ChildElements() {
			if li.NamespaceURI() == nsRDF && li.Tag == "li" {
				if c.Tag == "Alt" && li.SelectAttrValue("xml:lang", "") == "x-default" {
					return li.Text()
				}
				items = append(items, li.Text())
			}
		}
		if c.Tag == "Alt" && len(items) > 0 {
			return items[0]
		}
		return strings.Join(items, ", ")
	}
	return strings.TrimSpace(el.Text())
}

func descriptions(doc *etree.Document) []*etree.Element {
	var out []*etree.Element
	var walk func(e *etree.Element)
	walk = func(e *etree.Element) {
		for _, c := range e.ChildElements() {
			if c.NamespaceURI() == nsRDF && c.Tag == "Description" {
				out = append(out, c)
				continue
			}
			walk(c)
		}
	}
	walk(&doc.Element)
	return out
}

func childNS(e *etree.Element, ns, name string) *etree.Element {
	for _, c := range e.ChildElements() {
		if c.Tag == name && c.NamespaceURI() == ns {
			return c
		}
	}
	return nil
}

func attrNS(e *etree.Element, ns, name string) *etree.Attr {
	for i := range e.Attr {
		if e.Attr[i].Key == name && e.Attr[i].NamespaceURI() == ns {
			return &e.Attr[i]
		}
	}
	return nil
}

// updateXMP returns packet (or a new packet when nil) with every Info-mirroring property set
// from m, so that Info and XMP agree, and schema's properties with their declaration when
// schema is not nil. Everything else in the packet (PDF/A identification, other extension
// schemas and properties) is kept.
func updateXMP(packet []byte, m Metadata, schema *XMPSchema) ([]byte, error) {
	doc := etree.NewDocument()
	if len(packet) == 0 {
		packet = []byte(`<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about=""/></rdf:RDF></x:xmpmeta>`)
	}
	if err := doc.ReadFromBytes(packet); err != nil {
		return nil, fmt.Errorf("xmp: %w", err)
	}
	descs := descriptions(doc)
	if len(descs) == 0 {
		return nil, fmt.Errorf("xmp: no rdf:Description")
	}
	target := descs[0]
	for _, key := range xmpOrder { // a fixed order: the same metadata writes the same packet
		p := xmpProps[key]
		for _, d := range descs { // drop every existing form: element or attribute, in any Description
			for el := childNS(d, p.ns, p.name); el != nil; el = childNS(d, p.ns, p.name) {
				d.RemoveChild(el)
			}
			if a := attrNS(d, p.ns, p.name); a != nil {
				d.RemoveAttr(a.FullKey())
			}
		}
		var value string
		switch key {
		case "CreationDate":
			if m.CreationDate == nil {
				continue
			}
			value = xmpDate(*m.CreationDate)
		case "ModDate":
			if m.ModDate == nil {
				continue
			}
			value = xmpDate(*m.ModDate)
		default:
			value = *m.field(key)
		}
		if value == "" {
			continue
		}
		prefix := ensureNS(target, p.ns, p.prefix)
		el := target.CreateElement(prefix + ":" + p.name)
		switch p.shape {
		case "alt":
			li := el.CreateElement("rdf:Alt").CreateElement("rdf:li")
			li.CreateAttr("xml:lang", "x-default")
			li.SetText(value)
		case "seq":
			el.CreateElement("rdf:Seq").CreateElement("rdf:li").SetText(value)
		default:
			el.SetText(value)
		}
	}
	// MetadataDate records when the packet itself changed.
	if m.ModDate != nil {
		prefix := ensureNS(target, nsXMP, "xmp")
		if el := childNS(target, nsXMP, "MetadataDate"); el != nil {
			target.RemoveChild(el)
		}
		if a := attrNS(target, nsXMP, "MetadataDate"); a != nil {
			target.RemoveAttr(a.FullKey())
		}
		target.CreateElement(prefix + ":MetadataDate").SetText(xmpDate(*m.ModDate))
	}
	if schema != nil {
		setSchema(descs, target, schema)
	}
	for _, pi := range doc.Child { // rewrap below in a fresh xpacket
		if p, ok := pi.(*etree.ProcInst); ok && p.Target == "xpacket" {
			doc.RemoveChild(p)
		}
	}
	body, err := doc.WriteToString()
	if err != nil {
		return nil, fmt.Errorf("xmp: %w", err)
	}
	return []byte("<?xpacket begin=\"\ufeff\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n" + strings.TrimSpace(body) +
		"\n" + strings.Repeat(strings.Repeat(" ", 99)+"\n", 20) + "<?xpacket end=\"w\"?>"), nil
}

// ensureNS returns the prefix bound to ns in e's scope, declaring prefix on e when unbound.
func ensureNS(e *etree.Element, ns, prefix string) string {
	for cur := e; cur != nil; cur = cur.Parent() {
		for _, a := range cur.Attr {
			if a.Space == "xmlns" && a.Value == ns {
				return a.Key
			}
		}
	}
	e.CreateAttr("xmlns:"+prefix, ns)
	return prefix
}

func xmpDate(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z07:00") }

func parseXMPDate(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z07:00", "2006-01-02T15:04Z07:00", "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("xmp: bad date %q", s)
}

// XMPProperties reads the simple properties of one namespace from the catalog's XMP,
// written as elements or as attributes of rdf:Description (both are valid XMP). The map is
// empty when the file has no XMP or none of them.
func (d *Doc) XMPProperties(ns string) map[string]string {
	out := map[string]string{}
	packet := d.XMP()
	if packet == nil {
		return out
	}
	doc := etree.NewDocument()
	if err := doc.ReadFromBytes(packet); err != nil {
		return out
	}
	for _, desc := range descriptions(doc) {
		for _, a := range desc.Attr {
			if a.NamespaceURI() == ns {
				out[a.Key] = strings.TrimSpace(a.Value)
			}
		}
		for _, c := range desc.ChildElements() {
			if c.NamespaceURI() == ns {
				out[c.Tag] = valueOf(c)
			}
		}
	}
	return out
}

// Namespaces of the PDF/A extension schema container (ISO 19005-1, 6.7.2.2).
const (
	nsPDFAExtension = "http://www.aiim.org/pdfa/ns/extension/"
	nsPDFASchema    = "http://www.aiim.org/pdfa/ns/schema#"
	nsPDFAProperty  = "http://www.aiim.org/pdfa/ns/property#"
)

// XMPSchema is a set of custom XMP properties together with the PDF/A extension schema that
// declares them: PDF/A accepts no property outside the predefined schemas unless the packet
// declares it.
type XMPSchema struct {
	Name         string // pdfaSchema:schema, a human-readable title
	NamespaceURI string
	Prefix       string
	Properties   []XMPProperty
	// Predefined schemas (the PDF/A identification) are written without a declaration.
	Predefined bool
}

// XMPProperty is one simple text property (valueType Text, category external).
type XMPProperty struct {
	Name, Value, Description string
}

// setSchema writes s's properties into target (replacing any earlier values, in whichever
// Description and form they were) and declares s in pdfaExtension:schemas, replacing an
// earlier declaration of the same namespace.
func setSchema(descs []*etree.Element, target *etree.Element, s *XMPSchema) {
	var bag *etree.Element
	for _, d := range descs {
		for i := 0; i < len(d.Attr); {
			if d.Attr[i].NamespaceURI() == s.NamespaceURI {
				d.RemoveAttr(d.Attr[i].FullKey())
				continue
			}
			i++
		}
		for _, c := range d.ChildElements() {
			switch {
			case c.NamespaceURI() == s.NamespaceURI:
				d.RemoveChild(c)
			case c.NamespaceURI() == nsPDFAExtension && c.Tag == "schemas" && bag == nil:
				for _, b := range c.ChildElements() {
					if b.NamespaceURI() == nsRDF && b.Tag == "Bag" {
						bag = b
					}
				}
			}
		}
	}
	prefix := ensureNS(target, s.NamespaceURI, s.Prefix)
	for _, p := range s.Properties {
		target.CreateElement(prefix + ":" + p.Name).SetText(p.Value)
	}
	if s.Predefined {
		return
	}

	rdf := ensureNS(target, nsRDF, "rdf")
	ext := ensureNS(target, nsPDFAExtension, "pdfaExtension")
	sch := ensureNS(target, nsPDFASchema, "pdfaSchema")
	prop := ensureNS(target, nsPDFAProperty, "pdfaProperty")
	if bag == nil {
		bag = target.CreateElement(ext + ":schemas").CreateElement(rdf + ":Bag")
	} else {
		// The bag may sit in another Description whose prefixes differ; declare ours on it.
		rdf = ensureNS(bag, nsRDF, "rdf")
		sch = ensureNS(bag, nsPDFASchema, "pdfaSchema")
		prop = ensureNS(bag, nsPDFAProperty, "pdfaProperty")
		for _, li := range bag.ChildElements() {
			if ns := childNS(li, nsPDFASchema, "namespaceURI"); ns != nil && strings.TrimSpace(ns.Text()) == s.NamespaceURI {
				bag.RemoveChild(li)
			}
		}
	}
	li := bag.CreateElement(rdf + ":li")
	li.CreateAttr(rdf+":parseType", "Resource")
	li.CreateElement(sch + ":schema").SetText(s.Name)
	li.CreateElement(sch + ":namespaceURI").SetText(s.NamespaceURI)
	li.CreateElement(sch + ":prefix").SetText(s.Prefix)
	seq := li.CreateElement(sch + ":property").CreateElement(rdf + ":Seq")
	for _, p := range s.Properties {
		pl := seq.CreateElement(rdf + ":li")
		pl.CreateAttr(rdf+":parseType", "Resource")
		pl.CreateElement(prop + ":name").SetText(p.Name)
		pl.CreateElement(prop + ":valueType").SetText("Text")
		pl.CreateElement(prop + ":category").SetText("external")
		pl.CreateElement(prop + ":description").SetText(p.Description)
	}
}
