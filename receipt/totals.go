package receipt

import (
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/internal/lazyre"
)

// Labels of an invoice's totals (German, English, French), matched at the start of a line.
// Invoices print the value after its label on the same line, or, in a table cell read as
// text, on one of the next lines.
var (
	netLabelRE   = lazyre.New(`(?i)^\s*(?:` + netLabels + `)\b`)
	vatLabelRE   = lazyre.New(`(?i)^\s*(?:steuerbetrag|umsatzsteuer(?:betrag)?|mehrwertsteuer|mwst\.?(?:-?betrag)?|ust\.?(?:-?betrag)?|summe\s+(?:ust|mwst|umsatzsteuer)|gesamt\s+(?:ust|mwst)|(?:total\s+)?vat(?:\s+(?:amount|total))?|total\s+tax(?:es)?|(?:total\s+)?tva|montant\s+(?:total\s+)?tva)\b`)
	grossLabelRE = lazyre.New(`(?i)^\s*(?:bruttosumme|bruttobetrag|gesamtbetrag|gesamtsumme|rechnungsbetrag|rechnungssumme|endbetrag|summe\s+brutto|total\s+(?:gross|incl\.?\s*vat|amount)|gross\s+(?:total|amount)|grand\s+total|invoice\s+total|total\s*t\.?[ti]\.?c\.?|montant\s+(?:total\s+)?t\.?t\.?c\.?)\b`)
	dueLabelRE   = lazyre.New(`(?i)^\s*(?:` + dueLabels + `)\b`)
)

// netLabels name the net total; text lines and word boxes read them alike.
const netLabels = `summe\s+netto|nettobetrag|netto\s?summe|gesamt\s?netto|nettogesamt|rechnungssumme\s+ohne\s+(?:ust|mwst)|summe\s+ohne\s+(?:ust|mwst)|` +
	`gesamtbetrag\s+netto|total\s+(?:net|excl\.?\s*vat|without\s+vat)|net\s+(?:total|amount)|tax\s+basis|taxable\s+amount|bemessungsgrundlage|` +
	`sub-?total|total\s*h\.?t\.?|montant\s+(?:total\s+)?h\.?t\.?|untaxed\s+amount|amount\s+untaxed|total\s+sans\s+taxes|zwischensumme|base\s+imponible|imponibile|base\s+de\s+(?:la\s+)?tva`

// dueLabels name the amount due, after a prepayment or a rounding ("Open amount",
// "Offener Rechnungsbetrag", "Reste à payer"); text lines and word boxes read them alike.
const dueLabels = `zahlbetrag|offen\b(?:\s*:)?|f(?:ä|a|ae)lliger\s+betrag|zu\s+zahlen(?:der\s+betrag)?|noch\s+zu\s+zahlen|offene[rn]?\s+(?:rechnungs)?betrag|restbetrag|` +
	`amount\s+due|balance\s+due|total\s+due|(?:due|amount|total)\s+payable|open\s+amount|residual(?:\s+amount)?|outstanding\s+(?:amount|balance)|remaining\s+amount|` +
	`montant\s+(?:restant\s+)?d[uû]|montant\s+[àa]\s+r[ée]gler|solde\s+(?:d[uû]|[àa]\s+payer)|(?:net\s+|reste\s+)?[àa]\s+payer`

// totalsFound are the candidates of each total, in the order they appear.
type totalsFound struct{ net, vat, gross, due []decimal.Decimal }

// labelledTotals reads each labelled total: the last amount on the label's line, or else
// the first line that is only an amount among the next three non-empty lines. A label line
// that names a rate (19 %) belongs to a breakdown, not to the totals.
func labelledTotals(lines []string) totalsFound {
	var t totalsFound
	for i, l := range lines {
		var into *[]decimal.Decimal
		l = strings.TrimLeft(l, ".,'`|") // a speck OCR read before the label (". Total TVA")
		if capitalRE.MatchString(l) {
			continue // "TVA : FR… - SARL au capital de 120 000,00 €": the company's, no total
		}
		switch {
		case netLabelRE.MatchString(l):
			into = &t.net
		case grossLabelRE.MatchString(l) && !strings.Contains(strings.ToLower(l), "ohne"), bareTotal(l) && !vatLabelRE.MatchString(l):
			into = &t.gross
		case dueLabelRE.MatchString(l):
			into = &t.due
		case vatLabelRE.MatchString(l) && !rateRE.MatchString(l) && !strings.Contains(strings.ToLower(l), "id"):
			into = &t.vat
		default:
			continue
		}
		// "Total TTC 38 400,00 €" as OCR's single-spaced line: a total's label has no
		// quantity before its figure, so the groups at the line's end are one figure's.
		if as := amounts(joinGroups(l, groupedEndRE)); len(as) > 0 {
			*into = append(*into, as[len(as)-1].v)
			continue
		}
		seen := 0
		for _, next := range lines[i+1:] {
			if strings.TrimSpace(next) == "" {
				continue
			}
			if seen++; seen > 3 {
				break
			}
			if amountOnly(next) {
				*into = append(*into, amounts(next)[0].v)
				break
			}
		}
	}
	return t
}

