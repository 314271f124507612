// Command codesgen writes codes_gen.go, the EN 16931 code lists package rules checks codes
// against (BR-CL-01 … BR-CL-26, BR-CO-09). It reads them from the official validation
// artefacts (CEN/TC 434), which hold no code list files of their own: each list is written
// into the test of the assertion that uses it, e.g. contains(' 71 80 … ', concat(' ',
// normalize-space(.), ' ')) for BR-CL-01, and the UBL BR-CL-08 and BR-CO-09 lists into the
// model binding's parameters. So the table below says which rule's list each variable is,
// the codes come out in the artefact's order, and a new release that changes a list, adds
// one or lets two rules' copies of a list drift apart stops the generator instead of
// passing unnoticed. Run by go generate in package rules.
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
	"slices"
	"strings"
)

// files are the artefacts' files with code lists, per syntax. Only the codelist files are
// all code lists; the model bindings hold just two (BR-CL-08 of UBL, BR-CO-09) among
// other tests, so only the codelist files are checked for lists no variable takes.
var files = []struct {
	syntax, path string
	codelist     bool
}{
	{"UBL", "ubl/schematron/codelist/EN16931-UBL-codes.sch", true},
	{"UBL", "ubl/schematron/UBL/EN16931-UBL-model.sch", false},
	{"CII", "cii/schematron/codelist/EN16931-CII-codes.sch", true},
	{"CII", "cii/schematron/CII/EN16931-CII-model.sch", false},
}

// ref names one code list of the artefacts.
type ref struct {
	syntax string // UBL or CII
	rule   string // the assertion's id or, in a model binding, the parameter's name
	nth    int    // which list of the test, from 0 in the order written: UBL BR-CL-01 has the invoice codes, then the credit note codes
	attr   string // the attribute the list tests (schemeID, currencyID, …); "" for the element's value
}

func (r ref) String() string { return fmt.Sprintf("%s %s list %d", r.syntax, r.rule, r.nth) }

func ubl(rule, attr string) ref { return ref{"UBL", rule, 0, attr} }
func cii(rule, attr string) ref { return ref{"CII", rule, 0, attr} }

// diff is a copy of a list that the artefacts give with other codes than the variable:
// added are the codes only the copy has, dropped those only the variable has. Spelled out
// so that the generator notices when a release changes the difference, or ends it.
type diff struct {
	at             ref
	added, dropped string
}

