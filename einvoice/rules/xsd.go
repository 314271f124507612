package rules

import (
	"regexp"
	"strings"
)

//go:generate go run ./internal/xsdgen -schemas ../../../shared/corpus/schemas/cii-d16b -out xsd_cii_gen.go

// xsdType is a content model: an ordered sequence or a choice of child elements, or
// simple content of a base type with attributes.
type xsdType struct {
	kind  string // seq, choice, simple
	base  string
	attrs []string
	kids  []particle
}

// particle is one child element of a content model.
type particle struct {
	name     string // prefix:local
	typ      string
	min, max int // max 0: unbounded
}

// schemaCheck checks each element against its content model: the children allowed, in
// schema order and number, and the simple content's data type and attributes. It is the
// part of schema validation the binding rules leave out.
type schemaCheck struct {
	types map[string]xsdType
	names map[string]name // prefix:local → namespace and local name
	root  name
	rootT string
}

func newSchemaCheck(types map[string]xsdType, root, rootType string) *schemaCheck {
	s := &schemaCheck{types: types, names: map[string]name{}, rootT: rootType}
	resolve := func(q string) name {
		c := compile(q)
		return c.steps[0].name
	}
	s.root = resolve(root)
	for _, t := range types {
		for _, p := range t.kids {
			if _, ok := s.names[p.name]; !ok {
				s.names[p.name] = resolve(p.name)
			}
		}
	}
	return s
}

// typeOf is the schema type of every element, from the root down; elements the schema
// does not allow have none.
func (s *schemaCheck) typeOf(d *document) map[*N]string {
	if v, ok := d.memo.Load("xsd-types"); ok {
		return v.(map[*N]string)
	}
	v, _ := d.memo.LoadOrStore("xsd-types", func() map[*N]string {
		m := map[*N]string{}
		var walk func(n *N, typ string)
		walk = func(n *N, typ string) {
			m[n] = typ
			t, ok := s.types[typ]
			if !ok {
				return
			}
			for _, k := range n.kids {
				for _, p := range t.kids {
					if s.names[p.name] == (name{k.Space, k.Local}) {
						walk(k, p.typ)
						break
					}
				}
			}
		}
		if d.root.Space == s.root.space && d.root.Local == s.root.local {
			walk(d.root, s.rootT)
		}
		return m
	}())
	return v.(map[*N]string)
}

// problem is what is wrong with an element's content, "" if nothing.
func (s *schemaCheck) problem(n *N) string {
	types := s.typeOf(n.doc)
	typ, known := types[n]
	if !known {
		if n.parent != nil {
			if _, parentKnown := types[n.parent]; parentKnown {
				return "The element " + n.prefixed() + " is not allowed here by the schema, or not in this place."
			}
		}
		return "" // reported at the topmost unknown element
	}
	if base, simple := strings.CutPrefix(typ, "xsd:"); simple {
		return checkSimple(n, base)
	}
	t, ok := s.types[typ]
	if !ok {
		return ""
	}
	for _, a := range n.Attrs {
		if a.Space != "" {
			continue // xsi:schemaLocation and the like
		}
		allowed := false
		for _, x := range t.attrs {
			allowed = allowed || strings.TrimSuffix(x, "!") == a.Local
		}
		if !allowed {
			return "The attribute " + a.Local + " is not allowed on " + n.prefixed() + "."
		}
	}
	for _, x := range t.attrs {
		if req, ok := strings.CutSuffix(x, "!"); ok && !hasRawAttr(n, req) {
			return "The attribute " + req + " is required on " + n.prefixed() + "."
		}
	}
	switch t.kind {
	case "simple":
		if len(n.kids) > 0 {
			return n.prefixed() + " holds a value, not elements."
		}
		return checkSimple(n, t.base)
	case "choice":
		if len(n.kids) != 1 {
			return n.prefixed() + " needs exactly one of its alternatives."
		}
		return ""
	}
	if strings.TrimSpace(n.Text) != "" {
		return n.prefixed() + " holds elements, not text."
	}
	i, count := 0, 0
	for _, k := range n.kids {
		kn := name{k.Space, k.Local}
		for i < len(t.kids) && s.names[t.kids[i].name] != kn {
			if count < t.kids[i].min {
				return "The element " + t.kids[i].name + " is required in " + n.prefixed() + " (before " + k.prefixed() + ")."
			}
			i, count = i+1, 0
		}
		if i == len(t.kids) {
			return "The element " + k.prefixed() + " is out of the schema's order in " + n.prefixed() + ", or not allowed there."
		}
		count++
		if p := t.kids[i]; p.max > 0 && count > p.max {
			return "The element " + p.name + " occurs more often than the schema allows in " + n.prefixed() + " (at most " + itoa(p.max) + ")."
		}
	}
	for ; i < len(t.kids); i, count = i+1, 0 {
		if count < t.kids[i].min {
			return "The element " + t.kids[i].name + " is required in " + n.prefixed() + "."
		}
	}
	return ""
}

var xsdDateTime = regexp.MustCompile(`^-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$`)
var xsdDate = regexp.MustCompile(`^-?\d{4,}-\d{2}-\d{2}(Z|[+-]\d{2}:\d{2})?$`)

// checkSimple checks a value against an XSD built-in type.
func checkSimple(n *N, base string) string {
	v := strings.TrimSpace(n.Text)
	bad := false
	switch base {
	case "decimal":
		_, ok := parseDecimal(v)
		bad = !ok
	case "boolean":
		bad = v != "true" && v != "false" && v != "1" && v != "0"
	case "dateTime":
		bad = !xsdDateTime.MatchString(v)
	case "date":
		bad = !xsdDate.MatchString(v)
	}
	if bad {
		return "The value of " + n.prefixed() + " is not a valid xs:" + base + "."
	}
	return ""
}

// schemaPattern makes the rule of a schema check.
func schemaPattern(id string, s *schemaCheck) pattern {
	return pattern{{where(func(*N) bool { return true }), []assert{{
		id: id, flag: Fatal, msg: "The element follows the schema: allowed children in order and number, valid values and attributes.",
		test: func(n *N) bool { return s.problem(n) == "" },
		why:  func(n *N) string { return s.problem(n) },
	}}}}
}
