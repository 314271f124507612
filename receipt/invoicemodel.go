package receipt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/llm"
)

// modelParty and modelInvoice are the answer the language model gives for an invoice.
type modelParty struct {
	Name        string `json:"name"`
	Street      string `json:"street"`
	PostCode    string `json:"postCode"`
	City        string `json:"city"`
	Country     string `json:"country"`
	VATID       string `json:"vatId"`
	TaxNumber   string `json:"taxNumber"`
	Email       string `json:"email"`
	Phone       string `json:"phone"`
	ContactName string `json:"contactName"`
}

type modelInvoice struct {
	Number         string         `json:"number"`
	IssueDate      string         `json:"issueDate"`
	DueDate        string         `json:"dueDate"`
	Currency       string         `json:"currency"`
	BuyerReference string         `json:"buyerReference"`
	PaymentTerms   string         `json:"paymentTerms"`
	Seller         modelParty     `json:"seller"`
	Buyer          modelParty     `json:"buyer"`
	IBAN           string         `json:"iban"`
	BIC            string         `json:"bic"`
	NetTotal       *float64       `json:"netTotal"`
	VATTotal       *float64       `json:"vatTotal"`
	GrossTotal     *float64       `json:"grossTotal"`
	VATBreakdown   []modelVATLine `json:"vatBreakdown"`
	Lines          []modelLine    `json:"lines"`
}

type modelLine struct {
	Name      string   `json:"name"`
	Quantity  *float64 `json:"quantity"`
	UnitPrice *float64 `json:"unitPrice"`
	NetAmount float64  `json:"netAmount"`
	VATRate   *float64 `json:"vatRate"`
}

func object(props map[string]any) map[string]any {
	req := make([]string, 0, len(props))
	for k := range props {
		req = append(req, k)
	}
	return map[string]any{"type": "object", "additionalProperties": false, "required": req, "properties": props}
}

var partySchema = object(map[string]any{"name": str(), "street": str(), "postCode": str(), "city": str(), "country": map[string]any{"type": "string", "description": "ISO 3166-1 alpha-2"}, "vatId": str(), "taxNumber": str(), "email": str(), "phone": str(), "contactName": str()})

var invoiceSchema = object(map[string]any{
	"number": str(), "issueDate": map[string]any{"type": "string", "description": "YYYY-MM-DD or empty"}, "dueDate": map[string]any{"type": "string", "description": "YYYY-MM-DD or empty"},
	"currency": str(), "buyerReference": map[string]any{"type": "string", "description": "Leitweg-ID or the buyer's reference"}, "paymentTerms": str(),
	"seller": partySchema, "buyer": partySchema, "iban": str(), "bic": str(),
	"netTotal": numOrNull(), "vatTotal": numOrNull(), "grossTotal": numOrNull(),
	"vatBreakdown": map[string]any{"type": "array", "items": object(map[string]any{"rate": map[string]any{"type": "number"}, "net": numOrNull(), "vat": numOrNull(), "gross": numOrNull()})},
	"lines":        map[string]any{"type": "array", "items": object(map[string]any{"name": str(), "quantity": numOrNull(), "unitPrice": numOrNull(), "netAmount": map[string]any{"type": "number"}, "vatRate": numOrNull()})},
})

const invoicePrompt = `You read invoices for e-invoicing (EN 16931). Extract the fields of the schema from the invoice image and its text. Amounts are numbers with a point as decimal separator; line amounts are net. Use empty strings or null for what the invoice does not show; never guess.`

func decodeInvoice(raw []byte) (*modelInvoice, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var m modelInvoice
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("the answer does not fit the schema: %v", err)
	}
	for _, d := range []string{m.IssueDate, m.DueDate} {
		if _, err := einvoice.ParseDate(d); d != "" && err != nil {
			return nil, fmt.Errorf("date %q is not YYYY-MM-DD", d)
		}
	}
	if m.Currency != "" && !isoCurrency.MatchString(m.Currency) {
		return nil, fmt.Errorf("currency %q is not an ISO 4217 code", m.Currency)
	}
	for _, f := range []*float64{m.NetTotal, m.VATTotal, m.GrossTotal} {
		if f != nil && (*f < -1e9 || *f > 1e9) {
			return nil, fmt.Errorf("amount %v is out of range", *f)
		}
	}
	if len(m.Lines) > 2000 || len(m.VATBreakdown) > 20 {
		return nil, fmt.Errorf("too many lines or VAT lines")
	}
	return &m, nil
}

