package rules

import (
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/internal/lazyre"
	"github.com/shopspring/decimal"
)

// Peppol BIS Billing 3.0 (release 3.0.19) as its own rule set: OpenPEPPOL's rules in the
// forms of its own Schematron (PEPPOL-EN16931-UBL.sch, PEPPOL-EN16931-CII.sch), on top of
// EN 16931. XRechnung takes a subset of them over in KoSIT's forms (peppol.go); where the
// two differ, each rule set binds its own form of the rule.

var peppolBISUBLRules = sync.OnceValue(func() []*compiled {
	return compileAll(append(peppolBISUBL(), peppolNationalUBL()...)...)
})

var peppolBISCIIRules = sync.OnceValue(func() []*compiled {
	return compileAll(append(peppolBISCII(), peppolNationalCII()...)...)
})

// peppolBISRules is the rule set Peppol BIS adds in a syntax, built once.
func peppolBISRules(s syntax.Syntax) []*compiled {
	if s == syntax.CII {
		return peppolBISCIIRules()
	}
	return peppolBISUBLRules()
}

// peppolBISUBL holds the PEPPOL-EN16931-* and PEPPOL-COMMON-* rules for UBL, in the
// patterns of PEPPOL-EN16931-UBL.sch: empty elements, the credit note's project
// reference, the transaction rules with the identifier checks, the code lists.
func peppolBISUBL() []pattern {
	return []pattern{
		{{where(emptyLeaf), []assert{a("PEPPOL-EN16931-R008", bisNever)}}},
		{{at("cn:CreditNote"), []assert{
			// Only on credit notes: the official pattern has no rule for the invoice.
			a("PEPPOL-EN16931-R080", func(n *N) bool {
				return len(Where(n.All("cac:AdditionalDocumentReference"), func(r *N) bool {
					return bisAnyString(r.All("cbc:DocumentTypeCode"), "50")
				})) <= 1
			}),
		}}},
		bisUBLTransaction(),
		bisUBLCodes(),
	}
}

// bisNever is false(): rules whose context alone is the failure (R008, R041, R042).
func bisNever(*N) bool { return false }

