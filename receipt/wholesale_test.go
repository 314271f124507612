package receipt

import (
	"strings"
	"testing"

	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/internal/testpdf"
)

// wholesaleText is a viewer's page of a wholesaler's invoice: the XML file's name over the
// sender, a tax number whose digits after a slash look like a post code, the recipient
// under "Kundenname / Firma" with street and town on one line, and a table whose unit price
// ("St.-Pr.") is per 100 pieces on one row.
const wholesaleText = "Dieses Dokument visualisiert die elektronische Rechnung im XML-Format.\n" +
	"ZF_Extended__Sammelrechnung_3_Bestellungen.xml\n\n" +
	"Lieferant GmbH & Co. KG\n" +
	"USt.-Id:88888/00072                                                                Rechnung\n" +
	"Tim Kleine                                                                         Rechnungsnummer:      6063636771001\n" +
	"Lieferanten-Strasse.12-17, 98765 Lieferantenstadt, DE                              Rechnungsdatum:          27.08.2026\n\n" +
	"Kundenname / Firma\n" +
	"Musterkunde GmbH & Co Name 2 Musterkunde\n" +
	"Herr Test Monteur\n" +
	"Musterstrasse 44, 40789 Musterstadt, DE\n\n" +
	"   #       Positionsbeschreibung                          Menge Einheit        St.-Pr.   MwSt. [%]      Netto        Brutto\n" +
	"       1   Gewindestange                                   25,00      Stk         2,06      19,00         51,50         61,29\n" +
	"       2   Müllsack, -beutel                              150,00      Stk        49,29      19,00         73,94         87,99\n\n" +
	"                                                     Gesamtbetrag Netto:                 125,44 €\n" +
	"                                                     Gesamtbetrag Steuer:                 23,83 €\n" +
	"                                                     Gesamtbetrag Brutto:                149,27 €\n"

