package conform

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

// corpus is the veraPDF test corpus for PDF/A-2b and -3b (../shared/corpus/verapdf): each
// file tests one clause, and its name says whether it must pass or fail.
const corpus = "../../../shared/corpus/verapdf"

var reCase = regexp.MustCompile(`veraPDF test suite (\d+(?:-\d+)*)-t(\d+)-(pass|fail)-[a-z]+\.pdf$`)

// corpusCase is one file of the corpus.
type corpusCase struct {
	path    string
	profile Profile
	clause  string // 6.2.4.3
	pass    bool
}

func corpusCases(t testing.TB) []corpusCase {
	var cases []corpusCase
	for dir, p := range map[string]Profile{"PDF_A-2b": PDFA2B, "PDF_A-3b": PDFA3B} {
		err := filepath.WalkDir(filepath.Join(corpus, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			m := reCase.FindStringSubmatch(path)
			if m == nil {
				return nil
			}
			cases = append(cases, corpusCase{path: path, profile: p, clause: strings.ReplaceAll(m[1], "-", "."), pass: m[3] == "pass"})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].path < cases[j].path })
	return cases
}

// outcome is what Check made of a corpus file.
type outcome struct {
	agree  bool // the verdict is the expected one: compliant for a pass file, not for a fail file
	clause bool // and for a fail file, the clause it tests is among the failures
	detail string
}

func judge(tc corpusCase) outcome {
	data, err := os.ReadFile(tc.path)
	if err != nil {
		return outcome{detail: err.Error()}
	}
	r, err := Check(context.Background(), data, tc.profile)
	if err != nil {
		// A file we cannot read is a failing file: right for fail cases.
		return outcome{agree: !tc.pass, clause: !tc.pass, detail: "error: " + err.Error()}
	}
	var failed []string
	clauseFailed := false
	for _, f := range r.Failed {
		failed = append(failed, fmt.Sprintf("%s%v", f.Rule, f.Locations))
		clauseFailed = clauseFailed || f.Clause == tc.clause
	}
	if tc.pass {
		return outcome{agree: r.Compliant, clause: r.Compliant, detail: strings.Join(failed, " ")}
	}
	return outcome{agree: !r.Compliant, clause: clauseFailed, detail: strings.Join(failed, " ")}
}

// The agreement reached on the corpus; the test fails below it. Raise it as rules land.
const (
	minAgreement     = 1.0
	minPassAgreement = 1.0
)

// TestVeraPDFCorpus checks every file of the corpus and compares with what its name says.
// go test -run TestVeraPDFCorpus -v ./pdf/conform/ prints the agreement per clause and the
// files where we differ.
func TestVeraPDFCorpus(t *testing.T) {
	cases := corpusCases(t)
	if len(cases) < 900 {
		t.Fatalf("found %d corpus files", len(cases))
	}
	type tally struct{ n, agree, clause, pass, passAgree int }
	byClause := map[string]*tally{}
	var all tally
	var misses []string
	for _, tc := range cases {
		o := judge(tc)
		tl := byClause[tc.clause]
		if tl == nil {
			tl = &tally{}
			byClause[tc.clause] = tl
		}
		for _, x := range []*tally{tl, &all} {
			x.n++
			if o.agree {
				x.agree++
			}
			if o.clause {
				x.clause++
			}
			if tc.pass {
				x.pass++
				if o.agree {
					x.passAgree++
				}
			}
		}
		if !o.agree {
			misses = append(misses, fmt.Sprintf("%s: %s", filepath.Base(tc.path), o.detail))
		} else if !o.clause {
			misses = append(misses, fmt.Sprintf("%s (another clause): %s", filepath.Base(tc.path), o.detail))
		}
	}
	var clauses []string
	for k := range byClause {
		clauses = append(clauses, k)
	}
	slices.SortFunc(clauses, func(a, b string) int { return compareRules(a, b) })
	for _, k := range clauses {
		x := byClause[k]
		t.Logf("%-12s %3d/%3d agree, %3d on the clause (pass files %d/%d)", k, x.agree, x.n, x.clause, x.passAgree, x.pass)
	}
	for _, m := range misses {
		t.Logf("differs: %s", m)
	}
	agreement := float64(all.agree) / float64(all.n)
	passAgreement := float64(all.passAgree) / float64(all.pass)
	t.Logf("agreement %d/%d = %.1f %% (%d on the clause tested); pass files %d/%d = %.1f %%", all.agree, all.n, 100*agreement, all.clause, all.passAgree, all.pass, 100*passAgreement)
	if agreement < minAgreement || passAgreement < minPassAgreement {
		t.Errorf("agreement %.3f (pass files %.3f) under the floor %.3f (%.3f)", agreement, passAgreement, minAgreement, minPassAgreement)
	}
}