// bisUBLTransaction is the pattern of the transaction rules (R0xx, R1xx) and of the
// identifier checks (PEPPOL-COMMON) for UBL.
func bisUBLTransaction() pattern {
	docAC := []string{"ubl:Invoice/cac:AllowanceCharge", "ubl:Invoice/cac:InvoiceLine/cac:AllowanceCharge", "cn:CreditNote/cac:AllowanceCharge", "cn:CreditNote/cac:CreditNoteLine/cac:AllowanceCharge"}
	lineDate := func(p string) []string {
		return []string{"ubl:Invoice/cac:InvoiceLine/cac:InvoicePeriod/" + p, "cn:CreditNote/cac:CreditNoteLine/cac:InvoicePeriod/" + p}
	}
	// headerHas filters a line period date by the invoice's own period date (the
	// invoice is its parent's parent's parent).
	headerHas := func(p string) func(*N) bool {
		return func(n *N) bool { return n.parent.parent.parent.Has("cac:InvoicePeriod/" + p) }
	}
	period := func(p string, ok func(cmp int) bool) func(*N) bool {
		return func(n *N) bool {
			l, ok1 := xsDate(n.Val())
			d, ok2 := xsDate(n.parent.parent.parent.Str("cac:InvoicePeriod/" + p))
			return ok1 && ok2 && ok(l.Compare(d))
		}
	}
	rules := []rule{
		{at("ubl:Invoice", "cn:CreditNote"), []assert{
			a("PEPPOL-EN16931-R001", has("cbc:ProfileID")),
			a("PEPPOL-EN16931-R007", func(n *N) bool { return bisProfileUBL(n) != "Unknown" }),
			a("PEPPOL-EN16931-R002", func(n *N) bool { return n.Count("cbc:Note") <= 1 || bisBothDE(n) }),
			a("PEPPOL-EN16931-R003", func(n *N) bool { return n.Has("cbc:BuyerReference") || n.Has("cac:OrderReference/cbc:ID") }),
			a("PEPPOL-EN16931-R004", func(n *N) bool {
				return strings.HasPrefix(n.Str("cbc:CustomizationID"), "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0")
			}),
			a("PEPPOL-EN16931-R053", func(n *N) bool { return len(Where(n.All("cac:TaxTotal"), has("cac:TaxSubtotal"))) == 1 }),
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
				// The totals in the currency the element at p names (../../p from a TaxAmount).
				in := func(p string) []*N {
					cur := n.Str(p)
					return Where(n.All("cac:TaxTotal/cbc:TaxAmount"), func(m *N) bool { return hasRawAttr(m, "currencyID") && rawAttr(m, "currencyID") == cur })
				}
				tax, doc := in("cbc:TaxCurrencyCode"), in("cbc:DocumentCurrencyCode")
				return anyCmp(tax, notPos) && anyCmp(doc, notPos) || anyCmp(tax, notNeg) && anyCmp(doc, notNeg)
			}),
		}},
		{at("cbc:TaxCurrencyCode"), []assert{
			a("PEPPOL-EN16931-R005", func(n *N) bool { return n.Val() != n.parent.Str("cbc:DocumentCurrencyCode") }),
		}},
		{at("cac:AccountingCustomerParty/cac:Party"), []assert{a("PEPPOL-EN16931-R010", has("cbc:EndpointID"))}},
		{at("cac:AccountingSupplierParty/cac:Party"), []assert{a("PEPPOL-EN16931-R020", has("cbc:EndpointID"))}},
		{atIf(func(n *N) bool { return n.Has("cbc:MultiplierFactorNumeric") && !n.Has("cbc:BaseAmount") }, docAC...), []assert{
			a("PEPPOL-EN16931-R041", bisNever),
		}},
		{atIf(func(n *N) bool { return !n.Has("cbc:MultiplierFactorNumeric") && n.Has("cbc:BaseAmount") }, docAC...), []assert{
			a("PEPPOL-EN16931-R042", bisNever),
		}},
		{at(docAC...), []assert{
			a("PEPPOL-EN16931-R040", func(n *N) bool {
				return bisPercentOf(n, "cbc:Amount", "cbc:BaseAmount", "cbc:MultiplierFactorNumeric")
			}),
			a("PEPPOL-EN16931-R043", func(n *N) bool { return indicatorOK(n.Str("cbc:ChargeIndicator")) }),
		}},
		{atIf(func(n *N) bool { return directDebit(n.Str("cbc:PaymentMeansCode")) }, "cac:PaymentMeans"), []assert{
			a("PEPPOL-EN16931-R061", has("cac:PaymentMandate/cbc:ID")),
		}},
		{atIf(func(n *N) bool {
			// A TaxTotal's own amount counts only in the total with the breakdown; the
			// other is the VAT in accounting currency (BT-111).
			return !n.Is("cbc:TaxAmount") || n.parent.Is("cac:TaxSubtotal") || n.parent.Has("cac:TaxSubtotal")
		}, append(strings.Fields(bisAmountsR051), "cac:TaxTotal/cbc:TaxAmount", "cac:TaxSubtotal/cbc:TaxAmount")...), []assert{
			a("PEPPOL-EN16931-R051", func(n *N) bool {
				cur, ok := attrRaw(n, "currencyID")
				return ok && Any(n.doc.root.All("cbc:DocumentCurrencyCode"), func(m *N) bool { return m.RawText() == cur })
			}),
		}},
		{atIf(headerHas("cbc:StartDate"), lineDate("cbc:StartDate")...), []assert{
			a("PEPPOL-EN16931-R110", period("cbc:StartDate", func(cmp int) bool { return cmp >= 0 })),
		}},
		{atIf(headerHas("cbc:EndDate"), lineDate("cbc:EndDate")...), []assert{
			a("PEPPOL-EN16931-R111", period("cbc:EndDate", func(cmp int) bool { return cmp <= 0 })),
		}},
		{at("cac:InvoiceLine", "cac:CreditNoteLine"), []assert{
			// XRechnung makes R120 a warning; Peppol keeps it fatal.
			a("PEPPOL-EN16931-R120", bisLineNetUBL).as(Fatal),
			a("PEPPOL-EN16931-R121", func(n *N) bool {
				return !n.Has("cac:Price/cbc:BaseQuantity") || n.One("cac:Price/cbc:BaseQuantity").DecVal().IsPositive()
			}),
			a("PEPPOL-EN16931-R100", func(n *N) bool { return n.Count("cac:DocumentReference") <= 1 }),
			a("PEPPOL-EN16931-R101", func(n *N) bool {
				return !n.Has("cac:DocumentReference") || bisAnyString(n.All("cac:DocumentReference/cbc:DocumentTypeCode"), "130")
			}),
		}},
		{at("cac:Price/cac:AllowanceCharge"), []assert{
			a("PEPPOL-EN16931-R044", func(n *N) bool { return n.Str("cbc:ChargeIndicator") == "false" }),
			a("PEPPOL-EN16931-R046", grossPriceOK),
		}},
		{atIf(hasAttr("unitCode"), "cac:Price/cbc:BaseQuantity"), []assert{
			a("PEPPOL-EN16931-R130", func(n *N) bool {
				line := n.parent.parent
				if line == nil || !line.Has("cbc:InvoicedQuantity") && !line.Has("cbc:CreditedQuantity") {
					return true
				}
				q := "cbc:CreditedQuantity"
				if n.doc.root.Is("ubl:Invoice") {
					q = "cbc:InvoicedQuantity"
				}
				unit := rawAttr(n, "unitCode")
				return Any(line.All(q), func(m *N) bool { return hasRawAttr(m, "unitCode") && rawAttr(m, "unitCode") == unit })
			}),
		}},
	}
	return append(rules, bisIdentifierRules("cbc:EndpointID", "cac:PartyIdentification/cbc:ID", "cbc:CompanyID")...)
}

