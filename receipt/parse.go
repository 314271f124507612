package receipt

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/internal/lazyre"
)

// maxTextBytes bounds the text the rules read: no receipt is longer, and every rule is
// linear in it.
const maxTextBytes = 256 << 10

// Parse reads a receipt's text (from a PDF or OCR) with the rules engine: issuer, date,
// time, number, currency, amounts, VAT breakdown, payment method, items, type, type details,
// language and country, each with a confidence. now is the clock for the plausibility of
// dates. It never fails: what it cannot find stays empty with confidence 0.
func Parse(text string, now time.Time) *Result {
	r, _ := parse(text, now, asReceipt, nil)
	return r
}

// parse is Parse, also answering the parser (its lines), for the invoice rules; as says
// what the text is of: an invoice's total is the one before a rounding (BT-112), a
// receipt's the amount paid. ocr tells what Tesseract's words say of a scan's lines (nil
// for a text layer): those it was unsure of name no issuer.
func parse(text string, now time.Time, as scanKind, ocr ocrLines) (*Result, *parser) {
	if len(text) > maxTextBytes {
		// The start (parties, number, date) and the end (totals, bank details) of a long text.
		text = text[:maxTextBytes/2] + "\n" + text[len(text)-maxTextBytes/2:]
	}
	text = strings.ToValidUTF8(text, "")
	lines := splitLines(text)
	lower := make([]string, len(lines))
	for i, l := range lines {
		lower[i] = strings.ToLower(l)
	}
	p := &parser{lines: lines, lower: lower, now: now, as: as, ocr: ocr}
	r := &Result{Text: text, VAT: []VATLine{}, Items: []Item{}, Checks: []Check{}, Quality: Quality{Hints: []string{}}}
	r.Data.Currency = p.currency()
	var partial []partialVAT
	r.VAT, partial = p.vatBreakdown()
	p.incompleteVAT = lacksRate(r.VAT, partial)
	gross, gconf, totalLine := p.total(r.VAT)
	if gconf > 0 {
		r.Data.Gross = money(gross)
		r.Confidence.Gross = gconf
	}
	rates := tableRates(p.currency(), p.language())
	completeVAT(r, partial, rates)
	totalLine = p.breakdownDecides(r, partial, rates, totalLine)
	if len(r.VAT) == 0 {
		p.vatWithoutRate(r, rates)
	}
	r.tendered, r.change, r.rounding = p.tendered, p.change, p.rounding
	p.amountsFromVAT(r)
	r.Data.Date, r.Data.Time, r.Confidence.Date = p.date()
	r.Data.Reference = p.reference()
	r.Data.PaymentMethod = p.payment()
	r.Issuer, r.Confidence.Issuer = p.issuer()
	r.Data.Issuer = r.Issuer.Name
	r.Items = p.items(totalLine)
	r.Language = p.language()
	r.Country = p.country(r)
	r.Data.Type, r.Confidence.Type = p.classify()
	r.Details = p.details(r.Data.Type)
	return r, p
}

type parser struct {
	lines, lower []string
	now          time.Time
	as           scanKind // a receipt's or an invoice's text
	ocr          ocrLines // what Tesseract's words say of the lines of a scan; nil for a text

	brandDone bool // brand and brandAt are found once: issuer and type both ask
	brand     *brand
	brandAt   int

	runnersUp []totalCandidate // other amounts named as the total, most votes first
	// incompleteVAT: a line of the VAT table did not fit together (lacksRate).
	incompleteVAT bool
	// before are the amounts before tax or discounts the text names ("Sub total 99.50").
	before []decimal.Decimal
	// byTotalWord: a line with a total's word ("Summe", "Totale") named the total chosen,
	// not only a payment or a sum of other lines.
	byTotalWord bool
	ofParts     decimal.Decimal // an amount a card paid that two totals add up to
	rounding    decimal.Decimal // the cash rounding the receipt prints

	tendered, change decimal.Decimal // cash given and change returned, when both are printed

	// paid are the amounts a card paid and cash less its change; addsUp the sums of an
	// amount before tax and a tax's sum ("Subtotal $16.35", "Total Tax $1.08") and the
	// differences of a sum before discounts and the discounts' sum: the lines that bear out
	// a total other than by naming it (supported).
	paid, addsUp []decimal.Decimal

	buyerVATID string // the buyer's VAT id, read with the issuer's (vatIDsByParty)
}

// knownBrand is the brand the text names earliest, and where.
func (p *parser) knownBrand() (*brand, int) {
	if !p.brandDone {
		p.brand, p.brandAt = findBrand(strings.Join(p.lower, "\n"))
		p.brandDone = true
	}
	return p.brand, p.brandAt
}

// splitLines splits text into trimmed, non-empty lines, and joins a line that is only an
// amount to the line before: PDF text in reading order puts a table's last cell on a line
// of its own ("Beratung 2 x 120,00" / "240,00").
func splitLines(text string) []string {
	var out []string
	for l := range strings.SplitSeq(strings.ReplaceAll(text, "\r", ""), "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if n := len(out); n > 0 && amountOnly(l) && len(amounts(out[n-1])) > 0 && hasLetters(out[n-1], 3) {
			out[n-1] += " " + l
			continue
		}
		out = append(out, l)
	}
	return out
}

// amountOnly: one amount, perhaps with a currency sign or a VAT letter, nothing else.
func amountOnly(l string) bool {
	as := amounts(l)
	if len(as) != 1 {
		return false
	}
	rest := strings.TrimSpace(l[:as[0].start] + l[as[0].end:])
	rest = strings.TrimSpace(strings.Trim(rest, "€*"))
	return rest == "" || rest == "EUR" || len(rest) == 1 && rest[0] >= 'A' && rest[0] <= 'D'
}

func money(d decimal.Decimal) einvoice.Decimal { return einvoice.NewDecimal(d.Round(2).Truncate(2)) }

func (p *parser) currency() string {
	counts := map[string]int{}
	for _, l := range p.lower {
		for _, code := range lineCurrencies(l) {
			counts[code]++
		}
	}
	best, n := "EUR", 0
	for _, code := range currencyOrder {
		if counts[code] > n {
			best, n = code, counts[code]
		}
	}
	return best
}

// currencyOrder decides a tie between currencies a text names equally often: Europe's
// first, the euro before all.
var currencyOrder = func() []string {
	var rest []string
	for code := range currencyWords {
		if !slices.Contains(nearCurrencies, code) {
			rest = append(rest, code)
		}
	}
	slices.Sort(rest)
	return append(slices.Clone(nearCurrencies), rest...)
}()

// nearCurrencies are the currencies of Europe's receipts and invoices, named anywhere on a
// line; the others' codes and signs count only beside a figure ("2,000.00 E£", "20.000
// DT", "RM 12.50"), where a word or OCR's noise does not stand.
var nearCurrencies = []string{"EUR", "CHF", "GBP", "USD", "PLN", "CZK", "DKK", "SEK", "NOK", "HUF", "TRY"}

// lineCurrencies are the currencies a lower-case line names: a code counts only as a word
// of its own ("ft" in "Anschrift" is no forint), and the short forint sign only on a line
// with a number.
func lineCurrencies(l string) []string {
	var out []string
	for code, words := range currencyWords {
		far := slices.Contains(nearCurrencies, code)
		for _, w := range words {
			if !far && figureBeside(l, w) || far && hasWord(l, w) && (w != "ft" || strings.ContainsAny(l, "0123456789")) && (w != "tl" || liraRE.MatchString(l)) {
				out = append(out, code)
				break
			}
		}
	}
	return out
}

// figureBeside: w stands in l as a word of its own right before or after a money figure
// (two or three decimals: the dinars' and rials' have three), a space between them at most;
// "Rm 101" is a room.
var (
	figureBeforeRE = lazyre.New(`\d[.,]\d{2,3}$`)
	figureAfterRE  = lazyre.New(`^-?\d[\d.,'’]*[.,]\d{2,3}\b`)
)

// figureBeside tells whether w stands in l as a word of its own right beside a money
// figure (figureBeforeRE, figureAfterRE).
func figureBeside(l, w string) bool {
	return wordWhere(l, w, func(start, end int) bool {
		return figureBeforeRE.MatchString(strings.TrimSuffix(l[:start], " ")) || figureAfterRE.MatchString(strings.TrimPrefix(l[end:], " "))
	})
}

// hasWord tells whether w occurs in l with no letter right before or after it; a sign such
// as € may touch its amount.
func hasWord(l, w string) bool {
	return wordWhere(l, w, func(int, int) bool { return true })
}

// wordWhere tells whether w occurs in l with no letter right before or after it at a place
// l[start:end] that ok accepts.
func wordWhere(l, w string, ok func(start, end int) bool) bool {
	for i := 0; i <= len(l)-len(w); {
		j := strings.Index(l[i:], w)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(w)
		before, _ := utf8.DecodeLastRuneInString(l[:start])
		after, _ := utf8.DecodeRuneInString(l[end:])
		if (start == 0 || !unicode.IsLetter(before)) && (end == len(l) || !unicode.IsLetter(after)) && ok(start, end) {
			return true
		}
		i = start + 1
	}
	return false
}

var currencyWords = map[string][]string{
	"EUR": {"eur", "€"}, "CHF": {"chf", "sfr"}, "GBP": {"gbp", "£"}, "USD": {"usd", "us$", "$"}, // "$" alone: not after a letter ("C$", "A$")
	"PLN": {"pln", "zł"}, "CZK": {"czk", "kč"}, "DKK": {"dkk"}, "SEK": {"sek"}, "NOK": {"nok"}, "HUF": {"huf", "ft"},
	"TRY": {"₺", "tl"}, // "tl" only right after an amount ("85,00 TL"): a teaspoon is "1 TL"
	// Other currencies by their ISO codes and signs, beside a figure only (nearCurrencies);
	// codes that are words of our languages ("rub", "pen", "gel", "ils", "bhd", Malaysia's
	// Berhad) by their signs alone.
	"RON": {"ron", "lei"}, "BGN": {"bgn", "лв"}, "RSD": {"rsd"}, "ISK": {"isk"}, "UAH": {"uah", "₴", "грн"}, "RUB": {"₽", "руб"},
	"BAM": {"bam"}, "MKD": {"mkd"}, "MDL": {"mdl"}, "GEL": {"₾"}, "KZT": {"kzt", "₸"}, "ILS": {"₪"},
	"JPY": {"jpy", "¥"}, "CNY": {"cny", "rmb"}, "INR": {"inr", "₹"}, "KRW": {"krw", "₩"}, "VND": {"vnd", "₫"}, "THB": {"thb", "฿"},
	"MYR": {"myr", "rm"}, "SGD": {"sgd", "s$"}, "HKD": {"hkd", "hk$"}, "IDR": {"idr"}, "PHP": {"₱"}, "TWD": {"twd", "nt$"},
	"AUD": {"aud", "a$", "au$"}, "CAD": {"cad", "c$", "ca$"}, "NZD": {"nzd", "nz$"}, "BRL": {"brl", "r$"}, "MXN": {"mxn"}, "ARS": {"ars"},
	"AED": {"aed"}, "SAR": {"sar"}, "QAR": {"qar"}, "KWD": {"kwd"}, "OMR": {"omr"}, "JOD": {"jod", "jd"}, "EGP": {"egp", "e£"},
	"MAD": {"dhs"}, "TND": {"tnd", "dt"}, "DZD": {"dzd"}, "ZAR": {"zar"}, "NGN": {"ngn", "₦"}, "KES": {"kes", "ksh"},
	"VEF": {"vef", "bs.f"}, "VES": {"ves", "bs.s"},
}

// paymentsSumRE is a total's word that, under a payment's line, sums the payments.
var paymentsSumRE = lazyre.New(`^\W*ukupno\b`)

// currencyCodeRE is a currency's code or sign as a word of its own.
var currencyCodeRE = lazyre.New(`(?i)\b(?:eur|euro|chf|gbp|usd|pln|z[łl]|czk|k[čc]|huf|ft|sek|nok|dkk|kr|ron|lei|kn|bam|km)\b`)

// itemCodeEndRE is a line ending in a price with its VAT letter glued to it ("1,55A",
// "2,49B*"), as German tills print an item's: no total carries one. PaddleOCR, pairing a row's
// words by height, may set an item's price beside "SUMME" (a REWE receipt's "SUMME 1,55A"
// over its card's 33,64).
var itemCodeEndRE = lazyre.New(`\d[.,]\d{2}[A-D]\*?\s*$`)

// liraRE is an amount in Turkish lira as receipts print it.
var liraRE = lazyre.New(`\d[.,]\d{2}\s?tl\b`)

// Keywords of the total, scored by how surely they name the amount paid.
var totalWords = []struct {
	re    *lazyre.Regexp
	score float64
}{
	{lazyre.New(`zu\s*zahlen|zahlbetrag|amount due|to pay|payable|à payer|a payer|te betalen|da pagare|a pagar|a abonar|do zap[łl]aty|k úhrad[ěe]|na\s*[úu]hradu|[åa] betale|att betala|maksettava|mok[ėe]t[ia]?\b|fizetend[őo]|samaksai|za\s*pla[ćc]anje|za\s*platiti|za\s*pla[čc]ilo|za\s*uplatu`), 10},
	// A Czech or Slovak till's total after the cash rounding ("Cena po zaokr. 57.00" under
	// "Cena celkem 56.70") is the amount paid.
	{lazyre.New(`gesamtbetrag|endbetrag|rechnungsbetrag|bruttobetrag|grand total|gesamtsumme|endsumme|totaal|totale|po\s*zaokr`), 9},
	// Other languages' receipts: Polish "Suma PLN", Turkish "Toplam", Czech "Celkem",
	// Slovak "Spolu" and "Celkom", Finnish "Yhteensä", Spanish and Portuguese "Importe", Swedish and Latvian "Summa",
	// Danish "I alt", Lithuanian "Iš viso", Latvian "Kopā", Estonian "Kokku", Hungarian
	// "Összesen", Croatian, Bosnian and Serbian "Ukupno", Slovenian "Skupaj" (Norwegian and
	// Swedish "Totalt" is a total's word already), an American till's "TL $45.26".
	// (Ukupno under a payment's line sums the payments: paymentsSumRE.)
	{lazyre.New(`summe|total|gesamt|\bsum\b|montant|\bsuma\b|toplam|\brazem\b|celkem|\bspolu\b|\bcelkom\b|yhteens[äa]|\bimporte\b|\bsumma\b|\bi alt\b|i[šs] viso|\bkop[āa]\b|\bkokku\b|[öo]sszesen|\bukupno\b|\bskupaj\b|^\W*tl\s+\$?\d`), 8},
	{lazyre.New(`betrag|amount|bel[øo]p|\bimporto\b|[öo]sszeg\b`), 5}, // Norwegian "Beløp" on a card slip, Italian "Importo pagato", Hungarian "Összeg"
}

