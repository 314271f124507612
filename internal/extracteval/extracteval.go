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
	"regexp"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/pdf"
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
	// qpdf may write nothing: an attachment keyed by a name instead of a string, or one it
	// lists and then cannot find (a key that is not ASCII); Ghostscript does it then.
	exec.CommandContext(ctx, "qpdf", args...).Run()
	plain, err := os.ReadFile(out)
	if err != nil {
		out = in
	}
	if doc, _, xerr := zugferd.Extract(ctx, plain); err == nil && xerr == nil && doc != nil {
		// qpdf removes the EmbeddedFiles name tree's entries; a Factur-X PDF lists its XML in
		// the catalog's /AF too. Dropping /AF keeps the pages' objects as they are (a
		// Ghostscript rewrite maps some fonts' ligatures to CJK characters: "Co昀昀ee").
		if d, rerr := pdf.ReadToRead(plain); rerr == nil {
			if cat, cerr := d.Context().Catalog(); cerr == nil {
				delete(cat, "AF")
				if b, werr := pdf.WriteContext(d.Context()); werr == nil {
					plain = b
				}
			}
		}
	}
	if doc, _, xerr := zugferd.Extract(ctx, plain); err != nil || xerr == nil && doc != nil {
		// Attached some other way too (a page's file attachment annotation), or not
		// removable by qpdf: Ghostscript writes the pages again without any embedded file.
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

// Value is a field of inv as text, "" when the invoice has none. Amounts are given as an
// invoice (380) carries them: a credit note's (381) positive amounts are an invoice's
// negative ones (EN 16931 allows both for one refund), so a credit note read as either
// counts as the same document.
func Value(inv *einvoice.Invoice, f string) string {
	dec := func(d einvoice.Decimal) string {
		if !d.Valid() {
			return ""
		}
		if inv.TypeCode == "381" {
			return d.Value().Neg().StringFixed(2)
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
			parts = append(parts, b.Rate.Value().StringFixed(2)+"%:"+dec(b.TaxableAmount)+"/"+dec(b.TaxAmount))
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

// Printed: the pages show the field's value in some form, so a reader could find it. A
// sample whose XML carries what its page never prints (a page without totals, a made-up
// IBAN, a page printing another number than its XML) measures nothing a reader could do,
// so such a field is not counted; invoicecheck prints how many were left out and how many of
// those the extraction answered all the same. Names are compared by their letters and
// digits (the first half of a long name, a short one whole), numbers and identifiers without spaces,
// amounts by their digits in any grouping ("1.000,00", "1,000.00", "1 000,00 €"), dates in
// the numeric and written forms of German, English and French pages. The currency and the
// line count always count. text is the document's text (pdftotext).
func Printed(f, want, text string) bool {
	switch f {
	case "seller", "buyer":
		// A short name only whole: half of "Client" is in every French page.
		w, t := key(want), key(text)
		if len(w) >= 16 {
			w = w[:(len(w)+1)/2]
		}
		return w != "" && strings.Contains(t, w)
	case "number", "iban", "sellerVatId":
		squash := strings.NewReplacer(" ", "", "\n", "", "\t", "", "\f", "")
		return strings.Contains(strings.ToUpper(squash.Replace(text)), strings.ToUpper(squash.Replace(want)))
	case "net", "vat", "gross", "amountDue":
		return amountPrinted(want, printedAmounts(text))
	case "vatBreakdown":
		amounts := printedAmounts(text)
		for _, row := range strings.Fields(want) { // "19.00%:198.00/37.62"
			_, figures, _ := strings.Cut(row, ":")
			base, tax, _ := strings.Cut(figures, "/")
			if !amountPrinted(base, amounts) || !amountPrinted(tax, amounts) {
				return false
			}
		}
		return true
	case "issueDate":
		return datePrinted(want, text)
	}
	return true
}

// amountREs are figures as pages print them, with any grouping and decimal mark; thousands
// grouped by spaces only as whole groups of three, so that the cells of a row stay apart.
var amountREs = []*regexp.Regexp{
	regexp.MustCompile(`\d(?:[\d.,'\x{00A0}\x{202F}]*\d)?`),
	regexp.MustCompile(`\d{1,3}(?:[ \x{00A0}\x{202F}]\d{3})+(?:[.,]\d{1,2})?`),
}

// printedAmounts is the set of the figures in text, each as its whole part's digits and,
// where it ends in a decimal mark and two digits, those: "1.000,00" → "1000.00", "1 000" →
// "1000".
func printedAmounts(text string) map[string]bool {
	m := map[string]bool{}
	digits := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			if r >= '0' && r <= '9' {
				b.WriteRune(r)
			}
		}
		return strings.TrimLeft(b.String(), "0")
	}
	for _, re := range amountREs {
		for _, a := range re.FindAllString(text, -1) {
			if n := len(a); n > 3 && (a[n-3] == '.' || a[n-3] == ',') {
				m[digits(a[:n-3])+"."+a[n-2:]] = true
			} else {
				m[digits(a)] = true
			}
		}
	}
	return m
}

// amountPrinted: an amount "1000.00" is printed as 1000,00 in some grouping, or, from 1000
// on, as a whole figure without cents ("12 000 €"); a smaller whole figure is as likely a
// rate or a quantity. A negative amount is printed with its sign anywhere.
func amountPrinted(want string, amounts map[string]bool) bool {
	want = strings.TrimPrefix(want, "-")
	whole, cents, _ := strings.Cut(want, ".")
	whole = strings.TrimLeft(whole, "0")
	if amounts[whole+"."+cents] {
		return true
	}
	return strings.Trim(cents, "0") == "" && len(whole) >= 4 && amounts[whole]
}

var months = [12][]string{
	{"januar", "january", "janvier", "jan"}, {"februar", "february", "février", "feb", "fév"}, {"märz", "march", "mars", "mar", "mär"},
	{"april", "avril", "apr", "avr"}, {"mai", "may"}, {"juni", "june", "juin", "jun"}, {"juli", "july", "juillet", "jul"},
	{"august", "août", "aug"}, {"september", "septembre", "sep", "sept"}, {"oktober", "october", "octobre", "okt", "oct"},
	{"november", "novembre", "nov"}, {"dezember", "december", "décembre", "dez", "dec", "déc"},
}

// datePrinted: the ISO date want ("2019-05-08") appears in text as 08.05.2019, 8.5.19,
// 08/05/2019, 2019-05-08, 20190508, "8. Mai 2019", "8 mai 2019", "May 8, 2019" or
// "08-May-2019" (case and spacing ignored).
func datePrinted(want, text string) bool {
	var y, m, d int
	if _, err := fmt.Sscanf(want, "%4d-%2d-%2d", &y, &m, &d); err != nil || m < 1 || m > 12 {
		return true // not a date to look for; the comparison decides
	}
	t := " " + strings.Join(strings.Fields(strings.ToLower(text)), " ") + " "
	y2 := fmt.Sprintf("%02d", y%100)
	for _, day := range []string{fmt.Sprintf("%02d", d), fmt.Sprint(d)} {
		for _, mon := range []string{fmt.Sprintf("%02d", m), fmt.Sprint(m)} {
			for _, sep := range []string{".", "/", "-"} {
				for _, year := range []string{fmt.Sprint(y), y2} {
					if numericDateRE(day + sep + mon + sep + year).MatchString(t) {
						return true
					}
				}
			}
		}
		for _, name := range months[m-1] {
			for _, form := range []string{day + ". " + name + " ", day + " " + name + " ", day + "-" + name + "-", day + ". " + name + ". ", name + " " + day + ", ", name + ". " + day + ", "} {
				if strings.Contains(t, " "+form+fmt.Sprint(y)) || strings.Contains(t, "("+form+fmt.Sprint(y)) {
					return true
				}
			}
		}
	}
	iso := fmt.Sprintf("%04d-%02d-%02d", y, m, d)
	return strings.Contains(t, iso) || strings.Contains(t, strings.ReplaceAll(iso, "-", ""))
}

// numericDateRE matches the date s as a whole figure (not inside a longer one).
func numericDateRE(s string) *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[^\d])` + regexp.QuoteMeta(s) + `(?:$|[^\d])`)
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
