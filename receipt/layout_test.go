package receipt

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/engine/tesseract"
	"github.com/papierkram/papierkram/internal/lazyre"
	"github.com/papierkram/papierkram/internal/testpdf"
)

// letterhead is an invoice in a DIN 5008 layout: the sender's line over the recipient's
// window on the left, the sender's block and the invoice's terms on the right, on the same
// rows; a line table whose second amount stands a little under its row; the IBAN under its
// label, broken over two lines of a narrow cell.
var letterhead = []testpdf.At{
	{X: 60, Y: 130, Text: "Nordlicht Software GmbH - Hafenstr. 3 - 20457 Hamburg"},
	{X: 60, Y: 150, Text: "Bäckerei Sonnenschein KG"},
	{X: 60, Y: 162, Text: "Marktplatz 7"},
	{X: 60, Y: 174, Text: "04109 Leipzig"},
	{X: 360, Y: 60, Text: "Nordlicht Software GmbH"},
	{X: 360, Y: 72, Text: "Hafenstr. 3"},
	{X: 360, Y: 84, Text: "20457 Hamburg"},
	{X: 360, Y: 150, Text: "Rechnungsnummer:"},
	{X: 470, Y: 150, Text: "NL-2026-117"},
	{X: 360, Y: 162, Text: "Lieferdatum:"},
	{X: 470, Y: 162, Text: "10.10.2026"},
	{X: 360, Y: 174, Text: "Rechnungsdatum:"},
	{X: 470, Y: 174, Text: "14.10.2026"},
	{X: 60, Y: 300, Text: "Pos"},
	{X: 100, Y: 300, Text: "Bezeichnung"},
	{X: 300, Y: 300, Text: "Menge"},
	{X: 370, Y: 300, Text: "Einzelpreis"},
	{X: 480, Y: 300, Text: "Betrag"},
	{X: 60, Y: 320, Text: "1"},
	{X: 100, Y: 320, Text: "Webhosting Jahrespaket"},
	{X: 300, Y: 320, Text: "1"},
	{X: 370, Y: 320, Text: "240,00"},
	{X: 480, Y: 320, Text: "240,00"},
	{X: 60, Y: 340, Text: "2"},
	{X: 100, Y: 340, Text: "Domain"},
	{X: 300, Y: 340, Text: "3"},
	{X: 370, Y: 340, Text: "12,00"},
	{X: 480, Y: 350, Text: "36,00"},
	{X: 370, Y: 420, Text: "Nettobetrag"},
	{X: 480, Y: 420, Text: "276,00"},
	{X: 370, Y: 434, Text: "USt 19 %"},
	{X: 480, Y: 434, Text: "52,44"},
	{X: 370, Y: 448, Text: "Gesamtbetrag"},
	{X: 480, Y: 448, Text: "328,44"},
	{X: 60, Y: 700, Text: "Bank"},
	{X: 60, Y: 712, Text: "Hamburger Sparkasse"},
	{X: 200, Y: 700, Text: "IBAN"},
	{X: 200, Y: 712, Text: "DE02 1203 0000 0000"},
	{X: 200, Y: 724, Text: "2020 51"},
}

// TestTwoColumnLetterhead: the parties of a two-column letterhead, the terms beside the
// recipient's address, the line table and the IBAN under its label are read by their
// positions.
func TestTwoColumnLetterhead(t *testing.T) {
	r, err := newExtractor(t).Invoice(t.Context(), testpdf.TextAt("Helvetica", 9, letterhead))
	if err != nil {
		t.Fatal(err)
	}
	inv := r.Invoice
	if inv.Seller.Name != "Nordlicht Software GmbH" || inv.Seller.Address.PostCode != "20457" {
		t.Errorf("seller %q %+v", inv.Seller.Name, inv.Seller.Address)
	}
	if b := inv.Buyer; b.Name != "Bäckerei Sonnenschein KG" || b.Address.Line1 != "Marktplatz 7" || b.Address.PostCode != "04109" || b.Address.City != "Leipzig" {
		t.Errorf("buyer %q %+v", b.Name, b.Address)
	}
	if inv.Number != "NL-2026-117" || inv.IssueDate != "2026-10-14" {
		t.Errorf("number %q, issue date %q", inv.Number, inv.IssueDate)
	}
	if ct := inv.Payment.CreditTransfers; len(ct) != 1 || ct[0].AccountID != "DE02120300000000202051" {
		t.Errorf("payment %+v", inv.Payment)
	}
	if tt := inv.Totals; tt.NetTotal.String() != "276.00" || tt.VATTotal.String() != "52.44" || tt.GrossTotal.String() != "328.44" {
		t.Errorf("totals %+v", tt)
	}
	if len(inv.Lines) != 2 || inv.Lines[0].Item.Name != "Webhosting Jahrespaket" || inv.Lines[1].Item.Name != "Domain" || inv.Lines[1].Quantity.String() != "3" || inv.Lines[1].NetAmount.String() != "36.00" {
		t.Errorf("lines %+v", inv.Lines)
	}
}

// page builds a layout page from placed texts, one word per text's word, 10 points high
// and 5 points a letter wide.
func page(texts ...testpdf.At) poppler.LayoutPage {
	return layoutPage(texts, func(t testpdf.At) (ws []poppler.Word) {
		x := t.X
		for _, w := range strings.Fields(t.Text) {
			ws = append(ws, poppler.Word{Box: poppler.Box{X0: x, Y0: t.Y, X1: x + 5*float64(len([]rune(w))), Y1: t.Y + 10}, Text: w})
			x += 5*float64(len([]rune(w))) + 3
		}
		return ws
	})
}

// layoutPage builds an A4 layout page of one poppler line per placed text, its words made
// by words.
func layoutPage(texts []testpdf.At, words func(testpdf.At) []poppler.Word) poppler.LayoutPage {
	p := poppler.LayoutPage{Width: 595, Height: 842}
	for _, t := range texts {
		p.Blocks = append(p.Blocks, poppler.Block{Lines: []poppler.Line{{Words: words(t)}}})
	}
	return p
}

// TestLabelled: a value right of its label or under it; a label that is only the start of
// another ("Date d'échéance" for "Date") is none.
func TestLabelled(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 40, Y: 100, Text: "Date d'échéance"}, testpdf.At{X: 200, Y: 100, Text: "30/01/2019"},
		testpdf.At{X: 40, Y: 120, Text: "Date"}, testpdf.At{X: 200, Y: 120, Text: "Ihre Zeichen"},
		testpdf.At{X: 40, Y: 132, Text: "31/12/2018"},
		testpdf.At{X: 300, Y: 200, Text: "Invoice No."}, testpdf.At{X: 300, Y: 212, Text: "INV-77 (copy)"},
	)})
	if got := l.labelled(genericDateRE, layoutDate, 5); len(got) != 1 || got[0] != "2018-12-31" {
		t.Errorf("date %q", got)
	}
	if got := l.labelled(numberLabelRE, layoutNumber, 5); len(got) != 1 || got[0] != "INV-77" {
		t.Errorf("number %q", got)
	}
}

// TestLayoutParties: of two address blocks side by side without headings, the left one in
// the letter's window is the recipient's; a heading over a block says whose it is.
func TestLayoutParties(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 57, Y: 110, Text: "Adatum Corporation"}, testpdf.At{X: 57, Y: 124, Text: "Station Road, 21"}, testpdf.At{X: 57, Y: 138, Text: "48436 Düsseldorf"},
		testpdf.At{X: 480, Y: 110, Text: "CRONUS DE"}, testpdf.At{X: 480, Y: 124, Text: "Hofstraße 12"}, testpdf.At{X: 480, Y: 138, Text: "20097 Hamburg"},
	)})
	g := layoutParties(l, "")
	if g.seller == nil || g.buyer == nil || g.seller.name != "CRONUS DE" || g.buyer.name != "Adatum Corporation" || g.sellerStrong || g.buyerStrong {
		t.Errorf("side by side: %+v", g)
	}
	l = newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 40, Y: 60, Text: "LE FOURNISSEUR"}, testpdf.At{X: 40, Y: 72, Text: "35 rue d'ici"}, testpdf.At{X: 40, Y: 84, Text: "75018 PARIS, FR"},
		testpdf.At{X: 300, Y: 60, Text: "Adresse du Client"},
		testpdf.At{X: 310, Y: 74, Text: "LE CLIENT"}, testpdf.At{X: 310, Y: 86, Text: "58 rue de la mer"}, testpdf.At{X: 310, Y: 98, Text: "06000 NICE"},
	)})
	g = layoutParties(l, "")
	if g.buyer == nil || g.buyer.name != "LE CLIENT" || !g.buyerStrong || g.buyer.address.City != "NICE" || g.seller == nil || g.seller.name != "LE FOURNISSEUR" || g.seller.address.Country != "FR" {
		t.Errorf("headed: %+v", g)
	}
	inv := &einvoice.Invoice{}
	inv.Buyer.Name = "58 rue de la mer      Buyer line 2"
	g.apply(inv)
	if inv.Buyer.Name != "LE CLIENT" || inv.Seller.Name != "LE FOURNISSEUR" {
		t.Errorf("applied: seller %q, buyer %q", inv.Seller.Name, inv.Buyer.Name)
	}
}

