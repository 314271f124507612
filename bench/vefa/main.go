// Command vefa runs unit tests in the VEFA validator's format (the format of CEN's EN 16931
// unit tests and of OpenPEPPOL's Peppol BIS Billing 3.0 unit tests): each <test> names rule
// ids that must fail as an error, fail as a warning, or pass on its document fragment. It
// judges each fragment with our validator under the rule set given and prints how many
// tests match, and the mismatches by rule id. For artefacts we may not redistribute (the
// Peppol rules): point it at a checkout.
//
//	go run ./bench/vefa -rule-set peppol-bis-3.0 [-v] DIR|FILE...
//
// e.g. DIR = rules/unit-UBL-PEPPOL of a checkout of OpenPEPPOL/peppol-bis-invoice-3.
package main

import (
	"context"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/papierkram/papierkram/einvoice/rules"
)

const vefaNS = "http://difi.no/xsd/vefa/validator/1.0"

func main() {
	ruleSet := flag.String("rule-set", "auto", "the rule set to judge by (rules.RuleSets ids)")
	verbose := flag.Bool("v", false, "print every mismatch")
	flag.Parse()
	var files []string
	for _, a := range flag.Args() {
		st, err := os.Stat(a)
		if err != nil {
			fatal(err)
		}
		if !st.IsDir() {
			files = append(files, a)
			continue
		}
		m, _ := filepath.Glob(filepath.Join(a, "*.xml"))
		files = append(files, m...)
	}
	if len(files) == 0 {
		fatal(fmt.Errorf("no test files"))
	}
	total, matched := 0, 0
	byRule := map[string]int{}
	for _, f := range files {
		tests, err := readTests(f)
		if err != nil {
			fatal(fmt.Errorf("%s: %w", f, err))
		}
		for i, t := range tests {
			total++
			r, err := rules.ValidateWith(context.Background(), t.doc, rules.Options{RuleSet: *ruleSet})
			if err != nil {
				byRule["(error)"]++
				if *verbose {
					fmt.Printf("%s test %d: %v\n", filepath.Base(f), i+1, err)
				}
				continue
			}
			failed := map[string]rules.Severity{}
			for _, x := range r.Failed() {
				failed[x.ID] = x.Severity
			}
			var problems []string
			for _, id := range t.success {
				if _, bad := failed[id]; bad {
					problems = append(problems, id+" failed but should pass")
					byRule[id]++
				}
			}
			for _, id := range t.errors {
				if failed[id] != rules.Fatal {
					problems = append(problems, fmt.Sprintf("%s should fail as fatal (got %q)", id, failed[id]))
					byRule[id]++
				}
			}
			for _, id := range t.warnings {
				if failed[id] != rules.Warning {
					problems = append(problems, fmt.Sprintf("%s should fail as warning (got %q)", id, failed[id]))
					byRule[id]++
				}
			}
			if len(problems) == 0 {
				matched++
				continue
			}
			if *verbose {
				fmt.Printf("%s test %d (%s): %s\n", filepath.Base(f), i+1, t.description, strings.Join(problems, "; "))
			}
		}
	}
	var ids []string
	for id := range byRule {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	fmt.Printf("%d of %d tests match (%.1f %%)\n", matched, total, 100*float64(matched)/float64(total))
	for _, id := range ids {
		fmt.Printf("  %-28s %d\n", id, byRule[id])
	}
}

type test struct {
	description               string
	success, errors, warnings []string
	doc                       []byte
}

// readTests reads the tests of one file; each test's document is re-serialised from the
// tokens as they come, so namespaces declared on the testSet carry over.
func readTests(file string) ([]test, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []test
	var raw struct {
		Tests []struct {
			Inner []byte `xml:",innerxml"`
		} `xml:"test"`
	}
	if err := xml.NewDecoder(f).Decode(&raw); err != nil {
		return nil, err
	}
	for _, r := range raw.Tests {
		var t test
		d := xml.NewDecoder(strings.NewReader("<t xmlns:v=\"" + vefaNS + "\">" + string(r.Inner) + "</t>"))
		var docStart int64 = -1
		depth := 0
		var assertDepth int
		for {
			off := d.InputOffset()
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				return nil, err
			}
			switch x := tok.(type) {
			case xml.StartElement:
				depth++
				if depth == 2 {
					if x.Name.Space == vefaNS && x.Name.Local == "assert" || x.Name.Local == "assert" && x.Name.Space == "" {
						assertDepth = 2
					} else if docStart < 0 {
						docStart = off
					}
				}
				if assertDepth == 2 && depth == 3 {
					var s string
					d.DecodeElement(&s, &x)
					depth--
					s = strings.TrimSpace(s)
					switch x.Name.Local {
					case "success":
						t.success = append(t.success, s)
					case "error":
						t.errors = append(t.errors, s)
					case "warning":
						t.warnings = append(t.warnings, s)
					case "description":
						t.description = s
					}
				}
			case xml.EndElement:
				if depth == 2 && assertDepth == 2 {
					assertDepth = 0
				} else if depth == 2 && docStart >= 0 && t.doc == nil {
					end := d.InputOffset()
					t.doc = []byte(("<t xmlns:v=\"" + vefaNS + "\">" + string(r.Inner))[docStart:end])
				}
				depth--
			}
		}
		if t.doc == nil {
			return nil, fmt.Errorf("a test without a document")
		}
		out = append(out, t)
	}
	return out, nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "vefa:", err)
	os.Exit(1)
}
