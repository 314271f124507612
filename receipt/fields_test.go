package receipt

import (
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/engine/tesseract"
)

func reading(rs []einvoice.Reading, path string) (einvoice.Reading, bool) {
	for _, r := range rs {
		if r.Path == path {
			return r, true
		}
	}
	return einvoice.Reading{}, false
}

// TestReceiptReadings: every field found is listed with its source; a total whose VAT
// breakdown adds up is confirmed, one that a check contradicts is uncertain with the check's
// words, and so is a date in the future.
func TestReceiptReadings(t *testing.T) {
	r := Parse("ALDI\nZU ZAHLEN 24,23\nMWST Netto MWST-BETRAG BRUTTO\nC 7,00% 17,33 1,21 18,54\nD 19,00% 4,78 0,91 5,69\n02.03.2020 09:48\n", now)
	finish(r, now)
	finishReadings(r, "OCR", nil)
	g, ok := reading(r.Fields, "data.gross")
	if !ok || g.BT != "BT-112" || g.Source != "OCR" || g.Confidence < 0.9 {
		t.Errorf("gross reading %+v", g)
	}
	if len(r.Uncertain) != 0 {
		t.Errorf("uncertain %+v", r.Uncertain)
	}
	if _, ok := reading(r.Fields, "data.issuer"); !ok {
		t.Errorf("no issuer reading in %+v", r.Fields)
	}

	// The breakdown adds up to 24.23, the total read is 25.23: both uncertain.
	r = Parse("ALDI\nSUMME 25,23\nMWST Netto MWST-BETRAG BRUTTO\nC 7,00% 17,33 1,21 18,54\nD 19,00% 4,78 0,91 5,69\n02.03.2029\n", now)
	finish(r, now)
	finishReadings(r, "OCR", nil)
	for _, path := range []string{"data.gross", "vatBreakdown", "data.date"} {
		u, ok := reading(r.Uncertain, path)
		if !ok || u.Reason == "" || u.Confidence >= einvoice.Uncertain {
			t.Errorf("%s not uncertain: %+v in %+v", path, u, r.Uncertain)
		}
	}
	if u, _ := reading(r.Uncertain, "data.date"); !strings.Contains(u.Reason, "future") {
		t.Errorf("date reason %q", u.Reason)
	}
}

// TestInvoiceReadings: cross-checks of an invoice read from text. The invoice text of
// TestParseInvoice is consistent but for its sample VAT identifier, whose check digit is
// wrong; a gross that disagrees with net + VAT makes all three uncertain; an invoice without
// a currency printed has EUR assumed, and says so.
func TestInvoiceReadings(t *testing.T) {
	res := &InvoiceResult{Invoice: ParseInvoice(invoiceText, now), Text: invoiceText}
	complete(res.Invoice)
	invoiceReadings(res, "PDF_TEXT", now, nil)
	var unsure []string
	for _, u := range res.Uncertain {
		unsure = append(unsure, u.Path)
	}
	if strings.Join(unsure, " ") != "invoice.seller.vatId" {
		t.Errorf("uncertain %v, want only the VAT identifier (DE123456789's check digit is wrong)", unsure)
	}
	if n, ok := reading(res.Fields, "invoice.totals.netTotal"); !ok || n.Confidence < 0.9 || n.Source != "PDF_TEXT" {
		t.Errorf("net %+v", n)
	}
	if f := vatID("x", "DE 814 689 550"); f.conf < 0.9 {
		t.Errorf("a valid German VAT identifier: %+v", f)
	}

	text := strings.Replace(strings.Replace(invoiceText, "Gesamtbetrag 714,00 EUR", "Gesamtbetrag 741,00", 1), "Nettobetrag 600,00 EUR", "Nettobetrag 600,00", 1)
	res = &InvoiceResult{Invoice: ParseInvoice(text, now), Text: text}
	complete(res.Invoice)
	invoiceReadings(res, "OCR", now, nil)
	for _, path := range []string{"invoice.totals.grossTotal", "invoice.totals.netTotal", "invoice.totals.vatTotal"} {
		if u, ok := reading(res.Uncertain, path); !ok || !strings.Contains(u.Reason, "not the gross") {
			t.Errorf("%s: %+v", path, u)
		}
	}
	if u, ok := reading(res.Uncertain, "invoice.currency"); !ok || !strings.Contains(u.Reason, "assumed") {
		t.Errorf("currency %+v", u)
	}

	// What the embedded XML says is exact.
	res = &InvoiceResult{Invoice: ParseInvoice(invoiceText, now), Text: invoiceText}
	invoiceReadings(res, "EMBEDDED_XML", now, nil)
	if len(res.Uncertain) != 0 || res.Fields[0].Confidence != 1 || res.Fields[0].Source != "EMBEDDED_XML" {
		t.Errorf("embedded: %+v %+v", res.Fields[0], res.Uncertain)
	}

	// A value the model changed is the model's.
	res = &InvoiceResult{Invoice: ParseInvoice(invoiceText, now), Text: invoiceText}
	before := values(invoiceFields(res.Invoice, invoiceText, now))
	res.Invoice.Number = "RE-2026-0043"
	invoiceReadings(res, "PDF_TEXT", now, before)
	if n, _ := reading(res.Fields, "invoice.number"); n.Source != "LLM" {
		t.Errorf("number changed by the model: %+v", n)
	}
	if d, _ := reading(res.Fields, "invoice.issueDate"); d.Source != "PDF_TEXT" {
		t.Errorf("issue date kept: %+v", d)
	}
}