// FuzzLayoutInvoice: any word boxes pdftotext could give are read without a panic.
func FuzzLayoutInvoice(f *testing.F) {
	f.Add(`<doc><page width="595" height="842"><flow><block><line><word xMin="60" yMin="100" xMax="120" yMax="110">Rechnungsnummer:</word><word xMin="130" yMin="100" xMax="160" yMax="110">R-1</word></line><line><word xMin="60" yMin="112" xMax="90" yMax="122">Menge</word><word xMin="200" yMin="112" xMax="240" yMax="122">Preis</word><word xMin="300" yMin="112" xMax="340" yMax="122">Betrag</word></line><line><word xMin="60" yMin="124" xMax="70" yMax="134">2</word><word xMin="200" yMin="124" xMax="240" yMax="134">1,50</word><word xMin="300" yMin="124" xMax="340" yMax="134">3,00</word></line></block></flow></page></doc>`, "Nettobetrag 3,00")
	f.Add(`<page><block><line><word xMin="1e300" yMin="-5" xMax="-1e300" yMax="0">IBAN</word></line></block></page>`, "")
	// A table cut by a page break, an allowance under it, a word split a hair apart.
	f.Add(`<doc><page width="595" height="842"><flow><block><line><word xMin="60" yMin="800" xMax="90" yMax="810">Menge</word><word xMin="200" yMin="800" xMax="240" yMax="810">Preis</word><word xMin="300" yMin="800" xMax="340" yMax="810">Entgelt</word></line></block></flow></page><page width="595" height="842"><flow><block><line><word xMin="60" yMin="40" xMax="70" yMax="50">2</word><word xMin="100" yMin="40" xMax="150" yMax="50">Stift</word><word xMin="200" yMin="40" xMax="240" yMax="50">1,50</word><word xMin="300" yMin="40" xMax="340" yMax="50">3,00</word></line><line><word xMin="100" yMin="70" xMax="150" yMax="80">Rabatt</word><word xMin="300" yMin="70" xMax="340" yMax="80">0,50</word></line><line><word xMin="100" yMin="100" xMax="140" yMax="110">Zahlbetr</word><word xMin="141" yMin="100" xMax="150" yMax="110">ag</word><word xMin="300" yMin="100" xMax="340" yMax="110">2,98</word></line></block></flow></page></doc>`, "Nettobetrag 2,50\nZahlbetr ag 2,98")
	f.Fuzz(func(t *testing.T, bbox, text string) {
		pages, _ := poppler.ParseBBox(strings.NewReader(bbox))
		inv := ParseInvoice(text, now)
		refineByLayout(inv, text, newLayout(pages))
		// The whole reading with the layout: split words mended, line tables read by
		// their columns (over page breaks, with the allowances under them).
		l := newLayout(pages)
		parseInvoice(l.mendSplitWords(text), now, l)
	})
}

// TestTitleNumberDate: a title names the number after a few words, and the date after it on
// the line or under it.
func TestTitleNumberDate(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 50, Y: 100, Text: "Rechnung des Versicherers Nr. 01.234.567.8-2018-1 vom"},
		testpdf.At{X: 50, Y: 112, Text: "06.12.2018"},
	)})
	if n, d := titleNumberDate(l); n != "01.234.567.8-2018-1" || d != "2018-12-06" {
		t.Errorf("under: %q %q", n, d)
	}
	l = newLayout([]poppler.LayoutPage{page(testpdf.At{X: 50, Y: 100, Text: "Facture N° F-2024-7 du 3 mars 2024"})})
	if n, d := titleNumberDate(l); n != "F-2024-7" || d != "2024-03-03" {
		t.Errorf("on the line: %q %q", n, d)
	}
}

// TestCreditNoteSigns: a credit note that prints its net and total negative and its VAT
// without sign gets all three negative.
func TestCreditNoteSigns(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 300, Y: 500, Text: "Total HT"}, testpdf.At{X: 450, Y: 500, Text: "-218,48 €"},
		testpdf.At{X: 300, Y: 512, Text: "Taxes"}, testpdf.At{X: 450, Y: 512, Text: "14,99 €"},
		testpdf.At{X: 300, Y: 524, Text: "Total TTC"}, testpdf.At{X: 450, Y: 524, Text: "-233,47 €"},
	)})
	inv := &einvoice.Invoice{}
	inv.Totals.GrossTotal = einvoice.MustDecimal("233.47")
	inv.Totals.AmountDue = einvoice.MustDecimal("233.47")
	layoutTotals(inv, l)
	if tt := inv.Totals; tt.NetTotal.String() != "-218.48" || tt.VATTotal.String() != "-14.99" || tt.GrossTotal.String() != "-233.47" || tt.AmountDue.String() != "-233.47" {
		t.Errorf("totals %+v", tt)
	}
}

// TestDueStandsForTotal: with net and VAT labelled and only the amount due for the total,
// the amount due is the gross where net + VAT make it.
func TestDueStandsForTotal(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 50, Y: 500, Text: "Net total: 496.00 €"},
		testpdf.At{X: 50, Y: 512, Text: "VAT total: 75.04 €"},
		testpdf.At{X: 50, Y: 524, Text: "Due payable: 571.04 €"},
	)})
	inv := &einvoice.Invoice{}
	inv.Totals.GrossTotal = einvoice.MustDecimal("496.00")
	layoutTotals(inv, l)
	if tt := inv.Totals; tt.NetTotal.String() != "496.00" || tt.VATTotal.String() != "75.04" || tt.GrossTotal.String() != "571.04" {
		t.Errorf("totals %+v", tt)
	}
	// As OCR reads it: a table's vertical rule between the label and its value.
	l = newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 50, Y: 500, Text: "Net total: 496.00 €"},
		testpdf.At{X: 50, Y: 512, Text: "VAT total: | 75.04 €"},
		testpdf.At{X: 50, Y: 524, Text: "Due payable: 571.04 €"},
	)})
	inv = &einvoice.Invoice{}
	inv.Totals.GrossTotal = einvoice.MustDecimal("496.00")
	layoutTotals(inv, l)
	if tt := inv.Totals; tt.VATTotal.String() != "75.04" || tt.GrossTotal.String() != "571.04" {
		t.Errorf("OCR's rule: totals %+v", tt)
	}
}

// visualTable is a line table as the ZUGFeRD viewers print it: the amount's header over four
// lines ("Positions- / betrag / ohne / USt."), a quantity printed rounded in the second row
// (6 for 6.5 km: 2,00 × 6 is not 13,00), a free line of no amount, a name that reaches into
// the price column's slack, and the payment terms' table under it.
func visualTable() poppler.LayoutPage {
	return page(
		testpdf.At{X: 50, Y: 100, Text: "Pos Beschreibung"}, testpdf.At{X: 244, Y: 100, Text: "Nettopreis"},
		testpdf.At{X: 358, Y: 100, Text: "Menge"}, testpdf.At{X: 440, Y: 100, Text: "USt."}, testpdf.At{X: 484, Y: 100, Text: "Positions-"},
		testpdf.At{X: 508, Y: 111, Text: "betrag"}, testpdf.At{X: 520, Y: 122, Text: "ohne"}, testpdf.At{X: 520, Y: 133, Text: "USt."},
		testpdf.At{X: 58, Y: 150, Text: "1"}, testpdf.At{X: 100, Y: 150, Text: "Grundpreis"}, testpdf.At{X: 270, Y: 150, Text: "3,90"},
		testpdf.At{X: 362, Y: 150, Text: "1 Stk"}, testpdf.At{X: 445, Y: 150, Text: "7 %"}, testpdf.At{X: 520, Y: 150, Text: "3,90"},
		testpdf.At{X: 58, Y: 180, Text: "2"}, testpdf.At{X: 100, Y: 180, Text: "Stadtfahrt"}, testpdf.At{X: 270, Y: 180, Text: "2,00"},
		testpdf.At{X: 362, Y: 180, Text: "6 km"}, testpdf.At{X: 445, Y: 180, Text: "7 %"}, testpdf.At{X: 515, Y: 180, Text: "13,00"},
		testpdf.At{X: 58, Y: 210, Text: "3"}, testpdf.At{X: 141, Y: 210, Text: "Lebensgefährte/in"}, testpdf.At{X: 270, Y: 210, Text: "0,0000"},
		testpdf.At{X: 362, Y: 210, Text: "1 Stk"}, testpdf.At{X: 445, Y: 210, Text: "0 %"}, testpdf.At{X: 520, Y: 210, Text: "0,00"},
		testpdf.At{X: 50, Y: 260, Text: "Zahlungsbedingungen:"},
		testpdf.At{X: 50, Y: 280, Text: "Abschlag Skonto"}, testpdf.At{X: 362, Y: 280, Text: "16,90"}, testpdf.At{X: 515, Y: 280, Text: "-0,34"},
	)
}

