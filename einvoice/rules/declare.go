package rules

import "sync"

// declaration is a rule as the standard states it, whatever the syntax: its severity and
// what it requires. Bindings refer to it by id (a).
type declaration struct {
	flag Severity
	msg  string
}

// declarationOf finds the declaration of a rule id: in declared, or among the rules declared
// by the VAT category template.
func declarationOf(id string) (declaration, bool) {
	for _, m := range []map[string]declaration{declared, declaredPeppol, declaredNational} {
		if d, ok := m[id]; ok {
			return d, true
		}
	}
	d, ok := templated()[id]
	return d, ok
}

// templated holds the rules that a template declares for each VAT category (BR-S-01 …
// BR-O-10) and for each category of the Factur-X EXTENDED sub-line rules: the same words
// with the category's name. Built on first use, as the rule sets are.
var templated = sync.OnceValue(func() map[string]declaration {
	d := map[string]declaration{}
	for _, f := range vatFamilies {
		f.declare(d)
	}
	for _, f := range facturXExtendedCategories {
		d["BR-FXEXT-"+f.prefix+"-08"] = declaration{Fatal, "The taxable amount of the " + f.code + " breakdown must equal its lines, allowances and charges, within a cent per item."}
	}
	return d
})

// declare adds the rules of the category (-01 to -10) to d; the UBL bindings are in
// ubl_model.go, the CII ones in cii.go.
func (f vatFamily) declare(d map[string]declaration) {
	id := func(n string) string { return "BR-" + f.prefix + "-" + n }
	need := map[string]string{
		"seller":          "the Seller VAT identifier (BT-31) or the Seller tax representative VAT identifier (BT-63)",
		"sellerVAT":       "the Seller VAT identifier (BT-31) or the Seller tax representative VAT identifier (BT-63)",
		"seller+buyer":    "the Seller VAT identifier (BT-31) or tax representative VAT identifier (BT-63), and the Buyer VAT identifier (BT-48) or legal registration identifier (BT-47)",
		"seller+buyerVAT": "the Seller VAT identifier (BT-31) or tax representative VAT identifier (BT-63), and the Buyer VAT identifier (BT-48)",
		"none":            "no Seller (BT-31), Seller tax representative (BT-63) or Buyer (BT-48) VAT identifier",
	}[f.ids]
	rate := map[string]string{
		"positive":    "has a VAT rate greater than zero",
		"zero":        "has a VAT rate of 0",
		"none":        "has no VAT rate",
		"nonnegative": "has a VAT rate of zero or more",
	}[f.rate]
	breakdowns := "exactly one"
	if f.perRate {
		breakdowns = "at least one"
	}
	exemption := "must not have a VAT exemption reason (BT-120) or code (BT-121)"
	if f.exemption {
		exemption = "needs a VAT exemption reason (BT-120) or code (BT-121)"
	}
	perRate, amount := "", "must be 0"
	if f.perRate {
		perRate, amount = " and rate", "must be its taxable amount times its rate"
	}
	d[id("01")] = declaration{Fatal, "An invoice with " + f.name + " lines, allowances or charges needs " + breakdowns + " VAT breakdown (BG-23) of that category, and one without none."}
	d[id("02")] = declaration{Fatal, "An invoice line in category " + f.name + " requires " + need + "."}
	d[id("03")] = declaration{Fatal, "A document level allowance in category " + f.name + " requires " + need + "."}
	d[id("04")] = declaration{Fatal, "A document level charge in category " + f.name + " requires " + need + "."}
	d[id("05")] = declaration{Fatal, "An invoice line in category " + f.name + " " + rate + " (BT-152)."}
	d[id("06")] = declaration{Fatal, "A " + f.name + " document level allowance " + rate + " (BT-96)."}
	d[id("07")] = declaration{Fatal, "A " + f.name + " document level charge " + rate + " (BT-103)."}
	d[id("08")] = declaration{Fatal, "The taxable amount (BT-116) of the " + f.name + " VAT breakdown must equal its line net amounts plus charges minus allowances of that category" + perRate + "."}
	d[id("09")] = declaration{Fatal, "The VAT amount (BT-117) of the " + f.name + " VAT breakdown " + amount + "."}
	d[id("10")] = declaration{Fatal, "A " + f.name + " VAT breakdown " + exemption + "."}
}
