package receipt

import (
	"fmt"
	"image"
	"testing"

	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/pdf"
)

// ruledInvoice is a page laid out as GnuAccounting's invoices are: the sender's one-line
// address with bullets over the recipient's, and a line table and a VAT table ruled in a
// grid of thin lines.
func ruledInvoice() []byte {
	at := []testpdf.At{
		{X: 420, Y: 130, Text: "Beispiel Werkstatt GmbH"},
		{X: 420, Y: 145, Text: "Ackerweg 7"},
		{X: 420, Y: 160, Text: "34117 Kassel"},
		{X: 80, Y: 160, Text: "Beispiel Werkstatt GmbH    •    Ackerweg 7    •    34117 Kassel"},
		{X: 70, Y: 185, Text: "Marlene Hoffmann"},
		{X: 70, Y: 205, Text: "Lindenallee 15"},
		{X: 70, Y: 235, Text: "20095 Hamburg"},
		{X: 420, Y: 187, Text: "fon (0561) 23 78 -0"},
		{X: 420, Y: 207, Text: "fax (0561) 23 78 -51"},
		{X: 420, Y: 227, Text: "info@werkstatt.example"},
		{X: 57, Y: 330, Text: "Rechnung # RE-2025/318 von 14.03.2025"},
		{X: 57, Y: 345, Text: "Leistungsdatum 12.03.2025"},
	}
	// The line table: Menge, Produkt, USt., Preis, Gesamtbetrag.
	cols := []float64{57, 117, 290, 345, 420, 545}
	rows := [][]string{
		{"Menge", "Produkt", "USt.", "Preis", "Gesamtbetrag"},
		{"2,00", "Wartung Heizung", "19%", "85,00 EUR", "170,00 EUR"},
		{"12,00", "Dichtung: Messing", "19%", "1,50 EUR", "18,00 EUR"},
		{"3,00", "Fachbuch Heizung", "7%", "20,00 EUR", "60,00 EUR"},
	}
	var rules []testpdf.Rule
	grid := func(top float64, cols []float64, rows [][]string) float64 {
		y := top
		for _, r := range rows {
			rules = append(rules, testpdf.Rule{X0: cols[0], Y0: y, X1: cols[len(cols)-1], Y1: y})
			for i, cell := range r {
				at = append(at, testpdf.At{X: cols[i] + 4, Y: y + 14, Text: cell})
			}
			y += 20
		}
		rules = append(rules, testpdf.Rule{X0: cols[0], Y0: y, X1: cols[len(cols)-1], Y1: y})
		for _, x := range cols {
			rules = append(rules, testpdf.Rule{X0: x, Y0: top, X1: x, Y1: y})
		}
		return y
	}
	y := grid(370, cols, rows)
	at = append(at, testpdf.At{X: 57, Y: y + 14, Text: "Nettobetrag: 248,00 EUR"}, testpdf.At{X: 57, Y: y + 40, Text: "zuzüglich Umsatzsteuer"})
	y = grid(y+46, []float64{57, 150, 230, 310}, [][]string{
		{"USt. Satz", "Nettopreis", "USt.-Betrag"},
		{"7%", "60,00 EUR", "4,20 EUR"},
		{"19%", "188,00 EUR", "35,72 EUR"},
	})
	at = append(at,
		testpdf.At{X: 150, Y: y + 14, Text: "USt. Gesamt: 39,92 EUR"},
		testpdf.At{X: 57, Y: y + 34, Text: "Gesamtbetrag: 287,92 EUR"},
		testpdf.At{X: 57, Y: y + 70, Text: "Bitte überweisen Sie bis zum 28.03.2025."},
		testpdf.At{X: 400, Y: 780, Text: "USt-ID: DE136695976"},
		testpdf.At{X: 400, Y: 795, Text: "IBAN DE02120300000000202051"},
	)
	return testpdf.Drawn("Helvetica", 10, testpdf.Drawing{Texts: at, Rules: rules})
}

