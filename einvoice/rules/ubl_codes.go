package rules

import "strings"

// code tests the element's normalised text against a list.
func code(list *codes) func(*N) bool {
	return func(n *N) bool { return inList(list, n.Val()) }
}

// attrCode tests an attribute's normalised value against a list.
func attrCode(attr string, list *codes) func(*N) bool {
	return func(n *N) bool { v, _ := n.AttrVal(attr); return inList(list, v) }
}

// ublCodes checks the code lists of EN 16931 in UBL documents.
func ublCodes() pattern {
	docRef130 := func(n *N) bool {
		return hasRawAttr(n, "schemeID") && n.parent != nil && anyText(n.parent.All("cbc:DocumentTypeCode"), "130")
	}
	return pattern{
		{at("cbc:InvoiceTypeCode", "cbc:CreditNoteTypeCode"), []assert{
			a("BR-CL-01", func(n *N) bool {
				if n.Is("cbc:InvoiceTypeCode") {
					return inList(untdid1001Invoice, n.Val())
				}
				return inList(untdid1001Credit, n.Val())
			}),
		}},
		{at("cbc:Amount", "cbc:BaseAmount", "cbc:PriceAmount", "cbc:TaxAmount", "cbc:TaxableAmount", "cbc:LineExtensionAmount", "cbc:TaxExclusiveAmount",
			"cbc:TaxInclusiveAmount", "cbc:AllowanceTotalAmount", "cbc:ChargeTotalAmount", "cbc:PrepaidAmount", "cbc:PayableRoundingAmount", "cbc:PayableAmount"), []assert{
			a("BR-CL-03", attrCode("currencyID", iso4217)),
		}},
		{at("cbc:DocumentCurrencyCode"), []assert{
			a("BR-CL-04", code(iso4217)),
		}},
		{at("cbc:TaxCurrencyCode"), []assert{
			a("BR-CL-05", code(iso4217)),
		}},
		{at("cac:InvoicePeriod/cbc:DescriptionCode"), []assert{
			a("BR-CL-06", code(untdid2005)),
		}},
		{atIf(docRef130, "cac:AdditionalDocumentReference/cbc:ID", "cac:DocumentReference/cbc:ID"), []assert{
			a("BR-CL-07", attrCode("schemeID", untdid1153)),
		}},
		{atIf(hasAttr("schemeID"), "cac:PartyIdentification/cbc:ID"), []assert{
			a("BR-CL-10", func(n *N) bool {
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
			a("BR-CL-11", attrCode("schemeID", icd)),
		}},
		{atIf(hasAttr("listID"), "cac:CommodityClassification/cbc:ItemClassificationCode"), []assert{
			a("BR-CL-13", attrCode("listID", untdid7143)),
		}},
		{at("cac:Country/cbc:IdentificationCode"), []assert{
			a("BR-CL-14", code(iso3166)),
		}},
		{at("cac:OriginCountry/cbc:IdentificationCode"), []assert{
			a("BR-CL-15", code(iso3166)),
		}},
		{at("cac:PaymentMeans/cbc:PaymentMeansCode"), []assert{
			a("BR-CL-16", code(untdid4461)),
		}},
		{at("cac:TaxCategory/cbc:ID"), []assert{
			a("BR-CL-17", code(untdid5305)),
		}},
		{at("cac:ClassifiedTaxCategory/cbc:ID"), []assert{
			a("BR-CL-18", code(untdid5305)),
		}},
		{atIf(parentIs(charge(false)), "cac:AllowanceCharge/cbc:AllowanceChargeReasonCode"), []assert{
			a("BR-CL-19", code(untdid5189)),
		}},
		{atIf(parentIs(charge(true)), "cac:AllowanceCharge/cbc:AllowanceChargeReasonCode"), []assert{
			a("BR-CL-20", code(untdid7161)),
		}},
		{atIf(hasAttr("schemeID"), "cac:StandardItemIdentification/cbc:ID"), []assert{
			a("BR-CL-21", attrCode("schemeID", icd)),
		}},
		{at("cbc:TaxExemptionReasonCode"), []assert{
			a("BR-CL-22", func(n *N) bool {
				v := n.Val()
				return !strings.Contains(v, " ") && vatex.has(strings.ToUpper(v))
			}),
		}},
		{atIf(hasAttr("unitCode"), "cbc:InvoicedQuantity", "cbc:BaseQuantity", "cbc:CreditedQuantity"), []assert{
			a("BR-CL-23", attrCode("unitCode", rec20)),
		}},
		{atIf(hasAttr("mimeCode"), "cbc:EmbeddedDocumentBinaryObject"), []assert{
			a("BR-CL-24", func(n *N) bool { return mime.has(rawAttr(n, "mimeCode")) }),
		}},
		{atIf(hasAttr("schemeID"), "cbc:EndpointID"), []assert{
			a("BR-CL-25", attrCode("schemeID", eas)),
		}},
		{atIf(hasAttr("schemeID"), "cac:DeliveryLocation/cbc:ID"), []assert{
			a("BR-CL-26", attrCode("schemeID", icd)),
		}},
	}
}