// lists are the variables of codes_gen.go, in the file's order.
var lists = []struct {
	name, comment string
	from          ref    // the rule the variable is named for: its codes, in its order
	same          []ref  // the other rules with the list: they must hold the same codes
	differ        []diff // the other rules with the list that differ, and how
}{
	{"eas", "CEF EAS electronic address schemes", ubl("BR-CL-25", "schemeID"),
		[]ref{cii("BR-CL-25", "schemeID")}, nil},
	{"icd", "ISO 6523 ICD identifier schemes", ubl("BR-CL-10", "schemeID"),
		[]ref{ubl("BR-CL-11", "schemeID"), ubl("BR-CL-21", "schemeID"), ubl("BR-CL-26", "schemeID"),
			cii("BR-CL-10", "schemeID"), cii("BR-CL-11", "schemeID"), cii("BR-CL-21", "schemeID"), cii("BR-CL-26", "schemeID")}, nil},
	// UBL's BR-CL-10 accepts SEPA beside the ICD codes, under the seller and the payee
	// only; CII's BR-CL-10 does not.
	{"icdSupplier", "schemes allowed only for the seller and payee (SEPA creditor id)", ref{"UBL", "BR-CL-10", 1, "schemeID"}, nil, nil},
	// The CII artefact's country lists lag behind UBL's: they still have AN (Netherlands
	// Antilles, withdrawn from ISO 3166 in 2010) and lack SS (South Sudan). Each syntax is
	// checked against its own list (iso3166CII, vatPrefixCII), as the official rules do.
	{"iso3166", "ISO 3166-1 alpha-2 country codes", ubl("BR-CL-14", ""),
		[]ref{ubl("BR-CL-15", "")},
		[]diff{{cii("BR-CL-14", ""), "AN", "SS"}, {cii("BR-CL-15", ""), "AN", "SS"}}},
	{"iso4217", "ISO 4217 currency codes", ubl("BR-CL-03", "currencyID"),
		[]ref{ubl("BR-CL-04", ""), ubl("BR-CL-05", ""), cii("BR-CL-03", "currencyID"), cii("BR-CL-04", ""), cii("BR-CL-05", "")}, nil},
	{"mime", "MIME types of attached documents (BT-125)", ubl("BR-CL-24", "mimeCode"),
		[]ref{cii("BR-CL-24", "mimeCode")}, nil},
	{"rec20", "UN/ECE Recommendation 20 (with Rec 21) unit codes", ubl("BR-CL-23", "unitCode"),
		[]ref{cii("BR-CL-23", "unitCode")}, nil},
	{"untdid1001Credit", "UNTDID 1001 credit note type codes (BT-3)", ref{"UBL", "BR-CL-01", 1, ""}, nil, nil},
	{"untdid1001Invoice", "UNTDID 1001 invoice type codes (BT-3)", ref{"UBL", "BR-CL-01", 0, ""}, nil, nil},
	{"untdid1153", "UNTDID 1153 reference qualifiers (BT-18 scheme)", ubl("BR-CL-07", "schemeID"),
		[]ref{cii("BR-CL-07", "")}, nil},
	{"untdid2005", "UNTDID 2005 subset: VAT point date codes (BT-8)", ubl("BR-CL-06", ""), nil, nil},
	{"untdid4451", "UNTDID 4451 text subject qualifiers", ubl("BR-CL-08", ""), nil, nil},
	{"untdid4461", "UNTDID 4461 payment means", ubl("BR-CL-16", ""),
		[]ref{cii("BR-CL-16", "")}, nil},
	{"untdid5305", "UNTDID 5305 subset: VAT category codes", ubl("BR-CL-17", ""),
		[]ref{ubl("BR-CL-18", ""), cii("BR-CL-17", ""), cii("BR-CL-18", "")}, nil},
	{"untdid7143", "UNTDID 7143 item classification schemes", ubl("BR-CL-13", "listID"),
		[]ref{cii("BR-CL-13", "listID")}, nil},
	// As with iso3166, CII's BR-CO-09 has AN and lacks SS.
	{"vatPrefix", "VAT identifier prefixes: ISO 3166-1 alpha-2 plus EL and 1A", ubl("BR-CO-09", ""), nil,
		[]diff{{cii("BR-CO-09", ""), "AN", "SS"}}},
	{"vatex", "VATEX exemption reason codes", ubl("BR-CL-22", ""),
		[]ref{cii("BR-CL-22", "")}, nil},
	{"untdid5189", "UNTDID 5189 allowance reason codes", ubl("BR-CL-19", ""),
		[]ref{cii("BR-CL-19", "")}, nil},
	{"untdid7161", "UNTDID 7161 charge reason codes", ubl("BR-CL-20", ""),
		[]ref{cii("BR-CL-20", "")}, nil},
	{"untdid1001CII", "UNTDID 1001 document type codes allowed in CII (BT-3)", cii("BR-CL-01", ""), nil, nil},
	{"untdid4451CII", "UNTDID 4451 text subject qualifiers as listed for CII notes", cii("BR-CL-08", ""), nil, nil},
	{"untdid2475", "UNTDID 2475 subset: VAT point date codes in CII (BT-8)", cii("BR-CL-06", ""), nil, nil},
	{"iso3166CII", "ISO 3166-1 alpha-2 country codes as CEN's CII binding lists them", cii("BR-CL-14", ""),
		[]ref{cii("BR-CL-15", "")}, nil},
	{"vatPrefixCII", "VAT identifier prefixes as CEN's CII binding lists them", cii("BR-CO-09", ""), nil, nil},
}

