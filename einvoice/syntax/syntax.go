// Package syntax tells the e-invoice syntaxes apart and converts between them: it detects
// CII or UBL (and the document type, guideline and profile), reads either into the model,
// writes either from it, and transforms one into the other through the model.
package syntax

import (
	"context"
	"fmt"
	"strings"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/cii"
	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
	"github.com/papierkram/papierkram/einvoice/ubl"
	"github.com/papierkram/papierkram/fault"
)

// Syntax is CII or UBL.
type Syntax string

// The syntaxes.
const (
	CII Syntax = "CII"
	UBL Syntax = "UBL"
)

// Parse accepts "CII" or "UBL" in any case; empty is def.
func Parse(s string, def Syntax) (Syntax, error) {
	switch strings.ToUpper(strings.TrimSpace(s)) {
	case "":
		return def, nil
	case "CII":
		return CII, nil
	case "UBL":
		return UBL, nil
	}
	return "", fault.New(fault.InvalidInput, "unknown syntax %q; CII or UBL", s)
}

// Info describes an e-invoice document.
type Info struct {
	Syntax Syntax `json:"syntax"`
	// DocumentType is Invoice or CreditNote (for CII: by the type code).
	DocumentType string `json:"documentType"`
	TypeCode     string `json:"typeCode,omitempty"`
	// Guideline is BT-24, the specification identifier.
	Guideline string `json:"guideline,omitempty"`
	// Profile is the ZUGFeRD / Factur-X profile or XRECHNUNG the guideline names.
	Profile          einvoice.Profile `json:"profile,omitempty"`
	XRechnungVersion string           `json:"xrechnungVersion,omitempty"`
	Namespace        string           `json:"namespace"`
}

// ZUGFeRD 1.0's root namespace; its documents are refused with a message saying so.
const nsZUGFeRD1 = "urn:ferd:CrossIndustryDocument:invoice:1p0"

func info(root *xmlc.Node) (Info, error) {
	in := Info{Namespace: root.Space}
	switch {
	case root.Space == cii.NSRSM && root.Local == "CrossIndustryInvoice":
		in.Syntax = CII
		in.Guideline = text(root, "ExchangedDocumentContext", "GuidelineSpecifiedDocumentContextParameter", "ID")
		in.TypeCode = text(root, "ExchangedDocument", "TypeCode")
		in.DocumentType = "Invoice"
		if einvoice.CreditNoteTypes[in.TypeCode] {
			in.DocumentType = "CreditNote"
		}
	case root.Space == ubl.NSInvoice && root.Local == "Invoice", root.Space == ubl.NSCreditNote && root.Local == "CreditNote":
		in.Syntax = UBL
		in.DocumentType = root.Local
		in.Guideline = text(root, "CustomizationID")
		in.TypeCode = text(root, root.Local+"TypeCode")
	case root.Space == nsZUGFeRD1 || root.Local == "CrossIndustryDocument":
		return in, fault.New(fault.InvalidInput, "this is a ZUGFeRD 1.0 invoice (rsm:CrossIndustryDocument), which is not supported; ZUGFeRD 2.x, Factur-X and XRechnung are")
	default:
		return in, fault.New(fault.InvalidInput, "line %d: the root element {%s}%s is neither a CII CrossIndustryInvoice nor a UBL Invoice or CreditNote", root.Line, root.Space, root.Local).With("line", root.Line)
	}
	in.Profile = einvoice.ProfileOf(in.Guideline)
	in.XRechnungVersion = einvoice.XRechnungVersion(in.Guideline)
	return in, nil
}

// text is the text of the first element at the path of local names below n.
func text(n *xmlc.Node, path ...string) string {
next:
	for _, name := range path {
		for _, k := range n.Kids {
			if k.Local == name {
				n = k
				continue next
			}
		}
		return ""
	}
	return n.Text
}

// Describe is Detect for a parsed document.
func Describe(root *xmlc.Node) (Info, error) { return info(root) }

// Detect names the syntax of an e-invoice.
func Detect(ctx context.Context, data []byte) (Info, error) {
	root, err := xmlc.Parse(ctx, data)
	if err != nil {
		return Info{}, err
	}
	return info(root)
}

// Read parses an e-invoice of either syntax.
func Read(ctx context.Context, data []byte) (*einvoice.Invoice, Info, error) {
	root, err := xmlc.Parse(ctx, data)
	if err != nil {
		return nil, Info{}, err
	}
	in, err := info(root)
	if err != nil {
		return nil, in, err
	}
	var inv *einvoice.Invoice
	if in.Syntax == CII {
		inv, err = cii.FromTree(root)
	} else {
		inv, err = ubl.FromTree(root)
	}
	return inv, in, err
}

// Write renders inv in a syntax. For CII, profile limits the content (empty: the profile
// of the invoice's BT-24, else EN16931); UBL has no profiles.
func Write(inv *einvoice.Invoice, s Syntax, profile einvoice.Profile) ([]byte, error) {
	switch s {
	case CII:
		return cii.Write(inv, cii.Options{Profile: profile})
	case UBL:
		return ubl.Write(inv)
	}
	return nil, fault.New(fault.InvalidInput, "unknown syntax %q; CII or UBL", s)
}

