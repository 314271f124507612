package receipt

import (
	"cmp"
	"context"
	"image"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/engine/tesseract"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/lazyre"
	"github.com/papierkram/papierkram/zugferd"
)

// InvoiceResult is an invoice read from a PDF or a photo: the ExtractionResult of
// /api/xrechnung/extract.
type InvoiceResult struct {
	Invoice          *einvoice.Invoice       `json:"invoice" doc:"InvoiceData, ready for /api/xrechnung/generate and /api/zugferd/embed once the missing fields are filled in."`
	MissingFields    []einvoice.MissingField `json:"missingFields" doc:"Business terms an XRechnung needs that the document did not show."`
	Fields           []einvoice.Reading      `json:"fields" doc:"How each field found was read: its source and confidence."`
	Uncertain        []einvoice.Reading      `json:"uncertainFields" doc:"The fields found but not certain (failed a cross-check, such as net + VAT = gross, or read with confidence under 0.6), with the reason: check these before generating."`
	AIExtractionUsed bool                    `json:"aiExtractionUsed" doc:"Whether a language model's answer went into the invoice; false when only the embedded XML, the PDF's text or OCR was read."`
	Source           string                  `json:"source" enum:"EMBEDDED_XML,PDF_TEXT,OCR,LLM" doc:"Where the data comes from; EMBEDDED_XML is exact (a ZUGFeRD, Factur-X or XRechnung PDF)."`
	LLM              LLMInfo                 `json:"llm"`
	Text             string                  `json:"text,omitempty" doc:"The text that was read (not for EMBEDDED_XML)."`
	PagesNotRead     []int                   `json:"pagesNotRead,omitempty" doc:"Pages (from 1) of a scan of several pages that were not read because the request's time limit was near: what they show (line items, totals) is missing. Every page is read when time allows, the last right after the first."`
	DurationMs       int64                   `json:"durationMs"`
}

// Invoice reads an invoice: the XML a ZUGFeRD/Factur-X/XRechnung PDF carries (exact), else
// the PDF's text or the OCR of a scan or photo, read by the rules (and the language model,
// when configured).
func (e *Extractor) Invoice(ctx context.Context, data []byte) (*InvoiceResult, error) {
	start := time.Now()
	kind, err := Sniff(data)
	if err != nil {
		return nil, err
	}
	if kind == KindPDF {
		if doc, _, err := zugferd.Extract(ctx, data); err == nil && doc != nil {
			if inv, _, err := syntax.Read(ctx, doc.XML); err == nil {
				res := &InvoiceResult{Invoice: inv, MissingFields: Missing(inv), Source: "EMBEDDED_XML"}
				invoiceReadings(res, res.Source, e.now(), nil)
				res.DurationMs = time.Since(start).Milliseconds()
				return res, nil
			}
		}
	}
	var (
		text, src = "", "OCR"
		image     []byte
		ocrWords  []poppler.LayoutPage // a scan's or photo's words with their boxes
		q         Quality
	)
	if kind == KindPDF {
		text, image, q, _, src, err = e.readPDFWords(ctx, data, &ocrWords, asPage)
	} else {
		text, image, q, _, err = e.readImageWords(ctx, data, 0, &ocrWords, asPage)
	}
	if err != nil {
		return nil, err
	}
	// The layout: a text PDF's word boxes from poppler, a scan's from Tesseract.
	var lay *layout
	if src == "PDF_TEXT" {
		if lay = e.readLayout(ctx, data); lay != nil {
			text = lay.mendSplitWords(text)
		}
	} else if len(ocrWords) > 0 {
		lay = newLayout(ocrWords)
	}
	inv := parseInvoice(text, e.now(), lay)
	if src == "OCR" && inv.Number == "" && image != nil {
		inv.Number = e.rereadTitle(ctx, image)
	}
	res := &InvoiceResult{Invoice: inv, Source: src, Text: text, PagesNotRead: q.PagesNotRead}
	var before map[string]string
	if e.Model != nil {
		// The rules' values, completed as the answer will be, to tell the model's apart.
		rules := *inv
		complete(&rules)
		before = values(invoiceFields(&rules, text, e.now()))
		e.askInvoice(ctx, res, image)
	}
	complete(inv)
	res.MissingFields = Missing(inv)
	if !res.LLM.Used {
		before = nil
	}
	invoiceReadings(res, src, e.now(), before)
	res.DurationMs = time.Since(start).Milliseconds()
	if inv.Number == "" && !inv.Totals.GrossTotal.Valid() && inv.Seller.Name == "" {
		return res, fault.New(fault.ExtractionFailed, "no invoice data found in the file")
	}
	return res, nil
}

// speck: a line of at most four characters with fewer than two letters, what OCR makes of a
// speck, a rule's remains or the edge of a shaded row.
func speck(l string) bool {
	l = strings.TrimSpace(l)
	return len([]rune(l)) <= 4 && !hasLetters(l, 2)
}

// rereadTitle reads the top of a scanned page again, as a column of text of varying sizes
// (Tesseract's mode 4), for the invoice's number: read as one uniform block, the page lost
// a title set much larger than its text ("INVOICE INV-2025-1175"), and with it the number.
func (e *Extractor) rereadTitle(ctx context.Context, page []byte) string {
	g, err := decodeImage(page)
	if err != nil {
		return ""
	}
	png, err := encodePNG(crop(g, image.Rect(0, 0, g.Rect.Dx(), g.Rect.Dy()*2/5)))
	if err != nil {
		return ""
	}
	p, err := e.OCR.Read(ctx, png, tesseract.Options{PSM: 4})
	if err != nil {
		return ""
	}
	if n := parseInvoice(p.Text, e.now(), nil).Number; n != "" {
		return n
	}
	for _, l := range strings.Split(p.Text, "\n") {
		if n := numberInTitle(strings.TrimSpace(l)); n != "" {
			return n
		}
	}
	return ""
}

// webAddressRE is a web or mail address, or a line that holds one.
var webAddressRE = lazyre.New(`(?i)https?://|^\s*www\.|@`)

// numberFirstStreetRE is a street with its number first, as French, British and American
// addresses write it ("1 rue du Client", "27, Rue de Bassano", "10 Tech Park Avenue").
var numberFirstStreetRE = lazyre.New(`^\d{1,4}[a-zA-Z]?,?\s+\pL[\pL'’.-]*\s+\pL`)