// Lines with a total's word that name no amount paid: the tax's sum ("Total GST: 0.75",
// "Summe MwSt", "Suma PTU", "GST payable (6%)" also behind a letter OCR made of a mark,
// "TOTAL INCLUDES 8% GST 1.07"; not "Total (Inclusive of GST)", the gross), one rate's sum
// ("Total 6% supplies"), the amount before tax ("Total (Excluding GST)", "Total 6%
// supplies (excl. GST)", "Summe netto") and a subtotal before discounts ("Sub-total",
// "Zwischensumme", Austrian tills' "Zw-Summe", "sous-total", "delsumma", "välisumma", an invoice's "Line Total Amount"), which would win a tie of votes as the
// larger figure.
var (
	taxSumRE    = lazyre.New(`(?:total|summe|gesamt|suma|summa|ukupno|skupaj)\s*[:(]?\s*(?:gst|sst|vat|tax|mwst|ust|tva|iva|btw|ptu|pvm|mva|moms|alv|dph|pdv|ddv)\b|^\W*(?:[a-z]\s+)?(?:gst|sst|vat|tax|mwst|ust|tva|iva|btw|pdv|ddv)\b|(?:total|summe|gesamt)\s+\d{1,2}(?:[.,]\d{1,2})?\s?%|\b(?:gst|sst|vat|tax)\s+payable|total\s+includ(?:es|ed)\b`)
	beforeTaxRE = lazyre.New(`\bexcl|exkl|\bohne\b|\bnett?o\b|\bnet\b|\bh\.?t\b|before\s+tax|sub-?\s?[tf]otal|zwischensumme|zw\.?\s?-?\s?summe|sous[-\s]?total|delsum(?:ma)?\b|v[äa]lisumma|mezisou[čc]et|line\s+total|positionssumme|avant\s+remises?|osnovica|\bosn\b|r[ée]sz[öo]sszeg|r[ée]sz[öo]sszesen`)
	// discountSumRE is the sum of a receipt's discounts ("TOTAL REMISE IMMEDIATE 14,18-",
	// "TOTAL DES AVANTAGES DU JOUR", "Summe Rabatt"): no amount paid; the sum before the
	// discounts ("TOTAL AVANT REMISES 33,09", beforeTaxRE) less it is.
	discountSumRE = lazyre.New(`(?:total|summe|gesamt)\s+(?:des\s+)?(?:remises?|avantages|r[ée]ductions?|rabatt\pL*|nachlass|discounts?|savings)\b|remise\s+imm[ée]diate`)
	// rateSumRE is one rate's sum in the words of GST invoices ("Total 0% supplies: 11.68",
	// "Total zero-rated supplies"), whose rate OCR misreads as letters ("Total Ok supplies",
	// "Total @% supplies"): it names no amount paid, however often the page repeats it.
	rateSumRE = lazyre.New(`total\s+\S{0,12}\s*supplies`)
)

var (
	// cardRE is a card payment's line, in the words of the tills of many countries (French
	// "CB" and "carte bancaire", Spanish "tarjeta", Italian "carta", "Bancomat" and
	// "pagamento elettronico", cash being "pagamento contante"; an American till's "CREDIT"
	// at the line's start; a loyalty card's "Carte Maison" is none).
	cardRE   = lazyre.New(`mastercard|master card|visa|maestro|girocard|ec-karte|ec karte|ec-cash|kreditkarte|karte|card|debit|lastschrift|\belv\b|amex|american express|v pay|vpay|apple pay|google pay|paypal|kontaktlos|bankkort|betalkort|kortti|kortel[ėe]|\bkarta\b|kartou|\bpin\b|\bbank\b|bankaxept|\bcb\b|carte bancaire|carte bleue|sans contact|contactless|tarjeta|\bcarta\b|bancomat|pagamento elettronico|^\W*credit\b|k[áa]rty[áa]`)
	cashRE   = lazyre.New(`\bbar\b|bargeld|\bcash\b|gegeben|espèces|contant[ei]|efectivo|kontant|k[äa]teinen|grynieji|hotovost|got[óo]wka|k[ée]szp[ée]nz|numerário|numerario|suma de sus|sus pag\pL*|su pago|gotovina`)
	changeRE = lazyre.New(`r[üu]e?ckgeld|zur[üu]e?ck|wechselgeld|\bchange\b|rendu|\bveksel|v[äa]xel|byttepenge|takaisin|vaihtoraha|gr[ąa][žz]a|vr[áa]ceno|\breszta\b|\bresto\b|\bcambio\b|\btroco\b|visszaj[áa]r|[vy]uelto|\bpovrat\b|vra[čc]ilo|\bkusur\b`)
	// "Betrag enthält 3,26 € MwSt": the amount a price contains is its VAT, even where OCR
	// misreads the MwSt after it ("MASt").
	taxRE = lazyre.New(`mwst|mw\.?st|ust\b|ust\.|steuer|netto|\bnet\b|tva|\bvat\b|\btax\b|btw|iva|%|enth[äa]lt|\bmva\b|\bmoms\b|\balv\b|\bpvm\b|\bdph\b|\bpvn\b|\b[áa]fa\b|\bptu\b|\bpdv\b|\bddv\b`)
)

// total finds the amount paid: each line that names it votes with its keyword's score, a
// cash payment less the change votes, a card payment votes (cards pay the exact amount), and
// the VAT breakdown's gross sum votes. The winner's share of the votes is its confidence.
func (p *parser) total(vat []VATLine) (decimal.Decimal, float64, int) {
	votes := map[string]float64{}
	values := map[string]decimal.Decimal{}
	lineOf := map[string]int{}
	named := map[string]float64{} // votes from lines that name a total, not derived ones
	vote := func(v decimal.Decimal, score float64, line int) {
		if v.Sign() <= 0 || v.GreaterThan(decimal.NewFromInt(1_000_000)) {
			return
		}
		k := v.StringFixed(2)
		votes[k] += score
		if line >= 0 {
			named[k] += score
		}
		values[k] = v
		if _, ok := lineOf[k]; !ok || score >= 8 {
			lineOf[k] = line
		}
	}
	var cash, change, rounding decimal.Decimal
	var cards, totals, before, taxes, discounts []decimal.Decimal
	for i, l := range p.lower {
		// "Total TTC 38 400,00 €" as OCR sets it: the groups at a line's end are one figure.
		as := amounts(joinGroups(p.lines[i], groupedEndRE))
		v, ok := last(as)
		if ok && len(as) == 1 {
			switch {
			case taxSumRE.MatchString(l):
				taxes = append(taxes, v.Abs())
			case discountSumRE.MatchString(l):
				discounts = append(discounts, v.Abs())
			case beforeTaxRE.MatchString(l):
				before = append(before, v.Abs())
			}
		}
		if !ok && roundingRE.MatchString(l) {
			if m := centsOnlyRE.FindStringSubmatch(l); m != nil {
				v, ok = decimal.RequireFromString("0."+m[1]), true // "Rounding Adjustment RM .02"
			}
		}
		if !ok && i+1 < len(p.lines) && len(amounts(p.lines[i+1])) == 1 && !hasLetters(currencyCodeRE.ReplaceAllString(p.lines[i+1], ""), 2) {
			v, ok = last(amounts(p.lines[i+1])) // the figure on the next line, its currency's code beside it or not ("MONTANT REEL" over "57.96 EUR")
		}
		if !ok {
			continue
		}
		v = v.Abs()
		switch {
		case roundingRE.MatchString(l) && v.LessThanOrEqual(decimal.New(10, -2)):
			rounding = v // "Rounding Adj 0.02": cash rounded to five cents
			continue
		case changeRE.MatchString(l):
			change = v
			continue
		case cashRE.MatchString(l) && !taxRE.MatchString(l):
			cash = v
			vote(v, 1, i)
			continue
		case cardRE.MatchString(l) && !taxRE.MatchString(l):
			vote(v, 6, i)
			cards = append(cards, v)
			continue
		case paymentsSumRE.MatchString(l) && i > 0 && (cashRE.MatchString(p.lower[i-1]) || cardRE.MatchString(p.lower[i-1])):
			// A Bosnian fiscal receipt's "UKUPNO: 20,00" under "UPLAĆENO:" and its
			// "GOTOVINA: 20,00" sums the payments, the cash before its change; the total is
			// its "TOTAL: 19,25".
			continue
		}
		for _, w := range totalWords {
			if w.re.MatchString(l) {
				if taxRE.MatchString(l) && w.score < 8 || taxSumRE.MatchString(l) || rateSumRE.MatchString(l) || w.score < 10 && beforeTaxRE.MatchString(l) || discountSumRE.MatchString(l) {
					break // MwSt-Betrag, Netto-Betrag, Total GST, Sub-total, Total remises
				}
				if itemCodeEndRE.MatchString(p.lines[i]) {
					break // an item's price beside the total's word (itemCodeEndRE)
				}
				if len(as) >= 2 && taxRE.MatchString(strings.Join(p.lower[max(0, i-3):i], " ")) {
					// The total row of a VAT table under its rows ("Total: 12.50 0.75"): its
					// last figure is the tax; base and tax make a gross, which may be the total.
					if base := as[0].v.Abs(); v.LessThan(base.Mul(decimal.New(3, -1))) {
						vote(base.Add(v), 3, i)
						break
					}
				}
				vote(v, w.score, i)
				if w.score >= 8 {
					totals = append(totals, v)
				}
				break
			}
		}
		if strings.HasPrefix(l, "eur") && len(as) == 1 && !hasLetters(l[3:], 3) {
			vote(v, 3, i) // "EUR 10,90" on a card slip
		}
	}
	// A card pays what two totals add up to: a fuel station's shop and its fuel, each under
	// a total of its own ("Total Shop 40.00", "Total Treibstoff 52.50", "MasterCard 92.50").
	// The parts' votes go to the sum.
	for _, c := range cards {
		for i, a := range totals {
			for _, b := range totals[i+1:] {
				if !a.Equal(b) && a.Add(b).Equal(c) {
					vote(c, votes[a.StringFixed(2)]+votes[b.StringFixed(2)], -1)
					p.ofParts = c
				}
			}
		}
	}
	if cash.Sign() > 0 && change.Sign() > 0 && cash.GreaterThan(change) {
		vote(cash.Sub(change), 7, -1)
		p.tendered, p.change = cash, change
	}
	p.paid = slices.Clone(cards)
	if p.tendered.Sign() > 0 {
		p.paid = append(p.paid, p.tendered.Sub(p.change))
	}
	p.before = before
	p.addsUp = p.addsUp[:0]
	for _, b := range before[:min(len(before), maxTaxAmounts)] {
		for _, t := range taxes[:min(len(taxes), maxTaxAmounts)] {
			if t.Sign() > 0 && t.LessThan(b) {
				p.addsUp = append(p.addsUp, b.Add(t))
			}
		}
		for _, d := range discounts[:min(len(discounts), maxTaxAmounts)] {
			if d.Sign() > 0 && d.LessThan(b) {
				p.addsUp = append(p.addsUp, b.Sub(d))
			}
		}
	}
	if len(vat) > 0 {
		sum, complete := decimal.Zero, true
		for _, l := range vat {
			if !l.Gross.Valid() {
				complete = false
				break
			}
			sum = sum.Add(l.Gross.Value())
		}
		if complete && !p.incompleteVAT {
			vote(sum, 6, -1)
		}
	}
	best, bestScore, all := "", 0.0, 0.0
	for k, s := range votes {
		all += s
		if s > bestScore || s == bestScore && values[k].GreaterThan(values[best]) {
			best, bestScore = k, s
		}
	}
	if best == "" {
		return decimal.Decimal{}, 0, -1
	}
	if b := values[best]; p.as == asReceipt && rounding.Sign() > 0 && !fiveCents(b) {
		// The total before the cash rounding won: the amount paid is the one the rounding
		// makes, a multiple of five cents (its sign OCR may have lost).
		for _, c := range []decimal.Decimal{b.Add(rounding), b.Sub(rounding)} {
			if fiveCents(c) {
				k := c.StringFixed(2)
				votes[k], values[k], lineOf[k] = votes[best], c, lineOf[best]
				best = k
				break
			}
		}
	}
	p.rounding = rounding
	p.byTotalWord = slices.ContainsFunc(totals, values[best].Equal)
	p.runnersUp = p.runnersUp[:0]
	for k, s := range named {
		if k != best && s >= 3 { // named as a total by a line, not only paid or derived
			p.runnersUp = append(p.runnersUp, totalCandidate{values[k], lineOf[k]})
		}
	}
	slices.SortFunc(p.runnersUp, func(a, b totalCandidate) int {
		return cmp.Compare(named[b.v.StringFixed(2)], named[a.v.StringFixed(2)])
	})
	conf := bestScore / all * min(1, bestScore/10)
	return values[best], round2(conf), lineOf[best]
}

// centsOnlyRE is a figure of cents printed without its zero (".02"), as a rounding line
// may print it.
var centsOnlyRE = lazyre.New(`(?:^|[\s:])-?[.,](\d{2})\s*$`)

// roundingRE is a line of the cash rounding: Malaysia's, Switzerland's, the Netherlands'
// and Finland's cash totals are rounded to five cents.
var roundingRE = lazyre.New(`round|rundung|arrondi|afronding|\brnd\b|pembundaran`)

// fiveCents: v is a multiple of five cents.
func fiveCents(v decimal.Decimal) bool {
	return v.Mul(decimal.NewFromInt(20)).IsInteger()
}

// totalCandidate is an amount that other lines name as the total.
type totalCandidate struct {
	v    decimal.Decimal
	line int
}

// breakdownDecides: when the VAT breakdown does not add up to the total chosen, but does
// add up, completed as completeVAT does, to another amount the receipt names as its total,
// that amount is the total (OCR misread a digit of the other). Answers the total's line.
func (p *parser) breakdownDecides(r *Result, partial []partialVAT, rates []decimal.Decimal, line int) int {
	if !r.Data.Gross.Valid() || sums(r.VAT, r.Data.Gross.Value()) || r.Data.Gross.Value().Equal(p.ofParts) {
		return line // right, or the sum of two totals, whose breakdown may cover only one
	}
	for _, c := range p.runnersUp {
		trial := &Result{VAT: slices.Clone(r.VAT)}
		trial.Data.Gross = money(c.v)
		completeVAT(trial, partial, rates)
		if sums(trial.VAT, c.v) {
			r.Data.Gross, r.VAT, r.Confidence.Gross = trial.Data.Gross, trial.VAT, 0.9
			return c.line
		}
	}
	return line
}

// sums: the breakdown's lines add up to total, to the cent.
func sums(lines []VATLine, total decimal.Decimal) bool {
	if len(lines) == 0 {
		return false
	}
	sum := decimal.Zero
	for _, l := range lines {
		if !l.Gross.Valid() {
			return false
		}
		sum = sum.Add(l.Gross.Value())
	}
	return sum.Equal(total)
}

func round2(f float64) float64 { return float64(int(f*100+0.5)) / 100 }

func hasLetters(s string, n int) bool {
	c := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			c++
			if c >= n {
				return true
			}
		}
	}
	return false
}

// A VAT rate: 19%, 7,00 %, 19.0%; OCR sometimes sets a space after the comma.
var rateRE = lazyre.New(`(\d{1,2})(?:\s?[,.]\s?(\d{1,2}))?\s?%`)

