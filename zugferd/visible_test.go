package zugferd

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/engine/tesseract"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/ocr"
)

func visibleInvoice() *einvoice.Invoice {
	return &einvoice.Invoice{
		Number: "RE-2026-0042", IssueDate: "2026-11-23", Currency: "EUR",
		Seller: einvoice.Party{Name: "Lieferant GmbH"}, Buyer: einvoice.Party{Name: "Kunden AG Mitte"},
		Totals:  einvoice.Totals{GrossTotal: einvoice.MustDecimal("1234.56"), AmountDue: einvoice.MustDecimal("1234.56")},
		Payment: einvoice.Payment{CreditTransfers: []einvoice.CreditTransfer{{AccountID: "DE02120300000000202051"}}},
	}
}

func resultOf(t *testing.T, rs []rules.Result, id string) rules.Result {
	t.Helper()
	for _, r := range rs {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no %s in %+v", id, rs)
	return rules.Result{}
}

// TestVisibleForms: each field is found in each form invoices print it in.
func TestVisibleForms(t *testing.T) {
	cases := map[string][]string{
		"FX-VISIBLE-NUMBER": {"Rechnungsnummer: RE-2026-0042", "INVOICE NO. re-2026-0042", "Rechnung RE-2026-\n0042 vom", "Nr. RE 2026 0042"},
		"FX-VISIBLE-DATE": {"Datum 2026-11-23", "vom 23.11.2026", "Datum: 23.11.26", "Date: 23/11/2026", "Berlin, 23. November 2026",
			"Date: November 23, 2026", "Paris, le 23 novembre 2026", "Invoice date 11/23/2026", "den 23. Nov. 2026"},
		"FX-VISIBLE-SELLER": {"LIEFERANT GMBH", "Lieferant\nGmbH", "Liefe-\nrant GmbH", "L i e f e r a n t  G m b H", "Lieferant", "Lieferant G.m.b.H."},
		"FX-VISIBLE-BUYER":  {"Kunden AG Mitte", "KUNDEN AG\nMITTE", "Mitte\nKunden", "kunden ag mitte"},
		"FX-VISIBLE-TOTAL": {"Gesamtbetrag: 1.234,56 €", "Total 1,234.56 EUR", "Total TTC 1 234,56 €", "Montant TTC\u00a01\u202f234,56\u00a0€",
			"Rechnungsbetrag 1234.56", "Bruttobetrag EUR 1.234,56-", "Grand total: $1,234.56", "Summe (brutto) 1'234.56",
			"Netto       USt       Bruttobetrag\n1.037,44    197,12    1.234,56", "Zahlbetrag 1.234,56 EUR", "1.234,56"},
		"FX-VISIBLE-DUE":      {"Zahlbetrag 1.234,56 €", "zu zahlen: 1.234,56", "Amount due 1,234.56", "Net à payer : 1 234,56 €", "Gesamtbetrag 1.234,56"},
		"FX-VISIBLE-CURRENCY": {"EUR", "1.234,56 €", "Alle Beträge in Euro", "Währung: eur"},
		"FX-VISIBLE-IBAN":     {"IBAN: DE02 1203 0000 0000 2020 51", "IBAN DE02120300000000202051", "de02 1203 0000\n0000 2020 51"},
	}
	for id, pages := range cases {
		for _, text := range pages {
			t.Run(id+"/"+text, func(t *testing.T) {
				r := resultOf(t, Visible(visibleInvoice(), []string{"Rechnung", text}), id)
				if !r.Passed || r.Severity != rules.Warning {
					t.Errorf("%s failed on %q: %s", id, text, r.Message)
				}
			})
		}
	}
}

// TestVisibleMismatch: what differs is reported with the XML value and what the page
// shows, and only that field fails.
func TestVisibleMismatch(t *testing.T) {
	good := []string{
		"Lieferant GmbH · Hauptstraße 1 · 10115 Berlin\nKunden AG Mitte\n",
		"Rechnungsnummer: RE-2026-0042\nRechnungsdatum: 23.11.2026\nGesamtbetrag 1.234,56 €\nZahlbetrag 1.234,56 €\nIBAN DE02 1203 0000 0000 2020 51\n",
	}
	for _, r := range Visible(visibleInvoice(), good) {
		if !r.Passed {
			t.Errorf("consistent page: %s failed: %s", r.ID, r.Message)
		}
	}
	cases := []struct {
		id, from, to string
		want         []string
	}{
		{"FX-VISIBLE-NUMBER", "RE-2026-0042", "RE-2026-0043", []string{`"RE-2026-0042"`, `re-2026-0043`}},
		{"FX-VISIBLE-DATE", "23.11.2026", "22.11.2026", []string{"2026-11-23", `"22.11.2026"`}},
		{"FX-VISIBLE-SELLER", "Lieferant GmbH", "Andere Firma GmbH", []string{`"Lieferant GmbH"`, "does not show it"}},
		{"FX-VISIBLE-BUYER", "Kunden AG Mitte", "Kundin KG Nord", []string{`"Kunden AG Mitte"`}},
		{"FX-VISIBLE-TOTAL", "Gesamtbetrag 1.234,56", "Gesamtbetrag 1.324,56", []string{"1234.56", `"1.324,56" next to "gesamtbetrag"`}},
		{"FX-VISIBLE-DUE", "Zahlbetrag 1.234,56", "Zahlbetrag 1.234,65", []string{"1234.56", `"1.234,65" next to "zahlbetrag"`}},
		{"FX-VISIBLE-IBAN", "2020 51", "2020 99", []string{"DE02120300000000202051", "DE02 1203 0000 0000 2020 99"}},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			pages := []string{strings.ReplaceAll(good[0], c.from, c.to), strings.ReplaceAll(good[1], c.from, c.to)}
			for _, r := range Visible(visibleInvoice(), pages) {
				if r.ID != c.id {
					if !r.Passed {
						t.Errorf("%s failed too: %s", r.ID, r.Message)
					}
					continue
				}
				if r.Passed {
					t.Fatalf("%s passed on a page showing %q", c.id, c.to)
				}
				for _, w := range c.want {
					if !strings.Contains(r.Message, w) {
						t.Errorf("message %q lacks %q", r.Message, w)
					}
				}
			}
		})
	}
	t.Run("currency", func(t *testing.T) {
		r := resultOf(t, Visible(visibleInvoice(), []string{"Total: $1,234.56 USD"}), "FX-VISIBLE-CURRENCY")
		if r.Passed || !strings.Contains(r.Message, "EUR") || !strings.Contains(r.Message, "USD") {
			t.Errorf("currency: %+v", r)
		}
	})
}

