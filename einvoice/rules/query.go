package rules

import (
	"slices"
	"strings"
	"sync"

	"github.com/shopspring/decimal"
)

// The prefixes rule paths are written with, for both syntaxes.
var prefixes = map[string]string{
	"ubl": "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2",
	"cn":  "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2",
	"cac": "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2",
	"cbc": "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2",
	"ext": "urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2",
	"rsm": "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100",
	"ram": "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100",
	"udt": "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100",
	"qdt": "urn:un:unece:uncefact:data:standard:QualifiedDataType:100",
}

// step is one step of a path: a child name, the parent (".."), or any child ("*").
type step struct {
	name
	up, any bool
}

// path is a compiled path: optionally from anywhere in the document ("//") or the root ("/").
type path struct {
	anywhere, root bool
	down           bool // only child steps
	steps          []step
}

var pathCache sync.Map // string → *path

func compile(p string) *path {
	if c, ok := pathCache.Load(p); ok {
		return c.(*path)
	}
	c := &path{}
	s := p
	switch {
	case strings.HasPrefix(s, "//"):
		c.anywhere, s = true, s[2:]
	case strings.HasPrefix(s, "/"):
		c.root, s = true, s[1:]
	}
	for part := range strings.SplitSeq(s, "/") {
		switch part {
		case "..":
			c.steps = append(c.steps, step{up: true})
		case "*":
			c.steps = append(c.steps, step{any: true})
		case ".", "":
		default:
			pre, local, ok := strings.Cut(part, ":")
			if !ok {
				panic("rules: unprefixed name in path " + p)
			}
			uri, known := prefixes[pre]
			if !known {
				panic("rules: unknown prefix in path " + p)
			}
			c.steps = append(c.steps, step{name: name{uri, local}})
		}
	}
	c.down = !slices.ContainsFunc(c.steps, func(s step) bool { return s.up })
	pathCache.Store(p, c)
	return c
}

// All is the elements at the path from n, in document order.
func (n *N) All(p string) []*N { return n.all(compile(p)) }

func (n *N) all(c *path) []*N {
	if c.down && !c.anywhere && !c.root {
		return collect(n, c.steps, nil) // the common case: one slice, none when nothing matches
	}
	var set []*N
	steps := c.steps
	switch {
	case c.anywhere:
		if len(steps) == 0 {
			return nil
		}
		set = n.doc.named(steps[0].name)
		steps = steps[1:]
	case c.root:
		// The first step names the root element.
		if len(steps) == 0 || (!steps[0].any && steps[0].name != (name{n.doc.root.Space, n.doc.root.Local})) {
			return nil
		}
		set, steps = []*N{n.doc.root}, steps[1:]
	default:
		set = []*N{n}
	}
	for _, s := range steps {
		var next []*N
		for _, m := range set {
			switch {
			case s.up:
				if m.parent != nil && (len(next) == 0 || next[len(next)-1] != m.parent) {
					next = append(next, m.parent)
				}
			default:
				for _, k := range m.kids {
					if s.any || (k.Local == s.local && k.Space == s.space) {
						next = append(next, k)
					}
				}
			}
		}
		set = next
		if len(set) == 0 {
			return nil
		}
	}
	return set
}

// One is the first element at the path, or nil.
func (n *N) One(p string) *N { return n.one(compile(p)) }

func (n *N) one(c *path) *N {
	if !c.anywhere && !c.root && c.down {
		return first(n, c.steps) // no allocation for the common downward path
	}
	if all := n.all(c); len(all) > 0 {
		return all[0]
	}
	return nil
}

// collect appends the elements at the child steps below n, in document order (a depth-first
// walk meets them in that order: they all lie at the same depth).
func collect(n *N, steps []step, out []*N) []*N {
	if len(steps) == 0 {
		return append(out, n)
	}
	s := steps[0]
	for _, k := range n.kids {
		if s.any || (k.Local == s.local && k.Space == s.space) {
			out = collect(k, steps[1:], out)
		}
	}
	return out
}

// first is the first element in document order at the child steps below n.
func first(n *N, steps []step) *N {
	if len(steps) == 0 {
		return n
	}
	s := steps[0]
	for _, k := range n.kids {
		if s.any || (k.Local == s.local && k.Space == s.space) {
			if m := first(k, steps[1:]); m != nil {
				return m
			}
		}
	}
	return nil
}

// Has tells whether the path leads to an element.
func (n *N) Has(p string) bool { return n.One(p) != nil }

// Count is the number of elements at the path.
func (n *N) Count(p string) int { return len(n.All(p)) }

// Str is the whitespace-normalised text of the first element at the path, "" if none.
func (n *N) Str(p string) string {
	if m := n.One(p); m != nil {
		return m.Val()
	}
	return ""
}

// Val is the element's own text, whitespace-normalised (XPath normalize-space).
func (n *N) Val() string { return norm(n.Text) }

// AttrVal is the normalised value of an unqualified attribute, and whether it exists.
func (n *N) AttrVal(local string) (string, bool) {
	for _, a := range n.Attrs {
		if a.Space == "" && a.Local == local {
			return norm(a.Value), true
		}
	}
	return "", false
}

