package receipt

import (
	"testing"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/internal/testpdf"
)

// avoirPage is the totals of a French credit note as FNFE's samples print them: every
// figure negative, the VAT labelled "Total taxes".
func avoirPage() poppler.LayoutPage {
	return page(
		testpdf.At{X: 50, Y: 80, Text: "Avoir AV-2017-0005"},
		testpdf.At{X: 300, Y: 500, Text: "Total HT"}, testpdf.At{X: 450, Y: 500, Text: "-218,48 €"},
		testpdf.At{X: 300, Y: 512, Text: "Total taxes"}, testpdf.At{X: 450, Y: 512, Text: "-14,99 €"},
		testpdf.At{X: 300, Y: 524, Text: "Total TTC"}, testpdf.At{X: 450, Y: 524, Text: "-233,47 €"},
	)
}

// TestCreditNoteTitle: a page titled as a credit note whose figures are printed negative
// is a credit note (381) of positive amounts; "Total taxes" is its VAT, not a "Total tax"
// followed by "es". A credit note printed positive is one too; a "Gutschrift" printed
// positive (a self-billed invoice, in German as well) and negative figures without a
// credit note's title stay an invoice (380).
func TestCreditNoteTitle(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{avoirPage()})
	inv := &einvoice.Invoice{}
	layoutTotals(inv, l)
	if tt := inv.Totals; tt.NetTotal.String() != "-218.48" || tt.VATTotal.String() != "-14.99" || tt.GrossTotal.String() != "-233.47" {
		t.Fatalf("totals by the layout %+v", tt)
	}
	inv.TypeCode = "380"
	inv.VATBreakdown = []einvoice.VATBreakdown{{Rate: einvoice.MustDecimal("20"), TaxableAmount: einvoice.MustDecimal("-20.48"), TaxAmount: einvoice.MustDecimal("-4.10")}}
	inv.Lines = []einvoice.Line{{Quantity: einvoice.MustDecimal("5"), Price: einvoice.Price{Net: einvoice.MustDecimal("4.55")}, NetAmount: einvoice.MustDecimal("-20.48")}}
	creditNote(inv, []string{"Au bon moulin SARL", "Avoir AV-2017-0005", "Total HT -218,48 €"})
	if inv.TypeCode != "381" || inv.Totals.GrossTotal.String() != "233.47" || inv.Totals.NetTotal.String() != "218.48" ||
		inv.VATBreakdown[0].TaxAmount.String() != "4.10" || inv.VATBreakdown[0].Rate.String() != "20" || inv.Lines[0].NetAmount.String() != "20.48" || inv.Lines[0].Price.Net.String() != "4.55" {
		t.Errorf("credit note %s %+v %+v %+v", inv.TypeCode, inv.Totals, inv.VATBreakdown, inv.Lines)
	}

	// As OCR read the scan: the total's minus as a quote mark, the text lines' gross
	// positive; the net and VAT cells make it, as magnitudes.
	scan := avoirPage()
	scan.Blocks[len(scan.Blocks)-1].Lines[0].Words[0].Text = "\"233,47"
	inv = &einvoice.Invoice{}
	inv.Totals.GrossTotal = einvoice.MustDecimal("233.47")
	inv.Totals.AmountDue = einvoice.MustDecimal("233.47")
	layoutTotals(inv, newLayout([]poppler.LayoutPage{scan}))
	if tt := inv.Totals; tt.NetTotal.String() != "-218.48" || tt.VATTotal.String() != "-14.99" || tt.GrossTotal.String() != "-233.47" || tt.AmountDue.String() != "-233.47" {
		t.Errorf("scan's totals %+v", tt)
	}

	cases := []struct {
		title, gross, typ, want string
	}{
		{"Credit Note No. CN-12", "100.00", "381", "100.00"},
		{"InfoTech Solutions SARL                 AVOIR", "10200.00", "381", "10200.00"},
		{"Date   Facture   Avoir   Montant", "100.00", "380", "100.00"},
		{"Gutschrift Nr. 4711", "100.00", "380", "100.00"},
		{"Gutschrift Nr. 4711", "-100.00", "381", "100.00"},
		{"Rechnung Nr. 4711", "-100.00", "380", "-100.00"},
		{"Avoir suite à bidon percé, nous avons", "-100.00", "380", "-100.00"},
	}
	for _, c := range cases {
		inv := &einvoice.Invoice{TypeCode: "380"}
		inv.Totals.GrossTotal = einvoice.MustDecimal(c.gross)
		creditNote(inv, []string{c.title})
		if inv.TypeCode != c.typ || inv.Totals.GrossTotal.String() != c.want {
			t.Errorf("%q %s: %s %s, want %s %s", c.title, c.gross, inv.TypeCode, inv.Totals.GrossTotal, c.typ, c.want)
		}
	}
}