// TestVisibleChangedTotal is the issue's case: the page shows 119,00, the XML 129.00.
func TestVisibleChangedTotal(t *testing.T) {
	inv := visibleInvoice()
	inv.Totals.GrossTotal, inv.Totals.AmountDue = einvoice.MustDecimal("129.00"), einvoice.MustDecimal("129.00")
	for _, page := range []string{
		"Nettobetrag 108,40\nUSt 19 % 20,60\nGesamtbetrag 119,00 EUR",
		// The amount due still right: the changed total contradicts it.
		"Gesamtbetrag: 119,00 €\nZahlbetrag: 129,00 €",
		"Total TTC\n119,00",
	} {
		r := resultOf(t, Visible(inv, []string{page}), "FX-VISIBLE-TOTAL")
		if r.Passed || !strings.Contains(r.Message, "129.00") || !strings.Contains(r.Message, "119,00") {
			t.Errorf("%q: %+v", page, r)
		}
	}
	// A credit note: negative in the XML, printed positive or with a trailing minus.
	inv.Totals.GrossTotal, inv.Totals.AmountDue = einvoice.MustDecimal("-129.00"), einvoice.MustDecimal("-129.00")
	for _, page := range []string{"Gutschriftsbetrag 129,00 €", "Gesamtbetrag 129,00- EUR", "Zahlbetrag -129,00"} {
		if r := resultOf(t, Visible(inv, []string{page}), "FX-VISIBLE-TOTAL"); !r.Passed {
			t.Errorf("credit note %q: %s", page, r.Message)
		}
	}
}

