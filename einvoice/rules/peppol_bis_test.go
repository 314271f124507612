package rules

import (
	"context"
	"strings"
	"testing"
)

// The Peppol BIS tests run on fixtures of our own: OpenPEPPOL's unit tests and examples
// may not be copied into the repository (run them with go run ./bench/vefa against a
// checkout). bisUBL is a small Peppol BIS invoice between a Belgian seller and an Austrian
// buyer (countries without national Peppol rules); each case changes a few lines of it.
const bisUBL = `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
  xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
  xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>
  <cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>
  <cbc:ID>PB-2025-17</cbc:ID>
  <cbc:IssueDate>2025-06-02</cbc:IssueDate>
  <cbc:DueDate>2025-07-02</cbc:DueDate>
  <cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>
  <cbc:Note>Delivered in two parcels.</cbc:Note>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cbc:BuyerReference>PO-4711</cbc:BuyerReference>
  <cac:AccountingSupplierParty>
    <cac:Party>
      <cbc:EndpointID schemeID="0208">0123456749</cbc:EndpointID>
      <cac:PartyIdentification>
        <cbc:ID schemeID="0088">5790000435968</cbc:ID>
      </cac:PartyIdentification>
      <cac:PostalAddress>
        <cbc:StreetName>Rue de la Loi 16</cbc:StreetName>
        <cbc:CityName>Bruxelles</cbc:CityName>
        <cbc:PostalZone>1000</cbc:PostalZone>
        <cac:Country>
          <cbc:IdentificationCode>BE</cbc:IdentificationCode>
        </cac:Country>
      </cac:PostalAddress>
      <cac:PartyTaxScheme>
        <cbc:CompanyID>BE0123456749</cbc:CompanyID>
        <cac:TaxScheme>
          <cbc:ID>VAT</cbc:ID>
        </cac:TaxScheme>
      </cac:PartyTaxScheme>
      <cac:PartyLegalEntity>
        <cbc:RegistrationName>Papier et Plume SA</cbc:RegistrationName>
        <cbc:CompanyID schemeID="0208">0123456749</cbc:CompanyID>
      </cac:PartyLegalEntity>
    </cac:Party>
  </cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty>
    <cac:Party>
      <cbc:EndpointID schemeID="9915">ATU12345675</cbc:EndpointID>
      <cac:PostalAddress>
        <cbc:StreetName>Ringstrasse 1</cbc:StreetName>
        <cbc:CityName>Wien</cbc:CityName>
        <cbc:PostalZone>1010</cbc:PostalZone>
        <cac:Country>
          <cbc:IdentificationCode>AT</cbc:IdentificationCode>
        </cac:Country>
      </cac:PostalAddress>
      <cac:PartyLegalEntity>
        <cbc:RegistrationName>Kanzlei Huber GmbH</cbc:RegistrationName>
      </cac:PartyLegalEntity>
    </cac:Party>
  </cac:AccountingCustomerParty>
  <cac:PaymentMeans>
    <cbc:PaymentMeansCode>30</cbc:PaymentMeansCode>
    <cac:PayeeFinancialAccount>
      <cbc:ID>BE68539007547034</cbc:ID>
    </cac:PayeeFinancialAccount>
  </cac:PaymentMeans>
  <cac:TaxTotal>
    <cbc:TaxAmount currencyID="EUR">21.00</cbc:TaxAmount>
    <cac:TaxSubtotal>
      <cbc:TaxableAmount currencyID="EUR">100.00</cbc:TaxableAmount>
      <cbc:TaxAmount currencyID="EUR">21.00</cbc:TaxAmount>
      <cac:TaxCategory>
        <cbc:ID>S</cbc:ID>
        <cbc:Percent>21</cbc:Percent>
        <cac:TaxScheme>
          <cbc:ID>VAT</cbc:ID>
        </cac:TaxScheme>
      </cac:TaxCategory>
    </cac:TaxSubtotal>
  </cac:TaxTotal>
  <cac:LegalMonetaryTotal>
    <cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount>
    <cbc:TaxExclusiveAmount currencyID="EUR">100.00</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="EUR">121.00</cbc:TaxInclusiveAmount>
    <cbc:PayableAmount currencyID="EUR">121.00</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
  <cac:InvoiceLine>
    <cbc:ID>1</cbc:ID>
    <cbc:InvoicedQuantity unitCode="C62">2</cbc:InvoicedQuantity>
    <cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount>
    <cac:Item>
      <cbc:Name>Fountain pen</cbc:Name>
      <cac:ClassifiedTaxCategory>
        <cbc:ID>S</cbc:ID>
        <cbc:Percent>21</cbc:Percent>
        <cac:TaxScheme>
          <cbc:ID>VAT</cbc:ID>
        </cac:TaxScheme>
      </cac:ClassifiedTaxCategory>
    </cac:Item>
    <cac:Price>
      <cbc:PriceAmount currencyID="EUR">50.00</cbc:PriceAmount>
      <cbc:BaseQuantity unitCode="C62">1</cbc:BaseQuantity>
    </cac:Price>
  </cac:InvoiceLine>
</Invoice>`

