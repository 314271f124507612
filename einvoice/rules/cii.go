package rules

import (
	"strings"

	"github.com/shopspring/decimal"
)

// Paths of the CII header, from the root.
const (
	ciiTx         = "rsm:SupplyChainTradeTransaction"
	ciiAgreement  = ciiTx + "/ram:ApplicableHeaderTradeAgreement"
	ciiDelivery   = ciiTx + "/ram:ApplicableHeaderTradeDelivery"
	ciiSettlement = ciiTx + "/ram:ApplicableHeaderTradeSettlement"
	ciiTotals     = ciiSettlement + "/ram:SpecifiedTradeSettlementHeaderMonetarySummation"
)

// indicator reads udt:Indicator as xs:boolean and tells whether it equals want; a value
// that is not a boolean fails the rule (the XPath cast is an error).
func indicator(want bool) func(*N) bool {
	return func(n *N) bool {
		return Any(n.All("udt:Indicator"), func(c *N) bool {
			switch c.Val() {
			case "true", "1":
				return want
			case "false", "0":
				return !want
			}
			c.doc.castFailed() // not a boolean: the XPath cast is an error, the rule fails
			return false
		})
	}
}

// indicatorText compares udt:Indicator as text, as the rule contexts of CII do.
func indicatorText(v string) func(*N) bool {
	return func(n *N) bool { return anyText(n.All("udt:Indicator"), v) }
}

// acIs tells whether a SpecifiedTradeAllowanceCharge is a charge (or an allowance).
func acIs(chg bool) func(*N) bool {
	return func(ac *N) bool { return Any(ac.All("ram:ChargeIndicator"), indicator(chg)) }
}

// taxVAT: a trade tax whose TypeCode is VAT in any case.
func taxVAT(t *N) bool {
	return Any(t.All("ram:TypeCode"), func(c *N) bool { return strings.ToUpper(c.Text) == "VAT" })
}

// taxCat: a trade tax with the category code, compared as written.
func taxCat(code string) func(*N) bool {
	return func(t *N) bool { return anyText(t.All("ram:CategoryCode"), code) }
}

// schemeIs keeps identifiers whose schemeID is one of the values.
func schemeIs(values ...string) func(*N) bool {
	return func(id *N) bool {
		s, ok := attrRaw(id, "schemeID")
		if !ok {
			return false
		}
		for _, v := range values {
			if s == v {
				return true
			}
		}
		return false
	}
}

func hasWhere(n *N, p string, f func(*N) bool) bool { return Any(n.All(p), f) }

// decimalsOf checks the first element at p (XPath string of a node set: the first).
func decimalsOf(p string) func(*N) bool {
	return func(n *N) bool {
		m := n.One(p)
		return m == nil || decimals(strings.TrimSpace(m.RawText())) <= 2
	}
}

// ciiVAT is the CII form of a VAT category's rules.
type ciiFamily struct {
	vatFamily
	// headerAtCode: the breakdown rules sit on its CategoryCode (S, Z, E, AE, G, IC) rather
	// than on the ApplicableTradeTax (AF, AG, O).
	headerAtCode bool
	// headerVATCheck: the breakdown context also requires TypeCode VAT.
	headerVATCheck bool
}

var ciiFamilies = []ciiFamily{
	{vatFamilies[0], true, true},  // AE
	{vatFamilies[4], false, true}, // AF (L)
	{vatFamilies[5], false, true}, // AG (M)
	{vatFamilies[1], true, true},  // E
	{vatFamilies[2], true, true},  // G
	{vatFamilies[3], true, true},  // IC (K)
	{vatFamilies[6], false, true}, // O
	{vatFamilies[7], true, false}, // S
	{vatFamilies[8], true, false}, // Z
}

// ciiInvoice is the family's rule at the root (-01).
func (f ciiFamily) ciiInvoice() assert {
	is := taxCat(f.code)
	count := func(n *N, p string) int { return len(Where(n.All(p), is)) }
	return a("BR-"+f.prefix+"-01", func(n *N) bool {
		lines := count(n, "//ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax")
		header := count(n, "//ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax")
		acs := count(n, "//ram:CategoryTradeTax")
		switch f.prefix {
		case "S", "AF", "AG":
			return (lines+header >= 2 || lines == 0) && (acs+header >= 2 || acs == 0)
		case "O":
			return header == 0 || (header == 1 && (lines > 0 || acs > 0))
		}
		return (header == 0 && lines == 0 && acs == 0) || (header == 1 && (lines > 0 || acs > 0))
	})
}