// TestVisibleOnlyWhatTheXMLHas: a MINIMUM-like invoice without buyer name or account gets
// no result for them; a nil invoice none at all.
func TestVisibleOnlyWhatTheXMLHas(t *testing.T) {
	inv := visibleInvoice()
	inv.Buyer, inv.Payment = einvoice.Party{}, einvoice.Payment{}
	got := map[string]bool{}
	for _, r := range Visible(inv, nil) {
		got[r.ID] = true
		if r.Passed || !strings.Contains(r.Message, "does not show it") && !strings.Contains(r.Message, "no date") {
			t.Errorf("empty page: %+v", r)
		}
	}
	if got["FX-VISIBLE-BUYER"] || got["FX-VISIBLE-IBAN"] || len(got) != 6 {
		t.Errorf("results %v", got)
	}
	if Visible(nil, []string{"x"}) != nil {
		t.Error("a nil invoice has results")
	}
}

// FuzzVisible: random page text never panics, and a page holding the XML's values in
// plain form always passes whatever surrounds them.
func FuzzVisible(f *testing.F) {
	for _, s := range []string{"Gesamtbetrag 1.234,56 €", "23. November 2026", "1 2 3 4 5,6,7.8.9'0", "\u00a0\u202f€$£ 12/31/99 31.02.2026", "ﬁ ß ÄÖÜ \xff\xfe", strings.Repeat("9,", 100)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		Visible(visibleInvoice(), []string{s, s + "\n" + s})
		page := s + "\nRE-2026-0042 2026-11-23 Lieferant GmbH Kunden AG Mitte EUR DE02120300000000202051\n" + s
		for _, r := range Visible(visibleInvoice(), []string{page}) {
			if !r.Passed && r.ID != "FX-VISIBLE-TOTAL" && r.ID != "FX-VISIBLE-DUE" {
				t.Fatalf("%s failed on %q: %s", r.ID, page, r.Message)
			}
		}
	})
}

