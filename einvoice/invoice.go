package einvoice

// Invoice is an invoice or credit note (EN 16931-1 semantic model, the root of BT-1 to
// BT-165 and BG-1 to BG-32). Codes are kept as written: UNTDID 1001 for the type, ISO 4217
// currencies, ISO 3166-1 alpha-2 countries, UN/ECE Rec. 20 units, UNCL5305 VAT categories.
type Invoice struct {
	Number string `json:"number"` // BT-1 Invoice number
	// DocumentName is the document's title as printed, e.g. "RECHNUNG" (CII ram:Name, ZUGFeRD EXTENDED).
	DocumentName string `json:"documentName,omitempty"`
	// Test marks a test invoice (CII ram:TestIndicator).
	Test             bool   `json:"test,omitempty"`
	IssueDate        Date   `json:"issueDate"`                  // BT-2 Invoice issue date
	TypeCode         string `json:"typeCode,omitempty"`         // BT-3 Invoice type code (UNTDID 1001): 380 invoice, 381 credit note, 384 corrected, 389 self-billed, 875/876/877 partial (construction), ...
	Currency         string `json:"currency"`                   // BT-5 Invoice currency code
	TaxCurrency      string `json:"taxCurrency,omitempty"`      // BT-6 VAT accounting currency code
	TaxPointDate     Date   `json:"taxPointDate,omitempty"`     // BT-7 Value added tax point date
	TaxPointDateCode string `json:"taxPointDateCode,omitempty"` // BT-8 Value added tax point date code (UNTDID 2005: 3 invoice date, 35 delivery date, 432 paid to date)
	DueDate          Date   `json:"dueDate,omitempty"`          // BT-9 Payment due date
	BuyerReference   string `json:"buyerReference,omitempty"`   // BT-10 Buyer reference (the Leitweg-ID in XRechnung)
	ProjectReference string `json:"projectReference,omitempty"` // BT-11 Project reference
	// ProjectName is the project's name, which CII requires beside BT-11; not an EN 16931 term.
	ProjectName              string     `json:"projectName,omitempty"`
	ContractReference        string     `json:"contractReference,omitempty"`        // BT-12 Contract reference
	PurchaseOrderReference   string     `json:"purchaseOrderReference,omitempty"`   // BT-13 Purchase order reference
	SalesOrderReference      string     `json:"salesOrderReference,omitempty"`      // BT-14 Sales order reference
	ReceivingAdviceReference string     `json:"receivingAdviceReference,omitempty"` // BT-15 Receiving advice reference
	DespatchAdviceReference  string     `json:"despatchAdviceReference,omitempty"`  // BT-16 Despatch advice reference
	TenderReference          string     `json:"tenderReference,omitempty"`          // BT-17 Tender or lot reference
	ObjectIdentifier         Identifier `json:"objectIdentifier,omitzero"`          // BT-18 Invoiced object identifier, BT-18-1 its scheme
	BuyerAccountingReference string     `json:"buyerAccountingReference,omitempty"` // BT-19 Buyer accounting reference
	PaymentTerms             string     `json:"paymentTerms,omitempty"`             // BT-20 Payment terms
	Notes                    []Note     `json:"notes,omitempty"`                    // BG-1 Invoice note
	BusinessProcess          string     `json:"businessProcess,omitempty"`          // BT-23 Business process type
	// Specification is BT-24, the specification identifier (guideline id): the standard,
	// CIUS or profile the invoice follows, e.g. urn:cen.eu:en16931:2017 or
	// urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0.
	Specification     string               `json:"specification,omitempty"`
	PrecedingInvoices []PrecedingInvoice   `json:"precedingInvoices,omitempty"` // BG-3 Preceding invoice reference
	Seller            Party                `json:"seller"`                      // BG-4 Seller
	Buyer             Party                `json:"buyer"`                       // BG-7 Buyer
	Payee             Party                `json:"payee,omitzero"`              // BG-10 Payee: name (BT-59), identifiers (BT-60), legal registration (BT-61)
	TaxRepresentative Party                `json:"taxRepresentative,omitzero"`  // BG-11 Seller tax representative party: name (BT-62), VAT id (BT-63), address (BG-12)
	Delivery          Delivery             `json:"delivery,omitzero"`           // BG-13 Delivery information
	InvoicingPeriod   Period               `json:"invoicingPeriod,omitzero"`    // BG-14 Invoicing period (part of BG-13 in the standard)
	Payment           Payment              `json:"payment,omitzero"`            // BG-16 Payment instructions
	Allowances        []AllowanceCharge    `json:"allowances,omitempty"`        // BG-20 Document level allowances
	Charges           []AllowanceCharge    `json:"charges,omitempty"`           // BG-21 Document level charges
	Totals            Totals               `json:"totals"`                      // BG-22 Document totals
	VATBreakdown      []VATBreakdown       `json:"vatBreakdown,omitempty"`      // BG-23 VAT breakdown
	Documents         []SupportingDocument `json:"documents,omitempty"`         // BG-24 Additional supporting documents
	Lines             []Line               `json:"lines,omitempty"`             // BG-25 Invoice line
	// PrepaidPayments are third-party payments (XRechnung extension BG-DEX-09).
	PrepaidPayments []PrepaidPayment `json:"prepaidPayments,omitempty"`
	// LogisticsCharges are logistics service fees (ZUGFeRD EXTENDED BT-X-271 to BT-X-274),
	// document level charges that EXTENDED keeps apart: the sum of charges (BT-108) and the
	// VAT breakdown include them. Wherever EXTENDED is not written they become charges.
	LogisticsCharges []LogisticsCharge `json:"logisticsCharges,omitempty"`
}

