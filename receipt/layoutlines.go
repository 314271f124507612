package receipt

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/internal/lazyre"
)

// A line table read by its columns: the header names a quantity, a unit price and a line
// amount column (a cell's words may stand over two lines: "Prix / unitaire"); each row of
// the table starts with a quantity in its column, and its price and amount stand in theirs
// on the row or a little under it (a layout that sets the amount a line lower).
var (
	qtyHeadRE = lazyre.New(`(?i)^(?:menge|anzahl|qty|quantity|quantit[ée]|qt[ée]|stück|anz\.?|nombre|cantidad|cant\.|quantit[àa]|q\.?t[àa]|quantidade|qtd\.?|aantal|antal|ilo[śs][ćc])(?:[\s.:]|$)`)
	// "St.-Pr.", "Einz.-Pr.", "PU HT": the unit price abbreviated.
	priceHeadRE = lazyre.New(`(?i)(?:preis|price|prix|precio|prezzo|pre[çc]o|prijs|\bpris\b|p\.\s?u\.|\bu\.?\s?p\.|rate\b|\bpr\.|^pu\b)`)
	// "Entgelt": the line's net amount as the German VAT law names it (§ 14 UStG), the
	// amount column of the standard's own viewers.
	// A column headed "Net" alone (beside "Gross") is the line's net amount. "Gebühr": a
	// tax advisor's or lawyer's fee (not "Gebührensatz", the fee's rate).
	amountHeadRE = lazyre.New(`(?i)(?:betrag|summe|amount|total|montant|gesamt|entgelt|geb(?:ü|u|ue)hr\b|honorar\b|importe|importo|valor|bedrag|belopp|prix\s+ht\b|price\s+(?:w/o|excl\.?|excluding|without)\b|^(?:net|netto)$)`)
	unitHeadRE   = lazyre.New(`(?i)(?:einzel|stück|unit|unitaire|unitario|unitari|unit[áa]rio|eenheid|p\.\s?u\.)`)
	descHeadRE   = lazyre.New(`(?i)(?:beschreibung|bezeichnung|artikel|description|d[ée]signation|libell[ée]|produkt|product|item|leistung|descripci[óo]n|concepto|descrizione|articolo|descri[çc][ãa]o|omschrijving)`)
	leadNumberRE = lazyre.New(`^-?\d[\d.,]*`)
	// posHeadRE heads a table's column of position numbers.
	posHeadRE = lazyre.New(`(?i)^(?:pos(?:ition)?\.?|lfd\.?\s?nr\.?|nr\.?|no\.?|#)(?:\s|$)`)
	// Labels under a table that end it: its sums and the VAT breakdown, and the sections
	// that follow a line table (payment terms, the document's allowances and charges, whose
	// rows have figures in the same columns).
	// A document allowance's or charge's label, set under a table's rows with its amount in
	// the amount column ("REMISE : REMISE COMMERCIALE ... -5,00", "Fracht 10,00"):
	// group 1 is an allowance's, which lowers the net.
	adjustmentRE = lazyre.New(`(?i)^(?:(remise|rabais|r[ée]duction|rabatt|nachlass|abschlag|discount|allowance)|charge|frais|zuschlag|aufschlag|fracht|versand(?:kosten)?|porto|surcharge|shipping|freight)\b`)
	tableEndRE   = lazyre.New(`(?i)^(?:summe|gesamt|zwischensumme|nettobetrag|rechnungssumme|positionssumme|total|subtotal|sous-total|umsatzsteuer|steuer|mwst|ust\b|vat\b|tva\b|tax\b|taxe|zahlungsbedingungen|zahlungsart|bankverbindung|payment\s+terms|conditions\s+de\s+paiement|zu-\s+und\s+abschläge|allowances\s+and\s+charges|(?:net|gross|line|invoice|grand)\s+(?:total|amount)|value\s+added\s+tax|untaxed\s+amount|base\s+imponible|imponibile|iva\b)`)
)

