package ubl

import (
	"context"
	"github.com/papierkram/papierkram/internal/lazyre"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
	"github.com/papierkram/papierkram/fault"
)

// Namespaces of UBL 2.1.
const (
	NSInvoice    = "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"
	NSCreditNote = "urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2"
	NSCAC        = "urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
	NSCBC        = "urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2"
)

func namespaces(credit bool) []xmlc.Namespace {
	root := NSInvoice
	if credit {
		root = NSCreditNote
	}
	return []xmlc.Namespace{{Prefix: "", URI: root}, {Prefix: "cac", URI: NSCAC}, {Prefix: "cbc", URI: NSCBC}}
}

// Read parses a UBL Invoice or CreditNote.
func Read(ctx context.Context, data []byte) (*einvoice.Invoice, error) {
	root, err := xmlc.Parse(ctx, data)
	if err != nil {
		return nil, err
	}
	return FromTree(root)
}

// FromTree reads an already parsed document.
func FromTree(root *xmlc.Node) (*einvoice.Invoice, error) {
	var credit bool
	switch {
	case root.Space == NSInvoice && root.Local == "Invoice":
	case root.Space == NSCreditNote && root.Local == "CreditNote":
		credit = true
	default:
		return nil, fault.New(fault.InvalidInput, "line %d: the root element is {%s}%s, not a UBL Invoice or CreditNote", root.Line, root.Space, root.Local).With("line", root.Line)
	}
	inv := new(einvoice.Invoice)
	c := xmlc.NewReader(root, namespaces(credit))
	bind(c, inv, credit)
	if err := c.Err(); err != nil {
		return nil, err
	}
	einvoice.Tidy(inv)
	return inv, nil
}

// Write renders inv as UBL: a CreditNote when its type code is a credit note's (81, 83,
// 381, 396, 532), else an Invoice. BT-24 is written as given (an XRechnung 3.0 one when
// empty).
func Write(inv *einvoice.Invoice) ([]byte, error) {
	n, ns, err := ToTree(inv)
	if err != nil {
		return nil, err
	}
	return xmlc.Serialize(n, ns), nil
}

// ToTree builds the document tree of inv and the namespaces to declare.
func ToTree(inv *einvoice.Invoice) (*xmlc.Node, []xmlc.Namespace, error) {
	in := *inv
	if len(in.Lines) == 0 {
		return nil, nil, fault.New(fault.InvalidInput, "UBL requires at least one invoice line (BG-25); this invoice has none (a ZUGFeRD MINIMUM or BASIC WL invoice cannot become UBL)")
	}
	if err := fitsUBL(&in); err != nil {
		return nil, nil, err
	}
	if in.Specification == "" {
		in.Specification = einvoice.GuidelineXRechnung30
	}
	// UBL has no logistics service fee (ZUGFeRD EXTENDED BT-X-272): it is a document level
	// charge, as the totals count it.
	in.Charges, in.LogisticsCharges = in.AllCharges(), nil
	credit := in.IsCreditNote()
	root := "Invoice"
	if credit {
		root = "CreditNote"
	}
	ns := namespaces(credit)
	c := xmlc.NewWriter(root, ns)
	bind(c, &in, credit)
	if err := c.Err(); err != nil {
		return nil, nil, err
	}
	return c.Node(), ns, nil
}

// fitsUBL refuses what UBL holds at most once but a CII invoice may carry several times:
// written twice, the file would break UBL's own syntax rules (an official validator
// rejects it); dropping one silently would lose data.
func fitsUBL(inv *einvoice.Invoice) error {
	objects := 0
	if inv.ObjectIdentifier.ID != "" {
		objects++
	}
	for _, d := range inv.Documents {
		if d.TypeCode == typeObject {
			objects++
		}
	}
	for _, c := range []struct {
		n          int
		what, rule string
	}{
		{objects, "invoiced object identifier (BT-18)", "UBL-SR-04"},
		{len(inv.Buyer.Identifiers), "buyer identifier (BT-46)", "UBL-SR-16"},
		{len(inv.Payee.Identifiers), "payee identifier (BT-60)", "UBL-SR-20"},
	} {
		if c.n > 1 {
			return fault.New(fault.InvalidInput, "UBL carries one %s, this invoice has %d (%s): it cannot be written as UBL without losing one; keep it as CII", c.what, c.n, c.rule)
		}
	}
	return nil
}

// notePrefix is the UBL convention for BT-21: "#AAI#text".
var notePrefix = lazyre.New(`^#([A-Z]{3})#`)

