package cii

import (
	"context"
	"strings"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
	"github.com/papierkram/papierkram/fault"
)

// Namespaces of CrossIndustryInvoice D16B.
const (
	NSRSM = "urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
	NSRAM = "urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
	NSUDT = "urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100"
	NSQDT = "urn:un:unece:uncefact:data:standard:QualifiedDataType:100"
)

var namespaces = []xmlc.Namespace{{Prefix: "rsm", URI: NSRSM}, {Prefix: "ram", URI: NSRAM}, {Prefix: "udt", URI: NSUDT}, {Prefix: "qdt", URI: NSQDT}}

// Read parses a CrossIndustryInvoice. Errors are fault.InvalidInput naming the line and the
// element path.
func Read(ctx context.Context, data []byte) (*einvoice.Invoice, error) {
	root, err := xmlc.Parse(ctx, data)
	if err != nil {
		return nil, err
	}
	return FromTree(root)
}

// FromTree reads an already parsed document.
func FromTree(root *xmlc.Node) (*einvoice.Invoice, error) {
	if root.Space != NSRSM || root.Local != "CrossIndustryInvoice" {
		return nil, fault.New(fault.InvalidInput, "line %d: the root element is {%s}%s, not a CII rsm:CrossIndustryInvoice", root.Line, root.Space, root.Local).With("line", root.Line)
	}
	inv := new(einvoice.Invoice)
	c := xmlc.NewReader(root, namespaces)
	c.Path()
	bind(c, inv)
	if err := c.Err(); err != nil {
		return nil, err
	}
	einvoice.Tidy(inv)
	return inv, nil
}

// Options steer Write.
type Options struct {
	// Profile limits the output to what the profile's schema allows and sets BT-24 when the
	// invoice has none (or one of another profile). Empty: EN16931, or the profile of the
	// invoice's own BT-24.
	Profile einvoice.Profile
	// KeepSpecification keeps the invoice's BT-24 even when it names no profile of ours
	// (Peppol BIS, ZUGFeRD 1.0's ids): Profile then only limits the content.
	KeepSpecification bool
}

// Write renders inv as a CrossIndustryInvoice.
func Write(inv *einvoice.Invoice, opt Options) ([]byte, error) {
	n, err := ToTree(inv, opt)
	if err != nil {
		return nil, err
	}
	return xmlc.Serialize(n, namespaces), nil
}

// ToTree builds the document tree of inv.
func ToTree(inv *einvoice.Invoice, opt Options) (*xmlc.Node, error) {
	in := *inv
	if len(in.PrecedingInvoices) > 1 {
		return nil, fault.New(fault.InvalidInput, "CII carries one preceding invoice reference (BG-3); this invoice has %d", len(in.PrecedingInvoices))
	}
	if len(in.PrepaidPayments) > 0 {
		return nil, fault.New(fault.InvalidInput, "third-party payments (XRechnung BG-DEX-09) exist in UBL only; CII cannot carry them")
	}
	p := opt.Profile
	own := einvoice.ProfileOf(in.Specification)
	switch {
	case p == "" && own != "":
		p = own
	case p == "":
		p = einvoice.EN16931
		if in.Specification == "" {
			in.Specification = p.Guideline()
		}
	case own != p && !opt.KeepSpecification:
		in.Specification = p.Guideline()
	}
	if p != einvoice.Extended {
		// BT-X-272 is EXTENDED's; elsewhere the fees are what EN 16931 knows them as.
		in.Charges, in.LogisticsCharges = in.AllCharges(), nil
	}
	c := xmlc.NewWriter("rsm:CrossIndustryInvoice", namespaces)
	bind(c, &in)
	if err := c.Err(); err != nil {
		return nil, err
	}
	root := c.Node()
	prune(root, p)
	return root, nil
}

