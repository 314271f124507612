// Command visiblecheck measures the FX-VISIBLE checks of zugferd.Validate on a directory
// of hybrid invoices: for each field, how many files have it in the XML and on how many
// the check fails. On consistent invoices (official samples) every failure is a false
// alarm. With -mutate, each file whose grand total passed is rebuilt: its pages' text set
// on new pages with every printed form of the grand total changed by 10.00, the XML
// embedded again; the count of FX-VISIBLE-TOTAL failures on those is the detection.
//
//	go run ./bench/visiblecheck [-mutate] [-v] DIR...
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/engine/tesseract"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/ocr"
	"github.com/papierkram/papierkram/zugferd"
)

type tally struct{ checked, failed int }

func main() {
	mutate := flag.Bool("mutate", false, "also measure detection of a changed grand total")
	verbose := flag.Bool("v", false, "print every failed check")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: visiblecheck [-mutate] [-v] DIR...")
		os.Exit(2)
	}
	ctx := context.Background()
	pop := poppler.New(engine.Config{Concurrency: 2, JobTimeout: 2 * time.Minute})
	ts := tesseract.New(engine.Config{Concurrency: 2, JobTimeout: 2 * time.Minute})
	pages := func(ctx context.Context, b []byte) ([]string, error) { return ocr.PageTexts(ctx, pop, pop, ts, b, 10) }

	counts := map[string]*tally{}
	files, skipped, mutated, detected := 0, 0, 0, 0
	for _, dir := range flag.Args() {
		err := filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.EqualFold(filepath.Ext(path), ".pdf") {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			r, err := zugferd.Validate(ctx, b, zugferd.ValidateOptions{Pages: pages})
			if err != nil {
				skipped++
				if *verbose {
					fmt.Printf("skip %s: %v\n", path, err)
				}
				return nil
			}
			files++
			totalPassed := false
			for _, x := range r.PDF.Results {
				if !strings.HasPrefix(x.ID, "FX-VISIBLE") {
					continue
				}
				t := counts[x.ID]
				if t == nil {
					t = &tally{}
					counts[x.ID] = t
				}
				t.checked++
				if !x.Passed {
					t.failed++
					if *verbose {
						fmt.Printf("FAIL %s %s: %s\n", path, x.ID, x.Message)
					}
				} else if x.ID == "FX-VISIBLE-TOTAL" {
					totalPassed = true
				}
			}
			if !*mutate || !totalPassed {
				return nil
			}
			ok, err := mutateTotal(ctx, b, pages)
			switch {
			case err != nil:
				fmt.Printf("mutate %s: %v\n", path, err)
			case ok == nil:
				// no printed form of the total found to change
			default:
				mutated++
				if *ok {
					detected++
				} else if *verbose {
					fmt.Printf("MISSED %s\n", path)
				}
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "files\t%d\t(skipped, no readable invoice: %d)\n", files, skipped)
	fmt.Fprintln(tw, "check\tchecked\tfailed")
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	all := tally{}
	for _, id := range ids {
		fmt.Fprintf(tw, "%s\t%d\t%d\n", id, counts[id].checked, counts[id].failed)
		all.checked += counts[id].checked
		all.failed += counts[id].failed
	}
	fmt.Fprintf(tw, "all\t%d\t%d\n", all.checked, all.failed)
	if *mutate {
		fmt.Fprintf(tw, "changed total detected\t%d of %d\n", detected, mutated)
	}
	tw.Flush()
}

// mutateTotal rebuilds b with its grand total changed on the pages and tells whether
// FX-VISIBLE-TOTAL catches it; nil when the pages print the total in no form it knows.
func mutateTotal(ctx context.Context, b []byte, pages func(context.Context, []byte) ([]string, error)) (*bool, error) {
	doc, _, err := zugferd.Extract(ctx, b)
	if err != nil {
		return nil, err
	}
	inv, _, err := syntax.Read(ctx, doc.XML)
	if err != nil {
		return nil, err
	}
	texts, err := pages(ctx, b)
	if err != nil {
		return nil, err
	}
	total := inv.Totals.GrossTotal.Value().Abs()
	changed := total.Add(decimal.NewFromInt(10))
	n := 0
	for i, t := range texts {
		texts[i], n = replaceAmount(t, total, changed, n)
	}
	if n == 0 {
		return nil, nil
	}
	d, err := pdf.Read(testpdf.Text("Courier", 10, texts...))
	if err != nil {
		return nil, err
	}
	out, err := d.Embed(pdf.File{Name: doc.FileName, MIME: "text/xml", Relationship: zugferd.Relationship(doc.Info.Profile), Data: doc.XML},
		pdf.EmbedOptions{}, time.Now())
	if err != nil {
		return nil, err
	}
	r, err := zugferd.Validate(ctx, out, zugferd.ValidateOptions{Pages: pages})
	if err != nil {
		return nil, err
	}
	for _, x := range r.PDF.Results {
		if x.ID == "FX-VISIBLE-TOTAL" {
			caught := !x.Passed
			return &caught, nil
		}
	}
	return nil, fmt.Errorf("no FX-VISIBLE-TOTAL in the report")
}

// styles are the ways invoices print 1234.5: thousands and decimal separators.
var styles = [][2]string{{".", ","}, {",", "."}, {" ", ","}, {"\u00a0", ","}, {"'", "."}, {"", ","}, {"", "."}}

// replaceAmount replaces every printed form of from in s by to in the same style.
func replaceAmount(s string, from, to decimal.Decimal, n int) (string, int) {
	for _, st := range styles {
		f := format(from, st)
		re := regexp.MustCompile(`(^|[^\d.,])` + regexp.QuoteMeta(f) + `($|[^\d]|[.,]\D|[.,]$)`)
		for re.MatchString(s) {
			s = re.ReplaceAllString(s, "${1}"+format(to, st)+"${2}")
			n++
		}
	}
	return s, n
}

func format(d decimal.Decimal, st [2]string) string {
	s := d.StringFixed(2)
	intPart, frac, _ := strings.Cut(s, ".")
	var groups []string
	for len(intPart) > 3 {
		groups = append([]string{intPart[len(intPart)-3:]}, groups...)
		intPart = intPart[:len(intPart)-3]
	}
	groups = append([]string{intPart}, groups...)
	return strings.Join(groups, st[0]) + st[1] + frac
}