// Identifier is an identifier with its optional scheme (ISO 6523 ICD, EAS, or a syntax
// scheme such as "SEPA"), e.g. a GLN {"id":"4000001123452","scheme":"0088"}.
type Identifier struct {
	ID     string `json:"id"`
	Scheme string `json:"scheme,omitempty"`
}

// IsZero reports an absent identifier.
func (i Identifier) IsZero() bool { return i.ID == "" && i.Scheme == "" }

// Note is an invoice note (BG-1).
type Note struct {
	SubjectCode string `json:"subjectCode,omitempty"` // BT-21 Invoice note subject code (UNTDID 4451)
	Text        string `json:"text"`                  // BT-22 Invoice note
	// ContentCode is a coded note text (CII ram:ContentCode, ZUGFeRD EXTENDED).
	ContentCode string `json:"contentCode,omitempty"`
}

// PrecedingInvoice is a reference to an earlier invoice (BG-3).
type PrecedingInvoice struct {
	Number    string `json:"number"`              // BT-25 Preceding Invoice reference
	IssueDate Date   `json:"issueDate,omitempty"` // BT-26 Preceding Invoice issue date
	// TypeCode is the preceding invoice's type code (ZUGFeRD EXTENDED).
	TypeCode string `json:"typeCode,omitempty"`
}

// Party is a seller (BG-4), buyer (BG-7), payee (BG-10) or tax representative (BG-11);
// each term is used where the standard has it, numbered below for seller / buyer.
type Party struct {
	Name              string       `json:"name,omitempty"`             // BT-27 / BT-44 / BT-59 / BT-62 name
	TradingName       string       `json:"tradingName,omitempty"`      // BT-28 / BT-45 trading name
	Identifiers       []Identifier `json:"identifiers,omitempty"`      // BT-29 / BT-46 / BT-60 identifier, BT-29-1 scheme
	LegalRegistration Identifier   `json:"legalRegistration,omitzero"` // BT-30 / BT-47 / BT-61 legal registration identifier, -1 scheme
	VATID             string       `json:"vatId,omitempty"`            // BT-31 / BT-48 / BT-63 VAT identifier
	TaxNumber         string       `json:"taxNumber,omitempty"`        // BT-32 Seller tax registration identifier (e.g. German Steuernummer)
	// TaxNumberScheme is the UBL tax scheme of BT-32 (cac:TaxScheme/cbc:ID); "FC" when empty.
	TaxNumberScheme   string     `json:"taxNumberScheme,omitempty"`
	LegalInfo         string     `json:"legalInfo,omitempty"`        // BT-33 Seller additional legal information
	ElectronicAddress Identifier `json:"electronicAddress,omitzero"` // BT-34 / BT-49 electronic address, -1 scheme (EAS)
	Address           Address    `json:"address,omitzero"`           // BG-5 / BG-8 / BG-12 postal address
	Contact           Contact    `json:"contact,omitzero"`           // BG-6 / BG-9 contact
	// Description is the party's free-text description (CII ram:Description of a buyer;
	// for the seller it is BT-33).
	Description string `json:"description,omitempty"`
}