var (
	// "Rechnung (380) Nr. 471102 vom 15.11.2024" too, as the standard's viewers print it
	// ("Rechnung # RE-20171118/506 von 18.11.2017" as GnuAccounting does), and
	// their titles of other types: "Gutschrift (Selbst ausgestellte Rechnung) (389) Nr. …".
	invNumberRE = lazyre.New(`(?i)(?:(?:rechnungs?|gutschrifts?|korrektur|storno)[-\s]?(?:nummer|nr\.?)|(?:rechnung|gutschrift|rechnungskorrektur)\s+(?:\(\d{3}\)\s*)?(?:nr\.?|#)|\(\d{3}\)\s*nr\.?|(?:invoice|credit\s+note)\s+(?:no\b\.?|number|#)|(?:facture|avoir)\s+n(?:[°º]|o\b\.?))\s*[:#]?\s*([A-Z0-9][A-Z0-9/._-]{1,34})(?:\s+(?:vo[mn]|du|dated)\s+(\d{1,2}[./-]\s?\d{1,2}[./-]\s?\d{4}))?`)
	issueRE     = lazyre.New(`(?i)(?:rechnungsdatum|invoice date|datum|date)\s*:?\s*(\d{1,2}\.\s?\d{1,2}\.\s?\d{2,4}|\d{4}-\d{2}-\d{2}|\d{1,2}\.?\s+\pL{3,9}\.?\s+\d{4})`)
	dueRE       = lazyre.New(`(?i)(?:zahlbar bis(?: zum)?|fällig (?:am|bis)|due (?:date|by)|zahlungsziel)\s*:?\s*(\d{1,2}\.\s?\d{1,2}\.\s?\d{2,4}|\d{4}-\d{2}-\d{2})`)
	leitwegRE   = lazyre.New(`\b(\d{2,12}(?:-[0-9A-Za-z]{1,30})?-\d{2})\b`)
	// An IBAN as OCR may misread it: the check digits and the account's digits may be
	// letters that look like them (O, o, I, l, S, B).
	ibanLooseRE = lazyre.New(`\b([A-Z]{2}[0-9OoIlSB]{2}(?:\s?[A-Z0-9ol]{4}){2,7}(?:\s?[A-Z0-9ol]{1,3})?)\b`)
	ibanRE      = lazyre.New(`\b([A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){2,7}(?:\s?[A-Z0-9]{1,3})?)\b`)
	bicRE       = lazyre.New(`(?i)\b(?:bic|swift)(?:-code)?\s*:?\s*([A-Z]{6}[A-Z0-9]{2}(?:[A-Z0-9]{3})?)\b`)
	emailRE     = lazyre.New(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)
	netRE       = lazyre.New(`(?i)nettobetrag|summe netto|netto\s?summe|gesamt netto|zwischensumme|total net|net total|subtotal|rechnungsbetrag netto`)
	vatTotalRE  = lazyre.New(`(?i)(?:mwst|ust|umsatzsteuer|mehrwertsteuer|vat)\b`)
	lineTotalRE = lazyre.New(`^\s*(?:` + lineTotalLabels + `)\b`)
	termsRE     = lazyre.New(`(?i)(zahlbar|zahlungsziel|payment terms|innerhalb von \d+ tagen|ohne abzug)[^\n]{0,120}`)
)

// otherColumnLabelRE is the label of an invoice's own field after a name on one line.
var otherColumnLabelRE = lazyre.New(`(?i)\s(?:rechnungs?-?\s?(?:nr\.?|nummer)|kunden-?\s?(?:nr\.?|nummer)|rechnungsdatum|datum|invoice\s+(?:no\.?|number|date)|date|seite|page|bestell-?\s?nr\.?|auftrags-?\s?nr\.?|n°\s+facture)(?:\s|:|$).*$`)

// lineTotalLabels are the labels of the sum of the line amounts (BT-106), lower case.
const lineTotalLabels = `positionssumme|summe\s+(?:der\s+|aller\s+)?positionen|gesamtsumme\s+(?:der\s+|aller\s+)?positionen|summe\s+(?:der\s+)?nettobeträge|line\s+total|sub-?total\s*\(lines?|sum\s+of\s+(?:invoice\s+)?lines?|total\s+(?:of\s+)?lines|total\s+des\s+lignes`

// ParseInvoice reads an invoice's text into InvoiceData with the same rules as receipts,
// plus the terms of an invoice: number, dates, Leitweg-ID, the two parties, bank account.
func ParseInvoice(text string, now time.Time) *einvoice.Invoice {
	return parseInvoice(text, now, nil)
}