// TestLayoutLinesLoose: the rows whose figures fit are told apart from every row with a
// quantity, an amount and a name; a header's words under its figure columns do not end the
// table, the payment terms do; a name reaching into the price column's slack stays a name.
func TestLayoutLinesLoose(t *testing.T) {
	fitting, all, _ := layoutLines(newLayout([]poppler.LayoutPage{visualTable()}), true)
	if len(fitting) != 2 || fitting[0].Description != "Grundpreis" || fitting[1].Description != "Lebensgefährte/in" || fitting[1].Total.String() != "0.00" {
		t.Errorf("fitting %+v", fitting)
	}
	if len(all) != 3 || all[1].Description != "Stadtfahrt" || all[1].Quantity.String() != "6" || all[1].Total.String() != "13.00" {
		t.Errorf("all %+v", all)
	}
}

// TestLooseRowsAddUp: rows that do not all fit are taken when together they make the line
// total, with the free line the text lines' reading does not see.
func TestLooseRowsAddUp(t *testing.T) {
	text := "1 Grundpreis 3,90 1 Stk 7 % 3,90\n2 Stadtfahrt 2,00 6 km 7 % 13,00\n3 Lebensgefährte/in 0,0000 1 Stk 0 % 0,00\nPositionssumme 16,90\nNettobetrag 16,90\nUSt 7 % 1,18\nGesamtbetrag 18,08\n"
	inv := parseInvoice(text, now, newLayout([]poppler.LayoutPage{visualTable()}))
	if len(inv.Lines) != 3 || inv.Lines[1].Item.Name != "Stadtfahrt" || inv.Lines[2].NetAmount.String() != "0.00" {
		t.Errorf("lines %+v", inv.Lines)
	}
	// Without the line total the rows are not taken.
	inv = parseInvoice("Gesamtbetrag 99,00\n", now, newLayout([]poppler.LayoutPage{visualTable()}))
	if len(inv.Lines) != 0 {
		t.Errorf("lines without a total: %+v", inv.Lines)
	}
}

// TestOCRBullets: OCR's lone "e" for a bullet parts a one-line address when it does so at
// least twice; a single "e" is a name's.
func TestOCRBullets(t *testing.T) {
	if !oneLineAddress("Bei Spiel GmbH e Ecke12 e 12345 Stadthausen") {
		t.Error("bullets read as e")
	}
	if p := addressParts("Bei Spiel GmbH e Ecke12 e 12345 Stadthausen", 2); len(p) != 2 || p[0] != "Bei Spiel GmbH" {
		t.Errorf("parts %q", p)
	}
	if oneLineAddress("Rossi e Figli 12345 Stadthausen") {
		t.Error("one e is no bullet")
	}
	// OCR's boxes, as Tesseract read GnuAccounting's sender line at 200 dpi: the bullets'
	// boxes hug their dots, so the gaps around them are wider than their height.
	w := func(x0, y0, x1, y1 float64, s string) poppler.Word {
		return poppler.Word{Box: poppler.Box{X0: x0, Y0: y0, X1: x1, Y1: y1}, Text: s}
	}
	l := newLayout([]poppler.LayoutPage{{Width: 595, Height: 842, Blocks: []poppler.Block{{Lines: []poppler.Line{{Words: []poppler.Word{
		w(102.7, 157.0, 112.9, 161.3, "Bei"), w(115.0, 157.0, 128.9, 162.2, "Spiel"), w(131.0, 157.0, 144.0, 161.3, "GmbH"),
		w(151.9, 158.4, 154.3, 160.8, "e"), w(162.5, 157.0, 182.9, 161.3, "Ecke12"), w(190.8, 158.4, 193.2, 160.8, "e"),
		w(201.4, 157.0, 214.0, 161.3, "12345"), w(216.2, 157.0, 251.8, 161.3, "Stadthausen"),
	}}}}}}})
	if segs := l.pages[0]; len(segs) != 1 || !oneLineAddress(segs[0].text) {
		t.Errorf("the sender's line in %d segments: %+v", len(segs), segs)
	}
}

// TestTableOverPageBreak: a table whose amount column is headed "Entgelt" and which a page
// break cuts: its second row stands at the top of the next page without a header, and is
// read in the columns of the header above, down to the payment terms. The first row stands
// as close under the header as a header's second line would, its name ("Grundpreis")
// saying price too: the price column is the header's. A next page that repeats the header
// is read from its own header, not twice. A document allowance's rate in the quantity's
// column ("5,00% sur 100,00") is no row.
func TestTableOverPageBreak(t *testing.T) {
	first := page(
		testpdf.At{X: 50, Y: 700, Text: "Pos"}, testpdf.At{X: 150, Y: 700, Text: "Beschreibung"}, testpdf.At{X: 244, Y: 700, Text: "Nettopreis"},
		testpdf.At{X: 358, Y: 700, Text: "Menge"}, testpdf.At{X: 440, Y: 700, Text: "Steuer"}, testpdf.At{X: 505, Y: 700, Text: "Entgelt"},
		testpdf.At{X: 55, Y: 728, Text: "1"}, testpdf.At{X: 150, Y: 728, Text: "Grundpreis"}, testpdf.At{X: 270, Y: 728, Text: "3,90"},
		testpdf.At{X: 362, Y: 728, Text: "1 Stk"}, testpdf.At{X: 420, Y: 728, Text: "7 % VAT"}, testpdf.At{X: 520, Y: 728, Text: "3,90"},
	)
	second := page(
		testpdf.At{X: 55, Y: 60, Text: "2"}, testpdf.At{X: 150, Y: 60, Text: "Stadtfahrt"}, testpdf.At{X: 270, Y: 60, Text: "2,00"},
		testpdf.At{X: 362, Y: 60, Text: "6 Stk"}, testpdf.At{X: 420, Y: 60, Text: "7 % VAT"}, testpdf.At{X: 515, Y: 60, Text: "13,00"},
		testpdf.At{X: 150, Y: 100, Text: "REMISE COMMERCIALE"}, testpdf.At{X: 362, Y: 100, Text: "5,00% sur 100,00"}, testpdf.At{X: 515, Y: 100, Text: "-5,00"},
		testpdf.At{X: 50, Y: 160, Text: "Zahlungsbedingungen:"},
		testpdf.At{X: 360, Y: 180, Text: "2 Raten"}, testpdf.At{X: 515, Y: 180, Text: "9,04"},
	)
	fitting, all, _ := layoutLines(newLayout([]poppler.LayoutPage{first, second}), true)
	if len(fitting) != 1 || fitting[0].Description != "Grundpreis" {
		t.Errorf("fitting %+v", fitting)
	}
	if len(all) != 2 || all[1].Description != "Stadtfahrt" || all[1].Quantity.String() != "6" || all[1].Total.String() != "13.00" || all[1].UnitPrice.String() != "2.00" {
		t.Errorf("all %+v", all)
	}
	// The next page repeats the header: its row is read once, from its own header.
	repeated := page(append([]testpdf.At{
		{X: 50, Y: 40, Text: "Pos"}, {X: 150, Y: 40, Text: "Beschreibung"}, {X: 244, Y: 40, Text: "Nettopreis"},
		{X: 358, Y: 40, Text: "Menge"}, {X: 440, Y: 40, Text: "Steuer"}, {X: 505, Y: 40, Text: "Entgelt"},
	}, testpdf.At{X: 55, Y: 60, Text: "2"}, testpdf.At{X: 150, Y: 60, Text: "Stadtfahrt"}, testpdf.At{X: 270, Y: 60, Text: "2,00"},
		testpdf.At{X: 362, Y: 60, Text: "6 Stk"}, testpdf.At{X: 515, Y: 60, Text: "12,00"})...)
	fitting, all, _ = layoutLines(newLayout([]poppler.LayoutPage{first, repeated}), true)
	if len(fitting) != 2 || len(all) != 2 || all[1].Total.String() != "12.00" {
		t.Errorf("repeated header: fitting %+v, all %+v", fitting, all)
	}
}

