// Command invoicecheck measures invoice extraction on documents whose truth they carry: each
// ZUGFeRD / Factur-X / XRechnung PDF holds its invoice as XML. The XML is the truth; the
// extraction reads only what a reader without it would: the PDF with its attachments removed
// (qpdf) through the whole pipeline (text mode), or its pages, up to scanPages, rendered at
// 200 dpi into a PDF without text (-scan). A field whose XML value the pages read do not show
// is not counted (extracteval.Printed): the count left out is printed. Per field it prints how many invoices had it
// and how many were read right, for the tuning part and the held-out part of the files (a
// file is held out when the FNV hash of its name is divisible by 4: never tune on those).
//
//	go run ./bench/invoicecheck [-scan] [-v] DIR...
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/engine/tesseract"
	"github.com/papierkram/papierkram/internal/extracteval"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/receipt"
	"github.com/papierkram/papierkram/zugferd"
)

type tally struct{ had, right int }

func main() {
	scan := flag.Bool("scan", false, "read the first pages rendered at 200 dpi (a PDF without text) instead of the PDF's text")
	verbose := flag.Bool("v", false, "print every wrong field of the tuning files")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: invoicecheck [-scan] [-v] DIR...")
		os.Exit(2)
	}
	ctx := context.Background()
	pop := poppler.New(engine.Config{Concurrency: 2, JobTimeout: 2 * time.Minute})
	ts := tesseract.New(engine.Config{Concurrency: 2, JobTimeout: 2 * time.Minute})
	ex := &receipt.Extractor{OCR: ts, PDF: pop}

	sets := map[string]map[string]*tally{"tuning": {}, "held out": {}}
	files := map[string]int{}
	notPrinted := map[string]int{} // fields the XML has and the pages do not show
	answered := map[string]int{}   // of those, the ones read all the same (another value, or the XML's not printed)
	skipped := 0
	for _, dir := range flag.Args() {
		err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.EqualFold(filepath.Ext(path), ".pdf") {
				return err
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			doc, _, err := zugferd.Extract(ctx, data)
			if err != nil || doc == nil {
				skipped++
				return nil
			}
			truth, _, err := syntax.Read(ctx, doc.XML)
			if err != nil || einvoice.ProfileOf(truth.Specification) == einvoice.Minimum {
				skipped++ // MINIMUM carries no lines or parties to compare
				return nil
			}
			// What a user would upload without the XML: a scan as people make them (the
			// pages at 200 dpi in a PDF without text), or the PDF itself.
			var input []byte
			read := pageCount(data)
			if *scan {
				read = min(read, scanPages)
				var imgs [][]byte
				imgs, err = pop.Render(ctx, data, []int{1, 2, 3, 4, 5, 6}[:read], poppler.RenderOptions{DPI: 200, Format: poppler.PNG})
				if err == nil {
					input, err = pdf.ImagesToPDF(ctx, imgs, pdf.ImagesOptions{})
				}
			} else {
				input, err = extracteval.Strip(ctx, data)
			}
			if err != nil {
				skipped++
				if *verbose {
					fmt.Printf("skip %s: %v\n", path, err)
				}
				return nil
			}
			// The whole pipeline; a document it finds nothing in counts as all fields wrong.
			got := &einvoice.Invoice{}
			if r, _ := ex.Invoice(ctx, input); r != nil {
				got = r.Invoice
			}
			set := "tuning"
			if extracteval.HeldOut(path) {
				set = "held out"
			}
			files[set]++
			// Only the pages read can show a value: a total on a scan's sixth page is not.
			pages, _ := pop.Text(ctx, data, 1, read, false)
			text := strings.Join(pages, "\n")
			for _, f := range extracteval.Fields {
				want, have := extracteval.Value(truth, f), extracteval.Value(got, f)
				if want == "" {
					continue
				}
				if !extracteval.Printed(f, want, text) {
					notPrinted[f]++
					if have != "" {
						answered[f]++
					}
					continue
				}
				t := sets[set][f]
				if t == nil {
					t = &tally{}
					sets[set][f] = t
				}
				t.had++
				if extracteval.Same(f, want, have) {
					t.right++
				} else if *verbose && set == "tuning" {
					// Held-out files' values are never printed: reading them would tune on them.
					fmt.Printf("%s %s: want %q, got %q\n", filepath.Base(path), f, want, have)
				}
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, "invoicecheck:", err)
			os.Exit(1)
		}
	}
	mode := "text"
	if *scan {
		mode = fmt.Sprintf("200 dpi scan of up to %d pages, OCR", scanPages)
	}
	fmt.Printf("mode: %s; files: %d tuning, %d held out; %d skipped (no invoice XML, or MINIMUM)\n", mode, files["tuning"], files["held out"], skipped)
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "field\ttuning right\tof\t%\theld out right\tof\t%\t")
	for _, f := range extracteval.Fields {
		a, b := sets["tuning"][f], sets["held out"][f]
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", f, cells(a), cells(b))
	}
	tw.Flush()
	for _, f := range extracteval.Fields {
		if n := notPrinted[f]; n > 0 {
			fmt.Printf("%s: %d files not counted, their pages do not show the XML's value (%d read a value all the same)\n", f, n, answered[f])
		}
	}
}

// scanPages is how many pages of a document -scan reads: invoices' totals stand on their
// last page, and the samples' longest invoices have four or five (Mustang's EXTENDED
// sample prints its totals on page 4). Three, until 2026-11-27, left those totals unread
// and counted them as wrong.
const scanPages = 6

func pageCount(data []byte) int {
	d, err := pdf.Read(data)
	if err != nil {
		return 1
	}
	return max(1, d.PageCount())
}

func cells(t *tally) string {
	if t == nil || t.had == 0 {
		return "-\t0\t-"
	}
	return fmt.Sprintf("%d\t%d\t%.0f", t.right, t.had, 100*float64(t.right)/float64(t.had))
}
