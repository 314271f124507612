package view

import (
	"bytes"
	"context"
	"encoding/base64"
	"os"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testinvoice"
)

const comprehensive = corpus + "/xrechnung-testsuite/technical-cases/cius/01.01_comprehensive_test_uncefact.xml"

// corpus is the shared test data (SOURCES.md says where each folder comes from).
const corpus = "../../../shared/corpus"

func readInvoice(t testing.TB, path string) (*einvoice.Invoice, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	inv, _, err := syntax.Read(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	return inv, data
}

func render(t testing.TB, inv *einvoice.Invoice, o Options) []byte {
	t.Helper()
	page, err := HTML(inv, o)
	if err != nil {
		t.Fatal(err)
	}
	return page
}

func text(t testing.TB, page []byte) string {
	t.Helper()
	s, err := testinvoice.VisibleText(page)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// element is one start tag of a page, its attributes decoded.
type element struct {
	tag   string
	attrs map[string]string
}

// elements parses a page with golang.org/x/net/html (the HTML5 tree builder browsers
// follow) and lists its elements.
func elements(t testing.TB, page []byte) []element {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var out []element
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			e := element{tag: n.Data, attrs: map[string]string{}}
			for _, a := range n.Attr {
				e.attrs[a.Key] = a.Val
			}
			out = append(out, e)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return out
}

func TestLanguageUnknown(t *testing.T) {
	inv, _ := readInvoice(t, comprehensive)
	for _, lang := range []string{"es", "DE", "de-DE", " en", "<script>"} {
		_, err := HTML(inv, Options{Language: lang})
		if !fault.Is(err, fault.InvalidInput) {
			t.Errorf("language %q: got %v, want %s", lang, err, fault.InvalidInput)
		}
	}
	if _, err := HTML(nil, Options{}); !fault.Is(err, fault.InvalidInput) {
		t.Errorf("nil invoice: got %v, want %s", err, fault.InvalidInput)
	}
}

func TestLanguagesAndTitle(t *testing.T) {
	if got := strings.Join(Languages(), ","); got != "de,en,fr" {
		t.Fatalf("Languages() = %s", got)
	}
	Languages()[0] = "xx" // the caller's copy: must not change the package's list
	if Languages()[0] != "de" {
		t.Fatal("Languages() hands out the package's own slice")
	}
	inv := &einvoice.Invoice{Number: "471102", TypeCode: "380"}
	cn := &einvoice.Invoice{Number: "12", TypeCode: "381"}
	for _, c := range []struct {
		inv        *einvoice.Invoice
		lang, want string
	}{
		{inv, "", "Rechnung 471102"}, {inv, "de", "Rechnung 471102"}, {inv, "en", "Invoice 471102"},
		{inv, "fr", "Facture 471102"}, {cn, "de", "Gutschrift 12"}, {cn, "en", "Credit note 12"},
		{cn, "fr", "Avoir 12"}, {&einvoice.Invoice{}, "en", "Invoice"},
	} {
		if got := Title(c.inv, c.lang); got != c.want {
			t.Errorf("Title(%s, %q) = %q, want %q", c.inv.Number, c.lang, got, c.want)
		}
		page := render(t, c.inv, Options{Language: c.lang})
		if !bytes.Contains(page, []byte("<title>"+c.want+"</title>")) {
			t.Errorf("%q page has not the title %q", c.lang, c.want)
		}
		lang := c.lang
		if lang == "" {
			lang = "de"
		}
		if !bytes.Contains(page, []byte(`<html lang="`+lang+`">`)) {
			t.Errorf("page in %q does not say its language", lang)
		}
	}
}

// TestFormats checks the figures a reader sees, per language, on an invoice built for it.
func TestFormats(t *testing.T) {
	d := einvoice.MustDecimal
	inv := &einvoice.Invoice{
		Number: "R-1", TypeCode: "384", Currency: "EUR", BuyerReference: "04011000-12345-34", IssueDate: "2026-11-23", DueDate: "2026-12-03",
		TaxPointDate: "23.11.2026", // odd: shown as written
		Totals: einvoice.Totals{
			LineTotal: d("1234567.891"), NetTotal: d("-1234.50"), GrossTotal: d("999"), AmountDue: d("0.5"),
		},
		VATBreakdown: []einvoice.VATBreakdown{{Category: "S", Rate: d("19.00"), TaxableAmount: d("1000"), TaxAmount: d("190.00")}},
		Payment: einvoice.Payment{MeansCode: "58", CreditTransfers: []einvoice.CreditTransfer{
			{AccountID: "DE02120300000000202051"}, {AccountID: "0123456789", Proprietary: true}, {AccountID: "de02 1203"},
		}},
		Lines: []einvoice.Line{{ID: "1", Quantity: d("10000"), Unit: "HUR", NetAmount: d("1"), Item: einvoice.Item{Name: "x"}}},
	}
	cases := map[string][]string{
		"de": {"1.234.567,891 EUR", "-1.234,50 EUR", "999 EUR", "0,5 EUR", "23.11.2026", "03.12.2026", "19,00 %",
			"Regelsatz (S)", "Rechnungskorrektur (384)", "SEPA-Überweisung (58)", "10.000 Stunde (HUR)", "Leitweg-ID / Käuferreferenz 04011000-12345-34", "Zahlbetrag 0,5 EUR"},
		"en": {"1,234,567.891 EUR", "-1,234.50 EUR", "23 Nov 2026", "3 Dec 2026", "19.00 %", "Standard rate (S)",
			"Corrected invoice (384)", "10,000 hour (HUR)"},
		"fr": {"1 234 567,891 EUR", "-1 234,50 EUR", "23/11/2026", "03/12/2026", "19,00 %", "Taux normal (S)",
			"Facture rectificative (384)", "10 000 heure (HUR)"},
	}
	for lang, wants := range cases {
		page := render(t, inv, Options{Language: lang})
		s := text(t, page)
		for _, w := range append(wants, "DE02 1203 0000 0000 2020 51", "0123456789", "de02 1203", "23.11.2026") {
			if !strings.Contains(s, w) {
				t.Errorf("%s: %q not in %q", lang, w, s)
			}
		}
		if lang == "fr" && !bytes.Contains(page, []byte("1\u202f234\u202f567,891")) {
			t.Error("fr: thousands are not grouped with U+202F")
		}
	}
}

// TestEscaping puts markup and quotes into every kind of place a value lands (text,
// multi-line text, link, download name, MIME) and checks that no element or attribute
// comes from the invoice, while the text still reads as written.
func TestEscaping(t *testing.T) {
	evil := `<script>alert("x")</script><img src=x onerror=alert(1)>"'&amp;`
	inv := &einvoice.Invoice{
		Number: evil, Currency: `EUR"><b>`, BuyerReference: evil,
		Seller: einvoice.Party{Name: evil, Address: einvoice.Address{Line1: evil, Country: "DE"}, ElectronicAddress: einvoice.Identifier{ID: evil, Scheme: `"EM`}},
		Buyer:  einvoice.Party{Name: "</title></head><body><script>"},
		Notes:  []einvoice.Note{{SubjectCode: `"><svg onload=alert(1)>`, Text: "line 1\n" + evil}},
		Lines:  []einvoice.Line{{ID: evil, Item: einvoice.Item{Name: evil, Attributes: []einvoice.ItemAttribute{{Name: evil, Value: evil}}}}},
		Documents: []einvoice.SupportingDocument{
			{ID: "js", URI: "javascript:alert(1)"},
			{ID: "data", URI: "data:text/html;base64,PHNjcmlwdD4="},
			{ID: "quote", URI: `https://example.com/a?b="><script>alert(1)</script>`},
			{ID: "file", Attachment: einvoice.Attachment{File: []byte("<html><script>alert(1)</script>"), ContentType: "text/html", Filename: `"><script>.html`}},
			{ID: "mime", Attachment: einvoice.Attachment{File: []byte("%PDF-"), ContentType: `application/pdf";x="`, Filename: "a.pdf"}},
		},
	}
	for _, lang := range Languages() {
		page := render(t, inv, Options{Language: lang})
		var hrefs []string
		for _, e := range elements(t, page) {
			switch e.tag {
			case "script", "img", "svg", "b", "iframe", "object", "embed":
				t.Fatalf("%s: the invoice injected a <%s> element", lang, e.tag)
			}
			for k := range e.attrs {
				if strings.HasPrefix(k, "on") || k == "src" {
					t.Fatalf("%s: the invoice injected the attribute %s on <%s>", lang, k, e.tag)
				}
			}
			if h, ok := e.attrs["href"]; ok {
				hrefs = append(hrefs, h)
			}
		}
		var links, downloads int
		for _, h := range hrefs {
			switch {
			case h == `https://example.com/a?b="><script>alert(1)</script>`,
				h == "https://example.com/a?b=%22%3e%3cscript%3ealert%281%29%3c/script%3e":
				links++
			case strings.HasPrefix(h, "data:application/octet-stream;base64,"):
				downloads++
				b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(h, "data:application/octet-stream;base64,"))
				if err != nil || (string(b) != "<html><script>alert(1)</script>" && string(b) != "%PDF-") {
					t.Errorf("%s: download carries %q (%v)", lang, b, err)
				}
			default:
				t.Errorf("%s: unexpected link %q", lang, h)
			}
		}
		if links != 1 || downloads != 2 {
			t.Errorf("%s: %d web links and %d downloads, want 1 and 2 (hrefs %q)", lang, links, downloads, hrefs)
		}
		s := text(t, page)
		for _, w := range []string{testinvoice.Collapse(evil), "javascript:alert(1)", "data:text/html;base64,PHNjcmlwdD4=", `"><script>.html`, "</title></head><body><script>"} {
			if !strings.Contains(s, w) {
				t.Errorf("%s: %q is not shown as text", lang, w)
			}
		}
		if missing, _ := testinvoice.Missing(inv, page, lang); len(missing) > 0 {
			t.Errorf("%s: not shown: %q", lang, missing)
		}
	}
}

func TestPrintHasNoDataURIs(t *testing.T) {
	inv, _ := readInvoice(t, comprehensive)
	var files int
	for _, d := range inv.Documents {
		if len(d.Attachment.File) > 0 {
			files++
		}
	}
	if files == 0 {
		t.Fatal("the comprehensive test invoice has no attached file any more: pick another")
	}
	screen := render(t, inv, Options{Language: "de"})
	print := render(t, inv, Options{Language: "de", Print: true})
	count := func(page []byte) (n int) {
		for _, e := range elements(t, page) {
			if e.tag == "a" && strings.HasPrefix(e.attrs["href"], "data:") {
				if _, ok := e.attrs["download"]; !ok {
					t.Error("a data: link without the download attribute")
				}
				n++
			}
		}
		return n
	}
	if n := count(screen); n != files {
		t.Errorf("screen: %d download links, want %d", n, files)
	}
	if n := count(print); n != 0 || bytes.Contains(print, []byte("data:")) {
		t.Errorf("print: %d data: links", n)
	}
	if len(print) >= len(screen) {
		t.Errorf("the print page (%d bytes) is not smaller than the screen page (%d)", len(print), len(screen))
	}
	if missing, _ := testinvoice.Missing(inv, print, "de"); len(missing) > 0 {
		t.Errorf("print page misses %q", missing)
	}
}

// TestSelfContained: no script, no external resource, fonts and A4 print rules inline.
func TestSelfContained(t *testing.T) {
	inv, _ := readInvoice(t, comprehensive)
	page := render(t, inv, Options{Language: "en", Print: true})
	for _, e := range elements(t, page) {
		switch e.tag {
		case "script", "link", "img", "iframe", "object", "embed", "base":
			t.Errorf("element <%s> in the page", e.tag)
		}
	}
	for _, w := range []string{`"Liberation Sans","DejaVu Sans","Noto Sans",sans-serif`, "@page{size:A4;margin:15mm}", "thead{display:table-header-group}", "tr{break-inside:avoid}", `scope="col"`, `scope="row"`, "<h1>", "<h2"} {
		if !bytes.Contains(page, []byte(w)) {
			t.Errorf("page lacks %s", w)
		}
	}
	if bytes.Contains(page, []byte("@font-face")) || bytes.Contains(page, []byte("url(")) {
		t.Error("the page loads a font or a resource")
	}
}

// TestEmpty: an invoice with nothing in it, and one with every optional group present but
// empty, render without error in every language.
func TestEmpty(t *testing.T) {
	for _, inv := range []*einvoice.Invoice{
		{},
		{Lines: []einvoice.Line{{SubLines: []einvoice.Line{{}}}}, Notes: []einvoice.Note{{}}, Documents: []einvoice.SupportingDocument{{}},
			PrecedingInvoices: []einvoice.PrecedingInvoice{{}}, Allowances: []einvoice.AllowanceCharge{{}}, VATBreakdown: []einvoice.VATBreakdown{{}},
			PrepaidPayments: []einvoice.PrepaidPayment{{}}, Payment: einvoice.Payment{CreditTransfers: []einvoice.CreditTransfer{{}}}},
	} {
		for _, lang := range Languages() {
			page := render(t, inv, Options{Language: lang, Report: &rules.Report{Valid: true}})
			if _, err := html.Parse(bytes.NewReader(page)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestSubLinesAndCharges: sub-lines sit indented under their parent with their status,
// line allowances and charges under their line, in document order.
func TestSubLinesAndCharges(t *testing.T) {
	d := einvoice.MustDecimal
	inv := &einvoice.Invoice{Currency: "EUR", Lines: []einvoice.Line{{
		ID: "1", Item: einvoice.Item{Name: "Bundle"}, NetAmount: d("100.00"),
		Allowances: []einvoice.AllowanceCharge{{Amount: d("5.00"), Percentage: d("5"), BaseAmount: d("100.00"), Reason: "Rabatt", ReasonCode: "95"}},
		SubLines: []einvoice.Line{{ID: "1.1", StatusReasonCode: "DETAIL", Item: einvoice.Item{Name: "Part A"},
			SubLines: []einvoice.Line{{ID: "1.1.1", StatusReasonCode: "INFORMATION", Item: einvoice.Item{Name: "Screw"}}}}},
	}, {ID: "2", Item: einvoice.Item{Name: "Single"}}}}
	page := render(t, inv, Options{Language: "de"})
	s := text(t, page)
	order := []string{"1 Bundle", "Nachlass: Rabatt (Code 95)", "5 % von 100,00 EUR", "5,00 EUR", "1.1 Part A", "Status: DETAIL", "1.1.1 Screw", "Status: INFORMATION", "2 Single"}
	at := 0
	for _, w := range order {
		i := strings.Index(s[at:], w)
		if i < 0 {
			t.Fatalf("%q not found after position %d in %q", w, at, s)
		}
		at += i + len(w)
	}
	var depths []string
	for _, e := range elements(t, page) {
		if e.tag == "tr" && e.attrs["class"] != "" {
			depths = append(depths, e.attrs["class"])
		}
	}
	if got := strings.Join(depths, ","); got != "d0,ac d0,d1,d2,d0" {
		t.Errorf("row classes %s", got)
	}
}

// TestValidationBanner uses the real validator: a valid corpus invoice gets a green
// banner; the same invoice with its totals broken gets the counts of the report and a
// section listing each failed rule.
func TestValidationBanner(t *testing.T) {
	ctx := context.Background()
	inv, data := readInvoice(t, comprehensive)
	ok, err := rules.Validate(ctx, data)
	if err != nil || !ok.Valid {
		t.Fatalf("corpus invoice: valid %v, %v", ok != nil && ok.Valid, err)
	}
	page := render(t, inv, Options{Language: "de", Report: ok})
	s := text(t, page)
	if want := "Gültig: 0 Fehler, " + itoa(ok.Summary.Warnings) + " Warnungen"; !strings.Contains(s, want) {
		t.Errorf("valid banner %q missing: %.300s", want, s)
	}
	if len(ok.Failed()) == 0 && !strings.Contains(s, "Alle geprüften Regeln sind erfüllt.") {
		t.Error("no failures, but the section does not say so")
	}
	if !bytes.Contains(page, []byte(`href="#validation"`)) || !bytes.Contains(page, []byte(`id="validation"`)) {
		t.Error("banner does not link to the validation section")
	}

	broken := bytes.Replace(data, []byte("<ram:DuePayableAmount>"), []byte("<ram:DuePayableAmount>9"), 1)
	bad, err := rules.Validate(ctx, broken)
	if err != nil || bad.Valid || bad.Summary.Errors == 0 {
		t.Fatalf("broken invoice: %+v, %v", bad.Summary, err)
	}
	for _, lang := range Languages() {
		page = render(t, inv, Options{Language: lang, Report: bad})
		s = text(t, page)
		want := map[string]string{"de": "Ungültig: %d Fehler, %d Warnungen", "en": "Invalid: %d errors, %d warnings", "fr": "Non valide : %d erreurs, %d avertissements"}[lang]
		want = strings.Replace(strings.Replace(want, "%d", itoa(bad.Summary.Errors), 1), "%d", itoa(bad.Summary.Warnings), 1)
		if !strings.Contains(s, want) {
			t.Errorf("%s: banner %q not in %.400s", lang, want, s)
		}
		_, section, _ := strings.Cut(s, labels["validation"][mustLang(lang)])
		for _, r := range bad.Failed() {
			if !strings.Contains(section, r.ID+" ") || !strings.Contains(section, testinvoice.Collapse(r.Message)) {
				t.Errorf("%s: failed rule %s not listed", lang, r.ID)
			}
		}
	}
}

func mustLang(l string) int {
	i, _ := langIndex(l)
	return i
}

func TestNumberFormat(t *testing.T) {
	for _, c := range []struct{ in, de, en, fr string }{
		{"0", "0", "0", "0"},
		{"-0.5", "-0,5", "-0.5", "-0,5"},
		{"123", "123", "123", "123"},
		{"1234", "1.234", "1,234", "1\u202f234"},
		{"-123456.7890", "-123.456,7890", "-123,456.7890", "-123\u202f456,7890"},
		{"1000000000000000000000000000000.000001", "1.000.000.000.000.000.000.000.000.000.000,000001", "1,000,000,000,000,000,000,000,000,000,000.000001", "1\u202f000\u202f000\u202f000\u202f000\u202f000\u202f000\u202f000\u202f000\u202f000\u202f000,000001"},
	} {
		v := einvoice.MustDecimal(c.in)
		for i, want := range []string{c.de, c.en, c.fr} {
			if got := (format{lang: i}).num(v); got != want {
				t.Errorf("%s in %s: %q, want %q", c.in, languages[i], got, want)
			}
		}
	}
	if got := (format{}).num(einvoice.Decimal{}); got != "" {
		t.Errorf("absent number shown as %q", got)
	}
}

func TestIBAN(t *testing.T) {
	for in, want := range map[string]string{
		"DE02120300000000202051":      "DE02 1203 0000 0000 2020 51",
		"NL91ABNA0417164300":          "NL91 ABNA 0417 1643 00",
		"DE02 1203 0000 0000 2020 51": "DE02 1203 0000 0000 2020 51",
		"1234567890":                  "1234567890",
		"de02120300000000202051":      "de02120300000000202051",
		"":                            "",
	} {
		if got := iban(in); got != want {
			t.Errorf("iban(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLogisticsChargesShown: ZUGFeRD EXTENDED's logistics service fees are listed among
// the document level charges (the charge total counts them), with their description.
func TestLogisticsChargesShown(t *testing.T) {
	d := einvoice.MustDecimal
	inv := &einvoice.Invoice{Currency: "EUR", Charges: []einvoice.AllowanceCharge{{Amount: d("2.00"), Reason: "Verpackung"}},
		LogisticsCharges: []einvoice.LogisticsCharge{{Description: "Transportkosten", Amount: d("3.00"), VATCategory: "S", VATRate: d("19.00")}}}
	s := text(t, render(t, inv, Options{Language: "de"}))
	at := 0
	for _, w := range []string{"Zuschlag Verpackung", "2,00 EUR", "Zuschlag Transportkosten", "Regelsatz (S) 19,00 %", "3,00 EUR"} {
		i := strings.Index(s[at:], w)
		if i < 0 {
			t.Fatalf("%q not found after position %d in %q", w, at, s)
		}
		at += i + len(w)
	}
}