// maxTableRows bounds the rows one table gives.
const maxTableRows = 500

// column is a table column by its header's horizontal extent.
type column struct {
	x0, x1 float64
	ok     bool
}

// holds: the segment stands in the column (overlaps it, widened by a few points: figures
// are set right-aligned under a shorter or longer header).
func (c column) holds(s segment) bool {
	return c.ok && min(s.X1, c.x1+10) > max(s.X0, c.x0-10)
}

// over is how much of the segment's width stands under the column's header.
func (c column) over(s segment) float64 { return min(s.X1, c.x1) - max(s.X0, c.x0) }

// layoutLines reads the line tables of every page by their columns. fitting are the rows
// whose quantity × price is their amount; all are every row with a quantity and an amount,
// the price missing or not fitting (a quantity printed rounded, "6" for 6.5 km; a price
// column left empty): those count only when all of them add up to the line total, a
// stronger check than one row's product.
//
// adjust are the document's allowances (negative) and charges (positive) printed under the
// tables' rows: the rows add up to the net less them when no line total is printed.
func layoutLines(l *layout, comma bool) (fitting, all []Item, adjust []decimal.Decimal) {
	fitting, all, adjust = readTables(l, qtyHeadRE, comma)
	if len(all) == 0 {
		// No table with a quantity column: a fee note's or a service's positions, numbered
		// and priced without a quantity ("Pos. | Leistung | Gebühr in €"). Their rows count
		// only by their sum (all, not fitting).
		_, all, adjust = readTables(l, posHeadRE, comma)
	}
	return fitting, all, adjust
}

// readTables reads every table whose first column's header head matches.
func readTables(l *layout, head *lazyre.Regexp, comma bool) (fitting, all []Item, adjust []decimal.Decimal) {
	for pi, segs := range l.pages {
		if len(segs) > maxStackSegments {
			continue
		}
		tables := 0
		var withNext []segment
		for i, s := range segs {
			if !head.MatchString(s.text) || len(all) >= maxTableRows {
				continue
			}
			if tables++; tables > 10 {
				break // a page's tables: one, perhaps a few, not a page of headers
			}
			if withNext == nil {
				withNext = continued(l, pi, head)
			}
			fit, rows, adj := readTable(withNext, i, comma, head == posHeadRE)
			fitting = append(fitting, fit...)
			all = append(all, rows...)
			adjust = append(adjust, adj...)
		}
	}
	return fitting, all, adjust
}

// maxContinuedPages bounds the pages a table is followed onto.
const maxContinuedPages = 3

// continued is page pi's segments followed by those of the next pages, each set under the
// one before it (its Y shifted by the heights of the pages above): a table that a page
// break cuts goes on at the top of the next page without its header, and its rows there are
// read in the columns of the header above. A following page stops where a quantity header
// of its own starts (a table that repeats its header is read from that header) and the
// pages after it are not added.
func continued(l *layout, pi int, head *lazyre.Regexp) []segment {
	segs := l.pages[pi]
	offset := 0.0
	for next := pi + 1; next < len(l.pages) && next <= pi+maxContinuedPages; next++ {
		if len(l.pages[next]) > maxStackSegments {
			break
		}
		if next-1 < len(l.height) {
			offset += l.height[next-1]
		}
		if offset <= 0 {
			break // no page height to set the pages one under the other
		}
		if len(segs) == len(l.pages[pi]) {
			segs = slices.Clone(segs)
		}
		header := false
		for _, s := range l.pages[next] {
			if head.MatchString(s.text) {
				header = true
				break
			}
			s.Y0 += offset
			s.Y1 += offset
			segs = append(segs, s)
		}
		if header {
			break
		}
	}
	return segs
}

