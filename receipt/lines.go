package receipt

import (
	"strings"
	"unicode"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/internal/lazyre"
)

// An invoice's line table: a header naming a quantity column and a price or amount column,
// and under it the rows that print a quantity, a unit price and a line amount.
var (
	lineHeadQtyRE   = lazyre.New(`(?i)\b(?:menge|anzahl|qty|quantity|quantité|qté|stück|anz\.?)\b`)
	lineHeadPriceRE = lazyre.New(`(?i)(?:preis|price|prix|betrag|amount|montant|total|summe)`)
	// "Amount  Product  VAT  Price  Total": "Amount" first, before a price and a total, is
	// the quantity's column (German "Menge" rendered as "Amount", as GnuAccounting does).
	amountFirstHeadRE = lazyre.New(`(?i)^\s*amount\s+\pL.*\bprice\b.*\btotal\b`)
	lineEndRE         = lazyre.New(`(?i)^\s*(?:umsatzsteuer|steueraufschlüsselung|mwst\.?-?aufstellung|summe|gesamt|zwischensumme|rechnungssumme|total|subtotal|sous-total|belegsummen|vat breakdown|tax summary)`)
	// A number as a table prints it, with a decimal comma (1.234,56 / 9,9000 / 20) or point.
	commaNumberRE = lazyre.New(`-?\d{1,3}(?:\.\d{3})+(?:,\d+)?|-?\d+(?:,\d+)?`)
	pointNumberRE = lazyre.New(`-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?`)
	// Units a quantity is followed by, and words that are no part of a description.
	unitRE = lazyre.New(`(?i)^(?:stk|st|stück|pcs|pc|piece|pieces|h|std|stunden?|hours?|tage?|days?|kg|g|l|m|m²|m2|m³|km|x|psch|pauschal|set|einheit|unit|ea|c62|h87)\.?$`)
)

// maxRowNumbers bounds the numbers of a table row tried as quantity, price and amount.
const maxRowNumbers = 12

// tableLines reads an invoice's line table: each row whose quantity × unit price is its line
// amount (to the cent, after the price's rounding) is one line; the description is the row's
// text. A row whose figures do not fit is no line: a wrong line makes a wrong invoice.
func tableLines(lines []string, decimalComma bool) []Item {
	var out []Item
	in := false
	for i, l := range lines {
		if !in {
			in = (lineHeadQtyRE.MatchString(l) && lineHeadPriceRE.MatchString(l) || amountFirstHeadRE.MatchString(l)) && len(amounts(l)) == 0
			continue
		}
		if lineEndRE.MatchString(l) {
			if len(out) > 0 {
				break
			}
			in = false
			continue
		}
		if it, ok := tableRow(l, decimalComma); ok {
			if it.Description == "" {
				it.Description = nameBelow(lines[i+1 : min(len(lines), i+5)])
			}
			if it.Description != "" {
				out = append(out, it)
			}
		}
	}
	return out
}

// tableRow finds quantity, unit price and amount among a row's numbers, in the order the
// row prints them (price before quantity or after), the amount last of the three.
func tableRow(l string, decimalComma bool) (Item, bool) {
	type num struct {
		v          decimal.Decimal
		start, end int
		twoPlaces  bool
		places     int
	}
	var ns []num
	numberRE := pointNumberRE
	if decimalComma {
		numberRE = commaNumberRE
	}
	for _, m := range numberRE.FindAllStringIndex(l, -1) {
		// Part of a word or a code (GTIN, "A4", "KR3M"): no figure of the table.
		if m[0] > 0 && (unicode.IsLetter(rune(l[m[0]-1])) || l[m[0]-1] == '-' || l[m[0]-1] == '/') {
			continue
		}
		if m[1] < len(l) && (unicode.IsLetter(rune(l[m[1]])) && l[m[1]] != 'x' || l[m[1]] == '%') {
			continue // "3m" in a name, "19%" the rate column
		}
		v, places, ok := parseNumber(l[m[0]:m[1]], decimalComma)
		if !ok {
			continue
		}
		ns = append(ns, num{v, m[0], m[1], places == 2, places})
	}
	if len(ns) > maxRowNumbers {
		ns = ns[len(ns)-maxRowNumbers:] // the figures stand at a row's end; the search is cubic
	}
	cent := decimal.New(1, -2)
	for k := len(ns) - 1; k >= 2; k-- {
		a := ns[k]
		if !a.twoPlaces || a.v.IsZero() {
			continue
		}
		for i := 0; i < k; i++ {
			for j := 0; j < k; j++ {
				if i == j {
					continue
				}
				q, p := ns[i], ns[j]
				if q.v.Sign() == 0 || p.v.Sign() <= 0 || q.v.Abs().GreaterThan(decimal.NewFromInt(1_000_000)) || p.v.GreaterThan(decimal.NewFromInt(100_000_000)) {
					continue
				}
				if q.v.Mul(p.v).Sub(a.v).Abs().GreaterThan(cent) {
					continue
				}
				// Either figure may be the quantity; one equal to the amount is the price of
				// one, unless the other is 1.
				valid := func(q, p num) bool {
					return !q.v.Equal(a.v) && (!p.v.Equal(a.v) || q.v.Equal(decimal.NewFromInt(1)))
				}
				if !valid(q, p) {
					continue
				}
				desc := description(l[:min(q.start, p.start)])
				if (q.places > p.places || q.places == p.places && q.start > p.start) && valid(p, q) {
					continue // the quantity is the figure with fewer decimals, else the first ("1,000" × 142,50: Odoo's three decimals)
				}
				if desc == "" && q.start < p.start && i+1 < len(ns) {
					// The quantity first, the name after it, up to the next figure.
					desc = description(l[q.end:ns[i+1].start])
				}
				return Item{Description: desc, Quantity: einvoice.NewDecimal(q.v), UnitPrice: einvoice.NewDecimal(p.v), Total: money(a.v)}, true
			}
		}
	}
	return Item{}, false
}