// IsZero reports an absent party.
func (p Party) IsZero() bool {
	return p.Name == "" && p.TradingName == "" && len(p.Identifiers) == 0 && p.LegalRegistration.IsZero() &&
		p.VATID == "" && p.TaxNumber == "" && p.LegalInfo == "" && p.ElectronicAddress.IsZero() &&
		p.Address == (Address{}) && p.Contact == (Contact{}) && p.Description == ""
}

// Address is a postal address (BG-5, BG-8, BG-12, BG-15).
type Address struct {
	Line1       string `json:"line1,omitempty"`       // BT-35 / BT-50 / BT-64 / BT-75 address line 1
	Line2       string `json:"line2,omitempty"`       // BT-36 / BT-51 / BT-65 / BT-76 address line 2
	Line3       string `json:"line3,omitempty"`       // BT-162 / BT-163 / BT-164 / BT-165 address line 3
	City        string `json:"city,omitempty"`        // BT-37 / BT-52 / BT-66 / BT-77 city
	PostCode    string `json:"postCode,omitempty"`    // BT-38 / BT-53 / BT-67 / BT-78 post code
	Subdivision string `json:"subdivision,omitempty"` // BT-39 / BT-54 / BT-68 / BT-79 country subdivision
	Country     string `json:"country,omitempty"`     // BT-40 / BT-55 / BT-69 / BT-80 country code (ISO 3166-1 alpha-2)
}

// Contact is a contact point (BG-6, BG-9).
type Contact struct {
	Name  string `json:"name,omitempty"`  // BT-41 / BT-56 contact point
	Phone string `json:"phone,omitempty"` // BT-42 / BT-57 telephone number
	Email string `json:"email,omitempty"` // BT-43 / BT-58 email address
	// Department is the contact's department (CII ram:DepartmentName).
	Department string `json:"department,omitempty"`
}

// Delivery is where and when the goods or services were delivered (BG-13).
type Delivery struct {
	PartyName  string     `json:"partyName,omitempty"` // BT-70 Deliver to party name
	LocationID Identifier `json:"locationId,omitzero"` // BT-71 Deliver to location identifier, BT-71-1 scheme
	Date       Date       `json:"date,omitempty"`      // BT-72 Actual delivery date
	Address    Address    `json:"address,omitzero"`    // BG-15 Deliver to address
}

// Period is an invoicing period (BG-14, BG-26).
type Period struct {
	Start Date `json:"start,omitempty"` // BT-73 / BT-134 start date
	End   Date `json:"end,omitempty"`   // BT-74 / BT-135 end date
}

// Payment holds the payment instructions (BG-16).
type Payment struct {
	MeansCode             string           `json:"meansCode,omitempty"`             // BT-81 Payment means type code (UNTDID 4461): 30 credit transfer, 58 SEPA credit transfer, 59 SEPA direct debit, 48 card, ...
	MeansText             string           `json:"meansText,omitempty"`             // BT-82 Payment means text
	RemittanceInformation string           `json:"remittanceInformation,omitempty"` // BT-83 Remittance information
	CreditTransfers       []CreditTransfer `json:"creditTransfers,omitempty"`       // BG-17 Credit transfer
	Card                  Card             `json:"card,omitzero"`                   // BG-18 Payment card information
	DirectDebit           DirectDebit      `json:"directDebit,omitzero"`            // BG-19 Direct debit
}

// CreditTransfer is an account to pay to (BG-17).
type CreditTransfer struct {
	AccountID       string `json:"accountId"`                 // BT-84 Payment account identifier (IBAN or a national account number)
	AccountName     string `json:"accountName,omitempty"`     // BT-85 Payment account name
	ServiceProvider string `json:"serviceProvider,omitempty"` // BT-86 Payment service provider identifier (BIC)
	// Proprietary marks a national account number rather than an IBAN (CII ram:ProprietaryID).
	Proprietary bool `json:"proprietary,omitempty"`
}

