package einvoice

// MissingField names a business term of EN 16931 / XRechnung that an invoice lacks. It is the
// one shape of "missingFields" everywhere: extraction results and the problems of generate
// and zugferd-to-xrechnung.
type MissingField struct {
	BT   string `json:"bt" example:"BT-10"`
	Name string `json:"name" example:"Buyer reference (Leitweg-ID)"`
}

// Reading says how an extracted field was read: from where and how sure. Extraction results
// list one per field found ("fields") and, again with the reason, those found but not
// certain ("uncertainFields"): a value that failed a cross-check, or that was read with
// little confidence. The business term names the field as in missingFields; the path is
// where the value stands in the result.
type Reading struct {
	BT         string  `json:"bt,omitempty" example:"BT-112" doc:"The EN 16931 business term; empty for a field that has none (a receipt's time or type)."`
	Name       string  `json:"name" example:"Invoice total amount with VAT"`
	Path       string  `json:"path" example:"invoice.totals.grossTotal" doc:"Where the value stands in the result, dotted JSON names."`
	Confidence float64 `json:"confidence" minimum:"0" maximum:"1" example:"0.95"`
	Source     string  `json:"source" enum:"EMBEDDED_XML,PDF_TEXT,OCR,LLM" example:"PDF_TEXT" doc:"What the value was read from; LLM where the language model's answer replaced the rules' reading."`
	Reason     string  `json:"reason,omitempty" example:"net 100.00 + VAT 19.00 is 119.00, not the gross 120.00" doc:"Why the value is uncertain."`
}

// Uncertain is the confidence under which a field is listed as uncertain.
const Uncertain = 0.6
