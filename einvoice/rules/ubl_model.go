package rules

import (
	"strings"

	"github.com/shopspring/decimal"
)

// UBL helpers. Names follow the business groups of EN 16931.

// vat tells whether a TaxCategory or PartyTaxScheme belongs to the VAT scheme.
func vat(n *N) bool {
	return Any(n.All("cac:TaxScheme/cbc:ID"), func(id *N) bool { return strings.ToUpper(id.Val()) == "VAT" })
}

// category tells whether a tax category element has the code.
func category(code string) func(*N) bool {
	return func(n *N) bool { return Any(n.All("cbc:ID"), func(id *N) bool { return id.Val() == code }) }
}

func both(f, g func(*N) bool) func(*N) bool { return func(n *N) bool { return f(n) && g(n) } }

// charge reads cbc:ChargeIndicator as xs:boolean; is tells whether it equals want.
func charge(want bool) func(*N) bool {
	return func(n *N) bool {
		return Any(n.All("cbc:ChargeIndicator"), func(c *N) bool {
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

// lineNames are the line elements of both document types.
var lineNames = []string{"cac:InvoiceLine", "cac:CreditNoteLine"}

func uLines(n *N, prefix string) []*N {
	var out []*N
	for _, l := range lineNames {
		out = append(out, n.All(prefix+l)...)
	}
	return out
}

func notBlank(n *N, p string) bool { return n.Str(p) != "" }

// decEq compares an optional decimal with a value: false when absent (XPath's empty
// comparison).
func decEq(d decimal.Decimal, ok bool, v decimal.Decimal) bool { return ok && d.Equal(v) }

// maxDecimals checks that the element at p, if any, has at most two decimals.
func maxDecimals(p string) func(*N) bool {
	return func(n *N) bool {
		for _, m := range n.All(p) {
			if decimals(strings.TrimSpace(m.Text)) > 2 {
				return false
			}
		}
		return true
	}
}

// sellerVAT: //cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID,
// with or without the VAT scheme check, or the tax representative's VAT identifier.
func sellerOrRepVAT(n *N, schemeCheck bool) bool {
	seller := n.All("//cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme")
	if schemeCheck {
		seller = Where(seller, vat)
	}
	if Any(seller, func(m *N) bool { return m.Has("cbc:CompanyID") }) {
		return true
	}
	return Any(Where(n.All("//cac:TaxRepresentativeParty/cac:PartyTaxScheme"), vat), func(m *N) bool { return m.Has("cbc:CompanyID") })
}

func buyerVAT(n *N) bool {
	return Any(Where(n.All("//cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme"), vat), func(m *N) bool { return m.Has("cbc:CompanyID") })
}

func anyVATID(n *N, p string) bool {
	return Any(Where(n.All(p), vat), func(m *N) bool { return m.Has("cbc:CompanyID") })
}

// vatFamily describes the rules of one VAT category (BR-S-*, BR-Z-*, ...), whose official
// forms differ in details that decide verdicts on edge cases; the flags carry them.
type vatFamily struct {
	prefix, code, name string
	rate               string // "positive", "zero", "none", "nonnegative"
	exemption          bool   // a reason is required (else forbidden)
	// perRate: the breakdown's taxable amount is checked per rate within 1 unit (S, AF, AG),
	// else it must equal the sum exactly.
	perRate bool
	// ids: which identifiers the lines, allowances and charges of this category need.
	ids string // "seller", "seller+buyer" (AE), "seller+buyerVAT" (IC), "none" (O)
}

var vatFamilies = []vatFamily{
	{"AE", "AE", "Reverse charge", "zero", true, false, "seller+buyer"},
	{"E", "E", "Exempt from VAT", "zero", true, false, "seller"},
	{"G", "G", "Export outside the EU", "zero", true, false, "sellerVAT"},
	{"IC", "K", "Intra-community supply", "zero", true, false, "seller+buyerVAT"},
	{"AF", "L", "IGIC (Canary Islands)", "nonnegative", false, true, "seller"},
	{"AG", "M", "IPSI (Ceuta and Melilla)", "nonnegative", false, true, "seller"},
	{"O", "O", "Not subject to VAT", "none", true, false, "none"},
	{"S", "S", "Standard rated", "positive", false, true, "seller"},
	{"Z", "Z", "Zero rated", "zero", false, false, "seller"},
}

// ublVATRules are the Invoice-level rules of a category (-01 to -04) and the rules at its
// breakdown, line, allowance and charge tax categories (-05 to -10).
func (f vatFamily) ublInvoice() []assert {
	is := category(f.code)
	isVAT := both(is, vat)
	id := func(n string) string { return "BR-" + f.prefix + "-" + n }
	ids := func(n *N) bool {
		switch f.ids {
		case "seller+buyer":
			return sellerOrRepVAT(n, false) && (buyerVAT(n) || n.Has("//cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID"))
		case "seller+buyerVAT":
			return sellerOrRepVAT(n, true) && buyerVAT(n)
		case "sellerVAT":
			return sellerOrRepVAT(n, true)
		case "none":
			return !anyVATID(n, "//cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme") &&
				!anyVATID(n, "//cac:TaxRepresentativeParty/cac:PartyTaxScheme") &&
				!anyVATID(n, "//cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme")
		}
		return sellerOrRepVAT(n, false)
	}
	used := func(n *N, p string, filter func(*N) bool) bool { return len(Where(n.All(p), filter)) > 0 }
	first := func(n *N) bool {
		breakdown := n.All("cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory")
		switch f.prefix {
		case "S":
			inDoc := len(Where(n.All("//cac:AllowanceCharge/cac:TaxCategory"), is)) + len(Where(n.All("//cac:ClassifiedTaxCategory"), is))
			inBreakdown := len(Where(breakdown, is))
			return (inDoc > 0 && inBreakdown > 0) || (inDoc == 0 && inBreakdown == 0)
		case "AF", "AG":
			inDoc := len(Where(n.All("//cac:AllowanceCharge/cac:TaxCategory"), isVAT)) + len(Where(n.All("//cac:ClassifiedTaxCategory"), isVAT))
			bf := is
			if f.prefix == "AG" {
				bf = isVAT
			}
			return (inDoc > 0 && len(Where(breakdown, bf)) > 0) || (inDoc == 0 && len(Where(breakdown, isVAT)) == 0)
		}
		inDoc := used(n, "//cac:TaxCategory", isVAT) || used(n, "//cac:ClassifiedTaxCategory", isVAT)
		return !inDoc || len(Where(breakdown, isVAT)) == 1
	}
	docAC := "//cac:AllowanceCharge"
	if f.prefix == "O" {
		docAC = "/*/cac:AllowanceCharge"
	}
	acCat := func(chg bool) func(*N) bool {
		return func(n *N) bool {
			for _, ac := range Where(n.All(docAC), charge(chg)) {
				if len(Where(ac.All("cac:TaxCategory"), isVAT)) > 0 {
					return true
				}
			}
			return false
		}
	}
	return []assert{
		a(id("01"), first),
		a(id("02"), func(n *N) bool {
			if f.prefix == "S" {
				// As the official rule reads: an S line of the VAT scheme and the
				// identifiers, or no S line at all. S lines whose tax scheme is missing
				// or not VAT fail it whatever the identifiers.
				return !used(n, "//cac:ClassifiedTaxCategory", is) || used(n, "//cac:ClassifiedTaxCategory", isVAT) && ids(n)
			}
			return !used(n, "//cac:ClassifiedTaxCategory", isVAT) || ids(n)
		}),
		a(id("03"), func(n *N) bool { return !acCat(false)(n) || ids(n) }),
		a(id("04"), func(n *N) bool { return !acCat(true)(n) || ids(n) }),
	}
}

// rateOK checks the rate of a line, allowance or charge tax category.
func (f vatFamily) rateOK(n *N) bool {
	switch f.rate {
	case "none":
		return !n.Has("cbc:Percent")
	case "positive", "nonnegative":
		// (cbc:Percent) > 0: any value compares; none is false.
		return Any(n.All("cbc:Percent"), func(p *N) bool {
			v := p.DecVal()
			return v.IsPositive() || (f.rate == "nonnegative" && v.IsZero())
		})
	}
	d, ok := n.Dec("cbc:Percent")
	return ok && d.IsZero()
}

func (f vatFamily) ublCategoryRules() []rule {
	is := both(category(f.code), vat)
	id := func(n string) string { return "BR-" + f.prefix + "-" + n }
	return []rule{
		{selector: atIf(is, "/*/cac:TaxTotal/cac:TaxSubtotal/cac:TaxCategory"), asserts: []assert{
			a(id("08"), f.ublTaxable),
			a(id("09"), f.ublTaxAmount),
			a(id("10"), func(n *N) bool {
				has := n.Has("cbc:TaxExemptionReason") || n.Has("cbc:TaxExemptionReasonCode")
				return has == f.exemption
			}),
		}},
		{selector: atIf(both(is, parentIs(charge(false))), "cac:AllowanceCharge/cac:TaxCategory"), asserts: []assert{
			a(id("06"), f.rateOK)}},
		{selector: atIf(both(is, parentIs(charge(true))), "cac:AllowanceCharge/cac:TaxCategory"), asserts: []assert{
			a(id("07"), f.rateOK)}},
		{selector: atIf(is, "cac:InvoiceLine/cac:Item/cac:ClassifiedTaxCategory", "cac:CreditNoteLine/cac:Item/cac:ClassifiedTaxCategory"), asserts: []assert{
			a(id("05"), f.rateOK)}},
	}
}

// parentIs applies a filter to the element's parent.
func parentIs(f func(*N) bool) func(*N) bool {
	return func(n *N) bool { return n.parent != nil && f(n.parent) }
}

// ublTaxable checks BT-116 of a breakdown against its lines, allowances and charges.
func (f vatFamily) ublTaxable(tc *N) bool {
	sub := tc.parent
	root := tc.doc.root
	is := category(f.code)
	taxable, ok := sub.Dec("cbc:TaxableAmount")
	sumFor := func(rate *decimal.Decimal) (decimal.Decimal, bool) {
		matchRate := func(cats []*N) bool {
			if rate == nil {
				return true
			}
			return Any(cats, func(c *N) bool {
				return Any(c.All("cbc:Percent"), func(p *N) bool { return p.DecVal().Equal(*rate) })
			})
		}
		var lines []*N
		for _, l := range uLines(root, "") {
			cats := l.All("cac:Item/cac:ClassifiedTaxCategory")
			if Any(cats, is) && matchRate(cats) {
				lines = append(lines, l)
			}
		}
		acs := func(chg bool) []*N {
			var out []*N
			for _, ac := range Where(root.All("cac:AllowanceCharge"), charge(chg)) {
				cats := ac.All("cac:TaxCategory")
				if Any(cats, is) && matchRate(cats) {
					out = append(out, ac.One("cbc:Amount"))
				}
			}
			return Where(out, func(m *N) bool { return m != nil })
		}
		var amounts []*N
		for _, l := range lines {
			amounts = append(amounts, l.All("cbc:LineExtensionAmount")...)
		}
		exists := len(lines) > 0
		if rate != nil && !exists {
			// //cac:AllowanceCharge: line level ones count for existence too.
			exists = Any(tc.All("//cac:AllowanceCharge"), func(ac *N) bool {
				cats := ac.All("cac:TaxCategory")
				return Any(cats, is) && matchRate(cats)
			})
		}
		return Sum(amounts).Add(Sum(acs(true))).Sub(Sum(acs(false))), exists
	}
	hasLines := len(uLines(root, "")) > 0
	if !f.perRate {
		s, _ := sumFor(nil)
		return hasLines && ok && taxable.Equal(s)
	}
	for _, p := range tc.All("cbc:Percent") {
		rate := p.DecVal()
		s, exists := sumFor(&rate)
		if f.prefix == "S" && !exists {
			return false
		}
		if f.prefix != "S" && !hasLines {
			return false
		}
		one := decimal.NewFromInt(1)
		if !ok || !taxable.Sub(one).LessThan(s) || !taxable.Add(one).GreaterThan(s) {
			return false
		}
	}
	return true
}

func (f vatFamily) ublTaxAmount(tc *N) bool {
	tax, ok := tc.parent.Dec("cbc:TaxAmount")
	if !f.perRate {
		return decEq(tax, ok, decimal.Zero)
	}
	taxable, okT := tc.parent.Dec("cbc:TaxableAmount")
	rate, okR := tc.Dec("cbc:Percent")
	if !ok || !okT || !okR {
		return false
	}
	want := round2(taxable.Abs().Mul(rate.Div(hundred)))
	one := decimal.NewFromInt(1)
	return tax.Abs().Sub(one).LessThan(want) && tax.Abs().Add(one).GreaterThan(want)
}
