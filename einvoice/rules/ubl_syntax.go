package rules

import (
	"strings"
)

// restriction is a UBL element or attribute EN 16931 does not use (UBL-CR-*, warnings).
type restriction struct{ id, path, attr string }

const lineUnion = "(cac:InvoiceLine|cac:CreditNoteLine)/"

// absent is the rule's test: the element or attribute is not there. Paths below the root
// are answered from the document's path index with keys built here once, not per document.
func (r restriction) absent() func(n *N) bool {
	var paths []string
	switch {
	case r.path == "//*" && r.attr != "":
		paths = []string{"//@" + r.attr}
	case !strings.HasPrefix(r.path, "/"):
		p := strings.Replace(r.path, lineUnion, "cac:InvoiceLine/", 1)
		if r.attr != "" {
			p += "/@" + r.attr
		}
		paths = []string{p}
		if strings.HasPrefix(r.path, lineUnion) {
			paths = append(paths, strings.Replace(p, "cac:InvoiceLine/", "cac:CreditNoteLine/", 1))
		}
	}
	if paths != nil {
		keys := make([]pathKey, len(paths))
		for i, p := range paths {
			keys[i] = compileKey(p)
		}
		return func(n *N) bool {
			for _, k := range keys {
				if n.doc.has(k) {
					return false
				}
			}
			return true
		}
	}
	return func(n *N) bool {
		var found []*N
		switch {
		case r.path == "//*":
			found = n.doc.all
		case strings.HasPrefix(r.path, lineUnion):
			rest := strings.TrimPrefix(r.path, lineUnion)
			found = append(n.All("cac:InvoiceLine/"+rest), n.All("cac:CreditNoteLine/"+rest)...)
		default:
			found = n.All(r.path)
		}
		if r.attr == "" {
			return len(found) == 0
		}
		return !Any(found, hasAttr(r.attr))
	}
}

func (r restriction) message() string {
	what := strings.TrimPrefix(r.path, "//")
	what = strings.ReplaceAll(what, lineUnion, "cac:InvoiceLine/")
	if r.attr != "" {
		if r.path == "//*" {
			return "The attribute " + r.attr + " is not used in EN 16931 and should not be present."
		}
		what += "/@" + r.attr
	}
	return what + " is not part of EN 16931 and should not be present."
}

// maxCount asserts that the path occurs at most max times.
func maxCount(p string, max int) func(*N) bool {
	c := compile(p)
	return func(n *N) bool { return len(n.all(c)) <= max }
}

// distinctValues counts the different texts of the elements.
func distinctValues(ns []*N) int {
	seen := map[string]bool{}
	for _, m := range ns {
		seen[m.Text] = true
	}
	return len(seen)
}

