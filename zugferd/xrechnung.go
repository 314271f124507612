package zugferd

import (
	"context"
	"fmt"
	"strings"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/fault"
)

// Leitweg-ID modes of ToXRechnung.
const (
	LeitwegAppend  = "append"  // set BT-10 to the given id only when it is empty
	LeitwegReplace = "replace" // set BT-10 to the given id
	LeitwegStrict  = "strict"  // BT-10 must be there already
)

// ConvertOptions steer ToXRechnung.
type ConvertOptions struct {
	Syntax  syntax.Syntax // UBL or CII; default UBL
	Version string        // XRechnung "3.0" (default) or "2.3"
	// EnforceLeitwegID fails the conversion unless BT-10 ends up a well-formed Leitweg-ID.
	EnforceLeitwegID bool
	LeitwegID        string // routing id to put into BT-10, as Mode says
	// LeitwegIDMode is append (default), replace or strict (default with EnforceLeitwegID).
	LeitwegIDMode string
	// Validate fails the conversion when the result breaks a fatal rule (XSD, EN 16931,
	// XRechnung CIUS); without it the report is still made and returned.
	Validate bool
}

// Conversion is a ZUGFeRD invoice turned XRechnung.
type Conversion struct {
	XML    []byte
	Syntax syntax.Syntax
	Source *Document     // the embedded invoice it came from
	Report *rules.Report // the validation of XML
}

// ToXRechnung converts the invoice of a ZUGFeRD / Factur-X PDF into an XRechnung in three
// stages: extract (ZUGFeRD 1.0 refused), transform through the EN 16931 model, validate.
// Content XRechnung cannot do without is checked before the transform, naming the missing
// terms; a Leitweg-ID problem or, with Validate, a fatal rule is fault.Unprocessable with
// the report under "report".
func ToXRechnung(ctx context.Context, pdfData []byte, o ConvertOptions) (*Conversion, error) {
	if o.Syntax == "" {
		o.Syntax = syntax.UBL
	}
	mode := strings.ToLower(strings.TrimSpace(o.LeitwegIDMode))
	switch mode {
	case "":
		mode = LeitwegAppend
		if o.EnforceLeitwegID {
			mode = LeitwegStrict
		}
	case LeitwegAppend, LeitwegReplace, LeitwegStrict:
	default:
		return nil, fault.New(fault.InvalidInput, "leitwegIdMode %q: one of append, replace, strict", o.LeitwegIDMode).With("field", "leitwegIdMode")
	}
	id := strings.TrimSpace(o.LeitwegID)
	if id != "" {
		if err := einvoice.CheckLeitwegID(id); err != nil {
			return nil, fault.Wrap(fault.InvalidInput, err, "leitwegId: %v", err).With("field", "leitwegId")
		}
	}
	if _, err := einvoice.XRechnungGuideline(o.Version); err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "targetVersion: %v", err).With("field", "targetVersion")
	}

	doc, _, err := Extract(ctx, pdfData)
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	inv, _, err := syntax.Read(ctx, doc.XML)
	if err != nil {
		return nil, fmt.Errorf("extract: %w", err)
	}
	var (
		missing []einvoice.MissingField
		names   []string
	)
	if len(inv.Lines) == 0 {
		missing = append(missing, einvoice.MissingField{BT: "BG-25", Name: "Invoice line"})
		names = append(names, "invoice lines (BG-25)")
	}
	if len(inv.VATBreakdown) == 0 {
		missing = append(missing, einvoice.MissingField{BT: "BG-23", Name: "VAT breakdown"})
		names = append(names, "VAT breakdown (BG-23)")
	}
	if len(missing) > 0 {
		return nil, fault.New(fault.Unprocessable, "the %s invoice lacks %s, which XRechnung requires; a MINIMUM or BASIC WL invoice cannot become an XRechnung",
			doc.Info.Profile, strings.Join(names, " and ")).With("missingFields", missing)
	}

	switch {
	case mode == LeitwegStrict && strings.TrimSpace(inv.BuyerReference) == "":
		return nil, fault.New(fault.Unprocessable, "the invoice has no Leitweg-ID (buyer reference, BT-10) and leitwegIdMode is strict").With("missingFields", noLeitwegID)
	case mode == LeitwegReplace && id != "", mode == LeitwegAppend && id != "" && strings.TrimSpace(inv.BuyerReference) == "":
		inv.BuyerReference = id
	}
	if o.EnforceLeitwegID {
		if strings.TrimSpace(inv.BuyerReference) == "" {
			return nil, fault.New(fault.Unprocessable, "the invoice has no Leitweg-ID (buyer reference, BT-10); send leitwegId").With("missingFields", noLeitwegID)
		}
		if err := einvoice.CheckLeitwegID(inv.BuyerReference); err != nil {
			return nil, fault.Wrap(fault.Unprocessable, err, "the buyer reference (BT-10) is not a valid Leitweg-ID: %v", err)
		}
	}

	out, err := syntax.XRechnung(inv, o.Syntax, o.Version)
	if err != nil {
		return nil, fmt.Errorf("transform: %w", err)
	}
	report, err := rules.Validate(ctx, out)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "validate: the transformed XML cannot be read back")
	}
	if o.Validate && !report.Valid {
		return nil, fault.New(fault.Unprocessable, "the XRechnung breaks %d rule(s): %s", report.Summary.Errors, rules.Describe(report.Failed())).With("report", report)
	}
	return &Conversion{XML: out, Syntax: o.Syntax, Source: doc, Report: report}, nil
}

// noLeitwegID is the missing term of an XRechnung without its Leitweg-ID.
var noLeitwegID = []einvoice.MissingField{{BT: "BT-10", Name: "Buyer reference (Leitweg-ID)"}}
