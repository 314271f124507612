// Command einvoicediff judges e-invoices with our validator and with the official
// Schematron, and prints where the two disagree: the verdict (valid = no fatal rule failed)
// and the set of failed fatal rule ids, per file and per rule id. The official rules run as
// compiled XSLT in Saxon-HE (Debian's libsaxonhe-java), here in the harness only, never in
// the product. With -mutants N, each officially valid input also yields N mutants (an
// element deleted or duplicated, an amount changed by a cent, a code changed, a text
// emptied, a date or currency changed), judged the same way.
//
//	go run ./bench/einvoicediff -en16931 EN16931-REPO -xrechnung XRECHNUNG-REPO -schxslt SCHXSLT-REPO [-mutants 20] FILE|DIR...
//
// EN16931-REPO is a checkout of ConnectingEurope/eInvoicing-EN16931 (its ubl/xslt and
// cii/xslt), XRECHNUNG-REPO one of itplr-kosit/xrechnung-schematron (src/validation/
// schematron), SCHXSLT-REPO one of schxslt/schxslt (compiles .sch to XSLT). Factur-X 1.08
// profile files are judged by the profile Schematron in ../shared/corpus/schemas.
package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/einvoice/syntax"
)

var (
	saxon     = flag.String("saxon", "/usr/share/java/Saxon-HE.jar", "Saxon-HE jar")
	en16931   = flag.String("en16931", "", "checkout of ConnectingEurope/eInvoicing-EN16931")
	xrechnung = flag.String("xrechnung", "", "checkout of itplr-kosit/xrechnung-schematron")
	schxslt   = flag.String("schxslt", "", "checkout of schxslt/schxslt")
	facturx   = flag.String("facturx", filepath.Join("..", "shared", "corpus", "schemas", "factur-x-1.08"), "Factur-X 1.08 profile schemas and Schematron")
	mutants   = flag.Int("mutants", 0, "mutants per officially valid input")
	seed      = flag.Uint64("seed", 1, "mutation seed")
	verbose   = flag.Bool("v", false, "print every disagreeing file")
)

// scenarioLevels are the rules whose severity KoSIT's XRechnung scenarios change (its
// validator configuration; our reports name them in each result's scenario): a
// disagreement on them alone is reported apart. The extension and CVD scenarios lower
// the CEN code list and total rules their own rules replace.
var scenarioLevels = map[string]bool{"CII-SR-452": true, "CII-SR-453": true, "CII-SR-454": true, "UBL-CR-646": true, "UBL-CR-470": true,
	"BR-CL-21": true, "BR-CL-23": true, "BR-CL-10": true, "BR-CL-11": true, "BR-CL-24": true, "BR-CL-25": true, "BR-CL-26": true, "BR-CO-16": true, "BR-CL-13": true}

// doc is one input, with what each side said of it.
type doc struct {
	name     string
	data     []byte
	sets     []string // official rule sets that judge it
	official map[string]bool
	ours     map[string]bool
	offOK    bool
	mutant   bool
	unjudged bool   // an official stylesheet failed on it
	schema   string // the XSD that judges it
	schemaOK bool   // valid against it (xmllint): only then do the rule ids count
	ourValid bool   // our report's verdict, schema checks included
}

func main() {
	flag.Parse()
	if *en16931 == "" || *schxslt == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: einvoicediff -en16931 DIR -xrechnung DIR -schxslt DIR [-mutants N] FILE|DIR...")
		os.Exit(2)
	}
	work, err := os.MkdirTemp("", "einvoicediff-")
	check(err)
	defer os.RemoveAll(work)
	sets := officialSets(work)

	var docs []*doc
	for _, arg := range flag.Args() {
		filepath.WalkDir(arg, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.EqualFold(filepath.Ext(p), ".xml") {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			if x := newDoc(p, b); x != nil {
				docs = append(docs, x)
			}
			return nil
		})
	}
	fmt.Printf("%d documents with an official rule set\n", len(docs))
	judge(work, sets, docs)
	report("official files", docs)

	if *mutants > 0 {
		var ms []*doc
		r := rand.New(rand.NewPCG(*seed, 42))
		for _, d := range docs {
			if !d.offOK {
				continue
			}
			for i := range *mutants {
				b, what := mutate(r, d.data)
				if b == nil {
					continue
				}
				if m := newDoc(fmt.Sprintf("%s~%d %s", d.name, i, what), b); m != nil && slices.Equal(m.sets, d.sets) {
					m.mutant = true
					ms = append(ms, m)
				}
			}
		}
		judge(work, sets, ms)
		report("mutants", ms)
	}
}

