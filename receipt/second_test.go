package receipt

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/engine/tesseract"
	"github.com/shopspring/decimal"
)

// syntheticScan is a receipt of 30 text rows, each painted in its own grey (10 + 5·row) so
// that an image cut from it tells which rows it holds, with Tesseract's words for them.
func syntheticScan(texts []string) *scanRead {
	g := image.NewGray(image.Rect(0, 0, 400, 40*len(texts)+40))
	for i := range g.Pix {
		g.Pix[i] = 255
	}
	p := &tesseract.Page{}
	for i, text := range texts {
		top := 20 + 40*i
		for y := top; y < top+20; y++ {
			for x := 20; x < 300; x++ {
				g.Pix[y*g.Stride+x] = uint8(10 + 5*i)
			}
		}
		p.Boxes = append(p.Boxes, tesseract.WordBox{Left: 20, Top: top, Width: 280, Height: 20, Text: text, Confidence: 90, Line: i})
	}
	return &scanRead{gray: g, page: p}
}

// rowsIn are the rows whose grey the image holds.
func rowsIn(t *testing.T, b []byte, n int) map[int]bool {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	g := img.(*image.Gray)
	out := map[int]bool{}
	for _, v := range g.Pix {
		if v < 255 && (v-10)%5 == 0 && int(v-10)/5 < n {
			out[int(v-10)/5] = true
		}
	}
	return out
}

func receiptTexts() []string {
	texts := []string{"Bäckerei Muster", "Hauptstr. 1"}
	for range 12 {
		texts = append(texts, "Brot 1,00")
	}
	texts = append(texts, "Summe 12,00", "Bar 20,00", "Rückgeld 8,00", "MwSt Netto Brutto", "7% 11,21 0,79 12,00")
	for len(texts) < 26 {
		texts = append(texts, "Vielen Dank")
	}
	return append(texts, "01.02.2026 12:00", "Bis bald", "Filiale 7", "Kasse 2")
}

// receiptScan is receiptTexts as Tesseract's reading of a scan, its image as a PNG and a
// result with the receipt's total and date.
func receiptScan(t *testing.T) ([]string, *scanRead, []byte, *Result) {
	t.Helper()
	texts := receiptTexts()
	s := syntheticScan(texts)
	full, err := encodePNG(s.gray)
	if err != nil {
		t.Fatal(err)
	}
	r := &Result{}
	r.Data.Gross = einvoice.NewDecimal(decimal.RequireFromString("12.00"))
	r.Data.Date = "2026-02-01"
	return texts, s, full, r
}

