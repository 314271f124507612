package rules

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
	"github.com/papierkram/papierkram/fault"
	"github.com/shopspring/decimal"
)

// Severity is how much a failed rule weighs: a fatal one makes the invoice invalid.
type Severity string

// The severities, named as in the official rule sets.
const (
	Fatal   Severity = "fatal"
	Warning Severity = "warning"
	Info    Severity = "information"
)

// N is an element of the document being checked, with its parent.
type N struct {
	*xmlc.Node
	parent *N
	kids   []*N
	doc    *document
	index  int // position in document order
	pos    int // position among the siblings of the same name, from 1
	xpath  string
	// dec memoises DecVal: many rules read the same amounts.
	dec      decimal.Decimal
	decState uint8 // 0 not read yet, 1 a decimal, 2 not a decimal
}

type document struct {
	root *N
	all  []*N // document order
	ns   map[string]string
	// byLocal indexes elements by namespace and local name, for the // steps.
	// byName indexes elements by local name (namespaces are checked where it is read: a
	// local name is almost always in one namespace, and short keys hash fast).
	byName map[string][]*N

	memo sync.Map // document-wide facts several rules ask for, computed once

	pathsOnce sync.Once
	paths     *pathNode // the element paths below the root, with their attributes
	attrs     map[string]bool

	// dynamicError is set when the part of a rule being evaluated met what XPath raises a
	// dynamic error for (a cast of text that is not a decimal or a boolean): that part
	// fails, as the official rule does. run evaluates one part at a time (see guard).
	dynamicError bool
}

// castFailed records a failed cast in the part of a rule being evaluated.
func (d *document) castFailed() { d.dynamicError = true }

// once computes a document-wide fact the first time it is asked for.
func (d *document) once(key string, f func() bool) bool {
	if v, ok := d.memo.Load(key); ok {
		return v.(bool)
	}
	v := f()
	d.memo.Store(key, v)
	return v
}

// pathNode is one element path below the root: the elements below it by name, and the
// unqualified attributes its elements carry. The tree answers the many "must not be used"
// rules at once without building a string per element.
type pathNode struct {
	name  name
	kids  []*pathNode // few per path: a scan compares names faster than a map hashes them
	attrs map[string]bool
}

func (t *pathNode) kid(k name) *pathNode {
	for _, c := range t.kids {
		if c.name.local == k.local && c.name.space == k.space {
			return c
		}
	}
	return nil
}

// pathKey is a path below the root, compiled when a rule is built: its elements and, last,
// an attribute ("" for the element itself); anyAttr asks for the attribute on any element.
type pathKey struct {
	steps   []name
	attr    string
	anyAttr bool
}

// compileKey compiles "cac:A/cbc:B", "cac:A/cbc:B/@attr" or "//@attr", written with the
// conventional prefixes.
func compileKey(path string) pathKey {
	if a, ok := strings.CutPrefix(path, "//@"); ok {
		return pathKey{attr: a, anyAttr: true}
	}
	k := pathKey{steps: make([]name, 0, strings.Count(path, "/")+1)}
	for step := range strings.SplitSeq(path, "/") {
		if a, ok := strings.CutPrefix(step, "@"); ok {
			k.attr = a
			continue
		}
		pfx, local, ok := strings.Cut(step, ":")
		if !ok {
			panic("rules: a path key needs prefixed steps: " + path)
		}
		uri, known := prefixes[pfx]
		if !known {
			panic("rules: unknown prefix in " + path)
		}
		k.steps = append(k.steps, name{uri, local})
	}
	return k
}

// has tells whether an element (or attribute) exists at a path below the root.
func (d *document) has(k pathKey) bool {
	d.pathsOnce.Do(func() {
		d.paths, d.attrs = &pathNode{}, map[string]bool{}
		var walk func(n *N, t *pathNode)
		walk = func(n *N, t *pathNode) {
			for _, c := range n.kids {
				key := name{c.Space, c.Local}
				ct := t.kid(key)
				if ct == nil {
					ct = &pathNode{name: key}
					t.kids = append(t.kids, ct)
				}
				for _, a := range c.Attrs {
					if a.Space == "" {
						if ct.attrs == nil {
							ct.attrs = map[string]bool{}
						}
						ct.attrs[a.Local] = true
						d.attrs[a.Local] = true
					}
				}
				walk(c, ct)
			}
		}
		walk(d.root, d.paths)
	})
	if k.anyAttr {
		return d.attrs[k.attr]
	}
	t := d.paths
	for _, s := range k.steps {
		if t = t.kid(s); t == nil {
			return false
		}
	}
	return k.attr == "" || t.attrs[k.attr]
}