// TestWholesaleViewerPage: the file's name names no party and the slash's digits no post
// code; the street on the town's line is the street, not the buyer's name; the recipient's
// heading "Kundenname / Firma" heads the buyer's block; "St.-Pr." heads the unit price, and
// a row whose price is per 100 pieces is a line with that base quantity (BT-149).
func TestWholesaleViewerPage(t *testing.T) {
	inv := ParseInvoice(wholesaleText, now)
	if inv.Seller.Name != "Lieferant GmbH & Co. KG" || inv.Seller.Address.PostCode != "98765" {
		t.Errorf("seller %q at %+v", inv.Seller.Name, inv.Seller.Address)
	}
	if inv.Buyer.Address.Line1 != "Musterstrasse 44" || inv.Buyer.Address.PostCode != "40789" || strings.Contains(inv.Buyer.Name, "strasse") {
		t.Errorf("buyer %q at %+v", inv.Buyer.Name, inv.Buyer.Address)
	}
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 40, Y: 20, Text: "Dieses Dokument visualisiert die elektronische Rechnung im XML-Format."},
		testpdf.At{X: 40, Y: 32, Text: "ZF_Extended__Sammelrechnung_3_Bestellungen.xml"},
		testpdf.At{X: 40, Y: 60, Text: "Lieferant GmbH & Co. KG"},
		testpdf.At{X: 40, Y: 72, Text: "USt.-Id:88888/00072"}, testpdf.At{X: 360, Y: 72, Text: "Rechnung"},
		testpdf.At{X: 40, Y: 84, Text: "Tim Kleine"}, testpdf.At{X: 360, Y: 84, Text: "Rechnungsnummer:"}, testpdf.At{X: 480, Y: 84, Text: "6063636771001"},
		testpdf.At{X: 40, Y: 96, Text: "Lieferanten-Strasse.12-17, 98765 Lieferantenstadt, DE"}, testpdf.At{X: 360, Y: 96, Text: "Rechnungsdatum:"}, testpdf.At{X: 480, Y: 96, Text: "27.08.2026"},
		testpdf.At{X: 40, Y: 176, Text: "Kundenname / Firma"},
		testpdf.At{X: 40, Y: 195, Text: "Musterkunde GmbH & Co Name 2 Musterkunde"},
		testpdf.At{X: 40, Y: 207, Text: "Herr Test Monteur"},
		testpdf.At{X: 40, Y: 219, Text: "Musterstrasse 44, 40789 Musterstadt, DE"},
		testpdf.At{X: 30, Y: 306, Text: "#"}, testpdf.At{X: 60, Y: 306, Text: "Positionsbeschreibung"},
		testpdf.At{X: 300, Y: 306, Text: "Menge Einheit"}, testpdf.At{X: 380, Y: 306, Text: "St.-Pr."},
		testpdf.At{X: 430, Y: 306, Text: "MwSt. [%]"}, testpdf.At{X: 490, Y: 306, Text: "Netto"}, testpdf.At{X: 540, Y: 306, Text: "Brutto"},
		testpdf.At{X: 30, Y: 330, Text: "1"}, testpdf.At{X: 60, Y: 330, Text: "Gewindestange"},
		testpdf.At{X: 300, Y: 330, Text: "25,00"}, testpdf.At{X: 335, Y: 330, Text: "Stk"}, testpdf.At{X: 380, Y: 330, Text: "2,06"},
		testpdf.At{X: 430, Y: 330, Text: "19,00"}, testpdf.At{X: 490, Y: 330, Text: "51,50"}, testpdf.At{X: 540, Y: 330, Text: "61,29"},
		testpdf.At{X: 30, Y: 360, Text: "2"}, testpdf.At{X: 60, Y: 360, Text: "Müllsack, -beutel"},
		testpdf.At{X: 300, Y: 360, Text: "150,00"}, testpdf.At{X: 335, Y: 360, Text: "Stk"}, testpdf.At{X: 380, Y: 360, Text: "49,29"},
		testpdf.At{X: 430, Y: 360, Text: "19,00"}, testpdf.At{X: 490, Y: 360, Text: "73,94"}, testpdf.At{X: 540, Y: 360, Text: "87,99"},
		testpdf.At{X: 300, Y: 400, Text: "Gesamtbetrag Netto:"}, testpdf.At{X: 490, Y: 400, Text: "125,44 €"},
		testpdf.At{X: 300, Y: 412, Text: "Gesamtbetrag Steuer:"}, testpdf.At{X: 490, Y: 412, Text: "23,83 €"},
		testpdf.At{X: 300, Y: 424, Text: "Gesamtbetrag Brutto:"}, testpdf.At{X: 490, Y: 424, Text: "149,27 €"},
	)})
	inv = parseInvoice(wholesaleText, now, l)
	if inv.Buyer.Name != "Musterkunde GmbH & Co Name 2 Musterkunde" {
		t.Errorf("buyer %q", inv.Buyer.Name)
	}
	if len(inv.Lines) != 2 {
		t.Fatalf("lines %+v", inv.Lines)
	}
	if one, hundred := inv.Lines[0], inv.Lines[1]; one.Price.BaseQuantity.Valid() || one.Price.Net.String() != "2.06" ||
		hundred.Price.BaseQuantity.String() != "100" || hundred.Price.BaseQuantityUnit != hundred.Unit || hundred.Price.Net.String() != "49.29" || hundred.NetAmount.String() != "73.94" {
		t.Errorf("lines %+v", inv.Lines)
	}
}

// spacedPage is a page whose figures are drawn glyph by glyph: each character a word of its
// own, their boxes touching, as poppler reads a generator that spaces its letters.
func spacedPage(lines ...testpdf.At) poppler.LayoutPage {
	return layoutPage(lines, func(t testpdf.At) (ws []poppler.Word) {
		x := t.X
		for i, w := range strings.Fields(t.Text) {
			if i > 0 {
				x += 3 // a space
			}
			for _, r := range w {
				ws = append(ws, poppler.Word{Box: poppler.Box{X0: x, Y0: t.Y, X1: x + 4.45, Y1: t.Y + 7.5}, Text: string(r)})
				x += 4.45
			}
		}
		return ws
	})
}

