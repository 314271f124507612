package rules

import (
	"strings"
	"sync"

	"github.com/papierkram/papierkram/einvoice"
)

// The structure and code list rules of the Factur-X profiles: the profile Schematron's
// assertions numbered FX-SCH-A-… that carry no bracketed rule id. They say how often an
// element may occur in its context, which attributes it must have, and which codes a code
// element or attribute takes (the profile's *_codedb.xml, in place of CEN's BR-CL lists).
// internal/fxschgen writes them from the Schematron (facturx_sch_gen.go, and
// facturx107_sch_gen.go from 1.07.3's); they are bound here by the official ids, which
// name what is checked (FX-SCH-A-000036: the value of a ram:CountryID), not where: the
// same id is checked in every context the profile has the element in, as the official
// report names it. 1.07.3 numbers none of its assertions; each takes the id 1.08 gives
// the same text, so that a check is named alike in both versions.

// fxSchematron is one version's rules: per profile its patterns, each an ordered list of
// rules (an element meets the first rule of a pattern whose context matches it), and the
// code lists they test against.
type fxSchematron struct {
	// table builds the profiles' patterns, on first use: as a package variable the table
	// was two thousand allocations at every start of the binary (#24).
	table func() map[string][][]fxRule
	lists []string // codes separated by spaces; an assertion names its list from 1

	once     sync.Once
	sets     []*codes
	profOnce sync.Once
	profs    map[string][][]fxRule
}

// profiles is the patterns of each profile.
func (s *fxSchematron) profiles() map[string][][]fxRule {
	s.profOnce.Do(func() { s.profs = s.table() })
	return s.profs
}

// fxRule is a rule context, a path from the root with predicates on some of its steps,
// and its assertions. A rule without assertions is there to take its elements from the
// later rules of its pattern, as in the Schematron.
type fxRule struct {
	path    string
	where   []fxWhere
	asserts []fxAssert
}

// fxWhere is the predicate of the step of a context (from 0, the root element): all its
// comparisons hold.
type fxWhere struct {
	step  int
	conds []fxCond
}

// fxCond is an XPath general comparison from the element: some value at left (a relative
// path whose last step may be an attribute) equals right, a literal or the value of some
// element at a path (relative, or from the root). not negates it.
type fxCond struct {
	not       bool
	left      string
	right     string
	rightPath bool
}

// fxAssert is one assertion: how often a child may occur (child, min, max; max -1 is
// unbounded; childWhere counts only the children it holds for), an attribute that must be
// there (required), or a code list (list, from 1) the element's value or attribute takes.
type fxAssert struct {
	id         string
	child      string
	childWhere []fxCond
	min, max   int
	attr       string
	required   bool
	list       int
}

// codeSets are the version's code lists, built on first use.
func (s *fxSchematron) codeSets() []*codes {
	s.once.Do(func() {
		for _, l := range s.lists {
			s.sets = append(s.sets, codeSet(l))
		}
	})
	return s.sets
}

// facturXSchematronOf is a version's structure and code list rules; nil for a version
// without them here.
func facturXSchematronOf(version string) *fxSchematron {
	switch version {
	case facturX108:
		return &facturXSchematron108
	case facturX107:
		return &facturXSchematron107
	}
	return nil
}

// facturXStructure is the structure and code list rules of a profile of a version, one
// pattern per Schematron pattern; nil for a version without them here.
func facturXStructure(version, profile string) []pattern {
	s := facturXSchematronOf(version)
	if s == nil {
		return nil
	}
	var out []pattern
	for _, rules := range s.profiles()[profile] {
		var p pattern
		for _, r := range rules {
			var as []assert
			for _, x := range r.asserts {
				as = append(as, a(x.id, s.test(x)))
			}
			p = append(p, rule{r.selector(), as})
		}
		out = append(out, p)
	}
	return out
}

