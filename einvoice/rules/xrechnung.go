package rules

import (
	"math/big"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/internal/lazyre"
)

// XRechnung 3.0 guideline ids (BT-24): the CIUS, its extension and the Clean Vehicles
// Directive variant.
const (
	xrCIUS      = einvoice.GuidelineXRechnung30
	xrExtension = xrCIUS + "#conformant#urn:xeinkauf.de:kosit:extension:xrechnung_3.0"
	xrCVD       = xrCIUS + "#compliant#urn:xeinkauf.de:kosit:xrechnung:cvd_0.9"
)

// The formats XRechnung prescribes for free text fields.
var (
	skonto    = lazyre.New(`(^|\r?\n)#(SKONTO)#TAGE=([0-9]+#PROZENT=[0-9]+\.[0-9]{2})(#BASISBETRAG=-?[0-9]+\.[0-9]{2})?#$`)
	skontoTag = lazyre.New(`#.+#`)
	afterTags = lazyre.New(`^\s*\n`)
	email     = lazyre.New(`^[^@\s]+@([^@.\s]+\.)+[^@.\s]+$`)
	telephone = lazyre.New(`.*([0-9].*){3,}.*`)
	uri       = lazyre.New(`^([a-zA-Z])([a-zA-Z0-9+.-])+:.*`)
	iban      = lazyre.New(`^[A-Z]{2}[0-9]{2}[a-zA-Z0-9]{0,30}$`)
	spaces    = lazyre.New(`[ \n\r\t\s]`)
)

// The identifier schemes the XRechnung extension adds (DiGA), and the CVD classification.
var (
	digaSchemes = codeSet("XR01 XR02 XR03")
	cvdVehicles = codeSet("M1 M2 M3 N1 N2 N3")
	cvaCodes    = codeSet("clean zero-emission other")
)

// scenarioLevels are KoSIT's severity overrides of an XRechnung scenario (the
// customLevel entries of validator-configuration-xrechnung): code lists XRechnung relaxes
// (BR-CL-21, BR-CL-23 warnings), rules the extension and CVD variants replace with their own
// (information), and syntax warnings XRechnung makes errors (sub-invoice lines outside the
// extension, CII payment terms and line VAT cardinalities).
func scenarioLevels(guideline string, s syntax.Syntax) map[string]Severity {
	l := map[string]Severity{"BR-CL-23": Warning, "BR-CL-21": Warning}
	if s == syntax.UBL {
		l["UBL-CR-646"] = Fatal
	} else {
		l["CII-SR-452"], l["CII-SR-453"], l["CII-SR-454"] = Fatal, Fatal, Fatal
	}
	switch strings.TrimSpace(guideline) {
	case xrExtension:
		// BR-DEX-01 and BR-DEX-04..09 take their place: more MIME types, the DiGA
		// identifier schemes, and (UBL) prepaid amounts of sub-invoices in the amount due.
		for _, id := range []string{"BR-CL-10", "BR-CL-11", "BR-CL-21", "BR-CL-24", "BR-CL-25", "BR-CL-26"} {
			l[id] = Info
		}
		if s == syntax.UBL {
			l["BR-CO-16"], l["UBL-CR-470"], l["UBL-CR-646"] = Info, Info, Info
		}
	case xrCVD:
		l["BR-CL-13"] = Info // BR-TMP-CVD-01 adds the CVD scheme
	}
	return l
}

// relevel applies scenario levels to the results, and says so on each result it changes.
func relevel(rs []Result, levels map[string]Severity) {
	for i := range rs {
		if l, ok := levels[rs[i].ID]; ok && rs[i].Severity != l {
			rs[i].Scenario = string(rs[i].Severity) + " in the rule set, " + string(l) + " in KoSIT's XRechnung scenario"
			rs[i].Severity = l
		}
	}
}

// filenamesUnique is BR-DE-22 (and Peppol's DE-R-022): no attachment of a reference has
// the file name of an attachment of an earlier reference, as the official test compares
// each reference with those before it.
func filenamesUnique(refs []*N, objects string) bool {
	seen := map[string]bool{}
	for _, r := range refs {
		objs := r.All(objects)
		for _, o := range objs {
			if f, ok := attrRaw(o, "filename"); ok && seen[f] {
				return false
			}
		}
		for _, o := range objs {
			if f, ok := attrRaw(o, "filename"); ok {
				seen[f] = true
			}
		}
	}
	return true
}

