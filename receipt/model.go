package receipt

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/internal/lazyre"
	"github.com/papierkram/papierkram/llm"
)

// modelReceipt is the answer the language model must give; the schema below describes it
// and decodeModel enforces it.
type modelReceipt struct {
	Type          string          `json:"type"`
	Issuer        string          `json:"issuer"`
	IssuerAddress string          `json:"issuerAddress"`
	IssuerVATID   string          `json:"issuerVatId"`
	Date          string          `json:"date"`
	Time          string          `json:"time"`
	Reference     string          `json:"reference"`
	Currency      string          `json:"currency"`
	Gross         *float64        `json:"gross"`
	Net           *float64        `json:"net"`
	VAT           *float64        `json:"vat"`
	PaymentMethod string          `json:"paymentMethod"`
	VATBreakdown  []modelVATLine  `json:"vatBreakdown"`
	Items         []modelItem     `json:"items"`
	Language      string          `json:"language"`
	Country       string          `json:"country"`
	Details       json.RawMessage `json:"details"`
}

type modelVATLine struct {
	Rate  float64  `json:"rate"`
	Net   *float64 `json:"net"`
	VAT   *float64 `json:"vat"`
	Gross *float64 `json:"gross"`
}

type modelItem struct {
	Description string   `json:"description"`
	Quantity    *float64 `json:"quantity"`
	UnitPrice   *float64 `json:"unitPrice"`
	Total       float64  `json:"total"`
}

func numOrNull() map[string]any { return map[string]any{"type": []string{"number", "null"}} }
func str() map[string]any       { return map[string]any{"type": "string"} }

// modelSchema is the structured-output schema (strict mode: every property required, no
// others; unknown values are empty strings or null).
var modelSchema = map[string]any{
	"type": "object", "additionalProperties": false,
	"required": []string{"type", "issuer", "issuerAddress", "issuerVatId", "date", "time", "reference", "currency", "gross", "net", "vat", "paymentMethod", "vatBreakdown", "items", "language", "country", "details"},
	"properties": map[string]any{
		"type":          map[string]any{"type": "string", "enum": Types},
		"issuer":        str(),
		"issuerAddress": str(),
		"issuerVatId":   str(),
		"date":          map[string]any{"type": "string", "description": "YYYY-MM-DD or empty"},
		"time":          map[string]any{"type": "string", "description": "HH:MM or empty"},
		"reference":     str(),
		"currency":      map[string]any{"type": "string", "description": "ISO 4217 code"},
		"gross":         numOrNull(), "net": numOrNull(), "vat": numOrNull(),
		"paymentMethod": map[string]any{"type": "string", "enum": []string{Cash, DebitCard, CreditCard, Mobile, Transfer, ""}},
		"vatBreakdown": map[string]any{"type": "array", "items": map[string]any{
			"type": "object", "additionalProperties": false, "required": []string{"rate", "net", "vat", "gross"},
			"properties": map[string]any{"rate": map[string]any{"type": "number"}, "net": numOrNull(), "vat": numOrNull(), "gross": numOrNull()}}},
		"items": map[string]any{"type": "array", "items": map[string]any{
			"type": "object", "additionalProperties": false, "required": []string{"description", "quantity", "unitPrice", "total"},
			"properties": map[string]any{"description": str(), "quantity": numOrNull(), "unitPrice": numOrNull(), "total": map[string]any{"type": "number"}}}},
		"language": map[string]any{"type": "string", "description": "ISO 639-1"},
		"country":  map[string]any{"type": "string", "description": "ISO 3166-1 alpha-2"},
		"details": map[string]any{"type": "object", "additionalProperties": false,
			"required": []string{"from", "to", "class", "nights", "litres", "fuelType", "parkingDuration"},
			"properties": map[string]any{"from": str(), "to": str(), "class": str(), "nights": map[string]any{"type": []string{"integer", "null"}},
				"litres": numOrNull(), "fuelType": str(), "parkingDuration": str()}},
	},
}

const modelPrompt = `You read receipts for bookkeeping. Extract the fields of the schema from the receipt image and its OCR text. Amounts are numbers with a point as decimal separator; gross is the total paid. Use empty strings or null for what the receipt does not show; never guess.`

var (
	datePattern = lazyre.New(`^\d{4}-\d{2}-\d{2}$`)
	timePattern = lazyre.New(`^([01]\d|2[0-3]):[0-5]\d$`)
	isoCurrency = lazyre.New(`^[A-Z]{3}$`)
)

// decodeModel reads and checks the model's answer against the schema's rules.
func decodeModel(raw []byte) (*modelReceipt, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var m modelReceipt
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("the answer does not fit the schema: %v", err)
	}
	switch {
	case m.Type != "" && !slices.Contains(Types, m.Type):
		return nil, fmt.Errorf("type %q is not a receipt type", m.Type)
	case m.Date != "" && !datePattern.MatchString(m.Date):
		return nil, fmt.Errorf("date %q is not YYYY-MM-DD", m.Date)
	case m.Time != "" && !timePattern.MatchString(m.Time):
		return nil, fmt.Errorf("time %q is not HH:MM", m.Time)
	case m.Currency != "" && !isoCurrency.MatchString(m.Currency):
		return nil, fmt.Errorf("currency %q is not an ISO 4217 code", m.Currency)
	case m.PaymentMethod != "" && !slices.Contains([]string{Cash, DebitCard, CreditCard, Mobile, Transfer}, m.PaymentMethod):
		return nil, fmt.Errorf("payment method %q is unknown", m.PaymentMethod)
	}
	for _, f := range []*float64{m.Gross, m.Net, m.VAT} {
		if f != nil && (*f < -1e7 || *f > 1e7) {
			return nil, fmt.Errorf("amount %v is out of range", *f)
		}
	}
	if len(m.Items) > 500 || len(m.VATBreakdown) > 20 {
		return nil, fmt.Errorf("too many items or VAT lines")
	}
	return &m, nil
}

