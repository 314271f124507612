package zugferd

import (
	"context"
	"fmt"
	"time"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/cii"
	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/einvoice/view"
	"github.com/papierkram/papierkram/fault"
)

// CreateOptions steer Create.
type CreateOptions struct {
	// Profile of the embedded CII; empty: the richest the content allows (the invoice's own
	// profile when its BT-24 names one, XRECHNUNG for an XRechnung, else EN16931).
	Profile  string
	Language string // of the visible view: "de" (default), "en", "fr"
	Name     string // the XML's file name, for messages
	Now      time.Time
}

// CreateResult is a hybrid PDF made from an XML invoice.
type CreateResult struct {
	*Result
	// Rewritten: the embedded XML is not the input's bytes (UBL converted to CII, or a CII
	// brought to another profile).
	Rewritten bool
	Source    syntax.Info
}

// Create turns a received XML e-invoice (CII or UBL) into a ZUGFeRD / Factur-X PDF: the view
// printed as PDF/A-3b is the visible part, the invoice as CII its embedded XML. An invoice
// with fatal errors is refused with its report: a hybrid made of it would be invalid too.
func Create(ctx context.Context, p Printers, xml []byte, o CreateOptions) (*CreateResult, error) {
	if !view.Supported(o.Language) {
		return nil, fault.New(fault.InvalidInput, "language must be one of de, en, fr, not %q", o.Language)
	}
	var want einvoice.Profile
	if o.Profile != "" {
		var err error
		if want, err = einvoice.ParseProfile(o.Profile); err != nil {
			return nil, fault.Wrap(fault.InvalidInput, err, "%v", err)
		}
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	src, err := ReadInvoice(ctx, xml, o.Name)
	if err != nil {
		return nil, err
	}
	if src.FromPDF {
		return nil, fault.New(fault.InvalidInput, "the file is already a PDF with an embedded invoice; create takes the invoice XML")
	}
	if !src.Report.Valid {
		return nil, fault.New(fault.InvalidInput, "the invoice breaks %d rule(s), so no hybrid PDF was made of it: %s", src.Report.Summary.Errors, rules.Describe(src.Report.Failed())).With("report", src.Report)
	}
	own := src.Info.Profile
	if want == "" {
		want = own
		if want == "" {
			want = einvoice.EN16931
		}
	}
	out := &CreateResult{Source: src.Info}
	ciiXML, model := src.XML, src.Model
	if src.Info.Syntax != syntax.CII || own != want {
		// The CII is written from the model, and the view drawn from what was written: the
		// page shows exactly what the embedded XML says.
		if ciiXML, err = cii.Write(src.Model, cii.Options{Profile: want}); err != nil {
			return nil, fmt.Errorf("writing the invoice as CII (%s): %w", want, err)
		}
		if model, err = cii.Read(ctx, ciiXML); err != nil {
			return nil, fault.Wrap(fault.Internal, err, "the CII written cannot be read back")
		}
		out.Rewritten = true
		// A conversion that loses what a rule needs is reported as such, not as the
		// sender's error.
		r, err := rules.Validate(ctx, ciiXML)
		if err != nil {
			return nil, err
		}
		if !r.Valid {
			return nil, fault.New(fault.Unprocessable, "the invoice is valid, but as CII in the %s profile it breaks %d rule(s): %s; choose another profile", want, r.Summary.Errors, rules.Describe(r.Failed())).With("report", r)
		}
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	visible, err := printView(ctx, p, model, view.Options{Language: o.Language, Syntax: string(syntax.CII), Profile: string(want)})
	if err != nil {
		return nil, err
	}
	res, err := Embed(ctx, p.PDFA, visible, ciiXML, Options{Title: view.Title(model, o.Language), Now: o.Now})
	if err != nil {
		return nil, fmt.Errorf("embedding the invoice: %w", err)
	}
	out.Result = res
	return out, nil
}
