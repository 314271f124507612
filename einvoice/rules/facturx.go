package rules

import (
	"strings"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/cii"
)

// isFacturX tells whether a CII document follows a Factur-X / ZUGFeRD profile (XRechnung
// documents are checked against the XRechnung rules instead).
func isFacturX(p einvoice.Profile) bool {
	switch p {
	case einvoice.Minimum, einvoice.BasicWL, einvoice.Basic, einvoice.EN16931, einvoice.Extended:
		return true
	}
	return false
}

// facturXOff names the EN 16931 rules a Factur-X profile does not check: MINIMUM and
// BASIC WL carry no lines and few terms, EXTENDED replaces the totals rules with its own
// (BR-FXEXT-*). The EN16931 profile keeps every CEN rule.
func facturXOff(p einvoice.Profile, patterns []*compiled) map[string]bool {
	keep, ok := facturXRuleIDs[string(p)]
	if !ok || p == einvoice.EN16931 {
		return nil
	}
	off := map[string]bool{}
	for _, c := range patterns {
		for _, r := range c.rules {
			for _, a := range r.asserts {
				switch {
				case strings.HasPrefix(a.id, "BR-") && !strings.HasPrefix(a.id, "BR-CL-") && !keep[a.id]:
					off[a.id] = true
				case p == einvoice.Extended && strings.HasPrefix(a.id, "CII-"):
					// EXTENDED is conformant, not compliant: it goes beyond the EN 16931
					// binding of CII, whose syntax rules therefore do not apply.
					off[a.id] = true
				}
			}
		}
	}
	return off
}

// localPath is the element's path below the root in local names, as cii.Allowed takes it.
func localPath(n *N) string {
	var parts []string
	for m := n; m.parent != nil; m = m.parent {
		parts = append(parts, m.Local)
	}
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		b.WriteString(parts[i])
		if i > 0 {
			b.WriteByte('/')
		}
	}
	return b.String()
}

// facturXProfile checks what the profile's schema allows: no element or attribute beyond
// it (FX-PROFILE, our id; the official check is the profile's XSD).
func facturXProfile(p einvoice.Profile) pattern {
	return pattern{
		{where(func(n *N) bool { return n.parent != nil }), []assert{
			a("FX-PROFILE", Fatal, "The element (or one of its attributes) is not part of the "+string(p)+" profile.", func(n *N) bool {
				path := localPath(n)
				if !cii.Allowed(p, path) {
					// Report an element outside the profile once, at its top.
					return n.parent.parent != nil && !cii.Allowed(p, localPath(n.parent))
				}
				for _, at := range n.Attrs {
					if at.Space == "" && !cii.Allowed(p, path+"/@"+at.Local) {
						return false
					}
				}
				return true
			}),
		}},
	}
}

// within is |x - y| <= tolerance, the EXTENDED comparison of totals.
func within(x, y, tolerance decimal.Decimal) bool { return x.Sub(y).Abs().LessThanOrEqual(tolerance) }

var cent = decimal.New(1, -2)

// extendedSums are the document sums EXTENDED compares its totals with; logistics service
// charges count as charges there.
type extendedSums struct {
	lines, allowances, charges   decimal.Decimal
	nLines, nAllowances, nCharge int
}

func sumsOf(n *N) extendedSums {
	root := n.doc.root
	st := root.One(ciiSettlement)
	var s extendedSums
	lines := root.All(ciiTx + "/ram:IncludedSupplyChainTradeLineItem")
	s.nLines = len(lines)
	s.lines = roundInt(Sum(flatten(lines, "ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount")).Mul(hundred)).Div(hundred)
	if st == nil {
		return s
	}
	acs := st.All("ram:SpecifiedTradeAllowanceCharge")
	allowances := Where(acs, func(ac *N) bool { return anyText(ac.All("ram:ChargeIndicator/udt:Indicator"), "false") })
	charges := Where(acs, func(ac *N) bool { return anyText(ac.All("ram:ChargeIndicator/udt:Indicator"), "true") })
	logistics := st.All("ram:SpecifiedLogisticsServiceCharge")
	s.nAllowances = len(allowances)
	s.nCharge = len(charges) + len(logistics)
	s.allowances = round2(Sum(flatten(allowances, "ram:ActualAmount")))
	s.charges = round2(Sum(flatten(charges, "ram:ActualAmount"))).Add(round2(Sum(flatten(logistics, "ram:AppliedAmount"))))
	return s
}

func count(k int) decimal.Decimal { return cent.Mul(decimal.NewFromInt(int64(k))) }