// bisAmountsR051 are the amounts whose currency must be the invoice currency (BT-5).
var bisAmountsR051 = "cbc:Amount cbc:BaseAmount cbc:PriceAmount cbc:TaxableAmount cbc:LineExtensionAmount cbc:TaxExclusiveAmount cbc:TaxInclusiveAmount cbc:AllowanceTotalAmount cbc:ChargeTotalAmount cbc:PrepaidAmount cbc:PayableRoundingAmount cbc:PayableAmount"

// bisLineNetUBL is R120 in Peppol's form: the line net amount (BT-131) is quantity ×
// (price ÷ base quantity) + charges − allowances within 0.02, whatever the currency.
func bisLineNetUBL(n *N) bool {
	q := "cbc:CreditedQuantity"
	if n.doc.root.Is("ubl:Invoice") {
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
	return slack(decOr(n, "cbc:LineExtensionAmount", decimal.Zero), want, slackDefault)
}

// bisPercentOf is R040: with both a base amount and a percentage, the amount (0 when
// missing) is base × percentage ÷ 100 within 0.02.
func bisPercentOf(n *N, amount, base, percent string) bool {
	if !n.Has(percent) || !n.Has(base) {
		return true
	}
	want := n.One(base).DecVal().Mul(n.One(percent).DecVal()).Div(hundred)
	return slack(decOr(n, amount, decimal.Zero), want, slackDefault)
}

// bisUBLCodes is the pattern of restricted code lists and formats for UBL.
func bisUBLCodes() pattern {
	return pattern{
		{atIf(hasAttr("mimeCode"), "cbc:EmbeddedDocumentBinaryObject"), []assert{
			a("PEPPOL-EN16931-CL001", func(n *N) bool { return bisMIME.has(rawAttr(n, "mimeCode")) }),
		}},
		{atIf(func(n *N) bool { return bisAnyString(n.parent.All("cbc:ChargeIndicator"), "false") }, "cac:AllowanceCharge/cbc:AllowanceChargeReasonCode"), []assert{
			a("PEPPOL-EN16931-CL002", func(n *N) bool { return bisUNCL5189.has(n.Val()) }),
		}},
		{atIf(func(n *N) bool { return bisAnyString(n.parent.All("cbc:ChargeIndicator"), "true") }, "cac:AllowanceCharge/cbc:AllowanceChargeReasonCode"), []assert{
			a("PEPPOL-EN16931-CL003", func(n *N) bool { return bisUNCL7161.has(n.Val()) }),
		}},
		{at("cac:InvoicePeriod/cbc:DescriptionCode"), []assert{
			a("PEPPOL-EN16931-CL006", func(n *N) bool { return bisUNCL2005.has(n.Val()) }),
		}},
		{at(append(strings.Fields(bisAmountsR051), "cbc:TaxAmount")...), []assert{
			a("PEPPOL-EN16931-CL007", func(n *N) bool { return bisISO4217.has(rawAttr(n, "currencyID")) }),
		}},
		{at("cbc:InvoiceTypeCode"), []assert{
			a("PEPPOL-EN16931-P0100", func(n *N) bool { return bisProfileUBL(n) != "01" || bisInvoiceTypesUBL.has(n.Val()) }),
			a("PEPPOL-EN16931-P0112", func(n *N) bool { return n.Val() != "326" && n.Val() != "384" || bisBothDE(n) }),
		}},
		{at("cbc:CreditNoteTypeCode"), []assert{
			a("PEPPOL-EN16931-P0101", func(n *N) bool { return bisProfileUBL(n) != "01" || bisCreditNoteTypesUBL.has(n.Val()) }),
		}},
		{at("cbc:IssueDate", "cbc:DueDate", "cbc:TaxPointDate", "cbc:StartDate", "cbc:EndDate", "cbc:ActualDeliveryDate"), []assert{
			a("PEPPOL-EN16931-F001", func(n *N) bool {
				raw := n.RawText()
				_, ok := xsDate(strings.TrimSpace(raw))
				return utf8.RuneCountInString(raw) == 10 && ok
			}),
		}},
		{atIf(hasAttr("schemeID"), "cbc:EndpointID"), []assert{
			a("PEPPOL-EN16931-CL008", func(n *N) bool { return bisEAS.has(rawAttr(n, "schemeID")) }),
		}},
		bisExemption("G", "PEPPOL-EN16931-P0104", "G"),
		bisExemption("O", "PEPPOL-EN16931-P0105", "O"),
		bisExemption("IC", "PEPPOL-EN16931-P0106", "K"),
		bisExemption("AE", "PEPPOL-EN16931-P0107", "AE"),
		bisExemption("D", "PEPPOL-EN16931-P0108", "E"),
		bisExemption("F", "PEPPOL-EN16931-P0109", "E"),
		bisExemption("I", "PEPPOL-EN16931-P0110", "E"),
		bisExemption("J", "PEPPOL-EN16931-P0111", "E"),
	}
}

// bisExemption binds a rule that ties an exemption reason code VATEX-EU-<code> to a VAT
// category (P0104-P0111); the code is compared in upper case, as written otherwise.
func bisExemption(code, id, category string) rule {
	return rule{atIf(func(n *N) bool {
		m := n.One("cbc:TaxExemptionReasonCode")
		return m != nil && strings.ToUpper(m.RawText()) == "VATEX-EU-"+code
	}, "cac:TaxCategory"), []assert{
		a(id, func(n *N) bool { return n.Str("cbc:ID") == category }),
	}}
}

// bisAnyString is XPath's general = of element values with a string: some element's value,
// as written (not normalised), is v.
func bisAnyString(ns []*N, v string) bool {
	return Any(ns, func(m *N) bool { return m.RawText() == v })
}

var bisProfileRE = lazyre.New(`urn:fdc:peppol.eu:2017:poacc:billing:([0-9]{2}):1.0`)

// bisProfile is the official $profile: the process number (the seventh ':' part) of a
// business process identifier (BT-23) of the Peppol form, else "Unknown".
func bisProfile(id *N) string {
	if id == nil {
		return "Unknown"
	}
	s := id.Val()
	if !bisProfileRE.MatchString(s) {
		return "Unknown"
	}
	return strings.Split(s, ":")[6] // the pattern has eight parts at least
}

func bisProfileUBL(n *N) string { return bisProfile(n.doc.root.One("cbc:ProfileID")) }

func bisProfileCII(n *N) string {
	return bisProfile(n.doc.root.One("rsm:ExchangedDocumentContext/ram:BusinessProcessSpecifiedDocumentContextParameter/ram:ID"))
}

// bisBothDE is $supplierCountryIsDE and $customerCountryIsDE: seller and buyer postal
// addresses (BT-40, BT-55) in Germany.
func bisBothDE(n *N) bool {
	de := func(party string) bool {
		return upper(n.doc.root.Str(party+"/cac:Party/cac:PostalAddress/cac:Country/cbc:IdentificationCode")) == "DE"
	}
	return de("cac:AccountingSupplierParty") && de("cac:AccountingCustomerParty")
}

// bisIdentifierRules are the checks of identifiers by their ICD scheme (PEPPOL-COMMON-R040
// to R050) at the elements that carry them; Codice Fiscale (9907) and Partita IVA (9906)
// as electronic addresses only, at the first path. R048 is not in the UBL Schematron.
func bisIdentifierRules(paths ...string) []rule {
	r := func(id, code string, endpointOnly bool, test func(n *N) bool) rule {
		at := paths
		if endpointOnly {
			at = paths[:1]
		}
		return rule{atIf(func(n *N) bool { v, ok := attrRaw(n, "schemeID"); return ok && v == code }, at...), []assert{a(id, test)}}
	}
	cii := paths[0] == "ram:URIID"
	rules := []rule{
		r("PEPPOL-COMMON-R040", "0088", false, func(n *N) bool { return bisDigits(n.Val()) && bisGLN(n.Val()) }),
		r("PEPPOL-COMMON-R041", "0192", false, func(n *N) bool { v := n.Val(); return len(v) == 9 && bisDigits(v) && bisMod11(v) }),
		r("PEPPOL-COMMON-R042", "0184", false, func(n *N) bool { return bisCVR(n.RawText()) }),
		r("PEPPOL-COMMON-R043", "0208", false, func(n *N) bool { v := n.Val(); return len(v) == 10 && bisDigits(v) && bisKBO(v) }),
		r("PEPPOL-COMMON-R044", "0201", false, func(n *N) bool { return bisIPA(n.Val()) }),
		r("PEPPOL-COMMON-R045", "0210", false, func(n *N) bool { return bisCF(n.Val()) }),
		r("PEPPOL-COMMON-R046", "9907", true, func(n *N) bool { return bisCF(n.Val()) }),
		r("PEPPOL-COMMON-R047", "0211", false, func(n *N) bool { return bisPIVAseIT(n.Val()) }),
	}
	if cii {
		rules = append(rules, r("PEPPOL-COMMON-R048", "9906", true, func(n *N) bool { return bisPIVAseIT(n.Val()) }))
	}
	rules = append(rules, r("PEPPOL-COMMON-R049", "0007", false, func(n *N) bool { v := n.Val(); return len(v) == 10 && bisDigits(v) && bisSEOrgnr(v) }))
	if cii {
		// The CII rule has no format check before the checksum.
		rules = append(rules, r("PEPPOL-COMMON-R050", "0151", false, func(n *N) bool { return bisABN(n.Val()) }))
	} else {
		rules = append(rules, r("PEPPOL-COMMON-R050", "0151", false, func(n *N) bool { v := n.Val(); return len(v) == 11 && bisDigits(v) && bisABN(v) }))
	}
	return rules
}

// bisDigits is matches(s, '^[0-9]+$').
func bisDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// bisGLN is u:gln on digits: the last digit is the GS1 check digit of the others
// (weights 3, 1, 3, … from the right).
func bisGLN(s string) bool {
	sum := 0
	for i, k := len(s)-2, 0; i >= 0; i, k = i-1, k+1 {
		w := 1
		if k%2 == 0 {
			w = 3
		}
		sum += int(s[i]-'0') * w
	}
	return (10-sum%10)%10 == int(s[len(s)-1]-'0')
}

// bisMod11 is u:mod11 on digits: a number above zero whose last digit is the modulus 11
// check digit of the others (weights 2 to 7 from the right, repeating).
func bisMod11(s string) bool {
	sum, nonZero := 0, false
	for i, k := len(s)-2, 0; i >= 0; i, k = i-1, k+1 {
		sum += int(s[i]-'0') * (k%6 + 2)
	}
	for i := 0; i < len(s); i++ {
		nonZero = nonZero || s[i] != '0'
	}
	return nonZero && (11-sum%11)%11 == int(s[len(s)-1]-'0')
}

// bisKBO is u:mod97-0208 on ten digits: the last two are 97 minus the first eight
// modulo 97.
func bisKBO(s string) bool {
	n, check := 0, int(s[8]-'0')*10+int(s[9]-'0')
	for i := 0; i < 8; i++ {
		n = n*10 + int(s[i]-'0')
	}
	return check == 97-n%97
}

// bisCVR is the Danish CVR form, on the identifier as written: DK and eight digits, or
// eight digits.
func bisCVR(s string) bool {
	r := []rune(s)
	digits := func(rs []rune) bool {
		for _, c := range rs {
			if c < '0' || c > '9' {
				return false
			}
		}
		return true
	}
	return len(r) == 10 && string(r[:2]) == "DK" && digits(r[2:]) || len(r) == 8 && digits(r)
}

func bisAlnum(c rune, digits bool) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || digits && c >= '0' && c <= '9'
}