// parseInvoice is ParseInvoice with the document's layout, when there is one (a text PDF's
// word boxes): refineByLayout corrects what the text lines misread.
func parseInvoice(text string, now time.Time, lay *layout) *einvoice.Invoice {
	r, p := parse(text, now, asPage, nil)
	all := strings.Join(p.lines, "\n")
	inv := &einvoice.Invoice{TypeCode: "380", Currency: r.Data.Currency}
	if m := invNumberRE.FindStringSubmatch(all); m != nil {
		inv.Number = strings.TrimRight(m[1], ".-_/")
	} else {
		inv.Number = r.Data.Reference
	}
	inv.IssueDate = r.Data.Date
	for _, m := range issueRE.FindAllStringSubmatchIndex(all, -1) {
		// "Lieferdatum", "Leistungsdatum", "due date": a date label inside a longer word, or
		// after due, is another date than the invoice's.
		prev, _ := utf8.DecodeLastRuneInString(all[:m[0]])
		if m[0] > 0 && unicode.IsLetter(prev) || strings.EqualFold(all[max(0, m[0]-4):m[0]], "due ") {
			continue
		}
		if d := layoutDate(all[m[2]:m[3]]); d != "" { // "08.05.2019", "8. Mai 2019"
			inv.IssueDate = einvoice.Date(d)
			break
		}
	}
	if m := invNumberRE.FindStringSubmatch(all); m != nil && m[2] != "" {
		if d := dateOf(m[2]); d != "" {
			inv.IssueDate = d // "Nr. 471102 vom 15.11.2024", "n° 2200566 du 19-07-2022": the invoice's own date
		}
	}
	if m := dueRE.FindStringSubmatch(all); m != nil {
		inv.DueDate = dateOf(m[1])
	}
	if m := termsRE.FindString(all); m != "" {
		inv.PaymentTerms = strings.TrimSpace(m)
	}
	for _, m := range leitwegRE.FindAllStringSubmatch(all, -1) {
		if einvoice.CheckLeitwegID(m[1]) == nil {
			inv.BuyerReference = m[1]
			break
		}
	}
	// Parties: the seller's address is the first with a post code, the buyer's the next one.
	var addrs []einvoice.Address
	var names []string
	for i, l := range p.lines {
		m := postCode(l)
		if m == nil || i == 0 {
			continue
		}
		a := einvoice.Address{PostCode: m[1], City: strings.TrimSpace(m[2]), Country: "DE"}
		name := ""
		j := i - 1
		for j > 0 && speck(p.lines[j]) {
			j-- // OCR's reading of a speck or a shade's edge between the address's lines ("1 r")
		}
		if streetRE.MatchString(p.lines[j]) || numberFirstStreetRE.MatchString(p.lines[j]) {
			a.Line1 = strings.TrimSpace(p.lines[j])
			if j >= 1 {
				name = p.lines[j-1]
			}
		} else {
			name = p.lines[j]
		}
		if at := strings.Index(a.Line1, ", "); at < 0 && strings.Contains(l, ",") {
			// "Lieferant GmbH, Lieferantenstraße 20, 80333 München" on one line.
			// "Musterstrasse 44, 40789 Musterstadt": the street alone; the name stands above.
			parts := strings.Split(l[:strings.Index(l, m[0])], ",")
			switch street := strings.TrimSpace(parts[0]); {
			case len(parts) == 2 && (streetRE.MatchString(street) || numberFirstStreetRE.MatchString(street)):
				a.Line1 = street
			case len(parts) >= 2:
				name, a.Line1 = street, strings.TrimSpace(parts[len(parts)-2])
			}
		}
		addrs = append(addrs, a)
		names = append(names, strings.TrimSpace(name))
		if len(addrs) == 2 {
			break
		}
	}
	inv.Seller.Name = r.Issuer.Name
	if len(addrs) > 0 {
		inv.Seller.Address = addrs[0]
		if inv.Seller.Name == "" || r.Confidence.Issuer < 0.7 {
			inv.Seller.Name = names[0]
		}
	}
	if len(addrs) > 1 {
		inv.Buyer.Address, inv.Buyer.Name = addrs[1], names[1]
	}
	inv.Seller.VATID, inv.Seller.TaxNumber = r.Issuer.VATID, r.Issuer.TaxNumber
	inv.Buyer.VATID = p.buyerVATID
	inv.Seller.Contact.Phone = r.Issuer.Phone
	if m := emailRE.FindString(all); m != "" {
		inv.Seller.Contact.Email = m
	}
	// The parties' own blocks, where the document has them, say it best.
	seller, buyer := partyBlocks(strings.Split(text, "\n"))
	seller.apply(&inv.Seller)
	buyer.apply(&inv.Buyer)
	if inv.Buyer.Name == "" {
		inv.Buyer.Name = labelledBuyer(p.lines)
	}
	// An IBAN whose check digits fit; else one that OCR misread in a confusable character
	// (O for 0) and whose check digits fit once corrected; else one labelled IBAN, which the
	// readings then call uncertain (a digit misread, or a sample's made-up account).
	ibans := ibanRE.FindAllStringSubmatch(all, -1)
	slices.SortStableFunc(ibans, func(a, b []string) int {
		return cmp.Compare(ibanRank(b[1]), ibanRank(a[1]))
	})
	labelled := "" // a misread IBAN right after its label, none of whose readings fits
	if len(ibans) == 0 || ibanRank(ibans[0][1]) == 0 {
		// Only after the word IBAN on its line: a misread is corrected where the document
		// says an IBAN stands, not guessed from any code of an IBAN's shape (one in 97 of
		// them has fitting check digits).
		for _, m := range ibanLooseRE.FindAllStringSubmatchIndex(all, maxIBANCandidates) {
			line := all[strings.LastIndexByte(all[:m[2]], '\n')+1 : m[2]]
			if !strings.Contains(strings.ToUpper(line), "IBAN") {
				continue
			}
			if c := correctIBAN(all[m[2]:m[3]]); c != "" {
				ibans = slices.Insert(ibans, 0, []string{c, c})
				labelled = ""
				break
			}
			if labelled == "" && labelledIBAN(all[:m[3]], all[m[2]:m[3]]) {
				labelled = checkDigits(all[m[2]:m[3]])
			}
		}
		if labelled != "" && len(ibans) == 0 {
			// None whose check digits fit: the one right after the word IBAN, its check
			// digits read as digits, as the text of a PDF gives it (labelledIBAN; a
			// sample's made-up account, or a misread digit): uncertain, not missing.
			ibans = [][]string{{labelled, labelled}}
		}
	}
	for _, m := range ibans {
		if iban := strings.ReplaceAll(m[1], " ", ""); validIBAN(iban) || labelledIBAN(all, m[1]) || m[1] == labelled && labelled != "" {
			ct := einvoice.CreditTransfer{AccountID: iban, AccountName: inv.Seller.Name}
			if b := bicRE.FindStringSubmatch(all); b != nil {
				ct.ServiceProvider = strings.ToUpper(b[1])
			}
			inv.Payment = einvoice.Payment{MeansCode: "58", CreditTransfers: []einvoice.CreditTransfer{ct}}
			break
		}
	}
	// Totals: the receipt rules' total is the gross; net and VAT from their lines or the
	// breakdown.
	inv.Totals.GrossTotal = r.Data.Gross
	for i, l := range p.lines {
		as := amounts(l)
		if len(as) == 0 {
			continue
		}
		v := as[len(as)-1].v.Abs()
		switch {
		case netRE.MatchString(p.lower[i]) && !inv.Totals.NetTotal.Valid():
			inv.Totals.NetTotal = money(v)
		case vatTotalRE.MatchString(p.lower[i]) && !rateRE.MatchString(l) && !inv.Totals.VATTotal.Valid() && !strings.Contains(p.lower[i], "id"):
			inv.Totals.VATTotal = money(v)
		}
	}
	if !inv.Totals.NetTotal.Valid() && r.Data.Net.Valid() {
		inv.Totals.NetTotal, inv.Totals.VATTotal = r.Data.Net, r.Data.VAT
	}
	// Labelled totals, value beside or below the label, win where they agree (net + VAT =
	// gross) or where the lines above found nothing; the amount due is its own figure.
	found := labelledTotals(p.lines)
	net, vat, gross, due := found.choose()
	if due != nil {
		inv.Totals.AmountDue = money(*due)
	}
	if net != nil || gross != nil {
		agree := net != nil && vat != nil && gross != nil && net.Add(*vat).Sub(*gross).Abs().LessThanOrEqual(decimal.New(2, -2))
		if n, v, g, ok := found.creditNote(); !agree && ok {
			net, vat, gross, agree = n, v, g, true
		}
		set := func(d *einvoice.Decimal, v *decimal.Decimal) {
			if v != nil && (agree || !d.Valid()) {
				*d = money(*v)
			}
		}
		set(&inv.Totals.NetTotal, net)
		set(&inv.Totals.VATTotal, vat)
		set(&inv.Totals.GrossTotal, gross)
	}
	for _, l := range r.VAT {
		inv.VATBreakdown = append(inv.VATBreakdown, einvoice.VATBreakdown{TaxableAmount: l.Net, TaxAmount: l.VAT, Rate: l.Rate, Category: category(l.Rate.Value())})
	}
	if !inv.Totals.VATTotal.Valid() && len(inv.VATBreakdown) > 0 {
		sum := decimal.Zero
		for _, b := range inv.VATBreakdown {
			sum = sum.Add(b.TaxAmount.Value())
		}
		inv.Totals.VATTotal = money(sum)
	}
	refineByLayout(inv, text, lay)
	for _, party := range []*einvoice.Party{&inv.Seller, &inv.Buyer} {
		if webAddressRE.MatchString(party.Name) {
			party.Name = "" // a web or mail address names no party: missing, not wrong
		}
		if totalLine(party.Name) {
			party.Name = "" // "Untaxed Amount 1,000.000": a total's line, what was left when no address was found
		}
		if at := otherColumnLabelRE.FindStringIndex(party.Name); at != nil {
			// OCR's line runs the address into the next column's label and value
			// ("Klavierklang GmbH Rechnungs-Nr. 000073"): the name ends before it.
			party.Name = strings.TrimSpace(party.Name[:at[0]])
		}
	}
	// With allowances or charges on the document the lines sum to the printed line total
	// (BT-106, "Positionssumme"), not to the net.
	for i, l := range p.lines {
		if as := amounts(l); len(as) > 0 && lineTotalRE.MatchString(p.lower[i]) {
			inv.Totals.LineTotal = money(as[len(as)-1].v)
			break
		}
	}
	if t := &inv.Totals; !t.NetTotal.Valid() && t.LineTotal.Valid() && t.VATTotal.Valid() && t.GrossTotal.Valid() &&
		t.LineTotal.Value().Add(t.VATTotal.Value()).Sub(t.GrossTotal.Value()).Abs().LessThanOrEqual(decimal.New(1, -2)) {
		// No net printed, but the line total and the VAT make the gross: no allowance or
		// charge lies between, so the line total is the net ("Line Total", "Tax", "Grand Total").
		t.NetTotal = t.LineTotal
	}
	singleRate(inv, text)
	impliedRates(inv, p.lines)
	noVAT(inv, text)
	// Lines only when they are the net lines the net total sums up: a figure of another
	// kind would make a wrong invoice, a missing one only an incomplete one. The line table
	// (quantity × price = amount on every row) comes first, read from the text lines, then
	// by its columns in the layout; the receipt's item lines after.
	var columns, rows []Item
	var adjust []decimal.Decimal
	if lay != nil {
		columns, rows, adjust = layoutLines(lay, decimalComma(p.lines))
	}
	// The table's rows whose figures do not all fit come last: only their sum vouches for
	// them (bestLines).
	// A receipt's item lines have no quantity column to vouch for a line of zero: those are
	// the zero sums printed under a table ("Extra 0.00", "Rabatt 0.00"), not lines.
	paid := slices.DeleteFunc(slices.Clone(r.Items), func(it Item) bool { return it.Total.Value().IsZero() })
	readings := [][]Item{tableLines(p.lines, decimalComma(p.lines)), columns, rows, viewerLines(p.lines), paid}
	best := bestLines(inv, readings)
	if best == nil && !inv.Totals.LineTotal.Valid() && inv.Totals.NetTotal.Valid() && len(adjust) > 0 {
		// No line total printed, and allowances or charges under the table: the lines add
		// up to the net less them (EN 16931: net = line total - allowances + charges).
		net, allowances, charges := inv.Totals.NetTotal.Value(), decimal.Zero, decimal.Zero
		for _, a := range adjust {
			if a.Sign() < 0 {
				allowances = allowances.Sub(a)
			} else {
				charges = charges.Add(a)
			}
		}
		inv.Totals.LineTotal = money(net.Add(allowances).Sub(charges))
		if best = bestLines(inv, readings); best != nil {
			inv.Totals.AllowanceTotal, inv.Totals.ChargeTotal = money(allowances), money(charges)
		} else {
			inv.Totals.LineTotal = einvoice.Decimal{}
		}
	}
	if best == nil && !inv.Totals.LineTotal.Valid() && !inv.Totals.NetTotal.Valid() && !inv.Totals.VATTotal.Valid() {
		best = untaxedLines(inv, text, readings[:len(readings)-1], columns, len(columns) > 0 && len(columns) == len(rows))
	}
	setLines(inv, best)
	creditNote(inv, p.lines)
	return inv
}

