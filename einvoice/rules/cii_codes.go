package rules

// ciiCodes checks the code lists of EN 16931 in CII documents.
func ciiCodes() pattern {
	return pattern{
		{at("rsm:ExchangedDocument/ram:TypeCode"), []assert{
			a("BR-CL-01", code(untdid1001CII)),
		}},
		{atIf(hasAttr("currencyID"), "ram:TaxTotalAmount"), []assert{
			a("BR-CL-03", attrCode("currencyID", iso4217)),
		}},
		{at("ram:InvoiceCurrencyCode"), []assert{
			a("BR-CL-04", code(iso4217)),
		}},
		{at("ram:TaxCurrencyCode"), []assert{
			a("BR-CL-05", code(iso4217)),
		}},
		{at("ram:DueDateTypeCode"), []assert{
			a("BR-CL-06", code(untdid2475)),
		}},
		{at("ram:ReferenceTypeCode"), []assert{
			a("BR-CL-07", code(untdid1153)),
		}},
		{at("ram:SubjectCode"), []assert{
			a("BR-CL-08", code(untdid4451CII)),
		}},
		{atIf(both(hasAttr("schemeID"), notUnder("ram:SpecifiedTradeProduct", "ram:ShipToTradeParty")), "//ram:GlobalID"), []assert{
			a("BR-CL-10", attrCode("schemeID", icd)),
		}},
		{atIf(both(hasAttr("schemeID"), notUnder("ram:SpecifiedTaxRegistration")), "ram:ID"), []assert{
			a("BR-CL-11", attrCode("schemeID", icd)),
		}},
		{atIf(hasAttr("listID"), "ram:ClassCode"), []assert{
			a("BR-CL-13", attrCode("listID", untdid7143)),
		}},
		{at("ram:CountryID"), []assert{
			a("BR-CL-14", code(iso3166CII)),
		}},
		{at("ram:OriginTradeCountry/ram:ID"), []assert{
			a("BR-CL-15", code(iso3166CII)),
		}},
		{at("ram:SpecifiedTradeSettlementPaymentMeans/ram:TypeCode"), []assert{
			a("BR-CL-16", code(untdid4461)),
		}},
		{at("ram:CategoryTradeTax/ram:CategoryCode"), []assert{
			a("BR-CL-17", code(untdid5305)),
		}},
		{at("ram:ApplicableTradeTax/ram:CategoryCode"), []assert{
			a("BR-CL-18", code(untdid5305)),
		}},
		{atIf(parentIs(acIs(false)), "ram:SpecifiedTradeAllowanceCharge/ram:ReasonCode"), []assert{
			a("BR-CL-19", code(untdid5189)),
		}},
		{atIf(parentIs(acIs(true)), "ram:SpecifiedTradeAllowanceCharge/ram:ReasonCode"), []assert{
			a("BR-CL-20", code(untdid7161)),
		}},
		{atIf(hasAttr("schemeID"), "ram:SpecifiedTradeProduct/ram:GlobalID"), []assert{
			a("BR-CL-21", attrCode("schemeID", icd)),
		}},
		{at("ram:ExemptionReasonCode"), []assert{
			a("BR-CL-22", func(n *N) bool {
				v := n.Val()
				return !containsSpace(v) && vatex.has(upper(v))
			}),
		}},
		{atIf(hasAttr("unitCode"), "ram:BasisQuantity", "ram:BilledQuantity"), []assert{
			a("BR-CL-23", attrCode("unitCode", rec20)),
		}},
		{atIf(hasAttr("mimeCode"), "ram:AttachmentBinaryObject"), []assert{
			a("BR-CL-24", func(n *N) bool { return mime.has(rawAttr(n, "mimeCode")) }),
		}},
		{atIf(hasAttr("schemeID"), "ram:URIUniversalCommunication/ram:URIID"), []assert{
			a("BR-CL-25", attrCode("schemeID", eas)),
		}},
		{atIf(hasAttr("schemeID"), "ram:ApplicableHeaderTradeDelivery/ram:ShipToTradeParty/ram:GlobalID"), []assert{
			a("BR-CL-26", attrCode("schemeID", icd)),
		}},
	}
}
