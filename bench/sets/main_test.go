package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/internal/extracteval"
)

// receiptName is receiptcheck's convention; a receipt named otherwise would be silently
// left out of every measurement.
var receiptName = regexp.MustCompile(`^([a-z][a-z0-9]*)_(\d{2})(\d{2})(\d{4})(?:_\d+)?_(\d+)(?:_[A-Za-z]+)?\.(?:jpe?g|png)$`)

var hexSum = regexp.MustCompile(`^[0-9a-f]{64}$`)

// TestManifests reads every committed manifest: each line complete, each file named once
// across its kind's sets (a file in two sets would count twice, or be tuned on and held out),
// each receipt named so receiptcheck reads its truth.
func TestManifests(t *testing.T) {
	for _, kind := range []string{"receipts", "invoices"} {
		ms, err := filepath.Glob(filepath.Join(kind, "*.tsv"))
		if err != nil {
			t.Fatal(err)
		}
		type where struct{ manifest, name string }
		seen := map[string]where{}
		for _, m := range ms {
			es, err := read(m)
			if err != nil {
				t.Error(err)
				continue
			}
			if len(es) == 0 {
				t.Errorf("%s: no files", m)
			}
			for _, e := range es {
				if !hexSum.MatchString(e.sum) {
					t.Errorf("%s:%d: SHA-256 %q", m, e.line, e.sum)
				}
				if !strings.Contains(e.repo, "/") || e.commit == "" || e.path == "" {
					t.Errorf("%s:%d: source %q %q %q incomplete", m, e.line, e.repo, e.commit, e.path)
				}
				if kind == "receipts" && !receiptName.MatchString(e.name) {
					t.Errorf("%s:%d: %q does not carry its truth as receiptcheck reads it", m, e.line, e.name)
				}
				// An invoice is held out by its name's hash: in two sets (the historical sets
				// overlap) it must be held out in both or in neither.
				if other, ok := seen[e.sum]; ok && (kind == "receipts" || extracteval.HeldOut(other.name) != extracteval.HeldOut(e.name)) {
					t.Errorf("%s:%d: %s is also in %s as %s", m, e.line, e.name, other.manifest, other.name)
				}
				seen[e.sum] = where{m, e.name}
			}
		}
	}
}

func TestReadRejects(t *testing.T) {
	for name, text := range map[string]string{
		"columns": "a/b\tc\tp\n",
		"path":    "a/b\tc\tp\t" + strings.Repeat("0", 64) + "\t../x.jpg\n",
		"twice":   "a/b\tc\tp\t" + strings.Repeat("0", 64) + "\tx.pdf\na/b\tc\tq\t" + strings.Repeat("1", 64) + "\tx.pdf\n",
		"dot-dot": "a/b\tc\tp\t" + strings.Repeat("0", 64) + "\t..\n",
	} {
		f := filepath.Join(t.TempDir(), "m.tsv")
		if err := os.WriteFile(f, []byte("# comment\n"+text), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := read(f); err == nil {
			t.Errorf("%s: read accepted %q", name, text)
		}
	}
}
