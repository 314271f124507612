package receipt

import (
	"fmt"
	"strings"
	"testing"
)

// TestTableLines: a line table as the e-invoice viewers and invoicing programs print it.
// A row whose quantity × price is its amount is a line (price rounded to four places
// allowed); its name may stand below it; a row whose figures disagree is none.
func TestTableLines(t *testing.T) {
	text := `Positionsdaten
   Pos   Referenzen     Beschreibung            Nettopreis     Menge Einheit     Steuersatz   Nettobetrag
         Art-Nr-Kunde:  Kunstrasen grün 3m          3,3333         3 m²              19%          10,00
         Art-Nr-Lieferant: KR3M breit
   2                    Schweinesteak               5,5000         5 kg               7%          27,50
   3     GTIN: 4012345001235                        9,90          20 Stk             19%         198,00
         4012345001235 (GTIN) Unsere Art.-Nr.:
         TB100A4
         Trennblätter A4
   4                    Stadtfahrt - 2,00 Euro je   2,00           6 km               7%          13,00
Umsatzsteueraufschlüsselung
Summe 248,50`
	_, p := parse(text, now, asPage, nil)
	var got []string
	for _, it := range tableLines(p.lines, decimalComma(p.lines)) {
		got = append(got, fmt.Sprintf("%s|%s|%s|%s", it.Description, it.Quantity, it.UnitPrice, it.Total))
	}
	want := "Kunstrasen grün 3m|3|3.3333|10.00 Schweinesteak|5|5.5000|27.50 Trennblätter A4|20|9.90|198.00"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("got  %s\nwant %s", g, want)
	}
	// Points as decimal separators, an English header.
	_, p = parse("Description   Qty   Unit price   Amount\nConsulting   2   1,200.00   2,400.00\nTotal 2,400.00", now, asPage, nil)
	if items := tableLines(p.lines, decimalComma(p.lines)); len(items) != 1 || items[0].Total.String() != "2400.00" || items[0].Quantity.String() != "2" {
		t.Errorf("English table: %+v", items)
	}
	// "Amount" first is the quantity's column (GnuAccounting's English layout).
	_, p = parse("Amount            Product                        VAT      Price      Total\n1.00              Design (hours): Of a sample    7%       160.00 €   160.00 €\n800.00       Hot air (litres):                   19%      0.025 €    20.00 €\nNet total: 180.00 €", now, asPage, nil)
	if items := tableLines(p.lines, decimalComma(p.lines)); len(items) != 2 || items[1].Total.String() != "20.00" || items[1].Quantity.String() != "800.00" || items[1].Description != "Hot air (litres)" {
		t.Errorf("Amount first: %+v", items)
	}
	// A name may hold a colon (GnuAccounting's rows as OCR reads them); a code's label is
	// no name.
	_, p = parse("Menge   Produkt   USt.   Preis   Gesamtbetrag\n400,00   Luftballon: Bunt, ca. 500ml   19%   0,79 €   316,00 €\n200,00   Heiße Luft pro Liter:   19%   0,10 €   20,00 €\nGTIN: 4012345001235 Trennblätter 20 9,90 198,00\nNettobetrag: 534,00 €", now, asPage, nil)
	got = nil
	for _, it := range tableLines(p.lines, decimalComma(p.lines)) {
		got = append(got, it.Description)
	}
	if g, want := strings.Join(got, "|"), "Luftballon: Bunt, ca. 500ml|Heiße Luft pro Liter|Trennblätter"; g != want {
		t.Errorf("names with colons: got %s, want %s", g, want)
	}
}

// TestInvoiceLinesSumToLineTotal: with an allowance on the document the lines add up to the
// printed line total, not to the net, and are taken.
func TestInvoiceLinesSumToLineTotal(t *testing.T) {
	inv := ParseInvoice(`Lieferant GmbH
Lieferantenstraße 20
80333 München
Rechnungsnummer: 471102
Pos  Beschreibung   Nettopreis   Menge Einheit   Nettobetrag
1    Trennblätter A4   9,90   20 Stk   198,00
2    Joghurt Banane    5,50   50 Stk   275,00
Positionssumme 473,00
Gesamtbetrag der Abschläge -10,00
Rechnungssumme ohne USt. 463,00
Bruttosumme 531,18`, now)
	if len(inv.Lines) != 2 || inv.Totals.LineTotal.String() != "473.00" || inv.Totals.NetTotal.String() != "463.00" {
		t.Errorf("lines %d, line total %s, net %s", len(inv.Lines), inv.Totals.LineTotal, inv.Totals.NetTotal)
	}
}

// TestViewerLines: the XRechnung viewer's line blocks, German and French; a block
// without its amount makes no reading.
func TestViewerLines(t *testing.T) {
	de := strings.Split(`Rechnungspositionen
 Position:          1
 Menge                                               1.0000         Basismenge zum      1.0000
 Preis pro Einheit (netto)                               99         Umsatzsteuer:       S (Standard rate)
 Gesamtpreis (netto)                                   99,00
 Bezeichnung:       Erbrachte Dienstleistungen
 Position:          2
 Menge                                               2,5
 Gesamtpreis (netto)                                1.250,00
 Bezeichnung:       Wartung      Artikelnummer: 4711`, "\n")
	items := viewerLines(de)
	if len(items) != 2 || items[0].Description != "Erbrachte Dienstleistungen" || items[0].Quantity.String() != "1.0000" || items[0].Total.String() != "99.00" ||
		items[1].Description != "Wartung" || items[1].Quantity.String() != "2.5" || items[1].Total.String() != "1250.00" {
		t.Errorf("German: %+v", items)
	}
	fr := strings.Split("ID:                   1\nQuantité                                               1       Quantité de base du    1\nMontant net de ligne                             972,00        Taux de TVA:           20%\nNom de l'article:    Item 1", "\n")
	if items := viewerLines(fr); len(items) != 1 || items[0].Total.String() != "972.00" || items[0].Description != "Item 1" {
		t.Errorf("French: %+v", items)
	}
	if items := viewerLines(de[:4]); items != nil {
		t.Errorf("a block without its amount: %+v", items)
	}
}
