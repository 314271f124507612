package rules

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// The national Peppol rules are tested on invoices of our own (OpenPEPPOL's unit tests may
// not be copied into the repository; run them with go run ./bench/vefa against a checkout).
// natUBL and natCII build a small Peppol BIS invoice between two parties of natParties;
// each case changes a few lines of it.

// natParty is a seller or buyer of a country, with identifiers whose check digits we
// computed ourselves: the Norwegian organisation number 314159268 (MOD11), the Swedish
// 5566778899 and 2021005562 (Luhn), the Greek tax numbers 123456783 and 998877666, the
// Danish CVR numbers 12345674 and 11111114 (weights 2, 7, 6, 5, 4, 3, 2, 1).
type natParty struct {
	cc, vat            string
	eas, endpoint      string // the electronic address (BT-34, BT-49)
	legalScheme, legal string // the legal registration identifier, also the party identifier
	tax                string // a tax registration identifier (BT-32) besides the VAT one
}

var natParties = map[string]natParty{
	"BE":  {cc: "BE", vat: "BE0123456749", eas: "0208", endpoint: "0123456749", legalScheme: "0208", legal: "0123456749"},
	"AT":  {cc: "AT", vat: "ATU12345675", eas: "9915", endpoint: "ATU12345675"},
	"NO":  {cc: "NO", vat: "NO314159268MVA", eas: "0192", endpoint: "314159268", legalScheme: "0192", legal: "314159268", tax: "Foretaksregisteret"},
	"DK":  {cc: "DK", vat: "DK12345674", eas: "0184", endpoint: "12345674", legalScheme: "0184", legal: "12345674"},
	"DK2": {cc: "DK", vat: "DK11111114", eas: "0184", endpoint: "11111114", legalScheme: "0184", legal: "11111114"},
	"SE":  {cc: "SE", vat: "SE556677889901", eas: "0007", endpoint: "5566778899", legalScheme: "0007", legal: "5566778899", tax: "Godkänd för F-skatt"},
	"SE2": {cc: "SE", vat: "SE202100556201", eas: "0007", endpoint: "2021005562", legalScheme: "0007", legal: "2021005562"},
	"GR":  {cc: "GR", vat: "EL123456783", eas: "9933", endpoint: "123456783"},
	"GR2": {cc: "GR", vat: "EL998877666", eas: "9933", endpoint: "998877666"},
	"IS":  {cc: "IS", vat: "IS123456", eas: "0196", endpoint: "5501692829", legalScheme: "0196", legal: "5501692829"},
	"IS2": {cc: "IS", vat: "IS654321", eas: "0196", endpoint: "4710080280", legalScheme: "0196", legal: "4710080280"},
	"NL":  {cc: "NL", vat: "NL123456789B01", eas: "0106", endpoint: "12345678", legalScheme: "0106", legal: "12345678"},
	"NL2": {cc: "NL", vat: "NL987654321B01", eas: "0106", endpoint: "87654321", legalScheme: "0106", legal: "87654321"},
	"DE":  {cc: "DE", vat: "DE123456789", eas: "9930", endpoint: "DE123456789"},
	"DE2": {cc: "DE", vat: "DE987654321", eas: "9930", endpoint: "DE987654321"},
	"IT":  {cc: "IT", vat: "IT01234567897", eas: "0201", endpoint: "UFABCD", tax: "RSSMRA85T10A562S"},
}

func (p natParty) ubl(role string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  <cac:%s>\n    <cac:Party>\n      <cbc:EndpointID schemeID=\"%s\">%s</cbc:EndpointID>\n", role, p.eas, p.endpoint)
	if p.legal != "" {
		fmt.Fprintf(&b, "      <cac:PartyIdentification>\n        <cbc:ID schemeID=\"%s\">%s</cbc:ID>\n      </cac:PartyIdentification>\n", p.legalScheme, p.legal)
	}
	fmt.Fprintf(&b, `      <cac:PartyName>
        <cbc:Name>%[1]s party</cbc:Name>
      </cac:PartyName>
      <cac:PostalAddress>
        <cbc:StreetName>Main Street 1</cbc:StreetName>
        <cbc:CityName>Capital</cbc:CityName>
        <cbc:PostalZone>1000</cbc:PostalZone>
        <cac:Country>
          <cbc:IdentificationCode>%[1]s</cbc:IdentificationCode>
        </cac:Country>
      </cac:PostalAddress>
      <cac:PartyTaxScheme>
        <cbc:CompanyID>%[2]s</cbc:CompanyID>
        <cac:TaxScheme>
          <cbc:ID>VAT</cbc:ID>
        </cac:TaxScheme>
      </cac:PartyTaxScheme>
`, p.cc, p.vat)
	if p.tax != "" {
		fmt.Fprintf(&b, "      <cac:PartyTaxScheme>\n        <cbc:CompanyID>%s</cbc:CompanyID>\n        <cac:TaxScheme>\n          <cbc:ID>TAX</cbc:ID>\n        </cac:TaxScheme>\n      </cac:PartyTaxScheme>\n", p.tax)
	}
	fmt.Fprintf(&b, "      <cac:PartyLegalEntity>\n        <cbc:RegistrationName>%s party</cbc:RegistrationName>\n", p.cc)
	if p.legal != "" {
		fmt.Fprintf(&b, "        <cbc:CompanyID schemeID=\"%s\">%s</cbc:CompanyID>\n", p.legalScheme, p.legal)
	}
	b.WriteString("      </cac:PartyLegalEntity>\n")
	if role == "AccountingSupplierParty" {
		b.WriteString("      <cac:Contact>\n        <cbc:Name>Accounts</cbc:Name>\n        <cbc:Telephone>+49 30 1234567</cbc:Telephone>\n        <cbc:ElectronicMail>accounts@example.com</cbc:ElectronicMail>\n      </cac:Contact>\n")
	}
	fmt.Fprintf(&b, "    </cac:Party>\n  </cac:%s>\n", role)
	return b.String()
}

