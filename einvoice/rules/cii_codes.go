package rules

// ciiCodes checks the code lists of EN 16931 in CII documents.
func ciiCodes() pattern {
	return pattern{
		{at("rsm:ExchangedDocument/ram:TypeCode"), []assert{
			a("BR-CL-01", Fatal, "The invoice type code (BT-3) must be an invoice or credit note code of UNTDID 1001.", code(untdid1001CII)),
		}},
		{atIf(hasAttr("currencyID"), "ram:TaxTotalAmount"), []assert{
			a("BR-CL-03", Fatal, "The currency of an amount (currencyID) must be an ISO 4217 alpha-3 code.", attrCode("currencyID", iso4217)),
		}},
		{at("ram:InvoiceCurrencyCode"), []assert{
			a("BR-CL-04", Fatal, "The invoice currency code (BT-5) must be an ISO 4217 alpha-3 code.", code(iso4217)),
		}},
		{at("ram:TaxCurrencyCode"), []assert{
			a("BR-CL-05", Fatal, "The VAT accounting currency code (BT-6) must be an ISO 4217 alpha-3 code.", code(iso4217)),
		}},
		{at("ram:DueDateTypeCode"), []assert{
			a("BR-CL-06", Fatal, "The VAT point date code (BT-8) must be 5, 29 or 72 (UNTDID 2475).", code(untdid2475)),
		}},
		{at("ram:ReferenceTypeCode"), []assert{
			a("BR-CL-07", Fatal, "The scheme of an invoiced object identifier (BT-18) must be from UNTDID 1153.", code(untdid1153)),
		}},
		{at("ram:SubjectCode"), []assert{
			a("BR-CL-08", Fatal, "An invoice note subject code (BT-22) must be from UNTDID 4451.", code(untdid4451CII)),
		}},
		{atIf(both(hasAttr("schemeID"), notUnder("ram:SpecifiedTradeProduct", "ram:ShipToTradeParty")), "//ram:GlobalID"), []assert{
			a("BR-CL-10", Fatal, "The scheme of a global identifier must be from ISO 6523 ICD.", attrCode("schemeID", icd)),
		}},
		{atIf(both(hasAttr("schemeID"), notUnder("ram:SpecifiedTaxRegistration")), "ram:ID"), []assert{
			a("BR-CL-11", Fatal, "The scheme of an identifier must be from ISO 6523 ICD.", attrCode("schemeID", icd)),
		}},
		{atIf(hasAttr("listID"), "ram:ClassCode"), []assert{
			a("BR-CL-13", Fatal, "The scheme of an item classification identifier (BT-158) must be from UNTDID 7143.", attrCode("listID", untdid7143)),
		}},
		{at("ram:CountryID"), []assert{
			a("BR-CL-14", Fatal, "A country code must be ISO 3166-1 alpha-2.", code(iso3166)),
		}},
		{at("ram:OriginTradeCountry/ram:ID"), []assert{
			a("BR-CL-15", Fatal, "The item country of origin (BT-159) must be ISO 3166-1 alpha-2.", code(iso3166)),
		}},
		{at("ram:SpecifiedTradeSettlementPaymentMeans/ram:TypeCode"), []assert{
			a("BR-CL-16", Fatal, "The payment means code (BT-81) must be from UNTDID 4461.", code(untdid4461)),
		}},
		{at("ram:CategoryTradeTax/ram:CategoryCode"), []assert{
			a("BR-CL-17", Fatal, "A VAT category code must be from the UNTDID 5305 subset of EN 16931.", code(untdid5305)),
		}},
		{at("ram:ApplicableTradeTax/ram:CategoryCode"), []assert{
			a("BR-CL-18", Fatal, "A VAT category code must be from the UNTDID 5305 subset of EN 16931.", code(untdid5305)),
		}},
		{atIf(parentIs(acIs(false)), "ram:SpecifiedTradeAllowanceCharge/ram:ReasonCode"), []assert{
			a("BR-CL-19", Fatal, "An allowance reason code must be from UNTDID 5189.", code(untdid5189)),
		}},
		{atIf(parentIs(acIs(true)), "ram:SpecifiedTradeAllowanceCharge/ram:ReasonCode"), []assert{
			a("BR-CL-20", Fatal, "A charge reason code must be from UNTDID 7161.", code(untdid7161)),
		}},
		{atIf(hasAttr("schemeID"), "ram:SpecifiedTradeProduct/ram:GlobalID"), []assert{
			a("BR-CL-21", Fatal, "The scheme of an item standard identifier (BT-157) must be from ISO 6523 ICD.", attrCode("schemeID", icd)),
		}},
		{at("ram:ExemptionReasonCode"), []assert{
			a("BR-CL-22", Fatal, "A VAT exemption reason code (BT-121) must be from the VATEX list.", func(n *N) bool {
				v := n.Val()
				return !containsSpace(v) && vatex[upper(v)]
			}),
		}},
		{atIf(hasAttr("unitCode"), "ram:BasisQuantity", "ram:BilledQuantity"), []assert{
			a("BR-CL-23", Fatal, "A unit of measure must be from UN/ECE Recommendations 20 and 21.", attrCode("unitCode", rec20)),
		}},
		{atIf(hasAttr("mimeCode"), "ram:AttachmentBinaryObject"), []assert{
			a("BR-CL-24", Fatal, "An attached document (BT-125) must be PDF, PNG, JPEG, CSV, XLSX or ODS.", func(n *N) bool { return mime[rawAttr(n, "mimeCode")] }),
		}},
		{atIf(hasAttr("schemeID"), "ram:URIUniversalCommunication/ram:URIID"), []assert{
			a("BR-CL-25", Fatal, "The scheme of an electronic address must be from the CEF EAS list.", attrCode("schemeID", eas)),
		}},
		{atIf(hasAttr("schemeID"), "ram:ApplicableHeaderTradeDelivery/ram:ShipToTradeParty/ram:GlobalID"), []assert{
			a("BR-CL-26", Fatal, "The scheme of a deliver-to location identifier (BT-71) must be from ISO 6523 ICD.", attrCode("schemeID", icd)),
		}},
	}
}
