package receipt

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/internal/testpdf"
)

const invoiceText = `Muster Software GmbH
Hauptstraße 5
50667 Köln
Tel. 0221 987654 · rechnung@muster-software.de
Stadtverwaltung Bonn
Berliner Platz 2
53111 Bonn
Rechnung
Rechnungsnummer: RE-2026-0042
Rechnungsdatum: 02.11.2026
Leitweg-ID: 04011000-12345-03
Pos. Bezeichnung Menge Einzelpreis Betrag
Beratung 2 x 120,00 240,00
Lizenz Jahresabo 1 x 360,00 360,00
Nettobetrag 600,00 EUR
USt 19% 600,00 114,00 714,00
Gesamtbetrag 714,00 EUR
Zahlbar bis 16.11.2026 ohne Abzug.
IBAN DE02 1203 0000 0000 2020 51 · BIC BYLADEM1001
USt-IdNr. DE123456789 · Steuernummer 215/5739/0123`

// TestParseInvoice: a typical German invoice's text becomes InvoiceData with only the
// terms it does not show missing.
func TestParseInvoice(t *testing.T) {
	inv := ParseInvoice(invoiceText, now)
	complete(inv)
	if inv.Number != "RE-2026-0042" || inv.IssueDate != "2026-11-02" || inv.DueDate != "2026-11-16" || inv.BuyerReference != "04011000-12345-03" || inv.Currency != "EUR" {
		t.Errorf("header %q %q %q %q", inv.Number, inv.IssueDate, inv.DueDate, inv.BuyerReference)
	}
	if s := inv.Seller; s.Name != "Muster Software GmbH" || s.Address.Line1 != "Hauptstraße 5" || s.Address.PostCode != "50667" || s.VATID != "DE123456789" || s.TaxNumber != "215/5739/0123" || s.Contact.Email != "rechnung@muster-software.de" {
		t.Errorf("seller %+v", s)
	}
	if b := inv.Buyer; b.Name != "Stadtverwaltung Bonn" || b.Address.City != "Bonn" || b.Address.Line1 != "Berliner Platz 2" {
		t.Errorf("buyer %+v", b)
	}
	if ct := inv.Payment.CreditTransfers; len(ct) != 1 || ct[0].AccountID != "DE02120300000000202051" || ct[0].ServiceProvider != "BYLADEM1001" || inv.Payment.MeansCode != "58" {
		t.Errorf("payment %+v", inv.Payment)
	}
	tt := inv.Totals
	if tt.NetTotal.String() != "600.00" || tt.VATTotal.String() != "114.00" || tt.GrossTotal.String() != "714.00" || tt.AmountDue.String() != "714.00" || tt.LineTotal.String() != "600.00" {
		t.Errorf("totals %+v", tt)
	}
	if len(inv.VATBreakdown) != 1 || inv.VATBreakdown[0].Rate.String() != "19" || inv.VATBreakdown[0].Category != "S" {
		t.Errorf("vat %+v", inv.VATBreakdown)
	}
	if len(inv.Lines) != 2 || inv.Lines[0].Item.Name != "Beratung" || inv.Lines[0].Quantity.String() != "2" || inv.Lines[0].Price.Net.String() != "120.00" {
		t.Errorf("lines %+v", inv.Lines)
	}
	var bts []string
	for _, m := range Missing(inv) {
		bts = append(bts, m.BT)
	}
	if want := []string{"BT-34", "BT-41", "BT-49"}; !slices.Equal(bts, want) {
		t.Errorf("missing %v, want %v", bts, want)
	}
	if !validIBAN("DE02120300000000202051") || validIBAN("DE02120300000000202052") {
		t.Error("IBAN check digits")
	}
}

// FuzzParseInvoice: any text reads into an invoice without panic; any model answer decodes
// or is refused.
func FuzzParseInvoice(f *testing.F) {
	f.Add(invoiceText, `{"number":"1","seller":{},"buyer":{},"lines":[]}`)
	f.Add("IBAN DE00 0000\nLeitweg-ID 991-0-00", `{"grossTotal":1e300}`)
	f.Fuzz(func(t *testing.T, text, answer string) {
		inv := ParseInvoice(text, now)
		complete(inv)
		Missing(inv)
		readings(invoiceFields(inv, text, now), "OCR", nil)
		if m, err := decodeInvoice([]byte(answer)); err == nil && m == nil {
			t.Error("nil answer without error")
		}
	})
}