func bind(c *xmlc.Codec, inv *einvoice.Invoice) {
	c.Required("rsm:ExchangedDocumentContext", func() {
		c.Elem("ram:TestIndicator", func() {
			v := ""
			if inv.Test {
				v = "true"
			}
			c.Text("udt:Indicator", &v)
			inv.Test = v == "true"
		})
		c.Elem("ram:BusinessProcessSpecifiedDocumentContextParameter", func() { c.Text("ram:ID", &inv.BusinessProcess) })
		c.Elem("ram:GuidelineSpecifiedDocumentContextParameter", func() { c.Text("ram:ID", &inv.Specification) })
	})
	c.Required("rsm:ExchangedDocument", func() {
		c.Text("ram:ID", &inv.Number)
		c.Text("ram:Name", &inv.DocumentName)
		c.Text("ram:TypeCode", &inv.TypeCode)
		date(c, "ram:IssueDateTime", "udt:DateTimeString", &inv.IssueDate)
		xmlc.List(c, "ram:IncludedNote", &inv.Notes, func(n *einvoice.Note) {
			c.Text("ram:ContentCode", &n.ContentCode)
			c.Text("ram:Content", &n.Text)
			c.Text("ram:SubjectCode", &n.SubjectCode)
		})
	})
	c.Required("rsm:SupplyChainTradeTransaction", func() {
		lines(c, inv)
		c.Required("ram:ApplicableHeaderTradeAgreement", func() { agreement(c, inv) })
		c.Required("ram:ApplicableHeaderTradeDelivery", func() { delivery(c, inv) })
		c.Required("ram:ApplicableHeaderTradeSettlement", func() { settlement(c, inv) })
	})
}

func agreement(c *xmlc.Codec, inv *einvoice.Invoice) {
	c.Text("ram:BuyerReference", &inv.BuyerReference)
	c.Elem("ram:SellerTradeParty", func() { party(c, &inv.Seller, seller) })
	c.Elem("ram:BuyerTradeParty", func() { party(c, &inv.Buyer, buyer) })
	c.Elem("ram:SellerTaxRepresentativeTradeParty", func() { party(c, &inv.TaxRepresentative, taxRepresentative) })
	c.Elem("ram:SellerOrderReferencedDocument", func() { c.Text("ram:IssuerAssignedID", &inv.SalesOrderReference) })
	c.Elem("ram:BuyerOrderReferencedDocument", func() { c.Text("ram:IssuerAssignedID", &inv.PurchaseOrderReference) })
	c.Elem("ram:ContractReferencedDocument", func() { c.Text("ram:IssuerAssignedID", &inv.ContractReference) })
	additionalDocuments(c, inv)
	c.Elem("ram:SpecifiedProcuringProject", func() {
		c.Text("ram:ID", &inv.ProjectReference)
		if c.Writing() && inv.ProjectReference != "" && inv.ProjectName == "" {
			c.Const("ram:Name", "Project reference") // the schema requires a name
		} else {
			c.Text("ram:Name", &inv.ProjectName)
		}
	})
}

// Document type codes of ram:AdditionalReferencedDocument (UNTDID 1001).
const (
	typeSupporting = "916"
	typeTender     = "50"
	typeObject     = "130"
)

// additionalDocuments binds BG-24 (type 916), BT-17 (type 50) and BT-18 (type 130), which
// CII keeps in one repeated element.
func additionalDocuments(c *xmlc.Codec, inv *einvoice.Invoice) {
	if !c.Writing() {
		for _, n := range c.Children("ram:AdditionalReferencedDocument") {
			c.Enter("ram:AdditionalReferencedDocument", n, func() {
				var code string
				c.Text("ram:TypeCode", &code)
				switch code {
				case typeTender:
					c.Text("ram:IssuerAssignedID", &inv.TenderReference)
				case typeObject:
					if inv.ObjectIdentifier.ID != "" {
						d := einvoice.SupportingDocument{TypeCode: code}
						supportingDocument(c, &d)
						inv.Documents = append(inv.Documents, d)
						return
					}
					c.Text("ram:IssuerAssignedID", &inv.ObjectIdentifier.ID)
					c.Text("ram:ReferenceTypeCode", &inv.ObjectIdentifier.Scheme)
				default:
					var d einvoice.SupportingDocument
					if code != typeSupporting {
						d.TypeCode = code
					}
					supportingDocument(c, &d)
					inv.Documents = append(inv.Documents, d)
				}
			})
		}
		return
	}
	// BT-18 first: of several documents of type 130 the reader takes the first for it.
	if inv.ObjectIdentifier.ID != "" {
		c.Elem("ram:AdditionalReferencedDocument", func() {
			c.Text("ram:IssuerAssignedID", &inv.ObjectIdentifier.ID)
			c.Const("ram:TypeCode", typeObject)
			c.Text("ram:ReferenceTypeCode", &inv.ObjectIdentifier.Scheme)
		})
	}
	for i := range inv.Documents {
		c.Elem("ram:AdditionalReferencedDocument", func() { supportingDocument(c, &inv.Documents[i]) })
	}
	if inv.TenderReference != "" {
		c.Elem("ram:AdditionalReferencedDocument", func() {
			c.Text("ram:IssuerAssignedID", &inv.TenderReference)
			c.Const("ram:TypeCode", typeTender)
		})
	}
}