// Transform converts an e-invoice into the target syntax (either direction; the source's
// syntax is detected). Converting into the syntax it already has is refused as a likely
// mistake.
func Transform(ctx context.Context, data []byte, target Syntax) ([]byte, Info, error) {
	inv, in, err := Read(ctx, data)
	if err != nil {
		return nil, in, err
	}
	if in.Syntax == target {
		return nil, in, fault.New(fault.InvalidInput, "the document is already %s", target)
	}
	out, err := Write(inv, target, "")
	if err != nil {
		return nil, in, fmt.Errorf("writing %s: %w", target, err)
	}
	return out, in, nil
}

// XRechnung renders inv as an XRechnung of the given version ("3.0" default, or "2.3") in
// syntax s, whatever specification it named before: for conversions to XRechnung. The
// least an invoice must name is checked (BT-1, BT-2, BT-5, BT-27, BT-44; the business
// rules are validation's); BT-3 and BT-23 default to 380 and the PEPPOL billing process,
// and BT-24 becomes the XRechnung guideline unless it names XRechnung already.
func XRechnung(inv *einvoice.Invoice, s Syntax, version string) ([]byte, error) {
	return generate(inv, s, version, false)
}

// Generate renders inv in syntax s under the specification it names (BT-24): EN 16931,
// XRechnung, Peppol BIS, a ZUGFeRD / Factur-X profile. An invoice that names none becomes
// an XRechnung of version ("3.0" default, or "2.3"). BT-24 is never rewritten: an
// EN 16931 invoice is not held to the German rules it was not written for. The checks and
// defaults are XRechnung's.
func Generate(inv *einvoice.Invoice, s Syntax, version string) ([]byte, error) {
	return generate(inv, s, version, true)
}

func generate(inv *einvoice.Invoice, s Syntax, version string, keepSpecification bool) ([]byte, error) {
	in := *inv
	var (
		missing []einvoice.MissingField
		fields  []string
	)
	for _, f := range []struct{ v, field, bt, name string }{
		{in.Number, "number", "BT-1", "Invoice number"}, {string(in.IssueDate), "issueDate", "BT-2", "Invoice issue date"},
		{in.Currency, "currency", "BT-5", "Invoice currency code"},
		{in.Seller.Name, "seller.name", "BT-27", "Seller name"}, {in.Buyer.Name, "buyer.name", "BT-44", "Buyer name"},
	} {
		if f.v == "" {
			missing = append(missing, einvoice.MissingField{BT: f.bt, Name: f.name})
			fields = append(fields, f.field+" ("+f.bt+")")
		}
	}
	if len(missing) > 0 {
		return nil, fault.New(fault.InvalidInput, "InvoiceData lacks %s", strings.Join(fields, ", ")).With("missingFields", missing)
	}
	profile := einvoice.XRechnung
	switch {
	case keepSpecification && in.Specification != "":
		if profile = einvoice.ProfileOf(in.Specification); profile == "" {
			profile = zugferd1[strings.TrimSpace(in.Specification)]
		}
		if profile == "" {
			if !strings.HasPrefix(strings.TrimSpace(in.Specification), einvoice.GuidelineEN16931) {
				return nil, fault.New(fault.InvalidInput, "the specification identifier (BT-24) %q is none this service writes (EN 16931 and its CIUS such as XRechnung and Peppol BIS Billing, ZUGFeRD / Factur-X)", in.Specification)
			}
			profile = einvoice.EN16931 // another CIUS of EN 16931 (Peppol BIS): the whole model
		}
	case einvoice.ProfileOf(in.Specification) != einvoice.XRechnung || version != "" && einvoice.XRechnungVersion(in.Specification) != version:
		g, err := einvoice.XRechnungGuideline(version)
		if err != nil {
			return nil, fault.Wrap(fault.InvalidInput, err, "%v", err)
		}
		in.Specification = g
	}
	if in.TypeCode == "" {
		in.TypeCode = "380"
	}
	if in.BusinessProcess == "" {
		in.BusinessProcess = einvoice.ProcessPeppol
	}
	if s == CII {
		// The profile limits the content; BT-24 stays what the invoice names, also when
		// that is no profile of ours (Peppol BIS, ZUGFeRD 1.0).
		return cii.Write(&in, cii.Options{Profile: profile, KeepSpecification: keepSpecification})
	}
	return Write(&in, s, profile)
}

// zugferd1 are ZUGFeRD 1.0's profile ids, which CII D16B invoices still carry as BT-24
// (CEN's own EN 16931 examples name "…:comfort"): written under the profile each became.
var zugferd1 = map[string]einvoice.Profile{
	"urn:ferd:CrossIndustryDocument:invoice:1p0:basic":    einvoice.Basic,
	"urn:ferd:CrossIndustryDocument:invoice:1p0:comfort":  einvoice.EN16931,
	"urn:ferd:CrossIndustryDocument:invoice:1p0:extended": einvoice.Extended,
}