// list is one code list as a test writes it.
type list struct {
	codes   []string
	operand string // what the list is matched against, e.g. concat(' ', normalize-space(@schemeID), ' ')
	inCodes bool   // from a codelist file
}

// A test writes a list as the first argument of contains(), a string of codes between
// spaces; BR-CL-24 as a chain of comparisons, @mimeCode = '…' or @mimeCode = '…'.
var (
	containsList = regexp.MustCompile(`contains\(\s*'([^']*)'\s*,`)
	attrEquals   = regexp.MustCompile(`(@[\w-]+)\s*=\s*'([^']*)'`)
	attrName     = regexp.MustCompile(`@([\w-]+)`)
	release      = regexp.MustCompile(`^en16931-(\d+(?:\.\d+)+)$`)
)

func main() {
	dir := flag.String("artefacts", "", "the folder of the EN 16931 validation artefacts (en16931-VERSION)")
	out := flag.String("out", "codes_gen.go", "output file")
	flag.Parse()
	// The header names the release, and the release is the folder's name: moving to a new
	// one cannot leave a stale version in the header.
	m := release.FindStringSubmatch(filepath.Base(filepath.Clean(*dir)))
	if m == nil {
		log.Fatalf("-artefacts %q: want the folder of a release, named en16931-VERSION", *dir)
	}
	found := map[string]*list{} // by ref.String: where the list is, not what the table expects of it
	for _, f := range files {
		if err := read(found, f.syntax, filepath.Join(*dir, filepath.FromSlash(f.path)), f.codelist); err != nil {
			log.Fatal(err)
		}
	}

	var failed []string
	fail := func(format string, args ...any) { failed = append(failed, fmt.Sprintf(format, args...)) }
	taken := map[string]bool{}
	// get finds the list r names and checks it tests the attribute the table says, so that
	// a list moved between rules or occurrences is not taken for another.
	get := func(r ref) *list {
		taken[r.String()] = true
		l := found[r.String()]
		if l == nil {
			fail("%s: no such code list", r)
			return nil
		}
		attr := ""
		if a := attrName.FindStringSubmatch(l.operand); a != nil {
			attr = a[1]
		}
		if attr != r.attr {
			fail("%s: tests %q, the table expects attribute %q", r, l.operand, r.attr)
		}
		return l
	}

	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by internal/codesgen from the code lists of the EN 16931 validation artefacts %s (CEN/TC 434); DO NOT EDIT.\n", m[1])
	b.WriteString("// The lists are facts of the standard: which codes exist.\n\npackage rules\n\n// Code lists, by name.\nvar (\n")
	for _, v := range lists {
		l := get(v.from)
		if l == nil {
			continue
		}
		for _, r := range v.same {
			if o := get(r); o != nil {
				if added, dropped := compare(o.codes, l.codes); added != "" || dropped != "" {
					fail("%s differs from %s, the list of %s: added %q, dropped %q", r, v.from, v.name, added, dropped)
				}
			}
		}
		for _, d := range v.differ {
			if o := get(d.at); o != nil {
				if added, dropped := compare(o.codes, l.codes); added != d.added || dropped != d.dropped {
					fail("%s differs from %s, the list of %s, by added %q, dropped %q; the table expects added %q, dropped %q", d.at, v.from, v.name, added, dropped, d.added, d.dropped)
				}
			}
		}
		fmt.Fprintf(&b, "\t// %s (%d codes).\n\t%s = codeSet(`%s`)\n", v.comment, len(l.codes), v.name, strings.Join(l.codes, " "))
	}
	b.WriteString(")\n")
	// A list of the codelist files that no variable takes is a new rule or occurrence.
	for r, l := range found {
		if l.inCodes && !taken[r] {
			fail("%s (%d codes) is taken by no variable: add it to the table in internal/codesgen", r, len(l.codes))
		}
	}
	if len(failed) > 0 {
		slices.Sort(failed)
		log.Fatalf("the code lists of %s do not match the table:\n\t%s", *dir, strings.Join(failed, "\n\t"))
	}
	src, err := format.Source(b.Bytes())
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatal(err)
	}
}

