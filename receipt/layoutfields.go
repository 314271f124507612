package receipt

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/internal/lazyre"
)

// Labels read by position (layout.labelled): the value right of the label or under it.
// German, English and French, as invoicing programs print them.
var (
	numberLabelRE = lazyre.New(`(?i)^(?:rechnung\s*:|rechnungs?[-\s]?(?:nummer|nr\.?)|rechnung\s+(?:nr\.?|#|nummer)|gutschrifts?[-\s]?(?:nummer|nr\.?)|beleg[-\s]?(?:nummer|nr\.?)|invoice\s+(?:no\.?|number|nr\.?|#)|credit\s+note\s+(?:no\.?|number)|facture\s+n[°ºo]\.?|avoir\s+n[°ºo]\.?|n[°ºo]\s+(?:de\s+)?facture|num[ée]ro\s+de\s+facture)`)
	// A title with the number after it on the same line: "Invoice 103767", "Avoir AV-2017-0005".
	// Spanish, Italian, Portuguese, Dutch and Nordic titles too, as Odoo prints them in its
	// users' languages ("Factura INV/2024/00001"); a sequence's prefix may hold a colon
	// ("Rechnung RE.:/2021/0002").
	titleNumberRE = lazyre.New(`^(?:Invoice|INVOICE|Rechnung|RECHNUNG|Gutschrift|GUTSCHRIFT|Facture|FACTURE|Avoir|AVOIR|Credit Note|CREDIT NOTE|Factura|FACTURA|Fattura|FATTURA|Fatura|FATURA|Factuur|FACTUUR|Faktura|FAKTURA)\s+([A-Z0-9][A-Za-z0-9/._:-]{1,34})$`)
	// A title, a few words, then the number's label: "Gutschrift (Selbst ausgestellte
	// Rechnung) Nr.", "Rechnung des Versicherers Nr.", "SELBSTABRECHNUNG (389) Nr.".
	titleNrRE     = lazyre.New(`(?i)^(?:\pL*rechnung|gutschrift|selbstabrechnung|invoice|credit\s+note|facture|avoir)\b[^:]{0,45}?\s(?:nr\.?|no\.?|n[°ºo]|#)\s*:?\s*`)
	datePrepRE    = lazyre.New(`(?i)^(?:vom|von|du|dated|of)\s+`)
	numberValueRE = lazyre.New(`^([A-Za-z0-9][A-Za-z0-9/._-]{0,34})$`)
	// Labels of the invoice's date, the specific before the generic: "Datum" alone may be
	// a print date, "Rechnungsdatum" is the invoice's.
	// A date label naming the delivery too ("Liefer- und Rechnungsdatum") is the invoice's.
	issueLabelRE  = lazyre.New(`(?i)^(?:(?:liefer|leistungs)-?\s*(?:und|/|&)\s*rechnungsdatum|rechnungs-?\s*(?:und|/|&)\s*(?:liefer|leistungs)datum|rechnungsdatum|datum\s+der\s+rechnung|belegdatum|ausstellungsdatum|ausgestellt\s+am|invoice\s+date|date\s+of\s+(?:issue|invoice)|issue\s+date|date\s+issued|issued\s+on|date\s+(?:de\s+(?:la\s+)?)?facture|date\s+d'[ée]mission|[ée]mise?\s+le|fecha\s+(?:de\s+(?:la\s+)?)?factura|fecha\s+de\s+(?:emisi[óo]n|expedici[óo]n)|data\s+(?:della\s+)?fattura|data\s+(?:de\s+)?emiss[ãa]o|factuurdatum|fakturadatum|data\s+wystawienia)`)
	cityDateRE    = lazyre.New(`^\pL[\pL .-]+,\s+(?:den|le)$`)
	genericDateRE = lazyre.New(`(?i)^(?:datum|date)`)
	monthDateRE   = lazyre.New(`(?i)^(?:(\d{1,2})\.?\s+(\pL+)\.?\s+(\d{4})|(\pL+)\.?\s+(\d{1,2}),?\s+(\d{4}))$`)
	layoutIBANRE  = lazyre.New(`(?i)^iban`)
	// "Netto:" and "Brutto:" name the totals in a cell of their own only with their colon
	// (a breakdown table's headers say "Netto" and "Brutto" too); likewise "Rechnung:"
	// the number (Austrian templates).
	netLabelGeoRE   = lazyre.New(`(?i)^(?:` + netLabels + `|netto\s*:)`)
	vatLabelGeoRE   = lazyre.New(`(?i)^(?:\d{1,2}(?:[.,]\d{1,2})?\s?%\s+)?(?:steuerbetrag|umsatzsteuer(?:betrag)?|mehrwertsteuer|mwst\.?(?:-?betrag)?|ust\.?(?:-?betrag)?|summe\s+(?:ust|mwst|umsatzsteuer)|gesamt\s+(?:ust|mwst)|(?:total\s+)?vat(?:\s+(?:amount|total))?|total\s+tax(?:es)?|tax\s+amount|tax$|total\s+tva|tva|montant\s+(?:total\s+)?tva|taxes)`)
	grossLabelGeoRE = lazyre.New(`(?i)^(?:brutto\s*:|bruttosumme|bruttobetrag|gesamtbetrag|gesamtsumme|rechnungsbetrag|rechnungssumme|endbetrag|summe\s+brutto|total\s+(?:gross|incl\.?\s*vat|amount)|gross\s+(?:total|amount)|total\s+\S+\s+incl\.?\s*vat|grand\s+total|invoice\s+total|total\s*t\.?[ti]\.?c\.?|montant\s+(?:total\s+)?t\.?t\.?c\.?|(?:total|totale|gesamt|importe\s+total)\s*:?$)`)
	dueLabelGeoRE   = lazyre.New(`(?i)^(?:` + dueLabels + `)`)
	lineTotalGeoRE  = lazyre.New(`(?i)^(?:` + lineTotalLabels + `)\b`)
)

