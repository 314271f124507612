// Command fxschgen writes the structure and code list rules of the Factur-X profile
// Schematron: the assertions numbered FX-SCH-A-… whose text carries no bracketed rule id
// ("Element 'ram:Name' must occur exactly 1 times.", "Value of '@schemeID' is not
// allowed."). They are the profile's own rules beside the EN 16931 ones: how often an
// element may occur where, which attributes it must have, and which codes each code
// element takes, from the profile's *_codedb.xml (the profiles check code lists by these,
// not by CEN's BR-CL rules). Package rules binds them by the official ids (facturx_codes.go)
// and declares each id once (declared.go). Factur-X 1.07.3 (-version 1.07) numbers none of
// its assertions: with -ids, each takes the id the 1.08 Schematron gives the same text,
// and a text 1.08 does not have takes our id (ownIDs) or, if it cannot fail, is left out.
//
// Each rule keeps its context and its place in its pattern: in Schematron an element meets
// only the first rule of a pattern whose context matches it, so a rule without assertions
// we bind (one that only reports elements as not used) is kept when a later rule with the
// same path could otherwise catch its elements. A test or context in a form the generator
// does not know stops it, so a new release cannot slip a rule past us. Run by go generate
// in package rules.
package main

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"go/format"
	"io"
	"log"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// profiles maps, per version, the profile names package rules uses to their Schematron.
var profiles = map[string][]struct{ name, file string }{
	"1.08": {
		{"MINIMUM", "0_Factur-X_1.08_MINIMUM/FACTUR-X_MINIMUM.sch"},
		{"BASICWL", "1_Factur-X_1.08_BASICWL/FACTUR-X_BASIC-WL.sch"},
		{"BASIC", "2_Factur-X_1.08_BASIC/FACTUR-X_BASIC.sch"},
		{"EN16931", "3_Factur-X_1.08_EN16931/FACTUR-X_EN16931.sch"},
		{"EXTENDED", "4_Factur-X_1.08_EXTENDED/FACTUR-X_EXTENDED.sch"},
	},
	"1.07": {
		{"MINIMUM", "0_Factur-X_1.07.3_MINIMUM/Factur-X_1.07.3_MINIMUM.sch"},
		{"BASICWL", "1_Factur-X_1.07.3_BASICWL/Factur-X_1.07.3_BASICWL.sch"},
		{"BASIC", "2_Factur-X_1.07.3_BASIC/Factur-X_1.07.3_BASIC.sch"},
		{"EN16931", "3_Factur-X_1.07.3_EN16931/Factur-X_1.07.3_EN16931.sch"},
		{"EXTENDED", "4_Factur-X_1.07.3_EXTENDED/Factur-X_1.07.3_EXTENDED.sch"},
	},
}

// names are the variable each version's table is written to, and its title.
var names = map[string]struct{ variable, title string }{
	"1.08": {"facturXSchematron108", "Factur-X 1.08 / ZUGFeRD 2.4"},
	"1.07": {"facturXSchematron107", "Factur-X 1.07.3 / ZUGFeRD 2.3.3"},
}