// vatHeaderRE names a VAT table's columns ("MwSt Netto Brutto", "MWST-CODE NETTO-Entgelt
// MWST-Betrag", "Mehrwertst. ohne MwSt mit MwSt"), as OCR reads them (HUST, MUST for MwSt).
var (
	vatHeaderTaxRE  = lazyre.New(`mw\.?st|must|hust|\bust\b|steuer|mehrwert|\btva\b|\btaxe\b|\bvat\b|\bbtw\b|\biva\b|\bmva\b|\bmoms\b|\balv\b|\bvero\b|\bpvm\b|\bdph\b|\bpvn\b|\b[áa]fa\b|\bpdv\b|\bddv\b`)
	vatHeaderColsRE = lazyre.New(`nett|brutto|ohne|umsatz|\bnet\b|betrag|total|entgelt|\bht\b|\bttc\b|gross|\brate\b|\btaux\b|satz|excl|grunn|underlag|veroton|verollinen|z[áa]klad|imponibile|\bbase\b`)
)

// maxVATAmounts bounds the amounts of a VAT line tried against each other (a table row
// prints three or four; the search is cubic in them).
const maxVATAmounts = 8

// tableSumRE starts a VAT table's sum line ("Summe 2,33 17,44 19,77"), OCR's slips
// included.
var tableSumRE = lazyre.New(`^\W*(?:summ|sum\b|total|gesamt)`)

// otherTaxRE is a tax beside VAT that receipts print with a rate: Croatia's consumption
// tax on drinks ("PNP (3%) 26,56 0,80", porez na potrošnju), added to the gross beside the
// VAT, its base part of the VAT's.
var otherTaxRE = lazyre.New(`\bpnp\b|porez na potro`)

// netWordRE starts the net's own line under a VAT line (Croatian, Bosnian and Serbian
// "Osnovica", "OSN.": the base).
var netWordRE = lazyre.New(`^\W*(?:netto|net\b|nettobetrag|netto-warenwert|warenwert netto|osnovica|osn\b)`)

// partialVAT is a line with a rate whose amounts did not fit together (OCR misread one):
// the total may complete it.
type partialVAT struct {
	rate    decimal.Decimal
	amounts []decimal.Decimal
	code    string
	named   bool // its line names the tax ("inkl. 7% MwSt. auf 42,52"), no discount's percentage
}

// lacksRate: a line naming the tax at a rate the breakdown's read lines do not have did not
// fit together; the breakdown is incomplete, and its sum no total (#20: a Gasthaus's "A
// inkl. 19% MwSt. auf 11,93 2,27" read, its "B inkl. 7% MwSt. auf 42,52 2,98" misread: the
// A line's 14,20 was taken for the total of 59,70).
func lacksRate(vat []VATLine, partial []partialVAT) bool {
	return slices.ContainsFunc(partial, func(pv partialVAT) bool {
		return pv.named && !pv.rate.IsZero() && !slices.ContainsFunc(vat, func(l VATLine) bool { return l.Rate.Valid() && l.Rate.Value().Equal(pv.rate) })
	})
}

// vatBreakdown reads the VAT table: each line with a rate and amounts whose figures fit
// together (net + VAT = gross, VAT = net × rate) gives one rate's line. OCR often misreads a
// rate (13 % for 19 %) or loses it: a line in a VAT table (up to four lines under a header
// naming its columns) whose three amounts fit one of the country's rates gets that rate.
// Lines with a rate whose amounts do not fit are kept apart for completeVAT.
func (p *parser) vatBreakdown() (out []VATLine, partial []partialVAT) {
	if ls, partial := p.ptuBreakdown(); len(ls) > 0 {
		return ls, partial
	}
	defer func() {
		if len(out) == 0 {
			out = p.sumsBeforeAndAfterTax()
		}
	}()
	out = []VATLine{}
	seen := map[string]bool{}
	rates := tableRates(p.currency(), p.language())
	header, paired := -10, -1
	for i, l := range p.lines {
		low := p.lower[i]
		if i == paired {
			continue // read with the line above (sameRateAmount)
		}
		if vatHeader(l, low) {
			header = i
			continue
		}
		if otherTaxRE.MatchString(low) {
			continue
		}
		inTable := i-header <= 6
		var printed decimal.Decimal
		hasRate, rest, before, code := false, l, "", ""
		if m := rateRE.FindStringSubmatchIndex(l); m != nil {
			rate, err := matchedRate(l, m)
			if err == nil && plausibleRate(rate) {
				printed, hasRate, rest, before = decimal.RequireFromString(rate.String()), true, l[m[1]:], l[:m[0]] // 19,00 % is 19
				code = rateCode(l[:m[0]])
			} else if err == nil {
				rest = l[m[1]:] // a misread rate is no amount
			}
		}
		// A row beside a line that names the tax, its table's header lost to OCR ("5,50
		// 8,33 € 0,46 € 8,79 €" over "TOTAL TVA … 8,79 €"), is read only when its figures
		// are a rate of the country, a net, its VAT and their gross (figureRate).
		lone := !hasRate && !inTable && (i > 0 && taxRE.MatchString(p.lower[i-1]) || i+1 < len(p.lines) && taxRE.MatchString(p.lower[i+1]))
		if !hasRate && !inTable && !lone || !hasRate && tableSumRE.MatchString(low) {
			continue // the table's sum line is no rate's line
		}
		var as []decimal.Decimal
		for _, a := range amounts(rest) {
			as = append(as, a.v.Abs())
		}
		as = as[:min(len(as), maxVATAmounts)]
		line, ok := VATLine{}, false
		if !hasRate {
			line, ok = figureRate(rest)
		}
		if lone {
			if ok && line.Net.Valid() && line.Gross.Valid() && slices.ContainsFunc(rates, line.Rate.Value().Equal) && !seen[line.Rate.Value().String()] {
				seen[line.Rate.Value().String()] = true
				out = append(out, line)
			}
			continue
		}
		if !ok && !hasRate && inTable && !adjustmentRE.MatchString(strings.TrimSpace(l)) {
			// An invoice's table names the rate in its header ("Steuersatz [%]") and prints
			// it bare in its rows ("Umsatzsteuer (S)   275,00   7   19,25"); an allowance's
			// row prints its percentage so ("Abschlag Stammkundenrabatt 2,5 850,00").
			if rate, ok := bareRate(rest); ok {
				printed, hasRate = rate, true
			}
		}
		if hasRate && !ok {
			line, ok = fitVAT(printed, as)
			if !ok && len(as) < 3 && i+1 < len(p.lines) && netWordRE.MatchString(p.lower[i+1]) {
				// "incl. 19,00 % MwSt 15,95" over "Netto-Warenwert 83,91" (MediaMarkt,
				// Saturn): the net on the line below.
				for _, a := range amounts(p.lines[i+1]) {
					as = append(as, a.v.Abs())
				}
				line, ok = fitVAT(printed, as)
			}
			if !ok && len(as) == 1 && i+1 < len(p.lines) && namesTax(low) && namesTax(p.lower[i+1]) {
				// The tax and the base each on a line of its own with the rate (a Czech
				// till's "z toho DPH 15.0% 7.43" over "Základ DPH 15.0% 49.57", a Slovak
				// "DPH 20% 1,50" beside "Základ dane 20% 7,50"): the two lines are one rate's.
				// Both must name the tax or its base: two items at one rate (an Italian
				// receipt's "10,00% 4,99" over "10,00% 0,50") are none.
				if next, ok2 := sameRateAmount(p.lines[i+1], printed); ok2 {
					if line, ok = fitVAT(printed, append(as, next)); ok {
						paired = i + 1
					}
				}
			}
			if !ok && len(as) == 0 && i+2 < len(p.lines) && netWordRE.MatchString(p.lower[i+1]) && taxRE.MatchString(p.lower[i+2]) {
				// The rate alone on its line, the base and the tax each on one below it (a
				// Bosnian fiscal receipt's "E: 17,00%", "OSN. E: 16,45", "PDV E: 2,80").
				for _, l := range p.lines[i+1 : i+3] {
					if a, ok := last(amounts(l)); ok {
						as = append(as, a.Abs())
					}
				}
				line, ok = fitVAT(printed, as)
			}
			if !ok && len(as) < 2 && !adjustmentRE.MatchString(strings.TrimSpace(l)) {
				// The base before the rate, the tax after it ("45,00 €   20 %   9,00 €");
				// not an allowance's or charge's row ("Abschlag Sondernachlass 115,30 7 %
				// -8,07": its amount at the rate of its VAT).
				var both []decimal.Decimal
				for _, a := range amounts(before) {
					both = append(both, a.v.Abs())
				}
				if len(both) > 0 {
					line, ok = fitVAT(printed, append(both[len(both)-1:], as...))
				}
			}
		}
		for _, r := range rates {
			if ok {
				break
			}
			line, ok = fitTriple(r, as)
		}
		if !ok {
			if len(as) > 0 {
				partial = append(partial, partialVAT{rate: printed, amounts: as, code: code, named: hasRate && vatHeaderTaxRE.MatchString(low)})
			}
			continue
		}
		if signed := amounts(rest); negative(signed) || printedNegative(signed, line.Net) && (line.VAT.Value().IsZero() || printedNegative(signed, line.VAT)) {
			// A credit note's table: every figure negative, or the net and VAT read (an
			// allowance's column beside them may print its figure positive).
			line.Net, line.VAT, line.Gross = neg(line.Net), neg(line.VAT), neg(line.Gross)
		}
		if code == "" && !hasRate {
			code = rateCode(l)
		}
		line.Code = code
		k := line.Rate.Value().String()
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, line)
	}
	return out, partial
}

// baseWordRE names a tax's base in Czech and Slovak ("Základ DPH", "Základ dane").
var baseWordRE = lazyre.New(`z[áa]klad`)

// namesTax: the lower-case line names a tax or its base in a word, not only by a per cent
// sign.
func namesTax(low string) bool {
	return taxRE.MatchString(strings.ReplaceAll(low, "%", "")) || baseWordRE.MatchString(low)
}

// matchedRate is the rate a match m of rateRE in l reads ("19,00 %" is 19.00).
func matchedRate(l string, m []int) (decimal.Decimal, error) {
	return decimal.NewFromString(l[m[2]:m[3]] + "." + orZero(l, m[4], m[5]))
}

// sameRateAmount is the one amount of line l after the rate it prints, when that rate is
// rate.
func sameRateAmount(l string, rate decimal.Decimal) (decimal.Decimal, bool) {
	m := rateRE.FindStringSubmatchIndex(l)
	if m == nil {
		return decimal.Decimal{}, false
	}
	r, err := matchedRate(l, m)
	as := amounts(l[m[1]:])
	if err != nil || !r.Equal(rate) || len(as) != 1 {
		return decimal.Decimal{}, false
	}
	return as[0].v.Abs(), true
}

// vatHeader: the line names a VAT table's columns (l, and low its lower case). Beside the
// table, on its header's row, may stand a total ("Taxe  Base  Montant      Total HT
// -218,48 €"): the words before the first amount are the header then, when they are three
// or more, hold no figure (a rate would make it a VAT line: "USt 19 % auf Netto 100,00"),
// and name a column in a word of its own beside the tax's (a row's label names the tax
// alone: "Umsatzsteuer (S)  -4,85 ...", "Kein Ausweis der Umsatzsteuer bei  2000,00").
func vatHeader(l, low string) bool {
	as := amounts(l)
	if len(as) == 0 {
		return vatHeaderTaxRE.MatchString(low) && vatHeaderColsRE.MatchString(low)
	}
	head := strings.ToLower(l[:as[0].start])
	words := strings.Fields(head)
	if len(words) < 3 || strings.ContainsAny(head, "0123456789") || !vatHeaderTaxRE.MatchString(head) {
		return false
	}
	for _, w := range words {
		if !vatHeaderTaxRE.MatchString(w) && vatHeaderColsRE.MatchString(w) {
			return true
		}
	}
	return false
}

// bareRateRE is a number standing alone in a table row: not an amount (two decimals after
// the separator), a date or part of a longer figure.
var bareRateRE = lazyre.New(`(?:^|\s)(\d{1,2}(?:[.,]\d)?)(?:\s|$)`)

// bareRate is the one plausible rate a table row prints without a per cent sign.
func bareRate(l string) (decimal.Decimal, bool) {
	var found []decimal.Decimal
	as := amounts(l)
	for _, m := range bareRateRE.FindAllStringSubmatchIndex(l, -1) {
		if slices.ContainsFunc(as, func(a amount) bool { return m[2] < a.end && a.start < m[3] }) {
			continue // the cents of an amount OCR spaced ("21, 20")
		}
		r, err := decimal.NewFromString(strings.ReplaceAll(l[m[2]:m[3]], ",", "."))
		if err == nil && r.Sign() >= 0 && plausibleRate(r) {
			found = append(found, decimal.RequireFromString(r.String()))
		}
	}
	if len(found) != 1 {
		return decimal.Decimal{}, false
	}
	return found[0], true
}

// figureRate reads a VAT table's row whose rate OCR read as one of its figures: printed as
// an amount ("9 7,70 16.44 213.46", a Swiss till's rate, VAT and net) or run together with
// the figure after it ("103,27 32,73 36,00" for "10  3,27  32,73  36,00": OCR lost the
// space between a rate and its VAT). The other figures must fit that rate to the half
// cent, and a figure split off a rate must be one of a printed net, VAT and gross that add
// up: a rate found inside a figure is a guess the arithmetic has to bear out.
func figureRate(row string) (VATLine, bool) {
	as := amounts(row)
	if len(as) < 3 || len(as) > maxVATAmounts {
		return VATLine{}, false // the rate's figure and at least two others
	}
	halfCent := decimal.New(5, -3)
	// The VAT is the net's at the rate to half a cent, or the gross's share: a till that
	// computes the VAT from the gross rounds the net ("14,00 0,64 4,61 5,25": 4,61 × 14 %
	// is 0,6454, 5,25 × 14/114 is 0,6447).
	toHalfCent := func(l VATLine) bool {
		r := l.Rate.Value().Div(decimal.NewFromInt(100))
		if l.Net.Value().Mul(r).Sub(l.VAT.Value()).Abs().LessThanOrEqual(halfCent) {
			return true
		}
		share := l.Gross.Value().Mul(r).Div(r.Add(decimal.NewFromInt(1)))
		return l.Gross.Valid() && share.Sub(l.VAT.Value()).Abs().LessThanOrEqual(halfCent)
	}
	// The rate stands first in its row, as the table's rate column does.
	first, others := as[0], make([]decimal.Decimal, 0, len(as)-1)
	for _, b := range as[1:] {
		others = append(others, b.v.Abs())
	}
	if first.v.IsZero() {
		// A row at 0 % prints its rate as "0,00" and a net equal to its gross ("0,00 2,50
		// 0,00 2,50", a Norwegian bottle deposit).
		if line, ok := fitTriple(decimal.Zero, others); ok && line.VAT.Value().IsZero() {
			return line, true
		}
	}
	if r := first.v.Abs(); r.Sign() > 0 && plausibleRate(r) {
		if line, ok := fitVAT(decimal.RequireFromString(r.String()), others); ok && toHalfCent(line) {
			return line, true
		}
	}
	digits := strings.Map(func(c rune) rune {
		if c >= '0' && c <= '9' {
			return c
		}
		return -1
	}, row[first.start:first.end])
	for n := 1; n <= 2 && len(digits)-n >= 3; n++ { // a rate's digits and a figure of at least 0,00
		rate, err := decimal.NewFromString(digits[:n])
		rest := digits[n:]
		if err != nil || rate.IsZero() || !plausibleRate(rate) || len(rest) > 3 && rest[0] == '0' {
			continue
		}
		v := decimal.RequireFromString(rest).Shift(-2)
		line, ok := fitTriple(rate, append([]decimal.Decimal{v}, others...))
		if ok && toHalfCent(line) && (line.VAT.Value().Equal(v) || line.Net.Value().Equal(v)) {
			return line, true
		}
	}
	return VATLine{}, false
}

