package rules

import (
	"strings"

	"github.com/shopspring/decimal"
)

// The PEPPOL BIS Billing 3.0 rules (PEPPOL-EN16931-R*) that XRechnung 3.0 takes over, in
// the form KoSIT merges them: the same patterns (an element meets the first matching rule
// of a pattern only), restricted to KoSIT's list, with its changes: R120 is a warning, the
// rounding slack of R040 and R120 is 0.5 for HUF, CII gets R008 (not on
// ApplicableHeaderTradeDelivery), R044 and R046 on the gross price, a looser R053 and R055,
// a base quantity that falls back to the gross price's; a CII id used twice in one pattern
// is numbered (R043-1, R043-2).

// slack is u:slack: expected and value differ by at most s.
func slack(exp, val, s decimal.Decimal) bool {
	return exp.Add(s).GreaterThanOrEqual(val) && exp.Sub(s).LessThanOrEqual(val)
}

var (
	slackDefault = decimal.RequireFromString("0.02")
	slackHUF     = decimal.RequireFromString("0.5")
)

func slackFor(currency string) decimal.Decimal {
	if currency == "HUF" {
		return slackHUF
	}
	return slackDefault
}

// decOr is xs:decimal of the first element at p, or def when there is none.
func decOr(n *N, p string, def decimal.Decimal) decimal.Decimal {
	if m := n.One(p); m != nil {
		return m.DecVal()
	}
	return def
}

// nonZeroOr is the decimal at p when present and not zero.
func nonZeroOr(n *N, p string) (decimal.Decimal, bool) {
	if m := n.One(p); m != nil {
		if d := m.DecVal(); !d.IsZero() {
			return d, true
		}
	}
	return decimal.Decimal{}, false
}

// roundedSum is round(sum(amounts) * 10 * 10) div 100.
func roundedSum(ns []*N) decimal.Decimal {
	if len(ns) == 0 {
		return decimal.Zero
	}
	return round2(Sum(ns))
}

// lineNet is R120's expected line net amount: quantity × (price ÷ base quantity) +
// charges − allowances.
func lineNet(q, price, base, charges, allowances decimal.Decimal) decimal.Decimal {
	return q.Mul(price.DivRound(base, 20)).Add(charges).Sub(allowances)
}

// emptyLeaf is the context of R008: an element without child elements and without text.
func emptyLeaf(n *N) bool { return len(n.kids) == 0 && strings.TrimSpace(n.Text) == "" }

// anyCmp is XPath's general comparison of node values with zero: some value satisfies f.
func anyCmp(ns []*N, f func(decimal.Decimal) bool) bool {
	return Any(ns, func(m *N) bool { return f(m.DecVal()) })
}

func isNeg(d decimal.Decimal) bool  { return d.IsNegative() }
func notPos(d decimal.Decimal) bool { return !d.IsPositive() }
func notNeg(d decimal.Decimal) bool { return !d.IsNegative() }
func directDebit(code string) bool  { return code == "49" || code == "59" }
func indicatorOK(v string) bool     { return v == "true" || v == "false" }

// grossPriceOK is PEPPOL-EN16931-R046 at a price discount, the same in Peppol BIS and in
// KoSIT's form: with a gross price (BT-148), the net price is the gross price less the
// discount (BT-147).
func grossPriceOK(n *N) bool {
	if !n.Has("cbc:BaseAmount") {
		return true
	}
	// A missing operand makes the XPath comparison false.
	price, amount := n.parent.One("cbc:PriceAmount"), n.One("cbc:Amount")
	if price == nil || amount == nil {
		return false
	}
	return price.DecVal().Equal(n.One("cbc:BaseAmount").DecVal().Sub(amount.DecVal()))
}