// untaxedLines are the lines of an invoice that prints neither a net nor a VAT total, from
// the line table's readings (not the receipt's item lines): when it prints no rate either,
// the rows that add up to its gross (a Kenyan Odoo invoice without tax: "Total 4,500.00
// KSh" under its one row), that gross then being the line total; when it prints no total
// at all (a viewer's page of the positions alone), the table read by its columns when its
// every row's quantity × price is its amount (allFit), the line total their sum.
func untaxedLines(inv *einvoice.Invoice, text string, readings [][]Item, columns []Item, allFit bool) []Item {
	t := &inv.Totals
	switch {
	case t.GrossTotal.Valid() && t.GrossTotal.Value().Sign() > 0 && !rateRE.MatchString(text):
		t.LineTotal = t.GrossTotal
		if best := bestLines(inv, readings); best != nil {
			return best
		}
		t.LineTotal = einvoice.Decimal{}
	case !t.GrossTotal.Valid() && !t.AmountDue.Valid() && allFit:
		sum := decimal.Zero
		for _, it := range columns {
			sum = sum.Add(it.Total.Value())
		}
		t.LineTotal = money(sum)
		return columns
	}
	return nil
}

// buyerInlineRE is the recipient named after a label on its line ("An: Muster Bautraeger
// AG", "Bill to: Acme Ltd", "Destinataire : Jean Martin"), in the words that head a
// buyer's block, a name and no number after it.
var buyerInlineRE = lazyre.New(`(?i)^(?:` + buyerWords + `|` + buyerGeoWords + `)\s*:\s*(\pL[^:]{2,60})$`)

// labelledBuyer is the buyer's name as a label on the first lines gives it, for a page
// without the recipient's address block; "" when none does.
func labelledBuyer(lines []string) string {
	for _, l := range lines[:min(len(lines), maxTitleLines)] {
		if m := buyerInlineRE.FindStringSubmatch(strings.TrimSpace(cellSepRE.Split(l, 2)[0])); m != nil && hasLetters(m[1], 3) && !strings.ContainsAny(m[1], "0123456789@") {
			return strings.TrimSpace(m[1])
		}
	}
	return ""
}

// totalLine: s is a total's label with its figure ("Untaxed Amount   1,000.00").
func totalLine(s string) bool {
	return (netLabelRE.MatchString(s) || grossLabelRE.MatchString(s) || vatLabelRE.MatchString(s) || dueLabelRE.MatchString(s) || bareTotal(s)) && strings.ContainsAny(s, "0123456789")
}