// TestMendSplitWords: pdftotext reports a word of a font whose glyph widths do not match
// its advances as two words a hair apart ("Zahlbetr ag"); the layout and the text lines
// get the word back, so its label is found. Words a space apart, and a letter a hair from
// a figure or a colon, stay as they are.
func TestMendSplitWords(t *testing.T) {
	w := func(x0, x1, y float64, s string) poppler.Word {
		return poppler.Word{Box: poppler.Box{X0: x0, Y0: y, X1: x1, Y1: y + 8.85}, Text: s}
	}
	line := func(ws ...poppler.Word) poppler.Block { return poppler.Block{Lines: []poppler.Line{{Words: ws}}} }
	p := poppler.LayoutPage{Width: 595, Height: 842, Blocks: []poppler.Block{
		line(w(298.58, 334.26, 259.4, "Zahlbetr"), w(335.33, 345.07, 259.4, "ag"), w(527.1, 549.1, 259.4, "470,15")),
		line(w(43.95, 57.66, 305.7, "Ver"), w(58.73, 85.24, 305.7, "käufer"), w(86.31, 89.01, 305.7, ":")),
		line(w(298.58, 374.34, 200.3, "Rechnungssumme"), w(376.82, 396.86, 200.3, "ohne"), w(399.3, 417.44, 200.3, "USt.")),
		line(w(100, 120, 400, "Nr"), w(121, 140, 400, "4711")),
	}}
	l := newLayout([]poppler.LayoutPage{p})
	text := "Rechnungssumme ohne USt.    624,90\nZahlbetr ag      470,15\nVer käufer :\nNr 4711\n"
	got := l.mendSplitWords(text)
	if want := "Rechnungssumme ohne USt.    624,90\nZahlbetrag      470,15\nVerkäufer :\nNr 4711\n"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	var segs []string
	for _, s := range l.pages[0] {
		segs = append(segs, s.text)
	}
	if strings.Join(segs, "|") != "Rechnungssumme ohne USt.|Zahlbetrag|470,15|Verkäufer :|Nr 4711" {
		t.Errorf("segments %q", segs)
	}
	if inv := parseInvoice(got, now, l); inv.Totals.AmountDue.String() != "470.15" {
		t.Errorf("amount due %q", inv.Totals.AmountDue)
	}
}

// TestLinesLessAdjustments: without a printed line total the lines add up to the net less
// the document's allowances and plus its charges printed under the table (the allowance's
// sign from its word, not from its print); the totals then carry them.
func TestLinesLessAdjustments(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 50, Y: 100, Text: "Désignation"}, testpdf.At{X: 250, Y: 100, Text: "P.U. HT"}, testpdf.At{X: 350, Y: 100, Text: "Qté"}, testpdf.At{X: 480, Y: 100, Text: "Total HT"},
		testpdf.At{X: 50, Y: 130, Text: "Support"}, testpdf.At{X: 250, Y: 130, Text: "60,00"}, testpdf.At{X: 350, Y: 130, Text: "1,00"}, testpdf.At{X: 480, Y: 130, Text: "60,00"},
		testpdf.At{X: 50, Y: 150, Text: "Papier"}, testpdf.At{X: 250, Y: 150, Text: "10,00"}, testpdf.At{X: 350, Y: 150, Text: "3,00"}, testpdf.At{X: 480, Y: 150, Text: "30,00"},
		testpdf.At{X: 50, Y: 170, Text: "Appel"}, testpdf.At{X: 250, Y: 170, Text: "5,00"}, testpdf.At{X: 350, Y: 170, Text: "1,00"}, testpdf.At{X: 480, Y: 170, Text: "5,00"},
		testpdf.At{X: 50, Y: 220, Text: "REMISE COMMERCIALE"}, testpdf.At{X: 350, Y: 220, Text: "5,00% sur 100,00"}, testpdf.At{X: 480, Y: 220, Text: "5,00"},
		testpdf.At{X: 50, Y: 260, Text: "FRAIS DE DEPLACEMENT"}, testpdf.At{X: 480, Y: 260, Text: "10,00"},
	)})
	text := "Total HT 100,00\nTVA 10 % 10,00\nTotal TTC 110,00\n"
	inv := parseInvoice(text, now, l)
	if len(inv.Lines) != 3 || inv.Lines[1].Item.Name != "Papier" || inv.Lines[1].NetAmount.String() != "30.00" {
		t.Errorf("lines %+v", inv.Lines)
	}
	if tt := inv.Totals; tt.LineTotal.String() != "95.00" || tt.AllowanceTotal.String() != "5.00" || tt.ChargeTotal.String() != "10.00" || tt.NetTotal.String() != "100.00" {
		t.Errorf("totals %+v", tt)
	}
	// Lines that do not make the net with them are not taken, and no line total is made up.
	inv = parseInvoice("Total HT 101,00\nTVA 10 % 10,10\nTotal TTC 111,10\n", now, l)
	if len(inv.Lines) != 0 || inv.Totals.LineTotal.Valid() || inv.Totals.AllowanceTotal.Valid() {
		t.Errorf("not adding up: lines %+v, totals %+v", inv.Lines, inv.Totals)
	}
}

// TestOCRSenderLineAndColumns: OCR parts the sender's line at its bullets, whose boxes are a
// few points high ("Bei Spiel GmbH", "e", "Ecke12", ...): the row's close segments are read
// as one line and name the seller. The OCR text lines run the two columns together row by
// row, so their buyer is a line of the seller's column ("Ingmar N. Fo", a contact): the
// block left of the seller's is the buyer's.
func TestOCRSenderLineAndColumns(t *testing.T) {
	w := func(x0, x1, y0, y1 float64, s string) poppler.Block {
		return poppler.Block{Lines: []poppler.Line{{Words: []poppler.Word{{Box: poppler.Box{X0: x0, Y0: y0, X1: x1, Y1: y1}, Text: s}}}}}
	}
	p := poppler.LayoutPage{Width: 595, Height: 842, Blocks: []poppler.Block{
		w(451, 518, 123.8, 132.0, "Bei Spiel GmbH"), w(451.9, 477.8, 140.2, 145.4, "Ecke 12"), w(451.9, 516, 154.6, 159.8, "12345 Stadthausen"),
		w(82.6, 124.1, 157.0, 162.2, "Bei Spiel GmbH"), w(132.0, 134.4, 158.4, 160.8, "e"), w(142.3, 163.0, 157.0, 161.3, "Ecke12"),
		w(170.9, 173.3, 158.4, 160.8, "e"), w(181.2, 231.8, 157.0, 161.3, "12345 Stadthausen"),
		w(71.0, 147.4, 168.2, 181.9, "Theodor Est"), w(451.7, 521.0, 169.0, 175.7, "phone (555) 23 78 -0"),
		w(71.8, 131.0, 196.8, 209.3, "Bahnstr. 42"), w(451.9, 501.8, 196.8, 205.4, "http://localhost/"),
		w(451.9, 494.6, 212.4, 218.9, "Ingmar N. Fo"),
		w(71.3, 158.2, 226.3, 237.6, "88802 Spielkreis"), w(451.7, 525.4, 226.6, 233.3, "phone (555) 23 78 -23"),
	}}
	l := newLayout([]poppler.LayoutPage{p})
	if got := letterheadName(l.pages[0], 842); got != "Bei Spiel GmbH" {
		t.Errorf("sender's line: %q", got)
	}
	inv := &einvoice.Invoice{}
	inv.Seller.Name, inv.Buyer.Name = "Bei Spiel GmbH", "Ingmar N. Fo"
	refineByLayout(inv, "", l)
	if inv.Buyer.Name != "Theodor Est" || inv.Buyer.Address.City != "Spielkreis" || inv.Seller.Name != "Bei Spiel GmbH" {
		t.Errorf("seller %q, buyer %q %+v", inv.Seller.Name, inv.Buyer.Name, inv.Buyer.Address)
	}
	// A buyer the text lines read from the block's own name line stands (with more of the
	// row than the block holds); the block is sure of its role, under the sender's line.
	inv = &einvoice.Invoice{}
	inv.Seller.Name, inv.Buyer.Name = "Bei Spiel GmbH", "Theodor Est Consulting"
	refineByLayout(inv, "", l)
	if inv.Buyer.Name != "Theodor Est Consulting" {
		t.Errorf("own column: buyer %q", inv.Buyer.Name)
	}
}

