package receipt

import (
	"context"
	"image"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/engine/tesseract"
)

// TestDatesAmongNumbers: a date after a register's number is read whole, not as the number
// and the date's first figures ("REG #19- 02/03/2018" is no 19-02-03); dates with the
// month's name are read ("28 MAR 18", "05 Jan2017", "5. Okt. 2020"); without a keyword
// or a date read more often, a date printed cleanly wins over one OCR spaced ("Tesco
// Stores CR a.s." read "CR 4.9. 10" is no 4 September 2010).
func TestDatesAmongNumbers(t *testing.T) {
	for text, want := range map[string]string{
		"TOTAL 28.50\nORD #15 -REG #19- 02/03/2018 12:59:16":                                  "2018-03-02",
		"Date: 28 MAR 18 20:14\nTotal 129.30":                                                 "2018-03-28",
		"Date :05 Jan2017 12:41pm\nTOTAL 12.60":                                               "2017-01-05",
		"Summe 7,16\nBerlin, 5. Okt. 2020":                                                    "2020-10-05",
		"Summe 7,16\n12 Stk 2020":                                                             "",
		"Tesco Stores CR 4.9. 10\nCELKEM 19,80\nEC/MC 19,80\nSTAV PRED TRANSAKC 07/09/17 484": "2017-09-07",
	} {
		if got := string(Parse(text, now).Data.Date); got != want {
			t.Errorf("%q: date %q, want %q", text, got, want)
		}
	}
}

// TestGluedDates: a footer's date whose separator OCR lost, next to its time, is read when
// no date reads cleanly; a clean date elsewhere wins, and a figure that only looks like a
// glued date without a time is none.
func TestGluedDates(t *testing.T) {
	for text, want := range map[string]string{
		"Datum Zeit BonNr\n02.05.202016:3936192424245 3351":         "2020-05-02", // the year runs into the hour
		"SUMME 5,47\n29.02.2014:52 86651050263":                     "2020-02-29", // a two-digit year into the hour
		"Summe 7,16\n3182 748433701 0203.20 15:59":                  "2020-03-02", // the day's dot lost
		"Summe 7,16\n0203.20 15:59\nDatum 04.03.2020":               "2020-03-04", // a clean date wins
		"Summe 1234,56\nBetrag 1234.56 12:30":                       "",           // no day 12 of month 34
		"Summe 7,16\n0203.20 Punkte":                                "",           // no time vouches for it
		"Summe 7,16\nKarte 12.0203.20 15:59":                        "",           // part of a longer number
		"Summe 7,16\n02.05.2099 16:39\n":                            "2099-05-02", // only a future date: kept, flagged
		"Datum Zeit\n02.05.209916:39":                               "",           // a glued future date is none
		"SUMME 19.99\nMWST 19.00 % 16.80 3.19\n02.08.2020 16:39 36": "2020-08-02",
		"TOTAL 128.10\n133-000007-010387430/07/2023 13:07":          "2023-07-30", // the day run on from a ticket's number
		"TOTAL 116.15\nDATA:07/11/2025ORA:19-33-31":                 "2025-11-07", // the year run into the time's label
		"TOTAL 116.15\nDATA:07/11/2025ORA\nData 08.11.2025":         "2025-11-08", // a clean date wins
		"TOTAL 128.10\nRef 010387430/07/2023":                       "",           // no time vouches for it
	} {
		r := Parse(text, now)
		if string(r.Data.Date) != want {
			t.Errorf("%q: date %q, want %q", text, r.Data.Date, want)
		}
		// A date read from a garbled footer is flagged for a look.
		if glued := !dateRE.MatchString(text); want != "" && glued != (r.Confidence.Date < einvoice.Uncertain) {
			t.Errorf("%q: date confidence %v", text, r.Confidence.Date)
		}
	}
}