var monthNames = map[string]int{
	"january": 1, "february": 2, "march": 3, "april": 4, "may": 5, "june": 6, "july": 7, "august": 8, "september": 9, "october": 10, "november": 11, "december": 12,
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
	"januar": 1, "februar": 2, "märz": 3, "mär": 3, "mrz": 3, "mai": 5, "juni": 6, "juli": 7, "okt": 10, "oktober": 10, "dez": 12, "dezember": 12,
	"janvier": 1, "février": 2, "mars": 3, "avril": 4, "juin": 6, "juillet": 7, "août": 8, "septembre": 9, "octobre": 10, "novembre": 11, "décembre": 12,
}

// layoutDate reads a date cell: 17.11.2024, 17/11/2024, 2024-11-17, "February 17, 2026",
// "17. Februar 2026", "16 novembre 2017".
func layoutDate(s string) string {
	s = strings.TrimSpace(s)
	if m := monthDateRE.FindStringSubmatch(s); m != nil {
		day, month, year := m[1], m[2], m[3]
		if day == "" {
			day, month, year = m[5], m[4], m[6]
		}
		if mo, ok := monthNames[strings.ToLower(month)]; ok {
			if d, ok := mkDate(day, itoa2(mo), year); ok {
				return d.Format(time.DateOnly)
			}
		}
		return ""
	}
	if len(s) > 12 {
		return ""
	}
	return string(dateOf(s))
}

func itoa2(n int) string { return string([]byte{byte('0' + n/10), byte('0' + n%10)}) }

// layoutNumber reads a number cell: its first token, when it has a digit in it.
func layoutNumber(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	s = f[0] // "RE-20171118/506 von 18.11.2017": the number, then its date
	if !numberValueRE.MatchString(s) || !strings.ContainsAny(s, "0123456789") {
		return ""
	}
	return strings.TrimRight(s, ".-_/")
}

// layoutAmount reads an amount cell: one amount, perhaps with its currency.
func layoutAmount(s string) string {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "€"), "€"))
	for _, c := range []string{"EUR", "USD", "GBP", "CHF"} {
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s, c), c))
	}
	if !amountOnly(s) {
		return ""
	}
	a := amounts(s)
	return a[0].v.String()
}

// layoutIBAN reads an IBAN cell, spaces and all, when its check digits fit, as printed or
// with OCR's confusable characters corrected (correctIBAN).
func layoutIBAN(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(strings.TrimLeft(s, ": ")), " ", "")
	if u := strings.ToUpper(s); validIBAN(u) {
		return u
	}
	return correctIBAN(s)
}

// shapedIBAN reads a cell that is an IBAN by its form alone: country, two digits, the
// account; its check digits are not tested.
func shapedIBAN(s string) string {
	s = strings.TrimSpace(strings.TrimLeft(s, ": "))
	if m := ibanRE.FindString(s); m != "" && m == s {
		return strings.ReplaceAll(m, " ", "")
	}
	return ""
}