func norm(s string) string {
	if !strings.ContainsAny(s, " \t\r\n") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// Is tells whether the element has the name, e.g. "cbc:InvoiceTypeCode".
func (n *N) Is(qname string) bool {
	s := compile(qname).steps[0]
	return n.Local == s.local && n.Space == s.space
}

// Parent is the parent element, nil at the root.
func (n *N) Parent() *N { return n.parent }

// Dec is the xs:decimal value of the first element at the path; ok is false when there is
// none. A value that is not a decimal fails the rule being evaluated (see DecVal).
func (n *N) Dec(p string) (d decimal.Decimal, ok bool) {
	m := n.One(p)
	if m == nil {
		return d, false
	}
	return m.DecVal(), true
}

// DecVal is the element's own xs:decimal value. Text that is not a decimal is a dynamic
// error of the XPath cast, which fails the rule: it is recorded for the engine (which
// fails the rule being evaluated, see guard) and read as 0 meanwhile.
func (n *N) DecVal() decimal.Decimal {
	if n.decState == 0 {
		n.decState = 2
		if d, ok := parseDecimal(n.Val()); ok {
			n.dec, n.decState = d, 1
		}
	}
	if n.decState == 2 {
		n.doc.castFailed()
		return decimal.Zero
	}
	return n.dec
}

// parseDecimal reads the xs:decimal lexical form: an optional sign, digits with at most
// one point, nothing else.
func parseDecimal(s string) (decimal.Decimal, bool) {
	digits, point := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !point:
			point = true
		case (c == '+' || c == '-') && i == 0:
		default:
			return decimal.Decimal{}, false
		}
	}
	if digits == 0 || len(s) > 60 {
		return decimal.Decimal{}, false
	}
	d, err := decimal.NewFromString(strings.TrimPrefix(s, "+"))
	return d, err == nil
}

// Sum adds the decimal values of the elements (XPath sum over xs:decimal).
func Sum(ns []*N) decimal.Decimal {
	s := decimal.Zero
	for _, m := range ns {
		s = s.Add(m.DecVal())
	}
	return s
}

// Where keeps the elements for which f holds.
func Where(ns []*N, f func(*N) bool) []*N {
	var out []*N
	for _, m := range ns {
		if f(m) {
			out = append(out, m)
		}
	}
	return out
}

// Any tells whether f holds for one of the elements.
func Any(ns []*N, f func(*N) bool) bool {
	for _, m := range ns {
		if f(m) {
			return true
		}
	}
	return false
}

var hundred = decimal.NewFromInt(100)

// round2 is the standard's rounding to two decimals: XPath round(x*100) div 100, which
// rounds halves up towards positive infinity (-2.345 becomes -2.34).
func round2(x decimal.Decimal) decimal.Decimal {
	return x.Mul(hundred).Add(decimal.NewFromFloat(0.5)).Floor().Div(hundred)
}

// roundInt is XPath round(x).
func roundInt(x decimal.Decimal) decimal.Decimal {
	return x.Add(decimal.NewFromFloat(0.5)).Floor()
}

// decimals is the number of digits after the point as written.
func decimals(s string) int {
	_, frac, ok := strings.Cut(s, ".")
	if !ok {
		return 0
	}
	return len(frac)
}

// codes is a code list. Its set is built on first use: the package declares dozens of
// lists (UNECE's units alone hold about 2,000 codes), and building them all when the
// package loads was most of what `papierkram xrechnung validate FILE` spent before it read
// the file (#24), while one rule set needs only some of them.
type codes struct {
	list string
	once sync.Once
	set  map[string]bool
}

// codeSet makes a code list from its space-separated codes.
func codeSet(list string) *codes { return &codes{list: list} }

// has reports whether v is one of the codes.
func (c *codes) has(v string) bool { return c.codes()[v] }

// codes is the set of the list's codes.
func (c *codes) codes() map[string]bool {
	c.once.Do(func() {
		c.set = map[string]bool{}
		for code := range strings.FieldsSeq(c.list) {
			c.set[code] = true
		}
	})
	return c.set
}

// inList is the code list test: one code without spaces, in the list.
func inList(list *codes, v string) bool { return list.has(v) }

func upper(s string) string       { return strings.ToUpper(s) }
func containsSpace(s string) bool { return strings.Contains(s, " ") }

// Under tells whether an ancestor of the element has one of the names (XPath ancestor::).
func (n *N) Under(names ...string) bool {
	for m := n.parent; m != nil; m = m.parent {
		for _, x := range names {
			if m.Is(x) {
				return true
			}
		}
	}
	return false
}

// notUnder is the filter for elements outside every named ancestor.
func notUnder(names ...string) func(*N) bool {
	return func(n *N) bool { return !n.Under(names...) }
}

// named is every element of the name, in document order.
func (d *document) named(k name) []*N {
	set := d.byName[k.local]
	for i, m := range set {
		if m.Space != k.space {
			// Another namespace with the same local name: keep only k's.
			out := append([]*N(nil), set[:i]...)
			for _, m := range set[i+1:] {
				if m.Space == k.space {
					out = append(out, m)
				}
			}
			return out
		}
	}
	return set
}