// natUBL is a Peppol BIS invoice from seller to buyer (keys of natParties): one line of
// 100.00 at the standard rate of 25 %, paid by SEPA credit transfer.
func natUBL(seller, buyer string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
  xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
  xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:CustomizationID>urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0</cbc:CustomizationID>
  <cbc:ProfileID>urn:fdc:peppol.eu:2017:poacc:billing:01:1.0</cbc:ProfileID>
  <cbc:ID>INV-1</cbc:ID>
  <cbc:IssueDate>2025-06-02</cbc:IssueDate>
  <cbc:DueDate>2025-07-02</cbc:DueDate>
  <cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>
  <cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
  <cbc:BuyerReference>PO-4711</cbc:BuyerReference>
` + natParties[seller].ubl("AccountingSupplierParty") + natParties[buyer].ubl("AccountingCustomerParty") + `  <cac:PaymentMeans>
    <cbc:PaymentMeansCode>58</cbc:PaymentMeansCode>
    <cbc:PaymentID>INV-1</cbc:PaymentID>
    <cac:PayeeFinancialAccount>
      <cbc:ID>BE68539007547034</cbc:ID>
    </cac:PayeeFinancialAccount>
  </cac:PaymentMeans>
  <cac:TaxTotal>
    <cbc:TaxAmount currencyID="EUR">25.00</cbc:TaxAmount>
    <cac:TaxSubtotal>
      <cbc:TaxableAmount currencyID="EUR">100.00</cbc:TaxableAmount>
      <cbc:TaxAmount currencyID="EUR">25.00</cbc:TaxAmount>
      <cac:TaxCategory>
        <cbc:ID>S</cbc:ID>
        <cbc:Percent>25</cbc:Percent>
        <cac:TaxScheme>
          <cbc:ID>VAT</cbc:ID>
        </cac:TaxScheme>
      </cac:TaxCategory>
    </cac:TaxSubtotal>
  </cac:TaxTotal>
  <cac:LegalMonetaryTotal>
    <cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount>
    <cbc:TaxExclusiveAmount currencyID="EUR">100.00</cbc:TaxExclusiveAmount>
    <cbc:TaxInclusiveAmount currencyID="EUR">125.00</cbc:TaxInclusiveAmount>
    <cbc:PayableAmount currencyID="EUR">125.00</cbc:PayableAmount>
  </cac:LegalMonetaryTotal>
  <cac:InvoiceLine>
    <cbc:ID>1</cbc:ID>
    <cbc:InvoicedQuantity unitCode="C62">10</cbc:InvoicedQuantity>
    <cbc:LineExtensionAmount currencyID="EUR">100.00</cbc:LineExtensionAmount>
    <cac:Item>
      <cbc:Name>Paper</cbc:Name>
      <cac:ClassifiedTaxCategory>
        <cbc:ID>S</cbc:ID>
        <cbc:Percent>25</cbc:Percent>
        <cac:TaxScheme>
          <cbc:ID>VAT</cbc:ID>
        </cac:TaxScheme>
      </cac:ClassifiedTaxCategory>
    </cac:Item>
    <cac:Price>
      <cbc:PriceAmount currencyID="EUR">10.00</cbc:PriceAmount>
    </cac:Price>
  </cac:InvoiceLine>
</Invoice>`
}

// natCreditNote turns a natUBL invoice into a credit note.
func natCreditNote(doc string) string {
	return strings.NewReplacer(
		"<Invoice xmlns=\"urn:oasis:names:specification:ubl:schema:xsd:Invoice-2\"", "<CreditNote xmlns=\"urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2\"",
		"</Invoice>", "</CreditNote>",
		"<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>", "<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>",
		"<cbc:DueDate>2025-07-02</cbc:DueDate>\n", "",
		"InvoiceLine>", "CreditNoteLine>",
		"InvoicedQuantity", "CreditedQuantity",
	).Replace(doc)
}

func (p natParty) cii(role string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "      <ram:%s>\n        <ram:Name>%s party</ram:Name>\n", role, p.cc)
	if p.legal != "" {
		fmt.Fprintf(&b, "        <ram:SpecifiedLegalOrganization>\n          <ram:ID schemeID=\"%s\">%s</ram:ID>\n        </ram:SpecifiedLegalOrganization>\n", p.legalScheme, p.legal)
	}
	fmt.Fprintf(&b, `        <ram:PostalTradeAddress>
          <ram:PostcodeCode>1000</ram:PostcodeCode>
          <ram:LineOne>Main Street 1</ram:LineOne>
          <ram:CityName>Capital</ram:CityName>
          <ram:CountryID>%s</ram:CountryID>
        </ram:PostalTradeAddress>
        <ram:URIUniversalCommunication>
          <ram:URIID schemeID="%s">%s</ram:URIID>
        </ram:URIUniversalCommunication>
        <ram:SpecifiedTaxRegistration>
          <ram:ID schemeID="VAT">%s</ram:ID>
        </ram:SpecifiedTaxRegistration>
`, p.cc, p.eas, p.endpoint, p.vat)
	if p.tax != "" {
		fmt.Fprintf(&b, "        <ram:SpecifiedTaxRegistration>\n          <ram:ID schemeID=\"FC\">%s</ram:ID>\n        </ram:SpecifiedTaxRegistration>\n", p.tax)
	}
	fmt.Fprintf(&b, "      </ram:%s>\n", role)
	return b.String()
}

// natCII is natUBL in CII.
func natCII(seller, buyer string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
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
    <ram:ID>INV-1</ram:ID>
    <ram:TypeCode>380</ram:TypeCode>
    <ram:IssueDateTime>
      <udt:DateTimeString format="102">20250602</udt:DateTimeString>
    </ram:IssueDateTime>
  </rsm:ExchangedDocument>
  <rsm:SupplyChainTradeTransaction>
    <ram:IncludedSupplyChainTradeLineItem>
      <ram:AssociatedDocumentLineDocument>
        <ram:LineID>1</ram:LineID>
      </ram:AssociatedDocumentLineDocument>
      <ram:SpecifiedTradeProduct>
        <ram:Name>Paper</ram:Name>
      </ram:SpecifiedTradeProduct>
      <ram:SpecifiedLineTradeAgreement>
        <ram:NetPriceProductTradePrice>
          <ram:ChargeAmount>10.00</ram:ChargeAmount>
        </ram:NetPriceProductTradePrice>
      </ram:SpecifiedLineTradeAgreement>
      <ram:SpecifiedLineTradeDelivery>
        <ram:BilledQuantity unitCode="C62">10</ram:BilledQuantity>
      </ram:SpecifiedLineTradeDelivery>
      <ram:SpecifiedLineTradeSettlement>
        <ram:ApplicableTradeTax>
          <ram:TypeCode>VAT</ram:TypeCode>
          <ram:CategoryCode>S</ram:CategoryCode>
          <ram:RateApplicablePercent>25</ram:RateApplicablePercent>
        </ram:ApplicableTradeTax>
        <ram:SpecifiedTradeSettlementLineMonetarySummation>
          <ram:LineTotalAmount>100.00</ram:LineTotalAmount>
        </ram:SpecifiedTradeSettlementLineMonetarySummation>
      </ram:SpecifiedLineTradeSettlement>
    </ram:IncludedSupplyChainTradeLineItem>
    <ram:ApplicableHeaderTradeAgreement>
      <ram:BuyerReference>PO-4711</ram:BuyerReference>
` + natParties[seller].cii("SellerTradeParty") + natParties[buyer].cii("BuyerTradeParty") + `    </ram:ApplicableHeaderTradeAgreement>
    <ram:ApplicableHeaderTradeDelivery/>
    <ram:ApplicableHeaderTradeSettlement>
      <ram:PaymentReference>INV-1</ram:PaymentReference>
      <ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
      <ram:SpecifiedTradeSettlementPaymentMeans>
        <ram:TypeCode>58</ram:TypeCode>
        <ram:PayeePartyCreditorFinancialAccount>
          <ram:IBANID>BE68539007547034</ram:IBANID>
        </ram:PayeePartyCreditorFinancialAccount>
      </ram:SpecifiedTradeSettlementPaymentMeans>
      <ram:ApplicableTradeTax>
        <ram:CalculatedAmount>25.00</ram:CalculatedAmount>
        <ram:TypeCode>VAT</ram:TypeCode>
        <ram:BasisAmount>100.00</ram:BasisAmount>
        <ram:CategoryCode>S</ram:CategoryCode>
        <ram:RateApplicablePercent>25</ram:RateApplicablePercent>
      </ram:ApplicableTradeTax>
      <ram:SpecifiedTradePaymentTerms>
        <ram:DueDateDateTime>
          <udt:DateTimeString format="102">20250702</udt:DateTimeString>
        </ram:DueDateDateTime>
      </ram:SpecifiedTradePaymentTerms>
      <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
        <ram:LineTotalAmount>100.00</ram:LineTotalAmount>
        <ram:TaxBasisTotalAmount>100.00</ram:TaxBasisTotalAmount>
        <ram:TaxTotalAmount currencyID="EUR">25.00</ram:TaxTotalAmount>
        <ram:GrandTotalAmount>125.00</ram:GrandTotalAmount>
        <ram:DuePayableAmount>125.00</ram:DuePayableAmount>
      </ram:SpecifiedTradeSettlementHeaderMonetarySummation>
    </ram:ApplicableHeaderTradeSettlement>
  </rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>`
}

