package rules

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
)

const vefaNS = "http://difi.no/xsd/vefa/validator/1.0"

// TestVEFA runs the official unit tests of EN 16931 for UBL: each test names rules that
// must fail (as error or warning) or pass on its fragment.
func TestVEFA(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/corpus/en16931/unit-ubl-*/*.xml")
	if len(files) == 0 {
		t.Fatal("no VEFA unit tests found in ../shared/corpus/en16931")
	}
	total, matched := 0, 0
	failedBy := map[string]int{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		set, err := xmlc.Parse(context.Background(), data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for i, test := range set.Kids {
			if test.Local != "test" {
				continue
			}
			total++
			var want struct{ success, errors, warnings []string }
			var doc *xmlc.Node
			for _, k := range test.Kids {
				if k.Space == vefaNS && k.Local == "assert" {
					for _, e := range k.Kids {
						switch e.Local {
						case "success":
							want.success = append(want.success, strings.TrimSpace(e.Text))
						case "error":
							want.errors = append(want.errors, strings.TrimSpace(e.Text))
						case "warning":
							want.warnings = append(want.warnings, strings.TrimSpace(e.Text))
						}
					}
				} else if k.Space != vefaNS {
					doc = k
				}
			}
			if doc == nil {
				t.Fatalf("%s test %d: no document", f, i)
			}
			results, err := run(context.Background(), newDocument(doc, prefixes), ublRules(), nil)
			if err != nil {
				t.Fatal(err)
			}
			failed := map[string]Severity{}
			for _, r := range results {
				if !r.Passed {
					failed[r.ID] = r.Severity
				}
			}
			var problems []string
			for _, id := range want.success {
				if _, bad := failed[id]; bad {
					problems = append(problems, id+" failed but should pass")
				}
			}
			for _, id := range want.errors {
				if failed[id] != Fatal {
					problems = append(problems, id+" should fail as fatal")
				}
			}
			for _, id := range want.warnings {
				if failed[id] != Warning {
					problems = append(problems, id+" should fail as warning")
				}
			}
			if len(problems) == 0 {
				matched++
				continue
			}
			failedBy[filepath.Base(f)]++
			if testing.Verbose() {
				t.Logf("%s test %d: %s", filepath.Base(f), i, strings.Join(problems, "; "))
			}
		}
	}
	var worst []string
	for f, n := range failedBy {
		worst = append(worst, f+"="+itoa(n))
	}
	sort.Strings(worst)
	t.Logf("VEFA: %d of %d tests matched; mismatches by file: %s", matched, total, strings.Join(worst, " "))
	if matched != total {
		t.Errorf("%d of %d VEFA tests do not match the official verdict", total-matched, total)
	}
}