// TestDatePlausible: a date in the future, or one on which the VAT rates read did not hold
// (Germany's 16 % and 5 % from July to December 2020, 19 % and 7 % otherwise), is ruled out.
func TestDatePlausible(t *testing.T) {
	r := Parse("SUMME 19.99\nMWST 19.00 % 16.80 3.19 19.99", now)
	if len(r.VAT) != 1 || r.VAT[0].Rate.String() != "19" {
		t.Fatalf("breakdown %+v", r.VAT)
	}
	for date, want := range map[string]bool{"2020-05-02": true, "2020-08-02": false, "2021-01-02": true, "2070-04-23": false, "": false} {
		if got := datePlausible(einvoice.Date(date), r.VAT, "", now); got != want {
			t.Errorf("%s with 19 %%: plausible %v, want %v", date, got, want)
		}
	}
	r = Parse("SUMME 10,00\nMWST 16 % 8,62 1,38 10,00", now)
	if datePlausible("2020-05-02", r.VAT, "DE", now) || !datePlausible("2020-08-02", r.VAT, "DE", now) {
		t.Errorf("16 %% in May and August 2020: %+v", r.VAT)
	}
	// Austria's 20 % held in the second half of 2020 as before.
	at := []VATLine{{Rate: einvoice.NewDecimal(decimal.NewFromInt(20))}}
	if !datePlausible("2020-08-02", at, "AT", now) {
		t.Error("20 % in Austria in August 2020")
	}
}

// TestImplausibleDateReadAgain: a date the VAT rates rule out (August 2020 with 19 %) sends
// the receipt to the second reading, whose date is taken when the rates allow it; a
// plausible second date does not replace a plausible first.
func TestImplausibleDateReadAgain(t *testing.T) {
	first := "toom Baumarkt\nSUMME EUR 19.99\nGEGEBEN BAR 20.00\nRUCKGELD EUR 0.01\nMWST-CODE NETTO MWST\n19.00 % 16.80 3.19 19.99\nDatum Zeit\n02.08.2020 16:39"
	for _, c := range []struct {
		first, second, want string
		read                bool
	}{
		{first, "Datum Zeit\n02.05.202016:39", "2020-05-02", true},
		{first, "Datum Zeit\n02.09.2020 16:39", "2020-08-02", true}, // no better: Tesseract's stays
		{strings.Replace(first, "02.08.2020", "02.03.2020", 1), "02.05.2020 16:39", "2020-03-02", false},
		{strings.Replace(first, "02.08.2020", "23.04.2070", 1), "23.04.2020 09:59", "2020-04-23", true},
	} {
		sec := &fixedReader{text: c.second}
		e := &Extractor{OCR: fixedOCR{c.first}, Second: sec, Now: func() time.Time { return now }}
		r, err := e.Extract(context.Background(), blankPNG(t), "x.png")
		if err != nil {
			t.Fatal(err)
		}
		if string(r.Data.Date) != c.want || sec.calls > 0 != c.read {
			t.Errorf("%q then %q: date %s (want %s), read again %d times", c.first, c.second, r.Data.Date, c.want, sec.calls)
		}
	}
}

// TestSecondReadingPicksAmongDates: Tesseract's text prints two dates, neither named nor read
// more often (Biedronka's fiscal part "2024-05-15", its card slip "2024-05-16"); the second
// reading's date, one of the two, is taken. A date of the second reading that Tesseract's
// text does not print, or prints only as figures that look like one, leaves Tesseract's.
func TestSecondReadingPicksAmongDates(t *testing.T) {
	first := "Biedronka\nRabat x5 -1.20\nSPRZEDAZ OPODATKOWANA C 23,58\nPTU C 5,00 % 1,12\nSUMA PLN 23,58\n00524 #Kasa 1 Kasjer nr 28 2024-05-15 20:37\nGOTOWKA 30,58 PLN\nRESZTA 7,00 PLN\n2024-05-16 20:37 553466\nNIEFISKALNY"
	for _, c := range []struct{ second, want string }{
		{"SUMA PLN 23,58\n00524 #Kasa 1Kasjer nr 28 2024-05-16 20:37", "2024-05-16"},
		{"SUMA PLN 23,58\n00524 #Kasa 1Kasjer nr 28 2024-05-18 20:37", "2024-05-15"},
		// A quantity and a discount read as a date in both ("x5 -1.20") are no date.
		{"SUMA PLN 23,58\nRabat x5 -1.20", "2024-05-15"},
	} {
		sec := &fixedReader{text: c.second}
		// The breakdown read as partial keeps the receipt open for a second reading.
		e := &Extractor{OCR: fixedOCR{strings.Replace(first, "23,58\nPTU", "23,53\nPTU", 1)}, Second: sec, Now: func() time.Time { return now }}
		r, err := e.Extract(context.Background(), blankPNG(t), "x.png")
		if err != nil {
			t.Fatal(err)
		}
		if string(r.Data.Date) != c.want || sec.calls == 0 {
			t.Errorf("second %q: date %s (want %s), read again %d times", c.second, r.Data.Date, c.want, sec.calls)
		}
	}
}