// ids is the identifier test of -02 to -04.
func (f ciiFamily) ids(n *N) bool {
	va := schemeIs("VA")
	vaFC := schemeIs("VA", "FC")
	switch f.prefix {
	case "AE":
		return (hasWhere(n, "//ram:SellerTradeParty/ram:SpecifiedTaxRegistration/ram:ID", vaFC) || hasWhere(n, "//ram:SellerTaxRepresentativeTradeParty/ram:SpecifiedTaxRegistration/ram:ID", va)) &&
			(hasWhere(n, "//ram:BuyerTradeParty/ram:SpecifiedTaxRegistration/ram:ID", va) || n.Has("//ram:BuyerTradeParty/ram:SpecifiedLegalOrganization/ram:ID"))
	case "IC":
		return (hasWhere(n, "//ram:SellerTradeParty/ram:SpecifiedTaxRegistration/ram:ID", va) || hasWhere(n, "//ram:SellerTaxRepresentativeTradeParty/ram:SpecifiedTaxRegistration/ram:ID", va)) &&
			hasWhere(n, "//ram:BuyerTradeParty/ram:SpecifiedTaxRegistration/ram:ID", va)
	case "G":
		return hasWhere(n, "//ram:SellerTradeParty/ram:SpecifiedTaxRegistration/ram:ID", va) || hasWhere(n, "//ram:SellerTaxRepresentativeTradeParty/ram:SpecifiedTaxRegistration/ram:ID", va)
	case "O":
		return !hasWhere(n, "/rsm:CrossIndustryInvoice/"+ciiAgreement+"/ram:SellerTradeParty/ram:SpecifiedTaxRegistration/ram:ID", va) &&
			!hasWhere(n, "/rsm:CrossIndustryInvoice/"+ciiAgreement+"/ram:SellerTaxRepresentativeTradeParty/ram:SpecifiedTaxRegistration/ram:ID", va) &&
			!hasWhere(n, "//ram:BuyerTradeParty/ram:SpecifiedTaxRegistration/ram:ID", va)
	}
	return hasWhere(n, "/rsm:CrossIndustryInvoice/"+ciiAgreement+"/ram:SellerTradeParty/ram:SpecifiedTaxRegistration/ram:ID", vaFC) ||
		hasWhere(n, "/rsm:CrossIndustryInvoice/"+ciiAgreement+"/ram:SellerTaxRepresentativeTradeParty/ram:SpecifiedTaxRegistration/ram:ID", va)
}

// rate is the -05 to -07 test on a line, allowance or charge trade tax.
func (f ciiFamily) rate(t *N) bool {
	switch f.prefix {
	case "O":
		return !t.Has("ram:RateApplicablePercent")
	case "S", "AF":
		return anyDec(t, "ram:RateApplicablePercent", func(d decimal.Decimal) bool { return d.IsPositive() })
	case "AG":
		return anyDec(t, "ram:RateApplicablePercent", func(d decimal.Decimal) bool { return !d.IsNegative() })
	}
	return anyDec(t, "ram:RateApplicablePercent", func(d decimal.Decimal) bool { return d.IsZero() })
}

// expected is the sum of the category's line net amounts plus its document charges minus
// its document allowances, each sum rounded to 2 decimals; with rate, for that rate only.
func ciiExpected(n *N, code string, rate *decimal.Decimal) decimal.Decimal {
	root := n.doc.root
	is := taxCat(code)
	rateIs := func(t *N) bool {
		return rate == nil || anyDec(t, "ram:RateApplicablePercent", func(d decimal.Decimal) bool { return d.Equal(*rate) })
	}
	var lines []*N
	for _, s := range root.All(ciiTx + "/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedLineTradeSettlement") {
		taxes := s.All("ram:ApplicableTradeTax")
		if Any(taxes, is) && Any(taxes, rateIs) {
			lines = append(lines, s.All("ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount")...)
		}
	}
	acs := func(chg bool) []*N {
		var out []*N
		for _, ac := range root.All(ciiSettlement + "/ram:SpecifiedTradeAllowanceCharge") {
			taxes := ac.All("ram:CategoryTradeTax")
			if acIs(chg)(ac) && Any(taxes, is) && Any(taxes, rateIs) {
				if m := ac.One("ram:ActualAmount"); m != nil {
					out = append(out, m)
				}
			}
		}
		return out
	}
	return round2(Sum(lines)).Add(round2(Sum(acs(true)))).Sub(round2(Sum(acs(false))))
}