// Card is the payment card used (BG-18).
type Card struct {
	Number     string `json:"number"`               // BT-87 Payment card primary account number (at most the last 4-6 digits)
	HolderName string `json:"holderName,omitempty"` // BT-88 Payment card holder name
	// Network is the card network (UBL cbc:NetworkID, e.g. VISA), which UBL requires.
	Network string `json:"network,omitempty"`
}

// DirectDebit is a SEPA direct debit (BG-19).
type DirectDebit struct {
	MandateID        string `json:"mandateId,omitempty"`        // BT-89 Mandate reference identifier
	CreditorID       string `json:"creditorId,omitempty"`       // BT-90 Bank assigned creditor identifier
	DebitedAccountID string `json:"debitedAccountId,omitempty"` // BT-91 Debited account identifier
}

// AllowanceCharge is a document level allowance (BG-20) or charge (BG-21), or a line level
// one (BG-27, BG-28: without VAT).
type AllowanceCharge struct {
	Amount      Decimal `json:"amount"`                // BT-92 / BT-99 / BT-136 / BT-141 amount
	BaseAmount  Decimal `json:"baseAmount,omitzero"`   // BT-93 / BT-100 / BT-137 / BT-142 base amount
	Percentage  Decimal `json:"percentage,omitzero"`   // BT-94 / BT-101 / BT-138 / BT-143 percentage
	VATCategory string  `json:"vatCategory,omitempty"` // BT-95 / BT-102 VAT category code
	VATRate     Decimal `json:"vatRate,omitzero"`      // BT-96 / BT-103 VAT rate
	Reason      string  `json:"reason,omitempty"`      // BT-97 / BT-104 / BT-139 / BT-144 reason
	ReasonCode  string  `json:"reasonCode,omitempty"`  // BT-98 / BT-105 / BT-140 / BT-145 reason code (UNTDID 5189 / 7161)
}

// Totals are the document totals (BG-22).
type Totals struct {
	LineTotal          Decimal `json:"lineTotal"`                   // BT-106 Sum of Invoice line net amount
	AllowanceTotal     Decimal `json:"allowanceTotal,omitzero"`     // BT-107 Sum of allowances on document level
	ChargeTotal        Decimal `json:"chargeTotal,omitzero"`        // BT-108 Sum of charges on document level
	NetTotal           Decimal `json:"netTotal"`                    // BT-109 Invoice total amount without VAT
	VATTotal           Decimal `json:"vatTotal,omitzero"`           // BT-110 Invoice total VAT amount
	VATTotalAccounting Decimal `json:"vatTotalAccounting,omitzero"` // BT-111 Invoice total VAT amount in accounting currency
	GrossTotal         Decimal `json:"grossTotal"`                  // BT-112 Invoice total amount with VAT
	PaidAmount         Decimal `json:"paidAmount,omitzero"`         // BT-113 Paid amount
	RoundingAmount     Decimal `json:"roundingAmount,omitzero"`     // BT-114 Rounding amount
	AmountDue          Decimal `json:"amountDue"`                   // BT-115 Amount due for payment
}

// VATBreakdown is the VAT of one category and rate (BG-23).
type VATBreakdown struct {
	TaxableAmount       Decimal `json:"taxableAmount"`                 // BT-116 VAT category taxable amount
	TaxAmount           Decimal `json:"taxAmount"`                     // BT-117 VAT category tax amount
	Category            string  `json:"category"`                      // BT-118 VAT category code (UNCL5305: S, Z, E, AE, K, G, O, L, M)
	Rate                Decimal `json:"rate,omitzero"`                 // BT-119 VAT category rate
	ExemptionReason     string  `json:"exemptionReason,omitempty"`     // BT-120 VAT exemption reason text
	ExemptionReasonCode string  `json:"exemptionReasonCode,omitempty"` // BT-121 VAT exemption reason code (VATEX)
}