type fixedOCR struct{ text string }

func (o fixedOCR) Read(context.Context, []byte, tesseract.Options) (*tesseract.Page, error) {
	return &tesseract.Page{Text: o.text, Confidence: 90, Words: 40}, nil
}

func (fixedOCR) Orientation(context.Context, []byte) (int, float64, error) { return 0, 0, nil }

type fixedReader struct {
	text  string
	calls int
}

func (r *fixedReader) Read(context.Context, []byte) (string, error) {
	r.calls++
	return r.text, nil
}

func blankPNG(t *testing.T) []byte {
	g := image.NewGray(image.Rect(0, 0, 200, 600))
	for i := range g.Pix {
		g.Pix[i] = 240
	}
	b, err := encodePNG(g)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMendedYear: a year OCR read one digit wrong into the future is the one year of the
// last thirty that one digit read again makes, and uncertain; a year that several such
// years could be stays the future date it says.
func TestMendedYear(t *testing.T) {
	r := Parse("GLOBUS\n21.12.2124 10:32\nTotal CHF 137.60\nCADEAUCARD WAR CHF 5.1.20", now)
	if r.Data.Date != "2024-12-21" || r.Confidence.Date > 0.5 {
		t.Errorf("date %s (confidence %v), want 2024-12-21, uncertain", r.Data.Date, r.Confidence.Date)
	}
	if r := Parse("REWE\n12.03.2029 10:32\nSUMME 7,16", now); r.Data.Date != "2029-03-12" {
		t.Errorf("date %s, want the printed 2029-03-12 (to be flagged, not mended)", r.Data.Date)
	}
}

// TestDatesOutsideEurope: American receipts put the month first, by name or by number;
// Lithuanian and other tills print the year first with dots; OCR runs a footer's day into
// its time.
func TestDatesOutsideEurope(t *testing.T) {
	for text, want := range map[string]string{
		"GRILL HOUSE\n1200 Main St Aug 18, 2018\nTotal 40.00":                              "2018-08-18",
		"Printed By Ann Jun 26, 15 04:55 PM\nTotal 12.00":                                  "2015-06-26",
		"UAB Degalai\nKvitas R-0001 2025.03.30 20:42:19\nMokėti 20,00":                     "2025-03-30",
		"Kasa 2 2023-07-1411:20:27\nMokėti 20,00":                                          "2023-07-14",
		"BOULANGERIE\nMars 2,29\nTotal 2,29\nLe 12/02/2021":                                "2021-02-12",
		"DINER\nVan Nuys, CA 91406\n08/18/2025 12:30\nTotal $40.00":                        "2025-08-18",
		"DINER\n(818) 555-0134\n08/05/25 12:30\nTotal $12.00":                              "2025-08-05",
		"KIOSCO\nFecha 07/05/19 Hora 08:49\nTOTAL $118,80":                                 "2019-05-07", // pesos: day first
		"TEA ROOM\n18-Aug-25 14:02\nTotal £7.40":                                           "2025-08-18",
		"ELECTRONICS\nInv. Date - Mon Jan 29 13:24:15 2018\nSALE: $11.98":                  "2018-01-29",
		"UAB PARDUOTUVE\nMokėti 3,48\nLT 0000004B 2023 03 20 12:58:29":                     "2023-03-20",
		"TRGOVINA d.o.o.\nUKUPNO 19,25\n25.02.2015.12:43":                                  "2015-02-25",
		"OUTDOOR STORE (Pty) Ltd\nTotal 999.00\nDate: 20220411113218":                      "2022-04-11",
		"GROCERY\nREG 02-06-2012 12:58\nBANANA $1.49\nTOTAL $45.26\nCall 954-585-2225":     "2012-02-06",
		"COFFEE\n609-664-2022\nDate: 7/8/24, 11:42AM\nTotal $17.43":                        "2024-07-08",
		"COFFEE TORONTO\n416-555-0199\nDate: 7/8/24\nHST 13% $1.08\nTotal $17.43":          "2024-08-07",
		"BÄCKEREI\n12.03.2024 08:12\nSumme 4,20\nGutschein gültig bis 30.04.2024":          "2024-03-12",
		"Rückgabe bis 11.04.2024\nSumme 9,99\nUmtausch bis 11.04.2024\nKasse 3 12.03.2024": "2024-03-12",
	} {
		if r := Parse(text, now); string(r.Data.Date) != want {
			t.Errorf("%q: date %q, want %s", text, r.Data.Date, want)
		}
	}
}

// TestSecondReadingTotalOverPart: Tesseract read only a card's part of a split payment, its
// total's row lost; the second reading's total row names the whole, with the card's line
// under it (rc13, #20: Esselunga's "TOTALE EURO 47,91", 7,91 by card and 40,00 by meal
// voucher). Without the card's line in the second reading, nothing ties the two.
func TestSecondReadingTotalOverPart(t *testing.T) {
	first := "ESSELUNGA S.p.A.\nPAGAMENTO CARTA DI CREDITO 7,91\nPAGAMENTO BUONO PASTO ELETTRON\nScontrino consultabile"
	for _, c := range []struct{ second, want string }{
		{"ESSELUNGA S.P.A.\nTOTALE EURO 47,91\ndi cui IVA 4,34\nPAGAMENTO CARTA DI CREDITO 7,91\nPAGAMENTO BUONO PASTO ELETTRON 40,00\n07.09.2025 15:00 DOC.N.2228-0054", "47.91"},
		{"ESSELUNGA S.P.A.\nTOTALE EURO 47,91\ndi cui IVA 4,34\n07.09.2025 15:00 DOC.N.2228-0054", "7.91"},
	} {
		sec := &fixedReader{text: c.second}
		e := &Extractor{OCR: fixedOCR{first}, Second: sec, Now: func() time.Time { return now }}
		r, err := e.Extract(context.Background(), blankPNG(t), "x.png")
		if err != nil {
			t.Fatal(err)
		}
		if r.Data.Gross.String() != c.want || sec.calls == 0 {
			t.Errorf("second %q: total %s (want %s), read again %d times", c.second, r.Data.Gross, c.want, sec.calls)
		}
	}
}

// TestSecondReadingTotalIsSubtotal: Tesseract read a subtotal and a total that nothing bears
// out; the second reading names that subtotal as the total (rc14, #20: a Leeds grill's "Sub
// total 99.50" over "Order Total 7.90"). A discount between them keeps Tesseract's total.
func TestSecondReadingTotalIsSubtotal(t *testing.T) {
	for _, c := range []struct{ first, want string }{
		{"Olympus Gril\nLeeds\n1 Falafel 4.95\nSub fotal 99.50\nOrder Total 7.90\nAeceived (Card) 93.10", "99.50"}, // "fotal": as OCR read it
		{"Olympus Gril\nLeeds\n1 Falafel 4.95\nSub total 99.50\nDiscount -91.60\nOrder Total 7.90\nAeceived (Card) 93.10", "7.90"},
	} {
		sec := &fixedReader{text: "Olympus Gril\nLeeds\n22 Jan 2025 08:05 PM\nOrder Total 99.50\nAecoived (Card) 99.60"}
		e := &Extractor{OCR: fixedOCR{c.first}, Second: sec, Now: func() time.Time { return now }}
		r, err := e.Extract(context.Background(), blankPNG(t), "x.png")
		if err != nil {
			t.Fatal(err)
		}
		if r.Data.Gross.String() != c.want || sec.calls == 0 {
			t.Errorf("%q: total %s (want %s), read again %d times", c.first, r.Data.Gross, c.want, sec.calls)
		}
	}
}
