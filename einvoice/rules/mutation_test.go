package rules

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice/internal/corpus"
)

// TestMutations breaks valid invoices one term at a time (a missing mandatory term, a total
// off by a cent, a wrong code) and asserts that the rule for it fails, with its severity,
// in both syntaxes.
func TestMutations(t *testing.T) {
	const (
		ubl        = "xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_ubl.xml"
		cii        = "xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_uncefact.xml"
		creditNote = "en16931/examples-ubl/ubl-tc434-creditnote1.xml"
		minimum    = "zugferd/2.3-examples/0. MINIMUM/MINIMUM_Rechnung/factur-x.xml"
		extended   = "zugferd/2.3-examples/4. EXTENDED/EXTENDED_Warenrechnung/factur-x.xml"
	)
	cases := []struct {
		file, old, new, rule string
		flag                 Severity
	}{
		// UBL
		{ubl, `<cbc:BuyerReference>04011000-12345-03</cbc:BuyerReference>`, ``, "BR-DE-15", Fatal},
		{ubl, `<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>`, `<cbc:InvoiceTypeCode>999</cbc:InvoiceTypeCode>`, "BR-CL-01", Fatal},
		{ubl, `<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>`, `<cbc:InvoiceTypeCode>383</cbc:InvoiceTypeCode>`, "BR-DE-17", Warning},
		{ubl, `<cbc:TaxExclusiveAmount currencyID="EUR">314.86</cbc:TaxExclusiveAmount>`, `<cbc:TaxExclusiveAmount currencyID="EUR">314.87</cbc:TaxExclusiveAmount>`, "BR-CO-13", Fatal},
		{ubl, `<cbc:LineExtensionAmount currencyID="EUR">314.86</cbc:LineExtensionAmount>`, `<cbc:LineExtensionAmount currencyID="EUR">314.85</cbc:LineExtensionAmount>`, "BR-CO-10", Fatal},
		{ubl, `<cbc:ID>DE79000000001234567890</cbc:ID>`, `<cbc:ID>DE79000000001234567891</cbc:ID>`, "BR-DE-19", Warning},
		{ubl, `<cbc:ElectronicMail>seller@email.de</cbc:ElectronicMail>`, `<cbc:ElectronicMail>seller-at-email</cbc:ElectronicMail>`, "BR-DE-28", Warning},
		{ubl, `<cbc:PostalZone>12345</cbc:PostalZone>`, ``, "BR-DE-4", Fatal},
		{ubl, `<cbc:LineExtensionAmount currencyID="EUR">26.07</cbc:LineExtensionAmount>`, `<cbc:LineExtensionAmount currencyID="EUR">26.071</cbc:LineExtensionAmount>`, "BR-DEC-23", Fatal},
		{ubl, `<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>`, `<cbc:DocumentCurrencyCode>EURO</cbc:DocumentCurrencyCode>`, "BR-CL-04", Fatal},
		// CII
		{cii, `<ram:BuyerReference>04011000-12345-03</ram:BuyerReference>`, ``, "BR-DE-15", Fatal},
		{cii, `<ram:TaxBasisTotalAmount>314.86</ram:TaxBasisTotalAmount>`, `<ram:TaxBasisTotalAmount>314.87</ram:TaxBasisTotalAmount>`, "BR-CO-13", Fatal},
		{cii, `<ram:LineTotalAmount>314.86</ram:LineTotalAmount>`, `<ram:LineTotalAmount>314.85</ram:LineTotalAmount>`, "BR-CO-10", Fatal},
		{cii, `<ram:IBANID>DE79000000001234567890</ram:IBANID>`, `<ram:IBANID>DE79000000001234567891</ram:IBANID>`, "BR-DE-19", Warning},
		{cii, `<ram:TypeCode>380</ram:TypeCode>`, `<ram:TypeCode>999</ram:TypeCode>`, "BR-CL-01", Fatal},
		// UBL schema (Invoice and CreditNote): order, data type, unknown element
		{ubl, `<cbc:ID>123456XX</cbc:ID>
    <cbc:IssueDate>2016-04-04</cbc:IssueDate>`, `<cbc:IssueDate>2016-04-04</cbc:IssueDate>
    <cbc:ID>123456XX</cbc:ID>`, "UBL-XSD", Fatal},
		{ubl, `<cbc:IssueDate>2016-04-04</cbc:IssueDate>`, `<cbc:IssueDate>04.04.2016</cbc:IssueDate>`, "UBL-XSD", Fatal},
		{ubl, `<cbc:ID>123456XX</cbc:ID>`, `<cbc:ID>123456XX</cbc:ID><cbc:Unknown>x</cbc:Unknown>`, "UBL-XSD", Fatal},
		{creditNote, `<cbc:ID>`, `<cbc:Unknown>x</cbc:Unknown><cbc:ID>`, "UBL-XSD", Fatal},
		// CII schema: order, required element, data type, unknown element and attribute
		{cii, `<ram:ID>123456XX</ram:ID>
        <ram:TypeCode>380</ram:TypeCode>`, `<ram:TypeCode>380</ram:TypeCode>
        <ram:ID>123456XX</ram:ID>`, "CII-XSD", Fatal},
		{cii, `<ram:ID>123456XX</ram:ID>`, ``, "CII-XSD", Fatal},
		{cii, `<ram:GrandTotalAmount>336.9</ram:GrandTotalAmount>`, `<ram:GrandTotalAmount>336,9</ram:GrandTotalAmount>`, "CII-XSD", Fatal},
		{cii, `<ram:BuyerReference>04011000-12345-03</ram:BuyerReference>`, `<ram:BuyerReference>04011000-12345-03</ram:BuyerReference><ram:Unknown>x</ram:Unknown>`, "CII-XSD", Fatal},
		{cii, `<ram:GrandTotalAmount>336.9</ram:GrandTotalAmount>`, `<ram:GrandTotalAmount foo="1">336.9</ram:GrandTotalAmount>`, "CII-XSD", Fatal},
		// PEPPOL BIS rules XRechnung takes over
		{ubl, `<cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>`, ``, "PEPPOL-EN16931-R001", Fatal},
		{ubl, `<cbc:EndpointID schemeID="EM">seller@email.de</cbc:EndpointID>`, ``, "PEPPOL-EN16931-R020", Fatal},
		{ubl, `<cbc:EndpointID schemeID="EM">buyer@info.de</cbc:EndpointID>`, ``, "PEPPOL-EN16931-R010", Fatal},
		{ubl, `<cbc:Note>Zahlbar sofort ohne Abzug.</cbc:Note>`, `<cbc:Note> </cbc:Note>`, "PEPPOL-EN16931-R008", Fatal},
		{ubl, `<cbc:PaymentMeansCode>58</cbc:PaymentMeansCode>`, `<cbc:PaymentMeansCode>59</cbc:PaymentMeansCode>`, "PEPPOL-EN16931-R061", Fatal},
		{ubl, `<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>`, `<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode><cbc:TaxCurrencyCode>EUR</cbc:TaxCurrencyCode>`, "PEPPOL-EN16931-R005", Fatal},
		{ubl, `<cbc:LineExtensionAmount currencyID="EUR">26.07</cbc:LineExtensionAmount>`, `<cbc:LineExtensionAmount currencyID="EUR">26.10</cbc:LineExtensionAmount>`, "PEPPOL-EN16931-R120", Warning},
		{cii, `<ram:URIID schemeID="EM">buyer@info.de</ram:URIID>`, ``, "PEPPOL-EN16931-R010", Fatal},
		{cii, `<ram:TypeCode>58</ram:TypeCode>`, `<ram:TypeCode>59</ram:TypeCode>`, "PEPPOL-EN16931-R061", Fatal},
		{cii, `<ram:BuyerReference>04011000-12345-03</ram:BuyerReference>`, `<ram:BuyerReference></ram:BuyerReference>`, "PEPPOL-EN16931-R008", Fatal},
		// Factur-X profiles
		{minimum, `<ram:TaxBasisTotalAmount>198.00</ram:TaxBasisTotalAmount>`, ``, "BR-13", Fatal},
		{minimum, `<ram:BuyerTradeParty>`, `<ram:BuyerTradeParty><ram:Description>not in MINIMUM</ram:Description>`, "FX-PROFILE", Fatal},
		{extended, `<ram:TaxBasisTotalAmount>448.99</ram:TaxBasisTotalAmount>`, `<ram:TaxBasisTotalAmount>449.99</ram:TaxBasisTotalAmount>`, "BR-FXEXT-CO-13", Fatal},
		{extended, `<ram:GrandTotalAmount>518.99</ram:GrandTotalAmount>`, `<ram:GrandTotalAmount>519.99</ram:GrandTotalAmount>`, "BR-FXEXT-CO-15", Fatal},
	}
	for _, c := range cases {
		t.Run(filepath.Ext(strings.TrimSuffix(c.file, ".xml"))+c.rule, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(corpus.Dir(t), c.file))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), c.old) {
				t.Fatalf("%q not in %s", c.old, c.file)
			}
			mutated := []byte(strings.Replace(string(data), c.old, c.new, 1))
			r, err := Validate(context.Background(), mutated)
			if err != nil {
				t.Fatal(err)
			}
			if xsd := map[string]string{
				"CII-XSD": "cii-d16b/CII/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd",
				"UBL-XSD": "ubl-2.1/maindoc/UBL-" + map[bool]string{true: "CreditNote", false: "Invoice"}[c.file == creditNote] + "-2.1.xsd",
			}[c.rule]; xsd != "" {
				// The schema verdict agrees with libxml2's.
				f := filepath.Join(t.TempDir(), "m.xml")
				os.WriteFile(f, mutated, 0o600)
				xsd = filepath.Join(corpus.Dir(t), "schemas", xsd)
				if out, err := exec.Command("xmllint", "--noout", "--schema", xsd, f).CombinedOutput(); err == nil {
					t.Errorf("xmllint accepts what CII-XSD rejects: %s", out)
				}
			}
			for _, x := range r.Failed() {
				if x.ID == c.rule {
					if x.Severity != c.flag {
						t.Errorf("%s failed as %s, want %s", c.rule, x.Severity, c.flag)
					}
					if c.flag == Fatal && r.Valid {
						t.Error("a fatal failure, yet valid")
					}
					return
				}
			}
			t.Errorf("%s did not fail; failed: %v", c.rule, r.Failed())
		})
	}
}