type name struct{ space, local string }

func newDocument(root *xmlc.Node, ns map[string]string) *document {
	d := &document{ns: ns, byName: map[string][]*N{}}
	// One slab for the elements and one for their child lists: a document of a thousand
	// elements is then two allocations, not two thousand.
	count := 0
	var size func(n *xmlc.Node)
	size = func(n *xmlc.Node) {
		count++
		for _, c := range n.Kids {
			size(c)
		}
	}
	size(root)
	slab := make([]N, count)
	kidSlab := make([]*N, count)
	d.all = make([]*N, 0, count)
	// Namespaces are compared in every step of every path: the canonical string of a known
	// namespace (the one compiled paths hold) makes equal ones compare by pointer instead
	// of byte by byte. The parser shares one string per declaration, so the last one seen
	// is nearly always the next.
	canon := canonicalNamespaces()
	var lastRaw, lastCanon string
	var build func(n *xmlc.Node, parent *N) *N
	build = func(n *xmlc.Node, parent *N) *N {
		if n.Space != lastRaw {
			c, ok := canon[n.Space]
			if !ok {
				c = n.Space
			}
			lastRaw, lastCanon = n.Space, c
		}
		n.Space = lastCanon
		w := &slab[len(d.all)]
		*w = N{Node: n, parent: parent, doc: d, index: len(d.all)}
		d.all = append(d.all, w)
		d.byName[n.Local] = append(d.byName[n.Local], w)
		if len(n.Kids) > 0 {
			w.kids, kidSlab = kidSlab[:len(n.Kids):len(n.Kids)], kidSlab[len(n.Kids):]
			for i, c := range n.Kids {
				w.kids[i] = build(c, w)
				// The position among same-named siblings: they are usually adjacent (lines,
				// notes), so look back until the run of that name ends.
				pos := 1
				for j := i - 1; j >= 0; j-- {
					if p := n.Kids[j]; p.Local == c.Local && p.Space == c.Space {
						pos = w.kids[j].pos + 1
						break
					}
				}
				w.kids[i].pos = pos
			}
		}
		return w
	}
	d.root = build(root, nil)
	return d
}

// assert is one rule: its id, severity and test, true when the element passes.
type assert struct {
	id   string
	flag Severity
	msg  string // what the rule requires, in our words
	test func(n *N) bool
	// why, when set, says what is wrong at an element that fails, in place of msg.
	why func(n *N) string
	idx int        // unique among compiled assertions, from 1
	at  [1]uintptr // the program counter of the binding, for the rule index
}

// a binds the declared rule id to a test in one syntax's context (see declared). A rule
// that is bound but not declared is a bug of ours: building the rule set panics, and the
// test that builds every rule set (TestRuleSetsBuild) fails.
func a(id string, test func(n *N) bool) assert {
	d, ok := declarationOf(id)
	if !ok {
		panic("rules: " + id + " is bound but not declared")
	}
	x := assert{id: id, flag: d.flag, msg: d.msg, test: test}
	runtime.Callers(2, x.at[:]) // where it is bound, for the rule index; resolved only there
	return x
}

// row is a rule declared and bound by one row of a generated table of an official syntax
// binding (UBL-CR, CII-SR, UBL-SR and the like): the table is its declaration.
func row(id string, flag Severity, msg string, test func(n *N) bool) assert {
	x := assert{id: id, flag: flag, msg: msg, test: test}
	runtime.Callers(2, x.at[:])
	return x
}

// as gives a binding the severity its official syntax binding has where it differs from
// the declaration's (CEN declares BR-51 a warning for UBL and fatal for CII).
func (x assert) as(flag Severity) assert {
	x.flag = flag
	return x
}

// at matches elements by the end of their path: "cac:InvoiceLine/cac:InvoicePeriod" is an
// InvoicePeriod whose parent is an InvoiceLine; a leading "/" anchors at the root. Several
// alternatives may be given; an optional filter narrows them.
func at(alternatives ...string) selector {
	var paths []*path
	var locals []string
	for _, p := range alternatives {
		c := compile(p)
		paths = append(paths, c)
		if last := c.steps[len(c.steps)-1]; !last.any && !last.up {
			locals = append(locals, last.local)
		} else {
			locals = nil // any element: no index
			break
		}
	}
	return selector{locals: locals, match: func(n *N) bool {
	next:
		for _, p := range paths {
			m := n
			for i := len(p.steps) - 1; i >= 0; i-- {
				s := p.steps[i]
				if m == nil || (!s.any && (m.Local != s.local || m.Space != s.space)) {
					continue next
				}
				m = m.parent
			}
			if p.root && m != nil {
				continue
			}
			return true
		}
		return false
	}}
}

