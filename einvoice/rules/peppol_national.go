package rules

import (
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/papierkram/papierkram/internal/lazyre"
)

// The national rules of Peppol BIS Billing 3.0 (DE-R, DK-R, GR-R, GR-S, IS-R, IT-R, NL-R,
// NO-R, SE-R), which apply by the seller's country, as in OpenPEPPOL's Schematron
// (release 3.0.19): one pattern per country block of PEPPOL-EN16931-UBL.sch and
// PEPPOL-EN16931-CII.sch, in its order, with its contexts and conditions.
//
// The national rules are written against the document as XPath sees it, not as the core
// rules are: a value compared with a string is the text as written (untrimmed), lengths
// count characters, and where a rule reads a path that could give several values (an
// XPath error in the official rule) the first is taken. The helpers below, prefixed nat,
// give those XPath semantics.

// peppolNationalUBL holds the national rules for UBL.
func peppolNationalUBL() []pattern {
	return []pattern{natUBLNorway(), natUBLDenmark(), natUBLItaly(), natUBLSweden(), natUBLGreekSender(), natUBLGreekBoth(), natUBLIceland(), natUBLNetherlands(), natUBLGermany()}
}

// peppolNationalCII holds the national rules for CII; the CII Schematron has no German,
// Greek or Icelandic rules.
func peppolNationalCII() []pattern {
	return []pattern{natCIINorway(), natCIIDenmark(), natCIIItaly(), natCIISweden(), natCIINetherlands()}
}

// XPath semantics.

// natSV is an element's string value as XPath compares it: the text as written, white
// space included; "" for no element.
func natSV(n *N) string {
	if n == nil {
		return ""
	}
	return n.RawText()
}

// natFirst is the string value of the first element at p.
func natFirst(n *N, p string) string { return natSV(n.One(p)) }

// natAny is XPath's general comparison of elements with strings: one of them, as written,
// is one of the values.
func natAny(ns []*N, values ...string) bool {
	for _, m := range ns {
		for _, v := range values {
			if m.RawText() == v {
				return true
			}
		}
	}
	return false
}

// natAnyAttr is the same for an attribute of the elements (an absent one is no value).
func natAnyAttr(ns []*N, attr string, values ...string) bool {
	for _, m := range ns {
		v, ok := attrRaw(m, attr)
		if !ok {
			continue
		}
		for _, w := range values {
			if v == w {
				return true
			}
		}
	}
	return false
}

// natNormAttr is normalize-space(@attr): "" when absent.
func natNormAttr(n *N, attr string) string {
	if n == nil {
		return ""
	}
	v, _ := n.AttrVal(attr)
	return v
}

// natAll is the path from each of the elements, in order.
func natAll(ns []*N, p string) []*N {
	var out []*N
	for _, m := range ns {
		out = append(out, m.All(p)...)
	}
	return out
}

// natLen is string-length: characters, not bytes.
func natLen(s string) int { return utf8.RuneCountInString(s) }