// creditTitleRE is a credit note's title on a line of its own, or before another column
// two spaces on: "Avoir AV-2017-0005", "Credit Note No. CN-12", "Gutschrift Nr. 4711".
var creditTitleRE = lazyre.New(`(?i)^\s*(?:avoir|credit\s+note|gutschrift|nota\s+de\s+cr[ée]dito|nota\s+di\s+credito|note\s+de\s+cr[ée]dit|creditnota|faktura\s+koryguj[ąa]ca)(?:\s+(?:n[°º]|no\b\.?|nr\.?|#|number|nummer))?\s*[:#]?\s*(?:[A-Z0-9][A-Za-z0-9/._-]*\d[A-Za-z0-9/._-]*)?(?:\s{2,}.*)?$`)

// maxTitleLines bounds the lines a credit note's title is looked for in.
const maxTitleLines = 40

// creditNote makes a document titled as a credit note one (381) with positive amounts, as
// EN 16931 means a credit note: pages print its figures negative ("Total TTC -233,47 €"),
// which read as an invoice of negative amounts. A "Gutschrift" with positive figures stays
// an invoice: German calls a self-billed invoice so as well (§ 14 (2) UStG), and which one
// it is the page does not say.
func creditNote(inv *einvoice.Invoice, lines []string) {
	title := ""
	// The title on a line of its own or in one of its two cells ("InfoTech Solutions SARL
	// AVOIR": the sender left, the title right), among the page's first lines.
	for i, l := range lines {
		if i >= maxTitleLines || title != "" {
			break
		}
		cells := cellSepRE.Split(strings.TrimSpace(l), -1)
		if len(cells) > 2 {
			continue // a table's header ("Date   Facture   Avoir   Montant")
		}
		for _, cell := range cells {
			if m := creditTitleRE.FindString(cell); m != "" {
				title = strings.ToLower(m)
				break
			}
		}
	}
	t := &inv.Totals
	negative := t.GrossTotal.Valid() && t.GrossTotal.Value().Sign() < 0 || t.NetTotal.Valid() && t.NetTotal.Value().Sign() < 0
	if title == "" || !negative && strings.Contains(title, "gutschrift") {
		return
	}
	inv.TypeCode = "381"
	if !negative {
		return
	}
	flip := func(d *einvoice.Decimal) {
		if d.Valid() {
			*d = money(d.Value().Neg())
		}
	}
	for _, d := range []*einvoice.Decimal{&t.LineTotal, &t.NetTotal, &t.VATTotal, &t.GrossTotal, &t.AmountDue, &t.PaidAmount, &t.RoundingAmount} {
		flip(d)
	}
	for i := range inv.VATBreakdown {
		flip(&inv.VATBreakdown[i].TaxableAmount)
		flip(&inv.VATBreakdown[i].TaxAmount)
	}
	for i := range inv.Lines {
		l := &inv.Lines[i]
		flip(&l.NetAmount)
		if l.Quantity.Valid() && l.Quantity.Value().Sign() < 0 {
			flip(&l.Quantity)
		} else if l.Price.Net.Valid() && l.Price.Net.Value().Sign() < 0 {
			flip(&l.Price.Net)
		}
	}
}

// ratePrintedRE is a VAT rate as pages print it: "19 %", "19,00%", "5.5 %".
var ratePrintedRE = lazyre.New(`(?:^|[^\d.,])(\d{1,2}(?:[.,]\d{1,2})?)\s?%`)

// maxRatesTried bounds the percentages of a text tried as the rate.
const maxRatesTried = 200

// singleRate gives an invoice whose VAT breakdown was not read (a viewer that prints it
// as labelled lines, not a table) its one row, when its net, VAT and gross agree and
// exactly one rate printed on its pages turns the net into the VAT to the cent. Mixed rates
// give a VAT that no single printed rate gives (but by chance, which the cent bounds).
//
// A breakdown read that fits neither the net nor the VAT of totals that agree (net + VAT =
// gross) was read from other rows (a line "5 hour 150.00 EUR 20% 750.00 EUR" has the
// shape of a VAT row) and is replaced the same way.
func singleRate(inv *einvoice.Invoice, text string) {
	t := inv.Totals
	if !t.NetTotal.Valid() || !t.VATTotal.Valid() || !t.GrossTotal.Valid() {
		return
	}
	net, vat, gross := t.NetTotal.Value(), t.VATTotal.Value(), t.GrossTotal.Value()
	cent := decimal.New(1, -2)
	if net.Sign() <= 0 || vat.Sign() <= 0 || net.Add(vat).Sub(gross).Abs().GreaterThan(cent) {
		return
	}
	if len(inv.VATBreakdown) > 0 {
		base, tax := decimal.Zero, decimal.Zero
		for _, b := range inv.VATBreakdown {
			base, tax = base.Add(b.TaxableAmount.Value()), tax.Add(b.TaxAmount.Value())
		}
		slack := cent.Mul(decimal.NewFromInt(int64(len(inv.VATBreakdown))))
		if base.Sub(net).Abs().LessThanOrEqual(slack) || tax.Sub(vat).Abs().LessThanOrEqual(slack) {
			return
		}
	}
	var fit []decimal.Decimal
	for _, m := range ratePrintedRE.FindAllStringSubmatch(text, maxRatesTried) {
		r, err := decimal.NewFromString(strings.Replace(m[1], ",", ".", 1))
		if err != nil || r.Sign() <= 0 || r.GreaterThan(decimal.NewFromInt(30)) {
			continue
		}
		if net.Mul(r).Div(decimal.NewFromInt(100)).Round(2).Sub(vat).Abs().GreaterThan(cent) {
			continue
		}
		if !slices.ContainsFunc(fit, r.Equal) {
			fit = append(fit, r)
		}
	}
	inv.VATBreakdown = nil
	if len(fit) == 1 {
		inv.VATBreakdown = []einvoice.VATBreakdown{{TaxableAmount: t.NetTotal, TaxAmount: t.VATTotal, Rate: einvoice.NewDecimal(fit[0]), Category: "S"}}
	}
}

// anyRates are the rates other than 0 of every country in vatRates, in increasing order:
// those a breakdown row's figures are tried at.
var anyRates = sync.OnceValue(func() []decimal.Decimal {
	var out []decimal.Decimal
	for _, rs := range vatRates {
		for _, r := range rs {
			if d := decimal.RequireFromString(r); d.Sign() > 0 && !slices.ContainsFunc(out, d.Equal) {
				out = append(out, d)
			}
		}
	}
	slices.SortFunc(out, func(a, b decimal.Decimal) int { return a.Cmp(b) })
	return out
})

// maxImpliedRows bounds the breakdown rows tried (impliedRates).
const maxImpliedRows = 12