// TestLetterSpacedFigures: glyphs whose boxes touch are one word ("1.000,00", not
// "1 . 0 0 0 , 0 0"); a space between them still parts words.
func TestLetterSpacedFigures(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{spacedPage(testpdf.At{X: 488, Y: 350, Text: "1.000,00 € 20,60"})})
	if len(l.pages[0]) != 1 {
		t.Fatalf("segments %+v", l.pages[0])
	}
	s := l.pages[0][0]
	var words []string
	for _, w := range s.words {
		words = append(words, w.Text)
	}
	if s.text != "1.000,00 € 20,60" || strings.Join(words, "|") != "1.000,00|€|20,60" {
		t.Errorf("segment %q, words %q", s.text, words)
	}
}

// frenchAllowanceText is a French ERP's invoice: the issue date after the number ("du"),
// the seller's legal form before its name, a 10 % allowance under the line table and in the
// totals, whose net is the "Base de TVA" under the lines' sum.
const frenchAllowanceText = "                                            FACTURE n° 2200566                              du 19-07-2022            Page 1/ 2\n" +
	"   SA IFR QUALIAC (IFR)\n   Parc d'activités de Tronquières\n   14 avenue du Garric\n\n" +
	" Destinataire :                                                               Adresse de facturation :\n" +
	" MLLE DUPONT                                                                  MLLE DUPONT\n" +
	" 15000 AURILLAC                                                               15000 AURILLAC\n\n" +
	"    Article          Désignation                    Qté          Unité     Prix tarif      Remise       Prix net        Montant      Taux\n" +
	" LAIT            Lait                                 1     LITRE      1.000,00 €                  1.000,00 €      1.000,00 € 20,60\n\n" +
	"           Remise pourcentage E -10,00 %                                                                       - 100,00 €   0,00\n\n" +
	"                                                   MONTANT TOTAL HT            1.000,00   €\n" +
	"                                                   Remise pourcentage E        - 100,00   €\n" +
	"                                                   Base de TVA                   900,00   €\n" +
	"                                                   Montant TVA                   185,40   €\n" +
	"                                                   Total T.T.C.                1.085,40   €\n\n" +
	"Date d'échéance        :     05-08-2022\n"

// TestFrenchAllowanceUnderTotals: the date after the number is the issue date (not the due
// date), "SA" before the name is the seller's legal form, "Base de TVA" is the net under
// the allowance, and the allowance's line under the table is no line's name.
func TestFrenchAllowanceUnderTotals(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 250, Y: 40, Text: "FACTURE n° 2200566"}, testpdf.At{X: 412, Y: 40, Text: "du 19-07-2022"},
		testpdf.At{X: 19, Y: 60, Text: "SA IFR QUALIAC (IFR)"},
		testpdf.At{X: 25, Y: 310, Text: "Article"}, testpdf.At{X: 140, Y: 310, Text: "Désignation"},
		testpdf.At{X: 285, Y: 310, Text: "Qté"}, testpdf.At{X: 303, Y: 310, Text: "Unité"}, testpdf.At{X: 341, Y: 310, Text: "Prix tarif"},
		testpdf.At{X: 392, Y: 310, Text: "Remise"}, testpdf.At{X: 433, Y: 310, Text: "Prix net"}, testpdf.At{X: 488, Y: 310, Text: "Montant"},
		testpdf.At{X: 535, Y: 310, Text: "Taux"},
		testpdf.At{X: 19, Y: 350, Text: "LAIT"}, testpdf.At{X: 82, Y: 350, Text: "Lait"}, testpdf.At{X: 288, Y: 350, Text: "1"},
		testpdf.At{X: 303, Y: 350, Text: "LITRE"}, testpdf.At{X: 341, Y: 350, Text: "1.000,00 €"}, testpdf.At{X: 433, Y: 350, Text: "1.000,00 €"},
		testpdf.At{X: 488, Y: 350, Text: "1.000,00 €"}, testpdf.At{X: 540, Y: 350, Text: "20,60"},
		testpdf.At{X: 61, Y: 384, Text: "Remise pourcentage E -10,00 %"}, testpdf.At{X: 488, Y: 384, Text: "- 100,00 €"}, testpdf.At{X: 540, Y: 384, Text: "0,00"},
	)})
	inv := parseInvoice(frenchAllowanceText, now, l)
	if inv.IssueDate != "2022-07-19" {
		t.Errorf("issue date %q", inv.IssueDate)
	}
	if inv.Seller.Name != "SA IFR QUALIAC (IFR)" {
		t.Errorf("seller %q", inv.Seller.Name)
	}
	if tt := inv.Totals; tt.NetTotal.String() != "900.00" || tt.LineTotal.String() != "1000.00" || tt.AllowanceTotal.String() != "100.00" || tt.GrossTotal.String() != "1085.40" {
		t.Errorf("totals %+v", tt)
	}
	if len(inv.Lines) != 1 || inv.Lines[0].Item.Name != "LAIT" || inv.Lines[0].NetAmount.String() != "1000.00" {
		t.Errorf("lines %+v", inv.Lines)
	}
}

