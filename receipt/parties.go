package receipt

import (
	"strings"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/internal/lazyre"
)

// A party's block on an invoice: a heading ("Verkäufer", "Käufer/Leistungsempfänger",
// "Seller", "Bill to") and under it "Label: value" lines, as e-invoice viewers and many
// invoicing programs print them.
var (
	// OCR drops umlauts' dots ("Verkaufer", "Kaufer/Leistungsempfanger"), and some
	// generators write them out ("Verkaeufer"): the headings are read either way.
	sellerHeadRE = lazyre.New(`(?i)^` + headPrefix + `(?:verk(?:ä|a|ae)ufer|lieferant|rechnungssteller|leistungserbringer|auftragnehmer|seller|supplier|vendor|vendeur|fournisseur)\s*:?$`)
	buyerHeadRE  = lazyre.New(`(?i)^` + headPrefix + `(?:` + buyerWords + `)\s*:?$`)
	// fieldRE is "Label:   value" with the label a few words before a colon.
	fieldRE = lazyre.New(`^([\pL][\pL .'’\-/]{0,30}?(?:\s\d)?)\s*:\s*(.*)$`) // "Adresszeile 1:", "Nom de l'acheteur:" too
	// A post code line as the viewers print it under the street: "DE 80333 München".
	// A VAT id as the party's block labels it: a country prefix and 8 to 12 digits or
	// letters; a test invoice's "DE12435679" is one digit short of a German one, and still
	// the seller's id the document states.
	labelledVATIDRE = lazyre.New(`^[A-Z]{2}[0-9A-Z]{8,12}$`)
	countryPostRE   = lazyre.New(`^(?:([A-Z]{2})[\s-]+)?(\d{4,5})\s+(\pL.+)$`)
)

// nextLabelRE is a second label on a party's line ("Muster GmbH Ländercode: DE", "… LA
// NAPPE Code Pays: FR").
var nextLabelRE = lazyre.New(`\s(?i:code\s)?\pL[\pL-]{1,25}\s?:(?:\s|$)`)

// buyerWords are the words that head a buyer's block (buyerHeadRE) or label its name
// (buyerInlineRE).
const buyerWords = `k(?:ä|a|ae)ufer(?:\s?/\s?leistungsempf(?:ä|a|ae)nger)?|leistungsempf(?:ä|a|ae)nger|rechnungsempf(?:ä|a|ae)nger|auftraggeber|kunde(?:nname)?(?:\s*/\s*firma)?|buyer(?:\s*/\s*beneficiary)?|customer(?:\s+name)?(?:\s*/\s*company)?|bill\s+to|invoice\s+to|acheteur|client`

// headPrefix: the words before a party in a section's heading ("Informationen zum
// Käufer", as the XRechnung viewer heads its parties).
const headPrefix = `(?:(?:informationen|angaben|daten)\s+(?:zum|zur|des|der)\s+|details\s+of\s+the\s+|informations\s+sur\s+l[e']\s*)?`

// blockParty is what a party's block says.
type blockParty struct {
	name, vatID, email, phone string
	address                   einvoice.Address
	found                     bool
}