// impliedRates reads a breakdown whose rate column OCR lost ("VAT (S)   275,00   19,25"):
// rows ending in a base and its VAT whose quotient is a VAT rate to the cent, consecutive
// candidates that add up to the net and VAT totals. Only when no breakdown was found: the
// two sums decide, not the rows alone.
func impliedRates(inv *einvoice.Invoice, lines []string) {
	t := inv.Totals
	if len(inv.VATBreakdown) > 0 || !t.NetTotal.Valid() || !t.VATTotal.Valid() || t.VATTotal.Value().Sign() <= 0 {
		return
	}
	cent := decimal.New(1, -2)
	hundred := decimal.NewFromInt(100)
	var rows []einvoice.VATBreakdown
	for _, l := range lines {
		as := amounts(l)
		if len(as) < 2 {
			rows = append(rows, einvoice.VATBreakdown{}) // a gap: the run ends
			continue
		}
		base, vat := as[len(as)-2].v, as[len(as)-1].v
		var rate *decimal.Decimal
		if base.Sign() > 0 && vat.Sign() > 0 && vat.LessThan(base) {
			for _, d := range anyRates() {
				if base.Mul(d).Div(hundred).Round(2).Sub(vat).Abs().LessThanOrEqual(cent) {
					rate = &d
					break
				}
			}
		}
		if rate == nil {
			rows = append(rows, einvoice.VATBreakdown{})
			continue
		}
		rows = append(rows, einvoice.VATBreakdown{TaxableAmount: money(base), TaxAmount: money(vat), Rate: einvoice.NewDecimal(*rate), Category: "S"})
	}
	for i := range rows {
		base, vat := decimal.Zero, decimal.Zero
		for j := i; j < len(rows) && j < i+maxImpliedRows && rows[j].Rate.Valid(); j++ {
			base, vat = base.Add(rows[j].TaxableAmount.Value()), vat.Add(rows[j].TaxAmount.Value())
			if j > i && base.Sub(t.NetTotal.Value()).Abs().LessThanOrEqual(cent) && vat.Sub(t.VATTotal.Value()).Abs().LessThanOrEqual(cent) {
				inv.VATBreakdown = slices.Clone(rows[i : j+1])
				return
			}
		}
	}
}

// Clauses of an invoice without VAT, by the category of EN 16931 they give: exempt (a small
// business, § 19 UStG; a French micro-entrepreneur, art. 293 B CGI; an exempt supply, also
// as French pages state it ("Exonération de TVA, art. 261-4-1° du CGI": a physician) and
// as Spanish and Italian tax columns print it: "Exento", "Esente"),
// reverse charge, an intra-community supply.
var (
	exemptRE        = lazyre.New(`(?i)§\s?19\s*(?:abs\.?\s*\d\s*)?ustg|kleinunternehmer|umsatzsteuerbefreit|steuerbefreit|von\s+der\s+umsatzsteuer\s+befreit|tva\s+non\s+applicable|293\s?b\s+du\s+cgi|vat\s+exempt|exempt\s+from\s+vat|exon[ée]ration\s+de\s+tva|exon[ée]r[ée]e?\s+de\s+tva|\bexent[oa]s?\b|\besente\b|\bisent[ei]\b`)
	reverseChargeRE = lazyre.New(`(?i)reverse\s+charge|steuerschuldnerschaft\s+des\s+leistungsempf|autoliquidation|§\s?13\s?b\s+ustg`)
	intraEURE       = lazyre.New(`(?i)innergemeinschaftliche\s+lieferung|intra-?community\s+supply|livraison\s+intracommunautaire|exon[ée]ration\s+de\s+tva,?\s+article\s+262\s+ter`)
)

// noVAT gives an invoice that states why it charges no VAT (a small business's § 19 UStG,
// reverse charge, an intra-community supply) and whose net and gross are one figure, or
// that prints only the gross, its VAT of zero and its one breakdown row with that clause's
// category.
func noVAT(inv *einvoice.Invoice, text string) {
	t := &inv.Totals
	if len(inv.VATBreakdown) > 0 || t.VATTotal.Valid() && !t.VATTotal.Value().IsZero() || !t.GrossTotal.Valid() || t.GrossTotal.Value().Sign() <= 0 {
		return
	}
	if t.NetTotal.Valid() && !t.NetTotal.Value().Equal(t.GrossTotal.Value()) {
		return
	}
	var category, code string
	var at []int
	for _, c := range []struct {
		re             *lazyre.Regexp
		category, code string
	}{{reverseChargeRE, "AE", "VATEX-EU-AE"}, {intraEURE, "K", "VATEX-EU-IC"}, {exemptRE, "E", ""}} {
		if at = c.re.FindStringIndex(text); at != nil {
			category, code = c.category, c.code
			break
		}
	}
	if at == nil {
		return
	}
	// The reason is the clause's line as printed (BT-120), which XRechnung requires for these
	// categories.
	start := strings.LastIndexByte(text[:at[0]], '\n') + 1
	end := len(text)
	if i := strings.IndexByte(text[at[1]:], '\n'); i >= 0 {
		end = at[1] + i
	}
	reason := strings.Join(strings.Fields(text[start:end]), " ")
	if len(reason) > 200 {
		reason = strings.Join(strings.Fields(text[at[0]:at[1]]), " ")
	}
	t.NetTotal, t.VATTotal = t.GrossTotal, money(decimal.Zero)
	inv.VATBreakdown = []einvoice.VATBreakdown{{TaxableAmount: t.GrossTotal, TaxAmount: t.VATTotal, Rate: money(decimal.Zero), Category: category, ExemptionReason: reason, ExemptionReasonCode: code}}
}

// bestLines is the first reading of the lines that adds up, unless a later table reading
// (quantities in their column) has the same lines with an amount and more of no amount: a
// line "ohne Berechnung" (a free item, a co-insured person) adds nothing to the sum, so
// only a reading that sees it counts it. A receipt's item lines (the last reading) have no
// quantity column to vouch for a zero line.
func bestLines(inv *einvoice.Invoice, readings [][]Item) []Item {
	var best []Item
	for k, items := range readings {
		if !linesAddUp(inv, items) {
			continue
		}
		if best == nil || k < len(readings)-1 && len(items) > len(best) && paidItems(items) == paidItems(best) {
			best = items
		}
	}
	return best
}

// paidItems counts the items with an amount other than zero.
func paidItems(items []Item) int {
	n := 0
	for _, it := range items {
		if !it.Total.Value().IsZero() {
			n++
		}
	}
	return n
}

