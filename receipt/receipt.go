package receipt

import (
	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/einvoice"
)

// Receipt types.
const (
	CashReceipt = "CASH_RECEIPT"
	Restaurant  = "RESTAURANT"
	Parking     = "PARKING"
	Train       = "TRAIN"
	Flight      = "FLIGHT"
	Bus         = "BUS"
	Taxi        = "TAXI"
	Hotel       = "HOTEL"
	Fuel        = "FUEL"
	Invoice     = "INVOICE"
)

// Types lists the receipt types in the order of the spec.
var Types = []string{CashReceipt, Restaurant, Parking, Train, Flight, Bus, Taxi, Hotel, Fuel, Invoice}

// Payment methods.
const (
	Cash       = "CASH"
	DebitCard  = "DEBIT_CARD"
	CreditCard = "CREDIT_CARD"
	Mobile     = "MOBILE"
	Transfer   = "BANK_TRANSFER"
)

// Data is one receipt as bookkeeping sees it: the element of the export arrays and the
// heart of an extraction result. Its fields are the export's columns.
type Data struct {
	Date            einvoice.Date    `json:"date,omitempty" doc:"Receipt date, YYYY-MM-DD." example:"2020-03-02"`
	Time            string           `json:"time,omitempty" pattern:"^([01][0-9]|2[0-3]):[0-5][0-9]$" doc:"Time of day, HH:MM." example:"09:48"`
	Type            string           `json:"type,omitempty" enum:"CASH_RECEIPT,RESTAURANT,PARKING,TRAIN,FLIGHT,BUS,TAXI,HOTEL,FUEL,INVOICE" example:"CASH_RECEIPT"`
	Issuer          string           `json:"issuer,omitempty" maxLength:"300" doc:"Who issued the receipt (shop, restaurant, carrier)." example:"ALDI"`
	Reference       string           `json:"reference,omitempty" maxLength:"200" doc:"Receipt, invoice or ticket number." example:"8746"`
	Currency        string           `json:"currency,omitempty" pattern:"^[A-Z]{3}$" doc:"ISO 4217 code." example:"EUR"`
	Net             einvoice.Decimal `json:"net,omitzero" doc:"Net amount, a decimal string." example:"20.10"`
	VAT             einvoice.Decimal `json:"vat,omitzero" doc:"VAT amount, a decimal string." example:"2.12"`
	Gross           einvoice.Decimal `json:"gross,omitzero" doc:"Gross amount (the total paid), a decimal string." example:"24.23"`
	PaymentMethod   string           `json:"paymentMethod,omitempty" enum:"CASH,DEBIT_CARD,CREDIT_CARD,MOBILE,BANK_TRANSFER" example:"CASH"`
	SKR03Account    string           `json:"skr03Account,omitempty" pattern:"^[0-9]{4}$" example:"4980"`
	SKR04Account    string           `json:"skr04Account,omitempty" pattern:"^[0-9]{4}$" example:"6850"`
	ExpenseCategory string           `json:"expenseCategory,omitempty" maxLength:"100" doc:"The expense category the accounts were chosen for." example:"Sonstiger Betriebsbedarf"`
}

// VATLine is one rate of the VAT breakdown.
type VATLine struct {
	Rate  einvoice.Decimal `json:"rate" doc:"Percent." example:"19"`
	Net   einvoice.Decimal `json:"net,omitzero" example:"4.78"`
	VAT   einvoice.Decimal `json:"vat,omitzero" example:"0.91"`
	Gross einvoice.Decimal `json:"gross,omitzero" example:"5.69"`
	Code  string           `json:"code,omitempty" doc:"The receipt's letter for the rate, e.g. A or B." example:"D"`
}

// Item is a line item.
type Item struct {
	Description string           `json:"description" example:"BIO HONIG"`
	Quantity    einvoice.Decimal `json:"quantity,omitzero" example:"2"`
	UnitPrice   einvoice.Decimal `json:"unitPrice,omitzero" example:"0.99"`
	Total       einvoice.Decimal `json:"total" example:"1.98"`
	VATCode     string           `json:"vatCode,omitempty" example:"A"`
}