// TestLabelledTotals: values beside or below their labels, a breakdown's rate lines left
// out, the triple that adds up chosen, and the amount due apart from the gross.
func TestLabelledTotals(t *testing.T) {
	text := `Umsatzsteueraufschlüsselung
Steuerbetrag
Umsatzsteuer 19 %
198,00
37,62
Belegsummen
Rechnungssumme ohne USt.

473,00
Steuerbetrag

56,87
Bruttosumme
529,87
Erhaltene Anzahlungen
50,00
Zahlbetrag: 479,87 EUR`
	inv := ParseInvoice(text, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	tt := inv.Totals
	if tt.NetTotal.String() != "473.00" || tt.VATTotal.String() != "56.87" || tt.GrossTotal.String() != "529.87" || tt.AmountDue.String() != "479.87" {
		t.Errorf("net %s, VAT %s, gross %s, due %s", tt.NetTotal, tt.VATTotal, tt.GrossTotal, tt.AmountDue)
	}
	// English, on one line each.
	inv = ParseInvoice("Subtotal 100.00\nVAT 20% 20.00\nTotal VAT 20.00\nInvoice total 120.00\nAmount due 120.00", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if tt := inv.Totals; tt.NetTotal.String() != "100.00" || tt.VATTotal.String() != "20.00" || tt.GrossTotal.String() != "120.00" {
		t.Errorf("English: net %s, VAT %s, gross %s", tt.NetTotal, tt.VATTotal, tt.GrossTotal)
	}
	// Odoo's totals: "Untaxed Amount", the rate's VAT, "Total" alone; thousands grouped by
	// commas, and the Spanish "Base imponible".
	inv = ParseInvoice("Untaxed Amount         2,000.00 E£\n\nVAT 14%                 280.00 E£\n\nTotal                  2,280.00 E£", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if tt := inv.Totals; tt.NetTotal.String() != "2000.00" || tt.GrossTotal.String() != "2280.00" || inv.Currency != "EGP" {
		t.Errorf("Odoo: net %s, gross %s, currency %s", tt.NetTotal, tt.GrossTotal, inv.Currency)
	}
	inv = ParseInvoice("Base imponible      12,80 €\nIVA 21%      2,69 €\nTotal       15,49 €", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if tt := inv.Totals; tt.NetTotal.String() != "12.80" || tt.GrossTotal.String() != "15.49" {
		t.Errorf("Odoo, Spanish: net %s, gross %s", tt.NetTotal, tt.GrossTotal)
	}
	// A French scan's totals: OCR sets one space between the thousands' groups.
	inv = ParseInvoice("Total HT 32 000,00\nTotal TVA 6 400,00\nTotal TTC 38 400,00 €", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if tt := inv.Totals; tt.NetTotal.String() != "32000.00" || tt.VATTotal.String() != "6400.00" || tt.GrossTotal.String() != "38400.00" {
		t.Errorf("French scan: net %s, VAT %s, gross %s", tt.NetTotal, tt.VATTotal, tt.GrossTotal)
	}
	// The same as Tesseract read Typst's page: a speck before "Total TVA", its breakdown row
	// beside it, and "Total TVA" no bare total; the receipt rules' total read whole too.
	inv = ParseInvoice("Ventilation TVA\nTotal HT 32000,00 €\nCatégorie BaseHT Taux TVA\n. Total TVA 6 400,00 €\nS 32000,00 € 20 % 6 400,00 €\nTotal TTC 38 400,00 €", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if tt := inv.Totals; tt.NetTotal.String() != "32000.00" || tt.VATTotal.String() != "6400.00" || tt.GrossTotal.String() != "38400.00" ||
		len(inv.VATBreakdown) != 1 || inv.VATBreakdown[0].TaxAmount.String() != "6400.00" {
		t.Errorf("Typst scan: net %s, VAT %s, gross %s, breakdown %+v", tt.NetTotal, tt.VATTotal, tt.GrossTotal, inv.VATBreakdown)
	}
	// "Solde à payer" after a prepayment is the amount due.
	inv = ParseInvoice("Total HT 624,90 €\nTotal taxes 46,25 €\nTotal TTC 671,15 €\n     Solde à payer     470,15 €", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if tt := inv.Totals; tt.AmountDue.String() != "470.15" || tt.GrossTotal.String() != "671.15" {
		t.Errorf("solde à payer: due %s, gross %s", tt.AmountDue, tt.GrossTotal)
	}
	// Odoo's English "Residual" after a payment is the amount due.
	inv = ParseInvoice("Net total    2,076.76 €\nTax Total    0.00 €\nTotal     2,076.76 €\nSEPA Wire transfer   11/17/2017   623.00 €\n   Residual     1,453.76 €", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if tt := inv.Totals; tt.AmountDue.String() != "1453.76" || tt.GrossTotal.String() != "2076.76" {
		t.Errorf("residual: due %s, gross %s", tt.AmountDue, tt.GrossTotal)
	}
	// The share capital beside the VAT id in a French letterhead is no VAT total.
	inv = ParseInvoice("TVA : FR11999999998 - SIRET : 99999999800010 - SARL au capital de 120 000,00 €\nNet total    2,076.76 €\n"+
		"TVA 0% livraisons intracommunautaires    2,076.76 €     0.00 €\n    Tax Total     0.00 €\n   Total     2,076.76 €", time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if tt := inv.Totals; tt.VATTotal.String() != "0.00" || tt.GrossTotal.String() != "2076.76" {
		t.Errorf("share capital: VAT %s, gross %s", tt.VATTotal, tt.GrossTotal)
	}
}

// TestInvoiceNumberAndDate: the viewers' "Rechnung (380) Nr. … vom …" line, and a delivery
// date (Leistungsdatum) is not the issue date.
func TestInvoiceNumberAndDate(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	inv := ParseInvoice("Handelsrechnung (380) Nr. 471102 vom 15.11.2024\nLiefer- und Leistungsdatum: 14.11.2024", now)
	if inv.Number != "471102" || inv.IssueDate != "2024-11-15" {
		t.Errorf("number %q, date %q", inv.Number, inv.IssueDate)
	}
	inv = ParseInvoice("Leistungsdatum: 01.03.2025\nRechnungsdatum: 03.03.2025\nRechnungsnummer: R-77", now)
	if inv.Number != "R-77" || inv.IssueDate != "2025-03-03" {
		t.Errorf("number %q, date %q", inv.Number, inv.IssueDate)
	}
	// A heading "… facture" over a line "Note: …" and "Invoice Notes" name no number.
	for _, text := range []string{"Notes sur la facture\n\n Note:    Facture pour fourniture", "Invoice Notes: thank you"} {
		if inv := ParseInvoice(text, now); inv.Number != "" {
			t.Errorf("%q: number %q", text, inv.Number)
		}
	}
}

// TestLongInvoiceTotalsOnLastPage: an invoice whose totals and bank details stand on its
// sixth page is read to the end.
func TestLongInvoiceTotalsOnLastPage(t *testing.T) {
	pages := []string{"Muster Software GmbH\nHauptstraße 5\n50667 Köln\nRechnungsnummer: RE-2026-0099\nRechnungsdatum: 02.11.2026"}
	for range 4 {
		pages = append(pages, "Fortsetzung der Leistungsbeschreibung\nBeratung vor Ort")
	}
	pages = append(pages, "Nettobetrag 600,00 EUR\nUSt 19% 600,00 114,00 714,00\nGesamtbetrag 714,00 EUR\nIBAN DE02 1203 0000 0000 2020 51")
	r, err := newExtractor(t).Invoice(t.Context(), testpdf.Text("Helvetica", 11, pages...))
	if err != nil {
		t.Fatal(err)
	}
	inv := r.Invoice
	if inv.Number != "RE-2026-0099" || inv.Totals.GrossTotal.String() != "714.00" || len(inv.Payment.CreditTransfers) != 1 {
		t.Errorf("number %q, gross %s, payment %+v", inv.Number, inv.Totals.GrossTotal, inv.Payment)
	}
}

// TestCorrectIBAN: OCR's confusable characters in an IBAN are corrected where the check
// digits then fit, and only there; two corrections that both fit are no reading.
func TestCorrectIBAN(t *testing.T) {
	for in, want := range map[string]string{
		"DEO2120300000000202051":        "DE02120300000000202051", // O for 0 in the check digits
		"DE02 l203 0000 0000 2020 5l":   "DE02120300000000202051", // l for 1 in a numeric account
		"DE02 12O3 OOOO OOOO 2O2O 51":   "DE02120300000000202051",
		"DEO2120300000000202052":        "",                   // a digit misread for another: the check digits say no
		"DE0212030000000020205":         "",                   // too short for Germany
		"NL91ABNAO417164300":            "NL91ABNA0417164300", // O for 0 in a mixed account
		"GB33BUKB20201555555555":        "GB33BUKB20201555555555",
		"FR7630006000011234567890189":   "FR7630006000011234567890189",
		"XX00 1234 5678 9012 3456 7890": "", // check digits 00 are none
		"NL91A8NAO4I7I643OO":            "", // more misreads than the check digits can vouch for
	} {
		if got := correctIBAN(in); got != want {
			t.Errorf("correctIBAN(%q) = %q, want %q", in, got, want)
		}
	}
	inv := ParseInvoice("Rechnung Nr. 1\nIBAN : DEO2 1203 0000 0000 2020 51\n", now)
	if ct := inv.Payment.CreditTransfers; len(ct) != 1 || ct[0].AccountID != "DE02120300000000202051" {
		t.Errorf("labelled: %+v", inv.Payment)
	}
	// Not after the word IBAN: a code of an IBAN's shape is not corrected into one.
	inv = ParseInvoice("Rechnung Nr. 1\nVorgang DEO2120300000000202051\n", now)
	if len(inv.Payment.CreditTransfers) != 0 {
		t.Errorf("unlabelled: %+v", inv.Payment)
	}
	// Right after its label, none of its readings fitting (a sample's made-up account,
	// too short for Germany): taken as labelled, its check digits read as digits, as a
	// text PDF's labelled IBAN is; the readings call it uncertain.
	inv = ParseInvoice("Rechnung Nr. 1\nVerkaufer-IBAN :DEI2 1234 4321 9876 00\n", now)
	if ct := inv.Payment.CreditTransfers; len(ct) != 1 || ct[0].AccountID != "DE1212344321987600" {
		t.Errorf("labelled, not fitting: %+v", inv.Payment)
	}
	// A leader OCR reads as "_" between the label and its colon.
	inv = ParseInvoice("Rechnung Nr. 1\nVerkaufer-IBAN _: DE5467894567876500\n", now)
	if ct := inv.Payment.CreditTransfers; len(ct) != 1 || ct[0].AccountID != "DE5467894567876500" {
		t.Errorf("labelled after a leader: %+v", inv.Payment)
	}
	inv = ParseInvoice("Rechnung Nr. 1\nVorgang DEI2 1234 4321 9876 00\n", now)
	if len(inv.Payment.CreditTransfers) != 0 {
		t.Errorf("unlabelled, not fitting: %+v", inv.Payment)
	}
	if got := layoutIBAN(": DEO2 1203 0000 0000 2020 51"); got != "DE02120300000000202051" {
		t.Errorf("layoutIBAN %q", got)
	}
}

// TestPartyBlocksFromOCR: OCR's text keeps no indentation and drops umlauts' dots; a name
// whose label stands beside its second line keeps the block open, and "Verkaufer" is the
// seller's heading.
func TestPartyBlocksFromOCR(t *testing.T) {
	seller, buyer := partyBlocks(strings.Split(`Verkaufer
Nummer: 549910
MVM Musterhafter
Name: Versicherungsverein Musterstadt a.G.
Anschrift: Musterstr. 12
DE 12345 Musterstadt
USt.-Id.-Nr.: DE234567891
Kaufer/Leistungsempfanger
Herrn
Name: Max Mustermann
Anschrift: Musterstr. 11
DE 12346 Bad Musterhausen
Bemerkungen
Bemerkung Beitragsrechnung
Name: Someone Else`, "\n"))
	if seller.name != "Versicherungsverein Musterstadt a.G." || seller.vatID != "DE234567891" {
		t.Errorf("seller %+v", seller)
	}
	if buyer.name != "Max Mustermann" || buyer.address.Line1 != "Musterstr. 11" {
		t.Errorf("buyer %+v", buyer)
	}
	if partyHeading("Verkaeufer:") != "seller" || partyHeading("Rechnungsempfanger") != "buyer" || partyHeading("Warenempfanger") != "delivery" {
		t.Error("headings without umlauts")
	}
}

// TestSpeckBetweenAddressLines: OCR's reading of a shaded row's edge between a street and
// its post code line ("1 r", Tesseract on akretion's sample) is no party's name.
func TestSpeckBetweenAddressLines(t *testing.T) {
	inv := ParseInvoice("FACTURE N°: F20180027\nSELLER TRADE NAME\nLE FOURNISSEUR\n35 rue d'ici, Seller line 2\n1 r\n75018 PARIS, FR\nN° TVA : FR 32 123 456 789\nTOTAL TTC 110,00", now)
	if inv.Seller.Name != "LE FOURNISSEUR" || inv.Seller.Address.Line1 != "35 rue d'ici, Seller line 2" {
		t.Errorf("seller %q at %q", inv.Seller.Name, inv.Seller.Address.Line1)
	}
}

// TestCreditNoteTotalsText: a credit note whose VAT lost its sign in the text lines (the
// minus on the line of the label's wrapped currency) gets it from the net and the total,
// which agree with it as magnitudes. Titled "Gutschrift" with its figures negative, it is a
// credit note (381) of positive amounts; titled as an invoice, an invoice of negative ones.
func TestCreditNoteTotalsText(t *testing.T) {
	text := "Gutschrift Nr. RK-1\nPositionssumme   -7,90\nGesamtbetrag der Abschläge   0,23\nRechnungssumme ohne USt.   -7,67\n" +
		"                 EUR   -\nSteuerbetrag in\n                      1,12\nBruttosumme   -8,79\nZahlbetrag   -8,79\n"
	inv := ParseInvoice(text, now)
	if tt := inv.Totals; inv.TypeCode != "381" || tt.NetTotal.String() != "7.67" || tt.VATTotal.String() != "1.12" || tt.GrossTotal.String() != "8.79" || tt.AmountDue.String() != "8.79" {
		t.Errorf("%s totals %+v", inv.TypeCode, tt)
	}
	inv = ParseInvoice(strings.Replace(text, "Gutschrift", "Rechnung", 1), now)
	if tt := inv.Totals; inv.TypeCode != "380" || tt.NetTotal.String() != "-7.67" || tt.VATTotal.String() != "-1.12" || tt.GrossTotal.String() != "-8.79" || tt.AmountDue.String() != "-8.79" {
		t.Errorf("%s totals %+v", inv.TypeCode, tt)
	}
}

// TestForeignVATID: a seller from the United Kingdom prints its VAT number in its format;
// it is the seller's, not the buyer's German one under it.
func TestForeignVATID(t *testing.T) {
	inv := ParseInvoice("Verkäufer:\nGlobal Supplies Ltd.\n153 Victoria Street\nGB SW1B 3BN London\nUSt.-Id.-Nr. : GB123456789\n\nKäufer:\nMetallbau Leipzig GmbH & Co. KG\nPappelallee 15\nDE 12345 Leipzig\nUSt.-Id.-Nr. : DE123456789\n", now)
	if inv.Seller.VATID != "GB123456789" {
		t.Errorf("seller's VAT ID %q", inv.Seller.VATID)
	}
	if inv := ParseInvoice("Bei Spiel Ltd\nVAT No. GB 123 4567 89\n", now); inv.Seller.VATID != "GB123456789" {
		t.Errorf("spaced: %q", inv.Seller.VATID)
	}
}

// TestViewerPartySections: the XRechnung viewer's party sections ("Informationen zum
// Käufer") with labelled lines and a second column of labels on the same rows.
func TestViewerPartySections(t *testing.T) {
	lines := strings.Split(` Informationen zum Käufer

 Name:               Untertänigster Leistungsempfänger              Ländercode:         DE (Deutschland)
 Adresszeile 1:      Party Street 1                                 Telefon:            +491234567890
 PLZ:                12345                                          E-Mail-Adresse:     exploiter@your.boss
 Ort:                Glückstadt

 Informationen zum Verkäufer

 Firmenname:         Hochwürdiger Leistungserbringer                Ländercode:         DE (Deutschland)
 Adresszeile 1:      Fun Street 1                                   Telefon:            +4917012345678`, "\n")
	seller, buyer := partyBlocks(lines)
	if buyer.name != "Untertänigster Leistungsempfänger" || buyer.address.Line1 != "Party Street 1" || buyer.address.PostCode != "12345" || buyer.address.City != "Glückstadt" {
		t.Errorf("buyer %+v", buyer)
	}
	if seller.name != "Hochwürdiger Leistungserbringer" || seller.address.Line1 != "Fun Street 1" {
		t.Errorf("seller %+v", seller)
	}
	// OCR's text of the same: single spaces, the next label ends the value.
	_, buyer = partyBlocks([]string{"Informationen zum Käufer", "Name: Untertänigster Leistungsempfänger Ländercode: DE (Deutschland)", "Adresszeile 1: Party Street 1 Telefon: +491234567890"})
	if buyer.name != "Untertänigster Leistungsempfänger" || buyer.address.Line1 != "Party Street 1" {
		t.Errorf("OCR: buyer %+v", buyer)
	}
}

// TestWebAddressIsNoParty: the line over a post code that is a web address (two columns
// of a letterhead read as one) is no buyer's name: it is left missing.
func TestWebAddressIsNoParty(t *testing.T) {
	inv := parseInvoice("Bei Spiel GmbH\nEcke 12\n12345 Stadthausen\nhttp://localhost/\n88802 Spielkreis\nRechnung Nr. 4711\nGesamtbetrag 119,00\n", now, nil)
	if inv.Buyer.Name != "" || inv.Buyer.Address.City != "Spielkreis" {
		t.Errorf("buyer %q in %q", inv.Buyer.Name, inv.Buyer.Address.City)
	}
}

// TestLabelledBuyer: a page without the recipient's address block names the buyer after a
// label on its line ("An: Muster Bautraeger AG"); a customer number after such a label
// names none.
func TestLabelledBuyer(t *testing.T) {
	const text = "RECHNUNG 2024-0817\nEgger Bau GmbH\nAn: Muster Bautraeger AG\n\nRechnungsdatum: 17.08.2024\n\n" +
		"Nettobetrag gesamt: 2.385,00 EUR\nSteuerbetrag: 361,00 EUR\nBruttobetrag: 2.746,00 EUR\n"
	if inv := ParseInvoice(text, now); inv.Buyer.Name != "Muster Bautraeger AG" {
		t.Errorf("buyer %q", inv.Buyer.Name)
	}
	if inv := ParseInvoice(strings.Replace(text, "An: Muster Bautraeger AG", "Kunde: 10042", 1), now); inv.Buyer.Name != "" {
		t.Errorf("a customer number names buyer %q", inv.Buyer.Name)
	}
}

// TestSenderLineOverRecipientsStreet: the text lines took the recipient's street, whose
// word names no street ("Neben dem Bach 12"), for the seller; the sender's line over the
// window names it.
func TestSenderLineOverRecipientsStreet(t *testing.T) {
	const text = "             Alpha cars - Haupstrasse 35 - 12345 Himmelstadt - Germany\n\n\n" +
		"Visa plus\nNeben dem Bach 12\n54321 Irgendwo\nGermany\n\nRechnung AC-2023-1234\n" +
		"                                                        Total                   Netto         165,00 €\n"
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 99, Y: 29, Text: "Alpha cars - Haupstrasse 35 - 12345 Himmelstadt - Germany"},
		testpdf.At{X: 34, Y: 113, Text: "Visa plus"}, testpdf.At{X: 34, Y: 131, Text: "Neben dem Bach 12"},
		testpdf.At{X: 34, Y: 149, Text: "54321 Irgendwo"}, testpdf.At{X: 34, Y: 168, Text: "Germany"},
		testpdf.At{X: 28, Y: 241, Text: "Rechnung AC-2023-1234"},
	)})
	inv := parseInvoice(text, now, l)
	if inv.Seller.Name != "Alpha cars" || inv.Buyer.Name != "Visa plus" {
		t.Errorf("seller %q, buyer %q", inv.Seller.Name, inv.Buyer.Name)
	}
}