// linesAddUp: the items' amounts add up to the invoice's line total (else its net total),
// within two cents.
func linesAddUp(inv *einvoice.Invoice, items []Item) bool {
	lineSum := inv.Totals.LineTotal
	if !lineSum.Valid() {
		lineSum = inv.Totals.NetTotal
	}
	if !lineSum.Valid() || len(items) == 0 {
		return false
	}
	sum := decimal.Zero
	for _, it := range items {
		sum = sum.Add(it.Total.Value())
	}
	return sum.Sub(lineSum.Value()).Abs().LessThanOrEqual(decimal.New(2, -2))
}

// setLines makes items the invoice's lines when their amounts add up to its line total
// (else its net total), within two cents; it reports whether they did.
func setLines(inv *einvoice.Invoice, items []Item) bool {
	if !linesAddUp(inv, items) {
		return false
	}
	for i, it := range items {
		q := it.Quantity
		if !q.Valid() {
			q = einvoice.MustDecimal("1")
		}
		price := it.UnitPrice
		if !price.Valid() {
			price = money(it.Total.Value().Div(q.Value()))
		}
		line := einvoice.Line{ID: strconv.Itoa(i + 1), Quantity: q, Unit: "C62", NetAmount: it.Total, Price: einvoice.Price{Net: price, BaseQuantity: baseQuantity(q.Value(), price.Value(), it.Total.Value())}, Item: einvoice.Item{Name: it.Description}}
		if line.Price.BaseQuantity.Valid() {
			line.Price.BaseQuantityUnit = line.Unit // BT-150 in the quantity's unit, as PEPPOL's rules ask
		}
		if len(inv.VATBreakdown) == 1 {
			line.VATCategory, line.VATRate = inv.VATBreakdown[0].Category, inv.VATBreakdown[0].Rate
		}
		inv.Lines = append(inv.Lines, line)
	}
	return true
}

// priceBase is the quantity a unit price is printed for: 1, or a wholesaler's 10, 100 or
// 1000 pieces ("150 Stk à 49,29 = 73,94"); ok is false when no base makes quantity × price
// the amount. The figures fit to the cent, or within half a percent: a price printed
// rounded (2,7700 for 2.773).
func priceBase(q, price, amount decimal.Decimal) (base int64, ok bool) {
	tol := decimal.Max(decimal.New(1, -2), amount.Abs().Mul(decimal.New(5, -3)))
	for _, base := range []int64{1, 10, 100, 1000} {
		if q.Mul(price).Div(decimal.NewFromInt(base)).Sub(amount).Abs().LessThanOrEqual(tol) {
			return base, true
		}
	}
	return 0, false
}

// baseQuantity is BT-149 for a line: set only when the price is for more than one piece.
func baseQuantity(q, price, amount decimal.Decimal) einvoice.Decimal {
	if base, ok := priceBase(q, price, amount); ok && base > 1 {
		return einvoice.NewDecimal(decimal.NewFromInt(base))
	}
	return einvoice.Decimal{}
}

func category(rate decimal.Decimal) string {
	if rate.Sign() > 0 {
		return "S"
	}
	return "Z"
}

// complete sets what follows from what was found: the amount due, the line total.
func complete(inv *einvoice.Invoice) {
	if inv.Currency == "" {
		inv.Currency = "EUR"
	}
	if inv.TypeCode == "" {
		inv.TypeCode = "380"
	}
	t := &inv.Totals
	if t.GrossTotal.Valid() && !t.AmountDue.Valid() {
		t.AmountDue = t.GrossTotal
	}
	if !t.LineTotal.Valid() {
		if len(inv.Lines) > 0 {
			sum := decimal.Zero
			for _, l := range inv.Lines {
				sum = sum.Add(l.NetAmount.Value())
			}
			t.LineTotal = money(sum)
		} else if t.NetTotal.Valid() {
			t.LineTotal = t.NetTotal
		}
	}
}

// postCode is the line's first post code and city (postRE's groups) that is no part of a
// longer figure: "USt.-Id: 88888/00072 Rechnung" prints no post code.
func postCode(l string) []string {
	for _, ix := range postRE.FindAllStringSubmatchIndex(l, 4) {
		if ix[0] > 0 && strings.IndexByte("/.,", l[ix[0]-1]) >= 0 {
			continue
		}
		m := make([]string, len(ix)/2)
		for k := range m {
			if ix[2*k] >= 0 {
				m[k] = l[ix[2*k]:ix[2*k+1]]
			}
		}
		return m
	}
	return nil
}

func dateOf(s string) einvoice.Date {
	if d, err := einvoice.ParseDate(s); err == nil {
		return d
	}
	if m := dateRE.FindStringSubmatch(" " + s + " "); m != nil {
		if d, ok := mkDate(m[1], m[2], m[3]); ok {
			return einvoice.Date(d.Format(time.DateOnly))
		}
	}
	return ""
}

// checkDigits is an IBAN as OCR read it with its check digits, which must be digits, read
// as the digits their letters look like ("DEI2" for DE12), lower-case o and l as 0 and 1,
// without spaces; "" when it is then no IBAN's shape.
func checkDigits(s string) string {
	b := []byte(strings.ReplaceAll(s, " ", ""))
	for i, c := range b {
		switch {
		case c == 'o':
			b[i] = '0'
		case c == 'l':
			b[i] = '1'
		case i >= 2 && i < 4 && c >= 'A' && c <= 'Z':
			if d, ok := ibanConfusable[c]; ok {
				b[i] = d
			}
		}
	}
	iban := string(b)
	if m := ibanRE.FindString(iban); m != iban {
		return ""
	}
	return iban
}

// ibanRank orders IBAN candidates: check digits that fit first.
func ibanRank(s string) int {
	if validIBAN(strings.ReplaceAll(s, " ", "")) {
		return 1
	}
	return 0
}

// labelledIBAN: the text prints s right after the word IBAN, and s has an IBAN's shape.
func labelledIBAN(text, s string) bool {
	i := strings.Index(text, s)
	if i < 0 || len(strings.ReplaceAll(s, " ", "")) < 15 {
		return false
	}
	line := text[strings.LastIndexByte(text[:i], '\n')+1 : i]
	return strings.HasSuffix(strings.ToUpper(strings.TrimRight(line, " :\t_.|")), "IBAN") // OCR reads a leader as "_" or "."
}

// maxIBANCandidates bounds the misread IBANs tried in one text.
const maxIBANCandidates = 20

// ibanConfusable are the characters OCR reads for one another in an IBAN: each letter with
// the digit it looks like.
var ibanConfusable = map[byte]byte{'O': '0', '0': 'O', 'I': '1', '1': 'I', 'S': '5', '5': 'S', 'B': '8', '8': 'B'}