var natIDs = regexp.MustCompile(`^(DE|DK|GR|IS|IT|NL|NO|SE)-[RS]-`)

// natJudge validates a document under the Peppol BIS rule set and keeps the national rules.
func natJudge(t *testing.T, doc string) map[string]bisOutcome {
	t.Helper()
	out := bisJudge(t, doc)
	for id := range out {
		if !natIDs.MatchString(id) {
			delete(out, id)
		}
	}
	return out
}

// The Greek and Icelandic invoices carry what their national rules ask for.
const (
	natBuyerRef = "<cbc:BuyerReference>PO-4711</cbc:BuyerReference>"
	natGRID     = "123456783|02/06/2025|0|1.1|A|1"
	natGRDocs   = natBuyerRef + `
  <cac:AdditionalDocumentReference>
    <cbc:ID>400001234567</cbc:ID>
    <cbc:DocumentDescription>##M.AR.K##</cbc:DocumentDescription>
  </cac:AdditionalDocumentReference>
  <cac:AdditionalDocumentReference>
    <cbc:ID>1</cbc:ID>
    <cbc:DocumentDescription>##INVOICE|URL##</cbc:DocumentDescription>
    <cac:Attachment>
      <cac:ExternalReference>
        <cbc:URI>https://example.gr/invoice/1</cbc:URI>
      </cac:ExternalReference>
    </cac:Attachment>
  </cac:AdditionalDocumentReference>`
	natISDocs = natBuyerRef + `
  <cac:AdditionalDocumentReference>
    <cbc:ID>2025-07-10</cbc:ID>
    <cbc:DocumentDescription>EINDAGI</cbc:DocumentDescription>
  </cac:AdditionalDocumentReference>`
	natNLRepresentative = `  <cac:TaxRepresentativeParty>
    <cac:PartyName>
      <cbc:Name>NL representative</cbc:Name>
    </cac:PartyName>
    <cac:PostalAddress>
      <cbc:CityName>Amsterdam</cbc:CityName>
      <cbc:PostalZone>1011</cbc:PostalZone>
      <cac:Country>
        <cbc:IdentificationCode>NL</cbc:IdentificationCode>
      </cac:Country>
    </cac:PostalAddress>
    <cac:PartyTaxScheme>
      <cbc:CompanyID>NL111111111B01</cbc:CompanyID>
      <cac:TaxScheme>
        <cbc:ID>VAT</cbc:ID>
      </cac:TaxScheme>
    </cac:PartyTaxScheme>
  </cac:TaxRepresentativeParty>
`
	natSkonto = "<cac:PaymentTerms>\n    <cbc:Note>#SKONTO#TAGE=14#PROZENT=2.00#\n</cbc:Note>\n  </cac:PaymentTerms>\n  <cac:TaxTotal>"
)

