package receipt

import (
	"testing"

	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/internal/testpdf"
)

// TestUntaxedInvoiceLines: an invoice that prints no net, no VAT and no rate (an Odoo
// invoice from Kenya, its "Taxes" column empty) has the rows that add up to its gross as
// its lines; with a rate printed the gross is not taken for the line total.
func TestUntaxedInvoiceLines(t *testing.T) {
	const text = "Invoice INV/2026/00002\nInvoice Date:      Due Date:\n06/20/2026         06/20/2026\n\n" +
		"Description                    Quantity        Unit Price Taxes          Amount\n" +
		"Ujuziplus Creator Plan        1.00 Units        4,500.00               4,500.00 KSh\n\n" +
		"                                                 Total                 4,500.00 KSh\n"
	inv := ParseInvoice(text, now)
	if len(inv.Lines) != 1 || inv.Lines[0].NetAmount.String() != "4500.00" || inv.Lines[0].Item.Name != "Ujuziplus Creator Plan" || inv.Totals.LineTotal.String() != "4500.00" {
		t.Errorf("lines %+v, totals %+v", inv.Lines, inv.Totals)
	}
	if inv.Totals.NetTotal.Valid() || inv.Totals.VATTotal.Valid() {
		t.Errorf("net or VAT made up: %+v", inv.Totals)
	}
	taxed := ParseInvoice(text+"Prices include VAT 16%\n", now)
	if len(taxed.Lines) != 0 {
		t.Errorf("a rate is printed, the gross is no line total: lines %+v", taxed.Lines)
	}
}

// TestPositionsWithoutTotals: a viewer's page that shows the positions and no total has
// the line table read by its columns as its lines when each row's quantity × price is its
// amount; the name is the description cell's line under its codes and their labels.
func TestPositionsWithoutTotals(t *testing.T) {
	const text = "Position data\n\nPos number Reference    Description     Net price   Quantity Name Tax rate    Net\n" +
		"                                                                               amount\n" +
		"1     4012345001235 GTIN:        9.90        20.0000 Stk      19        198.00\n" +
		"                     4012345001235\n                     Unsere Art.-Nr.:\n                     TB100A4\n                     Trennblätter A4\n"
	l := newLayout([]poppler.LayoutPage{page(
		testpdf.At{X: 38, Y: 426, Text: "Pos number Reference"}, testpdf.At{X: 200, Y: 426, Text: "Description"},
		testpdf.At{X: 291, Y: 426, Text: "Net price"}, testpdf.At{X: 361, Y: 426, Text: "Quantity Name Tax rate"},
		testpdf.At{X: 516, Y: 426, Text: "Net"}, testpdf.At{X: 516, Y: 446, Text: "amount"},
		testpdf.At{X: 38, Y: 470, Text: "1"}, testpdf.At{X: 108, Y: 470, Text: "4012345001235 GTIN:"},
		testpdf.At{X: 291, Y: 470, Text: "9.90"}, testpdf.At{X: 361, Y: 470, Text: "20.0000 Stk"},
		testpdf.At{X: 447, Y: 470, Text: "19"}, testpdf.At{X: 516, Y: 470, Text: "198.00"},
		testpdf.At{X: 200, Y: 489, Text: "4012345001235"}, testpdf.At{X: 200, Y: 509, Text: "Unsere Art.-Nr.:"},
		testpdf.At{X: 200, Y: 528, Text: "TB100A4"}, testpdf.At{X: 200, Y: 547, Text: "Trennblätter A4"},
	)})
	inv := parseInvoice(text, now, l)
	if len(inv.Lines) != 1 || inv.Lines[0].Quantity.String() != "20.0000" || inv.Lines[0].NetAmount.String() != "198.00" || inv.Lines[0].Item.Name != "Trennblätter A4" {
		t.Errorf("lines %+v", inv.Lines)
	}
}