// newDoc finds the official rule sets for an invoice by its syntax and specification
// (BT-24); nil for what no official set judges here.
func newDoc(name string, b []byte) *doc {
	in, err := syntax.Detect(context.Background(), b)
	if err != nil {
		return nil
	}
	d := &doc{name: name, data: b}
	p := einvoice.ProfileOf(in.Guideline)
	schemas := filepath.Join("..", "shared", "corpus", "schemas")
	switch {
	case in.Syntax == syntax.UBL && in.DocumentType == "CreditNote":
		d.schema = filepath.Join(schemas, "ubl-2.1", "maindoc", "UBL-CreditNote-2.1.xsd")
	case in.Syntax == syntax.UBL:
		d.schema = filepath.Join(schemas, "ubl-2.1", "maindoc", "UBL-Invoice-2.1.xsd")
	case p == einvoice.Minimum || p == einvoice.BasicWL || p == einvoice.Basic || p == einvoice.EN16931 || p == einvoice.Extended:
		dir := map[einvoice.Profile]string{einvoice.Minimum: "0_Factur-X_1.08_MINIMUM/FACTUR-X_MINIMUM.xsd", einvoice.BasicWL: "1_Factur-X_1.08_BASICWL/FACTUR-X_BASIC-WL.xsd",
			einvoice.Basic: "2_Factur-X_1.08_BASIC/FACTUR-X_BASIC.xsd", einvoice.EN16931: "3_Factur-X_1.08_EN16931/FACTUR-X_EN16931.xsd", einvoice.Extended: "4_Factur-X_1.08_EXTENDED/FACTUR-X_EXTENDED.xsd"}[p]
		d.schema = filepath.Join(*facturx, filepath.FromSlash(dir))
	default:
		d.schema = filepath.Join(schemas, "cii-d16b", "CII", "uncefact", "data", "standard", "CrossIndustryInvoice_100pD16B.xsd")
	}
	switch {
	case in.Syntax == syntax.UBL:
		d.sets = []string{"EN16931-UBL"}
		if p == einvoice.XRechnung {
			d.sets = append(d.sets, "XRechnung-UBL")
		}
	case p == einvoice.XRechnung:
		d.sets = []string{"EN16931-CII", "XRechnung-CII"}
	case p == einvoice.EN16931:
		// urn:cen.eu:en16931:2017 is EN 16931 itself and Factur-X's EN 16931 profile: both
		// official sets judge it.
		d.sets = []string{"EN16931-CII", "FX-" + string(p)}
	case p == einvoice.Minimum || p == einvoice.BasicWL || p == einvoice.Basic || p == einvoice.Extended:
		d.sets = []string{"FX-" + string(p)}
	default:
		d.sets = []string{"EN16931-CII"}
	}
	return d
}

