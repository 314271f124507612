package view

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/net/html"

	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/internal/testinvoice"
)

// FuzzHTML: whatever syntax.Read accepts, every language renders without error or panic,
// to a page an HTML5 parser reads, that shows the invoice's number and has no script.
func FuzzHTML(f *testing.F) {
	for _, pattern := range []string{"en16931/examples-cii/*.xml", "en16931/examples-ubl/*.xml", "xrechnung-testsuite/*/*/*.xml"} {
		paths, err := filepath.Glob(filepath.Join(corpus, pattern))
		if err != nil || len(paths) == 0 {
			f.Fatalf("no seeds for %s: %v", pattern, err)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			// Invoices with attachments (hundreds of KB of base64) leave the fuzzer
			// minimizing one input for a minute at a time and add no new structure.
			if len(b) <= 64<<10 {
				f.Add(b)
			}
		}
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte) {
		inv, _, err := syntax.Read(ctx, data)
		if err != nil || inv == nil {
			return
		}
		for _, lang := range Languages() {
			for _, print := range []bool{false, true} {
				page, err := HTML(inv, Options{Language: lang, Print: print})
				if err != nil {
					t.Fatalf("%s: %v", lang, err)
				}
				doc, err := html.Parse(bytes.NewReader(page))
				if err != nil {
					t.Fatal(err)
				}
				var bad func(n *html.Node) bool
				bad = func(n *html.Node) bool {
					if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "img" || n.Data == "iframe") {
						return true
					}
					for c := n.FirstChild; c != nil; c = c.NextSibling {
						if bad(c) {
							return true
						}
					}
					return false
				}
				if bad(doc) {
					t.Fatalf("%s: active element in the page", lang)
				}
				if n := testinvoice.Collapse(inv.Number); n != "" {
					s, err := testinvoice.VisibleText(page)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Contains([]byte(s), []byte(n)) {
						t.Fatalf("%s: number %q not shown", lang, n)
					}
				}
			}
		}
	})
}
