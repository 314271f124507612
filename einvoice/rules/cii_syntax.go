package rules

import (
	"strings"
	"sync"

	"github.com/papierkram/papierkram/internal/lazyre"
)

// ciiSyntaxRule and ciiSyntaxAssert are the rows of the generated CII syntax table.
type ciiSyntaxRule struct {
	selector string
	asserts  []ciiSyntaxAssert
}

type ciiSyntaxAssert struct {
	id   string
	flag Severity
	kind string // not, max1, one, custom
	path string // "." for the context element itself
	attr string
}

func (r ciiSyntaxAssert) test() func(*N) bool {
	switch r.kind {
	case "not":
		if r.path == "." {
			return func(n *N) bool { return !hasRawAttr(n, r.attr) }
		}
		c := compile(r.path)
		if r.attr == "" {
			return func(n *N) bool { return n.one(c) == nil }
		}
		return func(n *N) bool { return !Any(n.all(c), hasAttr(r.attr)) }
	case "max1":
		return maxCount(r.path, 1)
	case "one":
		c := compile(r.path)
		return func(n *N) bool { return len(n.all(c)) == 1 }
	}
	if f := ciiSyntaxCustom[r.id]; f != nil {
		return f
	}
	panic("rules: no test for " + r.id)
}

func (r ciiSyntaxAssert) message() string {
	if m := ciiSyntaxMessages[r.id]; m != "" {
		return m
	}
	what := r.path
	if r.attr != "" {
		what = "the attribute " + r.attr
		if r.path != "." {
			what += " of " + r.path
		}
	}
	switch r.kind {
	case "max1":
		return what + " occurs at most once."
	case "one":
		return what + " occurs exactly once."
	}
	return what + " is not part of EN 16931 here and should not be present."
}

// suffix matches elements of a namespace whose local name ends with s.
func suffix(prefix, s string, except ...string) selector {
	uri := prefixes[prefix]
	return where(func(n *N) bool {
		if n.Space != uri || !strings.HasSuffix(n.Local, s) {
			return false
		}
		for _, e := range except {
			if n.Local == e {
				return false
			}
		}
		return true
	})
}

// ciiSyntaxContexts are the contexts of the CII syntax binding.
var ciiSyntaxContexts = sync.OnceValue(func() map[string]selector {
	const (
		r    = "/rsm:CrossIndustryInvoice/"
		line = r + ciiTx + "/ram:IncludedSupplyChainTradeLineItem"
	)
	return map[string]selector{
		"Specified_Trade_Settlement_PaymentMeans":         at("//ram:SpecifiedTradeSettlementPaymentMeans"),
		"Document_Context":                                at(r + "rsm:ExchangedDocumentContext"),
		"Exchanged_Document":                              at(r + "rsm:ExchangedDocument"),
		"Note_Exchanged_Document":                         at(r + "rsm:ExchangedDocument/ram:IncludedNote"),
		"Invoice_line":                                    at(line),
		"AssociatedDocumentLineDocument":                  at(line + "/ram:AssociatedDocumentLineDocument"),
		"SpecifiedTradeProduct":                           at(line + "/ram:SpecifiedTradeProduct"),
		"ApplicableProductCharacteristic":                 at(line + "/ram:SpecifiedTradeProduct/ram:ApplicableProductCharacteristic"),
		"SpecifiedLineTradeAgreement":                     at(line + "/ram:SpecifiedLineTradeAgreement"),
		"SpecifiedTradeAllowanceCharge":                   at("//ram:SpecifiedTradeAllowanceCharge"),
		"AppliedTradeAllowanceCharge":                     at("//ram:GrossPriceProductTradePrice/ram:AppliedTradeAllowanceCharge"),
		"SpecifiedLineTradeDelivery":                      at(line + "/ram:SpecifiedLineTradeDelivery"),
		"SpecifiedLineTradeSettlement":                    at(line + "/ram:SpecifiedLineTradeSettlement"),
		"ApplicableHeaderTradeAgreement":                  at(r + ciiAgreement),
		"ApplicableHeaderTradeDelivery":                   at(r + ciiDelivery),
		"ApplicableHeaderTradeSettlement":                 at(r + ciiSettlement),
		"SpecifiedTradeSettlementHeaderMonetarySummation": at(r + ciiTotals),
		"Invoice":                    at("/rsm:CrossIndustryInvoice"),
		"DocumentContextParameter":   where(func(n *N) bool { return strings.HasSuffix(n.Local, "DocumentContextParameter") }),
		"IDTypeNoAttributes":         at(r+"rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID", r+"rsm:ExchangedDocument/ram:ID", line+"/ram:AssociatedDocumentLineDocument/ram:LineID", line+"/ram:SpecifiedTradeProduct/ram:SellerAssignedID"),
		"IDType":                     suffix("ram", "ID"),
		"TypeCodeType":               at("//ram:TypeCode"),
		"NoAttributesTypeCodeType":   at(r + "rsm:ExchangedDocument/ram:TypeCode"),
		"CategoryCodeNoAttributes":   at(line + "/ram:SpecifiedLineTradeSettlement/ram:ApplicableTradeTax/ram:CategoryCode"),
		"ReferencedDocumentType":     suffix("ram", "ReferencedDocument"),
		"AmountType":                 suffix("ram", "Amount", "TaxTotalAmount"),
		"QuantityType":               suffix("ram", "Quantity"),
		"TradeTaxType":               suffix("ram", "TradeTax"),
		"BillingSpecifiedPeriodType": at("//ram:BillingSpecifiedPeriod"),
		"PostalTradeAddressType":     at("//ram:PostalTradeAddress"),
		"DateTimeString":             atIf(func(n *N) bool { return rawAttr(n, "format") == "102" }, "//udt:DateTimeString"),
	}
}) // built on first use: a process that validates no CII pays nothing

