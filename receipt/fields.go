package receipt

import (
	"fmt"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/einvoice"
)

// A reading's confidence when a cross-check confirms it, and when one contradicts it.
const (
	agreed       = 0.95
	contradicted = 0.3
)

// field is one extracted field as readings see it: its term, where it stands and its value
// as text ("" when not found).
type field struct {
	bt, name, path string
	value          string
	conf           float64
	reason         string
}

// readings turns the fields found into readings and the uncertain list: source is where the
// text came from; before holds the rules' values by path when a language model answered
// afterwards (a value it changed is the model's).
func readings(fs []field, source string, before map[string]string) (all, uncertain []einvoice.Reading) {
	all, uncertain = []einvoice.Reading{}, []einvoice.Reading{}
	for _, f := range fs {
		if f.value == "" {
			continue
		}
		src := source
		if before != nil {
			if v, ok := before[f.path]; !ok || v != f.value {
				src = "LLM"
			}
		}
		r := einvoice.Reading{BT: f.bt, Name: f.name, Path: f.path, Confidence: round2(f.conf), Source: src, Reason: f.reason}
		if r.Reason == "" && r.Confidence < einvoice.Uncertain {
			r.Reason = "read with little confidence"
		}
		all = append(all, r)
		if r.Confidence < einvoice.Uncertain {
			uncertain = append(uncertain, r)
		}
	}
	return all, uncertain
}

// values is the value of each field by path, to tell later which ones a model changed.
func values(fs []field) map[string]string {
	out := map[string]string{}
	for _, f := range fs {
		if f.value != "" {
			out[f.path] = f.value
		}
	}
	return out
}

// receiptFields are a receipt's fields with their confidences, lowered where a plausibility
// check failed.
func receiptFields(r *Result) []field {
	failed := map[string]string{}
	for _, c := range r.Checks {
		if !c.Passed {
			failed[c.Name] = c.Message
		}
	}
	d := r.Data
	gross := field{bt: "BT-112", name: "Invoice total amount with VAT", path: "data.gross", value: decText(d.Gross), conf: r.Confidence.Gross}
	net := field{bt: "BT-109", name: "Invoice total amount without VAT", path: "data.net", value: decText(d.Net), conf: r.Confidence.VAT}
	vat := field{bt: "BT-110", name: "Invoice total VAT amount", path: "data.vat", value: decText(d.VAT), conf: r.Confidence.VAT}
	breakdown := field{bt: "BG-23", name: "VAT breakdown", path: "vatBreakdown", value: breakdownText(r.VAT), conf: 0.7}
	for _, c := range r.Checks {
		if c.Name == CheckBreakdown && c.Passed {
			// The breakdown's lines add up to the total: two readings agree.
			breakdown.conf, gross.conf = agreed, max(gross.conf, agreed)
		}
	}
	for _, check := range []string{CheckNetVAT, CheckBreakdown, CheckCash} {
		if msg, bad := failed[check]; bad {
			for _, f := range []*field{&gross, &net, &vat, &breakdown} {
				f.conf, f.reason = min(f.conf, contradicted), msg
			}
		}
	}
	if msg, bad := failed[CheckRates]; bad {
		breakdown.conf, breakdown.reason = min(breakdown.conf, contradicted), msg
	}
	date := field{bt: "BT-2", name: "Invoice issue date", path: "data.date", value: string(d.Date), conf: r.Confidence.Date}
	if msg, bad := failed[CheckDate]; bad {
		date.conf, date.reason = 0.1, msg
	}
	currency := field{bt: "BT-5", name: "Invoice currency code", path: "data.currency", value: d.Currency, conf: 0.9}
	if !printsCurrency(r.Text) {
		currency.conf = 0.6 // none printed: the country's currency is assumed
	}
	return []field{
		date,
		{name: "Time", path: "data.time", value: d.Time, conf: 0.8},
		{name: "Receipt type", path: "data.type", value: d.Type, conf: r.Confidence.Type},
		{bt: "BT-27", name: "Seller name", path: "data.issuer", value: d.Issuer, conf: r.Confidence.Issuer},
		{bt: "BT-1", name: "Invoice number", path: "data.reference", value: d.Reference, conf: 0.7},
		currency,
		net, vat, gross,
		{bt: "BT-81", name: "Payment means type code", path: "data.paymentMethod", value: d.PaymentMethod, conf: 0.8},
		vatID("issuerDetails.vatId", r.Issuer.VATID),
		breakdown,
	}
}

// finishReadings sets a receipt's readings and uncertain list; src is what the text was read
// from (PDF_TEXT or OCR).
func finishReadings(r *Result, src string, before map[string]string) {
	r.Fields, r.Uncertain = readings(receiptFields(r), src, before)
}

