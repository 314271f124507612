package cii

import (
	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
)

// lines binds BG-25. CII lists sub-lines (XRechnung BG-DEX-01) flat, each naming its parent
// in ram:ParentLineID; the model nests them.
func lines(c *xmlc.Codec, inv *einvoice.Invoice) {
	if c.Writing() {
		var walk func(ls []einvoice.Line, parent string)
		walk = func(ls []einvoice.Line, parent string) {
			for i := range ls {
				c.Elem("ram:IncludedSupplyChainTradeLineItem", func() { line(c, &ls[i], &parent) })
				walk(ls[i].SubLines, ls[i].ID)
			}
		}
		walk(inv.Lines, "")
		return
	}
	items := c.Children("ram:IncludedSupplyChainTradeLineItem")
	all := make([]einvoice.Line, len(items))
	parents := make([]string, len(items))
	nested := false
	for i, n := range items {
		c.Enter("ram:IncludedSupplyChainTradeLineItem", n, func() { line(c, &all[i], &parents[i]) })
		nested = nested || parents[i] != ""
	}
	if !nested {
		inv.Lines = append(inv.Lines, all...)
		return
	}
	// Attach each line to its parent wherever the parent stands: ZUGFeRD's own examples
	// list a group's sub-lines before the group line. A parent that is missing, or a
	// parent chain that runs in a circle, leaves the line on the top level.
	byID := map[string]int{}
	for i := range all {
		if _, dup := byID[all[i].ID]; !dup {
			byID[all[i].ID] = i
		}
	}
	parent := make([]int, len(all))
	for i := range all {
		parent[i] = -1
		if p, ok := byID[parents[i]]; ok && parents[i] != "" && p != i {
			parent[i] = p
		}
	}
	for i := range all {
		// A chain longer than the lines has a circle; the line it starts from goes on top.
		p, steps := parent[i], 0
		for p >= 0 && p != i && steps <= len(all) {
			p, steps = parent[p], steps+1
		}
		if p == i || steps > len(all) {
			parent[i] = -1
		}
	}
	kids := make([][]int, len(all))
	var top []int
	for i := range all {
		if parent[i] < 0 {
			top = append(top, i)
		} else {
			kids[parent[i]] = append(kids[parent[i]], i)
		}
	}
	var build func(i int) einvoice.Line
	build = func(i int) einvoice.Line {
		l := all[i]
		for _, k := range kids[i] {
			l.SubLines = append(l.SubLines, build(k))
		}
		return l
	}
	for _, i := range top {
		inv.Lines = append(inv.Lines, build(i))
	}
}

func line(c *xmlc.Codec, l *einvoice.Line, parent *string) {
	c.Elem("ram:AssociatedDocumentLineDocument", func() {
		c.Text("ram:LineID", &l.ID)
		c.Text("ram:ParentLineID", parent)
		c.Text("ram:LineStatusReasonCode", &l.StatusReasonCode)
		c.Elem("ram:IncludedNote", func() { c.Text("ram:Content", &l.Note) })
	})
	it := &l.Item
	c.Elem("ram:SpecifiedTradeProduct", func() {
		c.Elem("ram:GlobalID", func() {
			c.Attr("schemeID", &it.StandardID.Scheme)
			c.Value(&it.StandardID.ID)
		})
		c.Text("ram:SellerAssignedID", &it.SellerID)
		c.Text("ram:BuyerAssignedID", &it.BuyerID)
		c.Text("ram:Name", &it.Name)
		c.Text("ram:Description", &it.Description)
		xmlc.List(c, "ram:ApplicableProductCharacteristic", &it.Attributes, func(a *einvoice.ItemAttribute) {
			c.Text("ram:Description", &a.Name)
			c.Text("ram:Value", &a.Value)
		})
		xmlc.List(c, "ram:DesignatedProductClassification", &it.Classifications, func(k *einvoice.Classification) {
			c.Elem("ram:ClassCode", func() {
				c.Attr("listID", &k.Scheme)
				c.Attr("listVersionID", &k.Version)
				c.Value(&k.ID)
			})
		})
		c.Elem("ram:OriginTradeCountry", func() { c.Text("ram:ID", &it.OriginCountry) })
	})
	p := &l.Price
	c.Required("ram:SpecifiedLineTradeAgreement", func() {
		c.Elem("ram:BuyerOrderReferencedDocument", func() { c.Text("ram:LineID", &l.OrderLineReference) })
		c.Elem("ram:GrossPriceProductTradePrice", func() {
			gross := p.Gross
			if c.Writing() && !gross.Valid() {
				if !p.Discount.Valid() {
					return
				}
				// CII holds BT-147 inside the gross price, which it requires: net + discount.
				gross = einvoice.NewDecimal(p.Net.Value().Add(p.Discount.Value()))
			}
			c.Amount("ram:ChargeAmount", &gross, "")
			if !c.Writing() {
				p.Gross = gross
			}
			c.Elem("ram:BasisQuantity", func() {
				c.Attr("unitCode", &p.GrossBaseQuantityUnit)
				c.DecValue(&p.GrossBaseQuantity)
			})
			if c.Writing() && !p.Discount.Valid() {
				return
			}
			c.Elem("ram:AppliedTradeAllowanceCharge", func() {
				c.Elem("ram:ChargeIndicator", func() { c.Const("udt:Indicator", "false") })
				c.Amount("ram:ActualAmount", &p.Discount, "")
			})
		})
		c.Elem("ram:NetPriceProductTradePrice", func() {
			c.Amount("ram:ChargeAmount", &p.Net, "")
			basisQuantity(c, p)
		})
	})
	c.Required("ram:SpecifiedLineTradeDelivery", func() {
		c.Elem("ram:BilledQuantity", func() {
			c.Attr("unitCode", &l.Unit)
			c.DecValue(&l.Quantity)
		})
	})
	c.Required("ram:SpecifiedLineTradeSettlement", func() {
		c.Elem("ram:ApplicableTradeTax", func() {
			if c.Writing() && l.VATCategory == "" && !l.VATRate.Valid() {
				return
			}
			c.Const("ram:TypeCode", "VAT")
			c.Text("ram:ExemptionReason", &l.VATExemptionReason)
			c.Text("ram:CategoryCode", &l.VATCategory)
			c.Dec("ram:RateApplicablePercent", &l.VATRate)
		})
		c.Elem("ram:BillingSpecifiedPeriod", func() { period(c, &l.Period) })
		allowanceCharges(c, &l.Allowances, &l.Charges, false)
		c.Elem("ram:SpecifiedTradeSettlementLineMonetarySummation", func() {
			c.Amount("ram:LineTotalAmount", &l.NetAmount, "")
		})
		c.Elem("ram:AdditionalReferencedDocument", func() {
			c.Text("ram:IssuerAssignedID", &l.ObjectIdentifier.ID)
			if c.Writing() && l.ObjectIdentifier.ID != "" {
				c.Const("ram:TypeCode", typeObject)
			}
			c.Text("ram:ReferenceTypeCode", &l.ObjectIdentifier.Scheme)
		})
		c.Elem("ram:ReceivableSpecifiedTradeAccountingAccount", func() { c.Text("ram:ID", &l.AccountingReference) })
	})
}

func basisQuantity(c *xmlc.Codec, p *einvoice.Price) {
	if c.Writing() && !p.BaseQuantity.Valid() {
		return
	}
	c.Elem("ram:BasisQuantity", func() {
		c.Attr("unitCode", &p.BaseQuantityUnit)
		c.DecValue(&p.BaseQuantity)
	})
}