func (f ciiFamily) ciiRules() []rule {
	id := func(n string) string { return "BR-" + f.prefix + "-" + n }
	is := both(taxCat(f.code), taxVAT)
	// The breakdown: the trade tax the rules speak of, from their context element.
	tax := func(n *N) *N {
		if f.headerAtCode {
			return n.parent
		}
		return n
	}
	var header selector
	switch {
	case !f.headerAtCode:
		header = atIf(is, "//rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax")
	case f.headerVATCheck:
		header = atIf(func(c *N) bool { return c.Text == f.code && taxVAT(c.parent) }, "//rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax/ram:CategoryCode")
	default:
		header = atIf(func(c *N) bool { return c.Text == f.code }, "//ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax/ram:CategoryCode")
	}
	one := decimal.NewFromInt(1)
	taxable := a(id("08"), func(n *N) bool {
		t := tax(n)
		switch f.prefix {
		case "AF", "AG":
			// Officially bound to the rates of the breakdown's parent, of which there are
			// none: the rule always holds in CII.
			return true
		case "S":
			basis := n.parent.One("ram:BasisAmount")
			for _, r := range n.All("../ram:RateApplicablePercent") {
				rate := r.DecVal()
				if basis == nil || !basis.DecVal().Equal(ciiExpected(n, f.code, &rate)) {
					return false
				}
			}
			return true
		case "O":
			b, ok := t.Dec("ram:BasisAmount")
			return ok && b.Equal(ciiExpected(n, f.code, nil))
		}
		b, ok := t.Dec("ram:BasisAmount")
		want := ciiExpected(n, f.code, nil)
		return ok && b.Sub(one).LessThan(want) && b.Add(one).GreaterThan(want)
	})
	amount := a(id("09"), func(n *N) bool {
		t := tax(n)
		switch f.prefix {
		case "AF", "AG":
			return true
		case "S":
			calc, ok1 := t.Dec("ram:CalculatedAmount")
			basis, ok2 := t.Dec("ram:BasisAmount")
			rates := t.All("ram:RateApplicablePercent")
			if !ok1 || !ok2 || len(rates) != 1 {
				return false
			}
			want := roundInt(basis.Abs().Mul(rates[0].DecVal())).Div(hundred)
			return calc.Abs().Sub(one).LessThan(want) && calc.Abs().Add(one).GreaterThan(want)
		}
		return anyDec(t, "ram:CalculatedAmount", func(d decimal.Decimal) bool { return d.IsZero() })
	})
	exemption := a(id("10"), func(n *N) bool {
		t := tax(n)
		has := t.Has("ram:ExemptionReason") || t.Has("ram:ExemptionReasonCode")
		return has == f.exemption
	})
	headerAsserts := []assert{taxable, amount, exemption}
	switch f.prefix {
	case "IC":
		headerAsserts = append(headerAsserts,
			a("BR-IC-11", func(n *N) bool {
				return n.Has("/rsm:CrossIndustryInvoice/"+ciiDelivery+"/ram:ActualDeliverySupplyChainEvent/ram:OccurrenceDateTime/udt:DateTimeString") ||
					n.Has("../../ram:BillingSpecifiedPeriod/ram:StartDateTime") || n.Has("../../ram:BillingSpecifiedPeriod/ram:EndDateTime")
			}),
			a("BR-IC-12", func(n *N) bool {
				return n.Has("/rsm:CrossIndustryInvoice/" + ciiDelivery + "/ram:ShipToTradeParty/ram:PostalTradeAddress/ram:CountryID")
			}))
	case "O":
		notO := func(t *N) bool { return Any(t.All("ram:CategoryCode"), func(c *N) bool { return c.Text != "O" }) }
		headerAsserts = append(headerAsserts,
			a("BR-O-11", func(n *N) bool { return !Any(n.All("//ram:ApplicableTradeTax"), notO) }),
			a("BR-O-12", func(n *N) bool { return !Any(n.All("//ram:ApplicableTradeTax"), notO) }),
			a("BR-O-13", func(n *N) bool { return !Any(n.All("//ram:CategoryTradeTax"), notO) }),
			a("BR-O-14", func(n *N) bool { return !Any(n.All("//ram:CategoryTradeTax"), notO) }))
	}
	headerRule := rule{header, headerAsserts}
	line := rule{atIf(is, "//rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax"), []assert{
		a(id("02"), f.ids),
		a(id("05"), f.rate),
	}}
	allowance := rule{atIf(both(is, parentIs(acIs(false))), "//ram:SpecifiedTradeAllowanceCharge/ram:CategoryTradeTax"), []assert{
		a(id("03"), f.ids),
		a(id("06"), f.rate),
	}}
	charge := rule{atIf(both(is, parentIs(acIs(true))), "//ram:SpecifiedTradeAllowanceCharge/ram:CategoryTradeTax"), []assert{
		a(id("04"), f.ids),
		a(id("07"), f.rate),
	}}
	// The official order of the four rules differs by category; it matters only where two
	// could match the same element, which they cannot.
	return []rule{headerRule, allowance, charge, line}
}

