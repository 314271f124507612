// Package extracteval measures invoice extraction against the truth a ZUGFeRD, Factur-X or
// XRechnung PDF carries: its XML. Strip removes the XML so that the extraction reads only
// what a reader without it would; Value and Same compare a field. bench/invoicecheck (every
// file of a directory) and the receipt package's accuracy test (a slice of the corpus, with
// floors) use it; the product does not.
package extracteval

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/zugferd"
)

// HeldOut reports whether the file named name (its base name counts) belongs to the
// held-out part of an evaluation set: a quarter of the files, by the FNV hash of the name, so
// that the split is the same on every machine and for every new file. Nothing is tuned on
// them, and no per-file result of theirs is printed.
func HeldOut(name string) bool {
	h := fnv.New32a()
	h.Write([]byte(filepath.Base(name)))
	return h.Sum32()%4 == 0
}

// Fields are the terms measured, in the order of issue #20.
var Fields = []string{"number", "issueDate", "seller", "buyer", "sellerVatId", "currency", "net", "vat", "gross", "amountDue", "iban", "vatBreakdown", "lineCount"}

// Strip removes every attachment (qpdf) and checks that no invoice XML is left to find.
func Strip(ctx context.Context, data []byte) ([]byte, error) {
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
	if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && ee.ExitCode() == 3 {
		err = nil // qpdf's "succeeded with warnings" (a damaged cross-reference it repaired)
	}
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
		// Attached some other way too (a page's file attachment annotation): Ghostscript
		// writes the pages again without any embedded file.
		again := filepath.Join(dir, "again.pdf")
		if b, err := exec.CommandContext(ctx, "gs", "-q", "-dSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=pdfwrite", "-o", again, out).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("gs: %v %s", err, b)
		}
		if plain, err = os.ReadFile(again); err != nil {
			return nil, err
		}
		if doc, _, err := zugferd.Extract(ctx, plain); err == nil && doc != nil {
			return nil, fmt.Errorf("the invoice XML is still found after removing the attachments")
		}
	}
	return plain, nil
}

// Value is a field of inv as text, "" when the invoice has none.
func Value(inv *einvoice.Invoice, f string) string {
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

// Printed: the pages show the field's value, so a reader could find it. An IBAN or a
// VAT id that only the XML carries (a sample that prints neither) is not counted against
// the reading; other fields are printed in some form (dates and amounts in the page's own
// format), and always count. text is the document's text (pdftotext).
func Printed(f, want, text string) bool {
	if f != "iban" && f != "sellerVatId" {
		return true
	}
	squash := strings.NewReplacer(" ", "", "\n", "", "\t", "", "\f", "")
	return strings.Contains(strings.ToUpper(squash.Replace(text)), squash.Replace(want))
}

// Same compares a field: names by their letters and digits (accents folded, case ignored),
// one containing the other as long as it is at least half of it; the rest exactly.
func Same(f, want, got string) bool {
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