// atIf is at with a filter on the element.
func atIf(filter func(*N) bool, alternatives ...string) selector {
	c := at(alternatives...)
	match := c.match
	c.match = func(n *N) bool { return match(n) && filter(n) }
	return c
}

// where is a context given by a test alone; it is tried on every element.
func where(f func(*N) bool) selector { return selector{match: f} }

// selector selects the elements a rule applies to (a Schematron rule context). locals, when set, are the local names
// the elements can have, so that a pattern can skip rules that cannot match.
type selector struct {
	locals []string
	match  func(*N) bool
}

// rule binds assertions to a context.
type rule struct {
	selector selector
	asserts  []assert
}

// pattern is an ordered list of rules; an element meets at most one rule of a pattern.
type pattern []rule

// compiled is a pattern indexed by local name: for each name, the rules that may match
// elements of that name, in pattern order.
type compiled struct {
	rules []rule
	// byName holds, by interned local name, the rules that may match; a name the pattern
	// does not know (or one interned after it was compiled) takes any.
	byName [][]int
	any    []int // rules that may match any element
}

// names interns the local names rule contexts mention, so that run finds a pattern's rules
// for an element by index instead of hashing its name once per pattern.
var names = struct {
	sync.RWMutex
	ids map[string]int // from 1; 0 is a name no rule mentions
}{ids: map[string]int{}}

func internName(local string) int {
	names.Lock()
	defer names.Unlock()
	id, ok := names.ids[local]
	if !ok {
		id = len(names.ids) + 1
		names.ids[local] = id
	}
	return id
}

func nameID(local string) int {
	names.RLock()
	defer names.RUnlock()
	return names.ids[local]
}

// assertCount numbers every compiled assertion, so that run tracks passed rules in a slice.
var assertCount atomic.Int32

func compilePattern(p pattern) *compiled {
	for i := range p {
		for j := range p[i].asserts {
			p[i].asserts[j].idx = int(assertCount.Add(1))
		}
	}
	byLocal := map[string][]int{}
	c := &compiled{rules: p}
	for i, r := range p {
		if r.selector.locals == nil {
			c.any = append(c.any, i)
		}
	}
	for i, r := range p {
		for _, l := range r.selector.locals {
			if ids := byLocal[l]; len(ids) == 0 || ids[len(ids)-1] != i {
				byLocal[l] = append(ids, i)
			}
		}
	}
	// Merge the rules for any element into every list, keeping pattern order.
	for l, ids := range byLocal {
		id := internName(l)
		if id >= len(c.byName) {
			c.byName = append(c.byName, make([][]int, id+1-len(c.byName))...)
		}
		c.byName[id] = mergeSorted(ids, c.any)
	}
	return c
}

func mergeSorted(a, b []int) []int {
	out := make([]int, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		default:
			out = append(out, b[j])
			j++
		}
	}
	return out
}

// Result is the outcome of one rule at one element.
type Result struct {
	ID       string   `json:"id"`
	Severity Severity `json:"severity"`
	Passed   bool     `json:"passed"`
	Message  string   `json:"message"`
	// Location is the XPath of the element the rule was checked at.
	Location string `json:"location"`
	Line     int    `json:"line,omitempty"`
	// Count is how many elements a passed rule was checked at; Location is the first.
	// Failures are reported one by one.
	Count int `json:"count,omitempty"`
	// Scenario says when the severity is not the rule set's own but the one KoSIT's
	// XRechnung validator configuration gives it, e.g. "warning in the rule set, fatal in
	// KoSIT's XRechnung scenario".
	Scenario string `json:"scenario,omitempty"`
}

// scratch is what run needs only while it runs.
type scratch struct {
	passed []int32
	byID   map[string]int
}

var scratchPool = sync.Pool{New: func() any { return &scratch{byID: make(map[string]int, 1024)} }}