// negative: a line's amounts are all below zero.
func negative(as []amount) bool {
	for _, a := range as {
		if a.v.Sign() >= 0 {
			return false
		}
	}
	return len(as) > 0
}

// printedNegative: the line prints d's figure with a minus sign, and not also without.
func printedNegative(as []amount, d einvoice.Decimal) bool {
	if !d.Valid() {
		return false
	}
	minus := false
	for _, a := range as {
		if a.v.Abs().Equal(d.Value().Abs()) {
			if a.v.Sign() > 0 {
				return false
			}
			minus = minus || a.v.Sign() < 0
		}
	}
	return minus
}

func neg(d einvoice.Decimal) einvoice.Decimal {
	if !d.Valid() {
		return d
	}
	return einvoice.NewDecimal(d.Value().Neg())
}

// rateCode is the receipt's letter for a rate at the start of a VAT line ("A 7 %", "B1 19 %").
func rateCode(s string) string {
	code := strings.TrimSpace(s)
	if f := strings.Fields(strings.ToLower(code)); len(f) > 1 && f[0] == "z" && f[1] == "toho" {
		return "" // Czech "z toho DPH 15%": "of which", no rate's letter
	}
	if f := strings.Fields(code); len(f) > 0 {
		code = f[0]
	}
	switch {
	case len(code) == 1 && unicode.IsLetter(rune(code[0])):
		return strings.ToUpper(code)
	case len(code) == 2 && code[0] >= 'A' && code[0] <= 'D':
		return code[:1]
	}
	return ""
}

// tableRates are the rates a VAT line without a readable rate is tried at: those of the
// country the receipt's currency names (a Swiss franc's receipt is Swiss, whatever its
// language), else the one its language suggests (Germany's when unknown), zero left out.
func tableRates(currency, lang string) []decimal.Decimal {
	country := countryOfCurrency[currency]
	if country == "" {
		country = countryOfLang[lang]
	}
	if country == "" || country == "GB" && currency != "GBP" {
		country = "DE"
	}
	var out []decimal.Decimal
	for _, r := range vatRates[country] {
		if r != "0" {
			out = append(out, decimal.RequireFromString(r))
		}
	}
	return out
}

// countryOfCurrency: the countries whose currency alone says where a receipt is from.
var countryOfCurrency = map[string]string{"CHF": "CH", "GBP": "GB", "PLN": "PL", "CZK": "CZ", "DKK": "DK", "SEK": "SE", "NOK": "NO", "HUF": "HU"}

// fitTriple finds net, VAT and gross among a line's amounts at rate: all three printed, net
// + VAT = gross to the cent, when the rate was not read (two amounts fitting a guessed rate
// are too weak a sign).
func fitTriple(rate decimal.Decimal, as []decimal.Decimal) (VATLine, bool) {
	cent := decimal.New(2, -2)
	r := rate.Div(decimal.NewFromInt(100))
	for i, net := range as {
		for j, vat := range as {
			for k, gross := range as {
				if i == j || j == k || i == k || net.Sign() <= 0 || !net.Add(vat).Equal(gross) || net.Mul(r).Sub(vat).Abs().GreaterThan(cent) {
					continue
				}
				return VATLine{Rate: einvoice.NewDecimal(rate), Net: money(net), VAT: money(vat), Gross: money(gross)}, true
			}
		}
	}
	return VATLine{}, false
}

// completeVAT completes the breakdown with the total as the missing figure. When the lines
// read do not add up to the total, the difference is the gross of a rate OCR misread: a line
// kept apart (a rate whose amounts did not fit, or a table line without a readable rate)
// completes it when one of its amounts is that gross at its printed rate, or is the net or
// VAT that, with the difference, fits a rate to the cent.
func completeVAT(r *Result, partial []partialVAT, rates []decimal.Decimal) {
	if !r.Data.Gross.Valid() || len(partial) == 0 {
		return
	}
	cent := decimal.New(1, -2)
	for range partial {
		rem := r.Data.Gross.Value()
		used := map[string]bool{}
		for _, l := range r.VAT {
			rem = rem.Sub(l.Gross.Value())
			used[l.Rate.Value().String()] = true
		}
		if rem.Sign() <= 0 {
			return
		}
		line, ok := VATLine{}, false
	search:
		for _, pv := range partial {
			try := []decimal.Decimal{}
			if !pv.rate.IsZero() {
				try = append(try, pv.rate)
			}
			try = append(try, rates...)
			for _, rate := range try {
				if used[rate.String()] {
					continue
				}
				vatOf := func(gross decimal.Decimal) decimal.Decimal {
					return gross.Mul(rate).Div(rate.Add(decimal.NewFromInt(100))).Round(2)
				}
				if len(pv.amounts) == 0 && len(partial) == 1 && rate.Equal(pv.rate) {
					// A rate whose figures OCR lost, the one line missing: the rest of the
					// total is its gross (a Polish summary's "PTU A 23%" beside a read B).
					line, ok = VATLine{Rate: einvoice.NewDecimal(rate), Net: money(rem.Sub(vatOf(rem))), VAT: money(vatOf(rem)), Gross: money(rem), Code: pv.code}, true
					break search
				}
				for _, a := range pv.amounts {
					switch {
					case a.Equal(rem) && rate.Equal(pv.rate) && !contradicts(pv.amounts, rem, vatOf(rem)):
						// the gross, at the rate printed, unless the line's other figures say
						// otherwise ("7,0% 0,36 6,47": 0,36 is the VAT of 5,47, not of 6,47, so
						// one of the two is misread, and the total may be the one)
						line, ok = VATLine{Rate: einvoice.NewDecimal(rate), Net: money(rem.Sub(vatOf(rem))), VAT: money(vatOf(rem)), Gross: money(rem)}, true
					case a.LessThan(rem) && vatOf(rem).Sub(rem.Sub(a)).Abs().LessThanOrEqual(cent): // the net
						line, ok = VATLine{Rate: einvoice.NewDecimal(rate), Net: money(a), VAT: money(rem.Sub(a)), Gross: money(rem)}, true
					case a.LessThan(rem) && a.Sign() > 0 && vatOf(rem).Sub(a).Abs().LessThanOrEqual(cent) &&
						(rate.Equal(pv.rate) || slices.ContainsFunc(pv.amounts, func(b decimal.Decimal) bool { return b.Equal(rem.Sub(a)) })):
						// the VAT, at the rate printed or with the net beside it
						line, ok = VATLine{Rate: einvoice.NewDecimal(rate), Net: money(rem.Sub(a)), VAT: money(a), Gross: money(rem)}, true
					}
					if ok {
						line.Code = pv.code
						break search
					}
				}
			}
		}
		if !ok {
			return
		}
		r.VAT = append(r.VAT, line)
	}
}

// contradicts: a VAT line's amounts other than its gross hold one smaller than the gross that
// is neither its VAT nor its net (to the cent): OCR misread a figure of the line, perhaps
// the gross, which then confirms nothing.
func contradicts(as []decimal.Decimal, gross, vat decimal.Decimal) bool {
	cent := decimal.New(1, -2)
	near := func(a, b decimal.Decimal) bool { return a.Sub(b).Abs().LessThanOrEqual(cent) }
	for _, a := range as {
		if a.Sign() > 0 && a.LessThan(gross) && !near(a, vat) && !near(a, gross.Sub(vat)) {
			return true
		}
	}
	return false
}

func orZero(s string, a, b int) string {
	if a < 0 {
		return "0"
	}
	return s[a:b]
}

func plausibleRate(r decimal.Decimal) bool {
	for _, rates := range vatRates {
		for _, x := range rates {
			if r.Equal(decimal.RequireFromString(x)) {
				return true
			}
		}
	}
	for _, rates := range formerRates {
		for _, f := range rates {
			if r.Equal(decimal.RequireFromString(f.rate)) {
				return true
			}
		}
	}
	return false
}

// fitVAT finds among a line's amounts the net, VAT and gross of one rate, in whatever order
// the receipt prints them; two amounts are enough when the rate fixes the third.
func fitVAT(rate decimal.Decimal, as []decimal.Decimal) (VATLine, bool) {
	cent := decimal.New(2, -2)
	r := rate.Div(decimal.NewFromInt(100))
	fits := func(net, vat decimal.Decimal) bool {
		return net.Sign() > 0 && net.Mul(r).Sub(vat).Abs().LessThanOrEqual(cent)
	}
	line := VATLine{Rate: einvoice.NewDecimal(rate)}
	for i := range as {
		for j := range as {
			if i == j {
				continue
			}
			for k := range as {
				if k == i || k == j {
					continue
				}
				if net, vat, gross := as[i], as[j], as[k]; fits(net, vat) && net.Add(vat).Equal(gross) { // a till prints net as gross less VAT
					line.Net, line.VAT, line.Gross = money(net), money(vat), money(gross)
					return line, true
				}
			}
		}
	}
	// Of the pairs that fit, one that fits to the cent (the till rounds the VAT once)
	// before one that fits only with the slack: "Satz Total MWST 2.50 % 32.40 0.79" is a
	// gross and its VAT (31.61 at 2.5 % is 0.79), not a net (32.40 at 2.5 % is 0.81).
	// Then the one printed closest together (a table sets a rate's
	// figures in neighbouring columns: "Warenwert -2,90 | Zu-/Abschlag 0,08 |
	// Steuerbasis -2,82 | 7 | -0,20", where 2,90 fits 0,20 at 7 % too), then the one of the
	// largest net: two cents of slack let small figures fit by chance (0,15 VAT of a 0,77
	// net at 19 % beside the net 4,85 and its VAT 0,92), large ones hardly.
	halfCent := decimal.New(5, -3)
	found, apart, toCent := false, 0, false
	for i := range as {
		for j := range as {
			if i == j {
				continue
			}
			a, b := as[i], as[j]
			var net, vat decimal.Decimal
			switch {
			case fits(a, b) && (b.Sign() > 0 || rate.IsZero()): // net, VAT (none at 0 %)
				net, vat = a, b
			case b.GreaterThan(a) && fits(b.Sub(a), a) && a.Sign() > 0: // VAT, gross
				net, vat = b.Sub(a), a
			default:
				continue
			}
			d := max(i-j, j-i)
			exact := net.Mul(r).Sub(vat).Abs().LessThanOrEqual(halfCent)
			if !found || exact && !toCent || exact == toCent && (d < apart || d == apart && net.GreaterThan(line.Net.Value())) {
				line.Net, line.VAT, line.Gross = money(net), money(vat), money(net.Add(vat))
				found, apart, toCent = true, d, exact
			}
		}
	}
	return line, found
}

// maxTaxAmounts bounds the amounts of tax lines vatWithoutRate tries against each other.
const maxTaxAmounts = 12

// vatWithoutRate reads the VAT of a receipt that prints no rate, only its VAT and net in
// words ("Betrag enthält 3,26 € MwSt", "Netto: 46,64", a bookshop's card slip): among the
// amounts of its tax lines, a VAT and a net that add up to the total to the cent and whose
// ratio is one of rates (to the cent) are its one VAT line. The sum and the ratio are the
// cross-check: two figures that pass both by chance are rare.
func (p *parser) vatWithoutRate(r *Result, rates []decimal.Decimal) {
	if !r.Data.Gross.Valid() {
		return
	}
	gross := r.Data.Gross.Value()
	var as []decimal.Decimal
	for i, l := range p.lower {
		if !taxRE.MatchString(l) {
			continue
		}
		for _, a := range amounts(p.lines[i]) {
			if v := a.v.Abs(); v.Sign() > 0 && v.LessThan(gross) && len(as) < maxTaxAmounts {
				as = append(as, v)
			}
		}
	}
	cent := decimal.New(1, -2)
	for _, rate := range rates {
		for _, vat := range as {
			net := gross.Sub(vat)
			if !slices.ContainsFunc(as, net.Equal) {
				continue
			}
			if net.Mul(rate).Div(decimal.NewFromInt(100)).Sub(vat).Abs().LessThanOrEqual(cent) {
				r.VAT = []VATLine{{Rate: einvoice.NewDecimal(rate), Net: money(net), VAT: money(vat), Gross: money(gross)}}
				return
			}
		}
	}
}

// amountsFromVAT fills net and VAT from the breakdown when its gross matches the total.
func (p *parser) amountsFromVAT(r *Result) {
	if !r.Data.Gross.Valid() || len(r.VAT) == 0 {
		return
	}
	net, vat, gross := decimal.Zero, decimal.Zero, decimal.Zero
	for _, l := range r.VAT {
		net, vat, gross = net.Add(l.Net.Value()), vat.Add(l.VAT.Value()), gross.Add(l.Gross.Value())
	}
	total := r.Data.Gross.Value()
	// A breakdown that does not add up to the total is partial (OCR lost a line): net
	// and VAT then stay empty rather than wrong.
	if gross.Sub(total).Abs().LessThanOrEqual(decimal.New(2, -2)) {
		r.Data.Net, r.Data.VAT = money(net), money(vat)
		r.Confidence.VAT = 0.9
	}
}

// Dates: day.month.year with OCR's usual slips (C, O for 0; l, I for 1; * and ° for a dot)
// and spaces. A year followed by a colon is an hour ("AS-Zeit 14.05, 16:14 Uhr" holds no date
// of 2016).
var (
	dateRE = lazyre.New(`(?:^|[^\d])([0-3OCoDlI]?[\dOCoDlI])\s?[./*°-]\s?([01OCoDlI]?[\dOCoDlI])\s?[./,*°-]\s?((?:19|2[\dOCoDlI])[\dOCoDlI¢]{2}|[\dOCoDlI¢]{2})(?:[^\d\pL:]|$)`)
	// isoDateRE: year first, with hyphens, dots or slashes ("2025.03.30", Lithuanian and
	// Chinese tills), its day perhaps run into the time after it ("2023-07-1411:20:27").
	isoDateRE = lazyre.New(`(?:^|[^\d])((?:19|20)\d{2})\s?[-./]\s?([01]\d)\s?[-./]\s?([0-3]\d)(?:[^\d]|$|(?:[01]\d|2[0-3]):[0-5]\d)`)
	timeRE    = lazyre.New(`(?:^|[^\d:.])([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?(?:\s?uhr|[^\d.:,]|$)`)
	ocrDigits = strings.NewReplacer("O", "0", "o", "0", "C", "0", "D", "0", "¢", "0", "l", "1", "I", "1")

	// A receipt's footer prints its date and time side by side ("02.05.2020 16:39"); OCR
	// drops a space or a dot in it. gluedTimeRE: the year runs into the hour
	// ("02.05.202016:39", "29.02.2014:52" = 29.02.20 14:52); noDotDateRE: the dot after the
	// day is lost ("0203.20 15:59"). Both are read only when the time that follows vouches
	// for them, and only when no date is read cleanly; so is a date run on from a number
	// before it (leftGluedRE) or into a word after it (wordGluedRE).
	gluedTimeRE = lazyre.New(`(?:^|[^\d])([0-3]\d)[./]([01]\d)[./]((?:19|20)\d{2}|\d{2})(?:[01]\d|2[0-3]):[0-5]\d`)
	noDotDateRE = lazyre.New(`(?:^|[^\d.,])([0-3]\d)([01]\d)[.]((?:19|20)\d{2}|\d{2})\s+(?:[01]?\d|2[0-3]):[0-5]\d(?:[^\d]|$)`)
	// leftGluedRE: the day runs on from the number before it, the ticket's in a footer
	// ("133-000007-010387430/07/2023 13:07", Leroy Merlin's as PaddleOCR reads it).
	leftGluedRE = lazyre.New(`\d([0-3]\d)[./]([01]\d)[./]((?:19|20)\d{2})\s+(?:[01]?\d|2[0-3]):[0-5]\d(?:[^\d]|$)`)
	// wordGluedRE: the year runs into the word after it, the time's label (Mega Image's
	// "DATA:07/11/2025ORA:19-33-31"); its four digits and separators printed as they are.
	wordGluedRE = lazyre.New(`(?:^|[^\d])([0-3]\d)[./]([01]\d)[./]((?:19|20)\d{2})\pL`)
)