// refineByLayout corrects the text lines' reading of an invoice by the layout: the parties
// by their address blocks, the number and the dates by their labels' positions, the IBAN
// under its label, and the totals where the labelled cells agree (net + VAT = gross) and
// the text lines' totals do not. (The line table by its columns: layoutLines.)
func refineByLayout(inv *einvoice.Invoice, text string, l *layout) {
	if l == nil || len(l.pages) == 0 {
		return
	}
	before := inv.Seller.Name
	g := layoutParties(l, text)
	if g.buyer != nil && !g.buyerStrong && g.seller != nil && g.buyer.box.X1 < g.seller.box.X0 && inColumn(l, inv.Buyer.Name, g.seller) {
		// The text lines' buyer is a line of the seller's column: two columns run together
		// row by row ("Theodor Est  phone (555) 23 78 -0"), the buyer's read from the wrong
		// one. The block left of the seller's is the buyer's.
		g.buyerStrong = true
	}
	g.apply(inv)
	if id := vatIDUnder(l, g.buyer); id != "" && strings.EqualFold(inv.Seller.VATID, id) {
		// The first VAT id of the text is the one under the buyer's address: the buyer's.
		// The seller's is another one, if the pages print it.
		inv.Buyer.VATID = id
		inv.Seller.VATID, _ = vatIDsByParty(splitLines(text), id)
	}
	for i := range inv.Payment.CreditTransfers {
		if ct := &inv.Payment.CreditTransfers[i]; ct.AccountName == before {
			ct.AccountName = inv.Seller.Name // the account holder named after the seller read
		}
	}
	all := strings.Join(splitLines(text), "\n")
	titleNo, titleDate := titleNumberDate(l)
	if titleNo == "" && titleDate == "" {
		titleNo, titleDate = titleStack(l)
	}
	if !invNumberRE.MatchString(all) {
		if vs := l.labelled(numberLabelRE, layoutNumber, 1); len(vs) > 0 {
			inv.Number = vs[0]
		} else if titleNo != "" {
			inv.Number = titleNo
		} else if n := titleNumber(l); n != "" {
			inv.Number = n
		}
	}
	if vs := l.labelled(issueLabelRE, layoutDate, 1); len(vs) > 0 {
		inv.IssueDate = einvoice.Date(vs[0])
	} else if titleDate != "" {
		inv.IssueDate = einvoice.Date(titleDate)
	} else if vs := l.labelled(cityDateRE, layoutDate, 1); len(vs) > 0 {
		inv.IssueDate = einvoice.Date(vs[0])
	} else if inv.IssueDate == "" {
		if vs := l.labelled(genericDateRE, layoutDate, 1); len(vs) > 0 {
			inv.IssueDate = einvoice.Date(vs[0])
		} else if d := firstMonthDate(l); d != "" {
			inv.IssueDate = einvoice.Date(d)
		}
	}
	if len(inv.Payment.CreditTransfers) == 0 {
		vs := l.labelled(layoutIBANRE, layoutIBAN, 1)
		if len(vs) == 0 {
			// None whose check digits fit: a cell of an IBAN's shape under or beside its
			// label (a sample's made-up account, a misread digit), returned as uncertain
			// (fields: the check digits do not match), not as missing.
			vs = l.labelled(layoutIBANRE, shapedIBAN, 1)
		}
		if len(vs) > 0 {
			inv.Payment = einvoice.Payment{MeansCode: "58", CreditTransfers: []einvoice.CreditTransfer{{AccountID: vs[0], AccountName: inv.Seller.Name}}}
		}
	}
	layoutTotals(inv, l)
}

// vatIDUnder is the VAT id printed in b's column just under its address (within a few
// lines), "" when there is none.
func vatIDUnder(l *layout, b *addrBlock) string {
	if b == nil || b.page >= len(l.pages) {
		return ""
	}
	h := b.box.Y1 - b.box.Y0
	for _, s := range l.pages[b.page] {
		if s.Y0 < b.box.Y1 || s.Y0 > b.box.Y1+max(h, 80) || math.Abs(s.X0-b.box.X0) > 4 {
			continue
		}
		if cells := cellSepRE.Split(s.text, -1); len(cells) > 0 && notVATLabelRE.MatchString(cells[0]) {
			continue
		}
		if m := vatIDRE.FindString(s.text); m != "" {
			return strings.NewReplacer(" ", "", "-", "").Replace(m)
		}
	}
	return ""
}