// TestPriceWithoutTaxColumn: a line table whose amount column is headed "Price w/o Tax"
// over two lines, ended by a tax table whose first cell is "Tax": its rows are the lines,
// each named by its own row, not by the tax table's "Base" under the last one.
func TestPriceWithoutTaxColumn(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 508, Y: 364, Text: "Price w/o"},
		testpdf.At{X: 154, Y: 370, Text: "Description"}, testpdf.At{X: 344, Y: 370, Text: "Quantity"},
		testpdf.At{X: 405, Y: 370, Text: "Unit Price"}, testpdf.At{X: 466, Y: 370, Text: "Disc."},
		testpdf.At{X: 522, Y: 376, Text: "Tax"},
		testpdf.At{X: 10, Y: 393, Text: "Nougat de l'Abbaye 250g"}, testpdf.At{X: 362, Y: 393, Text: "8 Unit(s)"},
		testpdf.At{X: 432, Y: 393, Text: "4.55 €"}, testpdf.At{X: 476, Y: 393, Text: "10%"}, testpdf.At{X: 532, Y: 393, Text: "32.76 €"},
		testpdf.At{X: 10, Y: 429, Text: "Huile d'olive à l'ancienne"}, testpdf.At{X: 352, Y: 429, Text: "100 Liter(s)"},
		testpdf.At{X: 427, Y: 429, Text: "19.80 €"}, testpdf.At{X: 515, Y: 429, Text: "1,980.00 €"},
		testpdf.At{X: 91, Y: 450, Text: "Tax"}, testpdf.At{X: 188, Y: 450, Text: "Base"}, testpdf.At{X: 254, Y: 450, Text: "Amount"},
		testpdf.At{X: 454, Y: 451, Text: "Net total"}, testpdf.At{X: 515, Y: 451, Text: "2,012.76 €"},
	)})
	_, all, _ := layoutLines(l, false)
	if len(all) != 2 || all[0].Total.String() != "32.76" || all[1].Description != "Huile d'olive à l'ancienne" || all[1].Total.String() != "1980.00" {
		t.Errorf("rows %+v", all)
	}
}

// TestThreeDecimalQuantity: Odoo prints a quantity with three decimals ("1,000"), more
// than its price's two; the quantity is still the figure that is not the amount.
func TestThreeDecimalQuantity(t *testing.T) {
	it, ok := tableRow("Anzahlung 1,000   142,50           19% USt 142,50 €", true)
	if !ok || it.Quantity.String() != "1.000" || it.UnitPrice.String() != "142.50" || it.Description != "Anzahlung" {
		t.Errorf("row %+v %v", it, ok)
	}
	// Two figures whose decimals say which is the quantity keep that order.
	if it, ok := tableRow("Farbe 2,5 4,00 10,00", true); !ok || it.Quantity.String() != "2.5" || it.UnitPrice.String() != "4.00" {
		t.Errorf("row %+v %v", it, ok)
	}
}

