// Command viewcheck measures the invoice view (einvoice/view) on a directory of invoices
// it was not built against: every XML (CII or UBL) and every PDF with an embedded invoice
// is read, rendered in each language, and counted complete when every value of the model
// is visible on all pages (internal/testinvoice.Missing, the walk of the corpus test).
// Files that are not invoices the product reads (ZUGFeRD 1.0, other XML, PDFs without
// XML) are counted apart as not readable, never as passes.
//
//	go run ./bench/viewcheck [-v] DIR...
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/einvoice/view"
	"github.com/papierkram/papierkram/internal/testinvoice"
	"github.com/papierkram/papierkram/zugferd"
)

func main() {
	verbose := flag.Bool("v", false, "print every value a page does not show, and every unreadable file")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: viewcheck [-v] DIR...")
		os.Exit(2)
	}
	ctx := context.Background()
	var files, unreadable, complete, values, failedRenders int
	var slowest time.Duration
	byField := map[string]int{}
	for _, dir := range flag.Args() {
		err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			ext := strings.ToLower(filepath.Ext(path))
			if ext != ".xml" && ext != ".pdf" {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if ext == ".pdf" {
				doc, _, err := zugferd.Extract(ctx, data)
				if err != nil {
					unreadable++
					if *verbose {
						fmt.Printf("unreadable %s: %v\n", path, err)
					}
					return nil
				}
				data = doc.XML
			}
			inv, info, err := syntax.Read(ctx, data)
			if err != nil {
				unreadable++
				if *verbose {
					fmt.Printf("unreadable %s: %v\n", path, err)
				}
				return nil
			}
			files++
			values += len(testinvoice.Values(inv))
			ok := true
			for _, lang := range view.Languages() {
				start := time.Now()
				page, err := view.HTML(inv, view.Options{Language: lang, Syntax: string(info.Syntax), Profile: string(info.Profile)})
				if d := time.Since(start); d > slowest {
					slowest = d
				}
				if err != nil {
					failedRenders++
					ok = false
					fmt.Printf("FAIL %s [%s]: %v\n", path, lang, err)
					continue
				}
				missing, err := testinvoice.Missing(inv, page, lang)
				if err != nil {
					ok = false
					fmt.Printf("FAIL %s [%s]: %v\n", path, lang, err)
					continue
				}
				for _, m := range missing {
					ok = false
					field, _, _ := strings.Cut(m, " (")
					byField[generic(field)]++
					if *verbose {
						fmt.Printf("missing %s [%s]: %s\n", path, lang, m)
					}
				}
			}
			if ok {
				complete++
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	fmt.Printf("invoices read: %d (values: %d); not readable as an invoice: %d\n", files, values, unreadable)
	fmt.Printf("every value visible in de, en, fr: %d of %d; render errors: %d; slowest render: %s\n", complete, files, failedRenders, slowest)
	if len(byField) > 0 {
		keys := make([]string, 0, len(byField))
		for k := range byField {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return byField[keys[i]] > byField[keys[j]] })
		fmt.Println("missing values by field (all languages):")
		for _, k := range keys {
			fmt.Printf("  %6d  %s\n", byField[k], k)
		}
	}
	if complete != files || failedRenders > 0 {
		os.Exit(1)
	}
}

// generic drops the indexes of a path, Lines[3].Item -> Lines[].Item, to count by field.
func generic(path string) string {
	var b strings.Builder
	skip := false
	for _, r := range path {
		switch {
		case r == '[':
			skip = true
			b.WriteString("[]")
		case r == ']':
			skip = false
		case !skip:
			b.WriteRune(r)
		}
	}
	return b.String()
}