// TestFrenchExemptionClause: "Exonération de TVA, art. 261-4-1° du CGI" (a physician's
// fees) gives the one breakdown row of category E with that clause as its reason.
func TestFrenchExemptionClause(t *testing.T) {
	const text = "FACTURE\nN° FA-2024-042\n        15/01/2024\n\n" +
		"Date               Description                 Qté            Prix unit.     Total HT\n" +
		"10/01/2024         Consultation                1.00           50.00 EUR      50.00 EUR\n" +
		"12/01/2024         Téléconsultation            1.00           50.00 EUR      50.00 EUR\n\n" +
		"                                                          Total HT:        100.00 EUR\n" +
		"                                                          TVA (0.00%):     0.00 EUR\n" +
		"                                                          Total TTC:       100.00 EUR\n\n" +
		"Mentions legales\nExonération de TVA, art. 261-4-1° du CGI\n"
	inv := ParseInvoice(text, now)
	if len(inv.VATBreakdown) != 1 {
		t.Fatalf("breakdown %+v", inv.VATBreakdown)
	}
	b := inv.VATBreakdown[0]
	if b.Category != "E" || b.TaxableAmount.String() != "100.00" || !b.TaxAmount.Value().IsZero() || !strings.Contains(b.ExemptionReason, "261-4-1") {
		t.Errorf("breakdown %+v", b)
	}
}

// TestVATIdLabelWithSpace: "Umsatzsteuer ID: DE11999999998" (a digit too many for a German
// id) in the footer is the seller's id as printed, not the one after "Ihre
// Umsatzsteuer-ID" (the buyer's).
func TestVATIdLabelWithSpace(t *testing.T) {
	lines := []string{"Ihre Umsatzsteuer-ID                               DE19787878784", "Umsatzsteuer ID: DE11999999998 - HRA 12345"}
	if seller, _ := vatIDsByParty(lines); seller != "DE11999999998" {
		t.Errorf("seller %q", seller)
	}
}