func bind(c *xmlc.Codec, inv *einvoice.Invoice, credit bool) {
	c.Text("cbc:CustomizationID", &inv.Specification)
	c.Text("cbc:ProfileID", &inv.BusinessProcess)
	c.Text("cbc:ID", &inv.Number)
	c.Elem("cbc:IssueDate", func() { c.ISODate(&inv.IssueDate) })
	if !credit {
		c.Elem("cbc:DueDate", func() { c.ISODate(&inv.DueDate) })
		c.Text("cbc:InvoiceTypeCode", &inv.TypeCode)
	} else {
		c.Elem("cbc:TaxPointDate", func() { c.ISODate(&inv.TaxPointDate) })
		c.Text("cbc:CreditNoteTypeCode", &inv.TypeCode)
	}
	xmlc.List(c, "cbc:Note", &inv.Notes, func(n *einvoice.Note) {
		if c.Writing() {
			s := n.Text
			if n.SubjectCode != "" {
				s = "#" + n.SubjectCode + "#" + n.Text
			}
			c.Value(&s)
			return
		}
		c.Value(&n.Text)
		if m := notePrefix.FindStringSubmatch(n.Text); m != nil {
			n.SubjectCode, n.Text = m[1], n.Text[len(m[0]):]
		}
	})
	if !credit {
		c.Elem("cbc:TaxPointDate", func() { c.ISODate(&inv.TaxPointDate) })
	}
	c.Text("cbc:DocumentCurrencyCode", &inv.Currency)
	c.Text("cbc:TaxCurrencyCode", &inv.TaxCurrency)
	c.Text("cbc:AccountingCost", &inv.BuyerAccountingReference)
	c.Text("cbc:BuyerReference", &inv.BuyerReference)
	c.Elem("cac:InvoicePeriod", func() {
		period(c, &inv.InvoicingPeriod)
		c.Text("cbc:DescriptionCode", &inv.TaxPointDateCode)
	})
	c.Elem("cac:OrderReference", func() {
		if c.Writing() && inv.PurchaseOrderReference == "" && inv.SalesOrderReference != "" {
			c.Const("cbc:ID", "NA") // the schema requires an order id beside the sales order id
		} else {
			c.Text("cbc:ID", &inv.PurchaseOrderReference)
		}
		c.Text("cbc:SalesOrderID", &inv.SalesOrderReference)
		if !c.Writing() && inv.PurchaseOrderReference == "NA" && inv.SalesOrderReference != "" {
			inv.PurchaseOrderReference = ""
		}
	})
	xmlc.List(c, "cac:BillingReference", &inv.PrecedingInvoices, func(p *einvoice.PrecedingInvoice) {
		c.Elem("cac:InvoiceDocumentReference", func() {
			c.Text("cbc:ID", &p.Number)
			c.Elem("cbc:IssueDate", func() { c.ISODate(&p.IssueDate) })
			c.Text("cbc:DocumentTypeCode", &p.TypeCode)
		})
	})
	c.Elem("cac:DespatchDocumentReference", func() { c.Text("cbc:ID", &inv.DespatchAdviceReference) })
	c.Elem("cac:ReceiptDocumentReference", func() { c.Text("cbc:ID", &inv.ReceivingAdviceReference) })
	if !credit {
		c.Elem("cac:OriginatorDocumentReference", func() { c.Text("cbc:ID", &inv.TenderReference) })
	}
	c.Elem("cac:ContractDocumentReference", func() { c.Text("cbc:ID", &inv.ContractReference) })
	additionalDocuments(c, inv, credit)
	if !credit {
		c.Elem("cac:ProjectReference", func() { c.Text("cbc:ID", &inv.ProjectReference) })
	} else {
		c.Elem("cac:OriginatorDocumentReference", func() { c.Text("cbc:ID", &inv.TenderReference) })
	}
	c.Elem("cac:AccountingSupplierParty", func() {
		c.Elem("cac:Party", func() { party(c, &inv.Seller, seller, &inv.Payment.DirectDebit.CreditorID) })
	})
	c.Elem("cac:AccountingCustomerParty", func() { c.Elem("cac:Party", func() { party(c, &inv.Buyer, buyer, nil) }) })
	c.Elem("cac:PayeeParty", func() { party(c, &inv.Payee, payee, nil) })
	c.Elem("cac:TaxRepresentativeParty", func() { party(c, &inv.TaxRepresentative, taxRepresentative, nil) })
	delivery(c, inv)
	paymentMeans(c, inv, credit)
	c.Elem("cac:PaymentTerms", func() { c.Lines("cbc:Note", &inv.PaymentTerms) })
	if !credit {
		xmlc.List(c, "cac:PrepaidPayment", &inv.PrepaidPayments, func(p *einvoice.PrepaidPayment) {
			c.Text("cbc:ID", &p.ID)
			c.Amount("cbc:PaidAmount", &p.Amount, inv.Currency)
			c.Text("cbc:InstructionID", &p.Description)
		})
	}
	allowanceCharges(c, &inv.Allowances, &inv.Charges, inv.Currency, true)
	taxTotals(c, inv)
	c.Required("cac:LegalMonetaryTotal", func() { totals(c, inv) })
	lines(c, &inv.Lines, inv.Currency, credit, false)
}