func natGreekInvoice(t *testing.T) string {
	return bisEdit(t, natUBL("GR", "GR2"), "<cbc:ID>INV-1</cbc:ID>", "<cbc:ID>"+natGRID+"</cbc:ID>", natBuyerRef, natGRDocs)
}

func natIcelandicInvoice(t *testing.T) string {
	return bisEdit(t, natUBL("IS", "IS2"), natBuyerRef, natISDocs)
}

// TestNationalFixtures: each country's invoice passes its national rules (no failure, not
// even a warning) and they are checked on it, so that a case below that changes one thing
// sees the rule it is about react; an invoice between countries without national rules
// meets none.
func TestNationalFixtures(t *testing.T) {
	for _, c := range []struct {
		name, doc string
		checked   []string
	}{
		{"UBL NO", natUBL("NO", "BE"), []string{"NO-R-001", "NO-R-002"}},
		{"UBL DK", natUBL("DK", "DK2"), []string{"DK-R-002", "DK-R-003", "DK-R-005", "DK-R-006", "DK-R-007", "DK-R-008", "DK-R-009", "DK-R-010", "DK-R-011", "DK-R-013", "DK-R-014", "DK-R-016"}},
		{"UBL IT", natUBL("IT", "BE"), []string{"IT-R-001", "IT-R-002", "IT-R-003", "IT-R-004"}},
		{"UBL SE", natUBL("SE", "SE2"), []string{"SE-R-001", "SE-R-002", "SE-R-003", "SE-R-004", "SE-R-005", "SE-R-006", "SE-R-013"}},
		{"UBL GR", natGreekInvoice(t), []string{"GR-R-001-1", "GR-R-001-2", "GR-R-001-3", "GR-R-001-4", "GR-R-001-5", "GR-R-001-6", "GR-R-001-7", "GR-R-002", "GR-R-003", "GR-R-004-1", "GR-R-004-2", "GR-R-005", "GR-R-006", "GR-R-008-2", "GR-R-008-3", "GR-R-009", "GR-R-010", "GR-S-008-1", "GR-S-011"}},
		{"UBL IS", natIcelandicInvoice(t), []string{"IS-R-001", "IS-R-002", "IS-R-003", "IS-R-004", "IS-R-005", "IS-R-006", "IS-R-007", "IS-R-008", "IS-R-009", "IS-R-010"}},
		{"UBL NL", natUBL("NL", "NL2"), []string{"NL-R-002", "NL-R-003", "NL-R-004", "NL-R-005", "NL-R-007", "NL-R-008"}},
		{"UBL DE", natUBL("DE", "DE2"), []string{"DE-R-001", "DE-R-002", "DE-R-003", "DE-R-004", "DE-R-005", "DE-R-006", "DE-R-007", "DE-R-008", "DE-R-009", "DE-R-014", "DE-R-015", "DE-R-016", "DE-R-017", "DE-R-018", "DE-R-019", "DE-R-022", "DE-R-023-1", "DE-R-023-2", "DE-R-026", "DE-R-027", "DE-R-028", "DE-R-030", "DE-R-031"}},
		{"UBL BE", natUBL("BE", "AT"), nil},
		{"CII NO", natCII("NO", "BE"), []string{"NO-R-001", "NO-R-002"}},
		{"CII DK", natCII("DK", "DK2"), []string{"DK-R-002", "DK-R-003", "DK-R-004", "DK-R-005", "DK-R-006", "DK-R-007", "DK-R-008", "DK-R-013", "DK-R-014", "DK-R-016"}},
		{"CII IT", natCII("IT", "BE"), []string{"IT-R-001", "IT-R-002", "IT-R-003", "IT-R-004"}},
		{"CII SE", natCII("SE", "SE2"), []string{"SE-R-001", "SE-R-002", "SE-R-003", "SE-R-004", "SE-R-005", "SE-R-006", "SE-R-013"}},
		{"CII NL", natCII("NL", "NL2"), []string{"NL-R-002", "NL-R-003", "NL-R-004", "NL-R-005", "NL-R-007", "NL-R-008"}},
		{"CII BE", natCII("BE", "AT"), nil},
	} {
		got := natJudge(t, c.doc)
		for id, o := range got {
			if o.failed != "" {
				t.Errorf("%s: %s failed (%s)", c.name, id, o.failed)
			}
		}
		for _, id := range c.checked {
			if !got[id].passed {
				t.Errorf("%s: %s not checked", c.name, id)
			}
		}
		if c.checked == nil && len(got) > 0 {
			t.Errorf("%s: national rules applied to parties without any: %v", c.name, got)
		}
	}
}