// TestSenderLineAndServiceAddress: a sender's line whose post code has six digits (a
// sample's made-up one) over the window names the seller, and the recipient under it is
// the buyer; a block headed "Leistungsadresse" (where the service was done) names neither.
func TestSenderLineAndServiceAddress(t *testing.T) {
	if !oneLineAddress("Muster GmbH · Musterstraße 17 · 654321 Musterort") {
		t.Error("six-digit sender line")
	}
	if oneLineAddress("Muster GmbH · Telefon 123 · 654321 Musterort") {
		t.Error("six digits without a street")
	}
	if partyHeading("Leistungsadresse") != "delivery" {
		t.Error("Leistungsadresse")
	}
	text := "Muster GmbH · Musterstraße 17 · 654321 Musterort     Leistungsadresse\nPeter Paul     Peter Paul\nStörzbachstraße 1     Störzbachstraße 1\n70188 Stuttgart     70188 Stuttgart\n\nRechnung Nr. TEST1234\nRechnungsbetrag 9,90 €\n"
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 57, Y: 128, Text: "Muster GmbH · Musterstraße 17 · 654321 Musterort"}, testpdf.At{X: 288, Y: 127, Text: "Leistungsadresse"},
		testpdf.At{X: 57, Y: 140, Text: "Peter Paul"}, testpdf.At{X: 288, Y: 140, Text: "Peter Paul"},
		testpdf.At{X: 57, Y: 152, Text: "Störzbachstraße 1"}, testpdf.At{X: 288, Y: 152, Text: "Störzbachstraße 1"},
		testpdf.At{X: 57, Y: 164, Text: "70188 Stuttgart"}, testpdf.At{X: 288, Y: 164, Text: "70188 Stuttgart"},
		testpdf.At{X: 57, Y: 260, Text: "Rechnung Nr. TEST1234"}, testpdf.At{X: 57, Y: 300, Text: "Rechnungsbetrag 9,90 €"},
	)})
	inv := parseInvoice(text, now, l)
	if inv.Seller.Name != "Muster GmbH" || inv.Buyer.Name != "Peter Paul" {
		t.Errorf("seller %q buyer %q", inv.Seller.Name, inv.Buyer.Name)
	}
}

// TestTotalLineNamesNoParty: with no address found, a total's line is no seller (the
// page's first line, its letterhead, may be), and an invoice number's digits after a slash
// are no post code.
func TestTotalLineNamesNoParty(t *testing.T) {
	text := "Aldenaire\n\nSitech, Hasan\nAmman\nJordan\n\nInvoice INV/2024/00001\nDESCRIPTION   QUANTITY   UNIT PRICE   AMOUNT\nBay Scallops   10.00   100.00   1,000.000 JOD\n" +
		"                 Untaxed Amount                     1,000.000 JOD\nPayment Communication: INV/2024/00001      Tax 15%     150.000 JOD\n              Total    1,150.000 JOD\n"
	inv := ParseInvoice(text, now)
	if totalLine(inv.Seller.Name) || inv.Seller.Name != "" && inv.Seller.Name != "Aldenaire" {
		t.Errorf("seller %q", inv.Seller.Name)
	}
	if m := postCode("Payment Communication: INV/2024/00001      Tax 15%"); m != nil {
		t.Errorf("post code %q", m)
	}
	if totalLine("Summe Handel GmbH") || !totalLine("Gesamtbetrag 12,00 €") {
		t.Error("totalLine")
	}
}

// TestImpliedRates: a breakdown whose rate column OCR lost is read from the rows whose VAT
// is their base at a rate to the cent, when together they make the net and VAT totals; a
// single row that fits alone, or rows that do not add up, give none.
func TestImpliedRates(t *testing.T) {
	lines := []string{
		"Umsatzsteueraufschlüsselung:",
		" Art (Kategorie) Warenwert Zu-/Abschlag Steuerbasisbetrag      USt. %       USt.-Betrag",
		" VAT (S)                                             275,00                         19,25",
		" VAT (S)                                             198,00                         37,62",
		"Positionssumme                        473,00",
	}
	inv := &einvoice.Invoice{}
	inv.Totals.NetTotal, inv.Totals.VATTotal = einvoice.MustDecimal("473.00"), einvoice.MustDecimal("56.87")
	impliedRates(inv, lines)
	if b := inv.VATBreakdown; len(b) != 2 || b[0].Rate.String() != "7" || b[1].Rate.String() != "19" || b[1].TaxAmount.String() != "37.62" {
		t.Errorf("breakdown %+v", b)
	}
	inv = &einvoice.Invoice{}
	inv.Totals.NetTotal, inv.Totals.VATTotal = einvoice.MustDecimal("473.00"), einvoice.MustDecimal("60.00")
	impliedRates(inv, lines)
	if len(inv.VATBreakdown) != 0 {
		t.Errorf("rows that do not make the VAT total: %+v", inv.VATBreakdown)
	}
	inv = &einvoice.Invoice{}
	inv.Totals.NetTotal, inv.Totals.VATTotal = einvoice.MustDecimal("275.00"), einvoice.MustDecimal("19.25")
	impliedRates(inv, lines[:3])
	if len(inv.VATBreakdown) != 0 {
		t.Errorf("one row alone: %+v", inv.VATBreakdown)
	}
}
