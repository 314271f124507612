package conform

import "strings"

// The PDF/A extension schema container (ISO 19005-2, 6.6.2.3.3): the schemas a packet
// declares, checked field by field, and the properties and value types they add.

// The fields each description may have, by the namespace they must use.
var extensionFields = map[string]map[string]bool{
	nsPDFASchema:   {"schema": true, "namespaceURI": true, "prefix": true, "property": true, "valueType": true},
	nsPDFAProperty: {"name": true, "valueType": true, "category": true, "description": true},
	nsPDFAType:     {"type": true, "namespaceURI": true, "prefix": true, "description": true, "field": true},
	nsPDFAField:    {"name": true, "valueType": true, "description": true},
}

// fieldRules are the fields each description must (or may, for a Seq) have, with the
// test of 6.6.2.3.3 that checks each; valueType's defined-type half is checked apart.
var fieldRules = map[string][]struct {
	name string
	seq  bool // an optional Seq; else a required Text
	rule string
}{
	nsPDFASchema:   {{"schema", false, "6.6.2.3.3-2"}, {"namespaceURI", false, "6.6.2.3.3-3"}, {"prefix", false, "6.6.2.3.3-4"}, {"property", true, "6.6.2.3.3-5"}, {"valueType", true, "6.6.2.3.3-6"}},
	nsPDFAProperty: {{"name", false, "6.6.2.3.3-7"}, {"description", false, "6.6.2.3.3-10"}},
	nsPDFAType:     {{"type", false, "6.6.2.3.3-11"}, {"namespaceURI", false, "6.6.2.3.3-12"}, {"prefix", false, "6.6.2.3.3-13"}, {"description", false, "6.6.2.3.3-14"}, {"field", true, "6.6.2.3.3-15"}},
	nsPDFAField:    {{"name", false, "6.6.2.3.3-16"}, {"description", false, "6.6.2.3.3-18"}},
}

// prefixes are the prefixes each vocabulary's fields must be written with.
var prefixes = map[string]string{nsPDFASchema: "pdfaSchema", nsPDFAProperty: "pdfaProperty", nsPDFAType: "pdfaType", nsPDFAField: "pdfaField"}

// description checks one description of vocabulary ns: only its fields (6.6.2.3.2-1),
// each present with its type and prefix. It tells whether n is a structure to read on.
func (c *checker) description(n *xnode, ns, loc string) bool {
	if undefinedFields(n, ns) {
		c.fail("6.6.2.3.2-1", loc)
	}
	if n.kind != xStruct {
		return false
	}
	for _, f := range fieldRules[ns] {
		if f.seq {
			c.check(seqField(n, ns, f.name, prefixes[ns]), f.rule, loc)
		} else {
			c.check(textField(n, ns, f.name, prefixes[ns]), f.rule, loc)
		}
	}
	return true
}

// field finds n's field name in namespace ns.
func field(n *xnode, ns, name string) *xnode {
	for _, f := range n.children {
		if f.ns == ns && f.name == name {
			return f
		}
	}
	return nil
}

// textField tells whether n has a simple field ns:name written with prefix.
func textField(n *xnode, ns, name, prefix string) bool {
	f := field(n, ns, name)
	return f != nil && f.kind == xSimple && f.prefix == prefix
}

// seqField tells whether n's field ns:name, if present, is a Seq of structs written with prefix.
func seqField(n *xnode, ns, name, prefix string) bool {
	f := field(n, ns, name)
	return f == nil || f.kind == xSeq && f.prefix == prefix
}

// undefinedFields tells whether a description n has fields outside its vocabulary ns.
func undefinedFields(n *xnode, ns string) bool {
	if n.kind != xStruct {
		return true
	}
	for _, f := range n.children {
		if f.ns != ns || !extensionFields[ns][f.name] {
			return true
		}
	}
	return false
}

// extensionSchemas checks the packet's extension schema container and returns what it
// declares: properties by namespace and name, and value types.
func (c *checker) extensionSchemas() *schemas {
	ext := &schemas{props: map[string]map[string]string{}, structs: map[string]*structType{}, simple: map[string]bool{}}
	var container *xnode
	for _, p := range c.meta.packet.props {
		if p.ns == nsPDFAExtension && p.name == "schemas" {
			container = p
		}
	}
	if container == nil {
		return ext
	}
	if container.kind != xBag || container.prefix != "pdfaExtension" {
		c.fail("6.6.2.3.3-1", container.qname())
		if container.kind != xBag && container.kind != xSeq && container.kind != xAlt {
			return ext
		}
	}
	// Value types first: properties may name them.
	var props []*xnode
	var propNS []string
	for _, s := range container.children {
		if !c.description(s, nsPDFASchema, "pdfaExtension:schemas") {
			continue
		}
		ns := ""
		if f := field(s, nsPDFASchema, "namespaceURI"); f != nil {
			ns = strings.TrimSpace(f.value)
		}
		if vt := field(s, nsPDFASchema, "valueType"); vt != nil {
			for _, t := range vt.children {
				c.valueType(t, ext)
			}
		}
		if pr := field(s, nsPDFASchema, "property"); pr != nil {
			for _, p := range pr.children {
				props = append(props, p)
				propNS = append(propNS, ns)
			}
		}
	}
	pre := predefined()
	for i, p := range props {
		loc := "pdfaSchema:property"
		if !c.description(p, nsPDFAProperty, loc) {
			continue
		}
		vt := field(p, nsPDFAProperty, "valueType")
		c.check(textField(p, nsPDFAProperty, "valueType", "pdfaProperty") && pre.known(vt.value, ext), "6.6.2.3.3-8", loc)
		cat := field(p, nsPDFAProperty, "category")
		c.check(textField(p, nsPDFAProperty, "category", "pdfaProperty") && (cat.value == "internal" || cat.value == "external"), "6.6.2.3.3-9", loc)
		name := field(p, nsPDFAProperty, "name")
		if name != nil && vt != nil && propNS[i] != "" {
			if ext.props[propNS[i]] == nil {
				ext.props[propNS[i]] = map[string]string{}
			}
			ext.props[propNS[i]][strings.TrimSpace(name.value)] = vt.value
		}
	}
	return ext
}

// valueType checks a pdfaType description and registers the type it declares.
func (c *checker) valueType(t *xnode, ext *schemas) {
	if !c.description(t, nsPDFAType, "pdfaSchema:valueType") {
		return
	}
	name := field(t, nsPDFAType, "type")
	if name == nil {
		return
	}
	typ := normType(name.value)
	ns := ""
	if f := field(t, nsPDFAType, "namespaceURI"); f != nil {
		ns = strings.TrimSpace(f.value)
	}
	fields := field(t, nsPDFAType, "field")
	if fields == nil || len(fields.children) == 0 {
		ext.simple[typ] = true
		return
	}
	st := &structType{ns: ns, fields: map[string]string{}}
	for _, f := range fields.children {
		if !c.description(f, nsPDFAField, "pdfaType:field") {
			continue
		}
		vt := field(f, nsPDFAField, "valueType")
		c.check(textField(f, nsPDFAField, "valueType", "pdfaField"), "6.6.2.3.3-17", "pdfaType:field")
		if n := field(f, nsPDFAField, "name"); n != nil && vt != nil {
			st.fields[strings.TrimSpace(n.value)] = vt.value
		}
	}
	ext.structs[typ] = st
}