// ask lets the model read the receipt and reconciles its answer with the rules' figures.
// A provider error or an unusable answer leaves the rules result and says why.
func (e *Extractor) ask(ctx context.Context, r *Result, image []byte) {
	r.LLM.Model = e.Model.Model()
	ans, err := e.Model.Ask(ctx, llm.Request{
		System: modelPrompt, Text: "OCR text of the receipt:\n" + r.Text,
		Image: compactPNG(image), ImageType: "image/png", SchemaName: "receipt", Schema: modelSchema,
	})
	if err != nil {
		r.LLM.Fallback = err.Error()
		return
	}
	r.LLM.Tokens = ans.Tokens
	r.LLM.Credits = 1 // the provider answered: the key pays for the call
	m, err := decodeModel(ans.JSON)
	if err != nil {
		r.LLM.Fallback = err.Error()
		return
	}
	r.LLM.Used = true
	r.Source = "LLM"
	reconcile(r, m)
}

func dec(f *float64) (einvoice.Decimal, bool) {
	if f == nil {
		return einvoice.Decimal{}, false
	}
	return money(decimal.NewFromFloat(*f)), true
}

// reconcile takes the model's fields, except an amount the OCR text does not contain where
// the rules found one with confidence: models misread digits as confidently as they read
// them right, and the printed figure is the evidence.
func reconcile(r *Result, m *modelReceipt) {
	inText := printed(r.Text)
	if g, ok := dec(m.Gross); ok && g.Value().Sign() > 0 {
		rules := r.Data.Gross
		switch {
		case rules.Valid() && rules.Value().Equal(g.Value()):
			r.Confidence.Gross = 0.98
		case rules.Valid() && r.Confidence.Gross >= 0.4 && !inText[g.Value().StringFixed(2)] && r.Text != "":
			// keep the rules' total
		default:
			r.Data.Gross, r.Confidence.Gross = g, 0.85
		}
	}
	net, okN := dec(m.Net)
	vat, okV := dec(m.VAT)
	if okN && okV && r.Data.Gross.Valid() && net.Value().Add(vat.Value()).Sub(r.Data.Gross.Value()).Abs().LessThanOrEqual(decimal.New(2, -2)) {
		r.Data.Net, r.Data.VAT, r.Confidence.VAT = net, vat, 0.9
	}
	if d, err := einvoice.ParseDate(m.Date); err == nil && m.Date != "" {
		r.Data.Date, r.Confidence.Date = d, 0.9
	}
	set := func(dst *string, v string) {
		if v = strings.TrimSpace(v); v != "" {
			*dst = v
		}
	}
	set(&r.Data.Time, m.Time)
	set(&r.Data.Reference, m.Reference)
	set(&r.Data.Currency, m.Currency)
	set(&r.Data.PaymentMethod, m.PaymentMethod)
	set(&r.Issuer.Address, m.IssuerAddress)
	set(&r.Issuer.VATID, m.IssuerVATID)
	set(&r.Language, m.Language)
	set(&r.Country, strings.ToUpper(m.Country))
	if strings.TrimSpace(m.Issuer) != "" {
		r.Issuer.Name, r.Data.Issuer, r.Confidence.Issuer = strings.TrimSpace(m.Issuer), strings.TrimSpace(m.Issuer), 0.9
	}
	if m.Type != "" {
		r.Data.Type, r.Confidence.Type = m.Type, 0.9
	}
	if len(m.VATBreakdown) > 0 {
		var lines []VATLine
		for _, l := range m.VATBreakdown {
			v := VATLine{Rate: einvoice.NewDecimal(decimal.NewFromFloat(l.Rate))}
			v.Net, _ = dec(l.Net)
			v.VAT, _ = dec(l.VAT)
			v.Gross, _ = dec(l.Gross)
			lines = append(lines, v)
		}
		r.VAT = lines
	}
	if len(m.Items) > 0 {
		var items []Item
		for _, it := range m.Items {
			x := Item{Description: it.Description, Total: money(decimal.NewFromFloat(it.Total))}
			if it.Quantity != nil {
				x.Quantity = einvoice.NewDecimal(decimal.NewFromFloat(*it.Quantity))
			}
			x.UnitPrice, _ = dec(it.UnitPrice)
			items = append(items, x)
		}
		r.Items = items
	}
	var d struct {
		From, To, Class, FuelType, ParkingDuration string
		Nights                                     *int
		Litres                                     *float64
	}
	if json.Unmarshal(m.Details, &d) == nil {
		set(&r.Details.From, d.From)
		set(&r.Details.To, d.To)
		set(&r.Details.Class, d.Class)
		set(&r.Details.FuelType, d.FuelType)
		set(&r.Details.Duration, d.ParkingDuration)
		if d.Nights != nil && *d.Nights > 0 && *d.Nights < 400 {
			r.Details.Nights = *d.Nights
		}
		if d.Litres != nil && *d.Litres > 0 {
			r.Details.Litres = decimal.NewFromFloat(*d.Litres).String()
		}
	}
}
