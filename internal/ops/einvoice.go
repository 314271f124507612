package ops

import (
	"context"
	"strconv"
	"strings"

	"github.com/papierkram/papierkram/convert"
	"github.com/papierkram/papierkram/zugferd"
)

// Printer prints HTML to PDF (engine/chromium).
type Printer = convert.Printer

var invoicePart = Part{Name: "file", Doc: "The e-invoice: CII or UBL XML (invoice or credit note), or a ZUGFeRD / Factur-X PDF whose XML is used.",
	File: true, Required: true, Types: []string{"application/xml", "text/xml", pdfType}}

// LanguageOption is the language of a rendered invoice.
type LanguageOption struct {
	Language string `query:"language" cli:"lang" enum:"de,en,fr" default:"de" doc:"Language of the labels, numbers and dates: de, en or fr."`
}

// VisualizeOptions are visualize's options.
type VisualizeOptions struct {
	Format string `query:"format" enum:"html,pdf" default:"html" doc:"html: one self-contained page (attachments downloadable); pdf: PDF/A-3b printed from the same page, the XML attached."`
	LanguageOption
}

// Visualize renders an e-invoice for people.
var Visualize = &Operation[VisualizeOptions]{
	Group: "xrechnung", Name: "visualize", Command: "view", Summary: "Show an e-invoice as HTML or PDF",
	Parts: []Part{invoicePart}, Produces: []string{"text/html", pdfType},
	Run: func(ctx context.Context, e *Engines, in *Input, p *VisualizeOptions) (*Output, error) {
		f := in.File("file")
		r, err := zugferd.View(ctx, zugferd.Printers{Printer: e.Printer, PDFA: e.PDFA}, f.Data, zugferd.ViewOptions{Format: p.Format, Language: p.Language, Name: f.Name})
		if err != nil {
			return nil, err
		}
		ext := ".html"
		if p.Format == "pdf" {
			ext = ".pdf"
		}
		out := &Output{Name: baseName(f.Name, "invoice") + ext, ContentType: r.ContentType, Data: r.Data}
		out.Facts = [][2]string{{"Syntax", string(r.Invoice.Info.Syntax)}, {"Valid", strconv.FormatBool(r.Invoice.Report.Valid)}}
		if r.Invoice.Info.Profile != "" {
			out.Facts = append(out.Facts, [2]string{"Profile", string(r.Invoice.Info.Profile)})
		}
		return out, nil
	},
}

// CreateOptions are create's options.
type CreateOptions struct {
	Profile string `query:"profile" enum:"MINIMUM,BASICWL,BASIC,EN16931,EXTENDED,XRECHNUNG" doc:"Profile of the embedded CII. Default: the invoice's own profile when its BT-24 names one, XRECHNUNG for an XRechnung, else EN16931."`
	LanguageOption
}

// Create makes a hybrid PDF of an XML invoice.
var Create = &Operation[CreateOptions]{
	Group: "zugferd", Name: "create", Summary: "Make a ZUGFeRD / Factur-X PDF from an XML e-invoice",
	Parts:    []Part{{Name: "file", Doc: "The e-invoice XML: CII or UBL, invoice or credit note (an XRechnung too).", File: true, Required: true, Types: []string{"application/xml", "text/xml"}}},
	Produces: []string{pdfType}, Conversion: true,
	Run: func(ctx context.Context, e *Engines, in *Input, p *CreateOptions) (*Output, error) {
		f := in.File("file")
		r, err := zugferd.Create(ctx, zugferd.Printers{Printer: e.Printer, PDFA: e.PDFA}, f.Data, zugferd.CreateOptions{Profile: p.Profile, Language: p.Language, Name: f.Name})
		if err != nil {
			return nil, err
		}
		out := &Output{Name: baseName(f.Name, "invoice") + ".pdf", ContentType: pdfType, Data: r.PDF}
		out.Facts = [][2]string{{"Profile", string(r.Profile)}, {"Embedded-File", r.FileName}, {"Source-Syntax", string(r.Source.Syntax)}, {"Rewritten", strconv.FormatBool(r.Rewritten)}}
		return out, nil
	},
}

// baseName is a file name without its directory and extension, def when empty.
func baseName(name, def string) string {
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		name = name[:i]
	}
	if name == "" {
		return def
	}
	return name
}