// ciiModel is the EN 16931 semantic model bound to CII.
func ciiModel() pattern {
	sellerName := "../../ram:ApplicableHeaderTradeAgreement/ram:SellerTradeParty/"
	p := pattern{
		{at("//ram:DesignatedProductClassification"), []assert{
			a("BR-65", func(n *N) bool {
				return !n.Has("ram:ClassCode") || Any(n.All("ram:ClassCode"), func(c *N) bool { v, _ := c.AttrVal("listID"); return v != "" })
			}),
		}},
		{at("//ram:AdditionalReferencedDocument"), []assert{
			a("BR-52", func(n *N) bool { return notBlank(n, "ram:IssuerAssignedID") }),
		}},
		{at("//ram:ApplicableTradeSettlementFinancialCard"), []assert{
			a("BR-51", func(n *N) bool { return len([]rune(n.Str("ram:ID"))) <= 10 }).as(Fatal), // fatal in CEN's CII binding, a warning in UBL
		}},
		{atIf(parentIs(func(pm *N) bool {
			return anyText(pm.All("ram:TypeCode"), "30") || anyText(pm.All("ram:TypeCode"), "58")
		}),
			"//ram:SpecifiedTradeSettlementPaymentMeans/ram:PayeePartyCreditorFinancialAccount"), []assert{
			a("BR-50", func(n *N) bool { return notBlank(n, "ram:IBANID") || notBlank(n, "ram:ProprietaryID") }),
			a("BR-61", func(n *N) bool { return n.Has("ram:IBANID") || n.Has("ram:ProprietaryID") }),
		}},
		{at("/rsm:CrossIndustryInvoice/" + ciiDelivery), []assert{
			a("BR-57", func(n *N) bool {
				return !n.Has("ram:ShipToTradeParty/ram:PostalTradeAddress") || notBlank(n, "ram:ShipToTradeParty/ram:PostalTradeAddress/ram:CountryID")
			}),
		}},
		{atIf(indicatorText("false"), "//ram:ApplicableHeaderTradeSettlement/ram:SpecifiedTradeAllowanceCharge/ram:ChargeIndicator"), []assert{
			a("BR-31", has("../ram:ActualAmount")),
			a("BR-32", func(n *N) bool { return Any(Where(n.All("../ram:CategoryTradeTax"), taxVAT), has("ram:CategoryCode")) }),
			a("BR-33", ciiReason),
			a("BR-CO-05", always),
			a("BR-CO-21", ciiReason),
			a("BR-DEC-01", decimalsOf("../ram:ActualAmount")),
			a("BR-DEC-02", decimalsOf("../ram:BasisAmount")),
		}},
		{atIf(indicatorText("true"), "//ram:ApplicableHeaderTradeSettlement/ram:SpecifiedTradeAllowanceCharge/ram:ChargeIndicator"), []assert{
			a("BR-36", has("../ram:ActualAmount")),
			a("BR-37", func(n *N) bool { return Any(Where(n.All("../ram:CategoryTradeTax"), taxVAT), has("ram:CategoryCode")) }),
			a("BR-38", ciiReason),
			a("BR-CO-06", always),
			a("BR-CO-22", ciiReason),
			a("BR-DEC-05", decimalsOf("../ram:ActualAmount")),
			a("BR-DEC-06", decimalsOf("../ram:BasisAmount")),
		}},
		{at("//ram:SpecifiedTradeSettlementHeaderMonetarySummation"), ciiTotalsRules()},
		{at("/rsm:CrossIndustryInvoice"), ciiInvoiceRules()},
		{at("//ram:IncludedSupplyChainTradeLineItem"), []assert{
			a("BR-21", func(n *N) bool { return notBlank(n, "ram:AssociatedDocumentLineDocument/ram:LineID") }),
			a("BR-22", has("ram:SpecifiedLineTradeDelivery/ram:BilledQuantity")),
			a("BR-23", func(n *N) bool {
				return Any(n.All("ram:SpecifiedLineTradeDelivery/ram:BilledQuantity"), hasAttr("unitCode"))
			}),
			a("BR-24", has("ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount")),
			a("BR-25", func(n *N) bool { return notBlank(n, "ram:SpecifiedTradeProduct/ram:Name") }),
			a("BR-26", has("ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:ChargeAmount")),
			a("BR-27", func(n *N) bool {
				return anyDec(n, "ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:ChargeAmount", func(d decimal.Decimal) bool { return !d.IsNegative() })
			}),
			a("BR-28", func(n *N) bool {
				p := "ram:SpecifiedLineTradeAgreement/ram:GrossPriceProductTradePrice/ram:ChargeAmount"
				return !n.Has(p) || anyDec(n, p, func(d decimal.Decimal) bool { return !d.IsNegative() })
			}),
			a("BR-64", func(n *N) bool {
				return !n.Has("ram:SpecifiedTradeProduct/ram:GlobalID") || Any(n.All("ram:SpecifiedTradeProduct/ram:GlobalID"), func(g *N) bool { v, _ := g.AttrVal("schemeID"); return v != "" })
			}),
			a("BR-CO-04", func(n *N) bool {
				return Any(Where(n.All("ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax"), taxVAT), has("ram:CategoryCode"))
			}),
			a("BR-CO-18", has("//rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax")),
			a("BR-DEC-23", decimalsOf("ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount")),
		}},
		{atIf(indicatorText("false"), "//ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeAllowanceCharge/ram:ChargeIndicator"), []assert{
			a("BR-41", has("../ram:ActualAmount")),
			a("BR-42", ciiReason),
			a("BR-CO-07", always),
			a("BR-CO-23", ciiReason),
			a("BR-DEC-24", decimalsOf("../ram:ActualAmount")),
			a("BR-DEC-25", decimalsOf("../ram:BasisAmount")),
		}},
		{atIf(indicatorText("true"), "//ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeAllowanceCharge/ram:ChargeIndicator"), []assert{
			a("BR-43", has("../ram:ActualAmount")),
			a("BR-44", ciiReason),
			a("BR-CO-08", always),
			a("BR-CO-24", ciiReason),
			a("BR-DEC-27", decimalsOf("../ram:ActualAmount")),
			a("BR-DEC-28", decimalsOf("../ram:BasisAmount")),
		}},
		{at("//ram:SpecifiedLineTradeSettlement/ram:BillingSpecifiedPeriod"), []assert{
			a("BR-30", ciiPeriodOrder),
			a("BR-CO-20", func(n *N) bool { return n.Has("ram:StartDateTime") || n.Has("ram:EndDateTime") }),
		}},
		{at("//ram:ApplicableHeaderTradeSettlement/ram:BillingSpecifiedPeriod"), []assert{
			a("BR-29", ciiPeriodOrder),
			a("BR-CO-19", func(n *N) bool { return n.Has("ram:StartDateTime") || n.Has("ram:EndDateTime") }),
		}},
		{at("//ram:ApplicableProductCharacteristic"), []assert{
			a("BR-54", func(n *N) bool { return n.Has("ram:Description") && n.Has("ram:Value") }),
		}},
		{at("//ram:PayeeTradeParty"), []assert{
			a("BR-17", func(n *N) bool {
				return n.Has("ram:Name") && !anyEqual(n.All("ram:Name"), n.All(sellerName+"ram:Name")) &&
					!anyEqual(n.All("ram:ID"), n.All(sellerName+"ram:ID")) &&
					!anyEqual(n.All("ram:SpecifiedLegalOrganization/ram:ID"), n.All(sellerName+"ram:SpecifiedLegalOrganization/ram:ID"))
			}),
		}},
		{at("//ram:SpecifiedTradeSettlementPaymentMeans"), []assert{
			a("BR-49", has("ram:TypeCode")),
		}},
		{at("/rsm:CrossIndustryInvoice/" + ciiSettlement + "/ram:InvoiceReferencedDocument"), []assert{
			a("BR-55", func(n *N) bool { return notBlank(n, "ram:IssuerAssignedID") }),
		}},
		{at("//ram:SellerTradeParty"), []assert{
			a("BR-CO-26", func(n *N) bool {
				return n.Has("ram:ID") || n.Has("ram:GlobalID") || n.Has("ram:SpecifiedLegalOrganization/ram:ID") || hasWhere(n, "ram:SpecifiedTaxRegistration/ram:ID", schemeIs("VA"))
			}),
		}},
		{at("//ram:SellerTaxRepresentativeTradeParty"), []assert{
			a("BR-18", func(n *N) bool { return notBlank(n, "ram:Name") }),
			a("BR-19", has("ram:PostalTradeAddress")),
			a("BR-20", func(n *N) bool { return notBlank(n, "ram:PostalTradeAddress/ram:CountryID") }),
			a("BR-56", func(n *N) bool {
				return Any(Where(n.All("ram:SpecifiedTaxRegistration/ram:ID"), schemeIs("VA")), func(id *N) bool { return id.Val() != "" })
			}),
		}},
		{atIf(func(n *N) bool {
			return anyText(n.doc.root.All(ciiSettlement+"/ram:InvoiceCurrencyCode"), rawAttr(n, "currencyID")) && hasRawAttr(n, "currencyID")
		}, "//ram:SpecifiedTradeSettlementHeaderMonetarySummation/ram:TaxTotalAmount"), []assert{
			a("BR-CO-14", func(n *N) bool {
				return n.DecVal().Equal(round2(Sum(n.doc.root.All(ciiSettlement + "/ram:ApplicableTradeTax/ram:CalculatedAmount"))))
			}),
		}},
		{atIf(schemeIs("VA"), "//ram:SpecifiedTaxRegistration/ram:ID"), []assert{
			a("BR-CO-09", func(n *N) bool {
				s := n.Text
				if r := []rune(s); len(r) > 2 {
					s = string(r[:2])
				}
				return vatPrefixCII.has(s) // CEN's CII list, which differs from UBL's (AN, SS)
			}),
		}},
	}
	for _, f := range ciiFamilies {
		p = append(p, f.ciiRules()...)
	}
	return append(p, rule{at("//ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax"), []assert{
		a("BR-45", has("ram:BasisAmount")),
		a("BR-46", has("ram:CalculatedAmount")),
		a("BR-47", func(n *N) bool { return taxVAT(n) && n.Has("ram:CategoryCode") }),
		a("BR-48", func(n *N) bool {
			return taxVAT(n) && (n.Has("ram:RateApplicablePercent") || anyText(n.All("ram:CategoryCode"), "O"))
		}),
		a("BR-CO-03", func(n *N) bool {
			return !(n.Has("//ram:TaxPointDate") && n.Has("//ram:DueDateTypeCode"))
		}),
		a("BR-CO-17", func(n *N) bool {
			calc, ok := n.Dec("ram:CalculatedAmount")
			if !ok {
				return false
			}
			var rates []decimal.Decimal
			if Any([]*N{n}, func(t *N) bool {
				return Any(t.All("ram:TypeCode"), func(c *N) bool { return strings.ToUpper(c.Val()) == "VAT" })
			}) {
				for _, r := range n.All("ram:RateApplicablePercent") {
					rates = append(rates, r.DecVal())
				}
			}
			if len(rates) == 0 || roundInt(rates[0]).IsZero() {
				return roundInt(calc).IsZero()
			}
			basis, ok := n.Dec("ram:BasisAmount")
			if !ok {
				return false
			}
			want := round2(basis.Abs().Mul(rates[0].Div(hundred)))
			one := decimal.NewFromInt(1)
			return calc.Abs().Sub(one).LessThanOrEqual(want) && calc.Abs().Add(one).GreaterThanOrEqual(want)
		}),
		a("BR-DEC-19", decimalsOf("ram:BasisAmount")),
		a("BR-DEC-20", decimalsOf("ram:CalculatedAmount")),
	}})
}

