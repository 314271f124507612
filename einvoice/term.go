package einvoice

// MissingField names a business term of EN 16931 / XRechnung that an invoice lacks. It is the
// one shape of "missingFields" everywhere: extraction results and the problems of generate
// and zugferd-to-xrechnung.
type MissingField struct {
	BT   string `json:"bt" example:"BT-10"`
	Name string `json:"name" example:"Buyer reference (Leitweg-ID)"`
}