// dates are the day, month and year of each date in l: numeric (dateRE) or with the month's
// name ("05 Jan 2017", "28 MAR 18"). A match whose year runs on into a separator and a digit
// is part of something longer ("REG #19- 02/03/2018" holds 02/03/2018, not 19-02-03): the
// search goes on from its second character, where the date may start.
func dates(l string) [][]string {
	var out [][]string
	for pos := 0; pos < len(l); {
		loc := dateRE.FindStringSubmatchIndex(l[pos:])
		if loc == nil {
			break
		}
		yearEnd := pos + loc[7]
		if yearEnd+1 < len(l) && strings.ContainsRune("./-", rune(l[yearEnd])) && isDigit(l[yearEnd+1]) && !clockAfterRE.MatchString(l[yearEnd:]) {
			pos += loc[2] + 1
			continue
		}
		out = append(out, []string{l[pos+loc[0] : pos+loc[1]], l[pos+loc[2] : pos+loc[3]], l[pos+loc[4] : pos+loc[5]], l[pos+loc[6] : pos+loc[7]]})
		pos += loc[7]
	}
	for _, m := range monthDayRE.FindAllStringSubmatch(l, -1) {
		if mo, ok := monthNames[strings.ToLower(m[2])]; ok {
			out = append(out, []string{m[0], m[1], strconv.Itoa(mo), m[3]})
		}
	}
	for _, m := range monthFirstRE.FindAllStringSubmatch(l, -1) {
		if mo, ok := monthNames[strings.ToLower(m[1])]; ok && englishMonth(m[1]) {
			out = append(out, []string{m[0], m[2], strconv.Itoa(mo), m[3] + m[4]})
		}
	}
	for _, m := range ctimeRE.FindAllStringSubmatch(l, -1) {
		if mo, ok := monthNames[strings.ToLower(m[1])]; ok && englishMonth(m[1]) {
			out = append(out, []string{m[0], m[2], strconv.Itoa(mo), m[3]})
		}
	}
	for _, re := range []*lazyre.Regexp{spacedYearFirstRE, compactDateRE} {
		for _, m := range re.FindAllStringSubmatch(l, -1) {
			out = append(out, []string{m[0], m[3], m[2], m[1]})
		}
	}
	return out
}

var (
	// clockAfterRE: a date's year runs on into the time ("25.02.2015.12:43"), not into a
	// longer figure.
	clockAfterRE = lazyre.New(`^[./-]\s?(?:[01]?\d|2[0-3]):[0-5]\d`)
	// ctimeRE is the date of a computer's clock as some tills print it: "Mon Jan 29
	// 13:24:15 2018", the year after the time.
	ctimeRE = lazyre.New(`(?i)(?:^|[^\pL])(\pL{3})\s+([0-3]?\d)\s+(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?\s+((?:19|20)\d{2})(?:[^\d]|$)`)
	// spacedYearFirstRE is a year-first date with spaces for separators before its time
	// ("2023 03 20 12:58:29", Lithuanian fiscal tills).
	spacedYearFirstRE = lazyre.New(`(?:^|[^\d])((?:19|20)\d{2})\s([01]\d)\s([0-3]\d)\s+(?:[01]?\d|2[0-3]):[0-5]\d`)
	// compactDateRE is a date and time run together after "Date:" ("Date: 20220411113218").
	compactDateRE = lazyre.New(`(?i)\bdate:?\s*((?:19|20)\d{2})([01]\d)([0-3]\d)(?:[0-2]\d[0-5]\d(?:[0-5]\d)?)?(?:[^\d]|$)`)
)

// validityRE is a line that dates how long something holds: a coupon ("gültig bis"), a
// return ("Umtausch bis", "return by"), a product ("MHD", "best before"), a card ("exp").
var validityRE = lazyre.New(`g[üu]ltig|valid|until|\bbis\b|umtausch|r[üu]ckgabe|return by|returns? (?:accepted|within)|expir|\bexp\b|best before|mhd|haltbar|[àa] utiliser|valable|v[áa]lido|scadenza|voimassa|gyldig|giltig`)

// usDateRE is a date as American receipts print it, month first: "08/18/2025", "8/5/25".
var usDateRE = lazyre.New(`(?:^|[^\d/-])([01]?\d)[/-]([0-3]?\d)[/-]((?:19|20)\d{2}|\d{2})(?:[^\d/:-]|$)`)

// usDates are an American receipt's dates: those with slashes or hyphens read month first, the
// others as dates reads them.
func usDates(l string, ds [][]string) [][]string {
	var out [][]string
	for _, m := range usDateRE.FindAllStringSubmatch(l, -1) {
		out = append(out, []string{m[0], m[2], m[1], m[3]})
	}
	for _, m := range ds {
		if !strings.ContainsAny(m[0], "/-") {
			out = append(out, m)
		}
	}
	return out
}

// american: the receipt is from the United States: it pays in dollars and prints a state's
// ZIP code ("CA 91406"), a sales tax or a phone number in the North American form
// ("(650) 496-5018", "609-664-2022"), and no Canadian tax (GST, HST, PST, QST). Only then are
// dates with slashes read month first: Canada's, Australia's and Argentina's dollars or
// pesos print the day first.
func (p *parser) american() bool {
	if p.currency() != "USD" {
		return false
	}
	american := false
	for i, l := range p.lines {
		if canadianTaxRE.MatchString(p.lower[i]) {
			return false // Canada's dollars: its tills print the day first as often as not
		}
		american = american || usZipRE.MatchString(l) || strings.Contains(p.lower[i], "sales tax") || usPhoneRE.MatchString(l)
	}
	return american
}

var (
	usZipRE       = lazyre.New(`\b(?:A[KLRZ]|C[AOT]|D[CE]|FL|GA|HI|I[ADLN]|K[SY]|LA|M[ADEINOST]|N[CDEHJMVY]|O[HKR]|PA|RI|S[CD]|T[NX]|UT|V[AT]|W[AIVY])\s\d{5}(?:-\d{4})?\b`)
	usPhoneRE     = lazyre.New(`(?:^|[^\d-])(?:\(\d{3}\)\s?|\d{3}[-.])\d{3}[-.]\d{4}(?:[^\d-]|$)`)
	canadianTaxRE = lazyre.New(`\b(?:gst|hst|pst|qst|tps|tvq)\b`)
)

// monthFirstRE is a date with its month's name first, as American receipts print it: "Aug
// 18, 2018", "Jun 26, 15 04:55 PM"; a year of two digits only after a comma.
var monthFirstRE = lazyre.New(`(?i)(?:^|[^\pL])(\pL{3,9})\.?\s?([0-3]?\d)(?:st|nd|rd|th)?(?:,\s?((?:19|20)\d{2}|\d{2})|\s((?:19|20)\d{2}))(?:[^\d:]|$)`)

// englishMonth: name is an English month's: only American receipts put the month first (a
// French "Mars 2,29" is a chocolate bar's price).
func englishMonth(name string) bool {
	mo, ok := monthNames[strings.ToLower(name)]
	return ok && strings.HasPrefix(strings.ToLower(time.Month(mo).String()), strings.ToLower(name))
}

// monthDayRE is a date with its month's name, day first, as receipts outside Germany print
// it: "05 Jan 2017", "28 MAR 18", "5. Mai 2020", "18-Aug-25".
var monthDayRE = lazyre.New(`(?i)(?:^|[^\d])([0-3]?\d)\.?[\s-]?(\pL{3,9})\.?,?[\s-]?((?:19|20)\d{2}|\d{2})(?:[^\d:]|$)`)

// Confidences of a date chosen by its place alone (the first printed cleanly), and of one
// read more often than the others or by two readings.
const (
	firstDateConf  = 0.6
	agreedDateConf = 0.8
)

// dateCand is a date the text prints, where, and how it was read.
type dateCand struct {
	d       time.Time
	line    int
	keyword bool
	mended  bool // its year had one digit misread (mendYear)
	loose   bool // spaced or with letters for digits (looseDate)
}

// dateCands are the purchase dates the text may print, in its order, and whether they were
// read from a footer whose separator OCR lost (glued); a date in the future only when there
// is no other.
func (p *parser) dateCands() (cands []dateCand, glued bool) {
	var future []dateCand
	american := p.american()
	for i, l := range p.lines {
		if validityRE.MatchString(p.lower[i]) {
			continue // a coupon's, a return's or a product's last day, not the purchase's
		}
		keyword := strings.Contains(p.lower[i], "datum") || strings.Contains(p.lower[i], "date")
		ds := dates(l)
		if american {
			ds = usDates(l, ds)
		}
		for _, m := range ds {
			if misread(m[1]+m[2]+m[3]) > 1 {
				continue // more letters than digits misread: words, not a date
			}
			d, ok := mkDate(ocrDigits.Replace(m[1]), ocrDigits.Replace(m[2]), ocrDigits.Replace(m[3]))
			if !ok || d.Year() < 1990 {
				continue
			}
			if d.After(p.now.Add(24 * time.Hour)) {
				if y, ok := mendYear(ocrDigits.Replace(m[3]), p.now); ok {
					if md, ok := mkDate(ocrDigits.Replace(m[1]), ocrDigits.Replace(m[2]), strconv.Itoa(y)); ok && !md.After(p.now.Add(24*time.Hour)) {
						cands = append(cands, dateCand{md, i, keyword, true, looseDate(m)})
						continue
					}
				}
				future = append(future, dateCand{d, i, keyword, false, looseDate(m)})
				continue
			}
			cands = append(cands, dateCand{d, i, keyword, false, looseDate(m)})
		}
		for _, m := range isoDateRE.FindAllStringSubmatch(l, -1) {
			if d, err := time.Parse(time.DateOnly, m[1]+"-"+m[2]+"-"+m[3]); err == nil && !d.After(p.now) {
				cands = append(cands, dateCand{d, i, keyword, false, false})
			}
		}
	}
	if len(cands) == 0 {
		for i, l := range p.lines {
			for _, re := range []*lazyre.Regexp{gluedTimeRE, noDotDateRE, leftGluedRE, wordGluedRE} {
				for _, m := range re.FindAllStringSubmatch(l, -1) {
					if d, ok := mkDate(m[1], m[2], m[3]); ok && d.Year() >= 1990 && !d.After(p.now.Add(24*time.Hour)) {
						cands = append(cands, dateCand{d, i, false, false, true})
						glued = true
					}
				}
			}
		}
	}
	if len(cands) == 0 && len(future) > 0 {
		// Only a future date: report it with low confidence; the plausibility check flags it.
		cands = future[:1]
	}
	return cands, glued
}

// printsDate: d is one of the purchase dates the text prints, printed cleanly (not spaced
// or with letters for digits: "x5 -1.20", a quantity and a discount, is no 5 January 2020).
func (p *parser) printsDate(d einvoice.Date) bool {
	cands, _ := p.dateCands()
	return slices.ContainsFunc(cands, func(c dateCand) bool { return !c.loose && c.d.Format(time.DateOnly) == string(d) })
}

// date finds the receipt's date and time: a date after "Datum" wins, then the most frequent,
// then the first; dates in the future or before 1990 are no receipt's date. The time is the
// one on the date's line, else the first.
func (p *parser) date() (einvoice.Date, string, float64) {
	cands, glued := p.dateCands()
	count := map[time.Time]int{}
	for _, c := range cands {
		count[c.d]++
	}
	if len(cands) == 0 {
		return "", "", 0
	}
	// Without a keyword or a date read more often, the first date printed cleanly wins
	// over one OCR spaced or misread: Tesco's "Tesco Stores CR a.s." read "CR 4.9. 10" is no
	// 4 September 2010 beside the clubcard line's "07/09/17".
	best, conf := cands[0], firstDateConf
	for _, c := range cands {
		if !c.loose {
			best = c
			break
		}
	}
	for _, c := range cands {
		if c.keyword && !best.keyword {
			best, conf = c, 0.9
		}
	}
	if !best.keyword {
		for _, c := range cands {
			if count[c.d] > count[best.d] {
				best, conf = c, agreedDateConf
			}
		}
	}
	if count[best.d] == len(cands) && len(cands) > 1 {
		conf = 0.95
	}
	if glued || best.mended {
		// Read where OCR garbled the line: worth having, but uncertain (a line that lost a
		// dot may have lost a digit too).
		conf = 0.5
	}
	clock := ""
	for _, i := range []int{best.line, best.line - 1, best.line + 1} {
		if i >= 0 && i < len(p.lines) {
			if clock = findTime(p.lines[i]); clock != "" {
				break
			}
		}
	}
	if clock == "" {
		for _, l := range p.lines {
			if clock = findTime(l); clock != "" {
				break
			}
		}
	}
	return einvoice.Date(best.d.Format(time.DateOnly)), clock, conf
}

// looseDate tells a numeric date OCR spaced ("4.9. 10") or misread ("O1.O2.2O") from one
// printed cleanly.
func looseDate(m []string) bool {
	if !dateRE.MatchString(m[0]) {
		return false // a month's name ("05 Jan 2017") or a computer clock's date
	}
	start := strings.Index(m[0], m[1])
	end := strings.LastIndex(m[0], m[3])
	if start < 0 || end < start {
		return true
	}
	inner := m[0][start : end+len(m[3])]
	return misread(m[1]+m[2]+m[3]) > 0 || strings.ContainsFunc(inner, unicode.IsSpace)
}

// mendYear is the one year of the last 30 that a printed four-digit year in the future
// becomes with one digit read again ("21.12.2124 10:32": 2024); no year when none or
// several do (2029 may have been 2020 to 2026).
func mendYear(y string, now time.Time) (int, bool) {
	if len(y) != 4 {
		return 0, false
	}
	found := 0
	for i := range 4 {
		for c := byte('0'); c <= '9'; c++ {
			if c == y[i] {
				continue
			}
			v, err := strconv.Atoi(y[:i] + string(c) + y[i+1:])
			if err != nil || v > now.Year() || v < now.Year()-30 {
				continue
			}
			if found != 0 {
				return 0, false
			}
			found = v
		}
	}
	return found, found != 0
}