// extendedCategory is BR-FXEXT-<cat>-08: a breakdown's taxable amount against its lines,
// allowances, charges and logistics charges of the category (and rate, for S), within a
// cent per item.
func extendedCategory(n *N, tax *N, code string, rate *decimal.Decimal) bool {
	root := n.doc.root
	basis, ok := tax.Dec("ram:BasisAmount")
	if !ok {
		return false
	}
	match := func(t *N, rateEl string) bool {
		if !anyText(t.All("ram:CategoryCode"), code) {
			return false
		}
		return rate == nil || anyDec(t, rateEl, func(d decimal.Decimal) bool { return d.Equal(*rate) })
	}
	var lines []*N
	for _, l := range root.All(ciiTx + "/ram:IncludedSupplyChainTradeLineItem") {
		if Any(l.All("ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax"), func(t *N) bool { return match(t, "ram:RateApplicablePercent") }) {
			lines = append(lines, l)
		}
	}
	st := root.One(ciiSettlement)
	var allowances, charges, logistics []*N
	if st != nil {
		for _, ac := range st.All("ram:SpecifiedTradeAllowanceCharge") {
			if !Any(ac.All("ram:CategoryTradeTax"), func(t *N) bool { return match(t, "ram:RateApplicablePercent") }) {
				continue
			}
			if acIs(true)(ac) {
				charges = append(charges, ac)
			} else {
				allowances = append(allowances, ac)
			}
		}
		logistics = Where(st.All("ram:SpecifiedLogisticsServiceCharge"), func(l *N) bool {
			return Any(l.All("ram:AppliedTradeTax"), func(t *N) bool { return match(t, "ram:RateApplicablePercent") })
		})
	}
	want := round2(Sum(flatten(lines, "ram:SpecifiedLineTradeSettlement/ram:SpecifiedTradeSettlementLineMonetarySummation/ram:LineTotalAmount"))).
		Add(round2(Sum(flatten(charges, "ram:ActualAmount")))).
		Add(round2(Sum(flatten(logistics, "ram:AppliedAmount")))).
		Sub(round2(Sum(flatten(allowances, "ram:ActualAmount"))))
	return within(basis, want, count(len(lines)+len(allowances)+len(charges)+len(logistics)))
}