// inColumn: name is a segment of b's page that stands in b's column (overlaps its width)
// and under its top.
func inColumn(l *layout, name string, b *addrBlock) bool {
	if strings.TrimSpace(name) == "" || b.page >= len(l.pages) {
		return false
	}
	for _, s := range l.pages[b.page] {
		if s.Y0 >= b.box.Y0 && overlapX(s.Box, b.box) && sameName(s.text, name) {
			return true
		}
	}
	return false
}

// titleNumberDate reads a title that names the document's kind, then its number and date:
// "Gutschrift (Selbst ausgestellte Rechnung) Nr. 471102" over "vom 05.03.2018", "Rechnung
// des Versicherers Nr. 01.234.567.8-2018-1 vom" over "06.12.2018". The date may follow the
// number on its line or stand on the line under the title.
func titleNumberDate(l *layout) (number, date string) {
	for _, segs := range l.pages[:min(2, len(l.pages))] {
		for i, s := range segs {
			m := titleNrRE.FindStringSubmatchIndex(s.text)
			if m == nil {
				continue
			}
			rest := strings.Fields(s.text[m[1]:])
			if len(rest) == 0 {
				continue
			}
			if number = layoutNumber(rest[0]); number == "" {
				continue
			}
			after := strings.Join(rest[1:], " ")
			if d := layoutDate(datePrepRE.ReplaceAllString(after, "")); d != "" {
				return number, d
			}
			if after == "" {
				// The date in a cell of its own on the title's row: "FACTURE n° 2200566 … du
				// 19-07-2022".
				for j := i + 1; j < len(segs) && j < i+maxLineSegments; j++ {
					if t := segs[j]; sameRow(s.Box, t.Box) && datePrepRE.MatchString(t.text) {
						if d := layoutDate(datePrepRE.ReplaceAllString(t.text, "")); d != "" {
							return number, d
						}
					}
				}
			}
			if after == "" || datePrepRE.MatchString(after+" ") {
				for j := i + 1; j < len(segs) && segs[j].Y0-s.Y1 < 2*s.h(); j++ {
					if overlapX(s.Box, segs[j].Box) && !sameRow(s.Box, segs[j].Box) {
						return number, layoutDate(datePrepRE.ReplaceAllString(segs[j].text, ""))
					}
				}
			}
			return number, ""
		}
	}
	return "", ""
}

// titleWordRE is a title alone in its cell; stackNumberRE a number's short label before
// its value ("nº 2023-6013", "No. 4711"; OCR reads the ring of "N°" as an apostrophe).
var (
	titleWordRE   = lazyre.New(`(?i)^(?:facture|rechnung|invoice|gutschrift|avoir|credit\s+note|factura|fattura)$`)
	stackNumberRE = lazyre.New(`(?i)^(?:n[°º’']|no\.|nr\.|#)\s*`)
)

// titleStack reads the cells stacked under a title that stands alone ("FACTURE" over
// "20/09/2023" over "nº 2023-6013", as French letterheads set them at the top right): a
// number after its short label and a bare date.
func titleStack(l *layout) (number, date string) {
	if len(l.pages) == 0 {
		return "", ""
	}
	segs := l.pages[0]
	for i, s := range segs {
		if !titleWordRE.MatchString(strings.TrimSpace(s.text)) {
			continue
		}
		for j := i + 1; j < len(segs) && segs[j].Y0-s.Y1 < 4*s.h(); j++ {
			t := segs[j]
			if t.Y0 < s.Y1-0.3*s.h() || !overlapX(s.Box, t.Box) && math.Abs(t.X1-s.X1) > 20 {
				continue
			}
			if m := stackNumberRE.FindString(t.text); m != "" && number == "" {
				number = layoutNumber(strings.TrimLeft(t.text[len(m):], "°º’'*. ")) // OCR may read the ring twice ("N’ ° AV-2025-00045")
			} else if d := layoutDate(t.text); d != "" && date == "" {
				date = d
			}
		}
		if number != "" || date != "" {
			return number, date
		}
	}
	return "", ""
}

// titleNumber is the number a title carries on its line: "Invoice 103767".
func titleNumber(l *layout) string {
	for _, s := range l.pages[0] {
		if n := numberInTitle(s.text); n != "" {
			return n
		}
	}
	return ""
}

// numberInTitle is the number of a title line ("INVOICE INV-2025-1175"), "" when the line
// is none or its word has no digit.
func numberInTitle(s string) string {
	if m := titleNumberRE.FindStringSubmatch(s); m != nil && strings.ContainsAny(m[1], "0123456789") {
		return strings.TrimRight(m[1], ".-_/:")
	}
	return ""
}