// natSubstring is substring($s, $start, $length) for whole numbers: the characters at
// positions start to start+length-1, counted from 1 (substring($s, 0, 4) is the first three).
func natSubstring(s string, start, length int) string {
	var b strings.Builder
	p := 0
	for _, r := range s {
		p++
		if p >= start && p < start+length {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// natFrom is substring($s, $start): the characters from position start on.
func natFrom(s string, start int) string { return natSubstring(s, start, math.MaxInt-start) }

// natTokenize is tokenize($s, $re): nothing for an empty string.
func natTokenize(s string, re *lazyre.Regexp) []string {
	if s == "" {
		return nil
	}
	return re.Split(s, -1)
}

// natItem is $seq[i] of a sequence of strings, counted from 1, and whether it exists.
func natItem(seq []string, i int) (string, bool) {
	if i < 1 || i > len(seq) {
		return "", false
	}
	return seq[i-1], true
}

// natDoubleLex is the lexical space of xs:double.
var natDoubleLex = lazyre.New(`^([+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?|[+-]?INF|NaN)$`)

// natDouble casts a string to xs:double (white space around it is ignored); ok is false
// when the cast fails, which is a dynamic error in XPath.
func natDouble(s string) (float64, bool) {
	s = strings.Trim(s, " \t\r\n")
	if !natDoubleLex.MatchString(s) {
		return 0, false
	}
	switch s {
	case "INF", "+INF":
		return math.Inf(1), true
	case "-INF":
		return math.Inf(-1), true
	case "NaN":
		return math.NaN(), true
	}
	f, _ := strconv.ParseFloat(s, 64) // out of range saturates to ±Inf, as xs:double does
	return f, true
}

// natNumber is number($s): NaN for what is not a number.
func natNumber(s string) float64 {
	if f, ok := natDouble(s); ok {
		return f
	}
	return math.NaN()
}

// natIsNumber is string(number($s)) != 'NaN'.
func natIsNumber(s string) bool { return !math.IsNaN(natNumber(s)) }

// natNumIn is the general comparison of elements with numbers (cbc:PaymentMeansCode =
// (30, 58)): the text is cast to xs:double, and text that is not a number is a dynamic
// error, which fails the rule or context being evaluated.
func natNumIn(ns []*N, values ...float64) bool {
	for _, m := range ns {
		f, ok := natDouble(m.RawText())
		if !ok {
			m.doc.castFailed()
			return false
		}
		for _, v := range values {
			if f == v {
				return true
			}
		}
	}
	return false
}

// The checksums of the national identifiers.

// natMod11 is u:mod11, the Norwegian organisation number check: the last digit is
// (11 - the weighted sum of the others mod 11) mod 11, with weights 2 to 7 from the right,
// and the number is positive.
func natMod11(v string) bool {
	r := []rune(v)
	if len(r) == 0 || !(natNumber(v) > 0) {
		return false
	}
	sum := 0
	for i := 0; i < len(r)-1; i++ {
		sum += (int(r[len(r)-2-i]) - '0') * (i%6 + 2)
	}
	return float64((11-sum%11)%11) == natNumber(string(r[len(r)-1]))
}

// natSEOrgnr is u:checkSEOrgnr, the Swedish organisation number check: all digits, and the
// tenth digit is the Luhn check digit of the first nine.
func natSEOrgnr(v string) bool {
	if v == "" {
		return false
	}
	for _, c := range v {
		if !unicode.IsDigit(c) { // XPath's \d takes any decimal digit
			return false
		}
	}
	r := []rune(v)
	main := r[:min(9, len(r))]
	sum := 0
	for pos := 1; pos <= len(main); pos++ {
		d := int(main[len(main)-pos]) - '0'
		if d < 0 || d > 9 { // number() of a digit other than 0-9 is NaN
			return false
		}
		if pos%2 == 1 {
			d *= 2
			d = d%10 + d/10
		}
		sum += d
	}
	if len(r) < 10 || r[9] < '0' || r[9] > '9' {
		return false
	}
	return (10-sum%10)%10 == int(r[9]-'0')
}

// natGreekTIN is u:TinVerification, the Greek tax number (AFM) check: the ninth digit is
// the sum of the first eight weighted 256, 128, … 2, mod 11, mod 10.
func natGreekTIN(v string) bool {
	r := []rune(v)
	if len(r) < 9 {
		return false
	}
	sum := 0
	for i := range 9 {
		if r[i] < '0' || r[i] > '9' {
			return false // number() of anything else is NaN
		}
		if i < 8 {
			sum += int(r[i]-'0') << (8 - i)
		}
	}
	return sum%11%10 == int(r[8]-'0')
}

// Countries.

// natVATPrefix is the country a party's first VAT registration names, upper-case (the
// $supplierCountry of the Schematron: the first two characters of the identifier), and
// whether there is one.
func natVATPrefix(schemes []*N) (string, bool) {
	for _, s := range schemes {
		if !natAny(s.All("cac:TaxScheme/cbc:ID"), "VAT") {
			continue
		}
		p := natSubstring(natFirst(s, "cbc:CompanyID"), 1, 2)
		return upper(norm(p)), p != ""
	}
	return "", false
}

// natUBLSupplierCountry is $supplierCountry: the prefix of the seller's VAT identifier,
// else of the tax representative's, else the seller's country code, else XX.
func natUBLSupplierCountry(n *N) string {
	root := n.doc.root
	if c, ok := natVATPrefix(root.All("cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme")); ok {
		return c
	}
	if c, ok := natVATPrefix(root.All("cac:TaxRepresentativeParty/cac:PartyTaxScheme")); ok {
		return c
	}
	return natUBLPostalCountry(n, "cac:AccountingSupplierParty")
}

// natUBLCustomerCountry is $customerCountry: the prefix of the buyer's VAT identifier, else
// its country code, else XX.
func natUBLCustomerCountry(n *N) string {
	if c, ok := natVATPrefix(n.doc.root.All("cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme")); ok {
		return c
	}
	return natUBLPostalCountry(n, "cac:AccountingCustomerParty")
}

// natUBLPostalCountry is the party's country code, upper-case, or XX.
func natUBLPostalCountry(n *N, party string) string {
	if m := n.doc.root.One(party + "/cac:Party/cac:PostalAddress/cac:Country/cbc:IdentificationCode"); m != nil {
		return upper(m.Val())
	}
	return "XX"
}

// natUBLCountryIs is the test of $supplierCountryIsDE and the like: the party's country
// code, normalised and upper-case, is the country.
func natUBLCountryIs(party, country string) func(*N) bool {
	p := party + "/cac:Party/cac:PostalAddress/cac:Country/cbc:IdentificationCode"
	return func(n *N) bool { return upper(n.doc.root.Str(p)) == country }
}

// natUBLCountryRaw is the test of $DKSupplierCountry = 'DK' and the like: the party's
// country code as written is the country.
func natUBLCountryRaw(party, country string) func(*N) bool {
	p := party + "/cac:Party/cac:PostalAddress/cac:Country/cbc:IdentificationCode"
	return func(n *N) bool { return natFirst(n.doc.root, p) == country }
}

func natBoth(f, g func(*N) bool) func(*N) bool { return func(n *N) bool { return f(n) && g(n) } }

// natTaxSchemes are the party's tax schemes whose normalised scheme id is the one given.
func natTaxSchemes(party *N, scheme string) []*N {
	return Where(party.All("cac:PartyTaxScheme"), func(s *N) bool { return s.Str("cac:TaxScheme/cbc:ID") == scheme })
}

var natNOVAT = lazyre.New(`^[0-9]{9}MVA$`)

// natNOVATOK is NO-R-001: a VAT identifier starting with NO is NO, nine digits that pass
// MOD11, and MVA.
func natNOVATOK(prefixes []string, first string) bool {
	for _, p := range prefixes {
		if p == "NO" {
			return natNOVAT.MatchString(natFrom(first, 3)) && natMod11(natSubstring(first, 3, 9))
		}
	}
	return true
}

// natHead is the string value of the first of the elements, "" for none.
func natHead(ns []*N) string {
	if len(ns) == 0 {
		return ""
	}
	return natSV(ns[0])
}

// NORWAY

func natUBLNorway() pattern {
	return pattern{
		{atIf(func(n *N) bool { return natUBLSupplierCountry(n) == "NO" }, "cac:AccountingSupplierParty/cac:Party"), []assert{
			a("NO-R-002", func(n *N) bool {
				return norm(natHead(natAll(natTaxSchemes(n, "TAX"), "cbc:CompanyID"))) == "Foretaksregisteret"
			}),
			a("NO-R-001", func(n *N) bool {
				vat := natTaxSchemes(n, "VAT")
				var prefixes []string
				for _, s := range vat {
					prefixes = append(prefixes, natSubstring(natFirst(s, "cbc:CompanyID"), 1, 2))
				}
				return natNOVATOK(prefixes, natHead(natAll(vat, "cbc:CompanyID")))
			}),
		}},
	}
}

// DENMARK

// natDKReasonOK is DK-R-004 on a non-VAT tax: its reason is a 4-digit tax category, or
// holds a '#' that is neither its first nor its last character.
func natDKReasonOK(reason *N) bool {
	if reason == nil {
		return false
	}
	v, num := natSV(reason), natNumber(natSV(reason))
	if natLen(reason.Val()) == 4 && num >= 0 && num <= 9999 {
		return true
	}
	return strings.Contains(v, "#") && !strings.HasPrefix(v, "#") && !strings.HasSuffix(v, "#")
}

// natDKClassificationOK is DK-R-003: TST (UNSPSC) classifications in a supported version.
func natDKClassificationOK(codes []*N) bool {
	return !natAnyAttr(codes, "listID", "TST") || natAnyAttr(codes, "listVersionID", "19.05.01", "19.0501", "26.08.01", "26.0801")
}

// natDKPayment is what DK-R-005 to DK-R-011 read of one payment means, as its syntax
// gives it.
type natDKPayment struct {
	codes                   []*N                      // the payment means type codes (BT-81)
	account, provider       string                    // BT-84 and BT-86, normalised
	mandate, mandateAccount string                    // what DK-R-007 asks for with code 49
	reference, accountRaw   string                    // BT-83 and BT-84 as written
	giro                    func(account string) bool // DK-R-008's form of a giro account: 7 or 8 digits in UBL, 7 characters in CII
}

func (p natDKPayment) is(code string) bool { return natAny(p.codes, code) }

func (p natDKPayment) prefix(codes ...string) bool {
	pre := natSubstring(p.reference, 1, 3)
	for _, c := range codes {
		if pre == c {
			return true
		}
	}
	return false
}

func natDKPaymentAsserts(read func(n *N) natDKPayment) []assert {
	return []assert{
		a("DK-R-005", func(n *N) bool {
			return strings.Contains(" 1 10 31 42 48 49 50 58 59 93 97 ", " "+natHead(read(n).codes)+" ")
		}),
		a("DK-R-006", func(n *N) bool {
			p := read(n)
			return !(p.is("31") || p.is("42")) || p.account != "" && p.provider != ""
		}),
		a("DK-R-007", func(n *N) bool {
			p := read(n)
			return !p.is("49") || p.mandate != "" && p.mandateAccount != ""
		}),
		a("DK-R-008", func(n *N) bool {
			p := read(n)
			return !p.is("50") || p.prefix("01#", "04#", "15#") && p.giro(p.accountRaw)
		}),
		a("DK-R-009", func(n *N) bool {
			p := read(n)
			return !(p.is("50") && p.prefix("04#", "15#")) || natLen(p.reference) == 19
		}),
		a("DK-R-010", func(n *N) bool {
			p := read(n)
			return !p.is("93") || p.prefix("71#", "73#", "75#") && natLen(p.accountRaw) == 8
		}),
		a("DK-R-011", func(n *N) bool {
			p := read(n)
			return !(p.is("93") && p.prefix("71#", "75#")) || natLen(p.reference) == 18 || natLen(p.reference) == 19
		}),
	}
}

var natDKGiro = lazyre.New(`^[0-9]{7,8}$`)

func natUBLDenmark() pattern {
	dk := natUBLCountryRaw("cac:AccountingSupplierParty", "DK")
	dkCustomer := natUBLCountryRaw("cac:AccountingCustomerParty", "DK")
	both := natBoth(dk, dkCustomer)
	const seller = "cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID"
	return pattern{
		{atIf(dk, "ubl:Invoice", "cn:CreditNote"), []assert{
			a("DK-R-002", func(n *N) bool { return n.Str(seller) != "" }),
			a("DK-R-014", func(n *N) bool { return !n.Has(seller) || natNormAttr(n.One(seller), "schemeID") == "0184" }),
			a("DK-R-016", func(n *N) bool {
				return !(n.doc.root.Is("cn:CreditNote") && dkCustomer(n) && natNumber(natFirst(n, "cac:LegalMonetaryTotal/cbc:PayableAmount")) < 0)
			}),
		}},
		{atIf(both, "ubl:Invoice/cac:AccountingSupplierParty/cac:Party/cac:PartyIdentification", "ubl:Invoice/cac:AccountingCustomerParty/cac:Party/cac:PartyIdentification",
			"cn:CreditNote/cac:AccountingSupplierParty/cac:Party/cac:PartyIdentification", "cn:CreditNote/cac:AccountingCustomerParty/cac:Party/cac:PartyIdentification"), []assert{
			a("DK-R-013", func(n *N) bool { return !n.Has("cbc:ID") || natNormAttr(n.One("cbc:ID"), "schemeID") != "" }),
		}},
		{atIf(both, "ubl:Invoice/cac:PaymentMeans"), natDKPaymentAsserts(func(n *N) natDKPayment {
			return natDKPayment{
				codes:          n.All("cbc:PaymentMeansCode"),
				account:        n.Str("cac:PayeeFinancialAccount/cbc:ID"),
				provider:       n.Str("cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch/cbc:ID"),
				mandate:        n.Str("cac:PaymentMandate/cbc:ID"),
				mandateAccount: n.Str("cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID"),
				reference:      natFirst(n, "cbc:PaymentID"),
				accountRaw:     natFirst(n, "cac:PayeeFinancialAccount/cbc:ID"),
				giro:           natDKGiro.MatchString,
			}
		})},
		{atIf(both, "cn:CreditNote/cac:CreditNoteLine", "ubl:Invoice/cac:InvoiceLine"), []assert{
			a("DK-R-003", func(n *N) bool {
				return natDKClassificationOK(n.All("cac:Item/cac:CommodityClassification/cbc:ItemClassificationCode"))
			}),
		}},
		{atIf(both, "cac:AllowanceCharge"), []assert{
			a("DK-R-004", func(n *N) bool {
				return !natAny(n.All("cbc:AllowanceChargeReasonCode"), "ZZZ") || natDKReasonOK(n.One("cbc:AllowanceChargeReason"))
			}),
		}},
	}
}

// ITALY

var natITTaxID = lazyre.New(`^[A-Z0-9]{11,16}$`)

func natUBLItaly() pattern {
	it := func(n *N) bool { return natUBLSupplierCountry(n) == "IT" }
	return pattern{
		{atIf(func(n *N) bool { return n.Str("cac:TaxScheme/cbc:ID") != "VAT" && it(n) }, "cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme"), []assert{
			a("IT-R-001", func(n *N) bool { return natITTaxID.MatchString(n.Str("cbc:CompanyID")) }),
		}},
		{atIf(it, "cac:AccountingSupplierParty/cac:Party"), []assert{
			a("IT-R-002", has("cac:PostalAddress/cbc:StreetName")),
			a("IT-R-003", has("cac:PostalAddress/cbc:CityName")),
			a("IT-R-004", has("cac:PostalAddress/cbc:PostalZone")),
		}},
	}
}

// SWEDEN

// natUBLSEParty is the VAT identifier of a Swedish supplier party (the first of its
// registrations in scheme VAT, as written), and whether the party is one: its country code
// is SE and one of those identifiers starts with SE.
func natUBLSEParty(party *N) (string, bool) {
	if !natAny(party.All("cac:PostalAddress/cac:Country/cbc:IdentificationCode"), "SE") {
		return "", false
	}
	schemes := Where(party.All("cac:PartyTaxScheme"), func(s *N) bool { return natAny(s.All("cac:TaxScheme/cbc:ID"), "VAT") })
	se := Any(schemes, func(s *N) bool { return natSubstring(natFirst(s, "cbc:CompanyID"), 1, 2) == "SE" })
	return natHead(natAll(schemes, "cbc:CompanyID")), se
}

// natSEVATAsserts are SE-R-001 and SE-R-002 on a Swedish VAT identifier.
func natSEVATAsserts(id func(*N) string) []assert {
	return []assert{
		a("SE-R-001", func(n *N) bool { return natLen(norm(id(n))) == 14 }),
		a("SE-R-002", func(n *N) bool { return natIsNumber(natSubstring(id(n), 3, 12)) }),
	}
}

// natSEOrgAsserts are SE-R-003, SE-R-004 and SE-R-013 on a Swedish legal registration
// identifier.
func natSEOrgAsserts(id func(*N) *N) []assert {
	return []assert{
		a("SE-R-003", func(n *N) bool { return natIsNumber(natSV(id(n))) }),
		a("SE-R-004", func(n *N) bool { return natLen(norm(natSV(id(n)))) == 10 }),
		a("SE-R-013", func(n *N) bool { return natSEOrgnr(norm(natSV(id(n)))) }),
	}
}

func natSERate(n *N, p string) bool {
	r := natNumber(natFirst(n, p))
	return r == 25 || r == 12 || r == 6
}

func natSEGiroAsserts() (plus, bank []assert) {
	return []assert{
			a("SE-R-007", func(n *N) bool { return natIsNumber(n.Val()) }),
			a("SE-R-010", func(n *N) bool { l := natLen(n.Val()); return l >= 2 && l <= 8 }),
		}, []assert{
			a("SE-R-008", func(n *N) bool { return natIsNumber(n.Val()) }),
			a("SE-R-009", func(n *N) bool { l := natLen(n.Val()); return l == 7 || l == 8 }),
		}
}

func natUBLSweden() pattern {
	const party = "cac:AccountingSupplierParty/cac:Party"
	seParty := func(n *N) bool { _, ok := natUBLSEParty(n); return ok }
	// anySE are the tests on //cac:AccountingSupplierParty/cac:Party and the buyer's.
	anySE := func(role string) func(*N) bool {
		return func(n *N) bool {
			return Any(n.All("//"+role+"/cac:Party"), func(p *N) bool {
				return natAny(p.All("cac:PostalAddress/cac:Country/cbc:IdentificationCode"), "SE")
			})
		}
	}
	seller, buyer := anySE("cac:AccountingSupplierParty"), anySE("cac:AccountingCustomerParty")
	sellerVAT := func(n *N) bool { return Any(n.All("//"+party), seParty) }
	giro := func(kind string) func(*N) bool {
		return func(id *N) bool {
			pm := id.parent.parent
			return seller(id) && pm.Str("cbc:PaymentMeansCode") == "30" && pm.Str("cac:PayeeFinancialAccount/cac:FinancialInstitutionBranch/cbc:ID") == kind
		}
	}
	plus, bank := natSEGiroAsserts()
	return pattern{
		{atIf(seParty, party), natSEVATAsserts(func(n *N) string { id, _ := natUBLSEParty(n); return id })},
		{atIf(func(n *N) bool {
			return natAny(n.parent.All("cac:PostalAddress/cac:Country/cbc:IdentificationCode"), "SE") && n.Has("cbc:CompanyID")
		}, party+"/cac:PartyLegalEntity"), natSEOrgAsserts(func(n *N) *N { return n.One("cbc:CompanyID") })},
		{atIf(func(n *N) bool {
			p := n.parent.parent
			return upper(n.parent.Str("cac:TaxScheme/cbc:ID")) != "VAT" && natAny(p.All("cac:PostalAddress/cac:Country/cbc:IdentificationCode"), "SE") && p.Has("cac:PartyLegalEntity/cbc:CompanyID")
		}, party+"/cac:PartyTaxScheme/cbc:CompanyID"), []assert{
			a("SE-R-005", func(n *N) bool { return upper(n.Val()) == "GODKÄND FÖR F-SKATT" }),
		}},
		{atIf(func(n *N) bool { return natAny(n.All("cbc:ID"), "S") && sellerVAT(n) }, "cac:TaxCategory", "cac:ClassifiedTaxCategory"), []assert{
			a("SE-R-006", func(n *N) bool { return natSERate(n, "cbc:Percent") }),
		}},
		{atIf(giro("SE:PLUSGIRO"), "cac:PaymentMeans/cac:PayeeFinancialAccount/cbc:ID"), plus},
		{atIf(giro("SE:BANKGIRO"), "cac:PaymentMeans/cac:PayeeFinancialAccount/cbc:ID"), bank},
		{atIf(func(n *N) bool { return seller(n) && natAny(n.All("cbc:PaymentMeansCode"), "50", "56") }, "cac:PaymentMeans"), []assert{
			a("SE-R-011", func(*N) bool { return false }),
		}},
		{atIf(func(n *N) bool { return seller(n) && buyer(n) && natAny(n.All("cbc:PaymentMeansCode"), "31") }, "cac:PaymentMeans"), []assert{
			a("SE-R-012", func(*N) bool { return false }),
		}},
	}
}

// GREECE

var (
	natGRSegments = lazyre.New(`\|`)
	natGRDate     = lazyre.New(`^(0?[1-9]|[12][0-9]|3[01])[-\\/ ]?(0?[1-9]|1[0-2])[-\\/ ]?(19|20)[0-9]{2}`)
	natSlash      = lazyre.New(`/`)
	natDash       = lazyre.New(`-`)
	natGRMark     = lazyre.New(`^[1-9]([0-9]*)`)
	natInteger    = lazyre.New(`^[+-]?[0-9]+$`)
	// natGRDocumentTypes is tokenize('1.1 1.6 2.1 2.4 5.1 5.2 ', '\s'), whose last token is "".
	natGRDocumentTypes = codeSet("1.1 1.6 2.1 2.4 5.1 5.2")
)

func natGreek(country string) bool { return country == "GR" || country == "EL" }

func natGreekSender(n *N) bool { return natGreek(natUBLSupplierCountry(n)) }

// natGreekVATOK is GR-S-011 and GR-R-006 on a party: exactly one VAT identifier, EL and a
// valid tax number.
func natGreekVATOK(party *N) bool {
	ids := natAll(natTaxSchemes(party, "VAT"), "cbc:CompanyID")
	return len(ids) == 1 && natSubstring(natSV(ids[0]), 1, 2) == "EL" && natGreekTIN(natFrom(natSV(ids[0]), 3))
}

// natGreekEndpointOK is GR-R-009 and GR-R-010: scheme 9933 and a valid tax number.
func natGreekEndpointOK(id *N) bool {
	s, ok := attrRaw(id, "schemeID")
	return ok && s == "9933" && natGreekTIN(natSV(id))
}

// natGreekDocs are the document's supporting documents described as desc.
func natGreekDocs(n *N, desc string) int {
	return len(Where(n.All("cac:AdditionalDocumentReference"), func(r *N) bool { return natAny(r.All("cbc:DocumentDescription"), desc) }))
}

// natGreekSegment is the i-th '|'-separated segment of the invoice number.
func natGreekSegment(n *N, i int) (string, bool) {
	return natItem(natTokenize(natSV(n), natGRSegments), i)
}

func natUBLGreekSender() pattern {
	inGreece := func(n *N) bool {
		return natGreekSender(n) && natAny(n.doc.root.All("cac:AccountingSupplierParty/cac:Party/cac:PostalAddress/cac:Country/cbc:IdentificationCode"), "GR")
	}
	return pattern{
		{atIf(natGreekSender, "/ubl:Invoice/cbc:ID", "/cn:CreditNote/cbc:ID"), []assert{
			a("GR-R-001-1", func(n *N) bool { return len(natTokenize(natSV(n), natGRSegments)) == 6 }),
			a("GR-R-001-2", func(n *N) bool {
				tin, ok := natGreekSegment(n, 1)
				if !ok || natLen(norm(tin)) != 9 || !natGreekTIN(tin) {
					return false
				}
				root := n.doc.root
				for _, s := range append(root.All("cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme"), root.All("cac:TaxRepresentativeParty/cac:PartyTaxScheme")...) {
					if natAny(s.All("cac:TaxScheme/cbc:ID"), "VAT") && natSubstring(natFirst(s, "cbc:CompanyID"), 3, 9) == tin {
						return true
					}
				}
				return false
			}),
			a("GR-R-001-3", func(n *N) bool {
				date, ok := natGreekSegment(n, 2)
				if !ok || norm(date) == "" || !natGRDate.MatchString(date) {
					return false
				}
				d := natTokenize(date, natSlash)
				issued := natTokenize(natFirst(n.doc.root, "cbc:IssueDate"), natDash)
				same := func(i, j int) bool {
					x, ok1 := natItem(d, i)
					y, ok2 := natItem(issued, j)
					return ok1 && ok2 && x == y
				}
				return same(1, 3) && same(2, 2) && same(3, 1)
			}),
			a("GR-R-001-4", func(n *N) bool {
				s, ok := natGreekSegment(n, 3)
				if !ok || norm(s) == "" || !natIsNumber(s) {
					return false
				}
				// xs:integer($s) >= 0: a number that is not an integer is a dynamic error.
				v := strings.Trim(s, " \t\r\n")
				return natInteger.MatchString(v) && (!strings.HasPrefix(v, "-") || strings.Trim(v, "-0") == "")
			}),
			a("GR-R-001-5", func(n *N) bool {
				s, ok := natGreekSegment(n, 4)
				return ok && norm(s) != "" && natGRDocumentTypes.has(s)
			}),
			a("GR-R-001-6", func(n *N) bool { s, _ := natGreekSegment(n, 5); return natLen(s) > 0 }),
			a("GR-R-001-7", func(n *N) bool { s, _ := natGreekSegment(n, 6); return natLen(s) > 0 }),
		}},
		{atIf(natGreekSender, "cac:AccountingSupplierParty/cac:Party"), []assert{
			a("GR-R-002", func(n *N) bool { return natLen(natFirst(n, "cac:PartyName/cbc:Name")) > 0 }),
			a("GR-S-011", natGreekVATOK),
		}},
		{atIf(func(n *N) bool { return n.parent.Str("cac:TaxScheme/cbc:ID") == "VAT" && natGreekSender(n) }, "cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID"), []assert{
			a("GR-R-003", func(n *N) bool { return natSubstring(natSV(n), 1, 2) == "EL" && natGreekTIN(natFrom(natSV(n), 3)) }),
		}},
		{atIf(inGreece, "/ubl:Invoice", "/cn:CreditNote"), []assert{
			a("GR-R-004-1", func(n *N) bool { return natGreekDocs(n, "##M.AR.K##") == 1 }),
			a("GR-S-008-1", func(n *N) bool { return natGreekDocs(n, "##INVOICE|URL##") == 1 }),
			a("GR-R-008-2", func(n *N) bool { return natGreekDocs(n, "##INVOICE|URL##") <= 1 }),
		}},
		{atIf(func(n *N) bool { return natAny(n.parent.All("cbc:DocumentDescription"), "##M.AR.K##") && inGreece(n) }, "cac:AdditionalDocumentReference/cbc:ID"), []assert{
			a("GR-R-004-2", func(n *N) bool { return natGRMark.MatchString(natSV(n)) }),
		}},
		{atIf(func(n *N) bool {
			return natAny(n.All("cbc:DocumentDescription"), "##INVOICE|URL##") && natGreekSender(n)
		}, "cac:AdditionalDocumentReference"), []assert{
			a("GR-R-008-3", func(n *N) bool { return natLen(n.Str("cac:Attachment/cac:ExternalReference/cbc:URI")) > 0 }),
		}},
		{atIf(natGreekSender, "cac:AccountingCustomerParty/cac:Party"), []assert{
			a("GR-R-005", func(n *N) bool { return natLen(natFirst(n, "cac:PartyName/cbc:Name")) > 0 }),
		}},
		{atIf(func(n *N) bool { return natGreek(natUBLAccountingSupplierCountry(n)) }, "cac:AccountingSupplierParty/cac:Party/cbc:EndpointID"), []assert{
			a("GR-R-009", natGreekEndpointOK),
		}},
	}
}

// natUBLAccountingSupplierCountry is $accountingSupplierCountry: $supplierCountry without
// the tax representative.
func natUBLAccountingSupplierCountry(n *N) string {
	if c, ok := natVATPrefix(n.doc.root.All("cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme")); ok {
		return c
	}
	return natUBLPostalCountry(n, "cac:AccountingSupplierParty")
}

func natUBLGreekBoth() pattern {
	both := func(n *N) bool { return natGreekSender(n) && natGreek(natUBLCustomerCountry(n)) }
	return pattern{
		{atIf(both, "cac:AccountingCustomerParty/cac:Party"), []assert{a("GR-R-006", natGreekVATOK)}},
		{atIf(both, "cac:AccountingCustomerParty/cac:Party/cbc:EndpointID"), []assert{a("GR-R-010", natGreekEndpointOK)}},
	}
}

// ICELAND

// natISAccountOK is IS-R-006 and IS-R-007: payment means of the code need a 12-character
// account.
func natISAccountOK(n *N, code string) bool {
	means := Where(n.All("cac:PaymentMeans"), func(m *N) bool { return natAny(m.All("cbc:PaymentMeansCode"), code) })
	ids := natAll(means, "cac:PayeeFinancialAccount/cbc:ID")
	return len(ids) > 0 && natLen(norm(natSV(ids[0]))) == 12 || len(means) == 0
}

// natISDueDates is the final due date (EINDAGI) identifiers, and whether there is such a
// document.
func natISDueDates(n *N) ([]*N, bool) {
	docs := Where(n.All("cac:AdditionalDocumentReference"), func(r *N) bool { return natAny(r.All("cbc:DocumentDescription"), "EINDAGI") })
	return natAll(docs, "cbc:ID"), len(docs) > 0
}

// natDate is "castable as xs:date" for a date without time zone, the only kind ten
// characters long.
func natDate(s string) bool {
	_, err := time.Parse("2006-01-02", strings.Trim(s, " \t\r\n"))
	return err == nil
}

func natUBLIceland() pattern {
	is := natUBLCountryRaw("cac:AccountingSupplierParty", "IS")
	both := natBoth(is, natUBLCountryRaw("cac:AccountingCustomerParty", "IS"))
	typeOK := func(v string) bool { return !strings.Contains(v, " ") && strings.Contains(" 380 381 ", " "+v+" ") }
	const seller = "cac:AccountingSupplierParty/cac:Party/"
	return pattern{
		{atIf(is, "cn:CreditNote", "ubl:Invoice"), []assert{
			a("IS-R-001", func(n *N) bool {
				return typeOK(n.Str("cbc:InvoiceTypeCode")) || typeOK(n.Str("cbc:CreditNoteTypeCode"))
			}),
			a("IS-R-002", func(n *N) bool {
				return natAnyAttr(n.All(seller+"cac:PartyLegalEntity/cbc:CompanyID"), "schemeID", "0196")
			}),
			a("IS-R-003", func(n *N) bool {
				return n.Has(seller+"cac:PostalAddress/cbc:StreetName") && n.Has(seller+"cac:PostalAddress/cbc:PostalZone")
			}),
			a("IS-R-006", func(n *N) bool { return natISAccountOK(n, "9") }),
			a("IS-R-007", func(n *N) bool { return natISAccountOK(n, "42") }),
			a("IS-R-008", func(n *N) bool {
				ids, ok := natISDueDates(n)
				return !ok || natLen(natHead(ids)) == 10 && natDate(natHead(ids))
			}),
			a("IS-R-009", func(n *N) bool { _, ok := natISDueDates(n); return !ok || n.Has("cbc:DueDate") }),
			a("IS-R-010", func(n *N) bool {
				ids, ok := natISDueDates(n)
				if !ok {
					return true
				}
				// A general comparison of untyped values compares them as strings.
				for _, d := range n.All("cbc:DueDate") {
					for _, e := range ids {
						if natSV(d) <= natSV(e) {
							return true
						}
					}
				}
				return false
			}),
		}},
		{atIf(both, "cn:CreditNote/cac:AccountingCustomerParty", "ubl:Invoice/cac:AccountingCustomerParty"), []assert{
			a("IS-R-004", func(n *N) bool {
				return natAnyAttr(n.All("cac:Party/cac:PartyLegalEntity/cbc:CompanyID"), "schemeID", "0196")
			}),
			a("IS-R-005", func(n *N) bool {
				return n.Has("cac:Party/cac:PostalAddress/cbc:StreetName") && n.Has("cac:Party/cac:PostalAddress/cbc:PostalZone")
			}),
		}},
	}
}

// NETHERLANDS

// natKvKOrOIN is NL-R-003 and NL-R-005: a legal registration identifier in scheme 0106
// (KvK) or 0190 (OIN), not blank.
func natKvKOrOIN(id *N) bool {
	s := " " + rawAttr(id, "schemeID") + " "
	return (strings.Contains(s, " 0106 ") || strings.Contains(s, " 0190 ")) && id.Val() != ""
}

var natNLMeans = codeSet("30 48 49 57 58 59")

func natUBLNetherlands() pattern {
	nl := natUBLCountryIs("cac:AccountingSupplierParty", "NL")
	both := natBoth(nl, natUBLCountryIs("cac:AccountingCustomerParty", "NL"))
	rep := natBoth(nl, func(n *N) bool {
		return upper(n.doc.root.Str("cac:TaxRepresentativeParty/cac:PostalAddress/cac:Country/cbc:IdentificationCode")) == "NL"
	})
	address := func(n *N) bool { return n.Has("cbc:StreetName") && n.Has("cbc:CityName") && n.Has("cbc:PostalZone") }
	return pattern{
		{atIf(nl, "cbc:CreditNoteTypeCode"), []assert{
			a("NL-R-001", func(n *N) bool { return n.doc.root.Has("cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID") }),
		}},
		{atIf(nl, "cac:AccountingSupplierParty/cac:Party/cac:PostalAddress"), []assert{a("NL-R-002", address)}},
		{atIf(nl, "cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID"), []assert{a("NL-R-003", natKvKOrOIN)}},
		{atIf(both, "cac:AccountingCustomerParty/cac:Party/cac:PostalAddress"), []assert{a("NL-R-004", address)}},
		{atIf(both, "cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID"), []assert{a("NL-R-005", natKvKOrOIN)}},
		{atIf(rep, "cac:TaxRepresentativeParty/cac:PostalAddress"), []assert{a("NL-R-006", address)}},
		{atIf(nl, "cac:LegalMonetaryTotal"), []assert{
			a("NL-R-007", func(n *N) bool {
				due := n.One("cbc:PayableAmount")
				invoice := n.doc.root.Is("ubl:Invoice")
				if invoice && due != nil && !due.DecVal().IsPositive() {
					return true
				}
				if n.doc.root.Is("cn:CreditNote") && due != nil && !due.DecVal().IsNegative() {
					return true
				}
				return n.Has("//cac:PaymentMeans")
			}),
		}},
		{atIf(both, "cac:PaymentMeans"), []assert{
			a("NL-R-008", func(n *N) bool { return natNLMeans.has(n.Str("cbc:PaymentMeansCode")) }),
		}},
		{atIf(nl, "cac:OrderLineReference/cbc:LineID"), []assert{
			a("NL-R-009", func(n *N) bool { return n.doc.root.Has("cac:OrderReference/cbc:ID") }),
		}},
	}
}

// GERMANY

var (
	natDESkonto    = lazyre.New(`#(SKONTO)#TAGE=([0-9]+#PROZENT=[0-9]+\.[0-9]{2})(#BASISBETRAG=-?[0-9]+\.[0-9]{2})?#$`)
	natDELines     = lazyre.New(`(\r?\n)`)
	natDETags      = lazyre.New(`#[^\r\n]+#`) // XPath's . takes neither \n nor \r
	natDEAfterTags = lazyre.New(`^[ \t\r\n]*\n`)
	natDEEmail     = lazyre.New("^[a-zA-Z0-9!#$%&\"*+/=?^_`{|}~-]+(\\.[a-zA-Z0-9!#$%&\"*+/=?^_`{|}~-]+)*@([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?\\.)+[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$")
	natDEPhone     = lazyre.New(`.*([0-9].*){3,}.*`)
	natDETypes     = []string{"326", "380", "384", "389", "381", "875", "876", "877"}
	natDEVATCodes  = []string{"S", "Z", "E", "AE", "K", "G", "L", "M"}
)

// natDESkontoOK is DE-R-018 on the first note of each payment terms: every line starting
// with '#' is a cash discount line, and what follows the last #…# is a line break.
func natDESkontoOK(notes []string) bool {
	var tags []string
	for _, note := range notes {
		tags = append(tags, natTokenize(note, natDETags)...)
	}
	for _, note := range notes {
		for _, line := range natTokenize(note, natDELines) {
			if !strings.HasPrefix(norm(line), "#") {
				continue
			}
			if !natDESkonto.MatchString(norm(line)) || len(tags) == 0 || !natDEAfterTags.MatchString(tags[len(tags)-1]) {
				return false
			}
		}
	}
	return true
}

// natNotBlank is path[boolean(normalize-space(.))]: one of the elements has text.
func natNotBlank(p string) func(*N) bool {
	return func(n *N) bool { return Any(n.All(p), func(m *N) bool { return m.Val() != "" }) }
}

func natUBLGermany() pattern {
	de := natBoth(natUBLCountryIs("cac:AccountingSupplierParty", "DE"), natUBLCountryIs("cac:AccountingCustomerParty", "DE"))
	at2 := func(p string) []string { return []string{"/ubl:Invoice/" + p, "/cn:CreditNote/" + p} }
	means := func(codes ...float64) func(*N) bool {
		return func(n *N) bool { return natNumIn(n.All("cbc:PaymentMeansCode"), codes...) && de(n) }
	}
	return pattern{
		{atIf(de, "/ubl:Invoice", "/cn:CreditNote"), []assert{
			a("DE-R-001", has("cac:PaymentMeans")),
			a("DE-R-015", natNotBlank("cbc:BuyerReference")),
			a("DE-R-016", func(n *N) bool {
				var ids []*N
				for _, ac := range n.All("cac:AllowanceCharge") {
					if natAny(ac.All("cbc:ChargeIndicator"), "false", "true") {
						ids = append(ids, ac.All("cac:TaxCategory/cbc:ID")...)
					}
				}
				ids = append(ids, n.All("cac:InvoiceLine/cac:Item/cac:ClassifiedTaxCategory/cbc:ID")...)
				ids = append(ids, n.All("cac:CreditNoteLine/cac:Item/cac:ClassifiedTaxCategory/cbc:ID")...)
				return !natAny(ids, natDEVATCodes...) || n.Has("cac:TaxRepresentativeParty") || natNotBlank("cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID")(n)
			}),
			a("DE-R-017", func(n *N) bool {
				return natAny(n.All("cbc:InvoiceTypeCode"), natDETypes...) || natAny(n.All("cbc:CreditNoteTypeCode"), natDETypes...)
			}),
			a("DE-R-018", func(n *N) bool {
				var notes []string
				for _, t := range n.All("cac:PaymentTerms") {
					if note := t.One("cbc:Note"); note != nil {
						notes = append(notes, natSV(note))
					}
				}
				return natDESkontoOK(notes)
			}),
			a("DE-R-022", func(n *N) bool {
				return filenamesUnique(n.All("cac:AdditionalDocumentReference"), "cac:Attachment/cbc:EmbeddedDocumentBinaryObject")
			}),
			a("DE-R-026", func(n *N) bool {
				return !(natNumIn(n.All("cbc:InvoiceTypeCode"), 384) || natNumIn(n.All("cbc:CreditNoteTypeCode"), 384)) || n.Has("cac:BillingReference/cac:InvoiceDocumentReference")
			}),
			a("DE-R-030", func(n *N) bool {
				sepa := func(id *N) bool { s, ok := attrRaw(id, "schemeID"); return ok && s == "SEPA" }
				return !n.Has("cac:PaymentMeans/cac:PaymentMandate") ||
					Any(n.All("cac:AccountingSupplierParty/cac:Party/cac:PartyIdentification/cbc:ID"), sepa) ||
					Any(n.All("cac:PayeeParty/cac:PartyIdentification/cbc:ID"), sepa)
			}),
			a("DE-R-031", func(n *N) bool {
				return !n.Has("cac:PaymentMeans/cac:PaymentMandate") || n.Has("cac:PaymentMeans/cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID")
			}),
		}},
		{atIf(de, at2("cac:AccountingSupplierParty")...), []assert{a("DE-R-002", has("cac:Party/cac:Contact"))}},
		{atIf(de, at2("cac:AccountingSupplierParty/cac:Party/cac:PostalAddress")...), []assert{
			a("DE-R-003", natNotBlank("cbc:CityName")),
			a("DE-R-004", natNotBlank("cbc:PostalZone")),
		}},
		{atIf(de, at2("cac:AccountingSupplierParty/cac:Party/cac:Contact")...), []assert{
			a("DE-R-005", natNotBlank("cbc:Name")),
			a("DE-R-006", natNotBlank("cbc:Telephone")),
			a("DE-R-007", natNotBlank("cbc:ElectronicMail")),
			a("DE-R-027", func(n *N) bool { return natDEPhone.MatchString(n.Str("cbc:Telephone")) }),
			a("DE-R-028", func(n *N) bool { return natDEEmail.MatchString(n.Str("cbc:ElectronicMail")) }),
		}},
		{atIf(de, at2("cac:AccountingCustomerParty/cac:Party/cac:PostalAddress")...), []assert{
			a("DE-R-008", natNotBlank("cbc:CityName")),
			a("DE-R-009", natNotBlank("cbc:PostalZone")),
		}},
		{atIf(de, at2("cac:Delivery/cac:DeliveryLocation/cac:Address")...), []assert{
			a("DE-R-010", natNotBlank("cbc:CityName")),
			a("DE-R-011", natNotBlank("cbc:PostalZone")),
		}},
		{atIf(means(30, 58), at2("cac:PaymentMeans")...), []assert{
			a("DE-R-019", func(n *N) bool {
				return !natAny(n.All("cbc:PaymentMeansCode"), "58") || ibanOK(natFirst(n, "cac:PayeeFinancialAccount/cbc:ID"))
			}),
			a("DE-R-023-1", has("cac:PayeeFinancialAccount")),
			a("DE-R-023-2", func(n *N) bool { return !n.Has("cac:CardAccount") && !n.Has("cac:PaymentMandate") }),
		}},
		{atIf(means(48, 54, 55), at2("cac:PaymentMeans")...), []assert{
			a("DE-R-024-1", has("cac:CardAccount")),
			a("DE-R-024-2", func(n *N) bool { return !n.Has("cac:PayeeFinancialAccount") && !n.Has("cac:PaymentMandate") }),
		}},
		{atIf(means(59), at2("cac:PaymentMeans")...), []assert{
			a("DE-R-020", func(n *N) bool {
				return !natAny(n.All("cbc:PaymentMeansCode"), "59") || ibanOK(natFirst(n, "cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID"))
			}),
			a("DE-R-025-1", has("cac:PaymentMandate")),
			a("DE-R-025-2", func(n *N) bool { return !n.Has("cac:PayeeFinancialAccount") && !n.Has("cac:CardAccount") }),
		}},
		{atIf(de, at2("cac:TaxTotal/cac:TaxSubtotal")...), []assert{
			a("DE-R-014", natNotBlank("cac:TaxCategory/cbc:Percent")),
		}},
	}
}

// CII

const (
	natAgreement  = "rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeAgreement"
	natSettlement = "rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement"
)

// natCIIVATPrefix is the upper-case country of the first tax registration with an
// identifier in scheme VAT, and whether there is one.
func natCIIVATPrefix(regs []*N) (string, bool) {
	for _, r := range regs {
		if !natAnyAttr(r.All("ram:ID"), "schemeID", "VAT") {
			continue
		}
		p := natSubstring(natFirst(r, "ram:ID"), 1, 2)
		return upper(norm(p)), p != ""
	}
	return "", false
}

// natCIISupplierCountry is $supplierCountry of the CII Schematron: the prefix of the first
// seller's VAT identifier, else of the tax representative's, else the seller's country code,
// else XX.
func natCIISupplierCountry(n *N) string {
	root := n.doc.root
	var regs []*N
	if t := root.One("rsm:SupplyChainTradeTransaction"); t != nil {
		if ag := t.One("ram:ApplicableHeaderTradeAgreement"); ag != nil {
			if s := ag.One("ram:SellerTradeParty"); s != nil {
				regs = s.All("ram:SpecifiedTaxRegistration")
			}
		}
	}
	if c, ok := natCIIVATPrefix(regs); ok {
		return c
	}
	if c, ok := natCIIVATPrefix(root.All(natAgreement + "/ram:SellerTaxRepresentativeTradeParty/ram:SpecifiedTaxRegistration")); ok {
		return c
	}
	if m := root.One(natAgreement + "/ram:SellerTradeParty/ram:PostalTradeAddress/ram:CountryID"); m != nil {
		return upper(m.Val())
	}
	return "XX"
}

// natVATRegs are the party's tax registrations with an identifier in scheme VAT.
func natVATRegs(party *N) []*N {
	return Where(party.All("ram:SpecifiedTaxRegistration"), func(r *N) bool { return natAnyAttr(r.All("ram:ID"), "schemeID", "VAT") })
}

func natCIINorway() pattern {
	return pattern{
		{atIf(func(n *N) bool { return natCIISupplierCountry(n) == "NO" }, "ram:SellerTradeParty"), []assert{
			a("NO-R-002", func(n *N) bool {
				return Any(n.All("ram:SpecifiedTaxRegistration/ram:ID"), func(id *N) bool {
					s, ok := attrRaw(id, "schemeID")
					return ok && s == "FC" && id.Val() == "Foretaksregisteret"
				})
			}),
			a("NO-R-001", func(n *N) bool {
				vat := natVATRegs(n)
				var prefixes []string
				for _, r := range vat {
					prefixes = append(prefixes, natSubstring(natFirst(r, "ram:ID"), 1, 2))
				}
				return natNOVATOK(prefixes, natHead(natAll(vat, "ram:ID")))
			}),
		}},
	}
}

func natCIIDenmark() pattern {
	country := func(party string) func(*N) bool {
		p := natAgreement + "/ram:" + party + "/ram:PostalTradeAddress/ram:CountryID"
		return func(n *N) bool { return n.doc.root.Is("rsm:CrossIndustryInvoice") && natAny(n.doc.root.All(p), "DK") }
	}
	dk, dkCustomer := country("SellerTradeParty"), country("BuyerTradeParty")
	both := natBoth(dk, dkCustomer)
	const legal = natAgreement + "/ram:SellerTradeParty/ram:SpecifiedLegalOrganization/ram:ID"
	noScheme := func(n *N, party string) bool {
		id := n.One(natAgreement + "/ram:" + party + "/ram:GlobalID")
		return id != nil && natNormAttr(id, "schemeID") == ""
	}
	return pattern{
		{atIf(dk, "rsm:CrossIndustryInvoice"), []assert{
			a("DK-R-002", func(n *N) bool { return n.Str(legal) != "" }),
			a("DK-R-004", func(n *N) bool {
				acs := n.All(natSettlement + "/ram:SpecifiedTradeAllowanceCharge")
				return !(dkCustomer(n) && natAny(natAll(acs, "ram:ReasonCode"), "ZZZ")) || natDKReasonOK(natFirstOf(natAll(acs, "ram:Reason")))
			}),
			a("DK-R-013", func(n *N) bool {
				return !(dkCustomer(n) && (noScheme(n, "SellerTradeParty") || noScheme(n, "BuyerTradeParty")))
			}),
			a("DK-R-014", func(n *N) bool { return !n.Has(legal) || natNormAttr(n.One(legal), "schemeID") == "0184" }),
			a("DK-R-016", func(n *N) bool {
				return !(dkCustomer(n) && n.Str("rsm:ExchangedDocument/ram:TypeCode") == "381" &&
					natNumber(natFirst(n, natSettlement+"/ram:SpecifiedTradeSettlementHeaderMonetarySummation/ram:DuePayableAmount")) < 0)
			}),
		}},
		{atIf(both, "rsm:CrossIndustryInvoice/"+natSettlement+"/ram:SpecifiedTradeSettlementPaymentMeans"), natDKPaymentAsserts(func(n *N) natDKPayment {
			return natDKPayment{
				codes:    n.All("ram:TypeCode"),
				account:  n.Str("ram:PayeePartyCreditorFinancialAccount/ram:IBANID"),
				provider: n.Str("ram:PayeeSpecifiedCreditorFinancialInstitution/ram:BICID"),
				// As in the official rule: the creditor reference of the settlement and a mandate
				// below the payment means, where CII has none.
				mandate:        n.parent.Str("ram:CreditorReferenceID"),
				mandateAccount: n.Str("ram:SpecifiedTradePaymentTerms/ram:DirectDebitMandateID"),
				reference:      natFirst(n.parent, "ram:PaymentReference"),
				accountRaw:     natFirst(n, "ram:PayeePartyCreditorFinancialAccount/ram:IBANID"),
				giro:           func(s string) bool { return natLen(s) == 7 },
			}
		})},
		{atIf(both, "rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem"), []assert{
			a("DK-R-003", func(n *N) bool {
				return natDKClassificationOK(n.All("ram:SpecifiedTradeProduct/ram:DesignatedProductClassification/ram:ClassCode"))
			}),
		}},
	}
}

// natFirstOf is the first of the elements, nil for none.
func natFirstOf(ns []*N) *N {
	if len(ns) == 0 {
		return nil
	}
	return ns[0]
}

func natCIIItaly() pattern {
	it := func(n *N) bool { return natCIISupplierCountry(n) == "IT" }
	return pattern{
		{atIf(it, "ram:SellerTradeParty/ram:SpecifiedTaxRegistration"), []assert{
			a("IT-R-001", func(n *N) bool {
				ids := n.All("ram:ID")
				if Any(ids, func(id *N) bool { return natNormAttr(id, "schemeID") != "FC" }) {
					return true
				}
				fc := Where(ids, func(id *N) bool { return natNormAttr(id, "schemeID") == "FC" })
				return natITTaxID.MatchString(norm(natHead(fc)))
			}),
		}},
		{atIf(it, "ram:SellerTradeParty"), []assert{
			a("IT-R-002", has("ram:PostalTradeAddress/ram:LineOne")),
			a("IT-R-003", has("ram:PostalTradeAddress/ram:CityName")),
			a("IT-R-004", has("ram:PostalTradeAddress/ram:PostcodeCode")),
		}},
	}
}

func natCIISweden() pattern {
	const seller = "rsm:CrossIndustryInvoice/" + natAgreement + "/ram:SellerTradeParty"
	inSE := func(party *N) bool { return natAny(party.All("ram:PostalTradeAddress/ram:CountryID"), "SE") }
	// seVAT is a tax registration whose VAT identifier starts with SE.
	seVAT := func(r *N) bool {
		ids := Where(r.All("ram:ID"), func(id *N) bool { return natAnyAttr([]*N{id}, "schemeID", "VAT") })
		return natSubstring(natHead(ids), 1, 2) == "SE"
	}
	vatID := func(party *N) string {
		return natHead(Where(party.All("ram:SpecifiedTaxRegistration/ram:ID"), func(id *N) bool { return natAnyAttr([]*N{id}, "schemeID", "VAT") }))
	}
	sellers := func(n *N) []*N { return n.doc.root.All(natAgreement + "/ram:SellerTradeParty") }
	sellerVAT := func(n *N) bool {
		return Any(sellers(n), func(p *N) bool { return inSE(p) && Any(p.All("ram:SpecifiedTaxRegistration"), seVAT) })
	}
	// means is the test on the settlement's transaction: its seller (and buyer) is in Sweden.
	means := func(pm *N, buyer bool) bool {
		t := pm.parent.parent
		if t == nil || !t.Is("rsm:SupplyChainTradeTransaction") || t.parent != t.doc.root {
			return false
		}
		ok := Any(t.All("ram:ApplicableHeaderTradeAgreement/ram:SellerTradeParty"), inSE)
		if buyer {
			ok = ok && Any(t.All("ram:ApplicableHeaderTradeAgreement/ram:BuyerTradeParty"), inSE)
		}
		return ok
	}
	giro := func(kind string) func(*N) bool {
		return func(id *N) bool {
			pm := id.parent.parent
			return pm.Str("ram:TypeCode") == "30" && pm.Str("ram:PayeeSpecifiedCreditorFinancialInstitution/ram:BICID") == kind && means(pm, false)
		}
	}
	const pm = "/rsm:CrossIndustryInvoice/" + natSettlement + "/ram:SpecifiedTradeSettlementPaymentMeans"
	plus, bank := natSEGiroAsserts()
	return pattern{
		{atIf(func(n *N) bool { return inSE(n) && Any(n.All("ram:SpecifiedTaxRegistration"), seVAT) }, seller), natSEVATAsserts(vatID)},
		{atIf(func(n *N) bool { return inSE(n.parent) && n.Has("ram:ID") }, seller+"/ram:SpecifiedLegalOrganization"), natSEOrgAsserts(func(n *N) *N { return n.One("ram:ID") })},
		{atIf(func(n *N) bool {
			p := n.parent.parent
			return natAnyAttr([]*N{n}, "schemeID", "FC") && inSE(p) && p.Has("ram:SpecifiedLegalOrganization/ram:ID")
		}, seller+"/ram:SpecifiedTaxRegistration/ram:ID"), []assert{
			a("SE-R-005", func(n *N) bool { return upper(n.Val()) == "GODKÄND FÖR F-SKATT" }),
		}},
		{atIf(sellerVAT, "ram:ApplicableTradeTax", "ram:CategoryTradeTax"), []assert{
			a("SE-R-006", func(n *N) bool { return natSERate(n, "ram:RateApplicablePercent") }),
		}},
		{atIf(giro("SE:PLUSGIRO"), pm+"/ram:PayeePartyCreditorFinancialAccount/ram:ProprietaryID"), plus},
		{atIf(giro("SE:BANKGIRO"), pm+"/ram:PayeePartyCreditorFinancialAccount/ram:ProprietaryID"), bank},
		{atIf(func(n *N) bool { c := n.Str("ram:TypeCode"); return (c == "50" || c == "56") && means(n, false) }, pm), []assert{
			a("SE-R-011", func(*N) bool { return false }),
		}},
		{atIf(func(n *N) bool { return n.Str("ram:TypeCode") == "31" && means(n, true) }, pm), []assert{
			a("SE-R-012", func(*N) bool { return false }),
		}},
	}
}

func natCIINetherlands() pattern {
	country := func(party string) func(*N) bool {
		p := natAgreement + "/ram:" + party + "/ram:PostalTradeAddress/ram:CountryID"
		return func(n *N) bool { return n.doc.root.Is("rsm:CrossIndustryInvoice") && upper(n.doc.root.Str(p)) == "NL" }
	}
	nl := country("SellerTradeParty")
	both := natBoth(nl, country("BuyerTradeParty"))
	rep := natBoth(nl, country("SellerTaxRepresentativeTradeParty"))
	address := func(n *N) bool { return n.Has("ram:LineOne") && n.Has("ram:CityName") && n.Has("ram:PostcodeCode") }
	credit := codeSet("81 83 381 396 532")
	const root = "/rsm:CrossIndustryInvoice/"
	return pattern{
		{atIf(func(n *N) bool { return credit.has(n.Str("ram:TypeCode")) && nl(n) }, root+"rsm:ExchangedDocument"), []assert{
			a("NL-R-001", has("//ram:ApplicableHeaderTradeSettlement/ram:InvoiceReferencedDocument/ram:IssuerAssignedID")),
		}},
		{atIf(nl, root+natAgreement+"/ram:SellerTradeParty/ram:PostalTradeAddress"), []assert{a("NL-R-002", address)}},
		{atIf(nl, root+natAgreement+"/ram:SellerTradeParty/ram:SpecifiedLegalOrganization/ram:ID"), []assert{a("NL-R-003", natKvKOrOIN)}},
		{atIf(both, root+natAgreement+"/ram:BuyerTradeParty/ram:PostalTradeAddress"), []assert{a("NL-R-004", address)}},
		{atIf(both, root+natAgreement+"/ram:BuyerTradeParty/ram:SpecifiedLegalOrganization/ram:ID"), []assert{a("NL-R-005", natKvKOrOIN)}},
		{atIf(rep, "rsm:CrossIndustryInvoice/"+natAgreement+"/ram:SellerTaxRepresentativeTradeParty/ram:PostalTradeAddress"), []assert{a("NL-R-006", address)}},
		{atIf(nl, root+natSettlement+"/ram:SpecifiedTradeSettlementHeaderMonetarySummation"), []assert{
			a("NL-R-007", func(n *N) bool {
				credit := n.doc.root.Str("rsm:ExchangedDocument/ram:TypeCode") == "381"
				if due := n.One("ram:DuePayableAmount"); due != nil {
					if d := due.DecVal(); !credit && !d.IsPositive() || credit && !d.IsNegative() {
						return true
					}
				}
				return n.doc.root.Has(natSettlement + "/ram:SpecifiedTradeSettlementPaymentMeans")
			}),
		}},
		{atIf(both, root+natSettlement+"/ram:SpecifiedTradeSettlementPaymentMeans"), []assert{
			a("NL-R-008", func(n *N) bool { return natNLMeans.has(n.Str("ram:TypeCode")) }),
		}},
		{atIf(nl, "rsm:CrossIndustryInvoice/rsm:SupplyChainTradeTransaction/ram:IncludedSupplyChainTradeLineItem/ram:SpecifiedLineTradeAgreement/ram:BuyerOrderReferencedDocument/ram:LineID"), []assert{
			a("NL-R-009", func(n *N) bool {
				return n.doc.root.Has(natAgreement + "/ram:BuyerOrderReferencedDocument/ram:IssuerAssignedID")
			}),
		}},
	}
}