// capitalRE names a company's share capital, which letterheads and footers print beside
// its VAT id.
var capitalRE = lazyre.New(`(?i)\bcapital\b|stamm-?\s?kapital|grundkapital`)

// groupedEndRE is a figure grouped by spaces at a line's end, its currency after it
// ("38 400,00 €"; amounts reads such groups only in a cell of their own).
var groupedEndRE = lazyre.New(`(?:^|\s)(-?\d{1,3}(?: \d{3})+,\d{2})\s?(?:€|EUR)?\s*$`)

// bareTotalRE is a total's word alone before its amount ("Total   2,280.00 E£", "Gesamt
// 169,58 €"): the gross under the net and VAT, as Odoo prints its totals.
var bareTotalRE = lazyre.New(`(?i)^\s*(?:total|totale|gesamt)\s*:?\s+(.*)$`)

// bareTotal: l is the gross's line by bareTotalRE, its one amount followed or preceded by
// nothing but a currency ("Total TVA 6 400,00" is the tax's).
func bareTotal(l string) bool {
	m := bareTotalRE.FindStringSubmatch(l)
	return m != nil && len(amounts(m[1])) == 1 && (!hasLetters(m[1], 1) || !hasLetters(m[1], 5) && len(lineCurrencies(strings.ToLower(m[1]))) > 0)
}

// choose picks the totals that agree: the net, VAT and gross (latest first) for which
// net + VAT = gross within two cents; without such a triple, the last of each. The amount
// due is the last one found.
func (t totalsFound) choose() (net, vat, gross, due *decimal.Decimal) {
	tol := decimal.New(2, -2)
	last := func(vs []decimal.Decimal) *decimal.Decimal {
		if len(vs) == 0 {
			return nil
		}
		v := vs[len(vs)-1]
		return &v
	}
	for gi := len(t.gross) - 1; gi >= 0; gi-- {
		for ni := len(t.net) - 1; ni >= 0; ni-- {
			for vi := len(t.vat) - 1; vi >= 0; vi-- {
				if t.net[ni].Add(t.vat[vi]).Sub(t.gross[gi]).Abs().LessThanOrEqual(tol) {
					n, v, g := t.net[ni], t.vat[vi], t.gross[gi]
					return &n, &v, &g, last(t.due)
				}
			}
		}
	}
	// One label for both sums ("Gesamtsumme" over the lines, then "Gesamtsumme" with
	// the VAT, as the XRechnung viewer prints them): a gross that is another gross plus a
	// VAT names the net too.
	for gi := len(t.gross) - 1; gi >= 0; gi-- {
		for ni := range t.gross {
			for vi := len(t.vat) - 1; vi >= 0 && ni != gi; vi-- {
				if t.vat[vi].Sign() != 0 && t.gross[ni].Add(t.vat[vi]).Sub(t.gross[gi]).Abs().LessThanOrEqual(tol) {
					n, v, g := t.gross[ni], t.vat[vi], t.gross[gi]
					return &n, &v, &g, last(t.due)
				}
			}
		}
	}
	return last(t.net), last(t.vat), last(t.gross), last(t.due)
}

// creditNote reads the totals of a credit note that prints its net and total negative
// and its VAT without the sign ("Total HT -218,48 €", "Taxes 14,99 €", "Total TTC
// -233,47 €"), or whose sign the text lines lost ("Steuerbetrag in EUR -" over "1,12"):
// the figures agree as magnitudes, and a negative net or total gives them all the sign.
func (t totalsFound) creditNote() (net, vat, gross *decimal.Decimal, ok bool) {
	isNeg := func(d decimal.Decimal) bool { return d.Sign() < 0 }
	if !slices.ContainsFunc(t.gross, isNeg) && !slices.ContainsFunc(t.net, isNeg) {
		return nil, nil, nil, false
	}
	abs := func(vs []decimal.Decimal) []decimal.Decimal {
		out := make([]decimal.Decimal, len(vs))
		for i, v := range vs {
			out[i] = v.Abs()
		}
		return out
	}
	net, vat, gross, _ = totalsFound{net: abs(t.net), vat: abs(t.vat), gross: abs(t.gross)}.choose()
	if net == nil || vat == nil || gross == nil || !net.Add(*vat).Sub(*gross).Abs().LessThanOrEqual(decimal.New(2, -2)) {
		return nil, nil, nil, false
	}
	n, v, g := net.Neg(), vat.Neg(), gross.Neg()
	return &n, &v, &g, true
}