// TestFeeNoteWithoutQuantity: a tax advisor's fee note numbers its positions and prints a
// fee ("Gebühr in €") but no quantity or unit price: each numbered row is a line of its
// fee, taken because the fees add up to the net; the sentence over the table that says
// "Leistungen" is no header cell.
func TestFeeNoteWithoutQuantity(t *testing.T) {
	const text = "Rechnungs-Nr: 10117-2024-005 vom 28.06.2024\n\n" +
		"Für die nachfolgend aufgeführten Leistungen erlaube ich mir nach der Steuerberater-\n" +
		" Pos. Datum               §§ / Leistung                                  Gebühren- Einheit                  Wert      Gebühr\n" +
		"                                                                           satz                              in €         in €\n" +
		"   1       28.06.24 §24 / Einkommensteuererklärung ohne                      4         Stk.        172.921,00          818,00\n" +
		"                          Ermittlung der einzelnen Einkünfte für\n" +
		"   2       28.06.24 §16 / Auslagenersatz für Post- und                       0         Stk.               252,21        20,00\n\n" +
		"                                                                                                 Summe netto:         838,00 €\n" +
		"                                                                                      zzgl. Umsatzsteuer 19%:        159,22 €\n" +
		"                                                                                                 Bruttobetrag:        997,22 €\n"
	pos := []testpdf.At{
		{X: 74, Y: 361, Text: "Für die nachfolgend aufgeführten Leistungen erlaube ich mir nach der Steuerberater-"},
		{X: 77, Y: 387, Text: "Pos. Datum"}, {X: 147, Y: 387, Text: "§§ / Leistung"}, {X: 323, Y: 387, Text: "Gebühren- Einheit"},
		{X: 460, Y: 387, Text: "Wert"}, {X: 502, Y: 387, Text: "Gebühr"}, {X: 338, Y: 401, Text: "satz"}, {X: 465, Y: 401, Text: "in €"}, {X: 519, Y: 401, Text: "in €"},
		{X: 84, Y: 421, Text: "1"}, {X: 105, Y: 421, Text: "28.06.24 §24 / Einkommensteuererklärung ohne"}, {X: 345, Y: 421, Text: "4"},
		{X: 388, Y: 421, Text: "Stk."}, {X: 436, Y: 421, Text: "172.921,00"}, {X: 507, Y: 421, Text: "818,00"},
		{X: 147, Y: 435, Text: "Ermittlung der einzelnen Einkünfte für"},
		{X: 84, Y: 469, Text: "2"}, {X: 105, Y: 469, Text: "28.06.24 §16 / Auslagenersatz für Post- und"}, {X: 345, Y: 469, Text: "0"},
		{X: 388, Y: 469, Text: "Stk."}, {X: 446, Y: 469, Text: "252,21"}, {X: 507, Y: 469, Text: "20,00"},
		{X: 400, Y: 560, Text: "Summe netto:"}, {X: 500, Y: 560, Text: "838,00 €"},
	}
	inv := parseInvoice(text, now, newLayout([]poppler.LayoutPage{page(pos...)}))
	if len(inv.Lines) != 2 || inv.Lines[0].NetAmount.String() != "818.00" || inv.Lines[1].NetAmount.String() != "20.00" ||
		!strings.Contains(inv.Lines[0].Item.Name, "Einkommensteuererklärung") || inv.Lines[0].Quantity.String() != "1" {
		t.Errorf("lines %+v", inv.Lines)
	}
	// Positions whose fees do not add up to the net are not the lines.
	wrong := strings.Replace(text, "838,00 €", "900,00 €", 1)
	if inv := parseInvoice(wrong, now, newLayout([]poppler.LayoutPage{page(pos...)})); len(inv.Lines) != 0 {
		t.Errorf("lines of a sum that does not fit: %+v", inv.Lines)
	}
}

// TestOCRReadings: OCR's readings of a viewer's and a letter's party lines: a heading in
// its box ("| Acheteur |") heads its block, a second label of two words ("Code Pays:")
// ends the value on OCR's single-spaced line, and the periods OCR read for a sender
// line's commas still make it a one-line address.
func TestOCRReadings(t *testing.T) {
	seller, buyer := partyBlocks([]string{
		"Facture n° IOPOLE-jdz7fEbj4Va", "| Acheteur |",
		"Nom de I'acheteur: LES COACHS SOLIDAIRES Code Pays: FR", "| Vendeur |",
		"Nom du vendeur: COMPAGNIE TIRE PAS LA NAPPE Code Pays: FR", "| Données de facturation |",
	})
	if seller.name != "COMPAGNIE TIRE PAS LA NAPPE" || buyer.name != "LES COACHS SOLIDAIRES" {
		t.Errorf("seller %q, buyer %q", seller.name, buyer.name)
	}
	if !oneLineAddress("Steuerberater Hartmut Ahtina. Heerstr. 50. 60488 Frankfurt") {
		t.Error("a sender line with periods for commas is no one-line address")
	}
	if oneLineAddress("Dipl. Wirtschafts-Ing. Hartmut Ahting") {
		t.Error("a title's periods make a one-line address")
	}
}
