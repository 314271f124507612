package rules

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice/internal/corpus"
)

// TestCorpusValid: every valid invoice of the corpus (the XRechnung test suite, the
// EN 16931 examples, the ZUGFeRD 2.3 examples) passes without a fatal error, in both
// syntaxes, each under its own scenario (XRechnung, its extension and CVD variants, the
// Factur-X profiles).
func TestCorpusValid(t *testing.T) {
	files := append(corpus.UBL(t), corpus.CII(t)...)
	if len(files) < 50 {
		t.Fatalf("only %d corpus invoices", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Validate(context.Background(), data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		name := filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)
		if r.Summary.Checked < 50 {
			t.Errorf("%s: only %d rules checked", name, r.Summary.Checked)
		}
		if !r.Valid {
			var at []string
			for _, x := range r.Failed() {
				if x.Severity == Fatal {
					at = append(at, x.ID+" at "+x.Location)
				}
			}
			t.Errorf("%s: fatal %s", strings.TrimPrefix(f, corpus.Dir(t)), strings.Join(at, "; "))
		}
	}
	t.Logf("%d corpus invoices validated", len(files))
}