// bisIPA is u:checkCodiceIPA: six ASCII letters or digits.
func bisIPA(s string) bool {
	n := 0
	for _, c := range s {
		if !bisAlnum(c, true) {
			return false
		}
		n++
	}
	return n == 6
}

// bisInteger is "castable as xs:integer": an optional sign and digits, white space around.
func bisInteger(s string) bool {
	s = strings.Trim(s, " \t\r\n")
	if s != "" && (s[0] == '+' || s[0] == '-') {
		s = s[1:]
	}
	return bisDigits(s)
}

// bisCF is u:checkCF: a Codice Fiscale of 16 characters (letters and digits where a
// person's code has them) or an integer of 11.
func bisCF(s string) bool {
	r := []rune(s)
	switch len(r) {
	case 11:
		return bisInteger(s)
	case 16:
		letters := func(rs []rune) bool {
			for _, c := range rs {
				if !bisAlnum(c, false) {
					return false
				}
			}
			return true
		}
		return letters(r[:6]) && bisInteger(string(r[6:8])) && letters(r[8:9]) &&
			bisInteger(string(r[9:11])) && bisInteger(string(r[14:15])) && letters(r[15:16])
	}
	return false
}

// bisPIVAseIT is u:checkPIVAseIT: an identifier starting with IT (or it) continues with a
// Partita IVA of eleven digits whose check sum (odd positions as they are, even ones
// doubled with their digits added) ends in 0; others pass.
func bisPIVAseIT(s string) bool {
	r := []rune(s)
	if len(r) < 2 || string(r[:2]) != "IT" && string(r[:2]) != "it" {
		return true
	}
	code := string(r[2:])
	// Anything but digits fails: u:checkPIVA answers 1 for what is no integer, and the
	// cast of a sign or a blank digit by digit is a dynamic error.
	if len(code) != 11 || !bisDigits(code) {
		return false
	}
	sum := 0
	for i := 0; i < len(code); i++ {
		d := int(code[i] - '0')
		if i%2 == 1 {
			d = int("0246813579"[d] - '0')
		}
		sum += d
	}
	return sum%10 == 0
}

