package receipt

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestVATLayouts: VAT tables as receipts and invoices print them and as OCR reads them. Each
// text is a receipt's (or an invoice's) VAT part with its total; want is the breakdown,
// rate:net/vat/gross per line.
func TestVATLayouts(t *testing.T) {
	for name, c := range map[string]struct{ text, want string }{
		"rate misread (13 % for 19 %)": {
			"Kreditkarte EUR 19,90\nTyp Netto MwSt Brutto\n13% 16,72 3.18 19,90\n",
			"19:16.72/3.18/19.90"},
		"table row without a rate, gross misread": {
			"zu zahlen 7,16\nMWST% MWST + Netto = Brutto\nAa 0,47 6,69 TG\nSUMING 0,47 6,69 7.18\n",
			"7:6.69/0.47/7.16"},
		"second rate from the total": {
			"ZU ZAHLEN 24,23\nMWST Netto MWST-BETRAG BRUTTO\nC 7,00% 1433 52 18,54\nD 19,00% 4,78 0,91 5,69\n",
			"19:4.78/0.91/5.69 7:17.33/1.21/18.54"},
		"VAT misread, net and the total fit": {
			"SUMME EUR 48,77\nMWST-CODE NETTO-Entgelt MWST-Betrag\n19.00 % 40. 98 1.79\n",
			"19:40.98/7.79/48.77"},
		"two-line layout (MediaMarkt, Saturn)": {
			"GIROCARD 99,86\nIncl. 19,00% Mwst (c) 15,95\nNetto-Warenwert (b) 83,91\n",
			"19:83.91/15.95/99.86"},
		"invoice table, bare rates": {
			"Umsatzsteueraufschlüsselung\nArt (Kategorie)   Warenwert   Zu-/Abschlag   Basisbetrag   Steuersatz [%]   Steuerbetrag\n" +
				"Umsatzsteuer (S)      275,00      7      19,25\nUmsatzsteuer (S)     198,00     19     37,62\nBruttosumme 529,87\n",
			"7:275.00/19.25/294.25 19:198.00/37.62/235.62"},
		"credit note": {
			"Umsatzsteueraufschlüsselung\nArt (Kategorie)   Warenwert   Basisbetrag   Steuersatz [%]   Steuerbetrag\n" +
				"Umsatzsteuer (S)      -4,85      19      -0,92\nBruttosumme -5,77\n",
			"19:-4.85/-0.92/-5.77"},
		// A credit note's rows with the allowance's column beside the figures, printed
		// positive: 0,15 at 19 % would fit a net of 0,77 and 2,90 at 7 % the VAT 0,20 too;
		// the net and VAT stand side by side and keep their sign.
		"credit note with allowances": {
			"Umsatzsteueraufschlüsselung\nArt (Kategorie)   Warenwert   Zu-/Abschlag   Steuerbasisbetrag   USt. %   USt.-Betrag\n" +
				"VAT (S)   -5,00   0,15   -4,85   19   -0,92\nVAT (S)   -2,90   0,08   -2,82   7   -0,20\nBruttosumme -8,79\n",
			"19:-4.85/-0.92/-5.77 7:-2.82/-0.20/-3.02"},
		// The header shares its row with a total, and the rows print the rate bare.
		"header beside a total": {
			"Taxe   Base   Montant      Total HT   -218,48 €\n20.0   -20,48 €   -4,10 €\n      Taxes   14,99 €\n5.5   -198,00 €   -10,89 €\nTotal TTC   -233,47 €\n",
			"20:-20.48/-4.10/-24.58 5.5:-198.00/-10.89/-208.89"},
		// A row whose label names the tax and its kind in one word is no header.
		"exempt row with a long label": {
			"Umsatzsteueraufschlüsselung:\nArt (Kategorie)   Warenwert   Steuerbasisbetrag   USt. %   USt.-Betrag\nVAT (K)\n" +
				"Kein Ausweis der Umsatzsteuer bei        2000,00        0        0,00\ninnergemeinschaftlichen Lieferungen\n",
			"0:2000.00/0.00/2000.00"},
		// A VAT line with its rate is no header, whatever words it has.
		// The base before the rate, the tax after it.
		"base, rate, tax": {
			"Mehrwertsteuer      Total     Steuersatz   Gesamt\n       45,00 €        20 %     9,00 €\n      120,00 €       5,5 %     6,60 €\n",
			"20:45.00/9.00/54.00 5.5:120.00/6.60/126.60"},
		"rate line with header words": {
			"Summe 119,00\nUSt 19 % auf Netto 100,00 19,00\n",
			"19:100.00/19.00/119.00"},
		"exempt row": {
			"Umsatzsteueraufschlüsselung\nArt (Kategorie)   Warenwert   Basisbetrag   Steuersatz [%]   Steuerbetrag\n" +
				"innergemeinschaftliche      2.000,00      0      0,00\nBruttosumme 2.000,00\n",
			"0:2000.00/0.00/2000.00"},
		"gross only, completed at its rate": {
			"zu zahlen 12,90\nMWST% MWST + Netto = Brutto\nB 7% 12,90\n",
			"7:12.06/0.84/12.90"},
		// The total misread (6,47 for 5,47): the line's VAT 0,36 is 5,47's at 7 %, so the
		// line does not confirm 6,47 by the gross it repeats.
		"the line's VAT contradicts the total": {
			"SUMME EUR 6.47\nMehrwertst. ohne MwSt mit MwSt\nE 7,0% 0,36 Bi 6,47\n",
			""},
		"the line's VAT and gross agree": {
			"SUMME EUR 5,47\nMehrwertst. ohne MwSt mit MwSt\nE 7,0% 0,36 Bi 5,47\n",
			"7:5.11/0.36/5.47"},
		"no rate printed, VAT and net in words": {
			"EC-Karte € 49,90\nBetrag enthält 3,26 € MwSt\nNetto: 46,64\n",
			"7:46.64/3.26/49.90"},
		"no rate printed, VAT and net on one line": {
			"EC-Karte € 49,90\nBetrag enthält. 3,26 € MASt;\ni Th = 3,26 Netto: 46,64\n",
			"7:46.64/3.26/49.90"},
		// "enthält" says the amount is VAT, though OCR misread MwSt: no total, and the VAT.
		"no rate printed, MwSt misread": {
			"Betrag enthält 3,26 € MASt\nEC-Karte € 49,90\nNetto: 46,64\n",
			"7:46.64/3.26/49.90"},
		// Net and VAT that add up to the total but fit no rate: no line.
		"no rate printed, figures fit none": {
			"EC-Karte € 49,90\nBetrag enthält 4,00 € MwSt\nNetto: 45,90\n",
			""},
		// Two amounts whose ratio happens to be a rate, outside any VAT table: no line.
		"no table": {
			"Pfand 0,25\nBanane 1,32\nSumme 1,57\n",
			""},
	} {
		r := Parse(c.text, now)
		var got []string
		for _, l := range r.VAT {
			got = append(got, fmt.Sprintf("%s:%s/%s/%s", l.Rate, l.Net, l.VAT, l.Gross))
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s: got %q, want %q", name, g, c.want)
		}
	}
}