func ciiReason(n *N) bool { return n.Has("../ram:Reason") || n.Has("../ram:ReasonCode") }

// ciiPeriodOrder compares the 102-format dates as strings, as the official rule does.
func ciiPeriodOrder(n *N) bool {
	if !n.Has("ram:EndDateTime") || !n.Has("ram:StartDateTime") {
		return true
	}
	f102 := func(m *N) bool { return rawAttr(m, "format") == "102" }
	ends := Where(n.All("ram:EndDateTime/udt:DateTimeString"), f102)
	starts := Where(n.All("ram:StartDateTime/udt:DateTimeString"), f102)
	for _, e := range ends {
		for _, s := range starts {
			if e.Text >= s.Text {
				return true
			}
		}
	}
	return false
}

func ciiTotalsRules() []assert {
	root := func(n *N) *N { return n.doc.root }
	return []assert{
		a("BR-12", has("ram:LineTotalAmount")),
		a("BR-13", has("ram:TaxBasisTotalAmount")),
		a("BR-14", has("ram:GrandTotalAmount")),
		a("BR-15", has("ram:DuePayableAmount")),
		a("BR-53", func(n *N) bool {
			taxCur := root(n).All(ciiSettlement + "/ram:TaxCurrencyCode")
			if len(taxCur) == 0 {
				return true
			}
			inCur := Any(n.All("ram:TaxTotalAmount"), func(t *N) bool { return anyText(taxCur, rawAttr(t, "currencyID")) && hasRawAttr(t, "currencyID") })
			return inCur && !anyEqual(taxCur, root(n).All(ciiSettlement+"/ram:InvoiceCurrencyCode"))
		}),
		a("BR-CO-10", func(n *N) bool {
			v, ok := n.Dec("ram:LineTotalAmount")
			return ok && v.Equal(round2(Sum(n.All("../../ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount"))))
		}),
		a("BR-CO-11", ciiACTotal("ram:AllowanceTotalAmount", false)),
		a("BR-CO-12", ciiACTotal("ram:ChargeTotalAmount", true)),
		a("BR-CO-13", func(n *N) bool {
			basis, ok1 := n.Dec("ram:TaxBasisTotalAmount")
			lines, ok2 := n.Dec("ram:LineTotalAmount")
			if !ok1 || !ok2 {
				return false
			}
			al, okA := n.Dec("ram:AllowanceTotalAmount")
			ch, okC := n.Dec("ram:ChargeTotalAmount")
			switch {
			case okA && okC:
				return basis.Equal(round2(lines.Sub(al).Add(ch)))
			case okA:
				return basis.Equal(round2(lines.Sub(al)))
			case okC:
				return basis.Equal(round2(lines.Add(ch)))
			}
			return basis.Equal(round2(lines))
		}),
		a("BR-CO-16", func(n *N) bool {
			due, ok1 := n.Dec("ram:DuePayableAmount")
			grand, ok2 := n.Dec("ram:GrandTotalAmount")
			if !ok1 || !ok2 {
				return false
			}
			paid, okP := n.Dec("ram:TotalPrepaidAmount")
			rnd, okR := n.Dec("ram:RoundingAmount")
			switch {
			case okP && okR:
				return due.Equal(grand.Sub(paid).Add(rnd))
			case okR:
				return due.Equal(grand.Add(rnd))
			case okP:
				return due.Equal(grand.Sub(paid))
			}
			return due.Equal(grand)
		}),
		a("BR-DEC-09", decimalsOf("ram:LineTotalAmount")),
		a("BR-DEC-10", decimalsOf("ram:AllowanceTotalAmount")),
		a("BR-DEC-11", decimalsOf("ram:ChargeTotalAmount")),
		a("BR-DEC-12", decimalsOf("ram:TaxBasisTotalAmount")),
		a("BR-DEC-14", decimalsOf("ram:GrandTotalAmount")),
		a("BR-DEC-13", ciiTaxTotalDecimals(ciiSettlement+"/ram:InvoiceCurrencyCode", false)),
		a("BR-DEC-15", ciiTaxTotalDecimals(ciiSettlement+"/ram:TaxCurrencyCode", true)),
		a("BR-DEC-16", decimalsOf("ram:TotalPrepaidAmount")),
		a("BR-DEC-17", decimalsOf("ram:RoundingAmount")),
		a("BR-DEC-18", decimalsOf("ram:DuePayableAmount")),
	}
}

