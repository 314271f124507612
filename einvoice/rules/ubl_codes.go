package rules

import "strings"

// code tests the element's normalised text against a list.
func code(list map[string]bool) func(*N) bool {
	return func(n *N) bool { return inList(list, n.Val()) }
}

// attrCode tests an attribute's normalised value against a list.
func attrCode(attr string, list map[string]bool) func(*N) bool {
	return func(n *N) bool { v, _ := n.AttrVal(attr); return inList(list, v) }
}

// ublCodes checks the code lists of EN 16931 in UBL documents.
func ublCodes() pattern {
	docRef130 := func(n *N) bool {
		return hasRawAttr(n, "schemeID") && n.parent != nil && anyText(n.parent.All("cbc:DocumentTypeCode"), "130")
	}
	return pattern{
		{at("cbc:InvoiceTypeCode", "cbc:CreditNoteTypeCode"), []assert{
			a("BR-CL-01", Fatal, "The invoice type code (BT-3) must be an invoice or credit note code of UNTDID 1001.", func(n *N) bool {
				if n.Is("cbc:InvoiceTypeCode") {
					return inList(untdid1001Invoice, n.Val())
				}
				return inList(untdid1001Credit, n.Val())
			}),
		}},
		{at("cbc:Amount", "cbc:BaseAmount", "cbc:PriceAmount", "cbc:TaxAmount", "cbc:TaxableAmount", "cbc:LineExtensionAmount", "cbc:TaxExclusiveAmount",
			"cbc:TaxInclusiveAmount", "cbc:AllowanceTotalAmount", "cbc:ChargeTotalAmount", "cbc:PrepaidAmount", "cbc:PayableRoundingAmount", "cbc:PayableAmount"), []assert{
			a("BR-CL-03", Fatal, "The currency of an amount (currencyID) must be an ISO 4217 alpha-3 code.", attrCode("currencyID", iso4217)),
		}},
		{at("cbc:DocumentCurrencyCode"), []assert{
			a("BR-CL-04", Fatal, "The invoice currency code (BT-5) must be an ISO 4217 alpha-3 code.", code(iso4217)),
		}},
		{at("cbc:TaxCurrencyCode"), []assert{
			a("BR-CL-05", Fatal, "The VAT accounting currency code (BT-6) must be an ISO 4217 alpha-3 code.", code(iso4217)),
		}},
		{at("cac:InvoicePeriod/cbc:DescriptionCode"), []assert{
			a("BR-CL-06", Fatal, "The VAT point date code (BT-8) must be 3, 35 or 432 (UNTDID 2005).", code(untdid2005)),
		}},
		{atIf(docRef130, "cac:AdditionalDocumentReference/cbc:ID", "cac:DocumentReference/cbc:ID"), []assert{
			a("BR-CL-07", Fatal, "The scheme of an invoiced object identifier (BT-18) must be from UNTDID 1153.", attrCode("schemeID", untdid1153)),
		}},
		{atIf(hasAttr("schemeID"), "cac:PartyIdentification/cbc:ID"), []assert{
			a("BR-CL-10", Fatal, "The scheme of a party identifier must be from ISO 6523 ICD (SEPA only for the seller or payee).", func(n *N) bool {
				if attrCode("schemeID", icd)(n) {
					return true
				}
				if !attrCode("schemeID", icdSupplier)(n) {
					return false
				}
				return n.Under("cac:AccountingSupplierParty", "cac:PayeeParty")
			}),
		}},
		{atIf(hasAttr("schemeID"), "cac:PartyLegalEntity/cbc:CompanyID"), []assert{
			a("BR-CL-11", Fatal, "The scheme of a legal registration identifier must be from ISO 6523 ICD.", attrCode("schemeID", icd)),
		}},
		{atIf(hasAttr("listID"), "cac:CommodityClassification/cbc:ItemClassificationCode"), []assert{
			a("BR-CL-13", Fatal, "The scheme of an item classification identifier (BT-158) must be from UNTDID 7143.", attrCode("listID", untdid7143)),
		}},
		{at("cac:Country/cbc:IdentificationCode"), []assert{
			a("BR-CL-14", Fatal, "A country code must be ISO 3166-1 alpha-2.", code(iso3166)),
		}},
		{at("cac:OriginCountry/cbc:IdentificationCode"), []assert{
			a("BR-CL-15", Fatal, "The item country of origin (BT-159) must be ISO 3166-1 alpha-2.", code(iso3166)),
		}},
		{at("cac:PaymentMeans/cbc:PaymentMeansCode"), []assert{
			a("BR-CL-16", Fatal, "The payment means code (BT-81) must be from UNTDID 4461.", code(untdid4461)),
		}},
		{at("cac:TaxCategory/cbc:ID"), []assert{
			a("BR-CL-17", Fatal, "A VAT category code must be from the UNTDID 5305 subset of EN 16931.", code(untdid5305)),
		}},
		{at("cac:ClassifiedTaxCategory/cbc:ID"), []assert{
			a("BR-CL-18", Fatal, "The invoiced item VAT category code (BT-151) must be from the UNTDID 5305 subset of EN 16931.", code(untdid5305)),
		}},
		{atIf(parentIs(charge(false)), "cac:AllowanceCharge/cbc:AllowanceChargeReasonCode"), []assert{
			a("BR-CL-19", Fatal, "An allowance reason code must be from UNTDID 5189.", code(untdid5189)),
		}},
		{atIf(parentIs(charge(true)), "cac:AllowanceCharge/cbc:AllowanceChargeReasonCode"), []assert{
			a("BR-CL-20", Fatal, "A charge reason code must be from UNTDID 7161.", code(untdid7161)),
		}},
		{atIf(hasAttr("schemeID"), "cac:StandardItemIdentification/cbc:ID"), []assert{
			a("BR-CL-21", Fatal, "The scheme of an item standard identifier (BT-157) must be from ISO 6523 ICD.", attrCode("schemeID", icd)),
		}},
		{at("cbc:TaxExemptionReasonCode"), []assert{
			a("BR-CL-22", Fatal, "A VAT exemption reason code (BT-121) must be from the VATEX list.", func(n *N) bool {
				v := n.Val()
				return !strings.Contains(v, " ") && vatex[strings.ToUpper(v)]
			}),
		}},
		{atIf(hasAttr("unitCode"), "cbc:InvoicedQuantity", "cbc:BaseQuantity", "cbc:CreditedQuantity"), []assert{
			a("BR-CL-23", Fatal, "A unit of measure must be from UN/ECE Recommendations 20 and 21.", attrCode("unitCode", rec20)),
		}},
		{atIf(hasAttr("mimeCode"), "cbc:EmbeddedDocumentBinaryObject"), []assert{
			a("BR-CL-24", Fatal, "An attached document (BT-125) must be PDF, PNG, JPEG, CSV, XLSX or ODS.", func(n *N) bool { return mime[rawAttr(n, "mimeCode")] }),
		}},
		{atIf(hasAttr("schemeID"), "cbc:EndpointID"), []assert{
			a("BR-CL-25", Fatal, "The scheme of an electronic address must be from the CEF EAS list.", attrCode("schemeID", eas)),
		}},
		{atIf(hasAttr("schemeID"), "cac:DeliveryLocation/cbc:ID"), []assert{
			a("BR-CL-26", Fatal, "The scheme of a deliver-to location identifier (BT-71) must be from ISO 6523 ICD.", attrCode("schemeID", icd)),
		}},
	}
}