// TestNationalRules: one change to a country's invoice makes a national rule fail, with
// Peppol's severity, or (want "") keeps it checked and passing.
func TestNationalRules(t *testing.T) {
	const (
		ublMeans = "<cbc:PaymentMeansCode>58</cbc:PaymentMeansCode>"
		ciiMeans = "<ram:TypeCode>58</ram:TypeCode>"
		percent  = "<cbc:Percent>25</cbc:Percent>"
		taxEnd   = "  <cac:TaxTotal>"
	)
	zzz := func(reason string) []string {
		return []string{taxEnd, "  <cac:AllowanceCharge>\n    <cbc:ChargeIndicator>true</cbc:ChargeIndicator>\n    <cbc:AllowanceChargeReasonCode>ZZZ</cbc:AllowanceChargeReasonCode>\n    <cbc:AllowanceChargeReason>" + reason + "</cbc:AllowanceChargeReason>\n    <cbc:Amount currencyID=\"EUR\">1.00</cbc:Amount>\n  </cac:AllowanceCharge>\n" + taxEnd}
	}
	giro := func(branch, account string) []string {
		return []string{ublMeans, "<cbc:PaymentMeansCode>30</cbc:PaymentMeansCode>", "<cbc:ID>BE68539007547034</cbc:ID>", "<cbc:ID>" + account + "</cbc:ID>\n      <cac:FinancialInstitutionBranch>\n        <cbc:ID>" + branch + "</cbc:ID>\n      </cac:FinancialInstitutionBranch>"}
	}
	directDebit := []string{ublMeans, "<cbc:PaymentMeansCode>59</cbc:PaymentMeansCode>", "    </cac:PayeeFinancialAccount>\n", "    </cac:PayeeFinancialAccount>\n    <cac:PaymentMandate>\n      <cbc:ID>M-1</cbc:ID>\n      <cac:PayerFinancialAccount>\n        <cbc:ID>DE00123</cbc:ID>\n      </cac:PayerFinancialAccount>\n    </cac:PaymentMandate>\n"}
	delivery := []string{"  <cac:PaymentMeans>", "  <cac:Delivery>\n    <cac:DeliveryLocation>\n      <cac:Address>\n        <cbc:PostalZone>10115</cbc:PostalZone>\n        <cac:Country>\n          <cbc:IdentificationCode>DE</cbc:IdentificationCode>\n        </cac:Country>\n      </cac:Address>\n    </cac:DeliveryLocation>\n  </cac:Delivery>\n  <cac:PaymentMeans>"}
	cases := []struct {
		name string
		doc  string
		edit []string
		id   string
		want Severity
	}{
		// Norway: the VAT identifier's MOD11 check digit, Foretaksregisteret.
		{"NO VAT with a wrong check digit", natUBL("NO", "BE"), []string{"NO314159268MVA", "NO314159267MVA"}, "NO-R-001", Fatal},
		{"NO VAT without MVA", natUBL("NO", "BE"), []string{"NO314159268MVA", "NO314159268"}, "NO-R-001", Fatal},
		// The rule applies to an identifier prefixed NO in capitals; the seller is Norwegian
		// whatever the case of the prefix.
		{"NO VAT prefixed in lower case", natUBL("NO", "BE"), []string{"NO314159268MVA", "no314159267"}, "NO-R-001", ""},
		{"NO no Foretaksregisteret", natUBL("NO", "BE"), []string{"<cbc:CompanyID>Foretaksregisteret</cbc:CompanyID>", "<cbc:CompanyID>Enhetsregisteret</cbc:CompanyID>"}, "NO-R-002", Warning},
		{"NO CII VAT with a wrong check digit", natCII("NO", "BE"), []string{"NO314159268MVA", "NO314159261MVA"}, "NO-R-001", Fatal},
		{"NO CII no Foretaksregisteret", natCII("NO", "BE"), []string{`schemeID="FC">Foretaksregisteret`, `schemeID="FC">Foretak`}, "NO-R-002", Warning},
		// Denmark.
		{"DK no CVR", natUBL("DK", "DK2"), []string{"<cbc:CompanyID schemeID=\"0184\">12345674</cbc:CompanyID>", ""}, "DK-R-002", Fatal},
		{"DK CVR in another scheme", natUBL("DK", "DK2"), []string{"<cbc:CompanyID schemeID=\"0184\">12345674</cbc:CompanyID>", "<cbc:CompanyID schemeID=\"0088\">12345674</cbc:CompanyID>"}, "DK-R-014", Fatal},
		{"DK payment means 30", natUBL("DK", "DK2"), []string{ublMeans, "<cbc:PaymentMeansCode>30</cbc:PaymentMeansCode>"}, "DK-R-005", Fatal},
		{"DK payment means 30 to a foreign buyer", natUBL("DK", "BE"), []string{ublMeans, "<cbc:PaymentMeansCode>30</cbc:PaymentMeansCode>"}, "DK-R-002", ""},
		{"DK payment means 31 without bank", natUBL("DK", "DK2"), []string{ublMeans, "<cbc:PaymentMeansCode>31</cbc:PaymentMeansCode>"}, "DK-R-006", Fatal},
		{"DK FIK without 71#", natUBL("DK", "DK2"), []string{ublMeans, "<cbc:PaymentMeansCode>93</cbc:PaymentMeansCode>"}, "DK-R-010", Fatal},
		{"DK party identifier without scheme", natUBL("DK", "DK2"), []string{"<cbc:ID schemeID=\"0184\">12345674</cbc:ID>", "<cbc:ID>12345674</cbc:ID>"}, "DK-R-013", Fatal},
		{"DK non-VAT tax without category", natUBL("DK", "DK2"), zzz("Afgift"), "DK-R-004", Fatal},
		{"DK non-VAT tax with category", natUBL("DK", "DK2"), zzz("1234"), "DK-R-004", ""},
		{"DK non-VAT tax with #", natUBL("DK", "DK2"), zzz("Afgift#12"), "DK-R-004", ""},
		{"DK non-VAT tax ending with #", natUBL("DK", "DK2"), zzz("Afgift#"), "DK-R-004", Fatal},
		{"DK negative credit note", natCreditNote(natUBL("DK", "DK2")), []string{`<cbc:PayableAmount currencyID="EUR">125.00`, `<cbc:PayableAmount currencyID="EUR">-125.00`}, "DK-R-016", Fatal},
		// As in the official CII rule, code 49 asks for a mandate below the payment means,
		// where CII has none: it always fails.
		{"DK CII direct debit", natCII("DK", "DK2"), []string{ciiMeans, "<ram:TypeCode>49</ram:TypeCode>"}, "DK-R-007", Fatal},
		{"DK CII CVR in another scheme", natCII("DK", "DK2"), []string{`schemeID="0184">12345674</ram:ID>`, `schemeID="0088">12345674</ram:ID>`}, "DK-R-014", Fatal},
		// Italy.
		{"IT tax identifier too short", natUBL("IT", "BE"), []string{"RSSMRA85T10A562S", "RSS85"}, "IT-R-001", Fatal},
		{"IT no city", natUBL("IT", "BE"), []string{"<cbc:CityName>Capital</cbc:CityName>", ""}, "IT-R-003", Fatal},
		{"IT CII tax identifier in lower case", natCII("IT", "BE"), []string{"RSSMRA85T10A562S", "rssmra85t10a562s"}, "IT-R-001", Fatal},
		{"IT CII no post code", natCII("IT", "BE"), []string{"<ram:PostcodeCode>1000</ram:PostcodeCode>", ""}, "IT-R-004", Fatal},
		// Sweden: the organisation number's Luhn check digit, rates, giro accounts.
		{"SE organisation number with a wrong check digit", natUBL("SE", "SE2"), []string{`schemeID="0007">5566778899</cbc:CompanyID>`, `schemeID="0007">5566778898</cbc:CompanyID>`}, "SE-R-013", Fatal},
		{"SE organisation number too long", natUBL("SE", "SE2"), []string{`schemeID="0007">5566778899</cbc:CompanyID>`, `schemeID="0007">55667788990</cbc:CompanyID>`}, "SE-R-004", Fatal},
		{"SE VAT too short", natUBL("SE", "SE2"), []string{"SE556677889901", "SE55667788990"}, "SE-R-001", Fatal},
		{"SE VAT not numeric", natUBL("SE", "SE2"), []string{"SE556677889901", "SE5566778899AB"}, "SE-R-002", Fatal},
		{"SE rate of 21 %", natUBL("SE", "SE2"), []string{percent, "<cbc:Percent>21</cbc:Percent>"}, "SE-R-006", Fatal},
		{"SE no F-skatt", natUBL("SE", "SE2"), []string{"Godkänd för F-skatt", "F-skatt"}, "SE-R-005", Fatal},
		{"SE F-skatt in capitals", natUBL("SE", "SE2"), []string{"Godkänd för F-skatt", "GODKÄND FÖR F-SKATT"}, "SE-R-005", ""},
		{"SE Bankgiro too short", natUBL("SE", "SE2"), giro("SE:BANKGIRO", "12345"), "SE-R-009", Warning},
		{"SE Bankgiro", natUBL("SE", "SE2"), giro("SE:BANKGIRO", "1234567"), "SE-R-009", ""},
		{"SE Plusgiro not numeric", natUBL("SE", "SE2"), giro("SE:PLUSGIRO", "12-34"), "SE-R-007", Warning},
		{"SE Bankgiro not numeric", natUBL("SE", "SE2"), giro("SE:BANKGIRO", "123-4567"), "SE-R-008", Warning},
		{"SE Plusgiro too long", natUBL("SE", "SE2"), giro("SE:PLUSGIRO", "123456789"), "SE-R-010", Warning},
		{"SE domestic credit transfer 31", natUBL("SE", "SE2"), []string{ublMeans, "<cbc:PaymentMeansCode>31</cbc:PaymentMeansCode>"}, "SE-R-012", Warning},
		{"SE CII organisation number with a wrong check digit", natCII("SE", "SE2"), []string{`schemeID="0007">5566778899</ram:ID>`, `schemeID="0007">5566778890</ram:ID>`}, "SE-R-013", Fatal},
		{"SE CII zero rate", natCII("SE", "SE2"), []string{"<ram:RateApplicablePercent>25</ram:RateApplicablePercent>", "<ram:RateApplicablePercent>0</ram:RateApplicablePercent>"}, "SE-R-006", Fatal},
		{"SE CII giro as code 50", natCII("SE", "SE2"), []string{ciiMeans, "<ram:TypeCode>50</ram:TypeCode>"}, "SE-R-011", Warning},
		// Greece: the invoice number's segments, the tax number's check digit, MARK.
		{"GR invoice number of one segment", natGreekInvoice(t), []string{natGRID, "INV-1"}, "GR-R-001-1", Fatal},
		{"GR invoice number of another tax number", natGreekInvoice(t), []string{natGRID, "998877666|02/06/2025|0|1.1|A|1"}, "GR-R-001-2", Fatal},
		{"GR invoice number of another date", natGreekInvoice(t), []string{natGRID, "123456783|03/06/2025|0|1.1|A|1"}, "GR-R-001-3", Fatal},
		{"GR invoice number with a negative serial", natGreekInvoice(t), []string{natGRID, "123456783|02/06/2025|-1|1.1|A|1"}, "GR-R-001-4", Fatal},
		{"GR invoice number of an unknown type", natGreekInvoice(t), []string{natGRID, "123456783|02/06/2025|0|9.9|A|1"}, "GR-R-001-5", Fatal},
		{"GR invoice number without series", natGreekInvoice(t), []string{natGRID, "123456783|02/06/2025|0|1.1||1"}, "GR-R-001-6", Fatal},
		{"GR VAT with a wrong check digit", natGreekInvoice(t), []string{"EL123456783", "EL123456784"}, "GR-R-003", Fatal},
		{"GR VAT prefixed GR", natGreekInvoice(t), []string{"EL123456783", "GR123456783"}, "GR-S-011", Warning},
		{"GR no seller name", natGreekInvoice(t), []string{"<cbc:Name>GR party</cbc:Name>", ""}, "GR-R-002", Fatal},
		{"GR no MARK", natGreekInvoice(t), []string{"##M.AR.K##", "MARK"}, "GR-R-004-1", Fatal},
		{"GR MARK not a number", natGreekInvoice(t), []string{"<cbc:ID>400001234567</cbc:ID>", "<cbc:ID>0400001234567</cbc:ID>"}, "GR-R-004-2", Fatal},
		{"GR no invoice URL", natGreekInvoice(t), []string{"##INVOICE|URL##", "URL"}, "GR-S-008-1", Warning},
		{"GR invoice URL without address", natGreekInvoice(t), []string{"<cbc:URI>https://example.gr/invoice/1</cbc:URI>", "<cbc:URI> </cbc:URI>"}, "GR-R-008-3", Fatal},
		{"GR electronic address in another scheme", natGreekInvoice(t), []string{`<cbc:EndpointID schemeID="9933">123456783`, `<cbc:EndpointID schemeID="0088">123456783`}, "GR-R-009", Fatal},
		{"GR buyer VAT with a wrong check digit", natGreekInvoice(t), []string{"EL998877666", "EL998877665"}, "GR-R-006", Fatal},
		{"GR buyer electronic address with a wrong check digit", natGreekInvoice(t), []string{`<cbc:EndpointID schemeID="9933">998877666`, `<cbc:EndpointID schemeID="9933">998877667`}, "GR-R-010", Fatal},
		// Iceland.
		{"IS type code 383", natIcelandicInvoice(t), []string{"<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>", "<cbc:InvoiceTypeCode>383</cbc:InvoiceTypeCode>"}, "IS-R-001", Warning},
		{"IS no kennitala", natIcelandicInvoice(t), []string{`<cbc:CompanyID schemeID="0196">5501692829</cbc:CompanyID>`, `<cbc:CompanyID schemeID="0088">5501692829</cbc:CompanyID>`}, "IS-R-002", Fatal},
		{"IS buyer without street", natIcelandicInvoice(t), []string{"<cbc:EndpointID schemeID=\"0196\">4710080280</cbc:EndpointID>", "<cbc:EndpointID schemeID=\"0196\">4710080280</cbc:EndpointID><!-- -->", "<cbc:StreetName>Main Street 1</cbc:StreetName>\n        <cbc:CityName>Capital</cbc:CityName>\n        <cbc:PostalZone>1000</cbc:PostalZone>\n        <cac:Country>\n          <cbc:IdentificationCode>IS</cbc:IdentificationCode>\n        </cac:Country>\n      </cac:PostalAddress>\n      <cac:PartyTaxScheme>\n        <cbc:CompanyID>IS654321", "<cbc:CityName>Capital</cbc:CityName>\n        <cbc:PostalZone>1000</cbc:PostalZone>\n        <cac:Country>\n          <cbc:IdentificationCode>IS</cbc:IdentificationCode>\n        </cac:Country>\n      </cac:PostalAddress>\n      <cac:PartyTaxScheme>\n        <cbc:CompanyID>IS654321"}, "IS-R-005", Fatal},
		{"IS account of 11 characters", natIcelandicInvoice(t), []string{ublMeans, "<cbc:PaymentMeansCode>42</cbc:PaymentMeansCode>", "BE68539007547034", "01266000123"}, "IS-R-007", Fatal},
		{"IS account of 12 characters", natIcelandicInvoice(t), []string{ublMeans, "<cbc:PaymentMeansCode>42</cbc:PaymentMeansCode>", "BE68539007547034", "012660001234"}, "IS-R-007", ""},
		{"IS final due date as d.m.y", natIcelandicInvoice(t), []string{"<cbc:ID>2025-07-10</cbc:ID>", "<cbc:ID>10.07.2025</cbc:ID>"}, "IS-R-008", Fatal},
		{"IS final due date not a date", natIcelandicInvoice(t), []string{"<cbc:ID>2025-07-10</cbc:ID>", "<cbc:ID>2025-02-30</cbc:ID>"}, "IS-R-008", Fatal},
		{"IS final due date without due date", natIcelandicInvoice(t), []string{"<cbc:DueDate>2025-07-02</cbc:DueDate>", ""}, "IS-R-009", Fatal},
		{"IS final due date before the due date", natIcelandicInvoice(t), []string{"<cbc:ID>2025-07-10</cbc:ID>", "<cbc:ID>2025-07-01</cbc:ID>"}, "IS-R-010", Fatal},
		// The Netherlands.
		{"NL credit note without invoice reference", natCreditNote(natUBL("NL", "NL2")), nil, "NL-R-001", Fatal},
		{"NL seller without street", natUBL("NL", "NL2"), []string{"<cbc:StreetName>Main Street 1</cbc:StreetName>", ""}, "NL-R-002", Fatal},
		{"NL legal identifier not KvK", natUBL("NL", "NL2"), []string{`<cbc:CompanyID schemeID="0106">12345678`, `<cbc:CompanyID schemeID="0088">12345678`}, "NL-R-003", Fatal},
		{"NL legal identifier OIN", natUBL("NL", "NL2"), []string{`<cbc:CompanyID schemeID="0106">12345678`, `<cbc:CompanyID schemeID="0190">12345678`}, "NL-R-003", ""},
		{"NL buyer legal identifier not KvK", natUBL("NL", "NL2"), []string{`<cbc:CompanyID schemeID="0106">87654321`, `<cbc:CompanyID schemeID="0088">87654321`}, "NL-R-005", Fatal},
		{"NL no payment means", natUBL("NL", "NL2"), []string{"<cac:PaymentMeans>", "<!--", "</cac:PaymentMeans>", "-->"}, "NL-R-007", Fatal},
		{"NL payment means 31", natUBL("NL", "NL2"), []string{ublMeans, "<cbc:PaymentMeansCode>31</cbc:PaymentMeansCode>"}, "NL-R-008", Fatal},
		{"NL tax representative without street", natUBL("NL", "NL2"), []string{"  <cac:PaymentMeans>", natNLRepresentative + "  <cac:PaymentMeans>"}, "NL-R-006", Fatal},
		{"NL order line without order", natUBL("NL", "NL2"), []string{"    <cac:Item>", "    <cac:OrderLineReference>\n      <cbc:LineID>3</cbc:LineID>\n    </cac:OrderLineReference>\n    <cac:Item>"}, "NL-R-009", Fatal},
		{"NL CII seller without street", natCII("NL", "NL2"), []string{"<ram:LineOne>Main Street 1</ram:LineOne>", ""}, "NL-R-002", Fatal},
		{"NL CII credit note without invoice reference", natCII("NL", "NL2"), []string{"<ram:TypeCode>380</ram:TypeCode>", "<ram:TypeCode>381</ram:TypeCode>"}, "NL-R-001", Fatal},
		{"NL CII no payment means", natCII("NL", "NL2"), []string{"<ram:SpecifiedTradeSettlementPaymentMeans>", "<!--", "</ram:SpecifiedTradeSettlementPaymentMeans>", "-->"}, "NL-R-007", Fatal},
		// Germany, between German parties.
		{"DE no payment means", natUBL("DE", "DE2"), []string{"<cac:PaymentMeans>", "<!--", "</cac:PaymentMeans>", "-->"}, "DE-R-001", Fatal},
		{"DE no buyer reference", natUBL("DE", "DE2"), []string{natBuyerRef, ""}, "DE-R-015", Fatal},
		{"DE cash discount", natUBL("DE", "DE2"), []string{"  <cac:TaxTotal>", natSkonto}, "DE-R-018", ""},
		{"DE cash discount without line break", natUBL("DE", "DE2"), []string{"  <cac:TaxTotal>", strings.Replace(natSkonto, "#\n</cbc:Note>", "#</cbc:Note>", 1)}, "DE-R-018", Fatal},
		{"DE cash discount with one decimal", natUBL("DE", "DE2"), []string{"  <cac:TaxTotal>", strings.Replace(natSkonto, "2.00", "2.0", 1)}, "DE-R-018", Fatal},
		{"DE invalid IBAN", natUBL("DE", "DE2"), []string{"BE68539007547034", "BE68539007547035"}, "DE-R-019", Warning},
		{"DE credit transfer without account", natUBL("DE", "DE2"), []string{"<cac:PayeeFinancialAccount>\n      <cbc:ID>BE68539007547034</cbc:ID>\n    </cac:PayeeFinancialAccount>", ""}, "DE-R-023-1", Fatal},
		{"DE card payment without card", natUBL("DE", "DE2"), []string{ublMeans, "<cbc:PaymentMeansCode>48</cbc:PaymentMeansCode>"}, "DE-R-024-1", Fatal},
		{"DE card payment with account", natUBL("DE", "DE2"), []string{ublMeans, "<cbc:PaymentMeansCode>48</cbc:PaymentMeansCode>"}, "DE-R-024-2", Fatal},
		{"DE direct debit with invalid IBAN", natUBL("DE", "DE2"), directDebit, "DE-R-020", Warning},
		{"DE direct debit", natUBL("DE", "DE2"), directDebit, "DE-R-025-1", ""},
		{"DE direct debit with credit transfer account", natUBL("DE", "DE2"), directDebit, "DE-R-025-2", Fatal},
		{"DE delivery address without city", natUBL("DE", "DE2"), delivery, "DE-R-010", Fatal},
		{"DE delivery address with post code", natUBL("DE", "DE2"), delivery, "DE-R-011", ""},
		{"DE telephone without digits", natUBL("DE", "DE2"), []string{"+49 30 1234567", "ask us"}, "DE-R-027", Warning},
		{"DE e-mail without domain", natUBL("DE", "DE2"), []string{"accounts@example.com", "accounts@example"}, "DE-R-028", Warning},
		{"DE no rate", natUBL("DE", "DE2"), []string{percent, ""}, "DE-R-014", Fatal},
		{"DE foreign buyer", natUBL("DE", "BE"), []string{"<cac:PaymentMeans>", "<!--", "</cac:PaymentMeans>", "-->"}, "DE-R-001", "none"},
	}
	for _, c := range cases {
		got := natJudge(t, bisEdit(t, c.doc, c.edit...))[c.id]
		switch c.want {
		case "none":
			if got.failed != "" || got.passed {
				t.Errorf("%s: %s applied (%+v), want it not to", c.name, c.id, got)
			}
		case "":
			if got.failed != "" || !got.passed {
				t.Errorf("%s: %s failed %q, checked %v; want it checked and passing", c.name, c.id, got.failed, got.passed)
			}
		default:
			if got.failed != c.want {
				t.Errorf("%s: %s failed %q, want %q", c.name, c.id, got.failed, c.want)
			}
		}
	}
}