// bisSEOrgnr is u:checkSEOrgnr on ten digits: the tenth is the Luhn check digit of the
// first nine.
func bisSEOrgnr(s string) bool {
	sum := 0
	for pos := 1; pos <= 9; pos++ {
		d := int(s[9-pos] - '0')
		if pos%2 == 1 {
			d = d*2%10 + d*2/10
		}
		sum += d
	}
	return (10-sum%10)%10 == int(s[9]-'0')
}

// bisABN is u:abn: the weighted sum of the first eleven characters (the first less one)
// is a multiple of 89; fewer than eleven fail.
func bisABN(s string) bool {
	r := []rune(s)
	if len(r) < 11 {
		return false
	}
	weights := []int{10, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19}
	sum := (int(r[0]) - 49) * weights[0]
	for i := 1; i < 11; i++ {
		sum += (int(r[i]) - 48) * weights[i]
	}
	return sum%89 == 0
}

// peppolBISCII holds the rules of PEPPOL-EN16931-CII.sch but the national ones: the
// transaction rules with the identifier checks, and the code lists. CII has no R008.
func peppolBISCII() []pattern {
	return []pattern{bisCIITransaction(), bisCIICodes()}
}

func bisCIITransaction() pattern {
	const indicator = "ram:ChargeIndicator/udt:Indicator"
	// documentCurrencyCode and taxCurrencyCode are the header's currency codes.
	currencies := func(n *N, p string) []string {
		var out []string
		for _, m := range n.doc.root.All("rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/" + p) {
			out = append(out, m.RawText())
		}
		return out
	}
	// totals are the header TaxTotalAmounts whose currencyID compares (eq) with some code.
	totals := func(n *N, codes []string, eq bool) []*N {
		return Where(n.All("ram:SpecifiedTradeSettlementHeaderMonetarySummation/ram:TaxTotalAmount"), func(m *N) bool {
			id, ok := attrRaw(m, "currencyID")
			for _, c := range codes {
				if ok && (id == c) == eq {
					return true
				}
			}
			return false
		})
	}
	typed := func(p, code string) func(*N) bool {
		return func(n *N) bool { return bisAnyString(n.All(p), code) }
	}
	lineBill := "rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedLineTradeSettlement/ram:BillingSpecifiedPeriod/"
	// The line's period date against the header's, as strings (YYYYMMDD).
	period := func(p string, ok func(line, doc string) bool) func(*N) bool {
		return func(n *N) bool {
			header := n.parent.parent.parent.parent.All("ram:ApplicableHeaderTradeSettlement/ram:BillingSpecifiedPeriod/" + p + "/udt:DateTimeString")
			for _, l := range n.All("udt:DateTimeString") {
				for _, d := range header {
					if ok(l.RawText(), d.RawText()) {
						return true
					}
				}
			}
			return false
		}
	}
	headerHas := func(p string) func(*N) bool {
		return func(n *N) bool {
			return n.parent.parent.parent.parent.Has("ram:ApplicableHeaderTradeSettlement/ram:BillingSpecifiedPeriod/" + p)
		}
	}
	ac := func(n *N) bool { return indicatorOK(n.Str(indicator)) }
	rules := []rule{
		{at("rsm:ExchangedDocumentContext"), []assert{
			a("PEPPOL-EN16931-R001", has("ram:BusinessProcessSpecifiedDocumentContextParameter/ram:ID")),
			a("PEPPOL-EN16931-R007", func(n *N) bool { return bisProfileCII(n) != "Unknown" }),
			a("PEPPOL-EN16931-R004", func(n *N) bool {
				return strings.HasPrefix(n.Str("ram:GuidelineSpecifiedDocumentContextParameter/ram:ID"), "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0")
			}),
		}},
		{at("ram:ApplicableHeaderTradeAgreement"), []assert{
			a("PEPPOL-EN16931-R003", func(n *N) bool {
				return n.Has("ram:BuyerReference") || n.Has("ram:BuyerOrderReferencedDocument/ram:IssuerAssignedID")
			}),
			a("PEPPOL-EN16931-R006", func(n *N) bool {
				return len(Where(n.All("ram:AdditionalReferencedDocument"), typed("ram:TypeCode", "130"))) <= 1
			}),
			a("PEPPOL-EN16931-R080", func(n *N) bool {
				return len(Where(n.All("ram:AdditionalReferencedDocument"), typed("ram:TypeCode", "50"))) <= 1
			}),
		}},
		{at("ram:ApplicableHeaderTradeSettlement"), []assert{
			a("PEPPOL-EN16931-R005", func(n *N) bool {
				return !n.Has("ram:TaxCurrencyCode") || n.Str("ram:TaxCurrencyCode") != n.Str("ram:InvoiceCurrencyCode")
			}),
			a("PEPPOL-EN16931-R053", func(n *N) bool { return len(totals(n, currencies(n, "ram:InvoiceCurrencyCode"), true)) == 1 }),
			a("PEPPOL-EN16931-R054", func(n *N) bool {
				want := 0
				if n.Has("ram:TaxCurrencyCode") {
					want = 1
				}
				return len(totals(n, currencies(n, "ram:InvoiceCurrencyCode"), false)) == want
			}),
			a("PEPPOL-EN16931-R055", func(n *N) bool {
				taxCur := currencies(n, "ram:TaxCurrencyCode")
				if len(taxCur) == 0 {
					return true
				}
				tax, doc := totals(n, taxCur, true), totals(n, currencies(n, "ram:InvoiceCurrencyCode"), true)
				return anyCmp(tax, isNeg) && anyCmp(doc, isNeg) || anyCmp(tax, notNeg) && anyCmp(doc, notNeg)
			}),
		}},
		{at("rsm:ExchangedDocument"), []assert{
			a("PEPPOL-EN16931-R002", func(n *N) bool {
				return n.Count("ram:IncludedNote") <= 1 && !n.Has("ram:IncludedNote/ram:SubjectCode")
			}),
		}},
		{at("ram:BuyerTradeParty"), []assert{a("PEPPOL-EN16931-R010", has("ram:URIUniversalCommunication/ram:URIID"))}},
		{at("ram:SellerTradeParty"), []assert{a("PEPPOL-EN16931-R020", has("ram:URIUniversalCommunication/ram:URIID"))}},
		{atIf(func(n *N) bool { return n.Has("ram:CalculationPercent") && !n.Has("ram:BasisAmount") }, "ram:SpecifiedTradeAllowanceCharge"), []assert{
			a("PEPPOL-EN16931-R041", bisNever),
		}},
		{atIf(func(n *N) bool { return !n.Has("ram:CalculationPercent") && n.Has("ram:BasisAmount") }, "ram:SpecifiedTradeAllowanceCharge"), []assert{
			a("PEPPOL-EN16931-R042", bisNever),
		}},
		{at("ram:SpecifiedTradeAllowanceCharge"), []assert{
			a("PEPPOL-EN16931-R040", func(n *N) bool {
				return bisPercentOf(n, "ram:ActualAmount", "ram:BasisAmount", "ram:CalculationPercent")
			}),
			a("PEPPOL-EN16931-R043", ac),
		}},
		{at("ram:AppliedTradeAllowanceCharge"), []assert{a("PEPPOL-EN16931-R043", ac)}},
		{atIf(func(n *N) bool { return directDebit(n.Str("ram:TypeCode")) }, "ram:SpecifiedTradeSettlementPaymentMeans"), []assert{
			a("PEPPOL-EN16931-R061", func(n *N) bool {
				return n.parent.Has("ram:SpecifiedTradePaymentTerms/ram:DirectDebitMandateID")
			}),
		}},
		{atIf(headerHas("ram:StartDateTime"), lineBill+"ram:StartDateTime"), []assert{
			a("PEPPOL-EN16931-R110", period("ram:StartDateTime", func(l, d string) bool { return l >= d })),
		}},
		{atIf(headerHas("ram:EndDateTime"), lineBill+"ram:EndDateTime"), []assert{
			a("PEPPOL-EN16931-R111", period("ram:EndDateTime", func(l, d string) bool { return l <= d })),
		}},
		{at("ram:IncludedSupplyChainTradeLineItem"), []assert{
			a("PEPPOL-EN16931-R120", func(n *N) bool {
				// Unlike KoSIT's, the base quantity is the net price's alone.
				base, ok := nonZeroOr(n, "ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:BasisQuantity")
				if !ok {
					base = decimal.NewFromInt(1)
				}
				stated, want := ciiLineNet(n, base)
				return slack(stated, want, slackDefault)
			}).as(Fatal),
			a("PEPPOL-EN16931-R100", func(n *N) bool {
				return len(Where(n.All("ram:SpecifiedLineTradeSettlement/ram:AdditionalReferencedDocument"), typed("ram:TypeCode", "130"))) <= 1
			}),
			a("PEPPOL-EN16931-R101", func(n *N) bool {
				return !n.Has("ram:SpecifiedLineTradeSettlement/ram:AdditionalReferencedDocument") ||
					bisAnyString(n.All("ram:SpecifiedLineTradeSettlement/ram:AdditionalReferencedDocument/ram:TypeCode"), "130")
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
				line := n.parent.parent.parent // ../../.. is empty for a price near the root
				if line == nil {
					return false
				}
				return Any(line.All("ram:SpecifiedLineTradeDelivery/ram:BilledQuantity"), func(m *N) bool {
					return hasRawAttr(m, "unitCode") && rawAttr(m, "unitCode") == unit
				})
			}),
		}},
	}
	return append(rules, bisIdentifierRules("ram:URIID", "ram:ID", "ram:GlobalID")...)
}