// firstMonthDate is the first date with its month in words on the first page: an invoice
// that prints its date without a label prints it so, under its title.
func firstMonthDate(l *layout) string {
	for _, s := range l.pages[0] {
		if d := layoutDate(s.text); d != "" && monthDateRE.MatchString(s.text) {
			return d
		}
	}
	return ""
}

// layoutTotals takes the labelled totals by position where they agree (net + VAT = gross)
// and the text lines' do not.
// addsThousands: cell is the text lines' figure, or that figure with the thousands OCR
// parted from it in front ("1 440,00" read as 440,00).
func addsThousands(lines einvoice.Decimal, cell decimal.Decimal) bool {
	v := lines.Value()
	d := cell.Sub(v)
	return d.IsZero() || v.Sign() >= 0 && v.LessThan(decimal.NewFromInt(1000)) && d.Sign() > 0 && d.Mod(decimal.NewFromInt(1000)).IsZero()
}

func layoutTotals(inv *einvoice.Invoice, l *layout) {
	t := &inv.Totals
	tol := decimal.New(2, -2)
	read := func(re *lazyre.Regexp) []decimal.Decimal {
		var out []decimal.Decimal
		for _, v := range l.labelled(re, layoutAmount, 20) {
			if d, err := decimal.NewFromString(v); err == nil {
				out = append(out, d)
			}
		}
		return out
	}
	// The amount due by its cell: the layout knows where the figure ends, OCR's text lines
	// do not ("NET À PAYER 2 166,87 €" read as 166,87 there).
	dues := read(dueLabelGeoRE)
	if len(dues) > 0 {
		t.AmountDue = money(dues[len(dues)-1])
	}
	found := totalsFound{net: read(netLabelGeoRE), vat: read(vatLabelGeoRE), gross: read(grossLabelGeoRE), due: dues}
	if len(found.net) == 0 {
		// No net labelled: the line total stands for it where it makes the gross with the
		// VAT (no allowance or charge between; the agreement below decides).
		found.net = read(lineTotalGeoRE)
	}
	agree := func(net, vat, gross *decimal.Decimal) bool {
		return net != nil && vat != nil && gross != nil && net.Add(*vat).Sub(*gross).Abs().LessThanOrEqual(tol)
	}
	if t.NetTotal.Valid() && t.VATTotal.Valid() && t.GrossTotal.Valid() && t.NetTotal.Value().Add(t.VATTotal.Value()).Sub(t.GrossTotal.Value()).Abs().LessThanOrEqual(tol) {
		// The text lines' totals agree; but OCR's lines part "1 440,00" into 1 and 440,00,
		// and 440,00 + 253,20 = 693,20 agree as well as the whole figures do. The cells
		// know where a figure starts: where theirs agree and only add whole thousands to
		// the lines' figures, they are the figures.
		n, v, g, _ := found.choose()
		if agree(n, v, g) && addsThousands(t.NetTotal, *n) && addsThousands(t.VATTotal, *v) && addsThousands(t.GrossTotal, *g) {
			t.NetTotal, t.VATTotal, t.GrossTotal = money(*n), money(*v), money(*g)
			if t.AmountDue.Valid() && addsThousands(t.AmountDue, *g) {
				t.AmountDue = money(*g)
			}
		}
		return
	}
	net, vat, gross, _ := found.choose()
	if !agree(net, vat, gross) && len(found.due) > 0 {
		// Where no labelled total agrees, the amount due stands for it ("Net total",
		// "VAT total", "Due payable"): without a prepayment the two are one figure.
		withDue := found
		withDue.gross = append(slices.Clone(found.gross), found.due...)
		if n, v, g, _ := withDue.choose(); agree(n, v, g) {
			net, vat, gross = n, v, g
		}
	}
	if !agree(net, vat, gross) {
		// A credit note's figures agree as magnitudes (totalsFound.creditNote), the text
		// lines' gross standing for a cell OCR misread (its minus read as a quote mark).
		withText := found
		if t.GrossTotal.Valid() {
			withText.gross = append(slices.Clone(found.gross), t.GrossTotal.Value())
		}
		var ok bool
		if net, vat, gross, ok = found.creditNote(); !ok {
			if net, vat, gross, ok = withText.creditNote(); !ok {
				return
			}
		}
		if t.AmountDue.Valid() && t.AmountDue.Value().Equal(gross.Abs()) {
			t.AmountDue = money(*gross)
		}
	}
	t.NetTotal, t.VATTotal, t.GrossTotal = money(*net), money(*vat), money(*gross)
}