var date102 = lazyre.New(`^\s*(\d{4})(1[0-2]|0[1-9]){1}(3[01]|[12][0-9]|0[1-9]){1}\s*$`)

// oneOfIDs: a party has an identifier (BT-29, BT-46, BT-60, BT-71) or a global one, not both.
func oneOfIDs(party string) func(*N) bool {
	return func(n *N) bool { return !(n.Has(party+"/ram:ID") && n.Has(party+"/ram:GlobalID")) }
}

func refsOfType(n *N, code string, normalise bool) []*N {
	return Where(n.All("ram:AdditionalReferencedDocument"), func(d *N) bool {
		return Any(d.All("ram:TypeCode"), func(c *N) bool {
			if normalise {
				return c.Val() == code
			}
			return c.Text == code
		})
	})
}

// selfRefWithType: the context is an AdditionalReferencedDocument of one of the types.
func selfRefWithType(n *N, codes ...string) bool {
	if !n.Is("ram:AdditionalReferencedDocument") {
		return false
	}
	for _, c := range codes {
		if anyText(n.All("ram:TypeCode"), c) {
			return true
		}
	}
	return false
}

func underHeaderSettlement(n *N) bool { return n.Under("ram:ApplicableHeaderTradeSettlement") }

// sameAsFirst: every element at the path has the normalised text of the first.
func sameAsFirst(p string) func(*N) bool {
	return func(n *N) bool {
		all := n.All(p)
		for _, m := range all {
			if m.Val() != all[0].Val() {
				return false
			}
		}
		return true
	}
}

var ciiSyntaxCustom = map[string]func(*N) bool{
	"CII-SR-046": func(n *N) bool { return !n.Has("ram:GlobalID") || Any(n.All("ram:GlobalID"), hasAttr("schemeID")) },
	"CII-SR-090": func(n *N) bool {
		return !n.Has("ram:OriginTradeCountry") || n.Count("ram:OriginTradeCountry/ram:ID") == 1
	},
	"CII-SR-119": func(n *N) bool {
		const ac = "ram:GrossPriceProductTradePrice/ram:AppliedTradeAllowanceCharge"
		allowance := Any(n.All(ac+"/ram:ChargeIndicator"), indicator(false))
		return (allowance && n.Has(ac+"/ram:ActualAmount")) || (!n.Has(ac+"/ram:ChargeIndicator") && !n.Has(ac+"/ram:ActualAmount"))
	},
	"CII-SR-463": has("ram:ChargeIndicator"),
	"CII-SR-474": func(n *N) bool { return len(refsOfType(n, "130", true)) <= 1 },
	"CII-SR-450": oneOfIDs("ram:BuyerTradeParty"),
	"CII-SR-457": func(n *N) bool { return len(refsOfType(n, "50", false)) <= 1 },
	"CII-SR-458": func(n *N) bool { return len(refsOfType(n, "130", false)) <= 1 },
	"CII-SR-465": func(n *N) bool {
		return !(n.Has("ram:SellerTradeParty/ram:DefinedTradeContact/ram:PersonName") && n.Has("ram:SellerTradeParty/ram:DefinedTradeContact/ram:DepartmentName"))
	},
	"CII-SR-466": func(n *N) bool {
		return !(n.Has("ram:BuyerTradeParty/ram:DefinedTradeContact/ram:PersonName") && n.Has("ram:BuyerTradeParty/ram:DefinedTradeContact/ram:DepartmentName"))
	},
	"CII-SR-475": func(n *N) bool { return countIn(refsOfType(n, "916", true), "ram:Name") <= 1 },
	"CII-SR-476": func(n *N) bool { return countIn(refsOfType(n, "916", true), "ram:AttachmentBinaryObject") <= 1 },
	"CII-SR-449": oneOfIDs("ram:ShipToTradeParty"),
	"CII-SR-451": oneOfIDs("ram:PayeeTradeParty"),
	"CII-SR-462": func(n *N) bool { return distinctValues(n.All("//ram:ApplicableTradeTax/ram:DueDateTypeCode")) <= 1 },
	"CII-SR-470": func(n *N) bool {
		return !Any(n.All("ram:SpecifiedTradeSettlementPaymentMeans"), func(pm *N) bool {
			c := pm.Str("ram:TypeCode")
			return (c == "30" || c == "58") && !pm.Has("ram:PayeePartyCreditorFinancialAccount/ram:IBANID") && !pm.Has("ram:PayeePartyCreditorFinancialAccount/ram:ProprietaryID")
		})
	},
	"CII-SR-467": sameAsFirst("//ram:SpecifiedTradeSettlementPaymentMeans/ram:TypeCode"),
	"CII-SR-468": sameAsFirst("//ram:SpecifiedTradeSettlementPaymentMeans/ram:Information"),
	"CII-SR-469": func(n *N) bool { return n.Count("//ram:ApplicableHeaderTradeSettlement/ram:PaymentReference") <= 1 },
	"CII-DT-015": func(n *N) bool { return !n.Has("ram:URIID") || selfRefWithType(n, "916") },
	"CII-DT-018": func(n *N) bool { return !n.Has("ram:TypeCode") || selfRefWithType(n, "50", "130", "916") },
	"CII-DT-021": func(n *N) bool { return !n.Has("ram:Name") || selfRefWithType(n, "916") },
	"CII-DT-022": func(n *N) bool { return !n.Has("ram:AttachmentBinaryObject") || selfRefWithType(n, "916") },
	"CII-DT-024": func(n *N) bool { return !n.Has("ram:ReferenceTypeCode") || selfRefWithType(n, "130") },
	"CII-DT-027": func(n *N) bool { return !n.Has("ram:FormattedIssueDateTime") || n.Is("ram:InvoiceReferencedDocument") },
	"CII-DT-033": func(n *N) bool {
		return !hasRawAttr(n, "unitCode") || n.doc.once("billed unit", func() bool {
			return Any(n.All("/rsm:CrossIndustryInvoice/"+ciiTx+"/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedLineTradeDelivery/ram:BilledQuantity"), hasAttr("unitCode"))
		})
	},
	"CII-DT-037": func(n *N) bool { return !n.Has("ram:TypeCode") || anyText(n.All("ram:TypeCode"), "VAT") },
	"CII-DT-041": func(n *N) bool { return !n.Has("ram:BasisAmount") || underHeaderSettlement(n) },
	"CII-DT-052": func(n *N) bool { return !n.Has("ram:ExemptionReasonCode") || n.Is("ram:ApplicableTradeTax") },
	"CII-DT-098": func(n *N) bool { return !n.Has("ram:ExemptionReason") || n.Is("ram:ApplicableTradeTax") },
	"CII-DT-054": func(n *N) bool { return !n.Has("ram:TaxPointDate") || underHeaderSettlement(n) },
	"CII-DT-058": func(n *N) bool { return !n.Has("ram:DueDateTypeCode") || underHeaderSettlement(n) },
	"CII-DT-097": func(n *N) bool { return date102.MatchString(n.RawText()) },
}