// Issuer is what the receipt says about who issued it.
type Issuer struct {
	Name      string `json:"name,omitempty" example:"ALDI"`
	Address   string `json:"address,omitempty" example:"Pohlweg 110, 33100 Paderborn"`
	VATID     string `json:"vatId,omitempty" example:"DE811232344"`
	TaxNumber string `json:"taxNumber,omitempty" example:"339/5739/0123"`
	Phone     string `json:"phone,omitempty" example:"05251 123456"`
}

// Accounts are the booking suggestions for a receipt.
type Accounts struct {
	Category string `json:"category" doc:"Expense category (German, as on the charts)." example:"Bewirtungskosten"`
	SKR03    string `json:"skr03" example:"4650"`
	SKR04    string `json:"skr04" example:"6640"`
	Note     string `json:"note,omitempty" doc:"What to mind when booking, e.g. the 70 % deductible share of hospitality."`
}

// Check is one plausibility check.
type Check struct {
	Name    string `json:"name" enum:"NET_PLUS_VAT_EQUALS_GROSS,VAT_RATES_ALLOWED,DATE_NOT_IN_FUTURE,LINE_SUM_EQUALS_TOTAL,VAT_BREAKDOWN_EQUALS_TOTAL,TENDERED_MINUS_CHANGE_EQUALS_TOTAL" example:"NET_PLUS_VAT_EQUALS_GROSS"`
	Passed  bool   `json:"passed"`
	Message string `json:"message,omitempty"`
}

// Quality is what the image tells about how well it can be read.
type Quality struct {
	Width      int      `json:"width,omitempty" example:"896"`
	Height     int      `json:"height,omitempty" example:"2316"`
	Brightness float64  `json:"brightness,omitempty" doc:"Mean grey level, 0 (black) to 255 (white)."`
	Sharpness  float64  `json:"sharpness,omitempty" doc:"Variance of the Laplacian of the grey image; low is blurred."`
	Rotated    int      `json:"rotated,omitempty" doc:"Degrees the image was turned clockwise to be upright."`
	Deskewed   float64  `json:"deskewed,omitempty" doc:"Degrees the image was straightened by."`
	Paper      *Box     `json:"paper,omitempty" doc:"Where the receipt lies on a larger scan or photo; it was cut out of the image before it was read, and the other figures are the cut-out's."`
	Hints      []string `json:"hints" enum:"TOO_DARK,TOO_BRIGHT,LOW_CONTRAST,BLURRED,LOW_RESOLUTION,CUT_OFF,LOW_OCR_CONFIDENCE,PAGES_NOT_READ" doc:"Problems found; empty when the image is fine."`
	// PagesNotRead: every page of a scan (a PDF or a multi-page TIFF) is read, the last
	// right after the first, as long as the request's time allows.
	PagesNotRead []int `json:"pagesNotRead,omitempty" doc:"Pages (from 1) of a scan of several pages that were not read because the request's time limit was near; what they show is missing from the result. Split the file (/api/pdf-tools/split) or allow more time."`
}

// Box is a rectangle on an image, in pixels from its top left corner.
type Box struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Confidence is how sure the extraction is of each field, 0 to 1.
type Confidence struct {
	Overall float64 `json:"overall"`
	Issuer  float64 `json:"issuer"`
	Date    float64 `json:"date"`
	Gross   float64 `json:"gross"`
	VAT     float64 `json:"vat"`
	Type    float64 `json:"type"`
}