// officialSets compiles what needs compiling and returns each set's XSLT by name.
func officialSets(work string) map[string]string {
	sets := map[string]string{
		"EN16931-UBL": filepath.Join(*en16931, "ubl", "xslt", "EN16931-UBL-validation.xslt"),
		"EN16931-CII": filepath.Join(*en16931, "cii", "xslt", "EN16931-CII-validation.xslt"),
	}
	compile := func(name, sch string) {
		out := filepath.Join(work, name+".xsl")
		// Code lists the Schematron reads with document() beside itself go beside the
		// compiled stylesheet.
		extra, _ := filepath.Glob(filepath.Join(filepath.Dir(sch), "*codedb.xml"))
		for _, f := range extra {
			b, err := os.ReadFile(f)
			check(err)
			check(os.WriteFile(filepath.Join(work, filepath.Base(f)), b, 0o644))
		}
		run("-xsl:"+filepath.Join(*schxslt, "core", "src", "main", "resources", "xslt", "2.0", "compile-for-svrl.xsl"), "-s:"+sch, "-o:"+out)
		sets[name] = out
	}
	if *xrechnung != "" {
		dir := filepath.Join(*xrechnung, "src", "validation", "schematron")
		common, err := os.ReadFile(filepath.Join(dir, "common.sch"))
		check(err)
		for _, sx := range []string{"ubl", "cii"} {
			name := "XRechnung-" + strings.ToUpper(sx)
			compile(name, inlineCommon(work, filepath.Join(dir, sx, name+"-validation.sch"), common))
		}
	}
	for p, dir := range map[einvoice.Profile]string{einvoice.Minimum: "0_Factur-X_1.08_MINIMUM/FACTUR-X_MINIMUM.sch", einvoice.BasicWL: "1_Factur-X_1.08_BASICWL/FACTUR-X_BASIC-WL.sch",
		einvoice.Basic: "2_Factur-X_1.08_BASIC/FACTUR-X_BASIC.sch", einvoice.EN16931: "3_Factur-X_1.08_EN16931/FACTUR-X_EN16931.sch", einvoice.Extended: "4_Factur-X_1.08_EXTENDED/FACTUR-X_EXTENDED.sch"} {
		compile("FX-"+string(p), filepath.Join(*facturx, filepath.FromSlash(dir)))
	}
	return sets
}

// letRE finds the variable declarations of KoSIT's common.sch.
var letRE = regexp.MustCompile(`(?s)<let\s[^>]*/>`)

// inlineCommon writes a copy of an XRechnung Schematron whose include of common.sch is
// replaced by that file's variables, declared on the schema: KoSIT's build makes them
// global, SchXslt keeps a pattern's variables to the pattern.
func inlineCommon(work, sch string, common []byte) string {
	b, err := os.ReadFile(sch)
	check(err)
	lets := strings.Join(letRE.FindAllString(string(common), -1), "\n")
	s := regexp.MustCompile(`<include href="\.\./common\.sch"\s*/>`).ReplaceAllString(string(b), "")
	s = regexp.MustCompile(`<active pattern="variable-pattern"\s*/>`).ReplaceAllString(s, "")
	i := strings.Index(s, "<phase")
	if i < 0 {
		i = strings.Index(s, "<pattern")
	}
	check(map[bool]error{true: fmt.Errorf("%s: no place for the variables", sch)}[i < 0])
	out := filepath.Join(work, filepath.Base(sch))
	check(os.WriteFile(out, []byte(s[:i]+lets+"\n"+s[i:]), 0o644))
	return out
}