// TestNationalChecksums: the check digit functions accept numbers whose check digits we
// computed by hand and refuse them with any other check digit or in another form.
func TestNationalChecksums(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(string) bool
		ok   []string
		bad  []string
	}{
		// MOD11, weights 2-7 from the right: 3·7+1·6+4·5+1·4+5·3+9·2+2·7+6·6 = 134,
		// 11 - 134 mod 11 = 8.
		{"natMod11", natMod11, []string{"314159268", "987654325", "123456785"}, []string{"314159267", "314159260", "000000000", "31415926X", "", "-314159268"}},
		// Luhn over the first nine digits: 5566778899 and 2021005562.
		{"natSEOrgnr", natSEOrgnr, []string{"5566778899", "2021005562", "9876543217", "55667788990"}, []string{"5566778898", "556677889", "55667788-9", "556677889X", ""}},
		// The first eight digits weighted 256 … 2: 1004 mod 11 mod 10 = 3.
		{"natGreekTIN", natGreekTIN, []string{"123456783", "061828591", "998877666", "1234567830"}, []string{"123456784", "12345678", "EL1234567", "12345678 ", ""}},
	} {
		for _, v := range c.ok {
			if !c.f(v) {
				t.Errorf("%s(%q) = false, want true", c.name, v)
			}
		}
		for _, v := range c.bad {
			if c.f(v) {
				t.Errorf("%s(%q) = true, want false", c.name, v)
			}
		}
	}
}

