package ubl

import (
	"strings"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
)

type role int

const (
	seller role = iota
	buyer
	payee
	taxRepresentative
)

// schemeSEPA marks the seller identifier that is the SEPA creditor id (BT-90) in UBL.
const schemeSEPA = "SEPA"

// party binds a cac:Party (the element itself for payee and tax representative). creditor
// receives BT-90, which UBL keeps among the seller's identifiers.
func party(c *xmlc.Codec, p *einvoice.Party, r role, creditor *string) {
	c.Elem("cbc:EndpointID", func() {
		c.Attr("schemeID", &p.ElectronicAddress.Scheme)
		c.Value(&p.ElectronicAddress.ID)
	})
	if c.Writing() {
		for i := range p.Identifiers {
			c.Elem("cac:PartyIdentification", func() { identifier(c, &p.Identifiers[i]) })
		}
		if creditor != nil && *creditor != "" {
			c.Elem("cac:PartyIdentification", func() {
				c.Elem("cbc:ID", func() {
					c.ConstAttr("schemeID", schemeSEPA)
					c.Value(creditor)
				})
			})
		}
	} else {
		for _, n := range c.Children("cac:PartyIdentification") {
			c.Enter("cac:PartyIdentification", n, func() {
				var id einvoice.Identifier
				identifier(c, &id)
				if creditor != nil && strings.EqualFold(id.Scheme, schemeSEPA) {
					*creditor = id.ID
					return
				}
				p.Identifiers = append(p.Identifiers, id)
			})
		}
	}
	name := &p.TradingName
	if r == payee || r == taxRepresentative {
		name = &p.Name
	}
	c.Elem("cac:PartyName", func() { c.Text("cbc:Name", name) })
	c.Elem("cac:PostalAddress", func() { address(c, &p.Address) })
	taxScheme(c, "VAT", &p.VATID, nil)
	taxScheme(c, "", &p.TaxNumber, &p.TaxNumberScheme)
	c.Elem("cac:PartyLegalEntity", func() {
		if r != payee && r != taxRepresentative {
			c.Text("cbc:RegistrationName", &p.Name)
		}
		c.Elem("cbc:CompanyID", func() {
			c.Attr("schemeID", &p.LegalRegistration.Scheme)
			c.Value(&p.LegalRegistration.ID)
		})
		c.Text("cbc:CompanyLegalForm", &p.LegalInfo)
	})
	c.Elem("cac:Contact", func() {
		if c.Writing() && p.Contact.Name == "" {
			c.Text("cbc:Name", &p.Contact.Department) // CII's department stands for BT-41 when no person is named
		} else {
			c.Text("cbc:Name", &p.Contact.Name)
		}
		c.Text("cbc:Telephone", &p.Contact.Phone)
		c.Text("cbc:ElectronicMail", &p.Contact.Email)
	})
}

func identifier(c *xmlc.Codec, id *einvoice.Identifier) {
	c.Elem("cbc:ID", func() {
		c.Attr("schemeID", &id.Scheme)
		c.Value(&id.ID)
	})
}

// taxScheme binds a cac:PartyTaxScheme: VAT for the VAT identifier, any other scheme
// (written as "FC", the tax number) for the seller's tax registration identifier.
func taxScheme(c *xmlc.Codec, scheme string, v, other *string) {
	if c.Writing() {
		if *v == "" {
			return
		}
		c.Elem("cac:PartyTaxScheme", func() {
			c.Text("cbc:CompanyID", v)
			s := scheme
			if s == "" && other != nil {
				s = *other
			}
			if s == "" {
				s = "FC"
			}
			c.Elem("cac:TaxScheme", func() { c.Const("cbc:ID", s) })
		})
		return
	}
	for _, n := range c.Children("cac:PartyTaxScheme") {
		c.Enter("cac:PartyTaxScheme", n, func() {
			var id string
			c.Elem("cac:TaxScheme", func() { c.Text("cbc:ID", &id) })
			if (id == "VAT") == (scheme == "VAT") && *v == "" {
				c.Text("cbc:CompanyID", v)
				if other != nil && id != "FC" {
					*other = id
				}
			}
		})
	}
}

func address(c *xmlc.Codec, a *einvoice.Address) {
	c.Text("cbc:StreetName", &a.Line1)
	c.Text("cbc:AdditionalStreetName", &a.Line2)
	c.Text("cbc:CityName", &a.City)
	c.Text("cbc:PostalZone", &a.PostCode)
	c.Text("cbc:CountrySubentity", &a.Subdivision)
	c.Elem("cac:AddressLine", func() { c.Text("cbc:Line", &a.Line3) })
	c.Elem("cac:Country", func() { c.Text("cbc:IdentificationCode", &a.Country) })
}