// readTable reads the table whose quantity header is segs[q]: the rows whose figures fit,
// and every row with a quantity, an amount and a name. byPosition: segs[q] heads the
// positions' numbers instead, a table without quantity or price: each row starts at the
// next number (1, 2, 3 …) and is one of its amount.
func readTable(segs []segment, q int, comma, byPosition bool) (fitting, all []Item, adjust []decimal.Decimal) {
	head := segs[q]
	h := head.h()
	qty := column{head.X0, head.X1, true}
	// Header cells set close together share a segment ("Quantity Unit Unit price VAT
	// [%]"): its words are read as cells too, the quantity's column the first word's.
	var headCells []segment
	if len(head.words) > 1 {
		w := head.words[0]
		qty = column{w.X0, w.X1, true}
		for k, w := range head.words[1:] {
			c := segment{Box: w.Box, text: w.Text}
			if next := head.words[min(k+2, len(head.words)-1)]; k+2 < len(head.words) && unitHeadRE.MatchString(w.Text) && priceHeadRE.MatchString(next.Text) {
				// "Unit price": one cell.
				c.text += " " + next.Text
				c.X1 = next.X1
			}
			headCells = append(headCells, c)
		}
	}
	var price, amount, desc column
	var priceBottom, amountBottom, descBottom float64
	priceDist, descDist := math.Inf(1), math.Inf(1)
	// The header's other cells: on the quantity's row or the rows just over or under it.
	// Of the price's the one nearest the quantity's row: the first row may stand as close
	// under the header as its second line, and its name may say "price" too ("Grundpreis").
	for _, s := range append(slices.Clip(segs), headCells...) {
		if s.Y1 < head.Y0-2*h || s.Y0 > head.Y1+2*h || s.X0 == head.X0 && s.Y0 == head.Y0 {
			continue
		}
		switch {
		case amountHeadRE.MatchString(s.text) && !unitHeadRE.MatchString(s.text):
			if !amount.ok || s.X0 > amount.x0 {
				amount = column{s.X0, s.X1, true}
			}
			amountBottom = max(amountBottom, s.Y1)
		case priceHeadRE.MatchString(s.text):
			if d := math.Abs(s.Y0 - head.Y0); d < priceDist {
				price, priceBottom, priceDist = column{s.X0, s.X1, true}, s.Y1, d
			}
		case descHeadRE.MatchString(s.text):
			// The one nearest the quantity's row: a sentence over the table ("Für die
			// nachfolgend aufgeführten Leistungen …") is no header cell.
			if d := math.Abs(s.Y0 - head.Y0); d < descDist {
				desc, descBottom, descDist = column{s.X0, s.X1, true}, s.Y1, d
			}
		}
	}
	if byPosition && (!amount.ok || !desc.ok || amount.x0 <= desc.x0) {
		return nil, nil, nil
	}
	if !byPosition && (!price.ok || !amount.ok || price.x0 >= amount.x0) {
		return nil, nil, nil
	}
	bottom := max(head.Y1, priceBottom, amountBottom, descBottom)
	// The rows: each starts at a quantity in its column, down to the table's end.
	var anchors []int
	first := 0 // byPosition: the first row's number
	end := math.Inf(1)
	for j := q + 1; j < len(segs); j++ {
		s := segs[j]
		if s.Y0 < bottom-0.3*h {
			continue
		}
		// A header's cells may run over several lines ("Positions- / betrag / ohne / USt."):
		// a sum or tax word before the first row, under a figure column's header, is one of
		// them, not the table's end.
		inHeader := len(anchors) == 0 && (s.Y0 <= head.Y1+2*h || amount.over(s) > 0 || price.over(s) > 0)
		if tableEndRE.MatchString(s.text) && !qty.holds(s) && !inHeader {
			end = s.Y0
			break
		}
		if byPosition {
			if n, ok := position(s.text); ok && qty.holds(s) && !desc.holds(s) && !amount.holds(s) && (len(anchors) == 0 || n == first+len(anchors)) {
				if len(anchors) == 0 {
					first = n
				}
				anchors = append(anchors, j)
			}
			continue
		}
		if qty.holds(s) && (!price.holds(s) || qty.over(s) > price.over(s)) && !amount.holds(s) && quantityCell(s.text) {
			anchors = append(anchors, j)
			if len(anchors) > maxTableRows {
				return nil, nil, nil
			}
		}
	}
	if len(anchors) > 0 {
		adjust = adjustments(segs, anchors[len(anchors)-1], end, qty, amount, comma)
	}
	for k, a := range anchors {
		row := segs[a]
		to := min(end, row.Y1+3*row.h())
		if k+1 < len(anchors) {
			to = min(to, segs[anchors[k+1]].Y0-0.3*row.h())
		}
		from := row.Y0 - 0.5*row.h()
		qv, _, ok := parseNumber(leadNumberRE.FindString(row.text), comma)
		if byPosition {
			qv, ok = decimal.NewFromInt(1), true // no quantity printed: one of its amount
		}
		if !ok || qv.IsZero() {
			continue
		}
		// Of the figures in a column's band the one most under its header: a header cell
		// run together with its neighbour's ("VAT % Line Amount") covers two columns.
		var pv, av *decimal.Decimal
		var pOver, aOver float64
		var pRow, aRow bool // the figure stands on the row's own line
		// better: a figure on the row's line before one under it (a sum under the last
		// row, a price's discount and net price under it), then the one most under the
		// header.
		better := func(onRow bool, o float64, haveRow bool, haveOver float64, have *decimal.Decimal) bool {
			return have == nil || onRow && !haveRow || onRow == haveRow && o > haveOver
		}
		name := ""
		// nameCell: s is a cell of the description column with letters. A name may reach
		// into the price column's slack ("Privathaftpflicht" ending a few points right of
		// where "Nettopreis" starts): it is the description's when more of it stands under
		// that header than under a figure's. A label ending in its colon ("Unsere
		// Art.-Nr.:", "GTIN:") heads a code under it, not the name; an allowance's line
		// under the row ("Remise pourcentage E -10,00 %") is none either.
		nameCell := func(s segment, letters int) bool {
			return desc.holds(s) && hasLetters(s.text, letters) && !strings.HasSuffix(strings.TrimSpace(s.text), ":") && desc.over(s) > max(price.over(s), amount.over(s)) && !adjustmentRE.MatchString(s.text)
		}
		for _, s := range segs {
			if s.Y0 < from || s.Y0 >= to {
				continue
			}
			switch {
			case amount.holds(s) || price.holds(s):
				// The segment as a whole, or each of its words ("60,00 10,00%": an amount
				// and the rate column beside it).
				cells := []segment{s}
				if len(s.words) > 1 {
					for _, w := range s.words {
						cells = append(cells, segment{Box: w.Box, text: w.Text})
					}
				}
				for _, c := range cells {
					v, ok := cellNumber(c.text, comma)
					if !ok {
						continue
					}
					onRow := sameRow(row.Box, c.Box)
					if o := amount.over(c); amount.holds(c) && better(onRow, o, aRow, aOver, av) {
						av, aOver, aRow = &v, o, onRow
					} else if o := price.over(c); price.holds(c) && better(onRow, o, pRow, pOver, pv) {
						pv, pOver, pRow = &v, o, onRow
					}
				}
			}
			if name == "" && nameCell(s, 3) {
				name = description(s.text)
			}
		}
		if name == "" && desc.ok {
			// A name under its codes' lines ("GTIN:", the number, "Unsere Art.-Nr.:", the
			// article number, then "Trennblätter A4"): the description column further down,
			// to the next row.
			further := min(end, row.Y1+7*row.h())
			if k+1 < len(anchors) {
				further = min(further, segs[anchors[k+1]].Y0-0.3*row.h())
			}
			for _, s := range segs {
				if s.Y0 >= to && s.Y0 < further && (adjustmentRE.MatchString(s.text) || tableEndRE.MatchString(s.text)) {
					break // the table's allowances or sums under its last row: no name
				}
				if s.Y0 >= to && s.Y0 < further && nameCell(s, 4) {
					if name = description(s.text); name != "" {
						break
					}
				}
			}
		}
		if name == "" {
			// No description column: the row's first cell of words.
			for _, s := range segs {
				if sameRow(row.Box, s.Box) && !qty.holds(s) && !price.holds(s) && !amount.holds(s) && hasLetters(s.text, 3) {
					name = description(s.text)
					break
				}
			}
		}
		if av == nil || name == "" {
			continue
		}
		it := Item{Description: name, Quantity: einvoice.NewDecimal(qv), Total: money(*av)}
		if pv != nil {
			it.UnitPrice = einvoice.NewDecimal(*pv)
		}
		all = append(all, it)
		// The columns say which figure is which, and the lines count only when they add
		// up to the printed line total (setLines).
		if pv != nil {
			if _, ok := priceBase(qv, *pv, *av); ok {
				fitting = append(fitting, it)
			}
		}
	}
	return fitting, all, adjust
}