// read adds the code lists of the asserts (by id) and params (by name) of one Schematron file.
func read(found map[string]*list, syntax, path string, codelist bool) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	d := xml.NewDecoder(f)
	d.CharsetReader = latin1 // the CII codelist file declares ISO-8859-1
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		var rule, test string
		switch el.Name.Local {
		case "assert":
			rule, test = attr(el, "id"), attr(el, "test")
		case "param":
			rule, test = attr(el, "name"), attr(el, "value")
		default:
			continue
		}
		ls, err := parse(test)
		if err != nil {
			return fmt.Errorf("%s: %s: %v", path, rule, err)
		}
		for i, l := range ls {
			r := ref{syntax: syntax, rule: rule, nth: i}.String()
			if found[r] != nil {
				return fmt.Errorf("%s: %s is written twice in the %s artefacts", path, r, syntax)
			}
			l.inCodes = codelist
			found[r] = l
		}
	}
}

// parse returns the code lists of one test, in the order written.
func parse(test string) ([]*list, error) {
	type at struct {
		pos int
		l   *list
	}
	var ls []at
	for _, m := range containsList.FindAllStringSubmatchIndex(test, -1) {
		operand, ok := argument(test[m[1]:])
		if !ok {
			return nil, fmt.Errorf("unbalanced contains() at %q", test[m[0]:])
		}
		ls = append(ls, at{m[0], &list{codes: strings.Fields(test[m[2]:m[3]]), operand: operand}})
	}
	// A chain of comparisons of one attribute joined by "or" is one list; a comparison
	// alone (@format = '102', @schemeID = 'SEPA') is a condition, not a list.
	var chain *list
	end := -1
	for _, m := range attrEquals.FindAllStringSubmatchIndex(test, -1) {
		a, code := test[m[2]:m[3]], test[m[4]:m[5]]
		if chain != nil && chain.operand == a && strings.TrimSpace(test[end:m[0]]) == "or" {
			chain.codes = append(chain.codes, code)
		} else {
			chain = &list{codes: []string{code}, operand: a}
			ls = append(ls, at{m[0], chain})
		}
		end = m[1]
	}
	slices.SortFunc(ls, func(x, y at) int { return x.pos - y.pos })
	var out []*list
	for _, x := range ls {
		if strings.HasPrefix(x.l.operand, "@") && len(x.l.codes) < 2 {
			continue
		}
		seen := map[string]bool{}
		for _, c := range x.l.codes {
			if seen[c] {
				// codeSet would drop the copy silently, and the count would be wrong.
				return nil, fmt.Errorf("code %s listed twice", c)
			}
			seen[c] = true
		}
		out = append(out, x.l)
	}
	return out, nil
}

// argument returns the rest of a function's arguments up to its closing parenthesis,
// with its spaces normalized, skipping parentheses inside quotes.
func argument(s string) (string, bool) {
	depth := 0
	var quote rune
	for i, c := range s {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				return strings.Join(strings.Fields(s[:i]), " "), true
			}
			depth--
		}
	}
	return "", false
}

// compare returns the codes only in other and those only in list, space separated.
func compare(other, list []string) (added, dropped string) {
	var a, d []string
	for _, c := range other {
		if !slices.Contains(list, c) {
			a = append(a, c)
		}
	}
	for _, c := range list {
		if !slices.Contains(other, c) {
			d = append(d, c)
		}
	}
	return strings.Join(a, " "), strings.Join(d, " ")
}

func attr(el xml.StartElement, name string) string {
	for _, a := range el.Attr {
		if a.Name.Space == "" && a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// latin1 decodes ISO-8859-1, whose bytes are the first 256 code points.
func latin1(label string, in io.Reader) (io.Reader, error) {
	if !strings.EqualFold(label, "ISO-8859-1") {
		return nil, fmt.Errorf("charset %s not supported", label)
	}
	raw, err := io.ReadAll(in)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, c := range raw {
		b.WriteRune(rune(c))
	}
	return strings.NewReader(b.String()), nil
}