// ciiTaxTotalDecimals: a TaxTotalAmount in the currency at cur has at most 2 decimals (by
// value); those in other currencies pass.
func ciiTaxTotalDecimals(cur string, absentPasses bool) func(*N) bool {
	return func(n *N) bool {
		totals := n.All("ram:TaxTotalAmount")
		if len(totals) == 0 {
			return true
		}
		curs := n.doc.root.All(cur)
		if absentPasses && len(curs) == 0 {
			return true
		}
		return Any(totals, func(t *N) bool {
			in := anyText(curs, rawAttr(t, "currencyID")) && hasRawAttr(t, "currencyID")
			if !in {
				return !absentPasses // BR-DEC-13 passes other currencies; BR-DEC-15 needs the tax currency
			}
			v := t.DecVal()
			return v.Equal(roundInt(v.Mul(hundred)).Div(hundred))
		})
	}
}

func ciiACTotal(total string, chg bool) func(*N) bool {
	return func(n *N) bool {
		acs := Where(n.doc.root.All(ciiSettlement+"/ram:SpecifiedTradeAllowanceCharge"), acIs(chg))
		v, ok := n.Dec(total)
		if !ok {
			return len(acs) == 0
		}
		var amounts []*N
		for _, ac := range acs {
			if m := ac.One("ram:ActualAmount"); m != nil {
				amounts = append(amounts, m)
			}
		}
		return v.Equal(round2(Sum(amounts)))
	}
}