// TestForeignPostCodes: a sender's line with a British post code names the seller, and the
// block under it with an Irish Eircode (read by OCR with an O for its 0) is the buyer's.
func TestForeignPostCodes(t *testing.T) {
	for _, s := range []string{"Global Goods Inc. · 789 Commerce Street · M1 1AA Manchester", "Apex Solutions Ltd. · 123 Business Road · EC1A 1BB London", "Acme B.V. · Keizersgracht 1 · 1015 CJ Amsterdam",
		"Kraxi GmbH + Flugzeugallee 17 » 12345 Papierfeld + Deutschland"} { // OCR's bullets
		if !oneLineAddress(s) {
			t.Errorf("%q: not read as a one-line address", s)
		}
	}
	if oneLineAddress("Thank you · for your · purchase") {
		t.Error("a sentence with bullets read as an address")
	}
	for line, want := range map[string]string{"D02 XA00 Dublin": "IE D02 XA00 Dublin", "DO2 XA00 Dublin": "IE DO2 XA00 Dublin", "London EC1A 1BB": "GB EC1A 1BB London", "1012 AB Amsterdam": "NL 1012 AB Amsterdam"} {
		code, city, country, ok := foreignPost(line)
		if got := country + " " + code + " " + city; !ok || got != want {
			t.Errorf("%q: %q, want %q", line, got, want)
		}
	}
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 70, Y: 150, Text: "Global Goods Inc. · 789 Commerce Street · M1 1AA Manchester"},
		testpdf.At{X: 70, Y: 165, Text: "Prime Tech Solutions"}, testpdf.At{X: 70, Y: 180, Text: "Aoife Kelly"},
		testpdf.At{X: 70, Y: 195, Text: "10 Tech Park Avenue"}, testpdf.At{X: 70, Y: 210, Text: "DO2 XA00 Dublin"},
		testpdf.At{X: 340, Y: 165, Text: "Invoice Number:"}, testpdf.At{X: 450, Y: 165, Text: "INV-1"},
	)})
	// Two blocks under their headings: a post code line ending in the country's name, and
	// one with the city first.
	for _, c := range []struct {
		head, post                   [2]string
		seller, buyer, code, country string
	}{
		{[2]string{"Vendeur", "Client"}, [2]string{"75010 Paris, France", "69002 Lyon, France"}, "ACME SERVICES SARL", "CLIENT SAS", "69002", "FR"},
		{[2]string{"From:", "To:"}, [2]string{"Paris, 75001", "Lyon, 69001"}, "Your Company SAS", "Client Corporation", "69001", ""},
	} {
		g := layoutParties(newLayout([]poppler.LayoutPage{page(
			testpdf.At{X: 40, Y: 100, Text: c.head[0]}, testpdf.At{X: 360, Y: 100, Text: c.head[1]},
			testpdf.At{X: 40, Y: 112, Text: c.seller}, testpdf.At{X: 360, Y: 112, Text: c.buyer},
			testpdf.At{X: 40, Y: 124, Text: "12 Rue des Lilas"}, testpdf.At{X: 360, Y: 124, Text: "8 Avenue de la République"},
			testpdf.At{X: 40, Y: 136, Text: c.post[0]}, testpdf.At{X: 360, Y: 136, Text: c.post[1]},
		)}), "")
		if g.seller == nil || g.buyer == nil || g.seller.name != c.seller || g.buyer.name != c.buyer || g.buyer.address.PostCode != c.code || g.buyer.address.City != "Lyon" || g.buyer.address.Country != c.country {
			t.Errorf("%s: seller %+v, buyer %+v", c.post[1], g.seller, g.buyer)
		}
	}
	g := layoutParties(l, "")
	inv := &einvoice.Invoice{}
	inv.Seller.Name = "Global Goods Inc. · 789 Commerce Street · M1 1AA Manchester"
	g.apply(inv)
	if inv.Seller.Name != "Global Goods Inc." || inv.Buyer.Name != "Prime Tech Solutions" || inv.Buyer.Address.Country != "IE" {
		t.Errorf("seller %q, buyer %q (%+v)", inv.Seller.Name, inv.Buyer.Name, inv.Buyer.Address)
	}
}

// TestSharedTotalLabel: one label for the net and the gross ("Gesamtsumme" twice, as the
// XRechnung viewer prints it, and once more under the VAT breakdown): the gross that is
// another plus the VAT is the gross, the other the net.
func TestSharedTotalLabel(t *testing.T) {
	d := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	net, vat, gross, _ := totalsFound{gross: []decimal.Decimal{d("99.00"), d("117.81"), d("99.00")}, vat: []decimal.Decimal{d("18.81")}}.choose()
	if net == nil || vat == nil || gross == nil || net.String() != "99" || gross.String() != "117.81" {
		t.Errorf("net %v, VAT %v, gross %v", net, vat, gross)
	}
}

// TestSingleRate: a breakdown row from the totals and the one printed rate that fits; none
// when two printed rates could, or none does.
func TestSingleRate(t *testing.T) {
	for name, c := range map[string]struct {
		text, net, vat, want string
		read                 []einvoice.VATBreakdown // the breakdown read before
	}{
		"viewer's labelled lines": {"Umsatzsteuersatz   19,00%\nRabatt 3 %", "99.00", "18.81", "19:99.00/18.81", nil},
		"mixed rates":             {"7 % und 19 %", "165.00", "25.95", "", nil},
		"no rate printed":         {"TVA 507,00", "2535.00", "507.00", "", nil},
		// A line row "5 hour 150.00 EUR 20% 750.00 EUR" read as a VAT row.
		"a line read as a VAT row": {"20%", "3050.00", "610.00", "20:3050.00/610.00",
			[]einvoice.VATBreakdown{{Rate: einvoice.MustDecimal("20"), TaxableAmount: einvoice.MustDecimal("750.00"), TaxAmount: einvoice.MustDecimal("150.00")}}},
		"a breakdown that fits stays": {"19 %", "100.00", "19.00", "19:100.00/19.00",
			[]einvoice.VATBreakdown{{Rate: einvoice.MustDecimal("19"), TaxableAmount: einvoice.MustDecimal("100.00"), TaxAmount: einvoice.MustDecimal("19.00")}}},
	} {
		inv := &einvoice.Invoice{VATBreakdown: c.read}
		n, v := decimal.RequireFromString(c.net), decimal.RequireFromString(c.vat)
		inv.Totals.NetTotal, inv.Totals.VATTotal, inv.Totals.GrossTotal = money(n), money(v), money(n.Add(v))
		singleRate(inv, c.text)
		got := ""
		for _, b := range inv.VATBreakdown {
			got = b.Rate.Value().String() + ":" + b.TaxableAmount.String() + "/" + b.TaxAmount.String()
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
	}
}

// TestHeaderCellsInOneSegment: header cells set close together share a segment
// ("Quantity Unit Unit price VAT [%]"); its words are the columns, the row's quantity
// beside its unit is a row, an article number left of the column is none.
func TestHeaderCellsInOneSegment(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 60, Y: 280, Text: "#"}, testpdf.At{X: 90, Y: 280, Text: "Line item description"},
		testpdf.At{X: 330, Y: 280, Text: "Quantity Unit Unit price VAT [%]"},
		testpdf.At{X: 480, Y: 280, Text: "Net"}, testpdf.At{X: 530, Y: 280, Text: "Gross"},
		testpdf.At{X: 90, Y: 300, Text: "SHR-AW30-(A2K)-7,5X152"}, testpdf.At{X: 250, Y: 300, Text: "05234830152 200"},
		testpdf.At{X: 60, Y: 312, Text: "1"}, testpdf.At{X: 333, Y: 312, Text: "400,00 pcs"},
		testpdf.At{X: 405, Y: 312, Text: "32,76"}, testpdf.At{X: 445, Y: 312, Text: "19,00"},
		testpdf.At{X: 480, Y: 312, Text: "13.104,00"}, testpdf.At{X: 530, Y: 312, Text: "15.593,76"},
		testpdf.At{X: 90, Y: 324, Text: "Schrauben"},
		testpdf.At{X: 300, Y: 360, Text: "Total amount (net):"}, testpdf.At{X: 480, Y: 360, Text: "13.104,00"},
	)})
	fitting, _, _ := layoutLines(l, true)
	if len(fitting) != 1 || fitting[0].Quantity.String() != "400.00" || fitting[0].UnitPrice.String() != "32.76" || fitting[0].Total.String() != "13104.00" {
		t.Errorf("fitting %+v", fitting)
	}
}