// TestTenderedTakenAsTotal: the total read (10,00, the SUMME line misread) is the cash given;
// given less change says 7,16 was paid, so the total is uncertain; read right, it is not.
func TestTenderedTakenAsTotal(t *testing.T) {
	for text, uncertain := range map[string]bool{
		"Lidl\nSUMME 10,00\nBAR 10,00\nRÜCKGELD -2,84\n02.03.2020": true,
		"Lidl\nSUMME 7,16\nBAR 10,00\nRÜCKGELD -2,84\n02.03.2020":  false,
	} {
		r := Parse(text, now)
		finish(r, now)
		finishReadings(r, "OCR", nil)
		u, ok := reading(r.Uncertain, "data.gross")
		if ok != uncertain || ok && !strings.Contains(u.Reason, "paid 7.16") {
			t.Errorf("%q: total %s, uncertain %v %+v, checks %+v", text, r.Data.Gross, ok, u, r.Checks)
		}
	}
}

// TestDateSlips: an hour after a day and month is no year; a dot OCR read as "*" or "°"
// still separates a date.
func TestDateSlips(t *testing.T) {
	for text, want := range map[string]einvoice.Date{
		"MediaMarkt\nDatum: 14.05 2026\nAS-Zeit 14.05, 16:14 Uhr\n3973 M039 14.05.2020 16:15\nSUMME 39,00": "2020-05-14",
		"MediaMarkt\nAS-Zeit 14.05, 16:14 Uhr\nSUMME 39,00":                                                "",
		"Lidl\nzu zahlen 7,16\n3182 748433701 02*03.20 15:59":                                              "2020-03-02",
		"Lidl\nzu zahlen 7,16\n3182 748433701 02°03.20 15:59":                                              "2020-03-02",
	} {
		if got := Parse(text, now).Data.Date; got != want {
			t.Errorf("%q: date %q, want %q", text, got, want)
		}
	}
}

// TestStreetIsNoIssuer: a street line is no issuer's name, also with its ß read as B.
func TestStreetIsNoIssuer(t *testing.T) {
	r := Parse("Warburger StraBe 130\n33100 Paderborn\nzu zahlen 7,16\n02.03.2020", now)
	if strings.Contains(r.Data.Issuer, "Warburger") {
		t.Errorf("issuer %q", r.Data.Issuer)
	}
	if !strings.HasPrefix(r.Issuer.Address, "Warburger StraBe 130") {
		t.Errorf("address %q", r.Issuer.Address)
	}
}