func ciiInvoiceRules() []assert {
	out := []assert{
		a("BR-01", func(n *N) bool {
			return notBlank(n, "rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID")
		}),
		a("BR-02", func(n *N) bool { return notBlank(n, "rsm:ExchangedDocument/ram:ID") }),
		a("BR-03", func(n *N) bool {
			return Any(n.All("rsm:ExchangedDocument/ram:IssueDateTime/udt:DateTimeString"), func(d *N) bool { return rawAttr(d, "format") == "102" && d.Val() != "" })
		}),
		a("BR-04", func(n *N) bool { return notBlank(n, "rsm:ExchangedDocument/ram:TypeCode") }),
		a("BR-05", func(n *N) bool { return notBlank(n, ciiSettlement+"/ram:InvoiceCurrencyCode") }),
		a("BR-06", func(n *N) bool { return notBlank(n, ciiAgreement+"/ram:SellerTradeParty/ram:Name") }),
		a("BR-07", func(n *N) bool { return notBlank(n, ciiAgreement+"/ram:BuyerTradeParty/ram:Name") }),
		a("BR-08", has(ciiAgreement+"/ram:SellerTradeParty/ram:PostalTradeAddress")),
		a("BR-09", func(n *N) bool {
			return notBlank(n, ciiAgreement+"/ram:SellerTradeParty/ram:PostalTradeAddress/ram:CountryID")
		}),
		a("BR-10", has(ciiAgreement+"/ram:BuyerTradeParty/ram:PostalTradeAddress")),
		a("BR-11", func(n *N) bool {
			return notBlank(n, ciiAgreement+"/ram:BuyerTradeParty/ram:PostalTradeAddress/ram:CountryID")
		}),
		a("BR-16", has("//ram:IncludedSupplyChainTradeLineItem")),
		a("BR-62", ciiEndpointScheme(ciiAgreement+"/ram:SellerTradeParty")),
		a("BR-63", ciiEndpointScheme(ciiAgreement+"/ram:BuyerTradeParty")),
		a("BR-CO-15", func(n *N) bool {
			totals := ciiTotals
			for _, cur := range n.All(ciiSettlement + "/ram:InvoiceCurrencyCode") {
				tax := Where(n.All(totals+"/ram:TaxTotalAmount"), func(t *N) bool { return hasRawAttr(t, "currencyID") && rawAttr(t, "currencyID") == cur.Text })
				grand, ok1 := n.Dec(totals + "/ram:GrandTotalAmount")
				basis, ok2 := n.Dec(totals + "/ram:TaxBasisTotalAmount")
				if !ok1 || !ok2 {
					return false
				}
				if len(tax) == 1 && grand.Equal(round2(basis.Add(tax[0].DecVal()))) {
					continue
				}
				if grand.Equal(basis) {
					continue
				}
				return false
			}
			return true
		}),
	}
	for _, f := range ciiFamilies {
		out = append(out, f.ciiInvoice())
	}
	return append(out,
		a("BR-B-01", func(n *N) bool {
			b := anyText(n.All("//ram:CategoryCode"), "B")
			notIT := Any(n.All("//ram:CountryID"), func(c *N) bool { return c.Text != "IT" })
			return !b || !notIT
		}),
		a("BR-B-02", func(n *N) bool {
			return !anyText(n.All("//ram:CategoryCode"), "B") || !anyText(n.All("//ram:CategoryCode"), "S")
		}),
	)
}

// ciiEndpointScheme: the first electronic address of the party has a scheme, or there is
// none.
func ciiEndpointScheme(party string) func(*N) bool {
	return func(n *N) bool {
		comms := n.All(party + "/ram:URIUniversalCommunication")
		if len(comms) == 0 {
			return true
		}
		return Any(comms[0].All("ram:URIID"), func(u *N) bool { v, _ := u.AttrVal("schemeID"); return v != "" })
	}
}