// TestBreakdownDecidesTotal: the card slip's total misread (26,81 for 28,81); the VAT table,
// completed, adds up to the receipt's SUMME, which is the total.
func TestBreakdownDecidesTotal(t *testing.T) {
	r := Parse("Marktkauf\nSUMME EUR 28,81\nMastercard EUR 26,81\nMastercard 26,81\nMwSt NETTO MwSt UMSATZ\n3% 9,49 0.66 10,19\n19% 15,68 2.98 18,66\n", now)
	if r.Data.Gross.String() != "28.81" || len(r.VAT) != 2 {
		t.Errorf("total %s, breakdown %+v", r.Data.Gross, r.VAT)
	}
}

// TestLongLinesBounded: a hostile line of thousands of figures, under a VAT header and under
// a line table's header, is read in bounded time.
func TestLongLinesBounded(t *testing.T) {
	row := strings.Repeat("1,00 2 0,50 ", 500)
	text := "MwSt Netto Brutto\n19% " + row + "\nMenge Preis Betrag\n" + row + "\nSumme 1,00"
	start := time.Now()
	ParseInvoice(text, now)
	Parse(text, now)
	if d := time.Since(start); d > 20*time.Second { // 0.4 s here; without the bounds, minutes
		t.Errorf("took %v", d)
	}
}