func supportingDocument(c *xmlc.Codec, d *einvoice.SupportingDocument) {
	c.Text("ram:IssuerAssignedID", &d.ID)
	c.Text("ram:URIID", &d.URI)
	if c.Writing() {
		code := d.TypeCode
		if code == "" {
			code = typeSupporting
		}
		c.Const("ram:TypeCode", code)
	}
	c.Text("ram:Name", &d.Description)
	attachment(c, "ram:AttachmentBinaryObject", &d.Attachment)
}

func attachment(c *xmlc.Codec, name string, a *einvoice.Attachment) {
	if c.Writing() && a.IsZero() {
		return
	}
	// Required: an attachment named but empty keeps its name and type.
	c.Required(name, func() {
		c.Attr("mimeCode", &a.ContentType)
		c.Attr("filename", &a.Filename)
		xmlc.Binary(c, &a.File)
	})
}

type role int

const (
	seller role = iota
	buyer
	payee
	taxRepresentative
	shipTo
)

func party(c *xmlc.Codec, p *einvoice.Party, r role) {
	identifiers(c, &p.Identifiers)
	c.Text("ram:Name", &p.Name)
	if r == seller {
		c.Text("ram:Description", &p.LegalInfo)
	} else {
		c.Text("ram:Description", &p.Description)
	}
	c.Elem("ram:SpecifiedLegalOrganization", func() {
		c.Elem("ram:ID", func() {
			c.Attr("schemeID", &p.LegalRegistration.Scheme)
			c.Value(&p.LegalRegistration.ID)
		})
		c.Text("ram:TradingBusinessName", &p.TradingName)
	})
	c.Elem("ram:DefinedTradeContact", func() {
		c.Text("ram:PersonName", &p.Contact.Name)
		c.Text("ram:DepartmentName", &p.Contact.Department)
		c.Elem("ram:TelephoneUniversalCommunication", func() { c.Text("ram:CompleteNumber", &p.Contact.Phone) })
		c.Elem("ram:EmailURIUniversalCommunication", func() { c.Text("ram:URIID", &p.Contact.Email) })
	})
	c.Elem("ram:PostalTradeAddress", func() { address(c, &p.Address) })
	c.Elem("ram:URIUniversalCommunication", func() {
		c.Elem("ram:URIID", func() {
			c.Attr("schemeID", &p.ElectronicAddress.Scheme)
			c.Value(&p.ElectronicAddress.ID)
		})
	})
	taxRegistration(c, "VA", &p.VATID)
	taxRegistration(c, "FC", &p.TaxNumber)
}

// identifiers binds party identifiers: ram:ID without a scheme, ram:GlobalID with one.
func identifiers(c *xmlc.Codec, ids *[]einvoice.Identifier) {
	if !c.Writing() {
		for _, name := range []string{"ram:ID", "ram:GlobalID"} {
			xmlc.List(c, name, ids, func(id *einvoice.Identifier) {
				c.Attr("schemeID", &id.Scheme)
				c.Value(&id.ID)
			})
		}
		return
	}
	for _, global := range []bool{false, true} {
		for i := range *ids {
			id := &(*ids)[i]
			if (id.Scheme != "") != global {
				continue
			}
			name := "ram:ID"
			if global {
				name = "ram:GlobalID"
			}
			c.Elem(name, func() {
				c.Attr("schemeID", &id.Scheme)
				c.Value(&id.ID)
			})
		}
	}
}

// taxRegistration binds the ram:SpecifiedTaxRegistration with the given scheme: VA is the
// VAT identifier, FC the tax number.
func taxRegistration(c *xmlc.Codec, scheme string, v *string) {
	if c.Writing() {
		if *v != "" {
			c.Elem("ram:SpecifiedTaxRegistration", func() {
				c.Elem("ram:ID", func() {
					c.ConstAttr("schemeID", scheme)
					c.Value(v)
				})
			})
		}
		return
	}
	for _, n := range c.Children("ram:SpecifiedTaxRegistration") {
		c.Enter("ram:SpecifiedTaxRegistration", n, func() {
			c.Elem("ram:ID", func() {
				if strings.EqualFold(c.Node().Attr("schemeID"), scheme) {
					c.Value(v)
				}
			})
		})
	}
}