// Document type codes of cac:AdditionalDocumentReference (UNTDID 1001).
const (
	typeObject  = "130"
	typeProject = "50"
)

// additionalDocuments binds BG-24, BT-18 (type 130) and, in a credit note, BT-11 (type 50).
func additionalDocuments(c *xmlc.Codec, inv *einvoice.Invoice, credit bool) {
	if !c.Writing() {
		for _, n := range c.Children("cac:AdditionalDocumentReference") {
			c.Enter("cac:AdditionalDocumentReference", n, func() {
				var code string
				c.Text("cbc:DocumentTypeCode", &code)
				switch {
				case code == typeObject && inv.ObjectIdentifier.ID == "":
					c.Elem("cbc:ID", func() {
						c.Attr("schemeID", &inv.ObjectIdentifier.Scheme)
						c.Value(&inv.ObjectIdentifier.ID)
					})
				case code == typeProject && credit && inv.ProjectReference == "":
					c.Text("cbc:ID", &inv.ProjectReference)
				default:
					var d einvoice.SupportingDocument
					supportingDocument(c, &d)
					d.TypeCode = code
					inv.Documents = append(inv.Documents, d)
				}
			})
		}
		return
	}
	if inv.ObjectIdentifier.ID != "" {
		c.Elem("cac:AdditionalDocumentReference", func() {
			c.Elem("cbc:ID", func() {
				c.Attr("schemeID", &inv.ObjectIdentifier.Scheme)
				c.Value(&inv.ObjectIdentifier.ID)
			})
			c.Const("cbc:DocumentTypeCode", typeObject)
		})
	}
	if credit && inv.ProjectReference != "" {
		c.Elem("cac:AdditionalDocumentReference", func() {
			c.Text("cbc:ID", &inv.ProjectReference)
			c.Const("cbc:DocumentTypeCode", typeProject)
		})
	}
	for i := range inv.Documents {
		c.Elem("cac:AdditionalDocumentReference", func() { supportingDocument(c, &inv.Documents[i]) })
	}
}

func supportingDocument(c *xmlc.Codec, d *einvoice.SupportingDocument) {
	c.Text("cbc:ID", &d.ID)
	if c.Writing() {
		c.Text("cbc:DocumentTypeCode", &d.TypeCode)
	}
	c.Text("cbc:DocumentDescription", &d.Description)
	c.Elem("cac:Attachment", func() {
		if !c.Writing() || !d.Attachment.IsZero() {
			c.Required("cbc:EmbeddedDocumentBinaryObject", func() {
				c.Attr("mimeCode", &d.Attachment.ContentType)
				c.Attr("filename", &d.Attachment.Filename)
				xmlc.Binary(c, &d.Attachment.File)
			})
		}
		c.Elem("cac:ExternalReference", func() { c.Text("cbc:URI", &d.URI) })
	})
}

func period(c *xmlc.Codec, p *einvoice.Period) {
	c.Elem("cbc:StartDate", func() { c.ISODate(&p.Start) })
	c.Elem("cbc:EndDate", func() { c.ISODate(&p.End) })
}

func delivery(c *xmlc.Codec, inv *einvoice.Invoice) {
	d := &inv.Delivery
	c.Elem("cac:Delivery", func() {
		c.Elem("cbc:ActualDeliveryDate", func() { c.ISODate(&d.Date) })
		c.Elem("cac:DeliveryLocation", func() {
			c.Elem("cbc:ID", func() {
				c.Attr("schemeID", &d.LocationID.Scheme)
				c.Value(&d.LocationID.ID)
			})
			c.Elem("cac:Address", func() { address(c, &d.Address) })
		})
		c.Elem("cac:DeliveryParty", func() { c.Elem("cac:PartyName", func() { c.Text("cbc:Name", &d.PartyName) }) })
	})
}