// facturXExtended is the EXTENDED profile's own rules.
func facturXExtended() pattern {
	const summation = "//ram:SpecifiedTradeSettlementHeaderMonetarySummation"
	noteContent := func(n *N) bool { return n.Has("ram:ContentCode") || n.Has("ram:Content") }
	hasSubject := has("ram:SubjectCode")
	p := pattern{
		{at(summation), []assert{
			a("BR-FXEXT-CO-10", Fatal, "The sum of line net amounts (BT-106) must equal the sum of the line net amounts (BT-131), within a cent per line.", func(n *N) bool {
				s := sumsOf(n)
				v, ok := n.Dec("ram:LineTotalAmount")
				return ok && within(v, s.lines, count(s.nLines))
			}),
			a("BR-FXEXT-CO-11", Fatal, "The sum of allowances (BT-107) must equal the document level allowances, within a cent per allowance.", func(n *N) bool {
				s := sumsOf(n)
				v, ok := n.Dec("ram:AllowanceTotalAmount")
				if !ok {
					return s.nAllowances == 0
				}
				return within(v, s.allowances, count(s.nAllowances))
			}),
			a("BR-FXEXT-CO-12", Fatal, "The sum of charges (BT-108) must equal the document level charges and logistics service charges, within a cent per charge.", func(n *N) bool {
				s := sumsOf(n)
				v, ok := n.Dec("ram:ChargeTotalAmount")
				noDocCharges := !Any(n.doc.root.All(ciiSettlement+"/ram:SpecifiedTradeAllowanceCharge"), func(ac *N) bool { return anyText(ac.All("ram:ChargeIndicator/udt:Indicator"), "true") })
				if !ok {
					return noDocCharges
				}
				return within(v, s.charges, count(s.nCharge))
			}),
			a("BR-FXEXT-CO-13", Fatal, "The total without VAT (BT-109) must equal the line sum minus allowances plus charges, within a cent per item.", func(n *N) bool {
				s := sumsOf(n)
				v, ok := n.Dec("ram:TaxBasisTotalAmount")
				return ok && within(v, s.lines.Sub(s.allowances).Add(s.charges), count(s.nLines+s.nAllowances+s.nCharge))
			}),
			a("BR-FXEXT-CO-15", Fatal, "The total with VAT (BT-112) must equal the total without VAT (BT-109) plus the VAT total (BT-110), within a cent per item.", func(n *N) bool {
				s := sumsOf(n)
				basis, ok1 := n.Dec("ram:TaxBasisTotalAmount")
				grand, ok2 := n.Dec("ram:GrandTotalAmount")
				if !ok1 || !ok2 {
					return false
				}
				for _, cur := range n.All("../ram:InvoiceCurrencyCode") {
					tax := Where(n.All("ram:TaxTotalAmount"), func(t *N) bool { return rawAttr(t, "currencyID") == cur.Text && hasRawAttr(t, "currencyID") })
					ok := (len(tax) == 1 && within(grand.Sub(tax[0].DecVal()), basis, count(s.nLines+s.nAllowances+s.nCharge))) ||
						(len(tax) != 1 && basis.Equal(grand))
					if !ok {
						return false
					}
				}
				return true
			}),
		}},
		{atIf(func(c *N) bool { return c.Text == "S" }, "//ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax/ram:CategoryCode"), []assert{
			a("BR-FXEXT-S-08", Fatal, "The taxable amount of each standard rated breakdown must equal its lines, allowances and charges of that rate, within a cent per item.", func(n *N) bool {
				for _, r := range n.All("../ram:RateApplicablePercent") {
					rate := r.DecVal()
					if !extendedCategory(n, n.parent, "S", &rate) {
						return false
					}
				}
				return true
			}),
		}},
		{atIf(taxCat("S"), "//ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax"), []assert{
			a("BR-FXEXT-S-09", Fatal, "The VAT amount of a standard rated breakdown must be its taxable amount times its rate, within a cent per item.", func(n *N) bool {
				calc, ok1 := n.Dec("ram:CalculatedAmount")
				basis, ok2 := n.Dec("ram:BasisAmount")
				rate, ok3 := n.Dec("ram:RateApplicablePercent")
				if !ok1 || !ok2 || !ok3 {
					return false
				}
				s := sumsOf(n)
				want := roundInt(basis.Mul(rate).Mul(hundred)).Div(decimal.NewFromInt(10000))
				return within(calc, want, count(s.nLines+s.nAllowances+s.nCharge))
			}),
		}},
		{atIf(hasSubject, "/rsm:CrossIndustryInvoice/rsm:ExchangedDocument/ram:IncludedNote"), []assert{
			a("BR-FXEXT-01", Fatal, "A note with a subject code needs its text or content code.", noteContent),
		}},
		{atIf(hasSubject, "//ram:AssociatedDocumentLineDocument/ram:IncludedNote"), []assert{
			a("BR-FXEXT-02", Fatal, "A line note with a subject code needs its text or content code.", noteContent),
		}},
		{atIf(notUnder("ram:SellerTradeParty"), "//ram:SpecifiedTaxRegistration/ram:ID"), []assert{
			a("BR-FXEXT-03", Fatal, "A tax registration outside the seller is a VAT identifier (schemeID VA).", func(n *N) bool { return rawAttr(n, "schemeID") == "VA" }),
		}},
		{at("//ram:ApplicableProductCharacteristic/ram:TypeCode"), []assert{
			a("BR-FXEXT-04", Fatal, "An item characteristic type code must be from UNTDID 6313.", func(n *N) bool { return !containsSpace(n.Val()) && untdid6313[n.Val()] }),
		}},
	}
	for _, f := range []struct{ prefix, code string }{{"Z", "Z"}, {"E", "E"}, {"AE", "AE"}, {"G", "G"}, {"IC", "K"}} {
		code := f.code
		p = append(p, rule{atIf(func(c *N) bool { return c.Text == code }, "//ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax/ram:CategoryCode"), []assert{
			a("BR-FXEXT-"+f.prefix+"-08", Fatal, "The taxable amount of the "+code+" breakdown must equal its lines, allowances and charges, within a cent per item.", func(n *N) bool {
				return extendedCategory(n, n.parent, code, nil)
			}),
		}})
	}
	for _, f := range []struct{ prefix, code string }{{"AF", "L"}, {"AG", "M"}, {"O", "O"}} {
		code := f.code
		p = append(p, rule{atIf(taxCat(code), "//rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax"), []assert{
			a("BR-FXEXT-"+f.prefix+"-08", Fatal, "The taxable amount of the "+code+" breakdown must equal its lines, allowances and charges, within a cent per item.", func(n *N) bool {
				return extendedCategory(n, n, code, nil)
			}),
		}})
	}
	return p
}