// numericBBAN are the countries whose account part (BBAN) is digits only, with their IBAN
// length (ISO 13616 registry): a letter there is a misread digit.
var numericBBAN = map[string]int{"DE": 22, "AT": 20, "BE": 16, "CZ": 24, "DK": 18, "EE": 20, "ES": 24, "FI": 18, "HR": 21, "HU": 28, "LT": 20, "NO": 15, "PL": 28, "PT": 25, "RS": 22, "SE": 24, "SI": 19, "SK": 24}

// maxIBANGuesses bounds the confusable characters of one IBAN tried both ways (2^n
// candidates), maxIBANChanges the characters changed where the country's format does not
// say which they must be.
const maxIBANGuesses, maxIBANChanges = 8, 2

// correctIBAN reads an IBAN that OCR may have misread in confusable characters: the check
// digits must be digits (and the account part too in a country whose accounts are numeric),
// the other confusable characters are tried both ways; it answers the IBAN whose check
// digits then fit with the fewest such changes, "" when none does or two do (the check
// digits cannot tell which). Why: MOD 97 catches every single substitution, so a misread
// the check digits confirm is the printed IBAN, while one they do not stays unread.
func correctIBAN(s string) string {
	b := []byte(strings.ReplaceAll(s, " ", ""))
	if len(b) < 15 || len(b) > 34 {
		return ""
	}
	for i, c := range b { // lower case only as a misread digit
		switch c {
		case 'o':
			b[i] = '0'
		case 'l':
			b[i] = '1'
		}
	}
	digit := func(i int) bool {
		if c, ok := ibanConfusable[b[i]]; ok && b[i] >= 'A' && c >= '0' && c <= '9' {
			b[i] = c
		}
		return b[i] >= '0' && b[i] <= '9'
	}
	if b[0] < 'A' || b[0] > 'Z' || b[1] < 'A' || b[1] > 'Z' || !digit(2) || !digit(3) {
		return ""
	}
	if cd := string(b[2:4]); cd < "02" || cd > "98" {
		return "" // ISO 7064 MOD 97-10 gives 02 to 98
	}
	var open []int // the confusable places the country's format leaves open
	if n, ok := numericBBAN[string(b[:2])]; ok {
		if len(b) != n {
			return ""
		}
		for i := 4; i < len(b); i++ {
			if !digit(i) {
				return ""
			}
		}
	} else {
		for i := 4; i < len(b); i++ {
			if _, ok := ibanConfusable[b[i]]; ok {
				open = append(open, i)
			}
		}
	}
	if validIBAN(string(b)) {
		return string(b)
	}
	if len(open) > maxIBANGuesses {
		return ""
	}
	// At most two changes the format does not force: each candidate tried is a chance in
	// 97 of check digits that fit by accident, so the guesses stay few.
	best, bestChanges, ties := "", maxIBANChanges+1, 0
	for mask := 1; mask < 1<<len(open); mask++ {
		c := slices.Clone(b)
		changes := 0
		for k, i := range open {
			if mask&(1<<k) != 0 {
				c[i] = ibanConfusable[c[i]]
				changes++
			}
		}
		if changes > min(bestChanges, maxIBANChanges) || !validIBAN(string(c)) {
			continue
		}
		if changes < bestChanges {
			best, bestChanges, ties = string(c), changes, 0
		}
		ties++
	}
	if ties != 1 {
		return ""
	}
	return best
}

// validIBAN checks an IBAN's length and ISO 13616 check digits (MOD 97-10).
func validIBAN(s string) bool {
	if len(s) < 15 || len(s) > 34 {
		return false
	}
	var digits strings.Builder
	for _, c := range s[4:] + s[:4] {
		switch {
		case c >= '0' && c <= '9':
			digits.WriteRune(c)
		case c >= 'A' && c <= 'Z':
			digits.WriteString(strconv.Itoa(int(c-'A') + 10))
		default:
			return false
		}
	}
	n, ok := new(big.Int).SetString(digits.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

// Missing lists the business terms an XRechnung needs that inv lacks, in BT order.
func Missing(inv *einvoice.Invoice) []einvoice.MissingField {
	out := []einvoice.MissingField{}
	need := func(ok bool, bt, name string) {
		if !ok {
			out = append(out, einvoice.MissingField{BT: bt, Name: name})
		}
	}
	s, b, t := inv.Seller, inv.Buyer, inv.Totals
	need(inv.Number != "", "BT-1", "Invoice number")
	need(inv.IssueDate != "", "BT-2", "Invoice issue date")
	need(inv.Currency != "", "BT-5", "Invoice currency code")
	need(inv.DueDate != "" || inv.PaymentTerms != "" || !t.AmountDue.Valid() || t.AmountDue.Value().Sign() <= 0, "BT-9", "Payment due date (or BT-20 payment terms)")
	need(inv.BuyerReference != "", "BT-10", "Buyer reference (Leitweg-ID)")
	need(s.Name != "", "BT-27", "Seller name")
	need(s.VATID != "" || s.TaxNumber != "", "BT-31", "Seller VAT identifier (or BT-32 tax registration identifier)")
	need(!s.ElectronicAddress.IsZero(), "BT-34", "Seller electronic address")
	need(s.Address.Line1 != "", "BT-35", "Seller address line 1")
	need(s.Address.City != "", "BT-37", "Seller city")
	need(s.Address.PostCode != "", "BT-38", "Seller post code")
	need(s.Address.Country != "", "BT-40", "Seller country code")
	need(s.Contact.Name != "", "BT-41", "Seller contact point")
	need(s.Contact.Phone != "", "BT-42", "Seller contact telephone number")
	need(s.Contact.Email != "", "BT-43", "Seller contact email address")
	need(b.Name != "", "BT-44", "Buyer name")
	need(!b.ElectronicAddress.IsZero(), "BT-49", "Buyer electronic address")
	need(b.Address.City != "", "BT-52", "Buyer city")
	need(b.Address.PostCode != "", "BT-53", "Buyer post code")
	need(b.Address.Country != "", "BT-55", "Buyer country code")
	need(inv.Payment.MeansCode != "", "BT-81", "Payment means type code")
	need(inv.Payment.MeansCode != "58" && inv.Payment.MeansCode != "30" || len(inv.Payment.CreditTransfers) > 0, "BT-84", "Payment account identifier (IBAN)")
	need(t.LineTotal.Valid(), "BT-106", "Sum of invoice line net amount")
	need(t.NetTotal.Valid(), "BT-109", "Invoice total amount without VAT")
	need(t.VATTotal.Valid(), "BT-110", "Invoice total VAT amount")
	need(t.GrossTotal.Valid(), "BT-112", "Invoice total amount with VAT")
	need(t.AmountDue.Valid(), "BT-115", "Amount due for payment")
	need(len(inv.VATBreakdown) > 0, "BG-23", "VAT breakdown")
	need(len(inv.Lines) > 0, "BG-25", "Invoice line")
	return out
}