var ciiSyntaxMessages = map[string]string{
	"CII-SR-009": "The specification identifier context (BT-24) occurs exactly once.",
	"CII-SR-010": "The specification identifier (BT-24) occurs exactly once.",
	"CII-SR-014": "The invoice type code (BT-3) occurs exactly once.",
	"CII-SR-439": "The item net price (BT-146) occurs exactly once.",
	"CII-SR-454": "An invoice line has exactly one VAT category (BG-30).",
	"CII-SR-463": "An allowance or charge needs its charge indicator.",
	"CII-SR-046": "An item standard identifier (BT-157) needs a scheme identifier.",
	"CII-SR-119": "A gross price discount needs both the allowance indicator and its amount, or neither.",
	"CII-SR-450": "The buyer has an identifier (BT-46) in ram:ID or in ram:GlobalID, not both.",
	"CII-SR-449": "The deliver-to location has an identifier (BT-71) in ram:ID or in ram:GlobalID, not both.",
	"CII-SR-451": "The payee has an identifier (BT-60) in ram:ID or in ram:GlobalID, not both.",
	"CII-SR-462": "All VAT point date codes (BT-8) are the same.",
	"CII-SR-470": "A credit transfer (30, 58) needs the payment account identifier (BT-84).",
	"CII-SR-467": "All payment means codes (BT-81) are the same.",
	"CII-SR-468": "All payment means texts (BT-82) are the same.",
	"CII-SR-465": "The seller contact point (BT-41) is a person or a department, not both.",
	"CII-SR-466": "The buyer contact point (BT-56) is a person or a department, not both.",
	"CII-DT-097": "A date in format 102 is YYYYMMDD.",
	"CII-DT-037": "A tax type code is VAT.",
}

// ciiSyntax is the CII binding of EN 16931: cardinalities, data type restrictions and the
// elements EN 16931 does not use, in the official order of contexts.
func ciiSyntax() pattern {
	var p pattern
	for _, r := range ciiSyntaxTable {
		c, ok := ciiSyntaxContexts()[r.selector]
		if !ok {
			panic("rules: no CII syntax context " + r.selector)
		}
		var asserts []assert
		for _, x := range r.asserts {
			asserts = append(asserts, row(x.id, x.flag, x.message(), x.test()))
		}
		p = append(p, rule{c, asserts})
	}
	return p
}