// The Schematron as read.
type schema struct {
	Patterns []struct {
		Rules []struct {
			Context string `xml:"context,attr"`
			Lets    []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:"value,attr"`
			} `xml:"let"`
			Asserts []struct {
				ID   string `xml:"id,attr"`
				Flag string `xml:"flag,attr"`
				Test string `xml:"test,attr"`
				Text string `xml:",chardata"`
			} `xml:"assert"`
		} `xml:"rule"`
	} `xml:"pattern"`
}

type codedb struct {
	Lists []struct {
		ID     int `xml:"id,attr"`
		Values []struct {
			Value string `xml:"value,attr"`
		} `xml:"enumeration"`
	} `xml:"cl"`
}

// The tests the generator knows, and the code lists' reference.
var (
	countRE = regexp.MustCompile(`^count\(([^()]+)\)(=|<=|>=)(\d+)$`)
	attrRE  = regexp.MustCompile(`^@([A-Za-z]+)$`)
	codeRE  = regexp.MustCompile(`^string-length\(\$(\w+)\)=0 or document\('([^']+)'\)/codedb/cl\[@id=(\d+)\]/enumeration\[@value=\$(\w+)\]$`)
	nameRE  = regexp.MustCompile(`^[a-z]+:[A-Za-z]+$`)
	// A predicate's comparison: a relative path (its last step may be an attribute) and a
	// quoted literal or another path.
	condRE = regexp.MustCompile(`^([a-z]+:[A-Za-z]+(?:/[a-z]+:[A-Za-z]+)*(?:/@[A-Za-z]+)?|@[A-Za-z]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|((?:\.\./|/)[A-Za-z:/.]+))$`)
	notRE  = regexp.MustCompile(`^not\((.*)\)$`)
)

// rule is one Schematron rule as written out.
type rule struct {
	context string
	path    string
	where   []where
	asserts []string // Go literals of the assertions
}

type where struct {
	step  int
	conds string // Go literal
}

// ownIDs are our ids for the assertions of a version without ids whose text no version
// with ids has (so no official id names them): each is declared in package rules.
var ownIDs = map[string]string{
	// 1.07.3 EXTENDED, a line's monetary summation; 1.08 allows two (one per currency).
	"Element 'ram:TaxTotalAmount' may occur at maximum 1 times.": "FX-SCH-107-01",
}

func main() {
	dir := flag.String("schemas", "", "the folder of the version's profile Schematron and code lists")
	version := flag.String("version", "1.08", "the Factur-X version")
	out := flag.String("out", "facturx_sch_gen.go", "output file")
	idsDir := flag.String("ids", "", "for a version whose assertions carry no ids (1.07.3): the folder of the 1.08 profile Schematron, whose id of the same text each takes")
	flag.Parse()
	v, ok := names[*version]
	if !ok {
		log.Fatalf("unknown version %q", *version)
	}
	byText := map[string]string{}
	if *idsDir != "" {
		byText = idsByText(*idsDir)
	}
	var lists []string // distinct code lists, each once
	listIndex := map[string]int{}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by internal/fxschgen from the %s profile Schematron and code lists (FNFE-MPE / FeRD); DO NOT EDIT.\n", v.title)
	b.WriteString("// The structure and code list rules (FX-SCH-A-… without a bracketed rule id) of each profile, in pattern order.\n\npackage rules\n\n")
	fmt.Fprintf(&b, "var %s = fxSchematron{\n\ttable: func() map[string][][]fxRule {\n\t\treturn map[string][][]fxRule{\n", v.variable)
	for _, p := range profiles[*version] {
		file := filepath.Join(*dir, filepath.FromSlash(p.file))
		var s schema
		read(file, &s)
		var db codedb
		read(strings.TrimSuffix(file, ".sch")+"_codedb.xml", &db)
		byID := map[int][]string{}
		for _, cl := range db.Lists {
			var vs []string
			for _, e := range cl.Values {
				if e.Value == "" || strings.ContainsAny(e.Value, " \t\n`") {
					log.Fatalf("%s: list %d: code %q cannot be written to a code set", p.file, cl.ID, e.Value)
				}
				vs = append(vs, e.Value)
			}
			byID[cl.ID] = vs
		}
		listOf := func(id int) int {
			vs, ok := byID[id]
			if !ok {
				log.Fatalf("%s: no code list %d", p.file, id)
			}
			key := strings.Join(vs, " ")
			if i, ok := listIndex[key]; ok {
				return i
			}
			lists = append(lists, key)
			listIndex[key] = len(lists) - 1
			return len(lists) - 1
		}
		fmt.Fprintf(&b, "\t\t%q: {\n", p.name)
		for pi, pat := range s.Patterns {
			var rules []rule
			bound := 0
			for _, r := range pat.Rules {
				lets := map[string]string{}
				for _, l := range r.Lets {
					lets[l.Name] = l.Value
				}
				x := rule{context: r.Context}
				for _, a := range r.Asserts {
					text := strings.TrimSpace(a.Text)
					if strings.HasPrefix(text, "[") {
						continue // a rule with an id of its own: bound by hand
					}
					if a.ID == "" && text != "" {
						// 1.07.3 numbers none of its assertions: each takes the id 1.08
						// gives the same text (1.08 gives each text one id, in every
						// profile), so a check is named alike in both versions.
						key := strings.Join(strings.Fields(text), " ")
						switch {
						case byText[key] != "":
							a.ID = byText[key]
						case vacuous(r.Context, a.Test):
							continue
						case ownIDs[key] != "":
							a.ID = ownIDs[key]
						default:
							log.Fatalf("%s: no id for the assertion %q (%s)", p.file, key, a.Test)
						}
					}
					if !strings.HasPrefix(a.ID, "FX-SCH-") {
						continue // a rule with an id of its own: bound by hand
					}
					if text == "" {
						// Three MINIMUM assertions without a message (a contact's person
						// and department, an allowance's indicator) test elements the
						// MINIMUM schema does not allow: only a schema-invalid document
						// could fail them, and FX-PROFILE rejects that already.
						continue
					}
					if a.Flag != "" {
						log.Fatalf("%s: %s has the flag %q", p.file, a.ID, a.Flag)
					}
					x.asserts = append(x.asserts, assertion(p.file, a.ID, a.Test, lets, listOf))
				}
				bound += len(x.asserts)
				rules = append(rules, x)
			}
			if bound == 0 {
				continue
			}
			for i := range rules {
				rules[i].path, rules[i].where = contextOf(p.file, rules[i].context)
			}
			fmt.Fprintf(&b, "\t\t\t// pattern %d of the Schematron\n\t\t\t{\n", pi+1)
			for i, r := range rules {
				if len(r.asserts) == 0 && !shadows(rules, i) {
					continue
				}
				fmt.Fprintf(&b, "\t\t\t\t{path: %q", r.path)
				if len(r.where) > 0 {
					b.WriteString(", where: []fxWhere{")
					for _, w := range r.where {
						fmt.Fprintf(&b, "{%d, %s}, ", w.step, w.conds)
					}
					b.WriteString("}")
				}
				if len(r.asserts) > 0 {
					fmt.Fprintf(&b, ", asserts: []fxAssert{%s}", strings.Join(r.asserts, ", "))
				}
				b.WriteString("},\n")
			}
			b.WriteString("\t\t\t},\n")
		}
		b.WriteString("\t\t},\n")
	}
	b.WriteString("\t\t}\n\t},\n\tlists: []string{\n")
	for _, l := range lists {
		fmt.Fprintf(&b, "\t\t`%s`,\n", l)
	}
	b.WriteString("\t},\n}\n")
	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// idsByText reads the ids of the structure and code list assertions of every profile
// Schematron of a version that numbers them, by their text (white space normalised); a
// text with two ids stops the generator, as the other version could not be named then.
func idsByText(dir string) map[string]string {
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.sch"))
	if len(files) == 0 {
		log.Fatalf("no Schematron in %s", dir)
	}
	out := map[string]string{}
	for _, f := range files {
		var s schema
		read(f, &s)
		for _, p := range s.Patterns {
			for _, r := range p.Rules {
				for _, a := range r.Asserts {
					text := strings.Join(strings.Fields(a.Text), " ")
					if a.ID == "" || text == "" || strings.HasPrefix(text, "[") {
						continue
					}
					if id, ok := out[text]; ok && id != a.ID {
						log.Fatalf("%s: %q is %s and %s", f, text, id, a.ID)
					}
					out[text] = a.ID
				}
			}
		}
	}
	return out
}

// vacuous tells whether an assertion cannot fail: it asks for an attribute that its rule's
// context already compares ("@currencyID" in ram:TaxTotalAmount[@currencyID=…]), and a
// comparison with an attribute that is not there is false.
func vacuous(ctx, test string) bool {
	m := attrRE.FindStringSubmatch(strings.TrimSpace(test))
	if m == nil {
		return false
	}
	steps := splitSteps(strings.TrimPrefix(strings.Join(strings.Fields(ctx), " "), "/"))
	last := steps[len(steps)-1]
	i := strings.Index(last, "[")
	if i < 0 {
		return false
	}
	for part := range strings.SplitSeq(strings.TrimSuffix(last[i+1:], "]"), " and ") {
		if c := condRE.FindStringSubmatch(strings.TrimSpace(part)); c != nil && c[1] == "@"+m[1] {
			return true
		}
	}
	return false
}

// shadows tells whether the rule at i, which has no assertion we bind, could take an
// element from a later rule that has: only rules with the same path can match the same
// element (every context is a path from the root).
func shadows(rules []rule, i int) bool {
	for _, r := range rules[i+1:] {
		if len(r.asserts) > 0 && r.path == rules[i].path {
			return true
		}
	}
	return false
}

func read(file string, v any) {
	f, err := os.Open(file)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	dec := xml.NewDecoder(f)
	dec.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	if err := dec.Decode(v); err != nil {
		log.Fatalf("%s: %v", file, err)
	}
}

// assertion writes one assertion's Go literal: an occurrence count of a child, a required
// attribute, or a code list.
func assertion(file, id, test string, lets map[string]string, listOf func(int) int) string {
	test = strings.Join(strings.Fields(test), " ")
	if m := countRE.FindStringSubmatch(test); m != nil {
		n, _ := strconv.Atoi(m[3])
		lo, hi := n, n
		switch m[2] {
		case "<=":
			lo = 0
		case ">=":
			hi = -1
		}
		child, conds := m[1], ""
		if i := strings.Index(child, "["); i > 0 && strings.HasSuffix(child, "]") {
			child, conds = child[:i], condsOf(file, child[i+1:len(child)-1])
		}
		if !nameRE.MatchString(child) {
			log.Fatalf("%s: %s: cannot count %q", file, id, child)
		}
		s := fmt.Sprintf("{id: %q, child: %q, max: %d", id, child, hi)
		if lo != 0 {
			s = fmt.Sprintf("{id: %q, child: %q, min: %d, max: %d", id, child, lo, hi)
		}
		if conds != "" {
			s += ", childWhere: " + conds
		}
		return s + "}"
	}
	if m := attrRE.FindStringSubmatch(test); m != nil {
		return fmt.Sprintf("{id: %q, attr: %q, required: true}", id, m[1])
	}
	if m := codeRE.FindStringSubmatch(test); m != nil {
		if m[1] != m[4] {
			log.Fatalf("%s: %s: two variables in %q", file, id, test)
		}
		value, ok := lets[m[1]]
		if !ok {
			log.Fatalf("%s: %s: $%s is not set", file, id, m[1])
		}
		cl, _ := strconv.Atoi(m[3])
		attr := ""
		switch {
		case value == ".":
		case attrRE.MatchString(value):
			attr = value[1:]
		default:
			log.Fatalf("%s: %s: code value %q", file, id, value)
		}
		if attr == "" {
			return fmt.Sprintf("{id: %q, list: %d}", id, listOf(cl)+1)
		}
		return fmt.Sprintf("{id: %q, attr: %q, list: %d}", id, attr, listOf(cl)+1)
	}
	log.Fatalf("%s: %s: a test of a form not known here: %s", file, id, test)
	return ""
}

// contextOf splits a rule context into its path without predicates and the predicates of
// its steps (counted from 0).
func contextOf(file, ctx string) (string, []where) {
	ctx = strings.Join(strings.Fields(ctx), " ")
	if !strings.HasPrefix(ctx, "/") || strings.HasPrefix(ctx, "//") {
		log.Fatalf("%s: a context not from the root: %s", file, ctx)
	}
	var steps []string
	var ws []where
	for i, step := range splitSteps(ctx[1:]) {
		name, pred := step, ""
		if j := strings.Index(step, "["); j >= 0 {
			if !strings.HasSuffix(step, "]") || strings.Count(step, "[") != 1 {
				log.Fatalf("%s: a step of a form not known here: %s", file, step)
			}
			name, pred = step[:j], step[j+1:len(step)-1]
		}
		if !nameRE.MatchString(name) {
			log.Fatalf("%s: a step of a form not known here: %s", file, step)
		}
		steps = append(steps, name)
		if pred != "" {
			ws = append(ws, where{i, condsOf(file, pred)})
		}
	}
	return "/" + strings.Join(steps, "/"), ws
}

// splitSteps splits a path at the slashes outside predicates and quotes.
func splitSteps(p string) []string {
	var out []string
	depth, quote, start := 0, byte(0), 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[':
			depth++
		case c == ']':
			depth--
		case c == '/' && depth == 0:
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return append(out, p[start:])
}

// condsOf writes a predicate as the Go literal of its comparisons, all of which must
// hold: "a = 'x'", "not(a = 'x') and not(a = 'y')", "@currencyID = ../../ram:TaxCurrencyCode".
func condsOf(file, pred string) string {
	var out []string
	for part := range strings.SplitSeq(strings.TrimSpace(pred), " and ") {
		part = strings.TrimSpace(part)
		neg := false
		if m := notRE.FindStringSubmatch(part); m != nil {
			neg, part = true, strings.TrimSpace(m[1])
		}
		m := condRE.FindStringSubmatch(part)
		if m == nil {
			log.Fatalf("%s: a predicate of a form not known here: %s", file, pred)
		}
		right, isPath := m[2]+m[3], false
		if m[4] != "" {
			right, isPath = m[4], true
		}
		c := fmt.Sprintf("left: %q, right: %q", m[1], right)
		if isPath {
			c += ", rightPath: true"
		}
		if neg {
			c = "not: true, " + c
		}
		out = append(out, "{"+c+"}")
	}
	return "[]fxCond{" + strings.Join(out, ", ") + "}"
}