func peppolUBL() []pattern {
	docAC := []string{"/ubl:Invoice/cac:AllowanceCharge", "/ubl:Invoice/cac:InvoiceLine/cac:AllowanceCharge", "/cn:CreditNote/cac:AllowanceCharge", "/cn:CreditNote/cac:CreditNoteLine/cac:AllowanceCharge"}
	currency := func(n *N) string { return n.doc.root.Str("cbc:DocumentCurrencyCode") }
	isInvoice := func(n *N) bool { return n.doc.root.Local == "Invoice" }
	// taxAmounts are the document's TaxTotal/TaxAmount in the currency named at p.
	taxAmounts := func(root *N, p string) []*N {
		cur := root.Str(p)
		return Where(root.All("cac:TaxTotal/cbc:TaxAmount"), func(m *N) bool { return rawAttr(m, "currencyID") == cur && hasRawAttr(m, "currencyID") })
	}
	// period compares a line's period date with the invoice's, by calendar date (xsDate).
	period := func(p string, ok func(cmp int) bool) func(n *N) bool {
		return func(n *N) bool {
			l, ok1 := xsDate(n.Val())
			d, ok2 := xsDate(n.doc.root.Str("cac:InvoicePeriod/" + p))
			return ok1 && ok2 && ok(l.Compare(d))
		}
	}
	rootHas := func(p string) func(*N) bool { return func(n *N) bool { return n.doc.root.Has(p) } }
	return []pattern{
		{{where(emptyLeaf), []assert{a("PEPPOL-EN16931-R008", func(*N) bool { return false })}}},
		{
			{at("/ubl:Invoice", "/cn:CreditNote"), []assert{
				a("PEPPOL-EN16931-R001", has("cbc:ProfileID")),
				a("PEPPOL-EN16931-R053", func(n *N) bool {
					return len(Where(n.All("cac:TaxTotal"), has("cac:TaxSubtotal"))) == 1
				}),
				a("PEPPOL-EN16931-R054", func(n *N) bool {
					want := 0
					if n.Has("cbc:TaxCurrencyCode") {
						want = 1
					}
					return len(Where(n.All("cac:TaxTotal"), func(t *N) bool { return !t.Has("cac:TaxSubtotal") })) == want
				}),
				a("PEPPOL-EN16931-R055", func(n *N) bool {
					if !n.Has("cbc:TaxCurrencyCode") {
						return true
					}
					tax, doc := taxAmounts(n, "cbc:TaxCurrencyCode"), taxAmounts(n, "cbc:DocumentCurrencyCode")
					return anyCmp(tax, notPos) && anyCmp(doc, notPos) || anyCmp(tax, notNeg) && anyCmp(doc, notNeg)
				}),
			}},
			{at("cbc:TaxCurrencyCode"), []assert{
				a("PEPPOL-EN16931-R005", func(n *N) bool {
					return n.Val() != n.parent.Str("cbc:DocumentCurrencyCode")
				}),
			}},
			{at("cac:AccountingCustomerParty/cac:Party"), []assert{a("PEPPOL-EN16931-R010", has("cbc:EndpointID"))}},
			{at("cac:AccountingSupplierParty/cac:Party"), []assert{a("PEPPOL-EN16931-R020", has("cbc:EndpointID"))}},
			{atIf(func(n *N) bool { return n.Has("cbc:MultiplierFactorNumeric") && !n.Has("cbc:BaseAmount") }, docAC...), []assert{
				a("PEPPOL-EN16931-R041", func(*N) bool { return false }),
			}},
			{atIf(func(n *N) bool { return !n.Has("cbc:MultiplierFactorNumeric") && n.Has("cbc:BaseAmount") }, docAC...), []assert{
				a("PEPPOL-EN16931-R042", func(*N) bool { return false }),
			}},
			{at(docAC...), []assert{
				a("PEPPOL-EN16931-R040", func(n *N) bool {
					if !n.Has("cbc:MultiplierFactorNumeric") || !n.Has("cbc:BaseAmount") {
						return true
					}
					want := n.One("cbc:BaseAmount").DecVal().Mul(n.One("cbc:MultiplierFactorNumeric").DecVal()).Div(hundred)
					return slack(decOr(n, "cbc:Amount", decimal.Zero), want, slackFor(currency(n)))
				}),
				a("PEPPOL-EN16931-R043", func(n *N) bool { return indicatorOK(n.Str("cbc:ChargeIndicator")) }),
			}},
			{atIf(func(n *N) bool { return directDebit(n.Str("cbc:PaymentMeansCode")) }, "cac:PaymentMeans"), []assert{
				a("PEPPOL-EN16931-R061", has("cac:PaymentMandate/cbc:ID")),
			}},
			{atIf(rootHas("cac:InvoicePeriod/cbc:StartDate"), "/ubl:Invoice/cac:InvoiceLine/cac:InvoicePeriod/cbc:StartDate", "/cn:CreditNote/cac:CreditNoteLine/cac:InvoicePeriod/cbc:StartDate"), []assert{
				a("PEPPOL-EN16931-R110", period("cbc:StartDate", func(cmp int) bool { return cmp >= 0 })),
			}},
			{atIf(rootHas("cac:InvoicePeriod/cbc:EndDate"), "/ubl:Invoice/cac:InvoiceLine/cac:InvoicePeriod/cbc:EndDate", "/cn:CreditNote/cac:CreditNoteLine/cac:InvoicePeriod/cbc:EndDate"), []assert{
				a("PEPPOL-EN16931-R111", period("cbc:EndDate", func(cmp int) bool { return cmp <= 0 })),
			}},
			{at("cac:InvoiceLine", "cac:CreditNoteLine"), []assert{
				a("PEPPOL-EN16931-R120", func(n *N) bool {
					q := "cbc:CreditedQuantity"
					if isInvoice(n) {
						q = "cbc:InvoicedQuantity"
					}
					base, ok := nonZeroOr(n, "cac:Price/cbc:BaseQuantity")
					if !ok {
						base = decimal.NewFromInt(1)
					}
					acs := n.All("cac:AllowanceCharge")
					byIndicator := func(v string) []*N {
						return amountsOf(Where(acs, func(ac *N) bool { return ac.Str("cbc:ChargeIndicator") == v }))
					}
					want := lineNet(decOr(n, q, decimal.NewFromInt(1)), decOr(n, "cac:Price/cbc:PriceAmount", decimal.Zero), base, roundedSum(byIndicator("true")), roundedSum(byIndicator("false")))
					return slack(decOr(n, "cbc:LineExtensionAmount", decimal.Zero), want, slackFor(currency(n)))
				}),
				a("PEPPOL-EN16931-R121", func(n *N) bool {
					return !n.Has("cac:Price/cbc:BaseQuantity") || n.One("cac:Price/cbc:BaseQuantity").DecVal().IsPositive()
				}),
				a("PEPPOL-EN16931-R101", func(n *N) bool {
					return !n.Has("cac:DocumentReference") || anyText(n.All("cac:DocumentReference/cbc:DocumentTypeCode"), "130")
				}),
			}},
			{at("cac:Price/cac:AllowanceCharge"), []assert{
				a("PEPPOL-EN16931-R044", func(n *N) bool { return n.Str("cbc:ChargeIndicator") == "false" }),
				a("PEPPOL-EN16931-R046", grossPriceOK),
			}},
			{atIf(hasAttr("unitCode"), "cac:Price/cbc:BaseQuantity"), []assert{
				a("PEPPOL-EN16931-R130", func(n *N) bool {
					line := n.parent.parent
					if !line.Has("cbc:InvoicedQuantity") && !line.Has("cbc:CreditedQuantity") {
						return true
					}
					q := "cbc:CreditedQuantity"
					if isInvoice(n) {
						q = "cbc:InvoicedQuantity"
					}
					unit := rawAttr(n, "unitCode")
					return Any(line.All(q), func(m *N) bool { return hasRawAttr(m, "unitCode") && rawAttr(m, "unitCode") == unit })
				}),
			}},
		},
	}
}