// misread counts the letters in a date that OCR put for digits.
func misread(s string) int {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			n++
		}
	}
	return n
}

func findTime(l string) string {
	for _, m := range timeRE.FindAllStringSubmatch(l, -1) {
		h, _ := strconv.Atoi(m[1])
		return strconv.Itoa(h/10) + strconv.Itoa(h%10) + ":" + m[2]
	}
	return ""
}

func mkDate(d, m, y string) (time.Time, bool) {
	day, err1 := strconv.Atoi(d)
	month, err2 := strconv.Atoi(m)
	year, err3 := strconv.Atoi(y)
	if err1 != nil || err2 != nil || err3 != nil || month < 1 || month > 12 || day < 1 || day > 31 {
		return time.Time{}, false
	}
	if year < 100 {
		year += 2000
	}
	t := time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
	if t.Day() != day {
		return time.Time{}, false // 31.02.
	}
	return t, true
}

var referenceRE = lazyre.New(`(?i)\b(?:bon|beleg|rechnung|quittung|receipt|invoice|ticket|auftrag|transaktion|trans|vorgang|buchung)(?:s)?[\s.-]*(?:nr|nummer|no|#|number)\.?[\s:#.]*([A-Z0-9][A-Z0-9/._-]{2,30})`)

func (p *parser) reference() string {
	for _, l := range p.lines {
		if m := referenceRE.FindStringSubmatch(l); m != nil && strings.ContainsAny(m[1], "0123456789") {
			return strings.TrimRight(m[1], ".-_/")
		}
	}
	return ""
}

var (
	creditRE   = lazyre.New(`mastercard|master card|visa|kreditkarte|credit card|amex|american express|diners`)
	debitRE    = lazyre.New(`girocard|maestro|ec-karte|ec karte|ec-cash|\bec\b|debit|lastschrift|\belv\b|v pay|vpay|bankkarte|bankkort|betalkort|\bpin\b`)
	mobileRE   = lazyre.New(`apple pay|google pay|paypal|mobile payment`)
	cashPaidRE = lazyre.New(`\bbar\b|bargeld|\bcash\b|gegeben bar|r[üu]e?ckgeld`)
	transfRE   = lazyre.New(`überweisung|ueberweisung|bank transfer|zahlbar bis|zahlungsziel|iban`)
)

// payment finds how the receipt was paid; a card's word beats cash, since a card slip
// follows the receipt that mentions cash only in passing.
func (p *parser) payment() string {
	all := strings.Join(p.lower, "\n")
	switch {
	case mobileRE.MatchString(all):
		return Mobile
	case strings.Contains(all, "debit mastercard") || strings.Contains(all, "visa debit"):
		return DebitCard
	case creditRE.MatchString(all):
		return CreditCard
	case debitRE.MatchString(all):
		return DebitCard
	case cashPaidRE.MatchString(all):
		return Cash
	case transfRE.MatchString(all):
		return Transfer
	}
	return ""
}

// itemRE is an item line: a description, an optional quantity × price, the line total and
// an optional VAT letter.
var (
	itemQtyRE  = lazyre.New(`(\d+(?:[,.]\d{1,3})?)\s?(?:x|\*|stk|st\.)\s?(\d+[,.]\d{2})`) // 2 x 0,99
	priceQtyRE = lazyre.New(`(\d+[,.]\d{2})\s?[xX*]\s?(\d{1,3})\b`)                       // 0,99 x 2
	leadQtyRE  = lazyre.New(`^(\d{1,3})\s?[xX*]\s+(.+)$`)                                 // 2 x Pizza
)

func (p *parser) items(totalLine int) []Item {
	out := []Item{}
	end := totalLine
	if end < 0 {
		end = len(p.lines)
	}
	for i := 0; i < end && i < len(p.lines); i++ {
		l, low := p.lines[i], p.lower[i]
		as := amounts(l)
		if len(as) == 0 || taxRE.MatchString(low) || ptuSaleRE.MatchString(l) || cardRE.MatchString(low) || cashRE.MatchString(low) || changeRE.MatchString(low) {
			continue
		}
		skip := false
		for _, w := range totalWords {
			if w.re.MatchString(low) {
				skip = true
			}
		}
		desc := strings.TrimSpace(l[:as[0].start])
		if skip || !hasLetters(desc, 3) || strings.Contains(low, "eur/kg") || strings.HasPrefix(low, "tel") || hoursRE.MatchString(low) {
			continue
		}
		total := as[len(as)-1].v
		it := Item{Description: cleanDesc(desc), Total: money(total)}
		qty, price := "", ""
		switch {
		case leadQtyRE.MatchString(desc):
			m := leadQtyRE.FindStringSubmatch(desc)
			qty, it.Description = m[1], cleanDesc(m[2])
			if len(as) >= 2 {
				price = l[as[0].start:as[0].end]
			}
		case itemQtyRE.MatchString(l):
			m := itemQtyRE.FindStringSubmatch(l)
			qty, price = m[1], m[2]
			it.Description = cleanDesc(l[:strings.Index(l, m[0])])
		case priceQtyRE.MatchString(l):
			m := priceQtyRE.FindStringSubmatch(l)
			price, qty = m[1], m[2]
			it.Description = cleanDesc(l[:strings.Index(l, m[0])])
		}
		if q, err := decimal.NewFromString(strings.ReplaceAll(qty, ",", ".")); err == nil && q.Sign() > 0 {
			it.Quantity = einvoice.NewDecimal(q)
			if up, err := decimal.NewFromString(strings.ReplaceAll(strings.ReplaceAll(strings.TrimSpace(price), " ", ""), ",", ".")); err == nil {
				it.UnitPrice = money(up)
			}
		}
		if rest := strings.TrimSpace(l[as[len(as)-1].end:]); len(rest) >= 1 && len(rest) <= 2 {
			if c := rest[0]; c >= 'A' && c <= 'D' || c == '1' || c == '2' {
				it.VATCode = rest[:1]
			}
		}
		if it.Description == "" {
			continue
		}
		out = append(out, it)
	}
	return out
}

// hoursRE is a shop's opening hours in its header ("MO.-SA. 9.00 Uhr - 20.00 Uhr", read
// "MÜ.-SA 20,00 €"): a range of weekdays, or the word for them; its times read as amounts
// and are no item.
var hoursRE = lazyre.New(`(?:^|[^\pL])(?:m[oöü]|di|mi|do|fr|sa|so)[.,]?\s?[-–]\s?(?:m[oöü]|di|mi|do|fr|sa|so)(?:[^\pL]|$)|öffnungszeit|opening hours`)

func cleanDesc(s string) string {
	return strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), "xX*.:-"))
}

var (
	// VAT identification numbers by their country's format (the United Kingdom's too:
	// sellers from there still invoice into the EU, "GB123456789", "GB 123 4567 89").
	vatIDRE = lazyre.New(`\b(DE\s?\d{3}\s?\d{3}\s?\d{3}|GB\s?\d{3}\s?\d{4}\s?\d{2}(?:\s?\d{3})?\b|ATU\s?\d{8}|FR\s?[0-9A-Z]{2}\s?\d{3}\s?\d{3}\s?\d{3}|NL\s?\d{9}B\d{2}|IE\s?\d[0-9A-Z+*]\d{5}[A-Z]{1,2}\b|DK\s?\d{8}\b|SE\s?\d{12}\b|FI\s?\d{8}\b|CZ\s?\d{8,10}\b|PT\s?\d{9}\b|BE\s?0?\d{9}|IT\s?\d{11}|ES\s?[0-9A-Z]\d{7}[0-9A-Z]|LU\s?\d{8}|PL\s?\d{10}|CHE[-\s]?\d{3}\.\d{3}\.\d{3})`)
	taxNoRE = lazyre.New(`(?i)st(?:euer)?(?:[.-]*\s?nr\.?|nummer)[:\s]*(\d{2,3}\s?/\s?\d{3,4}\s?/\s?\d{4,5})`)
	phoneRE = lazyre.New(`(?i)\b(?:tel|telefon|fon|phone)\.?[:\s]*([+(]?\d[\d /()-]{5,20}\d)`)
	postRE  = lazyre.New(`\b(?:D-)?(\d{5})\s+([A-ZÄÖÜ][\pL.-]+(?:\s[\pL.-]+)?)`)
	// streetRE: a street's word before its house number; straBe is ß as OCR (PaddleOCR
	// always) reads it; Swedish, Norwegian, Danish, Finnish and Dutch streets end in
	// "-gatan", "-veien", "-gade", "-katu" or "-tie", "-straat" ("DROTTNINGGATAN 29").
	streetRE = lazyre.New(`(?i)(str(a(ß|ss|b)e|\.)|weg|platz|allee|ring|gasse|damm|ufer|chaussee|gatan|gata|gaten|v[äa]gen|veien|vej|gade|katu|tie|straat|laan)\s*\d`)
	// legalRE: a company's legal form (Croatian, Slovenian, Bosnian and Serbian "d.o.o.",
	// "j.d.o.o.", "d.d."; Hungarian "Kft", "Zrt", "Bt"; Czech and Slovak "s.r.o.").
	legalRE   = lazyre.New(`\b(?:GmbH|GMBH|AG|KG|OHG|UG|SE|Ltd|LTD|BHD|Bhd|PLC|Plc|LLC|SARL|SAS|SpA|Oy)\b|\b(?:e\.\s?K|S\.A|B\.V|S\.r\.l|Inc|INC|S\.L|S\.p\.A|Sp\.\s?z\s?[o0][.,]\s?[o0]|N\.V)\.|\b(?:S/B|A/S)\b|(?i:\bsdn\.?\s?bhd\b)|(?i:\bsp\.\s?[z27]\s?[o0][.,]\s?[o0](?:[.,]|\s|$))|(?i:\bj?\.?d\.\s?[o0]\.\s?[o0](?:\.|\s|$))|\bd\.d\.|\b(?:Kft|Zrt|Nyrt|Bt)\b|(?i:\bs\.\s?r\.\s?o\.)`)
	junkStart = lazyre.New(`(?i)^(tel|fax|www|http|ust|st\.?-?nr|steuer|datum|kasse|bon|beleg|filiale|mo\.|öffnungs|unsere|thank|danke|vielen dank|willkommen|welcome|merci|gracias|grazie|bedankt|(simplified\s+)?tax\s+invoice|invoice|receipt|rechnung|quittung|kassenbon|articles?\b|artikel|bezeichnung|description|d[ée]signation|qty\b|menge\b|stk\b|anz\b|pos\b|paragon|p[a-z]r[a-z]g[o0]n\b|fiskalny|goods\s+sold|\S{2,4}\s+invoice\b)`)
)

// buyerVATLabelRE: a label that names the buyer's VAT id, not the issuer's ("Customer VAT
// ID", "Ihre USt-IdNr.", "USt-IdNr. des Leistungsempfängers", "N° TVA client").
var buyerVATLabelRE = lazyre.New(`(?i)(?:customer|client|buyer|your|kunden|ihre?|k(?:ä|a|ae)ufer|leistungsempf\pL*|acheteur|destinataire)\W{0,3}(?:vat|ust|umsatzsteuer|tva|mwst|tax|uid)|(?:vat|ust|tva|tax)\b.*\b(?:customer|client|buyer|kunden?|leistungsempf\pL*|k(?:ä|a|ae)ufers?|acheteur)\b`)

// notVATLabelRE: labels of registration numbers and accounts that are no VAT id; one with
// its own number after it ("München HRB 999999" in the footer column beside) is another field.
var notVATLabelRE = lazyre.New(`(?i)\b(?:siret|siren|rcs|hrb|hra|registered|reg\.?\s*no|company\s+no|iban|konto|account)\b[^\pL\d]*$`)

// vatIDsByParty: the first VAT id of the issuer and the first of the buyer, told apart by
// the label in the cell before each ("Customer VAT ID:   IE9876543W" over the seller's
// "VAT ID: DE123456789" in the footer).
//
// Ids in except are passed over (one the layout places under the buyer's address), and so
// is a match inside a longer code (an IBAN "FR7430003000402964…" starts like a French id).
func vatIDsByParty(lines []string, except ...string) (issuer, buyer string) {
	for _, l := range lines {
		prev := 0
		for _, m := range vatIDRE.FindAllStringIndex(l, -1) {
			id := strings.NewReplacer(" ", "", "-", "").Replace(l[m[0]:m[1]])
			if m[1] < len(l) && (unicode.IsLetter(rune(l[m[1]])) || isDigit(l[m[1]])) || slices.Contains(except, id) {
				prev = m[1]
				continue
			}
			cells := cellSepRE.Split(strings.TrimSpace(l[prev:m[0]]), -1)
			prev = m[1]
			label := cells[len(cells)-1]
			if notVATLabelRE.MatchString(label) {
				continue // a French company number of a VAT id's shape ("Siret : FR20522513233")
			}
			if buyerVATLabelRE.MatchString(label) {
				if buyer == "" {
					buyer = id
				}
			} else if issuer == "" {
				issuer = id
			}
		}
	}
	if issuer == "" {
		// None of a country's format: an id of the general shape right after a VAT id's
		// label ("N°TVA IUGBU98YFG6", "USt-IdNr.: DE11999999998", a digit too many),
		// which the checks then call uncertain.
		for _, l := range lines {
			for _, m := range labelledVATRE.FindAllStringSubmatchIndex(l, 4) {
				id := l[m[2]:m[3]]
				if !buyerVATLabelRE.MatchString(l[max(0, m[0]-20):m[2]]) && !slices.Contains(except, id) && strings.ContainsAny(id, "0123456789") {
					return id, buyer
				}
			}
		}
	}
	return issuer, buyer
}

// labelledVATRE is a VAT id's label and a value of a VAT id's general shape.
var labelledVATRE = lazyre.New(`(?i:\b(?:n°\s?tva|tva(?:\s+intracommunautaire)?|ust[-\s]?id(?:nr)?\.?|umsatzsteuer[-\s]?id(?:entifikationsnummer)?|vat\s?(?:id|reg\.?\s?no\.?|number|no\.?))\s?[:.]?\s*)([A-Z]{2}[0-9A-Z]{8,12})\b`)