// Details are the type-specific fields; only those of the receipt's type are set.
type Details struct {
	// Train, bus, flight.
	From        string `json:"from,omitempty" example:"Köln Hbf"`
	To          string `json:"to,omitempty" example:"Berlin Hbf"`
	Class       string `json:"class,omitempty" example:"2"`
	TravelDate  string `json:"travelDate,omitempty" example:"2026-03-14"`
	FlightNo    string `json:"flightNumber,omitempty" example:"LH 123"`
	Distance    string `json:"distanceKm,omitempty" example:"12.4"`
	Nights      int    `json:"nights,omitempty" example:"2"`
	CheckIn     string `json:"checkIn,omitempty" example:"2026-03-14"`
	CheckOut    string `json:"checkOut,omitempty" example:"2026-03-16"`
	Litres      string `json:"litres,omitempty" example:"41.23"`
	FuelType    string `json:"fuelType,omitempty" example:"Super E10"`
	PricePerL   string `json:"pricePerLitre,omitempty" example:"1.789"`
	Duration    string `json:"parkingDuration,omitempty" doc:"Parking time, e.g. 2h 15min." example:"2h 15min"`
	Guests      int    `json:"guests,omitempty" example:"4"`
	Tip         string `json:"tip,omitempty" example:"3.00"`
	TableNumber string `json:"table,omitempty" example:"12"`
}

// LLMInfo says whether and how a language model took part.
type LLMInfo struct {
	Used     bool   `json:"used"`
	Model    string `json:"model,omitempty" example:"gpt-4o-mini"`
	Fallback string `json:"fallback,omitempty" doc:"Why the rules result stands instead: the provider's error or its unusable answer."`
	Tokens   int    `json:"tokens,omitempty" doc:"Tokens the provider counted for the request."`
	// Credits are the extra credits this extraction used (1 when the model answered).
	Credits int `json:"credits"`
}

// Result is a receipt extraction: the ReceiptExtractionResult of the API.
type Result struct {
	Success    bool               `json:"success"`
	Error      string             `json:"error,omitempty" doc:"Why the extraction failed; the other fields are then partial or empty."`
	Filename   string             `json:"filename,omitempty" example:"beleg.jpg"`
	Data       Data               `json:"data"`
	Issuer     Issuer             `json:"issuerDetails"`
	VAT        []VATLine          `json:"vatBreakdown"`
	Items      []Item             `json:"items"`
	Details    Details            `json:"details"`
	Accounts   Accounts           `json:"accounts"`
	Language   string             `json:"language,omitempty" doc:"ISO 639-1 code of the receipt's language." example:"de"`
	Country    string             `json:"country,omitempty" doc:"ISO 3166-1 code of the issuer's country." example:"DE"`
	Checks     []Check            `json:"checks"`
	Quality    Quality            `json:"quality"`
	Confidence Confidence         `json:"confidence"`
	Fields     []einvoice.Reading `json:"fields" doc:"How each field found was read: its source and confidence."`
	Uncertain  []einvoice.Reading `json:"uncertainFields" doc:"The fields found but not certain (failed a cross-check or read with confidence under 0.6), with the reason: check these before booking."`
	Source     string             `json:"source" enum:"PDF_TEXT,OCR,LLM" doc:"Where the figures come from."`
	LLM        LLMInfo            `json:"llm"`
	OCR        float64            `json:"ocrConfidence,omitempty" doc:"Tesseract's mean word confidence, 0–100."`
	OCREngine  string             `json:"ocrEngine,omitempty" enum:"tesseract,tesseract+paddleocr" doc:"The OCR engines that read the image: PaddleOCR reads a receipt again when Tesseract's figures do not confirm each other (the VAT breakdown does not add up to the total)."`
	Text       string             `json:"text" doc:"The text the rules read (PDF text or OCR)."`
	DurationMs int64              `json:"durationMs"`

	// Image is the receipt as a browser shows it (the upload, or its rendered first page),
	// for the expense report.
	Image []byte `json:"-"`

	// tendered and change are the cash given and returned, when the text prints both: the
	// total must be their difference.
	tendered, change decimal.Decimal
	// rounding is the cash rounding the text prints ("Rounding Adj 0.02"): the total paid
	// may differ from the breakdown's by it.
	rounding decimal.Decimal
}