// ublSyntax is the UBL binding of EN 16931: cardinalities tighter than UBL's, data type
// restrictions and the elements EN 16931 does not use.
func ublSyntax() pattern {
	invoice := []assert{
		a("UBL-SR-01", maxCount("cac:ContractDocumentReference/cbc:ID", 1)),
		a("UBL-SR-02", maxCount("cac:ReceiptDocumentReference/cbc:ID", 1)),
		a("UBL-SR-03", maxCount("cac:DespatchDocumentReference/cbc:ID", 1)),
		a("UBL-SR-04", func(n *N) bool {
			return countIn(Where(n.All("cac:AdditionalDocumentReference"), func(r *N) bool { return anyText(r.All("cbc:DocumentTypeCode"), "130") }), "cbc:ID") <= 1
		}),
		a("UBL-SR-05", maxCount("cac:PaymentTerms/cbc:Note", 1)),
		a("UBL-SR-08", maxCount("cac:InvoicePeriod", 1)),
		a("UBL-SR-09", maxCount("cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName", 1)),
		a("UBL-SR-10", maxCount("cac:AccountingSupplierParty/cac:Party/cac:PartyName/cbc:Name", 1)),
		a("UBL-SR-11", maxCount("cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID", 1)),
		a("UBL-SR-12", func(n *N) bool {
			return countIn(Where(n.All("cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme"), rawVAT(true)), "cbc:CompanyID") <= 1
		}),
		a("UBL-SR-13", func(n *N) bool {
			return countIn(Where(n.All("cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme"), rawVAT(false)), "cbc:CompanyID") <= 1
		}),
		a("UBL-SR-14", maxCount("cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyLegalForm", 1)),
		a("UBL-SR-15", maxCount("cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName", 1)),
		a("UBL-SR-16", maxCount("cac:AccountingCustomerParty/cac:Party/cac:PartyIdentification/cbc:ID", 1)),
		a("UBL-SR-17", maxCount("cac:AccountingCustomerParty/cac:Party/cac:PartyLegalEntity/cbc:CompanyID", 1)),
		a("UBL-SR-18", func(n *N) bool {
			return countIn(Where(n.All("cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme"), rawVAT(true)), "cbc:CompanyID") <= 1
		}),
		a("UBL-SR-24", maxCount("cac:Delivery", 1)),
		a("UBL-SR-29", func(n *N) bool {
			return len(Where(n.All("//cac:PartyIdentification/cbc:ID"), func(id *N) bool { return strings.ToUpper(rawAttr(id, "schemeID")) == "SEPA" })) <= 1
		}),
		a("UBL-SR-39", maxCount("cac:ProjectReference/cbc:ID", 1)),
		a("UBL-SR-40", maxCount("cac:AccountingCustomerParty/cac:Party/cac:PartyName/cbc:Name", 1)),
		a("UBL-SR-44", func(n *N) bool { return distinctValues(n.All("//cbc:PaymentID")) <= 1 }),
		a("UBL-SR-45", maxCount("cac:PaymentMeans/cbc:PaymentDueDate", 1)),
		a("UBL-SR-46", func(n *N) bool {
			return len(Where(n.All("cac:PaymentMeans/cbc:PaymentMeansCode"), hasAttr("name"))) <= 1
		}),
		a("UBL-SR-47", func(n *N) bool { return distinctValues(n.All("//cbc:PaymentMeansCode")) <= 1 }),
		a("UBL-SR-49", maxCount("cac:InvoicePeriod/cbc:DescriptionCode", 1)),
		a("UBL-SR-54", maxCount("cac:PaymentMeans/cac:CardAccount", 1)),
		a("UBL-SR-55", maxCount("cac:PaymentMeans/cac:PaymentMandate", 1)),
		a("UBL-SR-56", maxCount("cac:OriginatorDocumentReference/cbc:ID", 1)),
		a("UBL-CR-002", func(n *N) bool {
			return !n.Has("cbc:UBLVersionID") || anyText(n.All("cbc:UBLVersionID"), "2.1")
		}),
		a("UBL-CR-412", func(n *N) bool {
			return !n.Has("cac:PaymentMeans/cbc:PaymentDueDate") || n.Has("../cn:CreditNote")
		}),
		a("UBL-CR-420", func(n *N) bool { return !n.Has("cac:PaymentMeans/cac:CardAccount/cbc:CV2ID") }),
		a("UBL-CR-665", func(n *N) bool {
			return !Any(n.All("//cac:AdditionalDocumentReference"), func(r *N) bool {
				codes := r.All("cbc:DocumentTypeCode")
				not130 := len(codes) == 0 || Any(codes, func(c *N) bool { return c.Text != "130" })
				return not130 && Any(r.All("cbc:ID"), hasAttr("schemeID"))
			})
		}),
		a("UBL-CR-666", func(n *N) bool {
			return !Any(n.All("//cac:AdditionalDocumentReference"), func(r *N) bool { return anyText(r.All("cbc:DocumentTypeCode"), "130") && r.Has("cac:Attachment") })
		}),
		a("UBL-CR-673", func(n *N) bool {
			return !Any(n.All("//cac:AdditionalDocumentReference"), func(r *N) bool {
				return anyText(r.All("cbc:DocumentTypeCode"), "130") && r.Has("cbc:DocumentDescription")
			})
		}),
	}
	for _, attr := range []struct{ id, name string }{
		{"UBL-DT-08", "schemeName"}, {"UBL-DT-09", "schemeAgencyName"}, {"UBL-DT-10", "schemeDataURI"}, {"UBL-DT-11", "schemeURI"},
		{"UBL-DT-12", "format"}, {"UBL-DT-13", "unitCodeListIdentifier"}, {"UBL-DT-14", "unitCodeListAgencyIdentifier"},
		{"UBL-DT-15", "unitCodeListAgencyName"}, {"UBL-DT-16", "listAgencyName"}, {"UBL-DT-17", "listName"}, {"UBL-DT-19", "languageID"},
		{"UBL-DT-20", "listURI"}, {"UBL-DT-21", "listSchemeURI"}, {"UBL-DT-22", "languageLocaleID"}, {"UBL-DT-23", "uri"},
		{"UBL-DT-24", "currencyCodeListVersionID"}, {"UBL-DT-25", "characterSetCode"}, {"UBL-DT-26", "encodingCode"},
		{"UBL-DT-27", "schemeAgencyID"}, {"UBL-DT-28", "listAgencyID"},
	} {
		r := restriction{attr.id, "//*", attr.name}
		invoice = append(invoice, row(attr.id, Warning, r.message(), r.absent()))
	}
	invoice = append(invoice, a("UBL-DT-18", func(n *N) bool {
		return !Any(n.doc.all, func(m *N) bool { return hasRawAttr(m, "name") && !m.Is("cbc:PaymentMeansCode") })
	}))
	for _, r := range ublRestrictions {
		invoice = append(invoice, row(r.id, Warning, r.message(), r.absent()))
	}
	nameDiffers := func(n *N) bool {
		// (cac:PartyName/cbc:Name) != (seller RegistrationName): some pair differs; false when
		// either side is missing.
		x, y := n.All("cac:PartyName/cbc:Name"), n.All("../cac:AccountingSupplierParty/cac:Party/cac:PartyLegalEntity/cbc:RegistrationName")
		for _, p := range x {
			for _, q := range y {
				if p.Text != q.Text {
					return true
				}
			}
		}
		return false
	}
	return pattern{
		{at("cac:PostalAddress", "cac:Address"), []assert{
			a("UBL-SR-51", func(n *N) bool { return n.Count("cac:AddressLine") <= 1 }),
		}},
		{at("cac:AccountingSupplierParty/cac:Party"), []assert{
			a("UBL-SR-42", maxCount("cac:PartyTaxScheme", 2)),
		}},
		{at("cac:AdditionalDocumentReference"), []assert{
			a("UBL-SR-33", maxCount("cbc:DocumentDescription", 1)),
			a("UBL-SR-43", func(n *N) bool {
				if anyText(n.All("cbc:DocumentTypeCode"), "130") {
					return true
				}
				if n.doc.root.Local == "CreditNote" && anyText(n.All("cbc:DocumentTypeCode"), "50") {
					return true
				}
				return !Any(n.All("cbc:ID"), hasAttr("schemeID")) && !n.Has("cbc:DocumentTypeCode")
			}),
		}},
		{where(amountType), []assert{
			a("UBL-DT-01", func(n *N) bool { return decimals(n.Text) <= 2 }),
		}},
		{where(func(n *N) bool { return strings.HasSuffix(n.Local, "BinaryObject") }), []assert{
			a("UBL-DT-06", hasAttr("mimeCode")),
			a("UBL-DT-07", hasAttr("filename")),
		}},
		{at("cac:Delivery"), []assert{
			a("UBL-SR-25", maxCount("cac:DeliveryParty/cac:PartyName/cbc:Name", 1)),
		}},
		{atIf(charge(false), "cac:AllowanceCharge"), []assert{
			a("UBL-SR-30", maxCount("cbc:AllowanceChargeReason", 1)),
		}},
		{atIf(charge(true), "cac:AllowanceCharge"), []assert{
			a("UBL-SR-31", maxCount("cbc:AllowanceChargeReason", 1)),
		}},
		{at("cac:PartyTaxScheme"), []assert{
			a("UBL-SR-53", func(n *N) bool {
				return n.Has("cac:TaxScheme/cbc:ID") && n.Has("cbc:CompanyID")
			}),
		}},
		{at("/ubl:Invoice", "/cn:CreditNote"), invoice},
		{at(lineNames...), []assert{
			a("UBL-SR-34", maxCount("cbc:Note", 1)),
			a("UBL-SR-35", maxCount("cac:OrderLineReference/cbc:LineID", 1)),
			a("UBL-SR-36", maxCount("cac:InvoicePeriod", 1)),
			a("UBL-SR-37", maxCount("cac:Price/cac:AllowanceCharge/cbc:Amount", 1)),
			a("UBL-SR-48", func(n *N) bool { return n.Count("cac:Item/cac:ClassifiedTaxCategory") == 1 }),
			a("UBL-SR-50", maxCount("cac:Item/cbc:Description", 1)),
			a("UBL-SR-52", maxCount("cac:DocumentReference", 1)),
		}},
		{at("cac:PayeeParty"), []assert{
			a("UBL-SR-19", func(n *N) bool { return n.Count("cac:PartyName/cbc:Name") <= 1 && nameDiffers(n) }),
			a("UBL-SR-20", func(n *N) bool {
				return len(Where(n.All("cac:PartyIdentification/cbc:ID"), func(id *N) bool { return strings.ToUpper(rawAttr(id, "schemeID")) != "SEPA" })) <= 1 && nameDiffers(n)
			}),
			a("UBL-SR-21", func(n *N) bool {
				return n.Count("cac:PartyLegalEntity/cbc:CompanyID") <= 1 && nameDiffers(n)
			}),
		}},
		{at("cac:PaymentMeans"), []assert{
			a("UBL-SR-26", maxCount("cbc:PaymentID", 1)),
			a("UBL-SR-27", maxCount("cbc:PaymentMeansCode", 1)),
			a("UBL-SR-28", maxCount("cac:PaymentMandate/cbc:ID", 1)),
		}},
		{at("cac:BillingReference"), []assert{
			a("UBL-SR-06", maxCount("cac:InvoiceDocumentReference", 1)),
			a("UBL-SR-07", has("cac:InvoiceDocumentReference/cbc:ID")),
		}},
		{at("cac:TaxRepresentativeParty"), []assert{
			a("UBL-SR-22", maxCount("cac:PartyName/cbc:Name", 1)),
			a("UBL-SR-23", maxCount("cac:PartyTaxScheme/cbc:CompanyID", 1)),
		}},
		{at("cac:TaxSubtotal"), []assert{
			a("UBL-SR-32", maxCount("cac:TaxCategory/cbc:TaxExemptionReason", 1)),
		}},
	}
}

// amountType: every *Amount element outside the price allowance, except prices.
func amountType(n *N) bool {
	if !strings.HasSuffix(n.Local, "Amount") || strings.HasSuffix(n.Local, "PriceAmount") {
		return false
	}
	for m := n.parent; m != nil; m = m.parent {
		if m.Is("cac:AllowanceCharge") && m.parent != nil && m.parent.Is("cac:Price") {
			return false
		}
	}
	return true
}

// rawVAT selects party tax schemes whose scheme is (or is not) VAT, without normalising.
func rawVAT(want bool) func(*N) bool {
	return func(n *N) bool {
		// cac:TaxScheme/upper-case(cbc:ID): a tax scheme without an identifier is "",
		// which is not VAT; the identifier is compared as written.
		return Any(n.All("cac:TaxScheme"), func(ts *N) bool {
			v := ""
			if id := ts.One("cbc:ID"); id != nil {
				v = stringValue(id)
			}
			return (strings.ToUpper(v) == "VAT") == want
		})
	}
}

func countIn(ns []*N, p string) int {
	c := 0
	for _, m := range ns {
		c += m.Count(p)
	}
	return c
}