// ptuSaleRE and ptuTaxRE read the tax summary of a Polish fiscal receipt, which every
// fiscal printer prints alike: the sales of each rate's letter ("SPRZEDAŻ OPODATKOWANA A
// 99,55", "Sprzed. opod. PTU A 99,55") and that letter's rate and tax ("PTU A 23,00%
// 18,62", "Kwota A 23,00% 18,62"). OCR reads "Sprzed" as "Spr2ed", "Sorzed", "Sprzenas",
// "GPRZEDAZ" or runs it into "opodatkowana", "Kwota" as "Kuota", "PTU" as "PIU", "PT0" or "DTU"; it puts a photo's edge before
// the line ("J SPRZEDAZ") and marks between the rate and the tax ("PTU C 5,00 x . 0,99").
var (
	ptuSaleRE = lazyre.New(`(?i)^(?:\S{1,3}\s+)?[sg5]\S{1,7}\s*opod\S*?(?:[.\s]\s*(?:p[tij]u\s*)?|an[ae])([a-g]):?\s+-?\d`)
	ptuTaxRE  = lazyre.New(`(?i)^(?:\S{1,3}\s+)?(?:k[wuv]ota\s*(?:p[tij]?u\s*)?|[pd][tij]?[u0]\s*)([a-g])\s*(\d{1,2}(?:[.,]\d{1,2})?)\s*[%27]?\D{0,5}?\s-?\d`)
	// ptuBareSaleRE is a sales line whose letter OCR lost or read as another ("SPRZEDAZ
	// OPODAIKOWANA 66,19", "OPODAIKOWANH H 12,00"); the letter of ptuSaleRE stands apart
	// from the word before it or follows the word's whole ending ("OPODATKOWANAA"), never
	// as its last letter.
	ptuBareSaleRE = lazyre.New(`(?i)^(?:\S{1,3}\s+)?[sg5]\S{1,7}\s*opod\S*\s+(?:\S\s+)?-?\d`)
	// ptuSummaryRE is a line of that summary however OCR misread it ("Sprzed. opod. PUA,
	// © 0715,56", "Kuota A 23,008"): a receipt that prints one has a VAT table to read.
	ptuSummaryRE = lazyre.New(`(?i)^(?:\S{1,3}\s+)?(?:[sg5]\S{1,7}\s*opod|k[wuv]ota\s+(?:p[tij]u\s+)?[a-g]\b|(?:suma\s+)?p[tij][u0]\s+[a-g]?\s*\d)`)
	// ptuGluedRE is the summary's last figure with the letter that follows it read as a
	// digit ("2,24B" as "2,248", "12,00 A" as "12.004").
	ptuGluedRE = lazyre.New(`(\d{1,6}[.,]\d{2})\d\W{0,3}$`)
)

// ptuBreakdown is a Polish receipt's VAT breakdown by its rates' letters: a letter's sales
// are its gross, its tax is printed with its rate. A letter whose tax does not fit its
// sales at its rate (to two cents) is kept apart, for completeVAT to complete the
// breakdown to the total with (OCR read "43,07" for the sales of "49,07").
func (p *parser) ptuBreakdown() ([]VATLine, []partialVAT) {
	type letter struct {
		gross, tax, rate decimal.Decimal
		sale, taxed      bool
		taxAt            int // the tax line's index
	}
	var order []string
	byLetter := map[string]*letter{}
	get := func(c string) *letter {
		c = strings.ToUpper(c)
		if byLetter[c] == nil {
			byLetter[c] = &letter{}
			order = append(order, c)
		}
		return byLetter[c]
	}
	// A sales line by where it stands: its letter ("" when OCR lost it) and figure.
	type sale struct {
		letter string
		gross  decimal.Decimal
	}
	sales := map[int]sale{}
	for i, l := range p.lines {
		if m := ptuGluedRE.FindStringSubmatchIndex(l); m != nil && (ptuSaleRE.MatchString(l) || ptuTaxRE.MatchString(l)) {
			l = l[:m[3]]
		}
		as := amounts(l)
		if m := ptuTaxRE.FindStringSubmatch(l); m != nil && (len(as) == 0 || !ptuSaleRE.MatchString(l) && !ptuBareSaleRE.MatchString(l)) {
			rate, err := decimal.NewFromString(strings.ReplaceAll(m[2], ",", "."))
			if err != nil || !plausibleRate(rate) {
				continue
			}
			rate = decimal.RequireFromString(rate.String()) // 23,00 % is 23
			switch g := get(m[1]); {
			case len(as) > 0:
				g.tax, g.rate, g.taxed, g.taxAt = as[len(as)-1].v, rate, true, i
			case !g.taxed:
				g.rate = rate // the letter's rate, its tax unreadable ("PTU A 23x 35 8" for "PTU A 23% 3,55")
			}
			continue
		}
		if len(as) == 0 {
			continue
		}
		last := as[len(as)-1].v
		if m := ptuSaleRE.FindStringSubmatch(l); m != nil {
			g := get(m[1])
			g.gross, g.sale = last, true
			sales[i] = sale{strings.ToUpper(m[1]), last}
		} else if ptuBareSaleRE.MatchString(l) {
			sales[i] = sale{"", last}
		}
	}
	fits := func(gross, tax, rate decimal.Decimal) bool {
		want := gross.Mul(rate).Div(rate.Add(decimal.NewFromInt(100))).Round(2)
		return !want.Sub(tax).Abs().GreaterThan(decimal.New(2, -2))
	}
	// A letter's tax without its sales takes the sales line just above it when that line's
	// letter OCR lost or misread ("SPRZEDAZ OPODATKOWANA E 16,77" over "PTU B 8,00% 1,24"),
	// its letter having no tax of its own, and the figures fit: the printer sets each
	// letter's tax under its sales.
	for _, c := range order {
		g := byLetter[c]
		if g.sale || !g.taxed {
			continue
		}
		for i := g.taxAt - 1; i >= max(0, g.taxAt-2); i-- {
			s, ok := sales[i]
			if !ok {
				continue
			}
			if other := byLetter[s.letter]; (s.letter == "" || !other.taxed) && fits(s.gross, g.tax, g.rate) {
				g.gross, g.sale = s.gross, true
				if s.letter != "" {
					other.sale = false
				}
			}
			break
		}
	}
	var out []VATLine
	var partial []partialVAT
	for _, c := range order {
		g := byLetter[c]
		if !g.sale && !g.taxed && !g.rate.IsZero() {
			// Only the letter's rate was read: completeVAT may give it what the total
			// leaves.
			partial = append(partial, partialVAT{rate: g.rate, code: c})
			continue
		}
		if !g.sale || !g.taxed {
			continue
		}
		if !fits(g.gross, g.tax, g.rate) {
			partial = append(partial, partialVAT{rate: g.rate, amounts: []decimal.Decimal{g.gross, g.tax}, code: c})
			continue
		}
		out = append(out, VATLine{Rate: einvoice.NewDecimal(g.rate), Net: money(g.gross.Sub(g.tax)), VAT: money(g.tax), Gross: money(g.gross), Code: c})
	}
	return out, partial
}

// Words of a rate's sum before tax and after it, on lines of their own.
var (
	exclTaxRE = lazyre.New(`\bexc[l1i]|\bexkl|\bohne\b|\bnetto\b|\bnet\b|before\s+tax|\bh\.?t\b`)
	inclTaxRE = lazyre.New(`\binc|\binkl|\bbrutto\b|\bmit\b|with\s+tax|\bttc\b`)
)

// sumsBeforeAndAfterTax reads a breakdown printed as each rate's sum before tax and after
// it on lines of their own, with no table ("Total 6% supplies (excl. GST): 7.20", "Total
// 6% supplies (Inc. GST): 7.63"; "Netto 19 %: 10,00", "Brutto 19 %: 11,90"): a rate whose
// two sums differ by its tax on the first, to a cent, is a line of the breakdown. Beside
// such a pair, a rate's sum named with neither word ("Total 0% supplies: 11.68", its
// rate often read as letters: "Total Ok supplies") is the 0 % line.
func (p *parser) sumsBeforeAndAfterTax() []VATLine {
	type sums struct{ net, gross decimal.Decimal }
	byRate := map[string]*sums{}
	var order []decimal.Decimal
	var zero decimal.Decimal
	for i, l := range p.lines {
		low := p.lower[i]
		excl, incl := exclTaxRE.MatchString(low), inclTaxRE.MatchString(low)
		m := rateRE.FindStringSubmatchIndex(l)
		if m == nil || excl == incl {
			if m == nil && !excl && !incl && rateSumRE.MatchString(low) && zero.IsZero() {
				if as := amounts(l); len(as) == 1 && as[0].v.Sign() > 0 {
					zero = as[0].v
				}
			}
			continue
		}
		rate, err := matchedRate(l, m)
		as := amounts(l[m[1]:])
		if err != nil || !plausibleRate(rate) || rate.IsZero() || len(as) != 1 || as[0].v.Sign() <= 0 {
			continue
		}
		rate = decimal.RequireFromString(rate.String())
		k := rate.String()
		if byRate[k] == nil {
			byRate[k] = &sums{}
			order = append(order, rate)
		}
		if s := byRate[k]; excl && s.net.IsZero() {
			s.net = as[0].v
		} else if incl && s.gross.IsZero() {
			s.gross = as[0].v
		}
	}
	var out []VATLine
	for _, rate := range order {
		s := byRate[rate.String()]
		if s.net.IsZero() || s.gross.IsZero() {
			continue
		}
		tax := s.gross.Sub(s.net)
		if tax.Sign() <= 0 || tax.Sub(s.net.Mul(rate).Div(decimal.NewFromInt(100))).Abs().GreaterThan(decimal.New(1, -2)) {
			continue
		}
		out = append(out, VATLine{Rate: einvoice.NewDecimal(rate), Net: money(s.net), VAT: money(tax), Gross: money(s.gross)})
	}
	if len(out) > 0 && zero.Sign() > 0 {
		out = append(out, VATLine{Rate: einvoice.NewDecimal(decimal.Zero), Net: money(zero), VAT: money(decimal.Zero), Gross: money(zero)})
	}
	return out
}

// legalFirstRE is a French company's legal form before its name ("SA IFR QUALIAC"): "SA"
// only there, where no weekday ("Sa 12.05.") or other word stands before capitals.
var legalFirstRE = lazyre.New(`^\s*(?:SA|SAS|SASU|SARL|EURL|SCOP)\s+\p{Lu}{2}`)

// cellSepRE parts a text line of the layout into its cells.
var cellSepRE = lazyre.New(`\s{3,}`)

// Confidences of the issuer by what named it: a known brand (the least, found in the
// footer), a line with a legal form; a line that only reads like a name has less.
const (
	brandIssuer = 0.8
	legalIssuer = 0.7
)

// issuer names who issued the receipt: a known brand first (a logo OCR cannot read is
// often repeated in the footer), then a line with a legal form, then the first line that
// reads like a name.
func (p *parser) issuer() (Issuer, float64) {
	var is Issuer
	all := strings.Join(p.lower, "\n")
	is.VATID, p.buyerVATID = vatIDsByParty(p.lines)
	for _, l := range p.lines {
		if m := taxNoRE.FindStringSubmatch(l); m != nil && is.TaxNumber == "" {
			is.TaxNumber = strings.ReplaceAll(m[1], " ", "")
		}
		if m := phoneRE.FindStringSubmatch(l); m != nil && is.Phone == "" {
			is.Phone = strings.TrimSpace(m[1])
		}
	}
	for i, l := range p.lines {
		if i > 12 {
			break
		}
		if m := postRE.FindStringSubmatch(l); m != nil {
			addr := strings.TrimSpace(l)
			if i > 0 && streetRE.MatchString(p.lines[i-1]) {
				addr = strings.TrimSpace(p.lines[i-1]) + ", " + addr
			}
			is.Address = addr
			break
		}
	}
	conf := 0.0
	if b, pos := p.knownBrand(); b != nil {
		is.Name, conf = b.name, 0.9
		if pos > len(all)/2 {
			conf = brandIssuer
		}
	}
	// The lines that can name the issuer: not those OCR was unsure of, which a logo leaves
	// above the name.
	// A scan's lines without what a photo's edge left at their ends.
	var head []string
	for _, l := range p.lines {
		if !p.ocr.doubtful(l) {
			head = append(head, p.ocr.clean(l))
		}
	}
	if is.Name == "" {
		for i, l := range head {
			if i > 8 {
				break
			}
			if (legalRE.MatchString(l) || legalFirstRE.MatchString(l)) && hasLetters(l, 4) && len(amounts(l)) == 0 && !addressLine(l) { // an item's line may read "SE"; a Malay village "KG." is no KG
				is.Name, conf = strings.TrimSpace(l), legalIssuer
				above := ""
				if i > 0 && nameLike(head[i-1]) && !junkStart.MatchString(strings.TrimLeftFunc(head[i-1], notLetter)) {
					above = strings.TrimSpace(head[i-1])
				}
				switch {
				case above == "":
				case !hasLetters(legalRE.ReplaceAllString(l, ""), 3):
					// A legal form on a line of its own belongs to the name above it.
					is.Name = above + " " + is.Name
				case !legalRE.MatchString(above):
					// The shop's name over the company that runs it ("Hexenalm" over
					// "Apresski Gastronomie GmbH", "Restaurant Lassida" over "Seilbahn
					// Komperdell GmbH"): the name the receipt is known by comes first.
					is.Name = above + ", " + is.Name
				}
				if above == "" {
					if v := venueBelow(head, i); v != "" {
						// The company first, the place it runs below ("Noshi ugostiteljstvo
						// j.d.o.o." over "Restoran i noćni bar Grand"): the place's name is
						// the one the receipt is known by.
						is.Name = v + ", " + is.Name
					}
				}
				break
			}
		}
	}
	if is.Name == "" {
		for i, l := range head {
			if i > 5 {
				break
			}
			if nameLike(l) && !junkStart.MatchString(strings.TrimLeftFunc(l, notLetter)) {
				is.Name, conf = strings.TrimSpace(l), 0.4
				if kindOnlyRE.MatchString(is.Name) {
					is.Name = namedKind(head, i)
				}
				break
			}
		}
	}
	if is.Name == "" && p.as == asReceipt {
		// A logo OCR could not read, the shop's web address printed below: its domain
		// names it ("www .einhorn-duesse Idorf .de"). An invoice names its seller in its
		// address block (layoutparties).
		if d := shopDomain(all); d != "" {
			is.Name, conf = d, 0.3
		}
	}
	return is, conf
}

// venueRE is a line that names a place by its kind and its name ("Restoran i noćni bar
// Grand", "Cafe Bar Molo", "Hotel zur Post").
var venueRE = lazyre.New(`(?i)^\W*(?:restaurant|restoran|ristorante|gasthaus|gasthof|hotel|caf[ée]|caffe|kafi[ćc]|bar|pub|pizzeria|konoba|gostilna|bistro|trattoria|osteria|taverna|brasserie)\s+\pL.*\pL{3}`)

// venueBelow is the place named by its kind within three lines under a company's line
// head[i], "" when none is.
func venueBelow(head []string, i int) string {
	for _, l := range head[i+1 : min(len(head), i+4)] {
		if venueRE.MatchString(l) && len(amounts(l)) == 0 && !addressLine(l) && !legalRE.MatchString(l) {
			return strings.TrimSpace(l)
		}
	}
	return ""
}

// kindOnlyRE is a line that names only what kind of place a shop is ("PIZZERIA",
// "RISTORANTE", "Berghotel", "Bäckerei und Konditorei", "PIZZERIA D'ASPORTO", a takeaway,
// its D read as 0): its name is on a line below.
var kindOnlyRE = lazyre.New(`(?i)^\W*(?:(?:\pL+)?(?:hotel|gasthaus|gasthof|restaurant|ristorante|pizzeria|trattoria|osteria|taverna|brasserie|bistro|caf[ée]|bar|pub|imbiss|kiosk|b[äa]ckerei|konditorei|metzgerei|fleischerei|apotheke|pharmacie|farmacia|boulangerie|p[âa]tisserie|tankstelle|buchhandlung|bakery|grill)(?:\s+(?:und|&|and|et|e|y)\s+\pL+)?(?:\s+(?:[d0o]['’]\s?asporto|da asporto|al taglio|[àa] emporter|take\s?-?away|to go))?)\W*$`)

