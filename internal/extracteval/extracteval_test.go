package extracteval

import (
	"testing"

	"github.com/papierkram/papierkram/einvoice"
)

// TestPrinted: the page text of a PDFlib sample ("Kraxi") and a French one, with the
// values their XML carries and values it does not print.
func TestPrinted(t *testing.T) {
	page := `Kraxi GmbH • Flugzeugallee 17 • 12345 Papierfeld
Rechnungsnummer: 2019-03    Liefer- und Rechnungsdatum: 8. Mai 2019
1 Superdrachen 2 20,00 40,00
Rechnungssumme netto 845,00
zuzüglich 19% MwSt. 160,55
Rechnungssumme brutto 1.005,55
Facture N° FX-2026-0042 Émise le 3 août 2026 Total HT 1 440,00 € Total 12 000 €
USt-IdNr DE 123 456 789 — issued May 8, 2019`
	for _, c := range []struct {
		field, want string
		printed     bool
	}{
		{"number", "2019-03", true},
		{"number", "2019-04", false},
		{"seller", "Kraxi GmbH", true},
		{"seller", "KRAXI G.m.b.H. Flugzeugbau Berlin", true}, // a long name: its first half, letters and digits only
		{"buyer", "Kraxi", true},
		{"buyer", "Kraxi Berlin", false}, // a short name: whole
		{"buyer", "Kunden AG Mitte", false},
		{"issueDate", "2019-05-08", true},
		{"issueDate", "2026-08-03", true},
		{"issueDate", "2019-05-09", false},
		{"issueDate", "2024-11-15", false},
		{"net", "845.00", true},
		{"gross", "1005.55", true},
		{"net", "1440.00", true},
		{"net", "12000.00", true},
		{"net", "2040.00", false}, // "2 20,00 40,00": cells of a row, not one figure
		{"vat", "37.62", false},
		{"vat", "19.00", false}, // "19%" is a rate
		{"net", "1.00", false},  // "1 Superdrachen" is a position
		{"vatBreakdown", "19.00%:845.00/160.55", true},
		{"vatBreakdown", "19.00%:845.00/160.55 7.00%:100.00/7.00", false},
		{"sellerVatId", "DE123456789", true},
		{"iban", "DE28700100809999999999", false},
		{"currency", "EUR", true},
		{"lineCount", "7", true},
	} {
		if got := Printed(c.field, c.want, page); got != c.printed {
			t.Errorf("Printed(%s, %s) = %v, want %v", c.field, c.want, got, c.printed)
		}
	}
}

// TestCreditNoteSign: a credit note (381) of positive amounts and an invoice (380) of the
// same amounts negative are one document; the rates keep their sign.
func TestCreditNoteSign(t *testing.T) {
	br := func(net, vat string) []einvoice.VATBreakdown {
		return []einvoice.VATBreakdown{{Rate: einvoice.MustDecimal("20"), TaxableAmount: einvoice.MustDecimal(net), TaxAmount: einvoice.MustDecimal(vat)}}
	}
	credit := &einvoice.Invoice{TypeCode: "381", Totals: einvoice.Totals{GrossTotal: einvoice.MustDecimal("120.00")}, VATBreakdown: br("100", "20")}
	negative := &einvoice.Invoice{TypeCode: "380", Totals: einvoice.Totals{GrossTotal: einvoice.MustDecimal("-120")}, VATBreakdown: br("-100", "-20")}
	positive := &einvoice.Invoice{TypeCode: "380", Totals: einvoice.Totals{GrossTotal: einvoice.MustDecimal("120")}, VATBreakdown: br("100", "20")}
	for _, f := range []string{"gross", "vatBreakdown"} {
		if a, b := Value(credit, f), Value(negative, f); a != b {
			t.Errorf("%s: credit note %q, negative invoice %q", f, a, b)
		}
		if a, b := Value(credit, f), Value(positive, f); a == b {
			t.Errorf("%s: credit note and invoice both %q", f, a)
		}
	}
	if got, want := Value(credit, "vatBreakdown"), "20.00%:-100.00/-20.00"; got != want {
		t.Errorf("breakdown %q, want %q", got, want)
	}
}