// bisCII is a small Peppol BIS invoice in CII, the same sale as bisUBL.
const bisCII = `<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
  xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
  xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
  <rsm:ExchangedDocumentContext>
    <ram:BusinessProcessSpecifiedDocumentContextParameter>
      <ram:ID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</ram:ID>
    </ram:BusinessProcessSpecifiedDocumentContextParameter>
    <ram:GuidelineSpecifiedDocumentContextParameter>
      <ram:ID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</ram:ID>
    </ram:GuidelineSpecifiedDocumentContextParameter>
  </rsm:ExchangedDocumentContext>
  <rsm:ExchangedDocument>
    <ram:ID>PB-2025-17</ram:ID>
    <ram:TypeCode>380</ram:TypeCode>
    <ram:IssueDateTime>
      <udt:DateTimeString format="102">20250602</udt:DateTimeString>
    </ram:IssueDateTime>
    <ram:IncludedNote>
      <ram:Content>Delivered in two parcels.</ram:Content>
    </ram:IncludedNote>
  </rsm:ExchangedDocument>
  <rsm:SupplyChainTradeTransaction>
    <ram:IncludedSupplyChainTradeLineItem>
      <ram:AssociatedDocumentLineDocument>
        <ram:LineID>1</ram:LineID>
      </ram:AssociatedDocumentLineDocument>
      <ram:SpecifiedTradeProduct>
        <ram:Name>Fountain pen</ram:Name>
      </ram:SpecifiedTradeProduct>
      <ram:SpecifiedLineTradeAgreement>
        <ram:NetPriceProductTradePrice>
          <ram:ChargeAmount>50.00</ram:ChargeAmount>
          <ram:BasisQuantity unitCode="C62">1</ram:BasisQuantity>
        </ram:NetPriceProductTradePrice>
      </ram:SpecifiedLineTradeAgreement>
      <ram:SpecifiedLineTradeDelivery>
        <ram:BilledQuantity unitCode="C62">2</ram:BilledQuantity>
      </ram:SpecifiedLineTradeDelivery>
      <ram:SpecifiedLineTradeSettlement>
        <ram:ApplicableTradeTax>
          <ram:TypeCode>VAT</ram:TypeCode>
          <ram:CategoryCode>S</ram:CategoryCode>
          <ram:RateApplicablePercent>21</ram:RateApplicablePercent>
        </ram:ApplicableTradeTax>
        <ram:SpecifiedTradeSettlementLineMonetarySummation>
          <ram:LineTotalAmount>100.00</ram:LineTotalAmount>
        </ram:SpecifiedTradeSettlementLineMonetarySummation>
      </ram:SpecifiedLineTradeSettlement>
    </ram:IncludedSupplyChainTradeLineItem>
    <ram:ApplicableHeaderTradeAgreement>
      <ram:BuyerReference>PO-4711</ram:BuyerReference>
      <ram:SellerTradeParty>
        <ram:GlobalID schemeID="0088">5790000435968</ram:GlobalID>
        <ram:Name>Papier et Plume SA</ram:Name>
        <ram:SpecifiedLegalOrganization>
          <ram:ID schemeID="0208">0123456749</ram:ID>
        </ram:SpecifiedLegalOrganization>
        <ram:PostalTradeAddress>
          <ram:PostcodeCode>1000</ram:PostcodeCode>
          <ram:LineOne>Rue de la Loi 16</ram:LineOne>
          <ram:CityName>Bruxelles</ram:CityName>
          <ram:CountryID>BE</ram:CountryID>
        </ram:PostalTradeAddress>
        <ram:URIUniversalCommunication>
          <ram:URIID schemeID="0208">0123456749</ram:URIID>
        </ram:URIUniversalCommunication>
        <ram:SpecifiedTaxRegistration>
          <ram:ID schemeID="VA">BE0123456749</ram:ID>
        </ram:SpecifiedTaxRegistration>
      </ram:SellerTradeParty>
      <ram:BuyerTradeParty>
        <ram:Name>Kanzlei Huber GmbH</ram:Name>
        <ram:PostalTradeAddress>
          <ram:PostcodeCode>1010</ram:PostcodeCode>
          <ram:LineOne>Ringstrasse 1</ram:LineOne>
          <ram:CityName>Wien</ram:CityName>
          <ram:CountryID>AT</ram:CountryID>
        </ram:PostalTradeAddress>
        <ram:URIUniversalCommunication>
          <ram:URIID schemeID="9915">ATU12345675</ram:URIID>
        </ram:URIUniversalCommunication>
      </ram:BuyerTradeParty>
    </ram:ApplicableHeaderTradeAgreement>
    <ram:ApplicableHeaderTradeDelivery/>
    <ram:ApplicableHeaderTradeSettlement>
      <ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
      <ram:SpecifiedTradeSettlementPaymentMeans>
        <ram:TypeCode>30</ram:TypeCode>
        <ram:PayeePartyCreditorFinancialAccount>
          <ram:IBANID>BE68539007547034</ram:IBANID>
        </ram:PayeePartyCreditorFinancialAccount>
      </ram:SpecifiedTradeSettlementPaymentMeans>
      <ram:ApplicableTradeTax>
        <ram:CalculatedAmount>21.00</ram:CalculatedAmount>
        <ram:TypeCode>VAT</ram:TypeCode>
        <ram:BasisAmount>100.00</ram:BasisAmount>
        <ram:CategoryCode>S</ram:CategoryCode>
        <ram:RateApplicablePercent>21</ram:RateApplicablePercent>
      </ram:ApplicableTradeTax>
      <ram:SpecifiedTradePaymentTerms>
        <ram:DueDateDateTime>
          <udt:DateTimeString format="102">20250702</udt:DateTimeString>
        </ram:DueDateDateTime>
      </ram:SpecifiedTradePaymentTerms>
      <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
        <ram:LineTotalAmount>100.00</ram:LineTotalAmount>
        <ram:TaxBasisTotalAmount>100.00</ram:TaxBasisTotalAmount>
        <ram:TaxTotalAmount currencyID="EUR">21.00</ram:TaxTotalAmount>
        <ram:GrandTotalAmount>121.00</ram:GrandTotalAmount>
        <ram:DuePayableAmount>121.00</ram:DuePayableAmount>
      </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    </ram:ApplicableHeaderTradeSettlement>
  </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>`