// TestScenarioLevels: KoSIT's level overrides hold in XRechnung and only there: a unit
// outside Rec 20/21 is a warning in an XRechnung, fatal in a plain EN 16931 invoice; a
// second payment terms block is an error in an XRechnung CII.
func TestScenarioLevels(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpus.Dir(t), "xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_uncefact.xml"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	unit := strings.Replace(s, `unitCode="XPP"`, `unitCode="NOPE"`, 1)
	if unit == s {
		unit = strings.Replace(s, `unitCode="`, `unitCode="NOPE" x="`, 1)
	}
	severity := func(doc, id string) (Severity, bool) {
		r, err := Validate(context.Background(), []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range r.Failed() {
			if x.ID == id {
				return x.Severity, r.Valid
			}
		}
		t.Fatalf("%s did not fail", id)
		return "", false
	}
	if sev, valid := severity(unit, "BR-CL-23"); sev != Warning || !valid {
		t.Errorf("XRechnung: BR-CL-23 %s, valid %v", sev, valid)
	}
	plain := strings.Replace(unit, "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0", "urn:cen.eu:en16931:2017", 1)
	if sev, valid := severity(plain, "BR-CL-23"); sev != Fatal || valid {
		t.Errorf("EN 16931: BR-CL-23 %s, valid %v", sev, valid)
	}
	terms := strings.Replace(s, "<ram:SpecifiedTradePaymentTerms>", "<ram:SpecifiedTradePaymentTerms><ram:Description>a</ram:Description></ram:SpecifiedTradePaymentTerms><ram:SpecifiedTradePaymentTerms>", 1)
	if sev, valid := severity(terms, "CII-SR-452"); sev != Fatal || valid {
		t.Errorf("XRechnung: CII-SR-452 %s, valid %v", sev, valid)
	}
}
