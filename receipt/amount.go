package receipt

import (
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/internal/lazyre"
)

// amount is a money figure found in a line.
type amount struct {
	v          decimal.Decimal
	start, end int
}

// An amount has two decimals after a comma or point. OCR often puts a space beside the
// separator ("7, 16"); German receipts group thousands with points ("1.234,56"), English
// invoices with commas ("2,280.00"), Swiss ones with apostrophes ("1'234.50").
var amountRE = lazyre.New(`(-?)(\d{1,3}(?:\.\d{3})+|\d{1,3}(?:,\d{3})+|\d{1,3}(?:['’]\d{3})+|\d{1,7})\s?([.,])\s?(\d{2})`)

// groupMarks are the thousands' separators amountRE reads in a figure's integer part.
var groupMarks = strings.NewReplacer(".", "", ",", "", "'", "", "’", "")

// spaceGroupedRE is a figure that groups its thousands with spaces before a decimal comma
// ("2 166,87 €", as French invoices print it), standing alone in its cell: at the line's
// start or after a label's colon or a wide gap, and followed by its currency, a wide gap or
// the line's end. Within a cell only: OCR's single-spaced text of a row ("5 166,00": a
// quantity, then a price) reads as two figures.
var spaceGroupedRE = lazyre.New(`(?:^|\s{2}|:\s?)(-?\d{1,3}(?: \d{3})+,\d{2})(?:\s?(?:€|EUR))?(?:\s{2}|$)`)

// joinSpaceGroups writes the thousands spaces of spaceGroupedRE's figures as points, which
// amountRE reads as groups; the line keeps its length, so positions stay those of the line.
func joinSpaceGroups(line string) string { return joinGroups(line, spaceGroupedRE) }

// joinGroups writes as points the spaces in the first group of re's matches: the one way a
// figure grouped by spaces is read, whatever says where such a figure stands.
func joinGroups(line string, re *lazyre.Regexp) string {
	ms := re.FindAllStringSubmatchIndex(line, -1)
	if ms == nil {
		return line
	}
	b := []byte(line)
	for _, m := range ms {
		for i := m[2]; i < m[3]; i++ {
			if b[i] == ' ' {
				b[i] = '.'
			}
		}
	}
	return string(b)
}

// forintRE is a whole amount of forints, as Hungarian tills print them without decimals,
// their thousands grouped by a space or a point or not at all ("ÖSSZESEN: 1 056 Ft",
// "3761Ft"); the sign is a word of its own ("Kft", a legal form, is none).
var forintRE = lazyre.New(`(?i)(?:^|[^\d.,])(-?)(\d{1,3}(?:[ .]\d{3})+|\d{1,7})\s?ft\b`)

// amounts finds the money figures of a line, leaving out dates (02.03.20), times, and parts
// of longer numbers.
func amounts(line string) (out []amount) {
	line = joinSpaceGroups(line)
	defer func() {
		// Forints after the figures with decimals, in the line's order.
		for _, m := range forintRE.FindAllStringSubmatchIndex(line, -1) {
			start := m[4]
			if m[3] > m[2] {
				start = m[2]
			}
			if slices.ContainsFunc(out, func(a amount) bool { return a.start < m[1] && start < a.end }) {
				continue
			}
			v, err := decimal.NewFromString(strings.NewReplacer(" ", "", ".", "").Replace(line[m[4]:m[5]]))
			if err != nil {
				continue
			}
			if m[3] > m[2] {
				v = v.Neg()
			}
			out = append(out, amount{v: v, start: start, end: m[5]})
		}
		slices.SortStableFunc(out, func(a, b amount) int { return a.start - b.start })
	}()
	for _, m := range amountRE.FindAllStringSubmatchIndex(line, -1) {
		start, end := m[0], m[1]
		if start > 0 {
			if c := line[start-1]; isDigit(c) || c == '.' || c == ',' {
				continue
			}
		}
		if end < len(line) {
			c := line[end]
			if isDigit(c) {
				continue
			}
			if (c == '.' || c == ',' || c == ':') && end+1 < len(line) && isDigit(line[end+1]) {
				continue
			}
		}
		intPart := groupMarks.Replace(line[m[4]:m[5]])
		if len(intPart) > 1 && intPart[0] == '0' {
			continue // 02.03 is part of a date
		}
		if sep := line[m[6]:m[7]]; strings.Contains(line[m[4]:m[5]], sep) {
			continue // 1.234.56 and 1,234,56 are no amounts
		}
		v, err := decimal.NewFromString(intPart + "." + line[m[8]:m[9]])
		if err != nil {
			continue
		}
		if line[m[2]:m[3]] == "-" {
			v = v.Neg()
		}
		out = append(out, amount{v: v, start: start, end: end})
	}
	return out
}

// printed is the set of amounts (absolute, two decimals) a text shows: the evidence a
// language model's figures are held against.
func printed(text string) map[string]bool {
	in := map[string]bool{}
	for l := range strings.SplitSeq(text, "\n") {
		for _, a := range amounts(l) {
			in[a.v.Abs().StringFixed(2)] = true
		}
	}
	return in
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// last is the last amount of a line, if any.
func last(as []amount) (decimal.Decimal, bool) {
	if len(as) == 0 {
		return decimal.Decimal{}, false
	}
	return as[len(as)-1].v, true
}