// selector matches the elements at the rule's path whose steps meet their predicates.
func (r fxRule) selector() selector {
	c := compile(r.path)
	steps := c.steps
	preds := map[int][]fxCond{}
	for _, w := range r.where {
		preds[w.step] = w.conds
	}
	last := steps[len(steps)-1].local
	return selector{locals: []string{last}, match: func(n *N) bool {
		m := n
		for i := len(steps) - 1; i >= 0; i-- {
			if m == nil || m.Local != steps[i].local || m.Space != steps[i].space {
				return false
			}
			if cs, ok := preds[i]; ok && !fxHolds(m, cs) {
				return false
			}
			m = m.parent
		}
		return m == nil // the first step is the root element
	}}
}

// test is an assertion's test.
func (s *fxSchematron) test(x fxAssert) func(*N) bool {
	switch {
	case x.child != "":
		return func(n *N) bool {
			k := 0
			for _, c := range n.All(x.child) {
				if x.childWhere == nil || fxHolds(c, x.childWhere) {
					k++
				}
			}
			return k >= x.min && (x.max < 0 || k <= x.max)
		}
	case x.required:
		return func(n *N) bool { return hasRawAttr(n, x.attr) }
	case x.list > 0:
		return func(n *N) bool {
			// string-length($v) = 0 or the codes hold $v: the value as written, white
			// space included; an attribute that is not there passes.
			v := stringValue(n)
			if x.attr != "" {
				v = rawAttr(n, x.attr)
			}
			return v == "" || s.codeSets()[x.list-1].has(v)
		}
	}
	panic("rules: Factur-X assertion " + x.id + " tests nothing")
}

// fxHolds tells whether every comparison holds at n.
func fxHolds(n *N, cs []fxCond) bool {
	for _, c := range cs {
		if fxCompare(n, c) == c.not {
			return false
		}
	}
	return true
}

// fxCompare is the general comparison: some value on the left equals the literal, or some
// value on the right.
func fxCompare(n *N, c fxCond) bool {
	left := fxValues(n, c.left)
	if !c.rightPath {
		for _, v := range left {
			if v == c.right {
				return true
			}
		}
		return false
	}
	right := fxValues(n, c.right)
	for _, v := range left {
		for _, w := range right {
			if v == w {
				return true
			}
		}
	}
	return false
}

// fxValues are the string values at a path from n: its elements' text as written, or, when
// its last step is an attribute, the attribute's values.
func fxValues(n *N, path string) []string {
	attr := ""
	if i := strings.LastIndex(path, "@"); i >= 0 {
		path, attr = strings.TrimSuffix(path[:i], "/"), path[i+1:]
	}
	nodes := []*N{n}
	if path != "" {
		nodes = n.All(path)
	}
	var out []string
	for _, m := range nodes {
		if attr == "" {
			out = append(out, stringValue(m))
		} else if hasRawAttr(m, attr) {
			out = append(out, rawAttr(m, attr))
		}
	}
	return out
}

// stringValue is an element's XPath string value: its text and its descendants', as
// written.
func stringValue(n *N) string {
	if len(n.kids) == 0 {
		return n.RawText()
	}
	var b strings.Builder
	b.WriteString(n.RawText())
	for _, k := range n.kids {
		b.WriteString(stringValue(k))
	}
	return b.String()
}

// facturXSchema is the schema check of a Factur-X profile of a version (FX-XSD, from the
// profile's own XSD: xsd_facturx_gen.go for 1.08, xsd_facturx107_gen.go for 1.07.2):
// which elements, in which order and number, of which types. The profiles restrict CII;
// they are based on D22B, not on the D16B schema CII-XSD checks (which the profiles turn
// off), so without it a duplicated or misplaced element or an amount that is no number
// passed where the official schema check fails. Nil for a version without the tables.
// facturXTypes is each version's schema tables, built once when a profile's rules are
// first compiled.
var facturXTypes = map[string]func() map[string]map[string]xsdType{
	facturX108: sync.OnceValue(facturXTypes108),
	facturX107: sync.OnceValue(facturXTypes107),
}

func facturXSchema(version string, p einvoice.Profile) []pattern {
	tables, ok := facturXTypes[version]
	if !ok {
		return nil
	}
	types, ok := tables()[string(p)]
	if !ok {
		return nil
	}
	return []pattern{schemaPattern("FX-XSD", newSchemaCheck(types, "rsm:CrossIndustryInvoice", "rsm:CrossIndustryInvoiceType"))}
}
