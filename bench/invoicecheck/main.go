// Command invoicecheck measures invoice extraction on documents whose truth they carry: each
// ZUGFeRD / Factur-X / XRechnung PDF holds its invoice as XML. The XML is the truth; the
// extraction reads only what a reader without it would: the PDF with its attachments removed
// (qpdf) through the whole pipeline (text mode), or its first three pages rendered at 200 dpi
// into a PDF without text (-scan). Per field it prints how many invoices had it
// and how many were read right, for the tuning part and the held-out part of the files (a
// file is held out when the FNV hash of its name is divisible by 4: never tune on those).
//
//	go run ./bench/invoicecheck [-scan] [-v] DIR...
package main

import (
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/engine/tesseract"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/receipt"
	"github.com/papierkram/papierkram/zugferd"
)

// fields are the terms measured, in the issue's order.
var fields = []string{"number", "issueDate", "seller", "buyer", "sellerVatId", "currency", "net", "vat", "gross", "amountDue", "iban", "vatBreakdown", "lineCount"}

type tally struct{ had, right int }

func main() {
	scan := flag.Bool("scan", false, "read the first pages rendered at 200 dpi (a PDF without text) instead of the PDF's text")
	verbose := flag.Bool("v", false, "print every wrong field")
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
			// pages, up to three, at 200 dpi in a PDF without text), or the PDF itself.
			var input []byte
			if *scan {
				var imgs [][]byte
				imgs, err = pop.Render(ctx, data, []int{1, 2, 3}[:min(3, pageCount(data))], poppler.RenderOptions{DPI: 200, Format: poppler.PNG})
				if err == nil {
					input, err = pdf.ImagesToPDF(ctx, imgs, pdf.ImagesOptions{})
				}
			} else {
				input, err = strip(ctx, data)
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
			if heldOut(path) {
				set = "held out"
			}
			files[set]++
			for _, f := range fields {
				want, have := value(truth, f), value(got, f)
				if want == "" {
					continue
				}
				t := sets[set][f]
				if t == nil {
					t = &tally{}
					sets[set][f] = t
				}
				t.had++
				if same(f, want, have) {
					t.right++
				} else if *verbose {
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
		mode = "200 dpi scan of up to 3 pages, OCR"
	}
	fmt.Printf("mode: %s; files: %d tuning, %d held out; %d skipped (no invoice XML, or MINIMUM)\n", mode, files["tuning"], files["held out"], skipped)
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "field\ttuning right\tof\t%\theld out right\tof\t%\t")
	for _, f := range fields {
		a, b := sets["tuning"][f], sets["held out"][f]
		fmt.Fprintf(tw, "%s\t%s\t%s\t\n", f, cells(a), cells(b))
	}
	tw.Flush()
}

// strip removes every attachment (qpdf) and checks that no invoice XML is left to find.
func strip(ctx context.Context, data []byte) ([]byte, error) {
	dir, err := os.MkdirTemp("", "invoicecheck-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "in.pdf"), filepath.Join(dir, "out.pdf")
	if err := os.WriteFile(in, data, 0o600); err != nil {
		return nil, err
	}
	list, err := exec.CommandContext(ctx, "qpdf", "--list-attachments", in).Output()
	if err != nil {
		return nil, fmt.Errorf("qpdf --list-attachments: %w", err)
	}
	args := []string{in}
	for _, l := range strings.Split(string(list), "\n") {
		if key, _, ok := strings.Cut(l, " -> "); ok {
			args = append(args, "--remove-attachment="+strings.TrimSpace(key))
		}
	}
	args = append(args, "--", out)
	if b, err := exec.CommandContext(ctx, "qpdf", args...).CombinedOutput(); err != nil && !strings.Contains(string(b), "WARNING") {
		return nil, fmt.Errorf("qpdf: %v %s", err, b)
	}
	plain, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	if doc, _, err := zugferd.Extract(ctx, plain); err == nil && doc != nil {
		return nil, fmt.Errorf("the invoice XML is still found after removing the attachments")
	}
	return plain, nil
}

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

func heldOut(path string) bool {
	h := fnv.New32a()
	h.Write([]byte(filepath.Base(path)))
	return h.Sum32()%4 == 0
}

// value is a field of inv as text, "" when the invoice has none.
func value(inv *einvoice.Invoice, f string) string {
	dec := func(d einvoice.Decimal) string {
		if !d.Valid() {
			return ""
		}
		return d.Value().StringFixed(2)
	}
	switch f {
	case "number":
		return strings.TrimSpace(inv.Number)
	case "issueDate":
		return string(inv.IssueDate)
	case "seller":
		return inv.Seller.Name
	case "buyer":
		return inv.Buyer.Name
	case "sellerVatId":
		return strings.ReplaceAll(strings.ToUpper(inv.Seller.VATID), " ", "")
	case "currency":
		return inv.Currency
	case "net":
		return dec(inv.Totals.NetTotal)
	case "vat":
		return dec(inv.Totals.VATTotal)
	case "gross":
		return dec(inv.Totals.GrossTotal)
	case "amountDue":
		return dec(inv.Totals.AmountDue)
	case "iban":
		for _, ct := range inv.Payment.CreditTransfers {
			if !ct.Proprietary {
				return strings.ReplaceAll(strings.ToUpper(ct.AccountID), " ", "")
			}
		}
		return ""
	case "vatBreakdown":
		var parts []string
		for _, b := range inv.VATBreakdown {
			parts = append(parts, dec(b.Rate)+"%:"+dec(b.TaxableAmount)+"/"+dec(b.TaxAmount))
		}
		sort.Strings(parts)
		return strings.Join(parts, " ")
	case "lineCount":
		if len(inv.Lines) == 0 {
			return ""
		}
		return fmt.Sprint(len(inv.Lines))
	}
	return ""
}

// same compares a field: names by their letters and digits (accents folded, case ignored),
// one containing the other as long as it is at least half of it; the rest exactly.
func same(f, want, got string) bool {
	if f == "seller" || f == "buyer" {
		w, g := key(want), key(got)
		if w == "" || g == "" {
			return false
		}
		if strings.Contains(w, g) || strings.Contains(g, w) {
			return 2*min(len(w), len(g)) >= max(len(w), len(g))
		}
		return false
	}
	return want == got
}

func key(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(strings.ToLower(s)) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