// SupportingDocument is an additional supporting document (BG-24).
type SupportingDocument struct {
	ID          string     `json:"id"`                    // BT-122 Supporting document reference
	Description string     `json:"description,omitempty"` // BT-123 Supporting document description
	URI         string     `json:"uri,omitempty"`         // BT-124 External document location
	Attachment  Attachment `json:"attachment,omitzero"`   // BT-125 Attached document
	// TypeCode is the document's UNTDID 1001 type when it is not 916 (a supporting
	// document), e.g. 130 for a further invoiced object in ZUGFeRD EXTENDED.
	TypeCode string `json:"typeCode,omitempty"`
}

// Attachment is an embedded file (BT-125); File is Base64 in JSON.
type Attachment struct {
	File        []byte `json:"file"`                  // BT-125 Attached document
	ContentType string `json:"contentType,omitempty"` // BT-125-1 Attached document Mime code
	Filename    string `json:"filename,omitempty"`    // BT-125-2 Attached document Filename
}

// IsZero reports an absent attachment.
func (a Attachment) IsZero() bool { return len(a.File) == 0 && a.ContentType == "" && a.Filename == "" }

// Line is an invoice line (BG-25), or a sub-line of one (XRechnung extension BG-DEX-01).
type Line struct {
	ID                  string            `json:"id"`                            // BT-126 Invoice line identifier
	Note                string            `json:"note,omitempty"`                // BT-127 Invoice line note
	ObjectIdentifier    Identifier        `json:"objectIdentifier,omitzero"`     // BT-128 Invoice line object identifier, BT-128-1 scheme
	Quantity            Decimal           `json:"quantity"`                      // BT-129 Invoiced quantity
	Unit                string            `json:"unit"`                          // BT-130 Invoiced quantity unit of measure code (UN/ECE Rec. 20/21: C62, H87, HUR, KGM, ...)
	NetAmount           Decimal           `json:"netAmount"`                     // BT-131 Invoice line net amount
	OrderLineReference  string            `json:"orderLineReference,omitempty"`  // BT-132 Referenced purchase order line reference
	AccountingReference string            `json:"accountingReference,omitempty"` // BT-133 Invoice line Buyer accounting reference
	Period              Period            `json:"period,omitzero"`               // BG-26 Invoice line period
	Allowances          []AllowanceCharge `json:"allowances,omitempty"`          // BG-27 Invoice line allowances
	Charges             []AllowanceCharge `json:"charges,omitempty"`             // BG-28 Invoice line charges
	Price               Price             `json:"price"`                         // BG-29 Price details
	VATCategory         string            `json:"vatCategory,omitempty"`         // BT-151 Invoiced item VAT category code
	VATRate             Decimal           `json:"vatRate,omitzero"`              // BT-152 Invoiced item VAT rate
	// VATExemptionReason is a line's VAT exemption reason text (CII line ram:ExemptionReason).
	VATExemptionReason string `json:"vatExemptionReason,omitempty"`
	Item               Item   `json:"item"` // BG-31 Item information
	// SubLines break the line down (XRechnung extension BG-DEX-01; CII writes them as lines
	// with a parent line id).
	SubLines []Line `json:"subLines,omitempty"`
	// StatusReasonCode is a CII sub-line's role (ram:LineStatusReasonCode: DETAIL, GROUP,
	// INFORMATION).
	StatusReasonCode string `json:"statusReasonCode,omitempty"`
}

// Price is a line's price (BG-29).
type Price struct {
	Net              Decimal `json:"net"`                        // BT-146 Item net price
	Discount         Decimal `json:"discount,omitzero"`          // BT-147 Item price discount
	Gross            Decimal `json:"gross,omitzero"`             // BT-148 Item gross price
	BaseQuantity     Decimal `json:"baseQuantity,omitzero"`      // BT-149 Item price base quantity
	BaseQuantityUnit string  `json:"baseQuantityUnit,omitempty"` // BT-150 Item price base quantity unit of measure code
	// GrossBaseQuantity is the base quantity of the gross price when CII gives one of its own
	// (ZUGFeRD BT-149-1, unit BT-150-1); otherwise BT-149 applies to both prices.
	GrossBaseQuantity     Decimal `json:"grossBaseQuantity,omitzero"`
	GrossBaseQuantityUnit string  `json:"grossBaseQuantityUnit,omitempty"`
}

