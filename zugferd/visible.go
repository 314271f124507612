package zugferd

import (
	"github.com/papierkram/papierkram/internal/lazyre"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"golang.org/x/text/unicode/norm"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/rules"
)

// Bounds of the page text Visible looks at: an invoice's first pages say everything it
// checks, and hostile text must not make the regular expressions below run for long.
const (
	maxVisibleText = 256 << 10 // bytes of page text, all pages together: ten dense pages are 50 KB
	maxLineRunes   = 2000      // a longer line is cut: no label and its amount are further apart
	// labelReach is how many lines below a label its amount may stand: in a table the
	// labels head the columns and the figures follow on the next line.
	labelReach = 2
	// shown bounds the values a failed result quotes from the page.
	shown = 3
	// maxLabelled bounds the figures kept for the message of a failed amount check.
	maxLabelled = 64
)

// Visible compares what the pages of a hybrid invoice show with its XML: the invoice
// number (BT-1), issue date (BT-2), seller (BT-27) and buyer (BT-44) names, grand total
// (BT-112), amount due (BT-115), currency (BT-5) and each credit transfer account (BT-84).
// Each field the XML has gets one warning, passed when the page shows the value in any
// of the ways invoices print it. pages is the text of each page, as pdftotext or OCR
// reads it. Visible is pure: it does not read a PDF.
//
// The German tax administration lets the XML prevail when the two disagree; these
// warnings tell a user that they do.
func Visible(inv *einvoice.Invoice, pages []string) []rules.Result {
	if inv == nil {
		return nil
	}
	p := readPage(pages)
	var out []rules.Result
	add := func(id, bt, field string, ok bool, xmlValue, page string) {
		msg := "The page shows the " + field + " " + xmlValue + " of the XML."
		if !ok {
			msg = "The " + field + " differs between the XML and the page: the XML says " + xmlValue + ", " + page + ". The XML prevails."
		}
		out = append(out, rules.Result{ID: id, Severity: rules.Warning, Passed: ok, Message: msg, Location: bt})
	}

	if n := strings.TrimSpace(inv.Number); n != "" {
		add("FX-VISIBLE-NUMBER", "BT-1", "invoice number", p.hasNumber(n), quote(n), p.describeNumber())
	}
	if d, ok := parseISO(string(inv.IssueDate)); ok {
		add("FX-VISIBLE-DATE", "BT-2", "issue date", p.dates[d] != nil, string(inv.IssueDate), p.describeDates())
	}
	if n := strings.TrimSpace(inv.Seller.Name); n != "" {
		add("FX-VISIBLE-SELLER", "BT-27", "seller name", p.hasName(n), quote(n), "the page does not show it")
	}
	if n := strings.TrimSpace(inv.Buyer.Name); n != "" {
		add("FX-VISIBLE-BUYER", "BT-44", "buyer name", p.hasName(n), quote(n), "the page does not show it")
	}
	total, due := inv.Totals.GrossTotal, inv.Totals.AmountDue
	same := total.Valid() && due.Valid() && total.Value().Abs().Equal(due.Value().Abs())
	if total.Valid() {
		labels := totalLabels
		if same {
			labels = append(slices.Clip(totalLabels), dueLabels...)
		}
		ok, page := p.hasAmount(total.Value(), labels, strongTotal)
		add("FX-VISIBLE-TOTAL", "BT-112", "grand total", ok, total.String(), page)
	}
	if due.Valid() {
		labels := dueLabels
		if same {
			labels = append(slices.Clip(dueLabels), totalLabels...)
		}
		ok, page := p.hasAmount(due.Value(), labels, strongDue)
		add("FX-VISIBLE-DUE", "BT-115", "amount due", ok, due.String(), page)
	}
	if c := strings.ToUpper(strings.TrimSpace(inv.Currency)); c != "" {
		add("FX-VISIBLE-CURRENCY", "BT-5", "currency", p.hasCurrency(c), c, p.describeCurrencies())
	}
	for i, ct := range inv.Payment.CreditTransfers {
		id := strings.TrimSpace(ct.AccountID)
		if id == "" {
			continue
		}
		where := "BT-84"
		if len(inv.Payment.CreditTransfers) > 1 {
			where = "BT-84 (BG-17 #" + strconv.Itoa(i+1) + ")"
		}
		add("FX-VISIBLE-IBAN", where, "payment account", p.hasAccount(id), id, p.describeIBANs())
	}
	return out
}