// judge runs our validator and every official set over docs; Saxon reads a whole folder
// per set, so the stylesheet compiles once per set.
func judge(work string, sets map[string]string, docs []*doc) {
	bySet := map[string][]*doc{}
	for _, d := range docs {
		d.official = map[string]bool{}
		r, err := rules.Validate(context.Background(), d.data)
		d.ours = map[string]bool{}
		d.ourValid = err == nil
		if err != nil {
			d.ours["(not read: "+err.Error()+")"] = true
		} else {
			for _, f := range r.Failed() {
				if f.Severity != rules.Fatal || strings.HasPrefix(f.ID, "PEPPOL-") {
					continue // the verdict is on what both sides check
				}
				d.ourValid = false
				fx := slices.ContainsFunc(d.sets, func(s string) bool { return strings.HasPrefix(s, "FX-") })
				cen := slices.ContainsFunc(d.sets, func(s string) bool { return !strings.HasPrefix(s, "FX-") })
				if strings.HasPrefix(f.ID, "BR-CL-") && fx {
					d.ours[codeListFailure] = true // as Factur-X reports it
					if !cen {
						continue
					}
				}
				if compared(f.ID) {
					d.ours[f.ID] = true
				}
			}
		}
		for _, s := range d.sets {
			bySet[s] = append(bySet[s], d)
		}
	}
	for set, ds := range bySet {
		in, out := filepath.Join(work, set+"-in"), filepath.Join(work, set+"-out")
		os.RemoveAll(in)
		os.RemoveAll(out)
		check(os.MkdirAll(in, 0o755))
		check(os.MkdirAll(out, 0o755))
		for i, d := range ds {
			check(os.WriteFile(filepath.Join(in, fmt.Sprintf("%06d.xml", i)), d.data, 0o644))
		}
		start := time.Now()
		// A document the official stylesheet fails on (a type error on a duplicated
		// element) gets no report: it is counted apart, not compared.
		runLenient("-xsl:"+sets[set], "-s:"+in, "-o:"+out)
		fmt.Fprintf(os.Stderr, "%s: %d documents in %s\n", set, len(ds), time.Since(start).Round(time.Millisecond))
		for i, d := range ds {
			svrl, err := os.ReadFile(filepath.Join(out, fmt.Sprintf("%06d.xml", i)))
			if err != nil {
				d.unjudged = true
				continue
			}
			for _, id := range failedFatal(svrl) {
				if strings.HasPrefix(id, "FX-SCH-") {
					id = codeListFailure // Factur-X's code list checks carry no rule id
				}
				if compared(id) {
					d.official[id] = true
				}
			}
		}
	}
	schemaCheck(work, docs)
	for _, d := range docs {
		d.offOK = d.schemaOK && len(d.official) == 0
	}
}

// schemaCheck validates every document against its XSD with xmllint, one run per schema:
// the official validators judge the Schematron only of a schema-valid document.
func schemaCheck(work string, docs []*doc) {
	by := map[string][]*doc{}
	for _, d := range docs {
		by[d.schema] = append(by[d.schema], d)
	}
	for xsd, ds := range by {
		dir, err := os.MkdirTemp(work, "xsd-")
		check(err)
		var files []string
		for i, d := range ds {
			f := filepath.Join(dir, fmt.Sprintf("%06d.xml", i))
			check(os.WriteFile(f, d.data, 0o644))
			files = append(files, f)
		}
		for start := 0; start < len(files); start += 500 {
			batch := files[start:min(start+500, len(files))]
			out, _ := exec.Command("xmllint", append([]string{"--noout", "--schema", xsd}, batch...)...).CombinedOutput()
			for j, f := range batch {
				ds[start+j].schemaOK = bytes.Contains(out, []byte(f+" validates"))
			}
		}
		os.RemoveAll(dir)
	}
}

// codeListFailure stands for the code list checks of a Factur-X profile, which number
// their assertions FX-SCH-… without a rule id; ours are BR-CL-… for the same lists.
const codeListFailure = "(Factur-X code list)"

// compared says whether a rule id takes part in the comparison: not our schema checks
// (the Schematron has none), not the Peppol rules KoSIT merges into its XRechnung release
// (that merge is not rebuilt here).
func compared(id string) bool {
	return !strings.Contains(id, "-XSD") && !strings.HasPrefix(id, "PEPPOL-")
}

// failedFatal reads an SVRL report's failed assertions whose flag (or role) is fatal or
// error, or missing: an assertion without one is an error (the Factur-X profile
// Schematron sets none). Factur-X numbers its assertions FX-SCH-…; the rule id is the
// bracketed one its text starts with.
func failedFatal(svrl []byte) []string {
	var ids []string
	dec := xml.NewDecoder(bytes.NewReader(svrl))
	var (
		in        bool
		id, level string
		text      strings.Builder
	)
	for {
		t, err := dec.Token()
		if err != nil {
			return ids
		}
		switch t := t.(type) {
		case xml.StartElement:
			if t.Name.Local != "failed-assert" {
				continue
			}
			in, id, level = true, "", ""
			text.Reset()
			for _, a := range t.Attr {
				switch a.Name.Local {
				case "id":
					id = a.Value
				case "flag", "role":
					if level == "" || a.Name.Local == "flag" {
						level = strings.ToLower(a.Value)
					}
				}
			}
		case xml.CharData:
			if in {
				text.Write(t)
			}
		case xml.EndElement:
			if !in || t.Name.Local != "failed-assert" {
				continue
			}
			in = false
			if m := bracketID.FindStringSubmatch(text.String()); m != nil && (id == "" || strings.HasPrefix(id, "FX-SCH-")) {
				id = m[1]
			}
			if level == "" || level == "fatal" || level == "error" {
				ids = append(ids, id)
			}
		}
	}
}

