package ubl_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/internal/corpus"
	"github.com/papierkram/papierkram/einvoice/ubl"
)

func readUBL(t *testing.T, rel string) (*einvoice.Invoice, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpus.Dir(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := ubl.Read(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	return inv, string(b)
}

// TestRoundTripTaxTotalInAThirdCurrency: a cac:TaxTotal in a currency that is neither the
// invoice's (BT-5) nor the VAT accounting one (BT-6) is no BT-111. Taken for one, it was
// written in BT-6's currency, the invoice's too in a held-out file (BT-6 = BT-5 = EUR, the
// total in GBP): two totals in EUR broke BR-CO-15.
func TestRoundTripTaxTotalInAThirdCurrency(t *testing.T) {
	_, s := readUBL(t, "xrechnung-testsuite/technical-cases/cius/01.01_comprehensive_test_ubl.xml")
	const bt6 = "<cbc:TaxCurrencyCode>GBP</cbc:TaxCurrencyCode>"
	if !strings.Contains(s, bt6) || !strings.Contains(s, `<cbc:TaxAmount currencyID="GBP">2048.44</cbc:TaxAmount>`) {
		t.Fatal("test file changed")
	}
	for _, c := range []struct {
		name, bt6, accounting string
	}{
		{"BT-6 names the currency", bt6, "2048.44"},
		{"BT-6 is the invoice currency", "<cbc:TaxCurrencyCode>EUR</cbc:TaxCurrencyCode>", ""},
		{"no BT-6", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			inv, err := ubl.Read(context.Background(), []byte(strings.Replace(s, bt6, c.bt6, 1)))
			if err != nil {
				t.Fatal(err)
			}
			if inv.Totals.VATTotal.String() != "2048.44" || inv.Totals.VATTotalAccounting.String() != c.accounting || len(inv.VATBreakdown) != 2 {
				t.Fatalf("BT-110 %q, BT-111 %q, %d breakdowns; want 2048.44, %q, 2", inv.Totals.VATTotal, inv.Totals.VATTotalAccounting, len(inv.VATBreakdown), c.accounting)
			}
			out, err := ubl.Write(inv)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(out), `<cbc:TaxAmount currencyID="EUR">2048.44</cbc:TaxAmount>`); n != 2 { // BT-110 and its one taxed subtotal
				t.Errorf("%d tax amounts of 2048.44 EUR, want 2 (BT-110 and BT-117)", n)
			}
		})
	}
}

// TestRoundTripLogisticsChargesAsCharges: UBL has no logistics service fee (ZUGFeRD EXTENDED
// BT-X-272); it is written as the document level charge it is, so that the charges add up
// to BT-108, which counts it.
func TestRoundTripLogisticsChargesAsCharges(t *testing.T) {
	inv := einvoice.Example()
	inv.LogisticsCharges = []einvoice.LogisticsCharge{{Description: "Fracht", Amount: einvoice.MustDecimal("3.00"), VATCategory: "S", VATRate: einvoice.MustDecimal("19.00")}}
	out, err := ubl.Write(inv)
	if err != nil {
		t.Fatal(err)
	}
	xsdValid(t, out, corpus.SchemaUBLInvoice)
	back, err := ubl.Read(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	n := len(back.Charges)
	if n != len(inv.Charges)+1 || back.LogisticsCharges != nil {
		t.Fatalf("%d charges and %d fees read back, want %d and none", n, len(back.LogisticsCharges), len(inv.Charges)+1)
	}
	if c := back.Charges[n-1]; c.Reason != "Fracht" || c.Amount.String() != "3.00" || c.VATCategory != "S" || c.VATRate.String() != "19.00" {
		t.Errorf("charge %+v", c)
	}
	if len(inv.Charges) != n-1 {
		t.Errorf("writing changed the invoice's own charges")
	}
}

// TestRoundTripEmptyElementsLeaveNoTrace: an empty cbc:Note or cac:PrepaidPayment (KoSIT's
// test files empty them) carries nothing; read as an empty note or payment, it was a term
// the generated file no longer had, so that parse → generate → parse changed the model.
func TestRoundTripEmptyElementsLeaveNoTrace(t *testing.T) {
	inv, s := readUBL(t, "xrechnung-testsuite/business-cases/extension/05.01a-INVOICE_ubl.xml")
	notes, paid := len(inv.Notes), len(inv.PrepaidPayments)
	if paid == 0 {
		t.Fatal("test file changed")
	}
	s = strings.Replace(s, "<cac:PrepaidPayment>", "<cac:PrepaidPayment><!-- emptied --></cac:PrepaidPayment><cac:PrepaidPayment>", 1)
	s = strings.Replace(s, "<cbc:DocumentCurrencyCode>", "<cbc:Note><!-- emptied --></cbc:Note><cbc:DocumentCurrencyCode>", 1)
	got, err := ubl.Read(context.Background(), []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Notes) != notes || len(got.PrepaidPayments) != paid {
		t.Errorf("%d notes and %d third-party payments, want %d and %d", len(got.Notes), len(got.PrepaidPayments), notes, paid)
	}
}