// TestTitleStackAndUpperSender: a French letterhead: the title alone at the top right
// with the date and "nº" number stacked under it; the sender's block at the top left, the
// recipient's lower on the right with its VAT id under it.
func TestTitleStackAndUpperSender(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 471, Y: 90, Text: "FACTURE"}, testpdf.At{X: 501, Y: 105, Text: "20/09/2023"}, testpdf.At{X: 493, Y: 118, Text: "nº 2023-6013"},
		testpdf.At{X: 42, Y: 169, Text: "Société Hôtelière du Pacano"}, testpdf.At{X: 42, Y: 184, Text: "2, rue de la Paix"}, testpdf.At{X: 42, Y: 198, Text: "75000 Paris"},
		testpdf.At{X: 397, Y: 256, Text: "Securibox SARL"}, testpdf.At{X: 397, Y: 271, Text: "27, Rue de Bassano"}, testpdf.At{X: 397, Y: 285, Text: "75008 Paris"},
		testpdf.At{X: 397, Y: 314, Text: "TVA : FR38500003710"},
	)})
	if no, date := titleStack(l); no != "2023-6013" || date != "2023-09-20" {
		t.Errorf("number %q, date %q", no, date)
	}
	// As Tesseract read Typst's credit note: the ring of "N°" read as an apostrophe and
	// again as a ring.
	ocr := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 490, Y: 70, Text: "AVOIR"}, testpdf.At{X: 446, Y: 88, Text: "N’ ° AV-2025-00045 AY."},
	)})
	if no, _ := titleStack(ocr); no != "AV-2025-00045" {
		t.Errorf("OCR's N°: number %q", no)
	}
	text := "FACTURE\n20/09/2023\nnº 2023-6013\nSociété Hôtelière du Pacano\n2, rue de la Paix\n75000 Paris\nSecuribox SARL\n27, Rue de Bassano\n75008 Paris\nTVA : FR38500003710\nTVA FR40123456824\n"
	inv := &einvoice.Invoice{}
	inv.Seller.VATID = "FR38500003710"
	refineByLayout(inv, text, l)
	if inv.Seller.Name != "Société Hôtelière du Pacano" || inv.Buyer.Name != "Securibox SARL" || inv.Number != "2023-6013" || inv.IssueDate != "2023-09-20" {
		t.Errorf("seller %q, buyer %q, number %q, date %q", inv.Seller.Name, inv.Buyer.Name, inv.Number, inv.IssueDate)
	}
	if inv.Buyer.VATID != "FR38500003710" || inv.Seller.VATID != "FR40123456824" {
		t.Errorf("VAT ids: seller %q, buyer %q", inv.Seller.VATID, inv.Buyer.VATID)
	}
}

// TestWindowAddressAndLabels: layouts of the third fetched set. A page whose only address is
// the recipient's in the window (the sender a logo) gives the buyer and no seller; a date
// label naming the delivery too is the invoice's; a French "Émise le" dates the invoice and
// a street with its number first ends a one-line address.
func TestWindowAddressAndLabels(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 330, Y: 150, Text: "Rechnungs-Nr."}, testpdf.At{X: 420, Y: 150, Text: "RG0524048849"},
		testpdf.At{X: 62, Y: 184, Text: "mindworks GmbH"}, testpdf.At{X: 330, Y: 184, Text: "Liefer- und Rechnungsdatum:"}, testpdf.At{X: 470, Y: 184, Text: "8. Mai 2019"},
		testpdf.At{X: 62, Y: 196, Text: "Jarrestraße 42 a"},
		testpdf.At{X: 62, Y: 208, Text: "22303 Hamburg"},
		testpdf.At{X: 62, Y: 330, Text: "Datum     Behälter / Inhalt     Menge     Preis"},
	)})
	text := "Rechnungs-Nr.       RG0524048849\nmindworks GmbH                  Liefer- und Rechnungsdatum: 8. Mai 2019\nJarrestraße 42 a\n22303 Hamburg\nDatum     Behälter / Inhalt     Menge     Preis\n"
	inv := ParseInvoice(text, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	refineByLayout(inv, text, l)
	if inv.Buyer.Name != "mindworks GmbH" || inv.Seller.Name != "" || inv.IssueDate != "2019-05-08" {
		t.Errorf("buyer %q, seller %q, date %q", inv.Buyer.Name, inv.Seller.Name, inv.IssueDate)
	}

	l = newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 42, Y: 60, Text: "Blanc-Conseil"}, testpdf.At{X: 480, Y: 60, Text: "FACTURE"},
		testpdf.At{X: 42, Y: 72, Text: "12 rue des Lices, 49100 Angers"}, testpdf.At{X: 460, Y: 84, Text: "Émise le 3 août 2026"},
		testpdf.At{X: 42, Y: 150, Text: "Facturé à"},
		testpdf.At{X: 42, Y: 162, Text: "Atelier Bréal"},
		testpdf.At{X: 42, Y: 174, Text: "8 quai de la Fosse, 44000 Nantes"},
	)})
	text = "Blanc-Conseil      FACTURE\n12 rue des Lices, 49100 Angers\n     Émise le 3 août 2026\nFacturé à\nAtelier Bréal\n8 quai de la Fosse, 44000 Nantes\n"
	inv = ParseInvoice(text, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	refineByLayout(inv, text, l)
	if inv.Seller.Name != "Blanc-Conseil" || inv.Buyer.Name != "Atelier Bréal" || inv.IssueDate != "2026-08-03" || inv.Buyer.Address.PostCode != "44000" {
		t.Errorf("seller %q, buyer %q (%+v), date %q", inv.Seller.Name, inv.Buyer.Name, inv.Buyer.Address, inv.IssueDate)
	}
}

// TestWrittenDateOnALine: OCR's line holds the number's and the date's cells.
func TestWrittenDateOnALine(t *testing.T) {
	inv := ParseInvoice("Rechnungsnummer: 2019-03 Liefer- und Rechnungsdatum: 8. Mai 2019\nLieferdatum: 2. Mai 2019", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if inv.IssueDate != "2019-05-08" {
		t.Errorf("date %q", inv.IssueDate)
	}
}

// TestLineTotalAsNet: "Line Total", "Tax", "Grand Total" and no net: the line total with
// the VAT makes the gross, so it is the net.
func TestLineTotalAsNet(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 90, Y: 400, Text: "Line Total"}, testpdf.At{X: 200, Y: 400, Text: "198.00"},
		testpdf.At{X: 90, Y: 412, Text: "Extra"}, testpdf.At{X: 210, Y: 412, Text: "0.00"},
		testpdf.At{X: 90, Y: 424, Text: "Tax"}, testpdf.At{X: 205, Y: 424, Text: "37.62"},
		testpdf.At{X: 90, Y: 436, Text: "Grand Total"}, testpdf.At{X: 200, Y: 436, Text: "235.62"},
	)})
	text := "Line Total                198.00\nExtra                       0.00\nTax                        37.62\nGrand Total               235.62\n"
	inv := parseInvoice(text, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), l)
	if inv.Totals.NetTotal.String() != "198.00" || inv.Totals.VATTotal.String() != "37.62" || inv.Totals.GrossTotal.String() != "235.62" {
		t.Errorf("totals %+v", inv.Totals)
	}
}

// TestNoVAT: an invoice that says why it charges no VAT gets a VAT of zero and one row of
// that clause's category, with the clause as its reason; one that does not say so, or whose
// net and gross differ, gets none.
func TestNoVAT(t *testing.T) {
	for name, c := range map[string]struct {
		text, net, gross string
		want             string // category:base/tax reason
	}{
		"§ 19 UStG":            {"Gesamtbetrag Brutto 14,90 €\n   Umsatzsteuerbefreit nach §19 UStG  \n", "14.90", "14.90", "E:14.90/0.00 Umsatzsteuerbefreit nach §19 UStG"},
		"gross only":           {"Kein Ausweis von Umsatzsteuer, da Kleinunternehmer gemäß § 19 UStG", "", "990.00", "E:990.00/0.00 Kein Ausweis von Umsatzsteuer, da Kleinunternehmer gemäß § 19 UStG"},
		"French 293 B":         {"TVA non applicable, art. 293 B du CGI", "500.00", "500.00", "E:500.00/0.00 TVA non applicable, art. 293 B du CGI"},
		"reverse charge":       {"Reverse charge: the recipient is liable for the VAT", "1200.00", "1200.00", "AE:1200.00/0.00 Reverse charge: the recipient is liable for the VAT"},
		"no clause":            {"Summe 100,00", "100.00", "100.00", ""},
		"net and gross differ": {"Kleinunternehmer § 19 UStG", "100.00", "119.00", ""},
	} {
		inv := &einvoice.Invoice{}
		if c.net != "" {
			inv.Totals.NetTotal = einvoice.MustDecimal(c.net)
		}
		inv.Totals.GrossTotal = einvoice.MustDecimal(c.gross)
		noVAT(inv, c.text)
		got := ""
		for _, b := range inv.VATBreakdown {
			got = b.Category + ":" + b.TaxableAmount.String() + "/" + b.TaxAmount.String() + " " + b.ExemptionReason
		}
		if got != c.want {
			t.Errorf("%s: %q, want %q", name, got, c.want)
		}
		if c.want != "" && (inv.Totals.VATTotal.String() != "0.00" || inv.Totals.NetTotal.String() != inv.Totals.GrossTotal.String()) {
			t.Errorf("%s: totals %+v", name, inv.Totals)
		}
	}
}