// bisCIICodes is the pattern of restricted code lists and formats for CII; CII has no
// invoice period description code (CL006), and P0100 covers credit notes too.
func bisCIICodes() pattern {
	indicatorIs := func(v string) func(*N) bool {
		return func(n *N) bool { return n.parent.Str("ram:ChargeIndicator/udt:Indicator") == v }
	}
	return pattern{
		{atIf(hasAttr("mimeCode"), "ram:AttachmentBinaryObject"), []assert{
			a("PEPPOL-EN16931-CL001", func(n *N) bool { return bisMIME.has(rawAttr(n, "mimeCode")) }),
		}},
		{atIf(indicatorIs("false"), "ram:SpecifiedTradeAllowanceCharge/ram:ReasonCode"), []assert{
			a("PEPPOL-EN16931-CL002", func(n *N) bool { return bisUNCL5189.has(n.Val()) }),
		}},
		{atIf(indicatorIs("true"), "ram:SpecifiedTradeAllowanceCharge/ram:ReasonCode"), []assert{
			a("PEPPOL-EN16931-CL003", func(n *N) bool { return bisUNCL7161.has(n.Val()) }),
		}},
		{atIf(hasAttr("currencyID"), "ram:TaxTotalAmount"), []assert{
			a("PEPPOL-EN16931-CL007", func(n *N) bool { return bisISO4217.has(rawAttr(n, "currencyID")) }),
		}},
		{at("ram:ExchangedDocument/ram:TypeCode"), []assert{
			a("PEPPOL-EN16931-P0100", func(n *N) bool { return bisProfileCII(n) != "01" || bisDocumentTypesCII.has(n.Val()) }),
		}},
		{at("udt:DateTimeString"), []assert{
			a("PEPPOL-EN16931-F001", func(n *N) bool {
				f, _ := n.AttrVal("format")
				return f == "102" && utf8.RuneCountInString(n.RawText()) == 8 && bisDate102.MatchString(n.Val())
			}),
		}},
		{at("ram:BuyerTradeParty/ram:URIUniversalCommunication/ram:URIID", "ram:SellerTradeParty/ram:URIUniversalCommunication/ram:URIID"), []assert{
			a("PEPPOL-EN16931-CL008", func(n *N) bool { v, ok := attrRaw(n, "schemeID"); return ok && bisEAS.has(v) }),
		}},
	}
}