func paymentMeans(c *xmlc.Codec, inv *einvoice.Invoice, credit bool) {
	pay := &inv.Payment
	// keep reads a value only when the element has one, so that a later means without it
	// does not erase what an earlier one gave.
	keep := func(dst *string, bind func(*string)) {
		if c.Writing() {
			bind(dst)
			return
		}
		var v string
		bind(&v)
		if v != "" {
			*dst = v
		}
	}
	means := func(ct *einvoice.CreditTransfer, first bool) {
		c.Elem("cbc:PaymentMeansCode", func() {
			if first { // BT-82 occurs at most once (UBL-SR-46), on the first means
				keep(&pay.MeansText, func(v *string) { c.Attr("name", v) })
			}
			keep(&pay.MeansCode, c.Value)
		})
		if credit {
			c.Elem("cbc:PaymentDueDate", func() { c.ISODate(&inv.DueDate) })
		}
		keep(&pay.RemittanceInformation, func(v *string) { c.Text("cbc:PaymentID", v) })
		if !c.Writing() || first && pay.Card != (einvoice.Card{}) {
			c.Elem("cac:CardAccount", func() {
				c.Text("cbc:PrimaryAccountNumberID", &pay.Card.Number)
				if c.Writing() && pay.Card.Network == "" {
					c.Const("cbc:NetworkID", "NA") // required by the schema, not by EN 16931
				} else {
					c.Text("cbc:NetworkID", &pay.Card.Network)
				}
				c.Text("cbc:HolderName", &pay.Card.HolderName)
			})
		}
		if ct != nil {
			c.Elem("cac:PayeeFinancialAccount", func() {
				c.Text("cbc:ID", &ct.AccountID)
				c.Text("cbc:Name", &ct.AccountName)
				c.Elem("cac:FinancialInstitutionBranch", func() { c.Text("cbc:ID", &ct.ServiceProvider) })
			})
		}
		if first || !c.Writing() {
			c.Elem("cac:PaymentMandate", func() {
				c.Text("cbc:ID", &pay.DirectDebit.MandateID)
				c.Elem("cac:PayerFinancialAccount", func() { c.Text("cbc:ID", &pay.DirectDebit.DebitedAccountID) })
			})
		}
	}
	if !c.Writing() {
		for _, n := range c.Children("cac:PaymentMeans") {
			c.Enter("cac:PaymentMeans", n, func() {
				var ct einvoice.CreditTransfer
				c.Elem("cac:PayeeFinancialAccount", func() {
					c.Text("cbc:ID", &ct.AccountID)
					c.Text("cbc:Name", &ct.AccountName)
					c.Elem("cac:FinancialInstitutionBranch", func() { c.Text("cbc:ID", &ct.ServiceProvider) })
				})
				means(nil, true)
				if ct != (einvoice.CreditTransfer{}) {
					pay.CreditTransfers = append(pay.CreditTransfers, ct)
				}
			})
		}
		if pay.Card.Network == "NA" {
			pay.Card.Network = ""
		}
		return
	}
	if pay.MeansCode == "" && len(pay.CreditTransfers) == 0 && pay.Card == (einvoice.Card{}) && pay.DirectDebit.MandateID == "" {
		if credit && inv.DueDate != "" {
			c.Elem("cac:PaymentMeans", func() {
				c.Const("cbc:PaymentMeansCode", "1") // "instrument not defined": a credit note's BT-9 needs a means
				c.Elem("cbc:PaymentDueDate", func() { c.ISODate(&inv.DueDate) })
			})
		}
		return
	}
	if len(pay.CreditTransfers) == 0 {
		c.Elem("cac:PaymentMeans", func() { means(nil, true) })
		return
	}
	for i := range pay.CreditTransfers {
		c.Elem("cac:PaymentMeans", func() { means(&pay.CreditTransfers[i], i == 0) })
	}
}

// allowanceCharges binds allowances and charges (one repeated element told apart by
// cbc:ChargeIndicator); VAT only on document level.
func allowanceCharges(c *xmlc.Codec, allowances, charges *[]einvoice.AllowanceCharge, currency string, document bool) {
	one := func(a *einvoice.AllowanceCharge, charge *bool) {
		v := "false"
		if *charge {
			v = "true"
		}
		c.Text("cbc:ChargeIndicator", &v)
		*charge = v == "true"
		c.Text("cbc:AllowanceChargeReasonCode", &a.ReasonCode)
		c.Text("cbc:AllowanceChargeReason", &a.Reason)
		c.Dec("cbc:MultiplierFactorNumeric", &a.Percentage)
		c.Amount("cbc:Amount", &a.Amount, currency)
		c.Amount("cbc:BaseAmount", &a.BaseAmount, currency)
		if document {
			c.Elem("cac:TaxCategory", func() {
				if c.Writing() && a.VATCategory == "" && !a.VATRate.Valid() {
					return
				}
				c.Text("cbc:ID", &a.VATCategory)
				c.Dec("cbc:Percent", &a.VATRate)
				vatScheme(c)
			})
		}
	}
	if !c.Writing() {
		for _, n := range c.Children("cac:AllowanceCharge") {
			c.Enter("cac:AllowanceCharge", n, func() {
				var a einvoice.AllowanceCharge
				charge := false
				one(&a, &charge)
				if charge {
					*charges = append(*charges, a)
				} else {
					*allowances = append(*allowances, a)
				}
			})
		}
		return
	}
	for _, list := range []struct {
		s      []einvoice.AllowanceCharge
		charge bool
	}{{*allowances, false}, {*charges, true}} {
		for i := range list.s {
			charge := list.charge
			c.Elem("cac:AllowanceCharge", func() { one(&list.s[i], &charge) })
		}
	}
}

