package rules

import (
	"fmt"
	"strings"
	"sync"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/internal/lazyre"
)

//go:generate go run ./internal/xsdgen -schemas ../../../shared/corpus/schemas/cii-d16b -out xsd_cii_gen.go
//go:generate go run ./internal/xsdgen -ubl -schemas ../../../shared/corpus/schemas/ubl-2.1 -out xsd_ubl_gen.go
//go:generate go run ./internal/xsdgen -facturx -schemas ../../../shared/corpus/schemas/factur-x-1.08 -out xsd_facturx_gen.go
//go:generate go run ./internal/xsdgen -facturx -version 1.07 -schemas ../../../shared/corpus/schemas/factur-x-1.07.2 -out xsd_facturx107_gen.go
//go:generate go run ./internal/facturxgen -schemas ../../../shared/corpus/schemas/factur-x-1.08 -out facturx_gen.go
//go:generate go run ./internal/facturxgen -version 1.07 -schemas internal/official/factur-x-1.07.3 -out facturx107_gen.go
//go:generate go run ./internal/fxschgen -schemas ../../../shared/corpus/schemas/factur-x-1.08 -out facturx_sch_gen.go
//go:generate go run ./internal/fxschgen -version 1.07 -schemas internal/official/factur-x-1.07.3 -ids ../../../shared/corpus/schemas/factur-x-1.08 -out facturx107_sch_gen.go
//go:generate go run ./internal/ublcrgen -artefacts internal/official/en16931-1.3.16 -out ublcr_gen.go
//go:generate go run ./internal/ciisyntaxgen -artefacts internal/official/en16931-1.3.16 -out ciisyntax_gen.go
//go:generate go run ./internal/codesgen -artefacts internal/official/en16931-1.3.16 -out codes_gen.go
//go:generate go run ./internal/ruleindex -out rule_index.md

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
	types   map[string]xsdType
	kids    sync.Map // type → its particles' names, resolved ([]name) when first met
	root    name
	rootT   string
	memoKey string
}

func newSchemaCheck(types map[string]xsdType, root, rootType string) *schemaCheck {
	s := &schemaCheck{types: types, rootT: rootType}
	// One memo per check: CII D16B and the Factur-X profiles name their root type alike.
	s.memoKey = fmt.Sprintf("xsd-types:%s:%p", rootType, s)
	s.root = resolveName(root)
	return s
}

// resolveName is a prefixed name's namespace and local name.
func resolveName(q string) name { return compile(q).steps[0].name }

// kidsOf is a type's particles' names, resolved when a document first has the type: a
// schema has hundreds of types and an invoice uses a few dozen, and resolving them all
// was most of the time a one-file validation spends on its rule set (#24).
func (s *schemaCheck) kidsOf(typ string) []name {
	if v, ok := s.kids.Load(typ); ok {
		return v.([]name)
	}
	t := s.types[typ]
	kids := make([]name, len(t.kids))
	for i, p := range t.kids {
		kids[i] = resolveName(p.name)
	}
	v, _ := s.kids.LoadOrStore(typ, kids)
	return v.([]name)
}

// nodeType is an element's schema type: its content model, or an XSD built-in ("xsd:...").
type nodeType struct {
	name  string
	model *xsdType
	kids  []name
}

// typeOf is the schema type of every element by document position, from the root down;
// elements the schema does not allow have none.
func (s *schemaCheck) typeOf(d *document) []*nodeType {
	if v, ok := d.memo.Load(s.memoKey); ok {
		return v.([]*nodeType)
	}
	byName := map[string]*nodeType{}
	get := func(typ string) *nodeType {
		if nt, ok := byName[typ]; ok {
			return nt
		}
		nt := &nodeType{name: typ, kids: s.kidsOf(typ)}
		if t, ok := s.types[typ]; ok {
			nt.model = &t
		}
		byName[typ] = nt
		return nt
	}
	m := make([]*nodeType, len(d.all))
	var walk func(n *N, nt *nodeType)
	walk = func(n *N, nt *nodeType) {
		m[n.index] = nt
		if nt.model == nil {
			return
		}
		for _, k := range n.kids {
			for i, p := range nt.model.kids {
				if nt.kids[i].local == k.Local && nt.kids[i].space == k.Space {
					walk(k, get(p.typ))
					break
				}
			}
		}
	}
	if d.root.Space == s.root.space && d.root.Local == s.root.local {
		walk(d.root, get(s.rootT))
	}
	v, _ := d.memo.LoadOrStore(s.memoKey, m)
	return v.([]*nodeType)
}

// problem is what is wrong with an element's content, "" if nothing.
func (s *schemaCheck) problem(n *N) string {
	types := s.typeOf(n.doc)
	nt := types[n.index]
	if nt == nil {
		if n.parent != nil && types[n.parent.index] != nil && types[n.parent.index].model != nil {
			return "The element " + n.prefixed() + " is not allowed here by the schema, or not in this place."
		}
		return "" // reported at the topmost unknown element
	}
	if base, simple := strings.CutPrefix(nt.name, "xsd:"); simple {
		return checkSimple(n, base)
	}
	t := nt.model
	if t == nil {
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
	names := nt.kids
	for _, k := range n.kids {
		for i < len(t.kids) && (names[i].local != k.Local || names[i].space != k.Space) {
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

var xsdDateTime = lazyre.New(`^-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})?$`)

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
		// The calendar and the zone are checked too (no 2016-13-01, 2015-02-29 or
		// +25:00), as libxml2 does.
		_, ok := einvoice.ParseXSDate(v)
		bad = !ok
	}
	if bad {
		return "The value of " + n.prefixed() + " is not a valid xs:" + base + "."
	}
	return ""
}

// schemaPattern makes the rule of schema checks, one per document element (Invoice,
// CreditNote): the one whose root the document has applies.
func schemaPattern(id string, checks ...*schemaCheck) pattern {
	pick := func(n *N) *schemaCheck {
		for _, s := range checks {
			if n.doc.root.Local == s.root.local && n.doc.root.Space == s.root.space {
				return s
			}
		}
		return nil
	}
	problem := func(n *N) string {
		if s := pick(n); s != nil {
			return s.problem(n)
		}
		return ""
	}
	x := row(id, Fatal, "The element follows the schema: allowed children in order and number, valid values and attributes.",
		func(n *N) bool { return problem(n) == "" })
	x.why = problem
	return pattern{{where(func(*N) bool { return true }), []assert{x}}}
}