// TestIssuerFromSureLines: what OCR makes of a logo (read with low confidence) names no
// issuer, nor does an address that starts with its street's word, a greeting or the
// document's title; a legal form on a line of its own joins the name above it.
func TestIssuerFromSureLines(t *testing.T) {
	var boxes []tesseract.WordBox
	for i, l := range []struct {
		text string
		conf float64
	}{{"aa EEE", 30}, {"ar Pere", 26}, {"FEO HENG STATIONERY", 72}, {"NO. 53, JALAN BESAR", 90}, {"TOTAL 24.00", 90}} {
		for _, w := range strings.Fields(l.text) {
			boxes = append(boxes, tesseract.WordBox{Left: 10, Top: 40 * i, Width: 50, Height: 30, Text: w, Confidence: l.conf, Line: i})
		}
	}
	s := &scanRead{page: &tesseract.Page{Boxes: boxes}}
	text := "aa EEE\nar Pere\nFEO HENG STATIONERY\nNO. 53, JALAN BESAR\nTOTAL 24.00\n15/01/2018"
	if r, _ := parse(text, now, asReceipt, s.lines()); r.Data.Issuer != "FEO HENG STATIONERY" {
		t.Errorf("issuer %q beside OCR's unsure lines", r.Data.Issuer)
	}
	if r, _ := parse(text, now, asReceipt, nil); r.Data.Issuer == "FEO HENG STATIONERY" {
		t.Errorf("issuer %q without the confidences: the case tests nothing", r.Data.Issuer)
	}
	for text, want := range map[string]string{
		"Jalan Pinang 21\nTAN WOON YANN\nTOTAL 7.00":                 "TAN WOON YANN",
		"Thank you, please come again\nKEDAI RUNCIT ABC\nTOTAL 7.00": "KEDAI RUNCIT ABC",
		"SIMPLIFIED TAX INVOICE\nKEDAI RUNCIT ABC\nTOTAL 7.00":       "KEDAI RUNCIT ABC",
		"| Calle Mayor 5\nPanadería Sol\nTOTAL 7,00":                 "Panadería Sol",
		"BORONG MAJU\nSDN BHD\nJalan Besar 3\nTOTAL 3.20":            "BORONG MAJU SDN BHD",
		"Mercadona, S.A.\nC/ Valencia 5\nTOTAL 7,00":                 "Mercadona",
	} {
		if got := Parse(text, now).Data.Issuer; got != want {
			t.Errorf("%q: issuer %q, want %q", text, got, want)
		}
	}
}

// TestNameWithoutEdgeNoise: what a photo's edge leaves at a line's ends (bars, lone letters,
// two letters Tesseract was unsure of) is no part of the name, nor does it make a sure line
// of a logo's noise or an unsure one of a name; the shop's name over the company that runs
// it comes first; an address that starts with the house number names no issuer.
func TestNameWithoutEdgeNoise(t *testing.T) {
	type word struct {
		text string
		conf float64
	}
	scan := func(lines [][]word) (string, *scanRead) {
		var boxes []tesseract.WordBox
		var text []string
		for i, l := range lines {
			var ws []string
			for _, w := range l {
				boxes = append(boxes, tesseract.WordBox{Left: 10, Top: 40 * i, Width: 50, Height: 30, Text: w.text, Confidence: w.conf, Line: i})
				ws = append(ws, w.text)
			}
			text = append(text, strings.Join(ws, " "))
		}
		return strings.Join(text, "\n"), &scanRead{page: &tesseract.Page{Boxes: boxes}}
	}
	for want, lines := range map[string][][]word{
		"Hexenalm, Apresski Gastronomie GmbH": {
			{{"i", 46}, {"FS", 12}, {"Ne", 3}, {"EERE", 42}, {"EEE", 49}, {"E", 0}},
			{{"\\", 0}, {"Hexenalm", 91}, {"u", 32}},
			{{"!", 64}, {"Apresski", 92}, {"Gastronomie", 96}, {"GmbH", 96}},
			{{"A-6533", 59}, {"Fiss,", 93}, {"Seilbahnstraße", 93}, {"42", 97}},
			{{"SUMME", 95}, {"EUR", 95}, {"18,00", 95}, {"02.10.2021", 90}},
		},
		"Sklep Polska": {
			{{"ee", 19}, {"Dr", 37}, {"Be", 23}, {"|", 96}, {"y", 60}, {"\"", 0}, {")", 52}, {"Biedre", 49}, {"Q2-", 67}, {"¥", 51}},
			{{"Sklep", 90}, {"Polska", 92}},
			{{"SUMA", 95}, {"PLN", 95}, {"40,67", 95}, {"27.02.2020", 90}},
		},
		"MANOR": {
			{{"Du", 1}, {"Den", 31}, {"IN", 70}},
			{{"MANOR", 95}, {"|", 93}},
			{{"Weggisgasse", 90}, {"5", 90}},
			{{"Total", 95}, {"147.25", 95}, {"20.12.2024", 90}},
		},
	} {
		text, s := scan(lines)
		if r, _ := parse(text, now, asReceipt, s.lines()); r.Data.Issuer != want {
			t.Errorf("issuer %q, want %q", r.Data.Issuer, want)
		}
	}
	_, s := scan([][]word{{{"i", 54}, {"a", 9}, {"Rio", 97}, {"Getränkemarkt", 96}, {"AG", 97}, {"Me", 19}}})
	if got := s.lines().clean("i a Rio Getränkemarkt AG Me"); got != "Rio Getränkemarkt AG" {
		t.Errorf("clean %q", got)
	}
	if got := s.lines().clean("Getränkemarkt AG Me"); got != "Getränkemarkt AG Me" {
		t.Errorf("a line the words do not know: %q", got)
	}
	for text, want := range map[string]string{
		"91 Avenue Jean Jaures\nCAFE ODESSA\nTOTAL 7,00":                            "CAFE ODESSA",
		"Restaurant Lassida\nSeilbahn Komperdell GmbH\nA-6534 Serfaus\nSumme 18,00": "Restaurant Lassida, Seilbahn Komperdell GmbH",
		"ARTICLES EUR\nbloc cuvette 0,83\nTOTAL 0,83":                               "",
	} {
		if got := Parse(text, now).Data.Issuer; got != want {
			t.Errorf("%q: issuer %q, want %q", text, got, want)
		}
	}
}