func address(c *xmlc.Codec, a *einvoice.Address) {
	c.Text("ram:PostcodeCode", &a.PostCode)
	c.Text("ram:LineOne", &a.Line1)
	c.Text("ram:LineTwo", &a.Line2)
	c.Text("ram:LineThree", &a.Line3)
	c.Text("ram:CityName", &a.City)
	c.Text("ram:CountryID", &a.Country)
	c.Text("ram:CountrySubDivisionName", &a.Subdivision)
}

func delivery(c *xmlc.Codec, inv *einvoice.Invoice) {
	d := &inv.Delivery
	c.Elem("ram:ShipToTradeParty", func() {
		if c.Writing() {
			if d.LocationID.ID != "" {
				ids := []einvoice.Identifier{d.LocationID}
				identifiers(c, &ids)
			}
		} else {
			var ids []einvoice.Identifier
			identifiers(c, &ids)
			if len(ids) > 0 {
				d.LocationID = ids[0]
			}
		}
		c.Text("ram:Name", &d.PartyName)
		c.Elem("ram:PostalTradeAddress", func() { address(c, &d.Address) })
	})
	c.Elem("ram:ActualDeliverySupplyChainEvent", func() {
		date(c, "ram:OccurrenceDateTime", "udt:DateTimeString", &d.Date)
	})
	c.Elem("ram:DespatchAdviceReferencedDocument", func() { c.Text("ram:IssuerAssignedID", &inv.DespatchAdviceReference) })
	c.Elem("ram:ReceivingAdviceReferencedDocument", func() { c.Text("ram:IssuerAssignedID", &inv.ReceivingAdviceReference) })
}

func settlement(c *xmlc.Codec, inv *einvoice.Invoice) {
	pay := &inv.Payment
	c.Text("ram:CreditorReferenceID", &pay.DirectDebit.CreditorID)
	c.Text("ram:PaymentReference", &pay.RemittanceInformation)
	c.Text("ram:TaxCurrencyCode", &inv.TaxCurrency)
	c.Text("ram:InvoiceCurrencyCode", &inv.Currency)
	c.Elem("ram:PayeeTradeParty", func() { party(c, &inv.Payee, payee) })
	paymentMeans(c, pay)
	vat(c, inv)
	c.Elem("ram:BillingSpecifiedPeriod", func() { period(c, &inv.InvoicingPeriod) })
	allowanceCharges(c, &inv.Allowances, &inv.Charges, true)
	xmlc.List(c, "ram:SpecifiedLogisticsServiceCharge", &inv.LogisticsCharges, func(l *einvoice.LogisticsCharge) {
		c.Text("ram:Description", &l.Description)
		c.Amount("ram:AppliedAmount", &l.Amount, "")
		c.Elem("ram:AppliedTradeTax", func() {
			if c.Writing() && l.VATCategory == "" && !l.VATRate.Valid() {
				return
			}
			c.Const("ram:TypeCode", "VAT")
			c.Text("ram:CategoryCode", &l.VATCategory)
			c.Dec("ram:RateApplicablePercent", &l.VATRate)
		})
	})
	c.Elem("ram:SpecifiedTradePaymentTerms", func() {
		c.Lines("ram:Description", &inv.PaymentTerms)
		date(c, "ram:DueDateDateTime", "udt:DateTimeString", &inv.DueDate)
		c.Text("ram:DirectDebitMandateID", &pay.DirectDebit.MandateID)
	})
	c.Elem("ram:SpecifiedTradeSettlementHeaderMonetarySummation", func() { totals(c, inv) })
	xmlc.List(c, "ram:InvoiceReferencedDocument", &inv.PrecedingInvoices, func(p *einvoice.PrecedingInvoice) {
		c.Text("ram:IssuerAssignedID", &p.Number)
		c.Text("ram:TypeCode", &p.TypeCode)
		date(c, "ram:FormattedIssueDateTime", "qdt:DateTimeString", &p.IssueDate)
	})
	c.Elem("ram:ReceivableSpecifiedTradeAccountingAccount", func() { c.Text("ram:ID", &inv.BuyerAccountingReference) })
}