// bisOutcome is what became of one rule id on a document.
type bisOutcome struct {
	failed Severity // the severity of a failure, "" if none
	passed bool     // checked somewhere and passed
}

func bisJudge(t *testing.T, doc string) map[string]bisOutcome {
	t.Helper()
	r, err := ValidateWith(context.Background(), []byte(doc), Options{RuleSet: "peppol-bis-3.0"})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bisOutcome{}
	for _, x := range r.Results {
		o := out[x.ID]
		if x.Passed {
			o.passed = true
		} else if o.failed != Fatal {
			o.failed = x.Severity
		}
		out[x.ID] = o
	}
	return out
}

// bisEdit applies replacements (old, new, old, new, …) to a fixture; each old must occur.
func bisEdit(t *testing.T, doc string, pairs ...string) string {
	t.Helper()
	for i := 0; i+1 < len(pairs); i += 2 {
		if !strings.Contains(doc, pairs[i]) {
			t.Fatalf("fixture has no %q", pairs[i])
		}
		doc = strings.Replace(doc, pairs[i], pairs[i+1], 1)
	}
	return doc
}

// TestPeppolBISFixturesValid: the fixtures pass the Peppol BIS rule set without a fatal
// error, and its rules are checked on them (so that the cases below, which change one
// thing, see the rule they are about react).
func TestPeppolBISFixturesValid(t *testing.T) {
	for name, c := range map[string]struct {
		doc     string
		checked []string
	}{
		"UBL": {bisUBL, []string{"PEPPOL-EN16931-R001", "PEPPOL-EN16931-R003", "PEPPOL-EN16931-R004", "PEPPOL-EN16931-R007", "PEPPOL-EN16931-R051", "PEPPOL-EN16931-R053", "PEPPOL-EN16931-R120", "PEPPOL-EN16931-R130", "PEPPOL-EN16931-F001", "PEPPOL-EN16931-CL007", "PEPPOL-EN16931-CL008", "PEPPOL-EN16931-P0100", "PEPPOL-COMMON-R040", "PEPPOL-COMMON-R043"}},
		"CII": {bisCII, []string{"PEPPOL-EN16931-R001", "PEPPOL-EN16931-R002", "PEPPOL-EN16931-R053", "PEPPOL-EN16931-R120", "PEPPOL-EN16931-F001", "PEPPOL-EN16931-CL008", "PEPPOL-COMMON-R040", "PEPPOL-COMMON-R043"}},
	} {
		r, err := ValidateWith(context.Background(), []byte(c.doc), Options{RuleSet: "peppol-bis-3.0"})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Valid {
			t.Errorf("%s fixture: fatal %v", name, fatalIDs(r))
		}
		got := bisJudge(t, c.doc)
		for _, id := range c.checked {
			if !got[id].passed {
				t.Errorf("%s fixture: %s not checked", name, id)
			}
		}
	}
}