// TestEdgeNoise: the words a line loses at its ends.
func TestEdgeNoise(t *testing.T) {
	for _, c := range []struct {
		text string
		conf float64
		want bool
	}{
		{"|", 90, true}, {"‘", 52, true}, {"i", 62, true}, {"N", 80, true}, {"Hf", 46, true}, {"Me", 19, true}, {"|ı", 28, true},
		{"AG", 97, false}, {"SA", 95, false}, {"900", 40, false}, {"Lio", 30, false}, {"7", 20, true}, {"7", 90, false},
	} {
		if got := edgeNoise(tesseract.WordBox{Text: c.text, Confidence: c.conf}); got != c.want {
			t.Errorf("%q at %.0f: noise %v, want %v", c.text, c.conf, got, c.want)
		}
	}
}

// TestAddressAndColumnsNameNoIssuer: a Malay address whose number OCR misread, a village
// ("KG.", no German KG), a unit's address, an item table's header, a receipt's footer
// phrase and a misread "TAX INVOICE" name no issuer; the shop's line under them does.
func TestAddressAndColumnsNameNoIssuer(t *testing.T) {
	for _, head := range []string{"RO. 17-5, JALAN SETIA", "KG. DUSUN BARU, 43100 HULU,", "Unit G-58, Ground Floor", "ITEH E17 WE AMOUNT", "Goods Sold Are Not Returnable.", "TAZ INVOICE"} {
		r := Parse(head+"\nKEDAI RUNCIT MAJU\n12/03/2018\nTOTAL 12.00", now)
		if r.Data.Issuer != "KEDAI RUNCIT MAJU" {
			t.Errorf("%q above the shop's name: issuer %q", head, r.Data.Issuer)
		}
	}
}

// TestKindAndDomainNameTheShop: a line that names only what kind of place a shop is takes
// the name below it ("RISTORANTE" over "la Piazzetta", "Berghotel" over "Grosse
// Scheidegg"); with no name line OCR could read, the shop's web address names it, not a
// payment provider's or a till maker's.
func TestKindAndDomainNameTheShop(t *testing.T) {
	for text, want := range map[string]string{
		"PIZZERIA\nRISTORANTE\nla Piazzetta\nFriedensstraße 9\n85586 Poing\nSUMME 66,70":     "RISTORANTE la Piazzetta",
		"Berghotel\nGrosse Scheidegg\n3818 Grindelwald\nTotal CHF 54.50":                     "Berghotel Grosse Scheidegg",
		"Restaurant\nTel. 0211 123456\nTotal 12,00":                                          "Restaurant",
		"PIZZERIA 0’ ASPORTO\nBORCAN LENUTA\nVIA PONT 12-14 TORINO\nTOTALE COMPLESSIVO 5,50": "PIZZERIA 0’ ASPORTO BORCAN LENUTA",
		"a | ~ ;\n40213 Düsseldorf\nwww .einhorn-duesse Idorf .de\nSUMME 35,60":              "einhorn-duesseidorf.de",
		"a | ~ ;\nwww.payback.de\nwww.baeckerei-schmidt.de\nSUMME 3,60":                      "baeckerei-schmidt.de",
		"a | ~ ;\nwww.ready2order.com\nSUMME 3,60":                                           "",
		"a | ~ ;\nwww.bit.ly/x\nwww.bitburger-shop.de\nSUMME 3,60":                           "bitburger-shop.de",
	} {
		if got := Parse(text, now).Data.Issuer; got != want {
			t.Errorf("%q: issuer %q, want %q", text, got, want)
		}
	}
}
