package ubl

import (
	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
)

// lines binds BG-25 and, nested, the XRechnung sub-lines (cac:SubInvoiceLine,
// cac:SubCreditNoteLine).
func lines(c *xmlc.Codec, ls *[]einvoice.Line, currency string, credit, sub bool) {
	name, qty := "cac:InvoiceLine", "cbc:InvoicedQuantity"
	if credit {
		name, qty = "cac:CreditNoteLine", "cbc:CreditedQuantity"
	}
	if sub {
		name = "cac:SubInvoiceLine"
		if credit {
			name = "cac:SubCreditNoteLine"
		}
	}
	xmlc.List(c, name, ls, func(l *einvoice.Line) {
		c.Text("cbc:ID", &l.ID)
		c.Text("cbc:Note", &l.Note)
		c.Elem(qty, func() {
			c.Attr("unitCode", &l.Unit)
			c.DecValue(&l.Quantity)
		})
		c.Amount("cbc:LineExtensionAmount", &l.NetAmount, currency)
		c.Text("cbc:AccountingCost", &l.AccountingReference)
		c.Elem("cac:InvoicePeriod", func() { period(c, &l.Period) })
		c.Elem("cac:OrderLineReference", func() { c.Text("cbc:LineID", &l.OrderLineReference) })
		c.Elem("cac:DocumentReference", func() {
			c.Elem("cbc:ID", func() {
				c.Attr("schemeID", &l.ObjectIdentifier.Scheme)
				c.Value(&l.ObjectIdentifier.ID)
			})
			if c.Writing() && l.ObjectIdentifier.ID != "" {
				c.Const("cbc:DocumentTypeCode", typeObject)
			}
		})
		allowanceCharges(c, &l.Allowances, &l.Charges, currency, false)
		it := &l.Item
		c.Required("cac:Item", func() {
			c.Text("cbc:Description", &it.Description)
			c.Text("cbc:Name", &it.Name)
			c.Elem("cac:BuyersItemIdentification", func() { c.Text("cbc:ID", &it.BuyerID) })
			c.Elem("cac:SellersItemIdentification", func() { c.Text("cbc:ID", &it.SellerID) })
			c.Elem("cac:StandardItemIdentification", func() {
				c.Elem("cbc:ID", func() {
					c.Attr("schemeID", &it.StandardID.Scheme)
					c.Value(&it.StandardID.ID)
				})
			})
			c.Elem("cac:OriginCountry", func() { c.Text("cbc:IdentificationCode", &it.OriginCountry) })
			xmlc.List(c, "cac:CommodityClassification", &it.Classifications, func(k *einvoice.Classification) {
				c.Elem("cbc:ItemClassificationCode", func() {
					c.Attr("listID", &k.Scheme)
					c.Attr("listVersionID", &k.Version)
					c.Value(&k.ID)
				})
			})
			c.Elem("cac:ClassifiedTaxCategory", func() {
				if c.Writing() && l.VATCategory == "" && !l.VATRate.Valid() {
					return
				}
				c.Text("cbc:ID", &l.VATCategory)
				c.Dec("cbc:Percent", &l.VATRate)
				c.Text("cbc:TaxExemptionReason", &l.VATExemptionReason)
				vatScheme(c)
			})
			xmlc.List(c, "cac:AdditionalItemProperty", &it.Attributes, func(a *einvoice.ItemAttribute) {
				c.Text("cbc:Name", &a.Name)
				c.Text("cbc:Value", &a.Value)
			})
		})
		p := &l.Price
		c.Elem("cac:Price", func() {
			c.Amount("cbc:PriceAmount", &p.Net, currency)
			c.Elem("cbc:BaseQuantity", func() {
				c.Attr("unitCode", &p.BaseQuantityUnit)
				c.DecValue(&p.BaseQuantity)
			})
			if c.Writing() && !p.Discount.Valid() && !p.Gross.Valid() {
				return
			}
			c.Elem("cac:AllowanceCharge", func() {
				c.Const("cbc:ChargeIndicator", "false")
				if c.Writing() && !p.Discount.Valid() {
					zero := einvoice.MustDecimal("0.00")
					c.Amount("cbc:Amount", &zero, currency) // the schema requires an amount beside the gross price
				} else {
					c.Amount("cbc:Amount", &p.Discount, currency)
				}
				c.Amount("cbc:BaseAmount", &p.Gross, currency)
			})
		})
		if c.Writing() || c.Has(subName(credit)) {
			lines(c, &l.SubLines, currency, credit, true)
		}
	})
}

func subName(credit bool) string {
	if credit {
		return "cac:SubCreditNoteLine"
	}
	return "cac:SubInvoiceLine"
}