// invoiceFields are an invoice's fields read from text or OCR, each checked against the
// others where the invoice allows: net + VAT = gross, the VAT breakdown against the totals,
// the amount due against the gross, dates in order and not in the future, the check digits
// of the VAT identifier.
func invoiceFields(inv *einvoice.Invoice, text string, now time.Time) []field {
	t := inv.Totals
	cent := decimal.New(2, -2)
	net := field{bt: "BT-109", name: "Invoice total amount without VAT", path: "invoice.totals.netTotal", value: decText(t.NetTotal), conf: 0.7}
	vat := field{bt: "BT-110", name: "Invoice total VAT amount", path: "invoice.totals.vatTotal", value: decText(t.VATTotal), conf: 0.7}
	gross := field{bt: "BT-112", name: "Invoice total amount with VAT", path: "invoice.totals.grossTotal", value: decText(t.GrossTotal), conf: 0.7}
	if t.NetTotal.Valid() && t.VATTotal.Valid() && t.GrossTotal.Valid() {
		sum := t.NetTotal.Value().Add(t.VATTotal.Value())
		if sum.Sub(t.GrossTotal.Value()).Abs().LessThanOrEqual(cent) {
			net.conf, vat.conf, gross.conf = agreed, agreed, agreed
		} else {
			msg := fmt.Sprintf("net %s + VAT %s is %s, not the gross %s", t.NetTotal, t.VATTotal, sum.StringFixed(2), t.GrossTotal)
			for _, f := range []*field{&net, &vat, &gross} {
				f.conf, f.reason = contradicted, msg
			}
		}
	}
	due := field{bt: "BT-115", name: "Amount due for payment", path: "invoice.totals.amountDue", value: decText(t.AmountDue), conf: gross.conf}
	if t.AmountDue.Valid() && t.GrossTotal.Valid() && t.AmountDue.Value().GreaterThan(t.GrossTotal.Value()) {
		due.conf, due.reason = contradicted, fmt.Sprintf("the amount due %s is more than the gross %s", t.AmountDue, t.GrossTotal)
	}
	breakdown := field{bt: "BG-23", name: "VAT breakdown", path: "invoice.vatBreakdown", conf: 0.7}
	if len(inv.VATBreakdown) > 0 {
		breakdown.value = fmt.Sprint(len(inv.VATBreakdown))
		taxable, tax := decimal.Zero, decimal.Zero
		for _, b := range inv.VATBreakdown {
			taxable, tax = taxable.Add(b.TaxableAmount.Value()), tax.Add(b.TaxAmount.Value())
		}
		switch {
		case t.VATTotal.Valid() && tax.Sub(t.VATTotal.Value()).Abs().GreaterThan(cent):
			breakdown.conf, breakdown.reason = contradicted, fmt.Sprintf("the breakdown's VAT adds up to %s, the VAT total is %s", tax.StringFixed(2), t.VATTotal)
		case t.NetTotal.Valid() && taxable.Sub(t.NetTotal.Value()).Abs().GreaterThan(cent):
			breakdown.conf, breakdown.reason = contradicted, fmt.Sprintf("the breakdown's taxable amounts add up to %s, the net total is %s", taxable.StringFixed(2), t.NetTotal)
		case t.VATTotal.Valid() && t.NetTotal.Valid():
			breakdown.conf = agreed
		}
	}
	lines := field{bt: "BG-25", name: "Invoice line", path: "invoice.lines", conf: 0.85} // taken only when they add up to the line total or the net
	if len(inv.Lines) > 0 {
		lines.value = fmt.Sprint(len(inv.Lines))
	}
	issue := dateField("BT-2", "Invoice issue date", "invoice.issueDate", inv.IssueDate, now, 0.8)
	dueDate := dateField("BT-9", "Payment due date", "invoice.dueDate", inv.DueDate, now.AddDate(5, 0, 0), 0.8)
	if inv.IssueDate != "" && inv.DueDate != "" && inv.DueDate < inv.IssueDate && issue.reason == "" {
		issue.conf, issue.reason = contradicted, fmt.Sprintf("the issue date %s is after the due date %s", inv.IssueDate, inv.DueDate)
	}
	number := field{bt: "BT-1", name: "Invoice number", path: "invoice.number", value: inv.Number, conf: 0.5, reason: "no invoice number label; a receipt or document number was taken"}
	if invNumberRE.MatchString(text) || labelledNumber(text, inv.Number) {
		number.conf, number.reason = 0.85, ""
	}
	currency := field{bt: "BT-5", name: "Invoice currency code", path: "invoice.currency", value: inv.Currency, conf: 0.9}
	if !printsCurrency(text) {
		currency.conf, currency.reason = 0.5, "no currency printed beside an amount; EUR assumed"
	}
	seller := partyName("BT-27", "Seller name", "invoice.seller.name", inv.Seller.Name)
	buyer := partyName("BT-44", "Buyer name", "invoice.buyer.name", inv.Buyer.Name)
	iban := field{bt: "BT-84", name: "Payment account identifier", path: "invoice.payment.creditTransfers", conf: agreed}
	if len(inv.Payment.CreditTransfers) > 0 {
		iban.value = inv.Payment.CreditTransfers[0].AccountID
		if !validIBAN(iban.value) {
			iban.conf, iban.reason = contradicted, "the IBAN's check digits do not match (a digit misread?)"
		}
	}
	return []field{
		number, issue, currency, dueDate,
		{bt: "BT-10", name: "Buyer reference (Leitweg-ID)", path: "invoice.buyerReference", value: inv.BuyerReference, conf: agreed}, // check digits verified
		seller,
		vatID("invoice.seller.vatId", inv.Seller.VATID),
		buyer, iban,
		net, vat, gross, due, breakdown, lines,
	}
}