// TestPeppolBISRules: one change to a fixture makes a rule fail, with Peppol's severity,
// or (want "") keeps it passing where Peppol's form of the rule allows what the change
// does.
func TestPeppolBISRules(t *testing.T) {
	const (
		note     = "<cbc:Note>Delivered in two parcels.</cbc:Note>"
		buyerRef = "<cbc:BuyerReference>PO-4711</cbc:BuyerReference>"
		profile  = "urn:fdc:peppol.eu:2017:poacc:billing:01:1.0"
		payment  = "<cbc:PaymentMeansCode>30</cbc:PaymentMeansCode>"
		lineNet  = `<cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount>
    <cac:Item>`
		taxTotal  = "<cac:TaxTotal>"
		sellerEnd = `<cbc:EndpointID schemeID="0208">0123456749</cbc:EndpointID>`
		buyerEnd  = `<cbc:EndpointID schemeID="9915">ATU12345675</cbc:EndpointID>`
		sellerGLN = `<cbc:ID schemeID="0088">5790000435968</cbc:ID>`
		category  = "<cbc:ID>S</cbc:ID>\n        <cbc:Percent>21</cbc:Percent>\n        <cac:TaxScheme>"
		countries = "<cbc:IdentificationCode>BE</cbc:IdentificationCode>"
		attached  = buyerRef + `
  <cac:AdditionalDocumentReference>
    <cbc:ID>Timesheet</cbc:ID>
    <cac:Attachment>
      <cbc:EmbeddedDocumentBinaryObject mimeCode="%s" filename="t">QUJD</cbc:EmbeddedDocumentBinaryObject>
    </cac:Attachment>
  </cac:AdditionalDocumentReference>`
	)
	endpoint := func(scheme, id string) []string {
		return []string{buyerEnd, `<cbc:EndpointID schemeID="` + scheme + `">` + id + `</cbc:EndpointID>`}
	}
	cases := []struct {
		name string
		doc  string
		edit []string
		id   string
		want Severity
	}{
		{"R008 empty element", bisUBL, []string{buyerRef, buyerRef + "<cbc:AccountingCost></cbc:AccountingCost>"}, "PEPPOL-EN16931-R008", Fatal},
		{"R001 no business process", bisUBL, []string{"<cbc:ProfileID>" + profile + "</cbc:ProfileID>", ""}, "PEPPOL-EN16931-R001", Fatal},
		{"R007 process number of one digit", bisUBL, []string{profile, "urn:fdc:peppol.eu:2017:poacc:billing:1:1.0"}, "PEPPOL-EN16931-R007", Fatal},
		{"R002 two notes", bisUBL, []string{note, note + note}, "PEPPOL-EN16931-R002", Fatal},
		{"R002 two notes between German parties", bisUBL, []string{note, note + note, countries, "<cbc:IdentificationCode>DE</cbc:IdentificationCode>", "<cbc:IdentificationCode>AT</cbc:IdentificationCode>", "<cbc:IdentificationCode>de</cbc:IdentificationCode>"}, "PEPPOL-EN16931-R002", ""},
		{"R003 no buyer or order reference", bisUBL, []string{buyerRef, ""}, "PEPPOL-EN16931-R003", Fatal},
		{"R003 order reference instead", bisUBL, []string{buyerRef, "<cac:OrderReference><cbc:ID>4711</cbc:ID></cac:OrderReference>"}, "PEPPOL-EN16931-R003", ""},
		{"R004 plain EN 16931", bisUBL, []string{"urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0", "urn:cen.eu:en16931:2017"}, "PEPPOL-EN16931-R004", Fatal},
		{"R051 amount in another currency", bisUBL, []string{`<cbc:PriceAmount currencyID="EUR">`, `<cbc:PriceAmount currencyID="USD">`}, "PEPPOL-EN16931-R051", Fatal},
		{"R053 two totals with breakdown", bisUBL, []string{"</cac:TaxTotal>", "</cac:TaxTotal>" + bisUBL[strings.Index(bisUBL, taxTotal):strings.Index(bisUBL, "</cac:TaxTotal>")] + "</cac:TaxTotal>"}, "PEPPOL-EN16931-R053", Fatal},
		{"R061 direct debit without mandate", bisUBL, []string{payment, "<cbc:PaymentMeansCode>59</cbc:PaymentMeansCode>"}, "PEPPOL-EN16931-R061", Fatal},
		{"R061 direct debit with mandate", bisUBL, []string{payment, "<cbc:PaymentMeansCode>59</cbc:PaymentMeansCode>", "</cac:PayeeFinancialAccount>", "</cac:PayeeFinancialAccount><cac:PaymentMandate><cbc:ID>M-1</cbc:ID></cac:PaymentMandate>"}, "PEPPOL-EN16931-R061", ""},
		// Fatal in Peppol BIS, where XRechnung makes it a warning.
		{"R120 line amount 3 cents off", bisUBL, []string{lineNet, `<cbc:LineExtensionAmount currencyID="EUR">100.03</cbc:LineExtensionAmount>
    <cac:Item>`}, "PEPPOL-EN16931-R120", Fatal},
		{"R120 line amount 2 cents off", bisUBL, []string{lineNet, `<cbc:LineExtensionAmount currencyID="EUR">99.98</cbc:LineExtensionAmount>
    <cac:Item>`}, "PEPPOL-EN16931-R120", ""},
		{"R130 base quantity in another unit", bisUBL, []string{`<cbc:BaseQuantity unitCode="C62">`, `<cbc:BaseQuantity unitCode="KGM">`}, "PEPPOL-EN16931-R130", Fatal},
		{"CL001 zip attachment", bisUBL, []string{buyerRef, strings.Replace(attached, "%s", "application/zip", 1)}, "PEPPOL-EN16931-CL001", Fatal},
		{"CL001 PDF attachment", bisUBL, []string{buyerRef, strings.Replace(attached, "%s", "application/pdf", 1)}, "PEPPOL-EN16931-CL001", ""},
		{"CL008 unknown address scheme", bisUBL, endpoint("9999", "1234"), "PEPPOL-EN16931-CL008", Fatal},
		{"F001 no such day", bisUBL, []string{"<cbc:DueDate>2025-07-02</cbc:DueDate>", "<cbc:DueDate>2025-02-30</cbc:DueDate>"}, "PEPPOL-EN16931-F001", Fatal},
		{"P0104 exemption code G on category S", bisUBL, []string{category, "<cbc:ID>S</cbc:ID>\n        <cbc:Percent>21</cbc:Percent>\n        <cbc:TaxExemptionReasonCode>vatex-eu-g</cbc:TaxExemptionReasonCode>\n        <cac:TaxScheme>"}, "PEPPOL-EN16931-P0104", Fatal},
		{"P0112 type 326 outside Germany", bisUBL, []string{"<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>", "<cbc:InvoiceTypeCode>326</cbc:InvoiceTypeCode>"}, "PEPPOL-EN16931-P0112", Fatal},
		{"P0100 type outside the billing process", bisUBL, []string{"<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>", "<cbc:InvoiceTypeCode>751</cbc:InvoiceTypeCode>"}, "PEPPOL-EN16931-P0100", Fatal},
		{"COMMON-R040 GLN check digit", bisUBL, []string{sellerGLN, `<cbc:ID schemeID="0088">5790000435969</cbc:ID>`}, "PEPPOL-COMMON-R040", Fatal},
		{"COMMON-R041 Norwegian number", bisUBL, endpoint("0192", "974760674"), "PEPPOL-COMMON-R041", Fatal},
		{"COMMON-R041 Norwegian number valid", bisUBL, endpoint("0192", "974760673"), "PEPPOL-COMMON-R041", ""},
		{"COMMON-R042 CVR of seven digits", bisUBL, endpoint("0184", "DK1234567"), "PEPPOL-COMMON-R042", Fatal},
		{"COMMON-R043 Belgian check digits", bisUBL, []string{sellerEnd, `<cbc:EndpointID schemeID="0208">0123456748</cbc:EndpointID>`}, "PEPPOL-COMMON-R043", Fatal},
		{"COMMON-R045 Codice Fiscale (a warning)", bisUBL, []string{sellerGLN, `<cbc:ID schemeID="0210">RSSMRA85T10A56</cbc:ID>`}, "PEPPOL-COMMON-R045", Warning},
		{"COMMON-R047 Partita IVA check digit (a warning)", bisUBL, endpoint("0211", "IT12345678901"), "PEPPOL-COMMON-R047", Warning},
		{"COMMON-R049 Swedish number", bisUBL, endpoint("0007", "1234567890"), "PEPPOL-COMMON-R049", Fatal},
		{"COMMON-R049 Swedish number valid", bisUBL, endpoint("0007", "5566778899"), "PEPPOL-COMMON-R049", ""},
		{"COMMON-R050 ABN checksum", bisUBL, endpoint("0151", "51824753557"), "PEPPOL-COMMON-R050", Fatal},
		{"COMMON-R050 ABN valid", bisUBL, endpoint("0151", "51824753556"), "PEPPOL-COMMON-R050", ""},

		{"CII R002 note with a subject", bisCII, []string{"<ram:Content>Delivered in two parcels.</ram:Content>", "<ram:Content>Delivered in two parcels.</ram:Content><ram:SubjectCode>AAI</ram:SubjectCode>"}, "PEPPOL-EN16931-R002", Fatal},
		{"CII R003 no buyer reference", bisCII, []string{"<ram:BuyerReference>PO-4711</ram:BuyerReference>", ""}, "PEPPOL-EN16931-R003", Fatal},
		{"CII R053 no total in the invoice currency", bisCII, []string{`<ram:TaxTotalAmount currencyID="EUR">`, `<ram:TaxTotalAmount currencyID="SEK">`}, "PEPPOL-EN16931-R053", Fatal},
		{"CII R120 line amount 3 cents off", bisCII, []string{"<ram:LineTotalAmount>100.00</ram:LineTotalAmount>\n        </ram:SpecifiedTradeSettlementLineMonetarySummation>", "<ram:LineTotalAmount>100.03</ram:LineTotalAmount>\n        </ram:SpecifiedTradeSettlementLineMonetarySummation>"}, "PEPPOL-EN16931-R120", Fatal},
		{"CII F001 date without format 102", bisCII, []string{`<udt:DateTimeString format="102">20250702</udt:DateTimeString>`, `<udt:DateTimeString format="610">202507</udt:DateTimeString>`}, "PEPPOL-EN16931-F001", Fatal},
		{"CII CL008 address without scheme", bisCII, []string{`<ram:URIID schemeID="9915">`, `<ram:URIID>`}, "PEPPOL-EN16931-CL008", Fatal},
		{"CII COMMON-R048 Partita IVA address (a warning)", bisCII, []string{`<ram:URIID schemeID="9915">ATU12345675</ram:URIID>`, `<ram:URIID schemeID="9906">IT1234567890</ram:URIID>`}, "PEPPOL-COMMON-R048", Warning},
		{"CII COMMON-R040 GLN check digit", bisCII, []string{`<ram:GlobalID schemeID="0088">5790000435968</ram:GlobalID>`, `<ram:GlobalID schemeID="0088">5790000435969</ram:GlobalID>`}, "PEPPOL-COMMON-R040", Fatal},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := bisJudge(t, bisEdit(t, c.doc, c.edit...))[c.id]
			switch {
			case c.want == "" && (got.failed != "" || !got.passed):
				t.Errorf("%s: failed %q, passed %v; want it checked and passing", c.id, got.failed, got.passed)
			case c.want != "" && got.failed != c.want:
				t.Errorf("%s: failed %q, want %q", c.id, got.failed, c.want)
			}
		})
	}
}