// run checks every element against the patterns, in document order. A rule that panics
// ends the validation with an internal error: a bug of ours must not turn into a failed
// rule on a customer's invoice.
func run(ctx context.Context, d *document, patterns []*compiled, skip map[string]bool) ([]Result, error) {
	// Sized for a whole rule set (UBL with XRechnung checks about 900 rule ids), so that
	// neither grows while the document is walked.
	out := make([]Result, 0, 1024)
	// The result of a passed rule by its id; assertions sharing an id (one rule checked in
	// several contexts) share it, found through byID. Both are scratch space, reused
	// between validations: passed is sized by every assertion compiled in the process.
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	if n := int(assertCount.Load()) + 1; cap(sc.passed) < n {
		sc.passed = make([]int32, n)
	} else {
		sc.passed = sc.passed[:n]
		clear(sc.passed)
	}
	clear(sc.byID)
	passed, byID := sc.passed, sc.byID
	for k, n := range d.all {
		// Rules that look across the document make a large invoice cost more than its
		// size: the work ends with its request.
		if k%1024 == 0 && ctx.Err() != nil {
			return nil, fault.FromContext(ctx, "the invoice was still being validated")
		}
		nid := nameID(n.Local)
		for _, p := range patterns {
			ids := p.any
			if nid < len(p.byName) && p.byName[nid] != nil {
				ids = p.byName[nid]
			}
			for _, i := range ids {
				r := p.rules[i]
				match, err := guard(ctx, r.id(), "context", n, r.selector.match)
				if err != nil {
					return nil, err
				}
				if !match {
					continue
				}
				loc := ""
				for _, a := range r.asserts {
					if skip[a.id] {
						continue
					}
					ok, err := guard(ctx, a.id, "test", n, a.test)
					if err != nil {
						return nil, err
					}
					if ok {
						if i := passed[a.idx]; i > 0 {
							out[i-1].Count++
							continue
						}
						if i, seen := byID[a.id]; seen {
							passed[a.idx] = int32(i + 1)
							out[i].Count++
							continue
						}
						byID[a.id] = len(out)
						passed[a.idx] = int32(len(out) + 1)
					}
					if loc == "" {
						loc = n.XPath()
					}
					res := Result{ID: a.id, Severity: a.flag, Passed: ok, Message: a.msg, Location: loc, Line: n.Line}
					if !ok && a.why != nil {
						why := ""
						if _, err := guard(ctx, a.id, "message", n, func(n *N) bool { why = a.why(n); return true }); err != nil {
							return nil, err
						}
						res.Message = why
					}
					if ok {
						res.Count = 1
					}
					out = append(out, res)
				}
				break
			}
		}
	}
	return out, nil
}

// id names a rule by its first assertion, for reports on the rule's context.
func (r rule) id() string {
	if len(r.asserts) == 0 {
		return "(no assertion)"
	}
	return r.asserts[0].id
}

// guard runs part of a rule (its context match, test or message) at n.
//
// What XPath treats as a dynamic error (text that is not a decimal or a boolean where the
// rule casts it) fails the part, as in the official rule: the value readers record it on
// the document (castFailed) and guard turns it into false. Everything else the rules check
// explicitly (a missing element, an element without the expected parent), so a panic is a
// bug of ours, never a verdict on the invoice: it is logged with its stack and answered as
// an internal error naming the rule, instead of a failed rule on a customer's invoice.
func guard(ctx context.Context, id, part string, n *N, f func(*N) bool) (ok bool, err error) {
	defer func() {
		if v := recover(); v != nil {
			slog.ErrorContext(ctx, "e-invoice rule panicked", "rule", id, "part", part, "element", n.XPath(), "line", n.Line, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			ok, err = false, fault.New(fault.Internal, "the validator failed on rule %s; this is a bug of ours, not a problem of the invoice", id).With("rule", id)
		}
	}()
	n.doc.dynamicError = false
	ok = f(n)
	if n.doc.dynamicError {
		n.doc.dynamicError = false
		return false, nil
	}
	return ok, nil
}

// XPath is the element's path with positions, e.g.
// /Invoice[1]/cac:InvoiceLine[2]/cbc:ID[1].
func (n *N) XPath() string {
	if n.xpath == "" { // built on the parent's, once per element: many rules report the same
		parent := ""
		if n.parent != nil {
			parent = n.parent.XPath()
		}
		n.xpath = parent + "/" + n.prefixed() + "[" + itoa(max(n.pos, 1)) + "]"
	}
	return n.xpath
}

func itoa(i int) string {
	if i < 10 {
		return string(rune('0' + i))
	}
	return itoa(i/10) + string(rune('0'+i%10))
}

// prefixed is the element's name with the conventional prefix of its namespace.
func (n *N) prefixed() string {
	if p := prefixOf()[n.Space]; p != "" {
		return p + ":" + n.Local
	}
	return n.Local
}

// prefixOf names the namespaces in locations; the document element goes unprefixed.
var prefixOf = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for p, uri := range prefixes {
		if p != "ubl" && p != "cn" {
			m[uri] = p
		}
	}
	return m
})

// canonicalNamespaces maps each namespace the rules know to the one string of it that
// compiled paths hold.
var canonicalNamespaces = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, uri := range prefixes {
		m[uri] = uri
	}
	return m
})