// paymentMeans binds BG-16: CII repeats the means per account, EN 16931 has one means code
// with several accounts.
func paymentMeans(c *xmlc.Codec, pay *einvoice.Payment) {
	means := func(ct *einvoice.CreditTransfer, first bool) {
		c.Text("ram:TypeCode", &pay.MeansCode)
		c.Text("ram:Information", &pay.MeansText)
		if first || !c.Writing() {
			c.Elem("ram:ApplicableTradeSettlementFinancialCard", func() {
				c.Text("ram:ID", &pay.Card.Number)
				c.Text("ram:CardholderName", &pay.Card.HolderName)
			})
			c.Elem("ram:PayerPartyDebtorFinancialAccount", func() { c.Text("ram:IBANID", &pay.DirectDebit.DebitedAccountID) })
		}
		if ct == nil {
			return
		}
		c.Elem("ram:PayeePartyCreditorFinancialAccount", func() {
			if c.Writing() {
				if !ct.Proprietary {
					c.Text("ram:IBANID", &ct.AccountID)
				}
				c.Text("ram:AccountName", &ct.AccountName)
				if ct.Proprietary {
					c.Text("ram:ProprietaryID", &ct.AccountID)
				}
				return
			}
			c.Text("ram:IBANID", &ct.AccountID)
			c.Text("ram:AccountName", &ct.AccountName)
			if ct.AccountID == "" {
				c.Text("ram:ProprietaryID", &ct.AccountID)
				ct.Proprietary = ct.AccountID != ""
			}
		})
		c.Elem("ram:PayeeSpecifiedCreditorFinancialInstitution", func() { c.Text("ram:BICID", &ct.ServiceProvider) })
	}
	if !c.Writing() {
		for _, n := range c.Children("ram:SpecifiedTradeSettlementPaymentMeans") {
			c.Enter("ram:SpecifiedTradeSettlementPaymentMeans", n, func() {
				var ct einvoice.CreditTransfer
				means(&ct, true)
				if ct != (einvoice.CreditTransfer{}) {
					pay.CreditTransfers = append(pay.CreditTransfers, ct)
				}
			})
		}
		return
	}
	if len(pay.CreditTransfers) == 0 {
		c.Elem("ram:SpecifiedTradeSettlementPaymentMeans", func() { means(nil, true) })
		return
	}
	for i := range pay.CreditTransfers {
		c.Elem("ram:SpecifiedTradeSettlementPaymentMeans", func() { means(&pay.CreditTransfers[i], i == 0) })
	}
}

// BT-8 is UNTDID 2005 in the model (as in UBL); CII uses UNTDID 2475.
var dueDateCodes = [][2]string{{"3", "5"}, {"35", "29"}, {"432", "72"}}

func convertCode(v string, to2475 bool) string {
	for _, p := range dueDateCodes {
		if to2475 && p[0] == v {
			return p[1]
		}
		if !to2475 && p[1] == v {
			return p[0]
		}
	}
	return v
}

func vat(c *xmlc.Codec, inv *einvoice.Invoice) {
	first := true
	xmlc.List(c, "ram:ApplicableTradeTax", &inv.VATBreakdown, func(v *einvoice.VATBreakdown) {
		c.Amount("ram:CalculatedAmount", &v.TaxAmount, "")
		c.Const("ram:TypeCode", "VAT")
		c.Text("ram:ExemptionReason", &v.ExemptionReason)
		c.Amount("ram:BasisAmount", &v.TaxableAmount, "")
		c.Text("ram:CategoryCode", &v.Category)
		c.Text("ram:ExemptionReasonCode", &v.ExemptionReasonCode)
		// BT-7 and BT-8 belong to the invoice; CII carries them on a breakdown, the
		// first: TaxPointDate occurs at most once (CII-SR-461).
		if first {
			dateString(c, "ram:TaxPointDate", "udt:DateString", &inv.TaxPointDate)
			code := convertCode(inv.TaxPointDateCode, true)
			c.Text("ram:DueDateTypeCode", &code)
			if !c.Writing() {
				inv.TaxPointDateCode = convertCode(code, false)
			}
		}
		first = false
		c.Dec("ram:RateApplicablePercent", &v.Rate)
	})
}

func period(c *xmlc.Codec, p *einvoice.Period) {
	date(c, "ram:StartDateTime", "udt:DateTimeString", &p.Start)
	date(c, "ram:EndDateTime", "udt:DateTimeString", &p.End)
}