// TestThousandsParted: OCR's text lines part "1 440,00 €" into 1 and 440,00, and the parted
// totals agree (440,00 + 253,20 = 693,20); the cells, which know where a figure starts, win.
func TestThousandsParted(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 380, Y: 400, Text: "Total HT"}, testpdf.At{X: 500, Y: 400, Text: "1 440,00 €"},
		testpdf.At{X: 380, Y: 412, Text: "TVA"}, testpdf.At{X: 510, Y: 412, Text: "253,20 €"},
		testpdf.At{X: 380, Y: 424, Text: "Total TTC"}, testpdf.At{X: 500, Y: 424, Text: "1 693,20 €"},
	)})
	text := "Total HT 1 440,00 €\nTVA 253,20 €\nTotal TTC 1 693,20 €\n"
	inv := parseInvoice(text, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), l)
	if tt := inv.Totals; tt.NetTotal.String() != "1440.00" || tt.VATTotal.String() != "253.20" || tt.GrossTotal.String() != "1693.20" {
		t.Errorf("totals %+v", inv.Totals)
	}
}

// TestOtherColumnLabel: a name that OCR's line runs into the next column's label ends
// before it; a name that merely holds such a word at its start stays whole.
func TestOtherColumnLabel(t *testing.T) {
	for name, want := range map[string]string{
		"Klavierklang GmbH Rechnungs-Nr. 000073": "Klavierklang GmbH",
		"Muster AG Datum: 12.03.2024":            "Muster AG",
		"Acme Ltd Invoice No 4711":               "Acme Ltd",
		"Datum Software GmbH":                    "Datum Software GmbH",
		"Seitenwind GmbH":                        "Seitenwind GmbH",
	} {
		got := name
		if at := otherColumnLabelRE.FindStringIndex(name); at != nil {
			got = name[:at[0]]
		}
		if got != want {
			t.Errorf("%q: %q, want %q", name, got, want)
		}
	}
}

// TestOCRTotalsBox: a totals box as Tesseract reads it off a scan of akretion's Factur-X
// sample: labels over their values, "TOTAL HT" run together and "TTC" read "TIC"; and the
// amount due between a box's sides, read as lone bars ("| NET A PAYER | 100,00 EUR |"),
// which part no label from its value; bars that part a sender's line stay its separators.
func TestOCRTotalsBox(t *testing.T) {
	var boxes []tesseract.WordBox
	word := func(x, y, w int, s string) {
		boxes = append(boxes, tesseract.WordBox{Left: x, Top: y, Width: w, Height: 20, Text: s, Confidence: 90})
	}
	word(960, 1840, 130, "TOTALHT")
	word(1160, 1840, 80, "TOTAL")
	word(1250, 1840, 60, "TVA")
	word(1350, 1840, 80, "TOTAL")
	word(1440, 1840, 50, "TIC")
	word(990, 1895, 90, "100,00")
	word(1180, 1895, 80, "10,00")
	word(1390, 1895, 90, "110,00")
	word(1300, 1950, 70, "Acompte")
	word(1380, 1950, 10, ":")
	word(1420, 1950, 70, "10,00")
	word(830, 2000, 6, "|")
	word(870, 2000, 50, "NET")
	word(930, 2000, 20, "A")
	word(960, 2000, 90, "PAYER")
	word(1140, 2000, 6, "|")
	word(1250, 2000, 90, "100,00")
	word(1350, 2000, 50, "EUR")
	word(1510, 2000, 6, "|")
	// The sender's line over the recipient's address, its parts parted by bars.
	for _, w := range []struct {
		x, w int
		s    string
	}{{160, 150, "Nordlicht.fr"}, {320, 6, "|"}, {340, 120, "Rue"}, {470, 30, "de"}, {510, 40, "la"}, {560, 80, "Paix"}, {650, 30, "12"}, {690, 6, "|"}, {710, 90, "75002"}, {810, 80, "Paris"}} {
		boxes = append(boxes, tesseract.WordBox{Left: w.x, Top: 150, Width: w.w, Height: 20, Text: w.s, Confidence: 90})
	}
	l := newLayout([]poppler.LayoutPage{ocrPage(&tesseract.Page{Boxes: boxes}, 1654, 2339, 0, 72.0/200)})
	text := "TOTALHT TOTAL TVA TOTAL TIC\n100,00 10,00 110,00\nAcompte : 10,00\n| NET A PAYER | 100,00 EUR |\n"
	if g := layoutParties(l, text); g.sellerName != "Nordlicht.fr" {
		t.Errorf("seller from the sender's line %q", g.sellerName)
	}
	tt := parseInvoice(text, now, l).Totals
	if tt.NetTotal.String() != "100.00" || tt.VATTotal.String() != "10.00" || tt.GrossTotal.String() != "110.00" || tt.AmountDue.String() != "100.00" {
		t.Errorf("totals %+v", tt)
	}
}

// TestTallFigureUnderLabel: OCR's box of a figure in its cell is taller than the text
// beside it, so a row can hold a line of small print that stands lower than the figure and
// comes first, left to right. The figure under its label is still its value
// (akretion's Facture_F20180027 as a scan).
func TestTallFigureUnderLabel(t *testing.T) {
	var boxes []tesseract.WordBox
	word := func(x, y, w, h int, s string) {
		boxes = append(boxes, tesseract.WordBox{Left: x, Top: y, Width: w, Height: h, Text: s, Confidence: 90})
	}
	word(1000, 1840, 50, 15, "TOTAL")
	word(1060, 1840, 30, 15, "HT")
	word(1170, 1840, 50, 15, "TOTAL")
	word(1230, 1840, 40, 15, "TVA")
	word(1360, 1840, 50, 15, "TOTAL")
	word(1420, 1840, 40, 15, "TTC")
	for i, s := range strings.Fields("Les règlements reçus avant la date d'échéance ne donnent pas lieu") {
		word(130+i*70, 1905, 60, 15, s)
	}
	word(1020, 1885, 60, 35, "100,00")
	word(1190, 1885, 50, 35, "10,00")
	word(1390, 1885, 60, 35, "110,00")
	l := newLayout([]poppler.LayoutPage{ocrPage(&tesseract.Page{Boxes: boxes}, 1654, 2339, 0, 72.0/200)})
	for _, c := range []struct {
		label *lazyre.Regexp
		want  string
	}{{netLabelGeoRE, "100"}, {vatLabelGeoRE, "10"}, {grossLabelGeoRE, "110"}} {
		if got := l.labelled(c.label, layoutAmount, 2); !slices.Equal(got, []string{c.want}) {
			t.Errorf("%v: %q, want %s", c.label, got, c.want)
		}
	}
}

// TestAddressOverTitle: Odoo's layouts print the customer's address, which may have no
// post code, on the right just over the title with the number, and the company's in the
// header; the address left of the title joins its stack. A name the page prints again is
// the seller's, not the buyer's.
func TestAddressOverTitle(t *testing.T) {
	for _, c := range []struct {
		name  string
		texts []testpdf.At
		want  string
	}{
		{"right, no post code", []testpdf.At{
			{X: 40, Y: 40, Text: "MyBackery"}, {X: 40, Y: 52, Text: "sfax Tunisia"},
			{X: 360, Y: 130, Text: "Rahma ar"}, {X: 360, Y: 142, Text: "rue ain"}, {X: 360, Y: 154, Text: "sfax"}, {X: 360, Y: 166, Text: "Tunisia"},
			{X: 40, Y: 200, Text: "Invoice INV/2024/00002"}, {X: 40, Y: 220, Text: "Invoice Date:"},
		}, "Rahma ar"},
		{"left, in line with the title", []testpdf.At{
			{X: 40, Y: 100, Text: "Lumber Inc"}, {X: 40, Y: 112, Text: "1337 N San Joaquin St"}, {X: 40, Y: 124, Text: "Stockton CA 95202"},
			{X: 40, Y: 140, Text: "Rechnung RE.:/2021/0002"}, {X: 40, Y: 160, Text: "Rechnungsdatum:"},
		}, "Lumber Inc"},
		{"no title", []testpdf.At{
			{X: 360, Y: 130, Text: "Rahma ar"}, {X: 360, Y: 142, Text: "rue ain"}, {X: 40, Y: 200, Text: "Invoice Date:"},
		}, ""},
		{"a name alone on the right", []testpdf.At{
			{X: 40, Y: 40, Text: "Synaptix"}, {X: 40, Y: 52, Text: "Miguel Indurain"}, {X: 40, Y: 64, Text: "14800 Priego de Córdoba"},
			{X: 340, Y: 180, Text: "Lumber Inc, Jefe Lumber"}, {X: 40, Y: 205, Text: "Factura INV/2026/00001"},
		}, "Lumber Inc, Jefe Lumber"},
		{"a name alone on the left", []testpdf.At{
			{X: 40, Y: 180, Text: "Lumber Inc, Jefe Lumber"}, {X: 40, Y: 205, Text: "Factura INV/2026/00001"},
		}, ""},
		{"a name alone far over the title", []testpdf.At{
			{X: 340, Y: 120, Text: "Lumber Inc, Jefe Lumber"}, {X: 40, Y: 205, Text: "Factura INV/2026/00001"},
		}, ""},
		{"far over the title", []testpdf.At{
			{X: 360, Y: 30, Text: "Rahma ar"}, {X: 360, Y: 42, Text: "rue ain"}, {X: 40, Y: 300, Text: "Invoice INV/2024/00002"},
		}, ""},
	} {
		g := layoutParties(newLayout([]poppler.LayoutPage{page(c.texts...)}), "")
		got := ""
		if g.buyer != nil {
			got = g.buyer.name
		}
		if got != c.want {
			t.Errorf("%s: buyer %q, want %q", c.name, got, c.want)
		}
	}
	// The name recurs in the page's footer: the seller's.
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 360, Y: 130, Text: "YourCompany"}, testpdf.At{X: 360, Y: 142, Text: "250 Executive Park Blvd"},
		testpdf.At{X: 40, Y: 200, Text: "Invoice INV/2024/00002"},
	)})
	if g := layoutParties(l, "YourCompany\n250 Executive Park Blvd\nInvoice INV/2024/00002\ninfo@yourcompany.com"); g.buyer != nil {
		t.Errorf("a recurring name: buyer %+v", g.buyer)
	}
}