// position reads a position number ("3", "3.") up to 999; a table numbers its rows one
// after the other.
func position(s string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(s), "."))
	return n, err == nil && n > 0 && n < 1000
}

// maxAdjustGap is the widest gap, in row heights, between the lines under a table's last
// row down to its allowances and charges: further down stands another part of the page.
const maxAdjustGap = 8

// adjustments reads the document allowances and charges under a table's last row (segs[last])
// and above its end: a label of one (adjustmentRE) outside the quantity and amount
// columns, its figure in the amount column on its row; allowances negative, charges
// positive, whatever sign is printed.
func adjustments(segs []segment, last int, end float64, qty, amount column, comma bool) []decimal.Decimal {
	var out []decimal.Decimal
	prev := segs[last]
	for j := last + 1; j < len(segs) && segs[j].Y0 < end && len(out) < maxTableRows; j++ {
		s := segs[j]
		if s.Y0-prev.Y1 > maxAdjustGap*prev.h() {
			break
		}
		prev = s
		m := adjustmentRE.FindStringSubmatch(s.text)
		if m == nil || qty.holds(s) || amount.holds(s) {
			continue
		}
		var v *decimal.Decimal
		best := 0.0
		for _, t := range segs {
			if !sameRow(s.Box, t.Box) || !amount.holds(t) {
				continue
			}
			for _, w := range t.words {
				c := segment{Box: w.Box, text: w.Text}
				if n, ok := cellNumber(c.text, comma); ok && amount.holds(c) && (v == nil || amount.over(c) > best) {
					v, best = &n, amount.over(c)
				}
			}
		}
		if v == nil {
			continue
		}
		if a := v.Abs(); m[1] != "" {
			out = append(out, a.Neg())
		} else {
			out = append(out, a)
		}
	}
	return out
}

// quantityCell: the cell starts with a figure that is no percentage ("5,00% sur 100,00
// EUR" in the quantity's column is a document allowance's rate and base under the table,
// not a row).
func quantityCell(s string) bool {
	lead := leadNumberRE.FindString(s)
	digits := strings.IndexAny(lead+",", ".,") // an article or EAN number is no quantity
	return lead != "" && digits <= 7 && !strings.HasPrefix(strings.TrimSpace(s[len(lead):]), "%")
}

// cellNumber reads a table cell that is one figure, perhaps with its currency.
func cellNumber(s string, comma bool) (decimal.Decimal, bool) {
	s = strings.TrimSpace(s)
	for _, c := range []string{"€", "EUR", "USD", "$", "£", "CHF"} {
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s, c), c))
	}
	re := pointNumberRE
	if comma {
		re = commaNumberRE
		s = joinSpaceGroups(s)
	}
	if m := re.FindString(s); m == "" || m != s {
		return decimal.Decimal{}, false
	}
	v, _, ok := parseNumber(s, comma)
	return v, ok
}