// TestSecondImage: the second reading gets the rows that can settle what Tesseract left
// open: the total's and the VAT table's rows for unconfirmed figures (not the item lines, not
// the words after the table), the date's row and its neighbours for a missing date, the
// header for a missing issuer; without a row that names what is open or without a total, the
// whole text area.
func TestSecondImage(t *testing.T) {
	texts, s, full, r := receiptScan(t)
	r.Data.Issuer, r.Confidence.Issuer = "Bäckerei Muster", brandIssuer

	got := rowsIn(t, secondImage(full, s, r, now, false), len(texts))
	for i := 14; i <= 18; i++ {
		if !got[i] {
			t.Errorf("unconfirmed figures: row %d (%s) is not read again", i, texts[i])
		}
	}
	for i := range 14 {
		if got[i] {
			t.Errorf("unconfirmed figures: row %d (%s) is read again", i, texts[i])
		}
	}
	if got[19] || got[26] {
		t.Errorf("unconfirmed figures: rows of words after the VAT table or the date's row read again: %v", got)
	}

	// No total read: the row that holds it may be one Tesseract lost, so the whole text
	// area is read, every row.
	noTotal := *r
	noTotal.Data.Gross = einvoice.Decimal{}
	if got := rowsIn(t, secondImage(full, s, &noTotal, now, false), len(texts)); len(got) != len(texts) {
		t.Errorf("no total: %d of %d rows read again", len(got), len(texts))
	}

	// Figures confirmed, the date missing: its row and neighbours only.
	r.VAT = []VATLine{{Rate: einvoice.NewDecimal(decimal.NewFromInt(7)), Gross: einvoice.NewDecimal(decimal.RequireFromString("12.00"))}}
	r.Data.Date = ""
	got = rowsIn(t, secondImage(full, s, r, now, false), len(texts))
	if len(got) != 3 || !got[25] || !got[26] || !got[27] {
		t.Errorf("a missing date: rows %v read again, want 25 to 27", got)
	}

	// The issuer missing as well: the header above the first amount comes along.
	r.Data.Issuer, r.Confidence.Issuer = "", 0
	got = rowsIn(t, secondImage(full, s, r, now, false), len(texts))
	if !got[0] || !got[1] || !got[26] || got[5] {
		t.Errorf("a missing issuer and date: rows %v read again", got)
	}

	// No row shows a date: the text area, all rows.
	texts[26] = "Bis bald"
	s = syntheticScan(texts)
	full, _ = encodePNG(s.gray)
	b := secondImage(full, s, r, now, false)
	if got = rowsIn(t, b, len(texts)); len(got) != len(texts) {
		t.Errorf("no date row: %d of %d rows read again", len(got), len(texts))
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.Width >= s.gray.Rect.Dx() {
		t.Errorf("no date row: %d px wide, the text area is narrower than the image's %d (%v)", cfg.Width, s.gray.Rect.Dx(), err)
	}
	// A paper cut out of a photo: the text area spans the paper's width, where a column of
	// figures Tesseract read no word of may stand (Esselunga's "47,91" beside its label).
	paper := *s
	paper.paper = true
	cfg, err = png.DecodeConfig(bytes.NewReader(secondImage(full, &paper, r, now, false)))
	if err != nil || cfg.Width != s.gray.Rect.Dx() {
		t.Errorf("a paper cut out: %d px wide, want the paper's %d (%v)", cfg.Width, s.gray.Rect.Dx(), err)
	}

	// No words: the image as Tesseract read it.
	if b := secondImage(full, &scanRead{gray: s.gray, page: &tesseract.Page{}}, r, now, false); !bytes.Equal(b, full) {
		t.Error("without words the second image is not the full one")
	}
}

// TestSecondImageOfHeader: a receipt whose figures and date are settled but whose issuer
// only a line that reads like a name gives has its header read again, the rows above the
// first amount and nothing else; none when no row stands above the first amount or the
// header is most of the text.
func TestSecondImageOfHeader(t *testing.T) {
	texts, s, full, r := receiptScan(t)
	r.VAT = []VATLine{{Rate: einvoice.NewDecimal(decimal.NewFromInt(7)), Gross: einvoice.NewDecimal(decimal.RequireFromString("12.00"))}}
	r.Data.Issuer, r.Confidence.Issuer = "Hauptstr 1", 0.4
	if got := rowsIn(t, secondImage(full, s, r, now, true), len(texts)); len(got) != 2 || !got[0] || !got[1] {
		t.Errorf("an issuer read from a name-like line: rows %v read again, want 0 and 1", got)
	}
	for _, texts := range [][]string{
		{"Brot 1,00", "Summe 1,00", "Vielen Dank"},                                   // no header
		{"Bäckerei", "Muster", "Hauptstr. 1", "Lindenweg", "Am Markt", "Summe 1,00"}, // header most of the text
	} {
		s := syntheticScan(texts)
		full, _ := encodePNG(s.gray)
		if b := secondImage(full, s, r, now, true); b != nil {
			t.Errorf("%q: a header is read again", texts)
		}
	}
	if b := secondImage(full, nil, r, now, true); b != nil {
		t.Error("without Tesseract's words a header is read again")
	}
}

// TestTaxTableWithoutRateIsUnsettled: a tax table whose header names it in words and whose
// row lost its per cent sign to OCR leaves the receipt open for a second reading; a
// receipt that prints no tax table does not.
func TestTaxTableWithoutRateIsUnsettled(t *testing.T) {
	for text, want := range map[string]bool{
		"AEON CO. (M) BHD\nTotal Sales Incl GST 31.00\nGST Summary Amount Tax\nSR € 6X 29.24 1.76\n09/03/2018 18:54": true,
		"AEON CO. (M) BHD\nTotal Sales Incl GST 31.00\nCASH 50.00\n09/03/2018 18:54":                                 false,
		// The VAT the total includes, its rate misread ("2.50%" as "2.508").
		"Apotheke Gränichen AG\nTotal CHF 61.40\nMastercard CHF 61.40\n2 inkl, 2.508 Must\nN von 61.40 = 1.50\n17.09.2021": true,
		"Apotheke Gränichen AG\nTotal CHF 61.40\nMastercard CHF 61.40\n17.09.2021":                                         false,
		// A Polish tax summary OCR left without a rate ("23%" as "232", "PTU A" as "PUA").
		"ORLEN S.A.\nPARAGON FISKALNY\nSprzedaz opodatkowana A: 138.32}\nKwota PTU A 232 20.86 I\nSUMA: PLN 138.32\n29-05-2020": true,
		"CARREFOUR\nPARAGON FISKALNY\nSprzed. opod. PUA, © 0715,56\nSUMA PLN 4 19,94 |\n2020-05-28":                             true,
	} {
		r, p := parse(text, now, asReceipt, nil)
		if got := unsettled(r, p, now); got != want {
			t.Errorf("%q: unsettled %v, want %v", text, got, want)
		}
	}
}

// TestZeroRateConfirmsNothing: a breakdown of 0 % lines adds up to any total it was read
// or completed with, so it confirms none and a second reading's does not replace the first.
func TestZeroRateConfirmsNothing(t *testing.T) {
	d := func(s string) einvoice.Decimal { return einvoice.NewDecimal(decimal.RequireFromString(s)) }
	for _, c := range []struct {
		vat  []VATLine
		want bool
	}{
		{[]VATLine{{Rate: d("0"), Net: d("127.37"), VAT: d("0"), Gross: d("127.37")}}, false},
		{[]VATLine{{Rate: d("6"), Net: d("120.16"), VAT: d("7.21"), Gross: d("127.37")}}, true},
		{[]VATLine{{Rate: d("6"), Net: d("60.08"), VAT: d("3.61"), Gross: d("63.69")}, {Rate: d("0"), Net: d("63.68"), VAT: d("0"), Gross: d("63.68")}}, true},
	} {
		r := &Result{VAT: c.vat}
		r.Data.Gross = d("127.37")
		if got := confirmed(r); got != c.want {
			t.Errorf("%+v: confirmed %v, want %v", c.vat, got, c.want)
		}
	}
}

// TestRoundedTotalKept: Tesseract read the amount paid after the cash rounding it printed;
// the second reading's breakdown confirms the figure before the rounding. The amount paid
// stays, the breakdown is taken, and the check allows the rounding between them. The
// rounding may be printed without its zero (".02").
func TestRoundedTotalKept(t *testing.T) {
	first := "SPEED MART\n30/06/2016\nTotal Sales (Inclusive GST) RM 27.28\nRounding Adjustment RM .02\nTotal RM 27.30\nCASH RM 27.30\nGST Summary Amount(RM) Tax(RM)\nSR 6% 25.47 1.57"
	second := "Total Sales (Inclusive GST) RM 27.28\nGST Summary Amount(RM) Tax(RM)\nSR @ 6% 25.74 1.54"
	sec := &fixedReader{text: second}
	e := &Extractor{OCR: fixedOCR{first}, Second: sec, Now: func() time.Time { return now }}
	r, err := e.Extract(context.Background(), blankPNG(t), "x.png")
	if err != nil {
		t.Fatal(err)
	}
	if r.Data.Gross.String() != "27.30" || len(r.VAT) != 1 || r.VAT[0].Gross.String() != "27.28" || sec.calls != 1 {
		t.Errorf("total %s, breakdown %+v, read again %d times", r.Data.Gross, r.VAT, sec.calls)
	}
	for _, c := range r.Checks {
		if c.Name == CheckBreakdown && !c.Passed {
			t.Errorf("check %+v", c)
		}
	}
}

// TestItemsSettleTheTotal: neither reading's VAT breakdown confirms its total, the items
// Tesseract read add up to the second reading's: that is the total ("SUMA PLN 86,00" read
// for 80,00), and not when they add up to Tesseract's.
func TestItemsSettleTheTotal(t *testing.T) {
	first := "Bistro Testowe\n2017-02-26\nPARAGON FISKALNY\nLemoniada 1 x20,00 20,00A\nPierogi 1 x44,00 44,00B\nTarta 1 x16,00 16,00B\nSPRZEDAZ OPODATK. A 26,00\nPTU A 23,00 % 3,74\nSUMA PLN 86,00"
	for second, want := range map[string]string{
		"PTU A23,00% 3,74\nSUMA PLN 80,00": "80.00",
		"PTU A23,00% 3,74\nSUMA PLN 90,00": "86.00",
	} {
		e := &Extractor{OCR: fixedOCR{first}, Second: &fixedReader{text: second}, Now: func() time.Time { return now }}
		r, err := e.Extract(context.Background(), blankPNG(t), "x.png")
		if err != nil {
			t.Fatal(err)
		}
		if r.Data.Gross.String() != want {
			t.Errorf("second reading %q: total %s, want %s", second, r.Data.Gross, want)
		}
	}
}

// TestSecondBearsOutItsTotal: when neither reading's breakdown confirms its total, the
// second's total is taken where its own lines bear it out (a card paid it; subtotal and tax
// add up to it), nothing bears out Tesseract's, and Tesseract read that amount too. Not
// when Tesseract's total is paid by its card, nor when Tesseract never read the amount.
func TestSecondBearsOutItsTotal(t *testing.T) {
	// Tesseract read no date on the first, a tip's percentages on the second: both are
	// read again.
	merlin := "LEROY MERLIN\nCOUDE PVC 47.60\nCARTE BANCAIRE 128.10 EUR\nTobaL TUR : : 21.35 Total WF; We. 95"
	cafe := "Berry Cafe\n07/08/2024\nLatte 16.35\nTotal Tax: $1.08\nTotal: \"7.48\nMASTERCRD 5293. $17.43\n18.00% of sale: $2.94"
	for _, c := range []struct{ first, second, want string }{
		{merlin, "TOTAL (EUR) 128.10\nCARTE BANCAIRE 128.10 EUR", "128.10"},
		{cafe, "Subtotal: $16.35\nTotal Tax: $1.08\nTotal: $17.43", "17.43"},
		// Nothing of the second's bears out its total: Tesseract's stays.
		{cafe, "Total: $17.43", "7.48"},
		// Tesseract never read 18.43: a misreading of the second's is not taken.
		{cafe, "Subtotal: $17.35\nTotal Tax: $1.08\nTotal: $18.43", "7.48"},
		// Tesseract's total is what its card paid.
		{strings.Replace(merlin, "128.10", "21.35", 1), "TOTAL (EUR) 128.10\nCARTE BANCAIRE 128.10 EUR", "21.35"},
	} {
		e := &Extractor{OCR: fixedOCR{c.first}, Second: &fixedReader{text: c.second}, Now: func() time.Time { return now }}
		r, err := e.Extract(context.Background(), blankPNG(t), "x.png")
		if err != nil {
			t.Fatal(err)
		}
		if r.Data.Gross.String() != c.want || !strings.Contains(r.OCREngine, "paddleocr") {
			t.Errorf("%q then %q: total %s, want %s (%s)", c.first, c.second, r.Data.Gross, c.want, r.OCREngine)
		}
	}
}

// Tesseract's VAT breakdown adds up to the second reading's total, not to its own, whose
// digit it lost: the second's total is taken.
func TestBreakdownBearsOutTheSecondsTotal(t *testing.T) {
	first := "GARDENIA BAKERIES (KL) SDN BHD\nTAX INVOICE\nTotal @& supplies: 15.57\nTotal 6% supplies (excl. GST): 7.20\nTotal 6% supplies (Inc. GST}: 7.63\n® Total Paysble: 3.20"
	for _, c := range []struct{ second, want string }{
		{"Total 0% supplies: 15.57\nTotal Payable: 23.20", "23.20"},
		{"Total 0% supplies: 15.57\nTotal Payable: 28.20", "3.20"}, // the breakdown bears out neither
	} {
		e := &Extractor{OCR: fixedOCR{first}, Second: &fixedReader{text: c.second}, Now: func() time.Time { return now }}
		r, err := e.Extract(context.Background(), blankPNG(t), "x.png")
		if err != nil {
			t.Fatal(err)
		}
		if r.Data.Gross.String() != c.want || !strings.Contains(r.OCREngine, "paddleocr") {
			t.Errorf("then %q: total %s, want %s (%s; breakdown %+v)", c.second, r.Data.Gross, c.want, r.OCREngine, r.VAT)
		}
	}
}

// TestSecondReadingsIssuer: a second reading's issuer replaces Tesseract's where it is
// surer (a legal form over a line that only reads like a name), never where it is less
// sure or equally sure.
func TestSecondReadingsIssuer(t *testing.T) {
	// No date: the receipt is read again.
	items := "\nPARAGON FISKALNY\nBrowar Trzech Kumpli Pan IPani\n1szt x13,99 13,99A\nSUMA PLN 13,99"
	for _, c := range []struct{ first, second, want string }{
		// Tesseract lost the name to a logo and took the first item for it.
		{"a |" + items, "AL,Capone Sp. Z 0.0" + items, "AL,Capone Sp. Z 0.0"},
		{"KWIATEK SP. Z O.O." + items, "Kwiatck Handel" + items, "KWIATEK SP. Z O.O."},
		{"KWIATEK SP. Z O.O." + items, "KWIATCK SP. Z O.O." + items, "KWIATEK SP. Z O.O."},
	} {
		e := &Extractor{OCR: fixedOCR{c.first}, Second: &fixedReader{text: c.second}, Now: func() time.Time { return now }}
		r, err := e.Extract(context.Background(), blankPNG(t), "x.png")
		if err != nil {
			t.Fatal(err)
		}
		if r.Data.Issuer != c.want || !strings.Contains(r.OCREngine, "paddleocr") {
			t.Errorf("%q then %q: issuer %q, want %q (%s)", c.first, c.second, r.Data.Issuer, c.want, r.OCREngine)
		}
	}
}
