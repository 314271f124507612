// Command viewcheck measures the invoice view (einvoice/view) on a directory of invoices
// it was not built against: every XML (CII or UBL) and every PDF with an embedded invoice
// is read, rendered in each language, and counted complete when every value of the model
// is visible on all pages (internal/testinvoice.Missing, the walk of the corpus test).
// Files that are not invoices the product reads (ZUGFeRD 1.0, other XML, PDFs without
// XML) are counted apart as not readable, never as passes.
//
// With -pdf N, every N-th invoice is also printed as the PDF view (Chromium and Ghostscript,
// as /api/xrechnung/visualize?format=pdf does) and counted complete when pdftotext -raw
// shows every value, in the language of the file's turn.
//
//	go run ./bench/viewcheck [-v] [-pdf N] DIR...
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/einvoice/view"
	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/chromium"
	"github.com/papierkram/papierkram/engine/ghostscript"
	"github.com/papierkram/papierkram/internal/testinvoice"
	"github.com/papierkram/papierkram/zugferd"
)

func main() {
	verbose := flag.Bool("v", false, "print every value a page does not show, and every unreadable file")
	every := flag.Int("pdf", 0, "also print every N-th invoice as a PDF view and check its text (0: none)")
	flag.Parse()
	var printer *printCheck
	if *every > 0 {
		printer = newPrintCheck()
		defer printer.close()
	}
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
			if printer != nil && files%*every == 0 {
				printer.check(ctx, path, data, *verbose)
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
	if printer != nil {
		fmt.Printf("printed views with every value in pdftotext's text: %d of %d (failed prints: %d)\n", printer.complete, printer.printed, printer.failed)
	}
	if complete != files || failedRenders > 0 || printer != nil && (printer.complete != printer.printed || printer.failed > 0) {
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

// printCheck prints views as the service does and reads them back with pdftotext.
type printCheck struct {
	p                         zugferd.Printers
	stop                      func()
	printed, complete, failed int
}

func newPrintCheck() *printCheck {
	one := engine.Config{Concurrency: 1, JobTimeout: 2 * time.Minute}
	cr, gs := chromium.New(one), ghostscript.New(one)
	return &printCheck{p: zugferd.Printers{Printer: cr, PDFA: gs}, stop: func() {
		cr.Supervisor().Stop(context.Background())
		gs.Supervisor().Stop(context.Background())
	}}
}

func (c *printCheck) close() { c.stop() }

func (c *printCheck) check(ctx context.Context, path string, data []byte, verbose bool) {
	lang := view.Languages()[c.printed%len(view.Languages())]
	c.printed++
	r, err := zugferd.View(ctx, c.p, data, zugferd.ViewOptions{Format: "pdf", Language: lang, Name: filepath.Base(path)})
	if err != nil {
		c.failed++
		fmt.Printf("FAIL print %s [%s]: %v\n", path, lang, err)
		return
	}
	f, err := os.CreateTemp("", "viewcheck-*.pdf")
	if err != nil {
		c.failed++
		return
	}
	defer os.Remove(f.Name())
	f.Write(r.Data)
	f.Close()
	text, err := exec.CommandContext(ctx, "pdftotext", "-raw", "-enc", "UTF-8", f.Name(), "-").Output()
	if err != nil {
		c.failed++
		fmt.Printf("FAIL pdftotext %s: %v\n", path, err)
		return
	}
	missing := testinvoice.MissingInPDF(r.Invoice.Model, string(text), lang)
	if len(missing) == 0 {
		c.complete++
		return
	}
	fmt.Printf("printed %s [%s]: %d values not in the text\n", path, lang, len(missing))
	if verbose {
		for _, m := range missing {
			fmt.Printf("  %s\n", m)
		}
	}
}
