package view_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/einvoice/view"
	"github.com/papierkram/papierkram/internal/testinvoice"
	"github.com/papierkram/papierkram/zugferd"
)

// corpusRoot is the shared test data (an external test package: the view's own tests cannot be seen).
const corpusRoot = "../../../shared/corpus"

// corpusFile is one invoice of the corpus, read into the model.
type corpusFile struct {
	name string
	inv  *einvoice.Invoice
	info syntax.Info
	xml  []byte
}

// corpusInvoices reads every invoice of the corpus folders the view must show: the
// EN 16931 examples, the XRechnung test suite, the ZUGFeRD 2.3 XMLs and the XML inside
// the ZUGFeRD 2.0 PDFs. A file that does not read fails the test: nothing is skipped.
func corpusInvoices(t testing.TB) []corpusFile {
	t.Helper()
	ctx := context.Background()
	var out []corpusFile
	for _, dir := range []struct{ path, ext string }{
		{"en16931/examples-cii", ".xml"},
		{"en16931/examples-ubl", ".xml"},
		{"xrechnung-testsuite", ".xml"},
		{"zugferd/2.3-examples", ".xml"},
		{"zugferd/zugferd20", ".pdf"},
	} {
		n := 0
		err := filepath.WalkDir(filepath.Join(corpusRoot, dir.path), func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.EqualFold(filepath.Ext(path), dir.ext) {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if dir.ext == ".pdf" {
				doc, _, err := zugferd.Extract(ctx, data)
				if err != nil {
					t.Errorf("%s: extract: %v", path, err)
					return nil
				}
				data = doc.XML
			}
			inv, info, err := syntax.Read(ctx, data)
			if err != nil {
				t.Errorf("%s: read: %v", path, err)
				return nil
			}
			n++
			out = append(out, corpusFile{name: strings.TrimPrefix(path, corpusRoot+"/"), inv: inv, info: info, xml: data})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Fatalf("no %s files under %s", dir.ext, dir.path)
		}
		t.Logf("%s: %d invoices", dir.path, n)
	}
	return out
}

// TestWalkCorpus is issue #22's acceptance test: every value of every corpus invoice is
// visible on the page, in each language's format.
func TestWalkCorpus(t *testing.T) {
	files := corpusInvoices(t)
	// The corpus as counted by `find` when this test was written (see SOURCES.md):
	// 15 + 19 + 86 + 38 + 29. A change in the corpus must be looked at, not absorbed.
	if want := 15 + 19 + 86 + 38 + 29; len(files) != want {
		t.Fatalf("read %d corpus invoices, want %d", len(files), want)
	}
	complete, values := 0, 0
	for _, f := range files {
		vs := testinvoice.Values(f.inv)
		if len(vs) < 5 {
			t.Errorf("%s: only %d values in the model: the walk or the reader is broken", f.name, len(vs))
		}
		values += len(vs)
		ok := true
		for _, lang := range view.Languages() {
			page, err := view.HTML(f.inv, view.Options{Language: lang, Syntax: string(f.info.Syntax), Profile: string(f.info.Profile)})
			if err != nil {
				t.Fatalf("%s %s: %v", f.name, lang, err)
			}
			missing, err := testinvoice.Missing(f.inv, page, lang)
			if err != nil {
				t.Fatalf("%s %s: %v", f.name, lang, err)
			}
			for _, m := range missing {
				ok = false
				t.Errorf("%s [%s] not shown: %s", f.name, lang, m)
			}
		}
		if ok {
			complete++
		}
	}
	t.Logf("%d of %d invoices show every value (%d values) in de, en and fr", complete, len(files), values)
}