// namedKind is the kind of place at head[i] with its name, the first line below (within
// three) that reads as a name and is not another kind ("RISTORANTE" over "la Piazzetta":
// "RISTORANTE la Piazzetta"); the kind alone when none does.
func namedKind(head []string, i int) string {
	kind := strings.TrimSpace(head[i])
	for j := i + 1; j < min(len(head), i+4); j++ {
		l := strings.TrimSpace(head[j])
		if kindOnlyRE.MatchString(l) {
			kind = l // the kind nearest the name
			continue
		}
		if nameLike(l) && !junkStart.MatchString(strings.TrimLeftFunc(l, notLetter)) {
			return kind + " " + l
		}
	}
	return kind
}

// shopDomain is the first web address in the text whose name is no payment's, till maker's,
// social network's or review site's (notShopDomainRE, whole names: "bitburger" is a
// shop's), as "name.tld" (spaces OCR set into it dropped); "" when there is none.
func shopDomain(all string) string {
	for _, m := range domainRE.FindAllStringSubmatch(all, -1) {
		name := strings.NewReplacer(" ", "", "\t", "").Replace(m[1])
		if len(name) < 3 || notShopDomainRE.MatchString(name) {
			continue
		}
		return name + "." + m[2]
	}
	return ""
}

// domainRE is a web address as OCR reads it ("www .einhorn-duesse Idorf .de"): after www.
// or http(s)://, a name (one space inside it allowed), a dot and a country's or a common
// top-level domain.
var (
	domainRE        = lazyre.New(`(?:www\s?[.,]\s?|https?\s?:\s?//\s?(?:www\s?\.\s?)?)([a-z0-9][a-z0-9-]+(?: [a-z0-9-]+)?)\s?[.,]\s?(de|at|ch|com|fr|it|es|nl|be|pl|cz|fi|se|no|dk|co\.uk|uk|eu|lt|lv|ee|pt|ie|lu|hu|sk|si|hr|net|org|shop|info)\b`)
	notShopDomainRE = lazyre.New(`^(?:payback|paypal|google|facebook|instagram|twitter|tripadvisor|sumup|zettle|izettle|ready2order|hellocash|orderbird|lightspeed|gastrofix|vectron|sunmi|square|stripe|klarna|visa|mastercard|bit|youtube|tiktok|linkedin|trustpilot|deutschepost|dhl|umfrage|feedback|survey|kassensichv|fiskaly|efsta|epson|posbill|bonsystem|bonprinter)$`)
)

func notLetter(r rune) bool { return !unicode.IsLetter(r) }

// longWord: the line has a word of three letters or more; a name has one, what OCR makes
// of a logo's strokes often not ("Hy. ae").
func longWord(l string) bool {
	n := 0
	for _, r := range l {
		if unicode.IsLetter(r) {
			if n++; n >= 3 {
				return true
			}
		} else {
			n = 0
		}
	}
	return false
}

// nameLike: mostly letters, a few words, no address or amount.
func nameLike(l string) bool {
	letters, others := 0, 0
	for _, r := range l {
		switch {
		case unicode.IsLetter(r):
			letters++
		case r == ' ' || r == '&' || r == '-' || r == '.' || r == '\'':
		default:
			others++
		}
	}
	return letters >= 4 && others <= letters/4 && longWord(l) && !postRE.MatchString(l) && !streetRE.MatchString(l) && !addressLine(l) && !columnWordRE.MatchString(l) && len(amounts(l)) == 0 && !fileNameRE.MatchString(strings.TrimSpace(l))
}

// fileNameRE: a file's name, as a viewer prints the document's over its page
// ("ZF_Extended__Sammelrechnung_3_Bestellungen.xml"); no party is named by it.
var fileNameRE = lazyre.New(`(?i)^\S+\.(?:xml|pdf|txt|docx?|xlsx?|odt|png|jpe?g|tiff?|html?)$`)

// addressLine: the line reads as an address: it starts as one (addressStartRE) or names a
// Malay street anywhere ("NO. 17-5, JALAN SETIA", its number misread).
func addressLine(l string) bool {
	return addressStartRE.MatchString(l) || malayStreetRE.MatchString(l)
}

var malayStreetRE = lazyre.New(`(?i)\b(?:jalan|jln|lorong|persiaran|lebuh)\b`)

// columnWordRE: a word that heads a receipt's item columns ("ITEM QTY AMOUNT", read
// "ITEH E17 WE AMOUNT"); no shop is named by it.
var columnWordRE = lazyre.New(`(?i)\b(?:amount|price|qty|quantity|preis|betrag|menge|prix|montant|importe|subtotal)\b`)

// addressStartRE: a line that starts as an address does where the street's word comes
// first (Malay, Spanish, Italian, French, Polish), after the house number or not ("91
// Avenue Jean Jaurès"), or with a house number ("No. 53").
var addressStartRE = lazyre.New(`(?i)^\W*(?:\d{1,4}[a-z]?,?\s+)?(no\.?\s?\d|jalan|jln\.?|lorong|taman|kg\.|kampung|lot\s|unit|calle|c/|avda\.?|avenida|via|viale|piazza|corso|rue|avenue|av\.|boulevard|bd|chemin|ul\.|ulica)(\s|$)`)

var langWords = map[string][]string{
	"de": {"summe", "zahlen", "mwst", "rückgeld", "datum", "uhr", "vielen dank", "betrag", "gesamt", "bar", "netto", "brutto", "kasse", "artikel"},
	"en": {"total", "change", "cash", "thank you", "amount", "tax", "date", "subtotal", "receipt", "vat"},
	"fr": {"total", "tva", "merci", "espèces", "montant", "ticket", "date", "caisse", "à payer"},
	"nl": {"totaal", "btw", "bedankt", "bedrag", "kassa", "contant"},
	"it": {"totale", "iva", "grazie", "contanti", "importo", "scontrino"},
	"es": {"total", "iva", "gracias", "efectivo", "importe", "ticket"},
	"fi": {"yhteensä", "alv", "käteinen", "kiitos", "kuitti", "veroton", "verollinen", "maksettava"},
	"no": {"totalt", "mva", "å betale", "kontant", "bankkort", "takk", "kvittering", "veksel"},
	"sv": {"totalt", "moms", "att betala", "kontant", "tack", "kvitto", "växel"},
	"pl": {"suma", "razem", "ptu", "gotówka", "reszta", "paragon", "fiskalny"},
	"cs": {"celkem", "dph", "hotovost", "účtenka", "děkujeme", "k úhradě"},
	"sk": {"spolu", "celkom", "dph", "hotovosť", "ďakujeme", "pokladničný", "základ dane", "na úhradu"},
	"lt": {"suma", "pvm", "mokėti", "grynieji", "ačiū", "kvitas", "iš viso"},
	"hr": {"ukupno", "pdv", "gotovina", "račun", "hvala", "osnovica", "za platiti", "povrat"},
	"sl": {"skupaj", "ddv", "gotovina", "račun", "hvala", "za plačilo", "vračilo"},
	"hu": {"összesen", "áfa", "készpénz", "köszönjük", "nyugta", "kártya", "visszajáró", "fizetendő"},
}

func (p *parser) language() string {
	all := strings.Join(p.lower, "\n")
	best, n := "", 0
	for _, lang := range []string{"de", "en", "fr", "nl", "it", "es", "fi", "no", "sv", "pl", "cs", "sk", "lt", "hr", "sl", "hu"} {
		c := 0
		for _, w := range langWords[lang] {
			if strings.Contains(all, w) {
				c++
			}
		}
		if c > n {
			best, n = lang, c
		}
	}
	if n < 2 {
		return ""
	}
	return best
}

var countryOfLang = map[string]string{"de": "DE", "fr": "FR", "nl": "NL", "it": "IT", "es": "ES", "en": "GB", "fi": "FI", "no": "NO", "sv": "SE", "pl": "PL", "cs": "CZ", "sk": "SK", "lt": "LT", "hr": "HR", "sl": "SI", "hu": "HU"}

// country: the VAT id's prefix, the currency, a German post code, then the language.
func (p *parser) country(r *Result) string {
	if id := r.Issuer.VATID; len(id) >= 2 {
		if strings.HasPrefix(id, "CHE") {
			return "CH"
		}
		return id[:2]
	}
	if c := countryOfCurrency[r.Data.Currency]; c != "" {
		return c
	}
	if r.Issuer.Address != "" && r.Language == "de" {
		return "DE"
	}
	return countryOfLang[r.Language]
}

// classify scores the receipt types by their words; a shop receipt is the default.
func (p *parser) classify() (string, float64) {
	all := strings.Join(p.lower, "\n")
	best, score, others := CashReceipt, 0, 0
	b, _ := p.knownBrand()
	for _, t := range Types {
		s := 0
		for _, w := range typeWords[t] {
			if strings.Contains(all, w) {
				s++
			}
		}
		if b != nil && b.kind == t {
			s += 2
		}
		if t != CashReceipt {
			others += s
		}
		if s > score {
			best, score = t, s
		}
	}
	if score < 2 {
		if others == 0 {
			return CashReceipt, 0.7 // no sign of any other type: a shop's receipt
		}
		return CashReceipt, 0.5
	}
	return best, min(0.95, 0.5+0.15*float64(score))
}

var typeWords = map[string][]string{
	Restaurant: {"bewirtung", "tisch", "kellner", "bedienung", "trinkgeld", "speisen", "getränke", "restaurant", "gaststätte", "gasthaus", "pizzeria", "trattoria", "bistro", "café", "gäste", "tip", "gedeck", "hauptgericht", "vorspeise", "bier", "wein"},
	Parking:    {"parkhaus", "parkschein", "parkdauer", "parkgebühr", "parkticket", "einfahrt", "ausfahrt", "parking", "parkplatz", "tiefgarage", "parken"},
	Train:      {"deutsche bahn", "db fernverkehr", "db regio", "bahncard", "fahrkarte", "zugbindung", "hinfahrt", "rückfahrt", "ice ", "klasse", "hbf", "bahnhof", "sparpreis", "flexpreis", "zug"},
	Flight:     {"boarding", "flug", "flight", "gate", "airline", "lufthansa", "eurowings", "ryanair", "easyjet", "condor", "passenger", "sitzplatz", "gepäck"},
	Bus:        {"flixbus", "busfahrt", "omnibus", "fernbus", "haltestelle", "busticket", "linienbus"},
	Taxi:       {"taxi", "fahrpreis", "uber", "free now", "freenow", "fahrer", "taxameter", "fahrtstrecke"},
	Hotel:      {"hotel", "übernachtung", "zimmer", "anreise", "abreise", "nächte", "nights", "city tax", "kurtaxe", "beherbergung", "frühstück", "room", "gästehaus", "pension"},
	Fuel:       {"super e10", "super e5", "super plus", "diesel", "benzin", "kraftstoff", "zapfsäule", "säule", "tankstelle", "liter", "adblue", "ltr", "e10"},
	Invoice:    {"rechnung", "rechnungsnummer", "invoice", "kundennummer", "zahlbar bis", "iban", "leistungszeitraum", "lieferdatum", "zahlungsziel", "rechnungsdatum"},
}

var (
	litresRE   = lazyre.New(`(?i)(\d{1,3}[,.]\d{2,3})\s?(?:l|ltr|liter)\b`)
	perLitreRE = lazyre.New(`(?i)(\d[,.]\d{3})\s?(?:eur|€)?\s?/\s?l`)
	fuelTypeRE = lazyre.New(`(?i)\b(super\s?plus|super\s?e10|super\s?e5|super|diesel|e10|e5|lpg|autogas|adblue|premium diesel)\b`)
	nightsRE   = lazyre.New(`(?i)(\d{1,2})\s?(?:nächte|nacht|übernachtung(?:en)?|nights?|x übernachtung)`)
	classRE    = lazyre.New(`(?i)\b([12])\.?\s?kl(?:asse|\.)?\b|\bclass\s?([12])\b`)
	routeRE    = lazyre.New(`(?i)\b(?:von|from|ab)\s+([\pL .-]{3,40}?)\s+(?:nach|to|->|→|an)\s+([\pL .-]{3,40})`)
	flightRE   = lazyre.New(`\b([A-Z]{2}|[A-Z]\d|\d[A-Z])\s?(\d{2,4})\b`)
	durationRE = lazyre.New(`(?i)(?:parkdauer|dauer|duration)[:\s]*(\d{1,3})\s?(?:std|h|:)\.?\s?(\d{1,2})?`)
	kmRE       = lazyre.New(`(?i)(\d{1,4}[,.]\d{1,2})\s?km\b`)
	tipRE      = lazyre.New(`(?i)(?:trinkgeld|tip)[:\s]*(?:eur|€)?\s?(\d+[,.]\d{2})`)
	tableRE    = lazyre.New(`(?i)\btisch(?:\s?nr\.?)?[:\s]*(\d{1,4})\b`)
	guestsRE   = lazyre.New(`(?i)(\d{1,2})\s?(?:gäste|personen|pers\.|covers|guests)`)
)

// details reads the fields of the receipt's type.
func (p *parser) details(typ string) Details {
	all := strings.Join(p.lines, "\n")
	var d Details
	dec := func(s string) string { return strings.ReplaceAll(s, ",", ".") }
	switch typ {
	case Fuel:
		if m := litresRE.FindStringSubmatch(all); m != nil {
			d.Litres = dec(m[1])
		}
		if m := perLitreRE.FindStringSubmatch(all); m != nil {
			d.PricePerL = dec(m[1])
		}
		if m := fuelTypeRE.FindStringSubmatch(all); m != nil {
			d.FuelType = m[1]
		}
	case Hotel:
		if m := nightsRE.FindStringSubmatch(all); m != nil {
			d.Nights, _ = strconv.Atoi(m[1])
		}
	case Train, Bus, Flight:
		if m := routeRE.FindStringSubmatch(all); m != nil {
			d.From, d.To = strings.TrimSpace(m[1]), strings.TrimSpace(m[2])
		}
		if m := classRE.FindStringSubmatch(all); m != nil {
			d.Class = m[1] + m[2]
		}
		if typ == Flight {
			for _, l := range p.lines {
				if low := strings.ToLower(l); strings.Contains(low, "flug") || strings.Contains(low, "flight") {
					if m := flightRE.FindStringSubmatch(l); m != nil {
						d.FlightNo = m[1] + " " + m[2]
						break
					}
				}
			}
		}
	case Parking:
		if m := durationRE.FindStringSubmatch(all); m != nil {
			d.Duration = m[1] + "h"
			if m[2] != "" {
				d.Duration += " " + m[2] + "min"
			}
		}
	case Taxi:
		if m := kmRE.FindStringSubmatch(all); m != nil {
			d.Distance = dec(m[1])
		}
	case Restaurant:
		if m := tipRE.FindStringSubmatch(all); m != nil {
			d.Tip = dec(m[1])
		}
		if m := tableRE.FindStringSubmatch(all); m != nil {
			d.TableNumber = m[1]
		}
		if m := guestsRE.FindStringSubmatch(all); m != nil {
			d.Guests, _ = strconv.Atoi(m[1])
		}
	}
	return d
}