// hybrid embeds xml in file as Embed does, without the PDF/A conversion (the checks
// under test do not look at it).
func hybrid(t *testing.T, file, xml []byte) []byte {
	t.Helper()
	d, err := pdf.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	out, err := d.Embed(pdf.File{Name: "factur-x.xml", MIME: "text/xml", Relationship: "Alternative", Data: xml}, pdf.EmbedOptions{}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	return out
}

// printed is a page showing inv's values as an invoice prints them, its grand total
// replaced by total.
func printed(inv *einvoice.Invoice, total string) string {
	date := string(inv.IssueDate)
	lines := []string{
		inv.Seller.Name, "Musterstraße 1, 12345 Musterstadt", "", inv.Buyer.Name, "",
		"Rechnung Nr. " + inv.Number, "Rechnungsdatum: " + date[8:10] + "." + date[5:7] + "." + date[:4], "",
		"Gesamtbetrag: " + total + " " + inv.Currency,
		"Zahlbetrag: " + strings.ReplaceAll(inv.Totals.AmountDue.String(), ".", ",") + " " + inv.Currency,
	}
	for _, ct := range inv.Payment.CreditTransfers {
		lines = append(lines, "IBAN: "+ct.AccountID)
	}
	return strings.Join(lines, "\n")
}

func corpusInvoice(t *testing.T) ([]byte, *einvoice.Invoice) {
	t.Helper()
	xml, err := os.ReadFile(filepath.Join(corpusDir(t), "zugferd", "2.3-examples", "3. EN16931", "EN16931_Physiotherapeut", "factur-x.xml"))
	if err != nil {
		t.Fatal(err)
	}
	inv, _, err := syntax.Read(context.Background(), xml)
	if err != nil {
		t.Fatal(err)
	}
	return xml, inv
}

func engines(t *testing.T) (*poppler.Poppler, *tesseract.Tesseract, ValidateOptions) {
	pop := poppler.New(engine.Config{Concurrency: 2, JobTimeout: time.Minute, TempRoot: t.TempDir()})
	ts := tesseract.New(engine.Config{Concurrency: 2, JobTimeout: 2 * time.Minute, TempRoot: t.TempDir()})
	return pop, ts, ValidateOptions{Pages: func(ctx context.Context, b []byte) ([]string, error) {
		return ocr.PageTexts(ctx, pop, pop, ts, b, 10)
	}}
}

// TestValidateVisibleChangedTotal is the issue's "done when": a PDF whose visible total
// was changed is flagged, by FX-VISIBLE-TOTAL only, and the report stays valid as far
// as the XML goes (the check is a warning).
func TestValidateVisibleChangedTotal(t *testing.T) {
	xml, inv := corpusInvoice(t)
	changed := inv.Totals.GrossTotal.Value().Add(inv.Totals.GrossTotal.Value().Div(einvoice.MustDecimal("10").Value()).Round(2))
	shown := strings.ReplaceAll(changed.StringFixed(2), ".", ",")
	file := hybrid(t, testpdf.Text("Helvetica", 14, printed(inv, shown)), xml)
	if got := testtool.Text(t, file); !strings.Contains(got, shown) {
		t.Fatalf("pdftotext does not show the changed total %s:\n%s", shown, got)
	}
	_, _, o := engines(t)
	r, err := Validate(context.Background(), file, o)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, x := range r.PDF.Results {
		if !strings.HasPrefix(x.ID, "FX-VISIBLE") {
			continue
		}
		seen++
		if x.Severity != rules.Warning {
			t.Errorf("%s is %s", x.ID, x.Severity)
		}
		want := x.ID != "FX-VISIBLE-TOTAL"
		if x.Passed != want {
			t.Errorf("%s passed %v: %s", x.ID, x.Passed, x.Message)
		}
	}
	if seen != 8 {
		t.Errorf("%d FX-VISIBLE results, want 8", seen)
	}
	total := resultOf(t, r.PDF.Results, "FX-VISIBLE-TOTAL")
	if !strings.Contains(total.Message, inv.Totals.GrossTotal.String()) || !strings.Contains(total.Message, shown) {
		t.Errorf("message lacks %s or %s: %s", inv.Totals.GrossTotal, shown, total.Message)
	}
	// The same file read without pages has no FX-VISIBLE results.
	r, err = Validate(context.Background(), file, ValidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range r.PDF.Results {
		if strings.HasPrefix(x.ID, "FX-VISIBLE") {
			t.Errorf("without Pages: %s", x.ID)
		}
	}
}

// TestValidateVisibleScanned: a page that is only an image is read by Tesseract, and
// every value of the XML is found on it.
func TestValidateVisibleScanned(t *testing.T) {
	xml, inv := corpusInvoice(t)
	total := strings.ReplaceAll(inv.Totals.GrossTotal.String(), ".", ",")
	page := testpdf.Text("Helvetica", 14, printed(inv, total))
	pop, _, o := engines(t)
	imgs, err := pop.Render(context.Background(), page, []int{1}, poppler.RenderOptions{DPI: 300, Format: poppler.PNG})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(imgs[0])); err != nil {
		t.Fatal(err)
	}
	scan, err := pdf.ImagesToPDF(context.Background(), imgs, pdf.ImagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	file := hybrid(t, scan, xml)
	if got := strings.TrimSpace(testtool.Text(t, file)); got != "" {
		t.Fatalf("the scan has text: %q", got)
	}
	r, err := Validate(context.Background(), file, o)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, x := range r.PDF.Results {
		if strings.HasPrefix(x.ID, "FX-VISIBLE") {
			seen++
			if !x.Passed {
				t.Errorf("%s: %s", x.ID, x.Message)
			}
		}
	}
	if seen != 8 {
		t.Errorf("%d FX-VISIBLE results, want 8", seen)
	}
}

// TestValidateVisibleUnreadable: pages that cannot be read give one warning; the rest of
// the report stands. A request that has ended ends the validation.
func TestValidateVisibleUnreadable(t *testing.T) {
	xml, inv := corpusInvoice(t)
	file := hybrid(t, testpdf.Text("Helvetica", 14, printed(inv, "1,00")), xml)
	failing := ValidateOptions{Pages: func(ctx context.Context, b []byte) ([]string, error) {
		return nil, fmt.Errorf("pdftotext crashed")
	}}
	r, err := Validate(context.Background(), file, failing)
	if err != nil {
		t.Fatal(err)
	}
	x := resultOf(t, r.PDF.Results, "FX-VISIBLE")
	if x.Passed || !strings.Contains(x.Message, "pdftotext crashed") {
		t.Errorf("%+v", x)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, o := engines(t)
	if _, err := Validate(ctx, file, o); err == nil {
		t.Error("a cancelled request was validated")
	}
}