var bisDate102 = lazyre.New(`20[0-9]{6}`)

// The code lists of Peppol BIS 3.0.19, as its Schematron restricts them.
var (
	bisMIME     = codeSet("application/pdf image/png image/jpeg text/csv application/vnd.openxmlformats-officedocument.spreadsheetml.sheet application/vnd.oasis.opendocument.spreadsheet")
	bisUNCL2005 = codeSet("3 35 432")
	bisUNCL5189 = codeSet("41 42 60 62 63 64 65 66 67 68 70 71 88 95 100 102 103 104 105")
	bisUNCL7161 = codeSet("AA AAA AAC AAD AAE AAF AAH AAI AAS AAT AAV AAY AAZ ABA ABB ABC ABD ABF ABK ABL ABN ABR ABS ABT ABU ACF ACG ACH ACI ACJ ACK ACL ACM ACS ADC ADE ADJ ADK ADL ADM ADN ADO ADP ADQ ADR ADT ADW ADY ADZ AEA AEB AEC AED AEF AEH AEI AEJ AEK AEL AEM AEN AEO AEP AES AET AEU AEV AEW AEX AEY AEZ AJ AU CA CAB CAD CAE CAF CAI CAJ CAK CAL CAM CAN CAO CAP CAQ CAR CAS CAT CAU CAV CAW CAX CAY CAZ CD CG CS CT DAB DAC DAD DAF DAG DAH DAI DAJ DAK DAL DAM DAN DAO DAP DAQ DL EG EP ER FAA FAB FAC FC FH FI GAA HAA HD HH IAA IAB ID IF IR IS KO L1 LA LAA LAB LF MAE MI ML NAA OA PA PAA PC PL PRV RAB RAC RAD RAF RE RF RH RV SA SAA SAD SAE SAI SG SH SM SU TAB TAC TT TV V1 V2 WH XAA YY ZZZ")
	bisISO4217  = codeSet("AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF XAG XAU XBA XBB XBC XBD XCD XDR XOF XPD XPF XPT XSU XTS XUA YER ZAR ZMW ZWG XXX")
	bisEAS      = codeSet("0002 0007 0009 0037 0060 0088 0096 0097 0106 0130 0135 0142 0151 0177 0183 0184 0188 0190 0191 0192 0193 0195 0196 0198 0199 0200 0201 0202 0204 0208 0209 0210 0211 0212 0213 0215 0216 0218 0221 0230 0235 9910 9913 9914 9915 9918 9919 9920 9922 9923 9924 9925 9926 9927 9928 9929 9930 9931 9932 9933 9934 9935 9936 9937 9938 9939 9940 9941 9942 9943 9944 9945 9946 9947 9948 9949 9950 9951 9952 9953 9957 9959 0147 0154 0158 0170 0194 0203 0205 0217 0225 0240")
	// The document types of the billing process (profile 01).
	bisInvoiceTypesUBL    = codeSet("71 80 82 84 102 218 219 326 331 380 382 383 384 386 388 393 395 553 575 623 780 817 870 875 876 877")
	bisCreditNoteTypesUBL = codeSet("381 396 81 83 532")
	bisDocumentTypesCII   = codeSet("71 102 218 219 326 331 382 553 817 870 875 876 877 380 383 384 386 388 393 82 80 84 395 575 623 780 381 396 81 83 532")
)