// allowanceCharges binds allowances and charges, which CII keeps in one repeated element
// told apart by ram:ChargeIndicator; tax is carried on document level only.
func allowanceCharges(c *xmlc.Codec, allowances, charges *[]einvoice.AllowanceCharge, document bool) {
	one := func(a *einvoice.AllowanceCharge, charge *bool) {
		c.Elem("ram:ChargeIndicator", func() {
			v := "false"
			if *charge {
				v = "true"
			}
			c.Text("udt:Indicator", &v)
			*charge = strings.TrimSpace(v) == "true" || v == "1"
		})
		c.Dec("ram:CalculationPercent", &a.Percentage)
		c.Amount("ram:BasisAmount", &a.BaseAmount, "")
		c.Amount("ram:ActualAmount", &a.Amount, "")
		c.Text("ram:ReasonCode", &a.ReasonCode)
		c.Text("ram:Reason", &a.Reason)
		if document {
			c.Elem("ram:CategoryTradeTax", func() {
				if c.Writing() && a.VATCategory == "" && !a.VATRate.Valid() {
					return
				}
				c.Const("ram:TypeCode", "VAT")
				c.Text("ram:CategoryCode", &a.VATCategory)
				c.Dec("ram:RateApplicablePercent", &a.VATRate)
			})
		}
	}
	if !c.Writing() {
		for _, n := range c.Children("ram:SpecifiedTradeAllowanceCharge") {
			c.Enter("ram:SpecifiedTradeAllowanceCharge", n, func() {
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
			c.Elem("ram:SpecifiedTradeAllowanceCharge", func() { one(&list.s[i], &charge) })
		}
	}
}

func totals(c *xmlc.Codec, inv *einvoice.Invoice) {
	t := &inv.Totals
	c.Amount("ram:LineTotalAmount", &t.LineTotal, "")
	c.Amount("ram:ChargeTotalAmount", &t.ChargeTotal, "")
	c.Amount("ram:AllowanceTotalAmount", &t.AllowanceTotal, "")
	c.Amount("ram:TaxBasisTotalAmount", &t.NetTotal, "")
	if c.Writing() {
		c.Amount("ram:TaxTotalAmount", &t.VATTotal, inv.Currency)
		c.Amount("ram:TaxTotalAmount", &t.VATTotalAccounting, inv.TaxCurrency)
	} else {
		// By currency: BT-110 or BT-111 (see VATTotalIn).
		for _, n := range c.Children("ram:TaxTotalAmount") {
			c.Enter("ram:TaxTotalAmount", n, func() {
				if d := inv.VATTotalIn(n.Attr("currencyID")); d != nil {
					c.DecValue(d)
				}
			})
		}
	}
	c.Amount("ram:RoundingAmount", &t.RoundingAmount, "")
	c.Amount("ram:GrandTotalAmount", &t.GrossTotal, "")
	c.Amount("ram:TotalPrepaidAmount", &t.PaidAmount, "")
	c.Amount("ram:DuePayableAmount", &t.AmountDue, "")
}

// date binds a date element with a udt/qdt DateTimeString of format 102 (YYYYMMDD).
func date(c *xmlc.Codec, name, inner string, d *einvoice.Date) {
	if c.Writing() && *d == "" {
		return
	}
	c.Elem(name, func() { dateString(c, "", inner, d) })
}

// dateString binds name/inner (or inner alone when name is "") as a format-102 date.
func dateString(c *xmlc.Codec, name, inner string, d *einvoice.Date) {
	if name != "" {
		if c.Writing() && *d == "" {
			return
		}
		c.Elem(name, func() { dateString(c, "", inner, d) })
		return
	}
	c.Elem(inner, func() {
		if c.Writing() {
			c.ConstAttr("format", "102")
			s := strings.ReplaceAll(string(*d), "-", "")
			c.Value(&s)
			return
		}
		if f := c.Node().Attr("format"); f != "102" {
			c.Fail("date format %q is not supported; EN 16931 uses 102 (YYYYMMDD)", f)
			return
		}
		s := c.Node().Text
		if len(s) != 8 {
			c.Fail("%q is not a date in the form YYYYMMDD", s)
			return
		}
		v, err := einvoice.ParseDate(s[:4] + "-" + s[4:6] + "-" + s[6:])
		if err != nil {
			c.Fail("%q is not a date in the form YYYYMMDD", s)
			return
		}
		*d = v
	})
}