func vatScheme(c *xmlc.Codec) {
	c.Elem("cac:TaxScheme", func() { c.Const("cbc:ID", "VAT") })
}

// taxTotals binds BT-110 with BG-23 and, in the accounting currency, BT-111.
func taxTotals(c *xmlc.Codec, inv *einvoice.Invoice) {
	t := &inv.Totals
	if !c.Writing() {
		for _, n := range c.Children("cac:TaxTotal") {
			c.Enter("cac:TaxTotal", n, func() {
				// By currency: BT-110 with the breakdown, or BT-111 (see VATTotalIn).
				accounting := false
				c.Elem("cbc:TaxAmount", func() {
					if d := inv.VATTotalIn(c.Node().Attr("currencyID")); d != nil {
						accounting = d == &t.VATTotalAccounting
						c.DecValue(d)
					}
				})
				if !accounting {
					xmlc.List(c, "cac:TaxSubtotal", &inv.VATBreakdown, func(v *einvoice.VATBreakdown) { subtotal(c, v, inv.Currency) })
				}
			})
		}
		return
	}
	if t.VATTotal.Valid() || len(inv.VATBreakdown) > 0 {
		total := t.VATTotal
		if !total.Valid() {
			// UBL requires BT-110 beside a breakdown; it is the sum of BT-117 (BR-CO-14).
			total = sumTax(inv.VATBreakdown)
		}
		c.Elem("cac:TaxTotal", func() {
			c.Amount("cbc:TaxAmount", &total, inv.Currency)
			xmlc.List(c, "cac:TaxSubtotal", &inv.VATBreakdown, func(v *einvoice.VATBreakdown) { subtotal(c, v, inv.Currency) })
		})
	}
	if t.VATTotalAccounting.Valid() {
		c.Elem("cac:TaxTotal", func() { c.Amount("cbc:TaxAmount", &t.VATTotalAccounting, inv.TaxCurrency) })
	}
}

func subtotal(c *xmlc.Codec, v *einvoice.VATBreakdown, currency string) {
	c.Amount("cbc:TaxableAmount", &v.TaxableAmount, currency)
	c.Amount("cbc:TaxAmount", &v.TaxAmount, currency)
	c.Elem("cac:TaxCategory", func() {
		c.Text("cbc:ID", &v.Category)
		c.Dec("cbc:Percent", &v.Rate)
		c.Text("cbc:TaxExemptionReasonCode", &v.ExemptionReasonCode)
		c.Text("cbc:TaxExemptionReason", &v.ExemptionReason)
		vatScheme(c)
	})
}

func totals(c *xmlc.Codec, inv *einvoice.Invoice) {
	t, cur := &inv.Totals, inv.Currency
	c.Amount("cbc:LineExtensionAmount", &t.LineTotal, cur)
	c.Amount("cbc:TaxExclusiveAmount", &t.NetTotal, cur)
	c.Amount("cbc:TaxInclusiveAmount", &t.GrossTotal, cur)
	c.Amount("cbc:AllowanceTotalAmount", &t.AllowanceTotal, cur)
	c.Amount("cbc:ChargeTotalAmount", &t.ChargeTotal, cur)
	c.Amount("cbc:PrepaidAmount", &t.PaidAmount, cur)
	c.Amount("cbc:PayableRoundingAmount", &t.RoundingAmount, cur)
	c.Amount("cbc:PayableAmount", &t.AmountDue, cur)
}

func sumTax(vs []einvoice.VATBreakdown) einvoice.Decimal {
	var sum decimal.Decimal
	scale := int32(2)
	for _, v := range vs {
		sum = sum.Add(v.TaxAmount.Value())
		if s := int32(v.TaxAmount.Scale()); s > scale {
			scale = s
		}
	}
	d, _ := einvoice.ParseDecimal(sum.StringFixed(scale))
	return d
}