// Item describes what a line sells (BG-31).
type Item struct {
	Name            string           `json:"name"`                      // BT-153 Item name
	Description     string           `json:"description,omitempty"`     // BT-154 Item description
	SellerID        string           `json:"sellerId,omitempty"`        // BT-155 Item Seller's identifier
	BuyerID         string           `json:"buyerId,omitempty"`         // BT-156 Item Buyer's identifier
	StandardID      Identifier       `json:"standardId,omitzero"`       // BT-157 Item standard identifier (e.g. GTIN), BT-157-1 scheme
	Classifications []Classification `json:"classifications,omitempty"` // BT-158 Item classification identifier
	OriginCountry   string           `json:"originCountry,omitempty"`   // BT-159 Item country of origin
	Attributes      []ItemAttribute  `json:"attributes,omitempty"`      // BG-32 Item attributes
}

// Classification is an item classification (BT-158).
type Classification struct {
	ID      string `json:"id"`                // BT-158 Item classification identifier
	Scheme  string `json:"scheme,omitempty"`  // BT-158-1 Scheme identifier (UNTDID 7143, e.g. STI, CV)
	Version string `json:"version,omitempty"` // BT-158-2 Scheme version identifier
}

// ItemAttribute is a property of an item (BG-32).
type ItemAttribute struct {
	Name  string `json:"name"`  // BT-160 Item attribute name
	Value string `json:"value"` // BT-161 Item attribute value
}

// PrepaidPayment is a payment made by a third party (XRechnung extension BG-DEX-09).
type PrepaidPayment struct {
	ID          string  `json:"id"`                    // BT-DEX-001 Third party payment type
	Amount      Decimal `json:"amount"`                // BT-DEX-002 Third party payment amount
	Description string  `json:"description,omitempty"` // BT-DEX-003 Third party payment description
}

// LogisticsCharge is a logistics service fee (ZUGFeRD EXTENDED).
type LogisticsCharge struct {
	Description string  `json:"description"`           // BT-X-271 Logistics service charge description
	Amount      Decimal `json:"amount"`                // BT-X-272 Logistics service charge amount
	VATCategory string  `json:"vatCategory,omitempty"` // BT-X-273 VAT category code
	VATRate     Decimal `json:"vatRate,omitzero"`      // BT-X-274 VAT rate
}

// AllCharges are the document level charges with the logistics service fees as charges
// (their description the reason): how a syntax or profile without BT-X-272 carries them,
// so that the totals still add up.
func (inv *Invoice) AllCharges() []AllowanceCharge {
	if len(inv.LogisticsCharges) == 0 {
		return inv.Charges
	}
	all := append([]AllowanceCharge(nil), inv.Charges...)
	for _, l := range inv.LogisticsCharges {
		all = append(all, AllowanceCharge{Amount: l.Amount, Reason: l.Description, VATCategory: l.VATCategory, VATRate: l.VATRate})
	}
	return all
}

// VATTotalIn is where a VAT total read in currency cur belongs: BT-110, the total in the
// invoice currency, or BT-111, the one in the VAT accounting currency (BR-53), each
// taken once; nil for a total in another currency or one too many, which no term holds
// (written again in a currency it did not have, it would break the totals, BR-CO-15).
// Without a currency (or an invoice currency), the first is BT-110 and the second BT-111.
func (inv *Invoice) VATTotalIn(cur string) *Decimal {
	t := &inv.Totals
	switch {
	case (cur == "" || inv.Currency == "" || cur == inv.Currency) && !t.VATTotal.Valid():
		return &t.VATTotal
	case (cur == "" || cur == inv.TaxCurrency) && !t.VATTotalAccounting.Valid():
		return &t.VATTotalAccounting
	}
	return nil
}

// CreditNoteTypes are the UNTDID 1001 codes of credit notes (UBL writes them as a
// CreditNote document).
var CreditNoteTypes = map[string]bool{"81": true, "83": true, "381": true, "396": true, "532": true}

// IsCreditNote reports whether the invoice is a credit note by its type code.
func (inv *Invoice) IsCreditNote() bool { return CreditNoteTypes[inv.TypeCode] }