// partyBlocks reads the seller's and the buyer's blocks from the text's lines as printed
// (indentation kept); a block ends at the next line as far left as its heading without a
// label (another heading: "Abweichender Warenempfänger", "Bemerkungen") or after twelve
// lines.
func partyBlocks(lines []string) (seller, buyer blockParty) {
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }
	for i := 0; i < len(lines); i++ {
		var into *blockParty
		switch l := boxedHeading(lines[i]); {
		case sellerHeadRE.MatchString(l):
			into = &seller
		case buyerHeadRE.MatchString(l):
			into = &buyer
		default:
			continue
		}
		if into.found {
			continue
		}
		into.found = true
		for j := i + 1; j < min(len(lines), i+13); j++ {
			l := strings.TrimSpace(lines[j])
			if l == "" {
				continue
			}
			if h := boxedHeading(l); sellerHeadRE.MatchString(h) || buyerHeadRE.MatchString(h) || indent(lines[j]) <= indent(lines[i]) && !strings.Contains(l, ":") && !nameOverLabel(lines, j, into.name) {
				break
			}
			m := fieldRE.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			// The value is the label's cell: a second column of labels may follow on the
			// line ("Name:   Muster GmbH      Ländercode:   DE").
			// OCR's text keeps no wide gaps: there the next label ends the value.
			label, value := strings.ToLower(strings.TrimSpace(m[1])), cellSepRE.Split(strings.TrimSpace(m[2]), 2)[0]
			if at := nextLabelRE.FindStringIndex(value); at != nil {
				value = strings.TrimSpace(value[:at[0]])
			}
			switch {
			case value == "":
			case label == "name" || strings.HasPrefix(label, "nom d") || label == "firma" || label == "firmenname" || label == "company" || label == "company name" || label == "nom" || label == "raison sociale":
				into.name = value
			case label == "plz" || label == "postleitzahl" || label == "post code" || label == "postcode" || label == "zip" || label == "code postal":
				into.address.PostCode = value
			case label == "ort" || label == "stadt" || label == "city" || label == "ville":
				into.address.City = value
			case label == "anschrift" || label == "adresse" || label == "address" || label == "straße" || label == "street" || label == "adresszeile 1" || label == "address line 1":
				into.address.Line1 = value
				if j+1 < len(lines) {
					// The post code line under the street, indented under the value; OCR's
					// text, which keeps no indentation, sets it as far left as the label.
					if pm := countryPostRE.FindStringSubmatch(strings.TrimSpace(lines[j+1])); pm != nil {
						into.address.Country, into.address.PostCode, into.address.City = pm[1], pm[2], strings.TrimSpace(pm[3])
						j++
					}
				}
			case strings.Contains(label, "ust") && strings.Contains(label, "id") || strings.Contains(label, "vat"):
				into.vatID = strings.ReplaceAll(value, " ", "")
			case strings.Contains(label, "mail"):
				into.email = value
			case strings.HasPrefix(label, "tel") || label == "phone":
				into.phone = value
			}
		}
	}
	return seller, buyer
}

// boxedHeading is a line without the bars OCR reads for the sides of the box a heading
// stands in ("| Acheteur |").
func boxedHeading(l string) string {
	return strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "|[]"))
}

// nameOverLabel: lines[j], a line without a label, is the first line of a name whose label
// stands on the line under it ("MVM Musterhafter" over "Name: Versicherungsverein …",
// "Herrn" over "Name: Max Mustermann": a label set beside the middle of its value). OCR's
// text keeps no indentation, so such a line stands as far left as the heading and would
// end the block; it does not while the block has no name yet and the line is no heading.
func nameOverLabel(lines []string, j int, name string) bool {
	if name != "" || partyHeading(lines[j]) != "" {
		return false
	}
	for k := j + 1; k < min(len(lines), j+3); k++ {
		next := strings.TrimSpace(lines[k])
		if next == "" {
			continue
		}
		m := fieldRE.FindStringSubmatch(next)
		return m != nil && strings.EqualFold(strings.TrimSpace(m[1]), "name") && strings.TrimSpace(m[2]) != ""
	}
	return false
}

// apply puts what a block says over what the address heuristics found.
func (b blockParty) apply(p *einvoice.Party) {
	if b.name != "" {
		p.Name = b.name
	}
	if b.address.Line1 != "" {
		p.Address.Line1 = b.address.Line1
	}
	if b.address.City != "" {
		p.Address.PostCode, p.Address.City = b.address.PostCode, b.address.City
		if b.address.Country != "" {
			p.Address.Country = b.address.Country
		}
	}
	if id := strings.ToUpper(b.vatID); vatIDRE.MatchString(id) || labelledVATIDRE.MatchString(id) {
		p.VATID = strings.ToUpper(b.vatID)
	}
	if b.email != "" {
		p.Contact.Email = b.email
	}
	if b.phone != "" {
		p.Contact.Phone = b.phone
	}
}