func quote(s string) string { return strconv.Quote(s) }

// page is the text of all pages, folded: lower case, without accents, ligatures split.
type page struct {
	lines   []string
	text    string // the lines joined by newlines
	compact string // letters and digits only
	amounts [][]amount
	dates   map[string][]string // ISO date → as printed
	order   []string            // the dates in the order printed
}

// amount is a number printed on a line, with the values it may stand for.
type amount struct {
	at     int // byte offset in its line
	text   string
	values []decimal.Decimal
}

func readPage(pages []string) *page {
	var b strings.Builder
	for _, s := range pages {
		if b.Len()+len(s) > maxVisibleText {
			s = s[:max(0, maxVisibleText-b.Len())]
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	p := &page{dates: map[string][]string{}}
	for line := range strings.SplitSeq(fold(b.String()), "\n") {
		line = strings.TrimRight(line, " \t\r\f\v")
		if r := []rune(line); len(r) > maxLineRunes {
			line = string(r[:maxLineRunes])
		}
		p.lines = append(p.lines, line)
		p.amounts = append(p.amounts, amounts(line))
	}
	p.text = strings.Join(p.lines, "\n")
	p.compact = alnum(p.text)
	p.findDates()
	return p
}

// fold lower-cases s, takes the accents off its letters, splits ligatures and turns the
// many spaces and dashes of typesetting into plain ones, so that the page and the XML
// compare as they read.
func fold(s string) string {
	s = strings.ToValidUTF8(s, " ")
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFKD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r == 'ß':
			b.WriteString("ss")
		case r == 'ø':
			b.WriteRune('o')
		case r == 'æ':
			b.WriteString("ae")
		case r == 'œ':
			b.WriteString("oe")
		case r == '\u2212' || r == '\u2010' || r == '\u2011' || r == '\u2013' || r == '\u2014':
			b.WriteRune('-')
		case r == '\u2019' || r == '\u2018':
			b.WriteRune('\'')
		case r == '\t' || r == '\u00a0' || r == '\u202f' || r == '\u2009' || r == '\u2007' || r == '\f' || r == '\v':
			b.WriteRune(' ')
		case r == '\r':
			b.WriteRune('\n')
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// alnum keeps the letters and digits of folded text: what survives a line break, a
// hyphenation, letter spacing or punctuation.
func alnum(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isWord(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// containsWord reports whether w occurs in s with no letter or digit right before or after.
func containsWord(s, w string) bool {
	if w == "" {
		return false
	}
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		before, after := ' ', ' '
		if j > 0 {
			before = lastRune(s[:j])
		}
		if e := j + len(w); e < len(s) {
			after = firstRune(s[e:])
		}
		if !(isWord(before) && isWord(firstRune(w))) && !(isWord(after) && isWord(lastRune(w))) {
			return true
		}
		i = j + 1
	}
}

func firstRune(s string) rune {
	if s == "" {
		return ' '
	}
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

func lastRune(s string) rune {
	if s == "" {
		return ' '
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return r
}

// --- the invoice number

// numberLabels introduce an invoice number; what follows one is quoted when the number
// is not found.
var numberLabels = []string{
	"rechnungsnummer", "rechnungs-nr", "rechnung nr", "rechnungsnr", "gutschriftsnummer", "gutschrift nr", "belegnummer", "beleg-nr",
	"invoice number", "invoice no", "invoice #", "credit note number", "credit note no", "numero de facture", "facture n", "facture no", "nr.", "no.", "n°",
}

func (p *page) hasNumber(n string) bool {
	f := strings.TrimSpace(fold(n))
	if containsWord(p.text, f) {
		return true
	}
	// A number printed with spaces or broken over a line, in a letter-spaced font, or
	// with its separators left out.
	c := alnum(f)
	return len(c) >= 5 && c != f && strings.Contains(p.compact, c)
}

var afterLabelRE = lazyre.New(`^[\s.:#°]*([\p{L}\p{N}][\p{L}\p{N}/._-]*)`)

func (p *page) describeNumber() string {
	for _, l := range numberLabels {
		for i, line := range p.lines {
			j := strings.Index(line, l)
			if j < 0 {
				continue
			}
			rest := line[j+len(l):]
			if strings.TrimSpace(strings.Trim(rest, ":.# ")) == "" && i+1 < len(p.lines) {
				rest = p.lines[i+1]
			}
			if m := afterLabelRE.FindStringSubmatch(rest); m != nil && strings.ContainsAny(m[1], "0123456789") {
				return "the page shows " + quote(m[1]) + " after " + quote(strings.TrimSpace(l))
			}
		}
	}
	return "the page does not show it"
}

// --- names

// legalForms are left out of a name when it is not found whole: the page may print
// "Lieferant GmbH" as "LIEFERANT" in a letterhead, or the XML may leave the form out.
var legalForms = map[string]bool{
	"gmbh": true, "mbh": true, "ag": true, "kg": true, "kgaa": true, "ohg": true, "gbr": true, "ug": true, "haftungsbeschrankt": true,
	"ek": true, "e": true, "k": true, "v": true, "ev": true, "eg": true, "se": true, "co": true, "und": true, "&": true,
	"ltd": true, "limited": true, "inc": true, "llc": true, "plc": true, "corp": true, "bv": true, "nv": true,
	"sa": true, "sas": true, "sarl": true, "sasu": true, "eurl": true, "sci": true, "srl": true, "spa": true, "gesmbh": true,
}

func (p *page) hasName(n string) bool {
	f := fold(n)
	c := alnum(f)
	if c == "" {
		return true
	}
	if len(c) < 4 {
		return containsWord(p.text, strings.TrimSpace(f))
	}
	if strings.Contains(p.compact, c) {
		return true
	}
	var core []string
	for w := range strings.FieldsFuncSeq(f, func(r rune) bool { return !isWord(r) && r != '&' }) {
		if !legalForms[w] {
			core = append(core, alnum(w))
		}
	}
	if c := strings.Join(core, ""); len(c) >= 4 && strings.Contains(p.compact, c) {
		return true
	}
	// Every word of the name on the page, in whatever order the letterhead sets them.
	words := 0
	for _, w := range core {
		if len(w) < 3 {
			continue
		}
		if !strings.Contains(p.compact, w) {
			return false
		}
		words++
	}
	return words >= 2
}

// --- amounts

// Labels of the figures: totalLabels of the grand total (BT-112), dueLabels of the amount
// due (BT-115), in de, en and fr, folded, most specific first (the first label found with
// an amount is the one a failed result quotes).
var (
	totalLabels = []string{
		"gesamtbetrag", "rechnungsbetrag", "bruttobetrag", "rechnungssumme", "gesamtsumme", "bruttosumme", "summe brutto", "endbetrag", "endsumme",
		"gutschriftsbetrag", "grand total", "invoice total", "total amount", "total ttc", "montant ttc", "total gross", "gross total", "total",
		"brutto", "summe", "gesamt", "ttc",
	}
	// strongTotal and strongDue name only the one figure: an amount printed right after
	// one ("Gesamtbetrag: 119,00 €") that differs is a contradiction even when the value
	// is printed elsewhere too, as when the total was changed and the amount due not.
	strongTotal = []string{"gesamtbetrag", "rechnungsbetrag", "bruttobetrag", "bruttosumme", "summe brutto", "endbetrag", "grand total", "invoice total", "total ttc", "montant ttc", "gross total", "total gross"}
	strongDue   = []string{"zahlbetrag", "zahlungsbetrag", "zu zahlen", "zu zahlender betrag", "amount due", "balance due", "total due", "net a payer"}
	dueLabels   = []string{
		"zahlbetrag", "zahlungsbetrag", "zu zahlen", "zu zahlender betrag", "falliger betrag", "offener betrag", "restbetrag", "zu erstatten", "auszahlungsbetrag",
		"amount due", "balance due", "amount payable", "total due", "due amount", "to pay", "net a payer", "montant du", "reste a payer", "a payer", "solde",
	}
)

// amountsRE finds a number as invoices print them: digit groups joined by the separators
// of de, en, fr and ch, with at most single spaces between groups.
var amountRE = lazyre.New(`\d(?:[\d.,']|[ ]\d)*`)

// amounts lists the numbers on a line with what each may mean.
func amounts(line string) []amount {
	var out []amount
	for _, m := range amountRE.FindAllStringIndex(line, -1) {
		s := line[m[0]:m[1]]
		for strings.ContainsAny(s[len(s)-1:], ".,'") {
			s = s[:len(s)-1]
		}
		// A part of a date, a time or an identifier is no amount.
		if m[0] > 0 && isWord(lastRune(line[:m[0]])) {
			continue
		}
		if e := m[0] + len(s); e < len(line) && unicode.IsLetter(firstRune(line[e:])) && !strings.HasPrefix(line[e:], "eur") {
			continue
		}
		var values []decimal.Decimal
		values = append(values, amountValues(strings.ReplaceAll(s, " ", ""), strings.Contains(s, " "))...)
		if strings.Contains(s, " ") {
			// "2 119,00" may be a quantity and an amount, or two thousand and more.
			for part := range strings.SplitSeq(s, " ") {
				values = append(values, amountValues(part, false)...)
			}
		}
		if len(values) > 0 {
			out = append(out, amount{at: m[0], text: strings.TrimSpace(s), values: values})
		}
	}
	return out
}

// amountValues reads one number without spaces; spaced says its digit groups were spaced
// apart, which only thousands are.
func amountValues(s string, spaced bool) []decimal.Decimal {
	if s == "" || len(s) > 30 {
		return nil
	}
	seps := strings.FieldsFunc(s, func(r rune) bool { return r >= '0' && r <= '9' })
	groups := strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' })
	if len(groups) != len(seps)+1 {
		return nil // two separators in a row
	}
	val := func(intPart []string, frac string) []decimal.Decimal {
		for i, g := range intPart {
			if i > 0 && len(g) != 3 {
				return nil
			}
		}
		t := strings.Join(intPart, "")
		if frac != "" {
			t += "." + frac
		}
		d, err := decimal.NewFromString(t)
		if err != nil {
			return nil
		}
		return []decimal.Decimal{d}
	}
	n := len(seps)
	if n == 0 {
		return val(groups, "")
	}
	for _, sp := range seps {
		if len(sp) != 1 {
			return nil
		}
	}
	last := seps[n-1]
	for _, sp := range seps[:n-1] {
		if sp != seps[0] {
			return nil
		}
	}
	lastGroup := groups[n]
	switch {
	case last == "'" || n > 1 && seps[0] == last:
		return val(groups, "") // thousands only: 1.234.567, 1'234
	case n == 1 && len(lastGroup) == 3 && len(groups[0]) <= 3 && !spaced:
		// 1,234 or 1.234: a thousand and more, or a bit over one.
		return append(val(groups[:1], lastGroup), val(groups, "")...)
	case len(lastGroup) > 4:
		return nil
	default:
		return val(groups[:n], lastGroup)
	}
}

// directRE is what may stand between a label and its figure: punctuation, a currency,
// a word that the figure includes tax.
var directRE = lazyre.New(`^[\s:.()\[\]€$£/*=-]*(?:(?:eur|usd|chf|gbp|brutto|inkl|incl|mwst|ust|vat|tva|ttc|in)[\s:.()\[\]€$£/*=-]*)*$`)

// hasAmount tells whether the page shows v (as an absolute value: credit notes print
// positive what the XML has negative, and the other way round): right after one of the
// strong labels if one has a figure there; else next to one of labels (on its line or a
// little below); when no label on the page has an amount, anywhere. When not, page says
// what the page shows instead.
func (p *page) hasAmount(v decimal.Decimal, labels, strong []string) (ok bool, page string) {
	v = v.Abs()
	matches := func(a amount) bool {
		for _, x := range a.values {
			if x.Abs().Equal(v) {
				return true
			}
		}
		return false
	}
	// First the figures printed right after a label that names this figure alone.
	var contradicted []string
	for _, l := range strong {
		for i, line := range p.lines {
			for at := 0; ; {
				j := strings.Index(line[at:], l)
				if j < 0 {
					break
				}
				at = j + at + len(l)
				for _, a := range p.amounts[i] {
					if a.at < at {
						continue
					}
					if directRE.MatchString(line[at:a.at]) {
						if matches(a) {
							return true, ""
						}
						if part := quote(a.text) + " next to " + quote(l); !slices.Contains(contradicted, part) {
							contradicted = append(contradicted, part)
						}
					}
					break
				}
			}
		}
	}
	if len(contradicted) > 0 {
		return false, "the page shows " + strings.Join(contradicted[:min(len(contradicted), shown)], ", ")
	}
	type seen struct{ label, text string }
	var labelled []seen
	for _, l := range labels {
		for i, line := range p.lines {
			for at := 0; ; {
				j := strings.Index(line[at:], l)
				if j < 0 {
					break
				}
				j += at
				at = j + len(l)
				// A short label is a word of its own: not the "total" of "subtotal" nor
				// the "brutto" of "Bruttopreis". A long one may be part of a compound
				// ("Rechnungsgesamtbetrag").
				if len(l) < 8 && (j > 0 && isWord(lastRune(line[:j])) || isWord(firstRune(line[at:]))) {
					continue
				}
				for k := i; k <= min(i+labelReach, len(p.lines)-1); k++ {
					for _, a := range p.amounts[k] {
						if k == i && a.at < at {
							continue
						}
						if matches(a) {
							return true, ""
						}
						if len(labelled) < maxLabelled {
							labelled = append(labelled, seen{l, a.text})
						}
					}
				}
				// A later occurrence on this line sees a part of what this one saw.
				break
			}
		}
	}
	if len(labelled) == 0 {
		for _, line := range p.amounts {
			for _, a := range line {
				if matches(a) {
					return true, ""
				}
			}
		}
		return false, "the page does not show it"
	}
	var parts []string
	for _, s := range labelled {
		part := quote(s.text) + " next to " + quote(s.label)
		if !slices.Contains(parts, part) {
			parts = append(parts, part)
		}
		if len(parts) == shown {
			break
		}
	}
	return false, "the page shows " + strings.Join(parts, ", ")
}

// --- dates

var (
	months = map[string]int{
		"januar": 1, "janner": 1, "january": 1, "janvier": 1, "jan": 1, "janv": 1,
		"februar": 2, "feber": 2, "february": 2, "fevrier": 2, "feb": 2, "febr": 2, "fev": 2, "fevr": 2,
		"marz": 3, "maerz": 3, "march": 3, "mars": 3, "mar": 3, "mrz": 3,
		"april": 4, "avril": 4, "apr": 4, "avr": 4,
		"mai": 5, "may": 5,
		"juni": 6, "june": 6, "juin": 6, "jun": 6,
		"juli": 7, "july": 7, "juillet": 7, "jul": 7, "juil": 7,
		"august": 8, "aout": 8, "aug": 8,
		"september": 9, "septembre": 9, "sep": 9, "sept": 9,
		"oktober": 10, "october": 10, "octobre": 10, "okt": 10, "oct": 10,
		"november": 11, "novembre": 11, "nov": 11,
		"dezember": 12, "december": 12, "decembre": 12, "dez": 12, "dec": 12,
	}
	monthAlt = func() string {
		names := make([]string, 0, len(months))
		for m := range months {
			names = append(names, m)
		}
		// Longest first, so that "juillet" is not read as "juil".
		slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) })
		return strings.Join(names, "|")
	}()
	isoRE       = lazyre.New(`\b(\d{4})-(\d{1,2})-(\d{1,2})\b`)
	numericRE   = lazyre.New(`\b(\d{1,2}) ?([./-]) ?(\d{1,2}) ?[./-] ?(\d{4}|\d{2})\b`)
	dayMonthRE  = lazyre.New(`\b(\d{1,2})(?:er|st|nd|rd|th)?\.? ?(` + monthAlt + `)\b\.?,? ?(\d{4})\b`)
	monthDayRE  = lazyre.New(`\b(` + monthAlt + `)\b\.? ?(\d{1,2})(?:st|nd|rd|th)?,? (\d{4})\b`)
	compactDate = lazyre.New(`\b(\d{4})(\d{2})(\d{2})\b`)
)

func parseISO(s string) (string, bool) {
	m := isoRE.FindStringSubmatch(s)
	if m == nil || m[0] != s {
		return "", false
	}
	return isoDate(m[1], m[2], m[3])
}

func isoDate(y, m, d string) (string, bool) {
	year, _ := strconv.Atoi(y)
	if len(y) == 2 {
		year += 2000
		if year >= 2070 {
			year -= 100
		}
	}
	month, _ := strconv.Atoi(m)
	day, _ := strconv.Atoi(d)
	if year < 1900 || year > 2199 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return "", false
	}
	return strconv.Itoa(year) + "-" + pad(month) + "-" + pad(day), true
}

func pad(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// findDates reads every date on the page in the forms invoices print them.
func (p *page) findDates() {
	addDate := func(raw, y, m, d string) {
		if iso, ok := isoDate(y, m, d); ok {
			if p.dates[iso] == nil {
				p.order = append(p.order, iso)
			}
			p.dates[iso] = append(p.dates[iso], raw)
		}
	}
	// Line by line: a date is not broken over lines, and the expressions stay linear.
	for _, line := range p.lines {
		for _, m := range isoRE.FindAllStringSubmatch(line, -1) {
			addDate(m[0], m[1], m[2], m[3])
		}
		for _, m := range numericRE.FindAllStringSubmatch(line, -1) {
			addDate(m[0], m[4], m[3], m[1])
			if m[2] == "/" { // 11/23/2026, as the US write
				addDate(m[0], m[4], m[1], m[3])
			}
		}
		for _, m := range dayMonthRE.FindAllStringSubmatch(line, -1) {
			addDate(m[0], m[3], strconv.Itoa(months[m[2]]), m[1])
		}
		for _, m := range monthDayRE.FindAllStringSubmatch(line, -1) {
			addDate(m[0], m[3], strconv.Itoa(months[m[1]]), m[2])
		}
		for _, m := range compactDate.FindAllStringSubmatch(line, -1) {
			addDate(m[0], m[1], m[2], m[3])
		}
	}
}

func (p *page) describeDates() string {
	if len(p.order) == 0 {
		return "the page shows no date"
	}
	var parts []string
	for _, iso := range p.order[:min(len(p.order), shown)] {
		parts = append(parts, quote(p.dates[iso][0]))
	}
	return "the page shows the dates " + strings.Join(parts, ", ")
}

// --- currency

// currencySigns are the symbols and names that stand for a currency besides its code.
var currencySigns = map[string][]string{
	"EUR": {"€", "euro"},
	"USD": {"$", "us$", "dollar"},
	"GBP": {"£", "pound", "sterling"},
	"CHF": {"fr.", "sfr", "franken"},
	"JPY": {"¥", "yen"},
	"CNY": {"¥", "元", "yuan", "rmb"},
	"INR": {"₹", "rupee"},
	"SEK": {"kr"},
	"NOK": {"kr"},
	"DKK": {"kr"},
	"PLN": {"zł", "zl", "zloty"},
	"CZK": {"kč", "kc"},
	"HUF": {"ft", "forint"},
	"CAD": {"$", "c$"},
	"AUD": {"$", "a$"},
}

func (p *page) hasCurrency(code string) bool {
	if containsWord(p.text, strings.ToLower(code)) {
		return true
	}
	for _, s := range currencySigns[code] {
		if f := fold(s); isWord(firstRune(f)) && containsWord(p.text, f) || !isWord(firstRune(f)) && strings.Contains(p.text, f) {
			return true
		}
	}
	return false
}

func (p *page) describeCurrencies() string {
	var found []string
	codes := make([]string, 0, len(currencySigns))
	for c := range currencySigns {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	for _, c := range codes {
		if p.hasCurrency(c) {
			found = append(found, c)
		}
	}
	if len(found) == 0 {
		return "the page does not show it"
	}
	return "the page shows " + strings.Join(found, ", ")
}

// --- accounts

var ibanRE = lazyre.New(`\b[a-z]{2}\d{2}(?: ?[a-z0-9]{4}){2,7}(?: ?[a-z0-9]{1,3})?\b`)

func (p *page) hasAccount(id string) bool {
	c := alnum(fold(id))
	return c != "" && strings.Contains(p.compact, c)
}

func (p *page) describeIBANs() string {
	var found []string
	for _, line := range p.lines {
		for _, m := range ibanRE.FindAllString(line, -1) {
			if s := strings.ToUpper(m); !slices.Contains(found, s) && len(found) < shown {
				found = append(found, s)
			}
		}
	}
	if len(found) == 0 {
		return "the page does not show it"
	}
	return "the page shows " + strings.Join(found, ", ")
}