// bracketID is the rule id a Factur-X assertion's text starts with: "[BR-FXEXT-CO-10]-…".
var bracketID = regexp.MustCompile(`^\s*\[([A-Z][A-Z0-9-]+)\]`)

// report prints verdict and fatal-id agreement and the rule ids where the two differ.
func report(title string, docs []*doc) {
	if len(docs) == 0 {
		return
	}
	verdict, ids, scenario, unjudged := 0, 0, 0, 0
	missed, extra := map[string]int{}, map[string]int{}
	var judged []*doc
	for _, d := range docs {
		if d.unjudged {
			unjudged++
		} else {
			judged = append(judged, d)
		}
	}
	schemaInvalid := 0
	for _, d := range judged {
		if d.ourValid == d.offOK {
			verdict++
		} else if *verbose {
			fmt.Printf("  %s: verdict ours %v, official %v (schema-valid %v)\n", d.name, d.ourValid, d.offOK, d.schemaOK)
		}
		if !d.schemaOK {
			schemaInvalid++
			continue // the rule ids of a schema-invalid document are not compared
		}
		var onlyOff, onlyOurs []string
		for id := range d.official {
			if !d.ours[id] {
				onlyOff = append(onlyOff, id)
			}
		}
		for id := range d.ours {
			if !d.official[id] {
				onlyOurs = append(onlyOurs, id)
			}
		}
		if len(onlyOff)+len(onlyOurs) == 0 {
			ids++
			continue
		}
		if all(onlyOff, scenarioLevels) && all(onlyOurs, scenarioLevels) {
			scenario++
		}
		for _, id := range onlyOff {
			missed[id]++
		}
		for _, id := range onlyOurs {
			extra[id]++
		}
		if *verbose {
			sort.Strings(onlyOff)
			sort.Strings(onlyOurs)
			fmt.Printf("  %s: official only %v, ours only %v\n", d.name, onlyOff, onlyOurs)
		}
	}
	n := len(judged)
	if n == 0 {
		return
	}
	valid := n - schemaInvalid
	fmt.Printf("\n%s: %d judged (%d more the official stylesheets failed on), %d of them schema-invalid\n  same verdict %d (%.2f %%)\n  schema-valid: same fatal rule ids %d of %d (%.2f %%); differing only in KoSIT scenario levels %d\n",
		title, n, unjudged, schemaInvalid, verdict, 100*float64(verdict)/float64(n), ids, valid, 100*float64(ids)/float64(max(valid, 1)), scenario)
	for _, side := range []struct {
		what string
		m    map[string]int
	}{{"failed officially, not by us", missed}, {"failed by us, not officially", extra}} {
		if len(side.m) == 0 {
			continue
		}
		fmt.Printf("  %s:\n", side.what)
		keys := make([]string, 0, len(side.m))
		for k := range side.m {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return side.m[keys[i]] > side.m[keys[j]] || side.m[keys[i]] == side.m[keys[j]] && keys[i] < keys[j]
		})
		for _, k := range keys {
			mark := ""
			if scenarioLevels[k] {
				mark = " (KoSIT scenario level)"
			}
			fmt.Printf("    %-28s %5d%s\n", k, side.m[k], mark)
		}
	}
}

func all(ids []string, in map[string]bool) bool {
	for _, id := range ids {
		if !in[id] {
			return false
		}
	}
	return true
}

var (
	leafRE   = regexp.MustCompile(`<([A-Za-z]+:[A-Za-z]+)(\s[^>]*)?>([^<]*)</([A-Za-z]+:[A-Za-z]+)>`)
	amountRE = regexp.MustCompile(`^-?\d+\.\d{2}$`)
	dateRE   = regexp.MustCompile(`^\d{4}-?\d{2}-?\d{2}$`)
	codeRE   = regexp.MustCompile(`^[A-Z0-9]{1,4}$`)
)