func peppolCII() []pattern {
	const (
		settlement = "rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement" // below the root
		indicator  = "ram:ChargeIndicator/udt:Indicator"
	)
	currency := func(n *N) string { return n.doc.root.Str(settlement + "/ram:InvoiceCurrencyCode") }
	taxCurrency := func(n *N) (string, bool) {
		m := n.doc.root.One(settlement + "/ram:TaxCurrencyCode")
		if m == nil {
			return "", false
		}
		return m.Text, true
	}
	// totals are the header TaxTotalAmounts whose currencyID equals (or, with other, differs
	// from) the value of cur; XPath compares with every node of $documentCurrencyCode.
	totals := func(n *N, cur string, present, other bool) []*N {
		return Where(n.All("ram:SpecifiedTradeSettlementHeaderMonetarySummation/ram:TaxTotalAmount"), func(m *N) bool {
			id, ok := m.AttrVal("currencyID")
			if !ok || !present {
				return false
			}
			id = rawAttr(m, "currencyID")
			return (id == cur) != other
		})
	}
	lineBill := "rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedLineTradeSettlement/ram:BillingSpecifiedPeriod/"
	period := func(p string, ok func(line, doc string) bool) func(n *N) bool {
		return func(n *N) bool {
			line := n.All("udt:DateTimeString")
			doc := n.doc.root.All(settlement + "/ram:BillingSpecifiedPeriod/" + p + "/udt:DateTimeString")
			for _, l := range line {
				for _, d := range doc {
					if ok(l.Text, d.Text) {
						return true
					}
				}
			}
			return false
		}
	}
	headerPeriod := func(p string) func(*N) bool {
		return func(n *N) bool {
			return n.doc.root.Has(settlement + "/ram:BillingSpecifiedPeriod/" + p)
		}
	}
	return []pattern{
		{{where(func(n *N) bool {
			return emptyLeaf(n) && !(n.Local == "ApplicableHeaderTradeDelivery" && n.Space == prefixes["ram"])
		}), []assert{
			a("PEPPOL-EN16931-R008", func(*N) bool { return false }),
		}}},
		{{at("rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedLineTradeAgreement/ram:GrossPriceProductTradePrice"), []assert{
			a("PEPPOL-EN16931-R044", func(n *N) bool {
				return !n.Has("ram:AppliedTradeAllowanceCharge/ram:ActualAmount") || anyText(n.All("ram:AppliedTradeAllowanceCharge/"+indicator), "false")
			}),
			a("PEPPOL-EN16931-R046", func(n *N) bool {
				if !n.Has("ram:ChargeAmount") {
					return true
				}
				net := n.parent.One("ram:NetPriceProductTradePrice/ram:ChargeAmount")
				if net == nil {
					return false // a missing operand makes the XPath comparison false
				}
				return net.DecVal().Equal(n.One("ram:ChargeAmount").DecVal().Sub(decOr(n, "ram:AppliedTradeAllowanceCharge/ram:ActualAmount", decimal.Zero)))
			}),
		}}},
		{
			{at("rsm:ExchangedDocumentContext"), []assert{
				a("PEPPOL-EN16931-R001", has("ram:BusinessProcessSpecifiedDocumentContextParameter/ram:ID")),
			}},
			{at("ram:ApplicableHeaderTradeSettlement"), []assert{
				a("PEPPOL-EN16931-R005", func(n *N) bool {
					return !n.Has("ram:TaxCurrencyCode") || n.Str("ram:TaxCurrencyCode") != n.Str("ram:InvoiceCurrencyCode")
				}),
				a("PEPPOL-EN16931-R053", func(n *N) bool {
					return len(totals(n, currency(n), n.doc.root.Has(settlement+"/ram:InvoiceCurrencyCode"), false)) <= 1
				}),
				a("PEPPOL-EN16931-R054", func(n *N) bool {
					want := 0
					if n.Has("ram:TaxCurrencyCode") {
						want = 1
					}
					return len(totals(n, currency(n), n.doc.root.Has(settlement+"/ram:InvoiceCurrencyCode"), true)) == want
				}),
				a("PEPPOL-EN16931-R055", func(n *N) bool {
					doc := totals(n, currency(n), n.doc.root.Has(settlement+"/ram:InvoiceCurrencyCode"), false)
					tc, hasTax := taxCurrency(n)
					if !hasTax || len(doc) == 0 {
						return true
					}
					tax := totals(n, tc, true, false)
					return anyCmp(tax, isNeg) && anyCmp(doc, isNeg) || anyCmp(tax, notNeg) && anyCmp(doc, notNeg)
				}),
			}},
			{at("ram:BuyerTradeParty"), []assert{a("PEPPOL-EN16931-R010", has("ram:URIUniversalCommunication/ram:URIID"))}},
			{at("ram:SellerTradeParty"), []assert{a("PEPPOL-EN16931-R020", has("ram:URIUniversalCommunication/ram:URIID"))}},
			{atIf(func(n *N) bool { return n.Has("ram:CalculationPercent") && !n.Has("ram:BasisAmount") }, "ram:SpecifiedTradeAllowanceCharge"), []assert{
				a("PEPPOL-EN16931-R041", func(*N) bool { return false }),
			}},
			{atIf(func(n *N) bool { return !n.Has("ram:CalculationPercent") && n.Has("ram:BasisAmount") }, "ram:SpecifiedTradeAllowanceCharge"), []assert{
				a("PEPPOL-EN16931-R042", func(*N) bool { return false }),
			}},
			{at("ram:SpecifiedTradeAllowanceCharge"), []assert{
				a("PEPPOL-EN16931-R040", func(n *N) bool {
					if !n.Has("ram:CalculationPercent") || !n.Has("ram:BasisAmount") {
						return true
					}
					want := n.One("ram:BasisAmount").DecVal().Mul(n.One("ram:CalculationPercent").DecVal()).Div(hundred)
					return slack(decOr(n, "ram:ActualAmount", decimal.Zero), want, slackFor(currency(n)))
				}),
				a("PEPPOL-EN16931-R043-1", func(n *N) bool { return indicatorOK(n.Str(indicator)) }),
			}},
			{at("ram:AppliedTradeAllowanceCharge"), []assert{
				a("PEPPOL-EN16931-R043-2", func(n *N) bool { return indicatorOK(n.Str(indicator)) }),
			}},
			{atIf(func(n *N) bool { return directDebit(n.Str("ram:TypeCode")) }, "ram:SpecifiedTradeSettlementPaymentMeans"), []assert{
				a("PEPPOL-EN16931-R061", func(n *N) bool {
					return n.parent.Has("ram:SpecifiedTradePaymentTerms/ram:DirectDebitMandateID")
				}),
			}},
			{atIf(headerPeriod("ram:StartDateTime"), "/rsm:CrossIndustryInvoice/"+lineBill+"ram:StartDateTime"), []assert{
				a("PEPPOL-EN16931-R110", period("ram:StartDateTime", func(l, d string) bool { return l >= d })),
			}},
			{atIf(headerPeriod("ram:EndDateTime"), "/rsm:CrossIndustryInvoice/"+lineBill+"ram:EndDateTime"), []assert{
				a("PEPPOL-EN16931-R111", period("ram:EndDateTime", func(l, d string) bool { return l <= d })),
			}},
			{at("ram:IncludedSupplyChainTradeLineItem"), []assert{
				a("PEPPOL-EN16931-R120", func(n *N) bool {
					base, ok := nonZeroOr(n, "ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:BasisQuantity")
					if !ok {
						if base, ok = nonZeroOr(n, "ram:SpecifiedLineTradeAgreement/ram:GrossPriceProductTradePrice/ram:BasisQuantity"); !ok {
							base = decimal.NewFromInt(1)
						}
					}
					stated, want := ciiLineNet(n, base)
					return slack(stated, want, slackFor(currency(n)))
				}),
				a("PEPPOL-EN16931-R101", func(n *N) bool {
					return !n.Has("ram:SpecifiedLineTradeSettlement/ram:AdditionalReferencedDocument") ||
						anyText(n.All("ram:SpecifiedLineTradeSettlement/ram:AdditionalReferencedDocument/ram:TypeCode"), "130")
				}),
			}},
			{at("ram:NetPriceProductTradePrice", "ram:GrossPriceProductTradePrice"), []assert{
				a("PEPPOL-EN16931-R121", func(n *N) bool {
					return !n.Has("ram:BasisQuantity") || n.One("ram:BasisQuantity").DecVal().IsPositive()
				}),
			}},
			{atIf(hasAttr("unitCode"), "ram:NetPriceProductTradePrice/ram:BasisQuantity", "ram:GrossPriceProductTradePrice/ram:BasisQuantity"), []assert{
				a("PEPPOL-EN16931-R130", func(n *N) bool {
					unit := rawAttr(n, "unitCode")
					line := n.parent.parent.parent // ../../.. is empty for a price directly below the root
					if line == nil {
						return false
					}
					return Any(line.All("ram:SpecifiedLineTradeDelivery/ram:BilledQuantity"), func(m *N) bool {
						return hasRawAttr(m, "unitCode") && rawAttr(m, "unitCode") == unit
					})
				}),
			}},
		},
	}
}

// ciiLineNet is a CII line's stated net amount (BT-131) and the one its billed quantity,
// net price, base quantity and line allowances and charges give (PEPPOL-EN16931-R120).
// KoSIT's copy of the rule and Peppol BIS's differ in the base quantity they take and in
// the slack they allow, not in this.
func ciiLineNet(n *N, base decimal.Decimal) (stated, computed decimal.Decimal) {
	acs := n.All("ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeAllowanceCharge")
	byIndicator := func(v string) []*N {
		var out []*N
		for _, ac := range Where(acs, func(ac *N) bool { return ac.Str("ram:ChargeIndicator/udt:Indicator") == v }) {
			out = append(out, ac.All("ram:ActualAmount")...)
		}
		return out
	}
	computed = lineNet(decOr(n, "ram:SpecifiedLineTradeDelivery/ram:BilledQuantity", decimal.NewFromInt(1)),
		decOr(n, "ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:ChargeAmount", decimal.Zero), base,
		roundedSum(byIndicator("true")), roundedSum(byIndicator("false")))
	return decOr(n, "ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount", decimal.Zero), computed
}