// TestTillsOfFranceAndAmerica: a French till's "CB" and "CARTE BANCAIRE" lines pay the
// total, and its VAT row without a header is read beside "TOTAL TVA" when its figures are a
// French rate, net, VAT and gross (OCR misread the total "8,79" as "6,79"); an American
// till's "TL" is its total, "CREDIT" its card. A row of four figures beside no tax line, or
// at a rate the country does not have, is no VAT row.
func TestTillsOfFranceAndAmerica(t *testing.T) {
	r := Parse("U EXPRESS\nNOIX CAJOU 1,90€\nTOTAL 3hrtih® 6,79 €\nCB SANS CONTACT UX EUR 8,79 €\n17 5,50 8,33 € 0,46 € 8,79 €\nTOTAL TVA ase- O46€ . 8,79 €", now)
	if r.Data.Gross.String() != "8.79" || len(r.VAT) != 1 || r.VAT[0].Rate.String() != "5.5" || r.VAT[0].VAT.String() != "0.46" {
		t.Errorf("U Express: total %s, breakdown %+v", r.Data.Gross, r.VAT)
	}
	r = Parse("LEROY MERLIN\nCOUDE PVC 47.60\nCARTE BANCAIRE 128.10 EUR\nTOTAL 128.10", now)
	if r.Data.Gross.String() != "128.10" || r.Confidence.Gross < 0.9 {
		t.Errorf("Leroy Merlin: total %s (confidence %v)", r.Data.Gross, r.Confidence.Gross)
	}
	for _, text := range []string{"BROTHERS FARMERS MKT\nAPPLES 3.49\nTL $45.26\nCREDIT $45.26", "BROTHERS FARMERS MKT\nAPPLES 3.49\nTL $45.26", "BROTHERS FARMERS MKT\nAPPLES 3.49\nCREDIT $45.26"} {
		if r := Parse(text, now); r.Data.Gross.String() != "45.26" {
			t.Errorf("%q: total %s", text, r.Data.Gross)
		}
	}
	for _, text := range []string{
		"BOULANGERIE\nTOTAL 8,79 €\n5,50 8,33 € 0,46 € 8,79 €\nMERCI",                                             // no tax line beside it
		"BOULANGERIE DU CENTRE\nMerci de votre visite\nTOTAL 8,78 €\n7,00 8,21 € 0,57 € 8,78 €\nTOTAL TVA 0,57 €", // 7 % is no French rate
	} {
		if r := Parse(text, now); len(r.VAT) != 0 {
			t.Errorf("%q: breakdown %+v", text, r.VAT)
		}
	}
}

// A GST tax invoice prints each rate's sum before and after tax on lines of its own, and the
// sum of its zero-rated supplies, repeated and with the 0 read as letters: that sum is no
// total, and the lines make the breakdown.
func TestSumsBeforeAndAfterTax(t *testing.T) {
	text := "GARDENIA BAKERIES (KL) SDN BHD\nTAX INVOICE\nO.C. WHITE 2.13 2 4.26\nTotal Ok supplies: 11.68\nCR-B'SCOTCH 0.72 10 7.20\n" +
		"Total 6% supplies (exci. GST): 7.20\nGST: 0.43\nTotal 6% supplies (Inc. GST): 7.63\nTotal @% supplies: 11.68\nTotal Payable: 19.31"
	r := Parse(text, now)
	if r.Data.Gross.String() != "19.31" {
		t.Errorf("total %s, want 19.31", r.Data.Gross)
	}
	if len(r.VAT) != 2 || r.VAT[0].Rate.String() != "6" || r.VAT[0].Net.String() != "7.20" || r.VAT[0].VAT.String() != "0.43" ||
		r.VAT[1].Rate.String() != "0" || r.VAT[1].Gross.String() != "11.68" {
		t.Errorf("breakdown %+v", r.VAT)
	}
	r = Parse("KIOSK\nNetto 19 %: 10,00\nBrutto 19 %: 11,90\nSumme EUR 11,90", now)
	if len(r.VAT) != 1 || r.VAT[0].VAT.String() != "1.90" {
		t.Errorf("Netto and Brutto lines: breakdown %+v", r.VAT)
	}
	// Two sums whose difference is not the rate's tax on the first make no line (the total
	// may complete the rate's line, from its gross), and a rate's sum without such a pair
	// is no 0 % line.
	_, p := parse("KIOSK\nNetto 19 %: 10,00\nBrutto 19 %: 12,90\nSumme EUR 12,90", now, asReceipt, nil)
	if ls := p.sumsBeforeAndAfterTax(); len(ls) != 0 {
		t.Errorf("sums 10,00 and 12,90 at 19 %%: %+v", ls)
	}
	if r := Parse("SHOP\nTotal 0% supplies: 11.68\nTotal Payable: 11.68", now); len(r.VAT) != 0 {
		t.Errorf("a 0 %% sum alone: breakdown %+v", r.VAT)
	}
}

// Lines that name the tax a total includes, or the tax payable, are no total: behind a
// letter OCR made of a mark ("i GST payable (6%): 1.31"), and "TOTAL INCLUDES 8% GST 1.07",
// whose one figure would make a breakdown of its own and take the total from the lines that
// name it.
func TestTaxLinesNameNoTotal(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"Banh Mi Cafe\nTotal (Excluding GST): 21.30\nServ. Charge (3%): 0.65\ni GST payable (6%): 1.31\nTotal (Inclusive of GST): 23.26 |\nRounding Adj: -0.01\nTOTAL: 23.25", "23.25"},
		{"McDonald's\n1 Fries 7,80\nTakeQut Total (ine! OST) 18.90\nTotal Reurded 18.90\nCash Tendered 50.09\nChange 31.10\nTOTAL INCLUDES 8% GST 1.07", "18.90"},
	} {
		if r := Parse(c.text, now); r.Data.Gross.String() != c.want {
			t.Errorf("%q: total %s, want %s", c.text, r.Data.Gross, c.want)
		}
	}
}