// invoiceReadings sets an extracted invoice's readings: everything read from the embedded
// XML is exact; text and OCR (src) are checked field by field.
func invoiceReadings(res *InvoiceResult, src string, now time.Time, before map[string]string) {
	fs := invoiceFields(res.Invoice, res.Text, now)
	if src == "EMBEDDED_XML" {
		for i := range fs {
			fs[i].conf, fs[i].reason = 1, ""
		}
	}
	res.Fields, res.Uncertain = readings(fs, src, before)
}

func dateField(bt, name, path string, d einvoice.Date, latest time.Time, conf float64) field {
	f := field{bt: bt, name: name, path: path, value: string(d), conf: conf}
	if d == "" {
		return f
	}
	switch t := d.Time(); {
	case t.After(latest):
		f.conf, f.reason = 0.1, string(d)+" is in the future"
	case t.Year() < 2000:
		f.conf, f.reason = contradicted, string(d)+" is before 2000"
	}
	return f
}

// partyName is a party's name; a label taken for a value ("Anschrift:") is no name.
func partyName(bt, title, path, v string) field {
	f := field{bt: bt, name: title, path: path, value: v, conf: 0.7}
	if t := strings.TrimSpace(v); strings.HasSuffix(t, ":") || len([]rune(t)) < 2 {
		f.conf, f.reason = contradicted, "looks like a label, not a name"
	}
	return f
}

// vatID checks a German VAT identifier's check digit (ISO 7064 MOD 11,10, as the Federal
// Central Tax Office computes it); other countries' identifiers are taken as read.
func vatID(path, v string) field {
	f := field{bt: "BT-31", name: "Seller VAT identifier", path: path, value: v, conf: 0.85}
	id := strings.ReplaceAll(strings.ToUpper(v), " ", "")
	if len(id) != 11 || !strings.HasPrefix(id, "DE") {
		return f
	}
	product := 10
	for _, c := range id[2:10] {
		if c < '0' || c > '9' {
			return f
		}
		sum := (int(c-'0') + product) % 10
		if sum == 0 {
			sum = 10
		}
		product = 2 * sum % 11
	}
	check := (11 - product) % 10
	if id[10]-'0' == byte(check) {
		f.conf = agreed
	} else {
		f.conf, f.reason = contradicted, "the check digit of the German VAT identifier does not match (a digit misread?)"
	}
	return f
}

// printsCurrency: the text names a currency as a word, code or sign of its own.
func printsCurrency(text string) bool {
	for _, l := range strings.Split(strings.ToLower(text), "\n") {
		if len(lineCurrencies(l)) > 0 {
			return true
		}
	}
	return false
}

func decText(d einvoice.Decimal) string {
	if !d.Valid() {
		return ""
	}
	return d.Value().StringFixed(2)
}

func breakdownText(lines []VATLine) string {
	var b strings.Builder
	for _, l := range lines {
		fmt.Fprintf(&b, "%s:%s/%s/%s ", l.Rate, l.Net, l.VAT, l.Gross)
	}
	return b.String()
}

// labelledNumber: the text prints number after a number's label or in a title ("Rechnung:
// Re-147/2025", "Factura INV/2026/00001"), as the word boxes read it.
func labelledNumber(text, number string) bool {
	if number == "" {
		return false
	}
	for line := range strings.SplitSeq(text, "\n") {
		at := strings.Index(line, number)
		if at < 0 {
			continue
		}
		cells := cellSepRE.Split(strings.TrimSpace(line[:at]), -1)
		label := strings.TrimSpace(cells[len(cells)-1])
		if numberLabelRE.MatchString(label) || numberInTitle(label+" "+number) != "" {
			return true
		}
	}
	return false
}