// isXRechnung3 tells whether the guideline is one the XRechnung 3.0 rules apply to.
func isXRechnung3(guideline string) bool {
	return strings.HasPrefix(strings.TrimSpace(guideline), xrCIUS)
}

// ibanOK is the ISO 13616 check: the format, then the remainder 1 modulo 97.
func ibanOK(raw string) bool {
	s := spaces.ReplaceAllString(strings.Join(strings.Fields(raw), " "), "")
	if !iban.MatchString(s) {
		return false
	}
	r := s[4:] + strings.ToUpper(s[:2]) + s[2:4]
	var digits strings.Builder
	for _, c := range r {
		if c > 64 {
			digits.WriteString(itoa(int(c) - 55))
		} else {
			digits.WriteString(itoa(int(c) - 48))
		}
	}
	n, ok := new(big.Int).SetString(digits.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

// skontoOK is BR-DE-18: every line of the first payment terms note that starts with '#'
// is a well-formed discount line, and the note ends with a line break after the last one.
func skontoOK(note string) bool {
	for line := range strings.SplitSeq(strings.ReplaceAll(note, "\r\n", "\n"), "\n") {
		if !strings.HasPrefix(norm(line), "#") {
			continue
		}
		if !skonto.MatchString(norm(line)) {
			return false
		}
		parts := skontoTag.Split(note, -1)
		if !afterTags.MatchString(parts[len(parts)-1]) {
			return false
		}
	}
	return true
}

func blank(n *N, p string) bool { return !Any(n.All(p), func(m *N) bool { return m.Val() != "" }) }

// xrUBL is the XRechnung 3.0 CIUS on UBL, with its extension and CVD patterns.
func xrUBL(guideline string) []pattern {
	g := strings.TrimSpace(guideline)
	ext, cvd := g == xrExtension, g == xrCVD
	vatCodes := codeSet("S Z E AE K G L M")
	codeIn := func(ns []*N) bool { return Any(ns, func(m *N) bool { return vatCodes.has(m.Text) }) }
	typeCodes := codeSet("326 380 384 389 381 875 876 877")
	meansIn := func(codes ...string) func(*N) bool {
		return func(pm *N) bool {
			c := pm.Str("cbc:PaymentMeansCode")
			for _, x := range codes {
				if c == x {
					return true
				}
			}
			return false
		}
	}
	main := pattern{
		{at("/ubl:Invoice", "/cn:CreditNote"), []assert{
			a("BR-DE-1", has("cac:PaymentMeans")),
			a("BR-DE-15", func(n *N) bool { return !blank(n, "cbc:BuyerReference") }),
			a("BR-DE-16", func(n *N) bool {
				allowances := Where(n.All("cac:AllowanceCharge"), func(ac *N) bool { return anyText(ac.All("cbc:ChargeIndicator"), "false") })
				charges := Where(n.All("cac:AllowanceCharge"), func(ac *N) bool { return anyText(ac.All("cbc:ChargeIndicator"), "true") })
				var ids []*N
				for _, ac := range append(allowances, charges...) {
					ids = append(ids, ac.All("cac:TaxCategory/cbc:ID")...)
				}
				ids = append(ids, uLinesAll(n, "cac:Item/cac:ClassifiedTaxCategory/cbc:ID")...)
				if !codeIn(ids) {
					return true
				}
				return n.Has("cac:TaxRepresentativeParty") || !blank(n, "cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID")
			}),
			a("BR-DE-17", func(n *N) bool {
				return typeCodes.has(n.Str("cbc:InvoiceTypeCode")) || typeCodes.has(n.Str("cbc:CreditNoteTypeCode"))
			}),
			a("BR-DE-18", func(n *N) bool {
				note := n.One("cac:PaymentTerms/cbc:Note")
				return note == nil || skontoOK(note.RawText())
			}),
			a("BR-DE-21", func(n *N) bool {
				return Any(n.All("cbc:CustomizationID"), func(c *N) bool { return c.Text == xrCIUS || c.Text == xrExtension || c.Text == xrCVD })
			}),
			a("BR-DE-22", func(n *N) bool {
				return filenamesUnique(n.All("cac:AdditionalDocumentReference"), "cac:Attachment/cbc:EmbeddedDocumentBinaryObject")
			}),
			a("BR-DE-26", func(n *N) bool {
				return !(n.Str("cbc:InvoiceTypeCode") == "384" || n.Str("cbc:CreditNoteTypeCode") == "384") || n.Has("cac:BillingReference/cac:InvoiceDocumentReference")
			}),
			a("BR-DE-30", func(n *N) bool {
				if !n.Has("cac:PaymentMeans/cac:PaymentMandate") {
					return true
				}
				sepa := func(id *N) bool { return rawAttr(id, "schemeID") == "SEPA" }
				return Any(n.All("cac:AccountingSupplierParty/cac:Party/cac:PartyIdentification/cbc:ID"), sepa) || Any(n.All("cac:PayeeParty/cac:PartyIdentification/cbc:ID"), sepa)
			}),
			a("BR-DE-31", func(n *N) bool {
				return !n.Has("cac:PaymentMeans/cac:PaymentMandate") || n.Has("cac:PaymentMeans/cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID")
			}),
			a("BR-DE-TMP-32", func(n *N) bool {
				if n.Has("cac:Delivery/cbc:ActualDeliveryDate") || n.Has("cac:InvoicePeriod") {
					return true
				}
				for _, l := range uLines(n, "") {
					if !l.Has("cac:InvoicePeriod") {
						return false
					}
				}
				return true
			}),
		}},
		{at("/ubl:Invoice/cac:AdditionalDocumentReference/cac:Attachment/cac:ExternalReference", "/cn:CreditNote/cac:AdditionalDocumentReference/cac:Attachment/cac:ExternalReference"), []assert{
			a("BR-TMP-2", func(n *N) bool { return Any(n.All("cbc:URI"), func(u *N) bool { return uri.MatchString(u.Text) }) }),
		}},
		{at("/ubl:Invoice/cac:AccountingSupplierParty", "/cn:CreditNote/cac:AccountingSupplierParty"), []assert{
			a("BR-DE-2", has("cac:Party/cac:Contact")),
		}},
		{at("/ubl:Invoice/cac:AccountingSupplierParty/cac:Party/cac:PostalAddress", "/cn:CreditNote/cac:AccountingSupplierParty/cac:Party/cac:PostalAddress"), []assert{
			a("BR-DE-3", func(n *N) bool { return !blank(n, "cbc:CityName") }),
			a("BR-DE-4", func(n *N) bool { return !blank(n, "cbc:PostalZone") }),
		}},
		{at("/ubl:Invoice/cac:AccountingSupplierParty/cac:Party/cac:Contact", "/cn:CreditNote/cac:AccountingSupplierParty/cac:Party/cac:Contact"), []assert{
			a("BR-DE-5", func(n *N) bool { return !blank(n, "cbc:Name") }),
			a("BR-DE-6", func(n *N) bool { return !blank(n, "cbc:Telephone") }),
			a("BR-DE-7", func(n *N) bool { return !blank(n, "cbc:ElectronicMail") }),
			a("BR-DE-27", func(n *N) bool { return telephone.MatchString(n.Str("cbc:Telephone")) }),
			a("BR-DE-28", func(n *N) bool { return email.MatchString(n.Str("cbc:ElectronicMail")) }),
		}},
		{at("/ubl:Invoice/cac:AccountingCustomerParty/cac:Party/cac:PostalAddress", "/cn:CreditNote/cac:AccountingCustomerParty/cac:Party/cac:PostalAddress"), []assert{
			a("BR-DE-8", func(n *N) bool { return !blank(n, "cbc:CityName") }),
			a("BR-DE-9", func(n *N) bool { return !blank(n, "cbc:PostalZone") }),
		}},
		{at("/ubl:Invoice/cac:Delivery/cac:DeliveryLocation/cac:Address", "/cn:CreditNote/cac:Delivery/cac:DeliveryLocation/cac:Address"), []assert{
			a("BR-DE-10", func(n *N) bool { return !blank(n, "cbc:CityName") }),
			a("BR-DE-11", func(n *N) bool { return !blank(n, "cbc:PostalZone") }),
		}},
		{atIf(meansIn("30", "58"), "/ubl:Invoice/cac:PaymentMeans", "/cn:CreditNote/cac:PaymentMeans"), []assert{
			a("BR-DE-19", func(n *N) bool {
				return n.Str("cbc:PaymentMeansCode") != "58" || ibanOK(textOf(n.One("cac:PayeeFinancialAccount/cbc:ID")))
			}),
			a("BR-DE-23-a", has("cac:PayeeFinancialAccount")),
			a("BR-DE-23-b", func(n *N) bool { return !n.Has("cac:CardAccount") && !n.Has("cac:PaymentMandate") }),
		}},
		{atIf(meansIn("48", "54", "55"), "/ubl:Invoice/cac:PaymentMeans", "/cn:CreditNote/cac:PaymentMeans"), []assert{
			a("BR-DE-24-a", has("cac:CardAccount")),
			a("BR-DE-24-b", func(n *N) bool { return !n.Has("cac:PayeeFinancialAccount") && !n.Has("cac:PaymentMandate") }),
		}},
		{atIf(meansIn("59"), "/ubl:Invoice/cac:PaymentMeans", "/cn:CreditNote/cac:PaymentMeans"), []assert{
			a("BR-DE-20", func(n *N) bool {
				return ibanOK(textOf(n.One("cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID")))
			}),
			a("BR-DE-25-a", has("cac:PaymentMandate")),
			a("BR-DE-25-b", func(n *N) bool { return !n.Has("cac:PayeeFinancialAccount") && !n.Has("cac:CardAccount") }),
		}},
		{at("/ubl:Invoice/cac:TaxTotal/cac:TaxSubtotal", "/cn:CreditNote/cac:TaxTotal/cac:TaxSubtotal"), []assert{
			a("BR-DE-14", func(n *N) bool { return !blank(n, "cac:TaxCategory/cbc:Percent") }),
		}},
	}
	out := []pattern{main}
	if ext {
		extCodes := func(attr string, lists ...*codes) func(*N) bool {
			return func(n *N) bool {
				v, _ := n.AttrVal(attr)
				for _, l := range lists {
					if l.has(v) {
						return true
					}
				}
				return false
			}
		}
		out = append(out, pattern{
			{at("cbc:EmbeddedDocumentBinaryObject"), []assert{
				a("BR-DEX-01", func(n *N) bool {
					return mime.has(rawAttr(n, "mimeCode")) || rawAttr(n, "mimeCode") == "application/xml"
				}),
			}},
			{at("/ubl:Invoice", "/cn:CreditNote"), []assert{
				a("BR-DEX-02", func(n *N) bool {
					if n.Local != "Invoice" { // the rule is written for invoices only
						return true
					}
					sums := func(l *N) bool {
						own := l.One("cbc:LineExtensionAmount")
						return own != nil && own.DecVal().Equal(Sum(l.All("cac:SubInvoiceLine/cbc:LineExtensionAmount")))
					}
					hasSubs := has("cac:SubInvoiceLine")
					return !Any(Where(n.All("cac:InvoiceLine"), hasSubs), func(l *N) bool { return !sums(l) }) &&
						!Any(Where(n.All("//cac:SubInvoiceLine"), hasSubs), func(l *N) bool { return !sums(l) })
				}),
				a("BR-DEX-03", func(n *N) bool {
					return !Any(n.All("//cac:SubInvoiceLine"), func(s *N) bool {
						return Any(s.All("cac:Item"), func(it *N) bool { return it.Count("cac:ClassifiedTaxCategory") != 1 })
					})
				}),
			}},
			{at("cac:LegalMonetaryTotal"), []assert{
				a("BR-DEX-09", func(n *N) bool {
					opt := func(p string) decimal.Decimal {
						if d, ok := n.Dec(p); ok {
							return d
						}
						return decimal.Zero
					}
					third := decimal.Zero
					if paid := n.All("../cac:PrepaidPayment/cbc:PaidAmount"); Any(paid, func(m *N) bool { return m.Val() != "" }) {
						third = Sum(paid)
					}
					due, ok1 := n.Dec("cbc:PayableAmount")
					incl, ok2 := n.Dec("cbc:TaxInclusiveAmount")
					return ok1 && ok2 && round2(due.Sub(opt("cbc:PayableRoundingAmount"))).Equal(round2(incl.Sub(opt("cbc:PrepaidAmount")).Add(third)))
				}),
			}},
			{atIf(hasAttr("schemeID"), "cac:PartyIdentification/cbc:ID"), []assert{
				a("BR-DEX-04", func(n *N) bool {
					if extCodes("schemeID", icd, digaSchemes)(n) {
						return true
					}
					v, _ := n.AttrVal("schemeID")
					if v != "SEPA" {
						return false
					}
					return n.Under("cac:AccountingSupplierParty", "cac:PayeeParty")
				}),
			}},
			{atIf(hasAttr("schemeID"), "cac:PartyLegalEntity/cbc:CompanyID"), []assert{
				a("BR-DEX-05", extCodes("schemeID", icd, digaSchemes)),
			}},
			{atIf(hasAttr("schemeID"), "cac:StandardItemIdentification/cbc:ID"), []assert{
				a("BR-DEX-06", extCodes("schemeID", icd, digaSchemes)),
			}},
			{atIf(hasAttr("schemeID"), "cbc:EndpointID"), []assert{
				a("BR-DEX-07", extCodes("schemeID", eas, digaSchemes)),
			}},
			{atIf(hasAttr("schemeID"), "cac:DeliveryLocation/cbc:ID"), []assert{
				a("BR-DEX-08", extCodes("schemeID", icd, digaSchemes)),
			}},
			{at("/ubl:Invoice/cac:PrepaidPayment"), []assert{
				a("BR-DEX-10", func(n *N) bool { return !blank(n, "cbc:ID") }),
				a("BR-DEX-11", func(n *N) bool { return !blank(n, "cbc:PaidAmount") }),
				a("BR-DEX-12", func(n *N) bool { return !blank(n, "cbc:InstructionID") }),
				a("BR-DEX-13", maxDecimals("cbc:PaidAmount")),
				a("BR-DEX-14", func(n *N) bool {
					return Any(n.All("cbc:PaidAmount"), func(p *N) bool { return anyText(n.All("../cbc:DocumentCurrencyCode"), rawAttr(p, "currencyID")) })
				}),
			}},
		})
	}
	if cvd {
		out = append(out, pattern{
			{at("/ubl:Invoice", "/cn:CreditNote"), []assert{
				a("BR-DE-CVD-02", func(n *N) bool { return !blank(n, "cac:OriginatorDocumentReference/cbc:ID") }),
				a("BR-DE-CVD-01", func(n *N) bool { return !blank(n, "cac:ContractDocumentReference/cbc:ID") }),
				a("BR-DE-CVD-03", func(n *N) bool {
					return Any(uLinesAll(n, "cac:Item"), cvdItem)
				}),
			}},
			{at("cac:InvoiceLine/cac:Item", "cac:CreditNoteLine/cac:Item"), []assert{
				a("BR-DE-CVD-06-a", func(n *N) bool {
					return !Any(n.All("cac:CommodityClassification/cbc:ItemClassificationCode"), cvdCode) || len(Where(n.All("cac:AdditionalItemProperty"), cva)) == 1
				}),
				a("BR-DE-CVD-06-b", func(n *N) bool {
					return !Any(n.All("cac:AdditionalItemProperty"), cva) || len(Where(n.All("cac:CommodityClassification/cbc:ItemClassificationCode"), cvdCode)) == 1
				}),
			}},
			{at("cac:InvoiceLine/cac:Item/cac:CommodityClassification/cbc:ItemClassificationCode", "cac:CreditNoteLine/cac:Item/cac:CommodityClassification/cbc:ItemClassificationCode"), []assert{
				a("BR-TMP-CVD-01", func(n *N) bool {
					v, _ := n.AttrVal("listID")
					return v == "CVD" || untdid7143.has(v)
				}),
				a("BR-DE-CVD-04", func(n *N) bool { v, _ := n.AttrVal("listID"); return v != "CVD" || cvdVehicles.has(n.Val()) }),
			}},
			{atIf(cva, "cac:InvoiceLine/cac:Item/cac:AdditionalItemProperty", "cac:CreditNoteLine/cac:Item/cac:AdditionalItemProperty"), []assert{
				a("BR-DE-CVD-05", func(n *N) bool { return cvaCodes.has(n.Str("cbc:Value")) }),
			}},
		})
	}
	return out
}

func cvdCode(c *N) bool { return rawAttr(c, "listID") == "CVD" }
func cva(p *N) bool     { return anyText(p.All("cbc:Name"), "cva") }
func cvdItem(it *N) bool {
	return Any(it.All("cac:CommodityClassification/cbc:ItemClassificationCode"), cvdCode) && Any(it.All("cac:AdditionalItemProperty"), cva)
}

// uLinesAll is the path below every invoice or credit note line.
func uLinesAll(n *N, p string) []*N {
	var out []*N
	for _, l := range uLines(n, "") {
		out = append(out, l.All(p)...)
	}
	return out
}

func attrRaw(n *N, local string) (string, bool) {
	for _, at := range n.Attrs {
		if at.Space == "" && at.Local == local {
			return at.Value, true
		}
	}
	return "", false
}