// TestNationalXPath: the helpers give XPath's answers, which the national rules rely on.
func TestNationalXPath(t *testing.T) {
	if got := natSubstring("NO123MVA", 3, 3); got != "123" {
		t.Errorf("substring('NO123MVA', 3, 3) = %q", got)
	}
	if got := natSubstring("04#1234", 0, 4); got != "04#" {
		t.Errorf("substring('04#1234', 0, 4) = %q", got)
	}
	if got := natFrom("ELÄ12", 3); got != "Ä12" {
		t.Errorf("substring('ELÄ12', 3) = %q", got)
	}
	if got := natLen("Godkänd"); got != 7 {
		t.Errorf("string-length('Godkänd') = %d", got)
	}
	for s, want := range map[string]bool{"12": true, " 12 ": true, "1.5e3": true, "-0": true, ".5": true, "INF": true, "12a": false, "": false, "1 2": false, "0x10": false, "Inf": false} {
		if natIsNumber(s) != want {
			t.Errorf("number(%q) is a number: %v, want %v", s, !want, want)
		}
	}
	if got := natTokenize("a|b|", natGRSegments); len(got) != 3 || got[2] != "" {
		t.Errorf("tokenize('a|b|', '\\|') = %q", got)
	}
	if got := natTokenize("", natGRSegments); got != nil {
		t.Errorf("tokenize('', '\\|') = %q, want the empty sequence", got)
	}
}
