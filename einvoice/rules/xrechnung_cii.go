package rules

import "strings"

// xrCII is the XRechnung 3.0 CIUS on CII, with its extension and CVD patterns.
func xrCII(guideline string) []pattern {
	g := strings.TrimSpace(guideline)
	ext, cvd := g == xrExtension, g == xrCVD
	const (
		root = "/rsm:CrossIndustryInvoice/"
		st   = ciiSettlement
	)
	vatCodes := codeSet("S Z E AE K G L M")
	typeCodes := codeSet("326 380 384 389 381 875 876 877")
	// BG-19, direct debit: mandate reference (BT-89), creditor id (BT-90), debited account (BT-91).
	bt89 := func(n *N) bool { return n.Has(root + st + "/ram:SpecifiedTradePaymentTerms/ram:DirectDebitMandateID") }
	bt90 := func(n *N) bool { return n.Has(root + st + "/ram:CreditorReferenceID") }
	bt91 := func(n *N) bool {
		return n.Has(root + st + "/ram:SpecifiedTradeSettlementPaymentMeans/ram:PayerPartyDebtorFinancialAccount/ram:IBANID")
	}
	meansIn := func(codes ...string) func(*N) bool {
		set := codeSet(strings.Join(codes, " "))
		return func(pm *N) bool { return Any(pm.All("ram:TypeCode"), func(c *N) bool { return set.has(c.Val()) }) }
	}
	debit := func(pm *N) bool {
		return pm.Has(root+st+"/ram:SpecifiedTradePaymentTerms/ram:DirectDebitMandateID") || pm.Has(root+st+"/ram:CreditorReferenceID") || pm.Has("ram:PayerPartyDebtorFinancialAccount/ram:IBANID")
	}
	main := pattern{
		{at("/rsm:CrossIndustryInvoice"), []assert{
			a("BR-DE-30", func(n *N) bool {
				return ((bt89(n) || bt91(n)) && bt90(n)) || (!bt89(n) && !bt90(n) && !bt91(n))
			}),
			a("BR-DE-31", func(n *N) bool {
				return ((bt89(n) || bt90(n)) && bt91(n)) || (!bt89(n) && !bt90(n) && !bt91(n))
			}),
			a("BR-DE-1", has(ciiSettlement+"/ram:SpecifiedTradeSettlementPaymentMeans")),
			a("BR-DE-15", func(n *N) bool { return !blank(n, ciiAgreement+"/ram:BuyerReference") }),
			a("BR-DE-16", func(n *N) bool {
				lineTaxes := n.All(ciiTx + "/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax")
				used := anyText(flatten(lineTaxes, "ram:TypeCode"), "VAT") && Any(flatten(lineTaxes, "ram:CategoryCode"), func(c *N) bool { return vatCodes.has(c.Text) })
				acTaxes := n.All(ciiSettlement + "/ram:SpecifiedTradeAllowanceCharge/ram:CategoryTradeTax")
				// The official test compares the CategoryTradeTax element's own text with
				// 'VAT', which never holds; allowances and charges do not count.
				_ = acTaxes
				if !used {
					return true
				}
				ids := Where(n.All(ciiAgreement+"/ram:SellerTradeParty/ram:SpecifiedTaxRegistration/ram:ID"), func(id *N) bool {
					s, _ := id.AttrVal("schemeID")
					return (s == "VA" || s == "FC") && id.Val() != ""
				})
				return len(ids) > 0 || n.Has(ciiAgreement+"/ram:SellerTaxRepresentativeTradeParty")
			}),
			a("BR-DE-17", func(n *N) bool { return typeCodes.has(n.Str("rsm:ExchangedDocument/ram:TypeCode")) }),
			a("BR-DE-18", func(n *N) bool {
				d := n.One(ciiSettlement + "/ram:SpecifiedTradePaymentTerms/ram:Description")
				return d == nil || skontoOK(d.RawText())
			}),
			a("BR-DE-22", func(n *N) bool {
				return filenamesUnique(n.All("//ram:AdditionalReferencedDocument"), "ram:AttachmentBinaryObject")
			}),
			a("BR-DE-26", func(n *N) bool {
				return n.Str("rsm:ExchangedDocument/ram:TypeCode") != "384" || n.Has(ciiSettlement+"/ram:InvoiceReferencedDocument")
			}),
		}},
		{at("/rsm:CrossIndustryInvoice/rsm:ExchangedDocumentContext"), []assert{
			a("BR-DE-21", func(n *N) bool {
				return Any(n.All("ram:GuidelineSpecifiedDocumentContextParameter/ram:ID"), func(c *N) bool { return c.Text == xrCIUS || c.Text == xrExtension || c.Text == xrCVD })
			}),
		}},
		{at(root + ciiAgreement + "/ram:SellerTradeParty"), []assert{
			a("BR-DE-2", has("ram:DefinedTradeContact")),
		}},
		{at(root + ciiAgreement + "/ram:SellerTradeParty/ram:PostalTradeAddress"), []assert{
			a("BR-DE-3", func(n *N) bool { return !blank(n, "ram:CityName") }),
			a("BR-DE-4", func(n *N) bool { return !blank(n, "ram:PostcodeCode") }),
		}},
		{at(root + ciiAgreement + "/ram:SellerTradeParty/ram:DefinedTradeContact"), []assert{
			a("BR-DE-5", func(n *N) bool { return !blank(n, "ram:PersonName") || !blank(n, "ram:DepartmentName") }),
			a("BR-DE-6", func(n *N) bool { return !blank(n, "ram:TelephoneUniversalCommunication/ram:CompleteNumber") }),
			a("BR-DE-7", func(n *N) bool { return !blank(n, "ram:EmailURIUniversalCommunication/ram:URIID") }),
			a("BR-DE-27", func(n *N) bool {
				return telephone.MatchString(n.Str("ram:TelephoneUniversalCommunication/ram:CompleteNumber"))
			}),
			a("BR-DE-28", func(n *N) bool {
				return email.MatchString(n.Str("ram:EmailURIUniversalCommunication/ram:URIID"))
			}),
		}},
		{at(root + ciiAgreement + "/ram:BuyerTradeParty/ram:PostalTradeAddress"), []assert{
			a("BR-DE-8", func(n *N) bool { return !blank(n, "ram:CityName") }),
			a("BR-DE-9", func(n *N) bool { return !blank(n, "ram:PostcodeCode") }),
		}},
		{atIf(func(n *N) bool { return anyText(n.All("ram:TypeCode"), "916") }, root+ciiAgreement+"/ram:AdditionalReferencedDocument"), []assert{
			a("BR-TMP-2", func(n *N) bool {
				return !n.Has("ram:URIID") || Any(n.All("ram:URIID"), func(u *N) bool { return uri.MatchString(u.Text) })
			}),
		}},
		{at(root + ciiDelivery + "/ram:ShipToTradeParty/ram:PostalTradeAddress"), []assert{
			a("BR-DE-10", func(n *N) bool { return !blank(n, "ram:CityName") }),
			a("BR-DE-11", func(n *N) bool { return !blank(n, "ram:PostcodeCode") }),
		}},
		{atIf(meansIn("30", "58"), root+st+"/ram:SpecifiedTradeSettlementPaymentMeans"), []assert{
			a("BR-DE-19", func(n *N) bool {
				return n.Str("ram:TypeCode") != "58" || ibanOK(textOf(n.One("ram:PayeePartyCreditorFinancialAccount/ram:IBANID")))
			}),
			a("BR-DE-23-a", has("ram:PayeePartyCreditorFinancialAccount")),
			a("BR-DE-23-b", func(n *N) bool {
				return !n.Has("ram:ApplicableTradeSettlementFinancialCard") && !debit(n)
			}),
		}},
		{atIf(meansIn("48", "54", "55"), root+st+"/ram:SpecifiedTradeSettlementPaymentMeans"), []assert{
			a("BR-DE-24-a", has("ram:ApplicableTradeSettlementFinancialCard")),
			a("BR-DE-24-b", func(n *N) bool {
				return !n.Has("ram:PayeePartyCreditorFinancialAccount") && !debit(n)
			}),
		}},
		{atIf(meansIn("59"), root+st+"/ram:SpecifiedTradeSettlementPaymentMeans"), []assert{
			a("BR-DE-20", func(n *N) bool {
				return ibanOK(textOf(n.One("ram:PayerPartyDebtorFinancialAccount/ram:IBANID")))
			}),
			a("BR-DE-25-a", debit),
			a("BR-DE-25-b", func(n *N) bool {
				return !n.Has("ram:PayeePartyCreditorFinancialAccount") && !n.Has("ram:PayeeSpecifiedCreditorFinancialInstitution") &&
					!n.Has("ram:PayerSpecifiedDebtorFinancialInstitution") && !n.Has("ram:ApplicableTradeSettlementFinancialCard")
			}),
		}},
		{at(root + st + "/ram:ApplicableTradeTax"), []assert{
			a("BR-DE-14", func(n *N) bool { return !blank(n, "ram:RateApplicablePercent") }),
		}},
		{at(root + ciiTx), []assert{
			a("BR-DE-TMP-32", func(n *N) bool {
				if n.Has("ram:ApplicableHeaderTradeDelivery/ram:ActualDeliverySupplyChainEvent/ram:OccurrenceDateTime") || n.Has("ram:ApplicableHeaderTradeSettlement/ram:BillingSpecifiedPeriod") {
					return true
				}
				for _, l := range n.All("ram:IncludedSupplyChainTradeLineItem") {
					if !l.Has("ram:SpecifiedLineTradeSettlement/ram:BillingSpecifiedPeriod") {
						return false
					}
				}
				return true
			}),
		}},
		{at(root + ciiTx + "/ram:IncludedSupplyChainTradeLineItem"), []assert{
			a("BR-TMP-3", func(n *N) bool {
				g := n.All("ram:SpecifiedLineTradeAgreement/ram:GrossPriceProductTradePrice/ram:BasisQuantity")
				net := n.All("ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:BasisQuantity")
				if len(g) == 0 || len(net) == 0 {
					return true
				}
				if !anyEqualNum(g, net) {
					return false
				}
				nu := Where(net, hasAttr("unitCode"))
				gu := Where(g, hasAttr("unitCode"))
				if len(nu) == 0 || len(gu) == 0 {
					return true
				}
				for _, x := range gu {
					for _, y := range nu {
						if rawAttr(x, "unitCode") == rawAttr(y, "unitCode") {
							return true
						}
					}
				}
				return false
			}),
		}},
	}
	out := []pattern{main}
	if ext {
		extList := func(lists ...*codes) func(*N) bool {
			return func(n *N) bool {
				v, _ := n.AttrVal("schemeID")
				for _, l := range lists {
					if !strings.Contains(v, " ") && l.has(v) {
						return true
					}
				}
				return false
			}
		}
		out = append(out, pattern{
			{at(root + ciiTx + "/ram:IncludedSupplyChainTradeLineItem/ram:AssociatedDocumentLineDocument"), []assert{
				a("BR-DEX-15", func(n *N) bool { return !n.Has("//ram:ParentLineID") }),
			}},
			{atIf(both(hasAttr("schemeID"), notUnder("ram:SpecifiedTradeProduct", "ram:ShipToTradeParty")), "//ram:GlobalID"), []assert{
				a("BR-DEX-04", extList(icd, digaSchemes)),
			}},
			{atIf(both(hasAttr("schemeID"), notUnder("ram:SpecifiedTaxRegistration")), "ram:ID"), []assert{
				a("BR-DEX-05", extList(icd, digaSchemes)),
			}},
			{atIf(hasAttr("schemeID"), "ram:SpecifiedTradeProduct/ram:GlobalID"), []assert{
				a("BR-DEX-06", extList(icd, digaSchemes)),
			}},
			{atIf(hasAttr("schemeID"), "ram:URIUniversalCommunication/ram:URIID"), []assert{
				a("BR-DEX-07", extList(eas, digaSchemes)),
			}},
			{atIf(hasAttr("schemeID"), "ram:ApplicableHeaderTradeDelivery/ram:ShipToTradeParty/ram:GlobalID"), []assert{
				a("BR-DEX-08", extList(icd, digaSchemes)),
			}},
			{at("ram:AttachmentBinaryObject"), []assert{
				a("BR-DEX-01", func(n *N) bool {
					return mime.has(rawAttr(n, "mimeCode")) || rawAttr(n, "mimeCode") == "application/xml"
				}),
			}},
		})
	}
	if cvd {
		cvdClass := func(p *N) bool {
			return Any(p.All("ram:DesignatedProductClassification/ram:ClassCode"), cvdCode)
		}
		cvaChar := func(c *N) bool { return anyText(c.All("ram:Description"), "cva") }
		out = append(out, pattern{
			{at(root + ciiTx), []assert{
				a("BR-DE-CVD-03", func(n *N) bool {
					return Any(n.All("ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedTradeProduct"), func(p *N) bool { return cvdClass(p) && Any(p.All("ram:ApplicableProductCharacteristic"), cvaChar) })
				}),
			}},
			{at(root + ciiTx + "/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedTradeProduct"), []assert{
				a("BR-DE-CVD-06-b", func(n *N) bool {
					return !Any(n.All("ram:ApplicableProductCharacteristic"), cvaChar) || len(Where(n.All("ram:DesignatedProductClassification/ram:ClassCode"), cvdCode)) == 1
				}),
				a("BR-DE-CVD-06-a", func(n *N) bool {
					return !cvdClass(n) || len(Where(n.All("ram:ApplicableProductCharacteristic"), cvaChar)) == 1
				}),
			}},
			{at(root + ciiTx + "/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedTradeProduct/ram:DesignatedProductClassification/ram:ClassCode"), []assert{
				a("BR-TMP-CVD-01", func(n *N) bool {
					v, _ := n.AttrVal("listID")
					return v == "CVD" || untdid7143.has(v)
				}),
				a("BR-DE-CVD-04", func(n *N) bool { v, _ := n.AttrVal("listID"); return v != "CVD" || cvdVehicles.has(n.Val()) }),
			}},
			{atIf(cvaChar, root+ciiTx+"/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedTradeProduct/ram:ApplicableProductCharacteristic"), []assert{
				a("BR-DE-CVD-05", func(n *N) bool { return cvaCodes.has(n.Str("ram:Value")) }),
			}},
			{at(root + ciiAgreement), []assert{
				a("BR-DE-CVD-01", func(n *N) bool { return !blank(n, "ram:ContractReferencedDocument/ram:IssuerAssignedID") }),
				a("BR-DE-CVD-02", func(n *N) bool {
					return Any(n.All("ram:AdditionalReferencedDocument"), func(r *N) bool { return r.Str("ram:TypeCode") == "50" && r.Str("ram:IssuerAssignedID") != "" })
				}),
			}},
		})
	}
	return out
}

// flatten is the path below each of the elements.
func flatten(ns []*N, p string) []*N {
	var out []*N
	for _, m := range ns {
		out = append(out, m.All(p)...)
	}
	return out
}

// anyEqualNum is XPath = between two sets of untyped values compared as numbers when both
// parse, else as text.
func anyEqualNum(x, y []*N) bool {
	for _, a := range x {
		for _, b := range y {
			da, ok1 := parseDecimal(a.Val())
			db, ok2 := parseDecimal(b.Val())
			if (ok1 && ok2 && da.Equal(db)) || a.Text == b.Text {
				return true
			}
		}
	}
	return false
}