// TestNarrowColumns: a table's cells that poppler sets as lines of their own, a little over a
// word's height apart (as Typst sets "2   C62   8 500,00"), are segments of their own; the
// same gap within one of poppler's lines, and a bullet between an address's parts, part
// nothing.
func TestNarrowColumns(t *testing.T) {
	w := func(x0, x1 float64, s string) poppler.Word {
		return poppler.Word{Box: poppler.Box{X0: x0, Y0: 328.5, X1: x1, Y1: 340.4}, Text: s}
	}
	row := []poppler.Word{w(373.6, 378.1, "2"), w(395.8, 409.9, "C62"), w(425.6, 430.1, "8"), w(431.2, 455.8, "500,00")}
	var cells []poppler.Line
	for _, c := range [][]poppler.Word{row[:1], row[1:2], row[2:]} {
		cells = append(cells, poppler.Line{Words: c})
	}
	texts := func(p poppler.LayoutPage) (out []string) {
		for _, s := range newLayout([]poppler.LayoutPage{p}).pages[0] {
			out = append(out, s.text)
		}
		return out
	}
	if got := texts(poppler.LayoutPage{Width: 595, Height: 842, Blocks: []poppler.Block{{Lines: cells}}}); !slices.Equal(got, []string{"2", "C62", "8 500,00"}) {
		t.Errorf("cells as poppler's lines: %q", got)
	}
	if got := texts(poppler.LayoutPage{Width: 595, Height: 842, Blocks: []poppler.Block{{Lines: []poppler.Line{{Words: row}}}}}); len(got) != 1 {
		t.Errorf("one of poppler's lines: %q", got)
	}
	sender := []poppler.Line{{Words: []poppler.Word{w(70, 90, "Bei"), w(93, 115, "Spiel"), w(118, 140, "GmbH")}}, {Words: []poppler.Word{w(152, 157, "●")}},
		{Words: []poppler.Word{w(169, 189, "Ecke"), w(192, 202, "12")}}}
	if got := texts(poppler.LayoutPage{Width: 595, Height: 842, Blocks: []poppler.Block{{Lines: sender}}}); len(got) != 1 {
		t.Errorf("a sender's line with bullets: %q", got)
	}
}

// TestLetterheadNameRecurs: the one address of a page, at its top, is the sender's; of its
// lines the name the page prints again (its web address) names the seller, not the line
// over the post code that the text lines took (a street printed without its number).
func TestLetterheadNameRecurs(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 26, Y: 73, Text: "Synaptix"}, testpdf.At{X: 26, Y: 88, Text: "Miguel Indurain"},
		testpdf.At{X: 26, Y: 104, Text: "14800 Priego de Córdoba"}, testpdf.At{X: 26, Y: 119, Text: "España"},
		testpdf.At{X: 26, Y: 205, Text: "Factura INV/2026/00001"},
	)})
	g := layoutParties(l, "Synaptix\nMiguel Indurain\n14800 Priego de Córdoba\nEspaña\nFactura INV/2026/00001\nhttp://synaptix.es")
	if g.seller == nil || g.seller.name != "Synaptix" {
		t.Fatalf("seller %+v", g.seller)
	}
	inv := &einvoice.Invoice{Seller: einvoice.Party{Name: "Miguel Indurain"}}
	g.apply(inv)
	if inv.Seller.Name != "Synaptix" {
		t.Errorf("seller %q", inv.Seller.Name)
	}
	// Printed once, the text lines' choice stands.
	g = layoutParties(l, "Synaptix\nMiguel Indurain\n14800 Priego de Córdoba")
	inv = &einvoice.Invoice{Seller: einvoice.Party{Name: "Miguel Indurain"}}
	if g.apply(inv); inv.Seller.Name != "Miguel Indurain" {
		t.Errorf("without a recurring name: seller %q", inv.Seller.Name)
	}
	// The last line of an address whose name is a logo names no one.
	inv = &einvoice.Invoice{Seller: einvoice.Party{Name: "Deutschland"}}
	if (geoParties{}).apply(inv); inv.Seller.Name != "" {
		t.Errorf("a country for a seller: %q", inv.Seller.Name)
	}
}

// TestAustrianTemplate: "Rechnung:", "Netto:" and "Brutto:" as labels in a cell of their own
// beside their values (the VAT's label names its rate), and "Ihre UID" the buyer's VAT id.
func TestAustrianTemplate(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 420, Y: 150, Text: "Rechnung:"}, testpdf.At{X: 480, Y: 150, Text: "Re-147/2025"},
		testpdf.At{X: 400, Y: 464, Text: "Summe:"}, testpdf.At{X: 480, Y: 464, Text: "3.159,25 €"},
		testpdf.At{X: 380, Y: 476, Text: "-10,00 % Rabatt:"}, testpdf.At{X: 480, Y: 476, Text: "-315,93 €"},
		testpdf.At{X: 400, Y: 488, Text: "Abschlag:"}, testpdf.At{X: 480, Y: 488, Text: "-3,32 €"},
		testpdf.At{X: 40, Y: 500, Text: "Ihre UID: ATU12345678"},
		testpdf.At{X: 400, Y: 500, Text: "Netto:"}, testpdf.At{X: 480, Y: 500, Text: "2.386,55 €"},
		testpdf.At{X: 400, Y: 512, Text: "19% USt.:"}, testpdf.At{X: 480, Y: 512, Text: "453,45 €"},
		testpdf.At{X: 40, Y: 524, Text: "Leistungsdatum = Datum des Dokuments"}, testpdf.At{X: 400, Y: 524, Text: "Brutto:"}, testpdf.At{X: 480, Y: 524, Text: "2.840,00 €"},
	)})
	text := "                    Rechnung: Re-147/2025\n" +
		"                                              Summe:     3.159,25 €\n" +
		"                                    -10,00 % Rabatt:       -315,93 €\n" +
		"                                           Abschlag:         -3,32 €\n" +
		"Ihre UID: ATU12345678                         Netto:     2.386,55 €\n" +
		"                                           19% USt.:       453,45 €\n" +
		"Leistungsdatum = Datum des Dokuments          Brutto:     2.840,00 €\n" +
		"St.-Nr.: 23/123/456/789UID: DE123456789\n"
	inv := parseInvoice(text, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), l)
	if inv.Number != "Re-147/2025" {
		t.Errorf("number %q", inv.Number)
	}
	if tt := inv.Totals; tt.NetTotal.String() != "2386.55" || tt.VATTotal.String() != "453.45" || tt.GrossTotal.String() != "2840.00" {
		t.Errorf("totals %+v", tt)
	}
	if inv.Seller.VATID != "DE123456789" || inv.Buyer.VATID != "ATU12345678" {
		t.Errorf("VAT ids: seller %q, buyer %q", inv.Seller.VATID, inv.Buyer.VATID)
	}
	if !labelledNumber(text, "Re-147/2025") || !labelledNumber("Factura INV/2026/00001", "INV/2026/00001") || labelledNumber("Kundennummer: 19", "19") {
		t.Error("labelledNumber")
	}
}