// nameBelow is the item name a row without one prints on the lines under it (after article
// numbers and labelled references): the first line of words.
func nameBelow(lines []string) string {
	for _, l := range lines {
		if len(pointNumberRE.FindAllString(l, -1)) > 1 || strings.Contains(l, ":") || !hasLetters(l, 4) {
			continue
		}
		if d := description(l); hasLetters(d, 4) {
			return d
		}
	}
	return ""
}

// description is a row's text before its figures: the position number, article codes with
// their labels, unit words and a rate column's "19%" left out.
func description(s string) string {
	var words []string
	fields := strings.Fields(s)
	for i, w := range fields {
		if unitRE.MatchString(w) || !hasLetters(w, 1) && len(words) == 0 || rateWordRE.MatchString(w) {
			continue
		}
		if strings.HasSuffix(w, ":") && (codeLabelRE.MatchString(w) || i+1 < len(fields) && !hasLetters(fields[i+1], 1) && !rateWordRE.MatchString(fields[i+1])) {
			continue // "Art.-Nr.:", "GTIN:", a label before a code; "Luftballon: Bunt" is a name
		}
		words = append(words, w)
	}
	return strings.TrimSuffix(strings.TrimSpace(strings.Join(words, " ")), ":")
}

// codeLabelRE is a word that labels a code in a row: an abbreviation ("Art.-Nr.:", "Nr:")
// or a short word in capitals ("GTIN:", "EAN:").
var codeLabelRE = lazyre.New(`^(?:[^:]*[.-][^:]*|\p{Lu}{2,5}|(?i:nr|no|art|pos|ref|sku|ean|gtin|code|id))\.?:$`)

var rateWordRE = lazyre.New(`^\d{1,2}(?:[.,]\d{1,2})?%$`)

// parseNumber reads a table number with the document's decimal separator; places is the
// number of decimals.
func parseNumber(s string, decimalComma bool) (decimal.Decimal, int, bool) {
	dec, group := ",", "."
	if !decimalComma {
		dec, group = ".", ","
	}
	s = strings.ReplaceAll(s, group, "")
	places := 0
	if i := strings.Index(s, dec); i >= 0 {
		places = len(s) - i - 1
		s = s[:i] + "." + s[i+1:]
	}
	v, err := decimal.NewFromString(s)
	return v, places, err == nil
}

// decimalSepRE is a figure's last two decimals with their separator, not followed by more
// digits or a separator (11.09.2018 is a date, 1,200.00 a point figure).
var decimalSepRE = lazyre.New(`\d([.,])\d{2}(?:[^\d.,]|$)`)

// decimalComma: the text writes figures with a decimal comma (1.234,56) at least as often
// as with a point (1,234.56).
func decimalComma(lines []string) bool {
	comma, point := 0, 0
	for _, l := range lines {
		for _, m := range decimalSepRE.FindAllStringSubmatch(l, -1) {
			if m[1] == "," {
				comma++
			} else {
				point++
			}
		}
	}
	return comma >= point
}

// The line items of the e-invoice viewers that print each line as a block of labelled
// values: the XRechnung visualisation ("Position: 1", "Menge 1.0000", "Gesamtpreis (netto)
// 99,00", "Bezeichnung: …") and its French form ("ID: 1", "Quantité 1", "Montant net de
// ligne 972,00", "Nom de l'article: …").
var (
	viewerPosRE    = lazyre.New(`(?i)^(?:position|id)\s*:\s*\S+$`)
	viewerQtyRE    = lazyre.New(`(?i)^(?:menge|quantit[ée]|quantity)\s+(-?\d[\d.,]*)(?:\s|$)`)
	viewerAmountRE = lazyre.New(`(?i)^(?:gesamtpreis\s*\(netto\)|montant\s+net\s+de\s+ligne|line\s+net\s+amount)\s*:?\s+`)
	viewerNameRE   = lazyre.New(`(?i)^(?:bezeichnung|nom\s+de\s+l['’]article|item\s+name)\s*:\s*(.+)$`)
)

// viewerLines reads such blocks: each starts at its position's label and holds a quantity,
// a net amount and a name, in any order, before the next position.
func viewerLines(lines []string) []Item {
	var out []Item
	var cur *Item
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if viewerPosRE.MatchString(l) {
			if len(out) >= maxTableRows {
				break
			}
			out = append(out, Item{})
			cur = &out[len(out)-1]
			continue
		}
		if cur == nil {
			continue
		}
		if m := viewerQtyRE.FindStringSubmatch(l); m != nil && !cur.Quantity.Valid() {
			comma := strings.Contains(m[1], ",")
			if v, _, ok := parseNumber(m[1], comma); ok {
				cur.Quantity = einvoice.NewDecimal(v)
			}
		}
		if loc := viewerAmountRE.FindStringIndex(l); loc != nil && !cur.Total.Valid() {
			if as := amounts(l[loc[1]:]); len(as) > 0 {
				cur.Total = money(as[0].v)
			}
		}
		if m := viewerNameRE.FindStringSubmatch(l); m != nil && cur.Description == "" {
			cur.Description = cellSepRE.Split(strings.TrimSpace(m[1]), 2)[0]
		}
	}
	// Every block needs its amount and name, or the reading is none.
	for _, it := range out {
		if !it.Total.Valid() || it.Description == "" {
			return nil
		}
	}
	return out
}
