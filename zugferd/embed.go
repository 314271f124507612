package zugferd

import (
	"context"
	"fmt"
	"time"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/conform"
	"github.com/papierkram/papierkram/pdf/pdfa"
)

// Options steer Embed.
type Options struct {
	// Title is the document title (Info and XMP); empty keeps the PDF's own, or, when it
	// has none, names the invoice ("Invoice 471102").
	Title string
	Now   time.Time // the modification date; default time.Now
	// Invoice is the invoice the XML was written from, when the caller has it (the API and
	// the CLI write the XML from InvoiceData): its number titles an untitled PDF without
	// reading the XML back.
	Invoice *einvoice.Invoice
}

// Result is an embedded e-invoice PDF.
type Result struct {
	PDF       []byte
	FileName  string
	Profile   einvoice.Profile
	Converted bool // the input was not PDF/A-3 and went through the PDF/A conversion
}

// FileName is the name the standards give the embedded XML of a profile.
func FileName(p einvoice.Profile) string {
	if p == einvoice.XRechnung {
		return "xrechnung.xml"
	}
	return "factur-x.xml"
}

// Relationship is the /AFRelationship of a profile's XML: MINIMUM and BASIC WL are not
// full invoices, so their XML is Data, not an Alternative rendering of the PDF.
func Relationship(p einvoice.Profile) string {
	if p == einvoice.Minimum || p == einvoice.BasicWL {
		return "Data"
	}
	return "Alternative"
}

// Embed makes file a ZUGFeRD / Factur-X (or XRechnung) PDF carrying the CII invoice xml:
// the XML is validated for its profile first (a fatal rule is fault.InvalidInput with
// the report under "report", so nobody ships an invalid e-invoice), the PDF is made PDF/A-3b
// unless it already is one with embedded fonts and an output intent, and the XML is
// embedded as an associated file with the Factur-X XMP properties and their schema.
func Embed(ctx context.Context, conv pdfa.Converter, file, xml []byte, o Options) (*Result, error) {
	// One parse of the XML: the validation report names its syntax and profile too.
	report, err := rules.Validate(ctx, xml)
	if err != nil {
		return nil, err
	}
	if report.Syntax != syntax.CII {
		return nil, fault.New(fault.InvalidInput, "ZUGFeRD and Factur-X carry CII; this invoice is %s", report.Syntax)
	}
	p := report.Profile
	if p == "" {
		return nil, fault.New(fault.InvalidInput, "the invoice's guideline (BT-24) %q is none of the ZUGFeRD / Factur-X profiles or XRechnung", report.Guideline)
	}
	if !report.Valid {
		return nil, fault.New(fault.InvalidInput, "the invoice breaks %d rule(s) of the %s profile, so nothing was embedded: %s", report.Summary.Errors, p, rules.Describe(report.Failed())).With("report", report)
	}
	d, err := pdf.Read(file)
	if err != nil {
		return nil, err
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	// The title is decided on the source: the PDF/A conversion names an untitled file
	// "Untitled".
	var ch pdf.Changes
	if o.Title != "" {
		ch.Title = &o.Title
	} else if m, err := d.Metadata(); err == nil && m.Title == "" {
		if number, _ := invoiceNumber(ctx, xml, o.Invoice); number != "" {
			t := "Invoice " + number
			ch.Title = &t
		}
	}
	res := &Result{FileName: FileName(p), Profile: p}
	if !isPDFA3(ctx, d, file) {
		if conv == nil {
			return nil, fault.New(fault.EngineUnavailable, "the PDF is not PDF/A-3 and no PDF/A converter is configured")
		}
		if file, err = pdfa.Convert(ctx, conv, file, pdfa.Options{Now: o.Now}); err != nil {
			return nil, fmt.Errorf("making the PDF PDF/A-3b: %w", err)
		}
		if d, err = pdf.Read(file); err != nil {
			return nil, fault.Wrap(fault.Internal, err, "the PDF/A conversion produced an unreadable file")
		}
		res.Converted = true
	}
	out, err := d.Embed(pdf.File{
		Name: res.FileName, Description: "Factur-X invoice (" + string(p) + ")", MIME: "text/xml",
		Relationship: Relationship(p), Data: xml,
	}, pdf.EmbedOptions{Replace: knownNames, Schema: schema(p, res.FileName), Changes: ch}, o.Now)
	if err != nil {
		return nil, err
	}
	// The container checks of Validate, on our own output: a file we would call invalid
	// must not leave here.
	got, err := Validate(ctx, out, ValidateOptions{known: &knownXML{xml: xml, report: report}})
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "the embedded PDF cannot be read back")
	}
	if !got.Valid {
		return nil, fault.New(fault.Internal, "the embedded PDF fails its own checks: %s", rules.Describe(got.PDF.Results))
	}
	res.PDF = out
	return res, nil
}

// isPDFA3 tells whether file (parsed as d) can take the attachment as it is: it claims
// PDF/A-3 and the native validator agrees (fonts embedded, output intent, metadata …), so
// its bytes stay and the invoice goes on as an incremental update.
func isPDFA3(ctx context.Context, d *pdf.Doc, file []byte) bool {
	if part, _ := d.PDFA(); part != 3 {
		return false
	}
	r, err := conform.Check(ctx, file, conform.PDFA3B)
	return err == nil && r.Compliant
}

// schema is the Factur-X XMP extension schema (Factur-X 1.07, ZUGFeRD 2.3) with the
// values for one embedded file.
func schema(p einvoice.Profile, fileName string) *pdf.XMPSchema {
	return &pdf.XMPSchema{
		Name: "Factur-X PDFA Extension Schema", NamespaceURI: nsFacturX, Prefix: "fx",
		Properties: []pdf.XMPProperty{
			{Name: "DocumentFileName", Value: fileName, Description: "The name of the embedded XML document"},
			{Name: "DocumentType", Value: "INVOICE", Description: "The type of the hybrid document in capital letters, e.g. INVOICE or ORDER"},
			{Name: "Version", Value: "1.0", Description: "The actual version of the standard applying to the embedded XML document"},
			{Name: "ConformanceLevel", Value: conformanceLevel[p][0], Description: "The conformance level of the embedded XML document"},
		},
	}
}

func invoiceNumber(ctx context.Context, xml []byte, known *einvoice.Invoice) (string, error) {
	if known != nil {
		return known.Number, nil
	}
	inv, _, err := syntax.Read(ctx, xml)
	if err != nil {
		return "", err
	}
	return inv.Number, nil
}