// readScanned reads a one-page PDF as a scan of it: rendered at 200 dpi into a PDF
// without text, as bench/invoicecheck -scan does.
func readScanned(t *testing.T, doc []byte) *InvoiceResult {
	t.Helper()
	e := newExtractor(t)
	imgs, err := e.PDF.Render(t.Context(), doc, []int{1}, poppler.RenderOptions{DPI: 200, Format: poppler.PNG})
	if err != nil {
		t.Fatal(err)
	}
	scan, err := pdf.ImagesToPDF(t.Context(), imgs, pdf.ImagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := e.Invoice(t.Context(), scan)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestScannedRuledTables: a scan of an invoice whose tables are ruled in a grid is read
// whole: Tesseract, reading the page as one block, lost the rows between the rules (the
// VAT table, the rate column, the header) until the rules were whitened (unrule); the
// recipient's block is found under the sender's line whose bullets OCR reads as letters.
func TestScannedRuledTables(t *testing.T) {
	r := readScanned(t, ruledInvoice())
	inv := r.Invoice
	var vat, lines []string
	for _, b := range inv.VATBreakdown {
		vat = append(vat, fmt.Sprintf("%s:%s/%s", b.Rate.Value().StringFixed(0), b.TaxableAmount, b.TaxAmount))
	}
	for _, l := range inv.Lines {
		lines = append(lines, fmt.Sprintf("%s|%s|%s", l.Item.Name, l.Quantity.Value().StringFixed(2), l.NetAmount))
	}
	if got, want := fmt.Sprint(vat), "[7:60.00/4.20 19:188.00/35.72]"; got != want {
		t.Errorf("VAT breakdown %s, want %s\n%s", got, want, r.Text)
	}
	if got, want := fmt.Sprint(lines), "[Wartung Heizung|2.00|170.00 Dichtung: Messing|12.00|18.00 Fachbuch Heizung|3.00|60.00]"; got != want {
		t.Errorf("lines %s, want %s", got, want)
	}
	if inv.Buyer.Name != "Marlene Hoffmann" || inv.Seller.Name != "Beispiel Werkstatt GmbH" {
		t.Errorf("seller %q, buyer %q", inv.Seller.Name, inv.Buyer.Name)
	}
	if inv.Totals.GrossTotal.String() != "287.92" {
		t.Errorf("gross %s", inv.Totals.GrossTotal)
	}
}

// TestUnrule: thin rules across and down are whitened, letters and a filled band kept.
func TestUnrule(t *testing.T) {
	g := plain(1600, 400, 255)
	fill := func(x0, y0, x1, y1 int, v uint8) { fillRect(g, x0, y0, x1, y1, v) }
	fill(50, 20, 1550, 22, 0)    // a rule across
	fill(50, 20, 52, 300, 0)     // a rule down
	fill(100, 40, 108, 90, 0)    // a letter's stem
	fill(120, 60, 170, 66, 0)    // a dash
	fill(50, 320, 1550, 380, 40) // a dark band
	u := unrule(g)
	wantPixels(t, u, []pixel{{800, 21, 255}, {51, 200, 255}, {104, 60, 0}, {150, 63, 0}, {800, 350, 40}})
}

// TestScannedBandedHeader: a scan of an invoice whose line table is headed in bold white
// on black in a grid (a ReportLab layout) is read with its lines: without the header's
// columns the rows were no table until the band was made light (invertBands).
func TestScannedBandedHeader(t *testing.T) {
	cols := []float64{60, 230, 300, 360, 450, 510}
	head := []string{"Description", "Quantity", "Unit", "Unit Price", "VAT %", "Total"}
	band := testpdf.Band{X0: 55, Y0: 300, X1: 560, Y1: 318}
	for i, h := range head {
		band.Texts = append(band.Texts, testpdf.At{X: cols[i], Y: 313, Text: h})
	}
	at := []testpdf.At{
		{X: 60, Y: 80, Text: "SELLER"}, {X: 320, Y: 80, Text: "BUYER"},
		{X: 60, Y: 100, Text: "Nordlicht Software SAS"}, {X: 320, Y: 100, Text: "Acme Corporation"},
		{X: 60, Y: 115, Text: "12 Rue de la Paix"}, {X: 320, Y: 115, Text: "8 Avenue Foch"},
		{X: 60, Y: 130, Text: "75002 Paris"}, {X: 320, Y: 130, Text: "69006 Lyon"},
		{X: 60, Y: 145, Text: "VAT ID: FR12345678901"},
		{X: 60, Y: 200, Text: "Invoice Number: INV-2025-0042"},
		{X: 60, Y: 215, Text: "Invoice Date: 2025-05-13"},
	}
	rows := [][]string{
		{"Software License", "2", "pcs", "1000.00 EUR", "20%", "2000.00 EUR"},
		{"Consulting Services", "5", "hour", "150.00 EUR", "20%", "750.00 EUR"},
		{"Server Hosting", "1", "month", "300.00 EUR", "20%", "300.00 EUR"},
	}
	for r, row := range rows {
		for i, cell := range row {
			at = append(at, testpdf.At{X: cols[i], Y: 338 + 22*float64(r), Text: cell})
		}
	}
	at = append(at,
		testpdf.At{X: 60, Y: 420, Text: "Total Net Amount"}, testpdf.At{X: 510, Y: 420, Text: "3050.00 EUR"},
		testpdf.At{X: 60, Y: 436, Text: "VAT Amount"}, testpdf.At{X: 510, Y: 436, Text: "610.00 EUR"},
		testpdf.At{X: 60, Y: 452, Text: "Grand Total"}, testpdf.At{X: 510, Y: 452, Text: "3660.00 EUR"},
	)
	// The table's grid, its header's cells parted by rules as well.
	var rules []testpdf.Rule
	for _, y := range []float64{300, 318, 326 + 22*3} {
		rules = append(rules, testpdf.Rule{X0: 55, Y0: y, X1: 560, Y1: y})
	}
	for _, x := range append([]float64{55}, append(cols[1:], 560)...) {
		rules = append(rules, testpdf.Rule{X0: x - 4, Y0: 300, X1: x - 4, Y1: 326 + 22*3})
	}
	r := readScanned(t, testpdf.Drawn("Helvetica-Bold", 10, testpdf.Drawing{Texts: at, Rules: rules, Bands: []testpdf.Band{band}}))
	var lines []string
	for _, l := range r.Invoice.Lines {
		lines = append(lines, fmt.Sprintf("%s|%s|%s", l.Item.Name, l.Quantity.Value().StringFixed(0), l.NetAmount))
	}
	if got, want := fmt.Sprint(lines), "[Software License|2|2000.00 Consulting Services|5|750.00 Server Hosting|1|300.00]"; got != want {
		t.Errorf("lines %s, want %s\n%s", got, want, r.Text)
	}
}

// TestScannedLargeTitle: the number of a scan whose title is set far larger than its text
// ("INVOICE INV-2025-1175" at 22 points over 9-point text, a ReportLab layout) is read: as one
// uniform block Tesseract dropped the title, so the page's top is read again (rereadTitle).
func TestScannedLargeTitle(t *testing.T) {
	at := []testpdf.At{
		{X: 60, Y: 70, Text: "INVOICE INV-2025-1175", Size: 22},
		{X: 70, Y: 110, Text: "SELLER"}, {X: 320, Y: 110, Text: "BUYER"},
		{X: 70, Y: 128, Text: "TechSolutions SAS"}, {X: 320, Y: 128, Text: "Acme Corporation"},
		{X: 70, Y: 146, Text: "123 Avenue des Champs-Elysees"}, {X: 320, Y: 146, Text: "27 Rue du Faubourg"},
		{X: 70, Y: 164, Text: "75008 Paris"}, {X: 320, Y: 164, Text: "75008 Paris"},
		{X: 70, Y: 182, Text: "VAT ID: FR12345678901"}, {X: 320, Y: 182, Text: "VAT ID: FR98765432109"},
		{X: 70, Y: 230, Text: "Invoice Date: 2025-05-13"},
		{X: 70, Y: 300, Text: "Software License   2   1000.00 EUR   2000.00 EUR"},
		{X: 70, Y: 330, Text: "Total Net Amount   2000.00 EUR"},
		{X: 70, Y: 345, Text: "VAT Amount 20%   400.00 EUR"},
		{X: 70, Y: 360, Text: "Grand Total   2400.00 EUR"},
	}
	r := readScanned(t, testpdf.Drawn("Helvetica", 9, testpdf.Drawing{Texts: at}))
	if r.Invoice.Number != "INV-2025-1175" {
		t.Errorf("number %q\n%s", r.Invoice.Number, r.Text)
	}
}

// TestInvertBands: a dark band with light letters becomes a light band with dark letters;
// black letters on white and a grid of thin rules stay as they are.
func TestInvertBands(t *testing.T) {
	g := plain(1600, 400, 255)
	fill := func(x0, y0, x1, y1 int, v uint8) { fillRect(g, x0, y0, x1, y1, v) }
	fill(50, 20, 1550, 80, 40) // a navy header band
	fill(80, 35, 90, 65, 255)  // its white letters
	fill(100, 35, 130, 42, 255)
	fill(100, 200, 110, 240, 0)        // a black letter on white
	for x := 50; x <= 1550; x += 300 { // a grid's rules, under the band
		fill(x, 100, x+2, 380, 0)
	}
	fill(50, 100, 1552, 102, 0)
	fill(50, 378, 1552, 380, 0)
	photo := plain(1600, 1000, 20) // a page photographed on a dark table
	fillRect(photo, 500, 300, 1101, 701, 240)
	if u := invertBands(photo); u.Pix[500*u.Stride+800] != 240 || u.Pix[10*u.Stride+10] != 20 {
		t.Error("the table around a photographed page was taken for a band")
	}
	u := invertBands(g)
	wantPixels(t, u, []pixel{{800, 50, 215}, {85, 50, 0}, {105, 200, 0}, {105, 150, 255}, {51, 300, 0}, {800, 101, 0}})
}

// qrCode is a square of 25 × 25 modules of side pt, dark where a fixed pseudo-random
// sequence says, with the three finder squares a QR code has in its corners: what a payment
// code (GiroCode, "Scan to pay") looks like to OCR.
func qrCode(x, y, pt float64) []testpdf.Band {
	var bands []testpdf.Band
	module := func(c, r int) {
		bands = append(bands, testpdf.Band{X0: x + float64(c)*pt, Y0: y + float64(r)*pt, X1: x + float64(c+1)*pt, Y1: y + float64(r+1)*pt})
	}
	finder := func(c, r int) bool {
		for _, o := range [][2]int{{0, 0}, {18, 0}, {0, 18}} {
			dc, dr := c-o[0], r-o[1]
			if dc >= 0 && dc < 7 && dr >= 0 && dr < 7 {
				return dc == 0 || dc == 6 || dr == 0 || dr == 6 || dc >= 2 && dc <= 4 && dr >= 2 && dr <= 4
			}
		}
		return false
	}
	seed := uint32(2026)
	for r := range 25 {
		for c := range 25 {
			seed = seed*1664525 + 1013904223
			inFinder := (c < 8 || c >= 17) && r < 8 || c < 8 && r >= 17
			if inFinder && finder(c, r) || !inFinder && seed>>31 == 1 {
				module(c, r)
			}
		}
	}
	return bands
}

// TestScannedPaymentCode: a scan of an invoice with a payment QR code between the
// recipient's and the sender's blocks (a Business Central layout) is read with both parties:
// OCR read the code as words that joined the two blocks' lines until it was whitened
// (blankGraphics).
func TestScannedPaymentCode(t *testing.T) {
	at := []testpdf.At{
		{X: 48, Y: 40, Text: "Invoice 204518", Size: 16},
		{X: 48, Y: 62, Text: "March 9, 2026"},
		{X: 48, Y: 105, Text: "Fabrikam Trading Ltd"}, {X: 430, Y: 105, Text: "Nordwind Moebel GmbH"},
		{X: 48, Y: 118, Text: "Harbour Lane 7"}, {X: 430, Y: 118, Text: "Kastanienweg 3"},
		{X: 48, Y: 131, Text: "20457 Hamburg"}, {X: 430, Y: 131, Text: "Lindenau"},
		{X: 430, Y: 157, Text: "04177 Leipzig"}, {X: 430, Y: 170, Text: "Deutschland"},
		{X: 48, Y: 240, Text: "No."}, {X: 110, Y: 240, Text: "Description"}, {X: 330, Y: 240, Text: "Quantity"}, {X: 420, Y: 240, Text: "Unit Price"}, {X: 500, Y: 240, Text: "Amount"},
		{X: 48, Y: 260, Text: "1908-S"}, {X: 110, Y: 260, Text: "Office chair, blue"}, {X: 330, Y: 260, Text: "3"}, {X: 420, Y: 260, Text: "191.00"}, {X: 500, Y: 260, Text: "573.00"},
		{X: 380, Y: 300, Text: "Subtotal"}, {X: 500, Y: 300, Text: "573.00"},
		{X: 380, Y: 314, Text: "19% VAT"}, {X: 500, Y: 314, Text: "108.87"},
		{X: 380, Y: 332, Text: "Total EUR Incl. VAT"}, {X: 500, Y: 332, Text: "681.87"},
	}
	r := readScanned(t, testpdf.Drawn("Helvetica", 10, testpdf.Drawing{Texts: at, Bands: qrCode(250, 100, 2.8)}))
	inv := r.Invoice
	if inv.Seller.Name != "Nordwind Moebel GmbH" || inv.Buyer.Name != "Fabrikam Trading Ltd" {
		t.Errorf("seller %q, buyer %q\n%s", inv.Seller.Name, inv.Buyer.Name, r.Text)
	}
	if inv.Totals.GrossTotal.String() != "681.87" {
		t.Errorf("gross %s", inv.Totals.GrossTotal)
	}
}

// TestBlankGraphics: a QR code's square is whitened; lines of text, a heading and a rule
// next to it are kept, and so is the dark table a photographed page lies on.
func TestBlankGraphics(t *testing.T) {
	g := plain(1600, 1200, 255)
	for y := 100; y < 300; y += 8 { // a code of 8-pixel modules, half of them dark
		for x := 700; x < 900; x += 8 {
			if (x/8*7+y/8*13)%5 < 3 {
				fillRect(g, x, y, x+8, y+8, 0)
			}
		}
	}
	for y := 500; y < 800; y += 30 { // text lines: letters 3 pixels wide, 12 high, 5 apart
		for x := 100; x < 1500; x += 8 {
			fillRect(g, x, y, x+3, y+12, 0)
		}
	}
	for x := 100; x < 1500; x += 40 { // a heading, its letters 30 pixels high and bold
		fillRect(g, x, 900, x+28, 1000, 0)
	}
	fillRect(g, 100, 1100, 1500, 1103, 0) // a rule
	photo := plain(1600, 1200, 30)        // a page photographed on a dark table
	fillRect(photo, 400, 300, 1200, 900, 240)
	fillRect(photo, 500, 400, 900, 412, 0)
	if u := blankGraphics(photo); u.Pix[406*u.Stride+600] != 0 || u.Pix[10*u.Stride+10] != 30 {
		t.Error("the table around a photographed page was whitened")
	}
	u := blankGraphics(g)
	wantPixels(t, u, []pixel{{700, 100, 255}, {890, 290, 255}, {101, 505, 0}, {1404, 770, 0}, {110, 950, 0}, {800, 1101, 0}})
}

// pixel is a grey level wanted at a place of an image.
type pixel struct {
	x, y int
	want uint8
}

func wantPixels(t *testing.T, g *image.Gray, want []pixel) {
	t.Helper()
	for _, c := range want {
		if got := g.Pix[c.y*g.Stride+c.x]; got != c.want {
			t.Errorf("at %d,%d: %d, want %d", c.x, c.y, got, c.want)
		}
	}
}