// mutate changes one leaf element of the document: deleted, duplicated, an amount by a
// cent, a code, a date, a currency, or its text emptied. nil when the kind drawn has no
// element to work on.
func mutate(r *rand.Rand, b []byte) ([]byte, string) {
	leaves := leafRE.FindAllSubmatchIndex(b, -1)
	if len(leaves) == 0 {
		return nil, ""
	}
	kinds := []string{"delete", "duplicate", "cent", "code", "date", "currency", "empty"}
	kind := kinds[r.IntN(len(kinds))]
	var pick [][]int
	for _, m := range leaves {
		if string(b[m[2]:m[3]]) != string(b[m[8]:m[9]]) {
			continue
		}
		text := strings.TrimSpace(string(b[m[6]:m[7]]))
		ok := true
		switch kind {
		case "cent":
			ok = amountRE.MatchString(text)
		case "code":
			ok = codeRE.MatchString(text) && !amountRE.MatchString(text)
		case "date":
			ok = dateRE.MatchString(text)
		case "currency":
			ok = len(text) == 3 && strings.ToUpper(text) == text && strings.Contains(string(b[m[2]:m[3]]), "Currency")
		case "empty":
			ok = text != ""
		}
		if ok {
			pick = append(pick, m)
		}
	}
	if len(pick) == 0 {
		return nil, ""
	}
	m := pick[r.IntN(len(pick))]
	el, text := string(b[m[2]:m[3]]), string(b[m[6]:m[7]])
	var repl string
	switch kind {
	case "delete":
		repl = ""
	case "duplicate":
		repl = string(b[m[0]:m[1]]) + string(b[m[0]:m[1]])
	default:
		nt := text
		switch kind {
		case "cent":
			nt = addCent(strings.TrimSpace(text))
		case "code":
			nt = []string{"S", "Z", "E", "AE", "K", "G", "O", "L", "M", "380", "381", "58", "30", "ZZZ", "XX"}[r.IntN(15)]
		case "date":
			nt = []string{"2030-12-31", "1999-01-01", "20240230", "2024-02-30"}[r.IntN(4)]
		case "currency":
			nt = []string{"USD", "CHF", "XXX", "EUR"}[r.IntN(4)]
		case "empty":
			nt = ""
		}
		if nt == text {
			return nil, ""
		}
		repl = string(b[m[0]:m[6]]) + nt + string(b[m[7]:m[1]])
	}
	out := append(append(bytes.Clone(b[:m[0]]), repl...), b[m[1]:]...)
	return out, fmt.Sprintf("%s %s", kind, el)
}

// addCent adds 0.01 to a decimal with two places.
func addCent(s string) string {
	neg := strings.HasPrefix(s, "-")
	digits := strings.ReplaceAll(strings.TrimPrefix(s, "-"), ".", "")
	n := 0
	for _, c := range digits {
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	n++
	sign := ""
	if n < 0 {
		sign, n = "-", -n
	}
	return fmt.Sprintf("%s%d.%02d", sign, n/100, n%100)
}

// runLenient runs Saxon over a folder and lets some documents fail (their reports are
// missing); a failure to compile still ends the harness.
func runLenient(args ...string) {
	cmd := exec.Command("java", append([]string{"-Xss8m", "-jar", *saxon}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil && !regexp.MustCompile(`\d+ transformations? failed`).Match(out) {
		fmt.Fprintf(os.Stderr, "saxon %s: %v\n%s\n", strings.Join(args, " "), err, lastLines(string(out), 15))
		os.Exit(1)
	}
}

// run runs Saxon with args; its failure ends the harness with its output.
func run(args ...string) {
	cmd := exec.Command("java", append([]string{"-Xss8m", "-jar", *saxon}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "saxon %s: %v\n%s\n", strings.Join(args, " "), err, lastLines(string(out), 15))
		os.Exit(1)
	}
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "einvoicediff:", err)
		os.Exit(1)
	}
}