// askInvoice lets the model read the invoice; its fields fill and correct the rules'
// invoice, except a total that is not printed where the rules found one.
func (e *Extractor) askInvoice(ctx context.Context, res *InvoiceResult, image []byte) {
	res.LLM.Model = e.Model.Model()
	ans, err := e.Model.Ask(ctx, llm.Request{System: invoicePrompt, Text: "Text of the invoice:\n" + res.Text, Image: compactPNG(image), ImageType: "image/png", SchemaName: "invoice", Schema: invoiceSchema})
	if err != nil {
		res.LLM.Fallback = err.Error()
		return
	}
	res.LLM.Tokens, res.LLM.Credits = ans.Tokens, 1
	m, err := decodeInvoice(ans.JSON)
	if err != nil {
		res.LLM.Fallback = err.Error()
		return
	}
	res.LLM.Used, res.AIExtractionUsed, res.Source = true, true, "LLM"
	inText := printed(res.Text)
	inv := res.Invoice
	set := func(dst *string, v string) {
		if v = strings.TrimSpace(v); v != "" {
			*dst = v
		}
	}
	set(&inv.Number, m.Number)
	set((*string)(&inv.IssueDate), m.IssueDate)
	set((*string)(&inv.DueDate), m.DueDate)
	set(&inv.Currency, m.Currency)
	if einvoice.CheckLeitwegID(m.BuyerReference) == nil || inv.BuyerReference == "" {
		set(&inv.BuyerReference, m.BuyerReference)
	}
	set(&inv.PaymentTerms, m.PaymentTerms)
	party := func(p *einvoice.Party, q modelParty) {
		set(&p.Name, q.Name)
		set(&p.Address.Line1, q.Street)
		set(&p.Address.PostCode, q.PostCode)
		set(&p.Address.City, q.City)
		set(&p.Address.Country, strings.ToUpper(q.Country))
		set(&p.VATID, strings.ReplaceAll(q.VATID, " ", ""))
		set(&p.TaxNumber, q.TaxNumber)
		set(&p.Contact.Email, q.Email)
		set(&p.Contact.Phone, q.Phone)
		set(&p.Contact.Name, q.ContactName)
	}
	party(&inv.Seller, m.Seller)
	party(&inv.Buyer, m.Buyer)
	if iban := strings.ReplaceAll(strings.ToUpper(m.IBAN), " ", ""); validIBAN(iban) {
		inv.Payment = einvoice.Payment{MeansCode: "58", CreditTransfers: []einvoice.CreditTransfer{{AccountID: iban, AccountName: inv.Seller.Name, ServiceProvider: strings.ToUpper(m.BIC)}}}
	}
	total := func(dst *einvoice.Decimal, f *float64) {
		v, ok := dec(f)
		if !ok {
			return
		}
		if dst.Valid() && !dst.Value().Equal(v.Value()) && !inText[v.Value().StringFixed(2)] && res.Text != "" {
			return // the printed figure stands
		}
		*dst = v
	}
	total(&inv.Totals.NetTotal, m.NetTotal)
	total(&inv.Totals.VATTotal, m.VATTotal)
	total(&inv.Totals.GrossTotal, m.GrossTotal)
	if len(m.VATBreakdown) > 0 {
		inv.VATBreakdown = nil
		for _, l := range m.VATBreakdown {
			rate := decimal.NewFromFloat(l.Rate)
			b := einvoice.VATBreakdown{Rate: einvoice.NewDecimal(rate), Category: category(rate)}
			b.TaxableAmount, _ = dec(l.Net)
			b.TaxAmount, _ = dec(l.VAT)
			inv.VATBreakdown = append(inv.VATBreakdown, b)
		}
	}
	if len(m.Lines) > 0 {
		inv.Lines = nil
		for i, l := range m.Lines {
			q := einvoice.MustDecimal("1")
			if l.Quantity != nil && *l.Quantity > 0 {
				q = einvoice.NewDecimal(decimal.NewFromFloat(*l.Quantity))
			}
			line := einvoice.Line{ID: strconv.Itoa(i + 1), Quantity: q, Unit: "C62", NetAmount: money(decimal.NewFromFloat(l.NetAmount)), Item: einvoice.Item{Name: l.Name}}
			if p, ok := dec(l.UnitPrice); ok {
				line.Price.Net = p
			} else {
				line.Price.Net = money(line.NetAmount.Value().Div(q.Value()))
			}
			if l.VATRate != nil {
				rate := decimal.NewFromFloat(*l.VATRate)
				line.VATRate, line.VATCategory = einvoice.NewDecimal(rate), category(rate)
			}
			inv.Lines = append(inv.Lines, line)
		}
		inv.Totals.LineTotal = einvoice.Decimal{}
	}
}
