package zugferd

import (
	"bytes"
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/papierkram/papierkram/convert"
	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/einvoice/view"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/netguard"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/pdfa"
)

// Printers are the engines a printed view needs: Chromium prints the HTML, the PDF/A step
// makes it PDF/A-3b.
type Printers struct {
	Printer convert.Printer
	PDFA    pdfa.Converter
}

func (p Printers) check() error {
	if p.Printer == nil {
		return fault.New(fault.EngineUnavailable, "printing the view needs Chromium, which is not configured here")
	}
	if p.PDFA == nil {
		return fault.New(fault.EngineUnavailable, "a PDF/A view needs Ghostscript, which is not configured here")
	}
	return nil
}

// ViewOptions steer View.
type ViewOptions struct {
	Format   string // "html" (default) or "pdf"
	Language string // "de" (default), "en", "fr"
	Name     string // the input's file name: the PDF's attachment keeps it
	Now      time.Time
}

// Invoice is an e-invoice read from XML or from a hybrid PDF, with its verdict.
type Invoice struct {
	XML     []byte
	Name    string // the XML's file name: as uploaded, or as embedded in the PDF
	Model   *einvoice.Invoice
	Info    syntax.Info
	Report  *rules.Report
	FromPDF bool
}

// ReadInvoice reads an e-invoice from XML (CII or UBL, invoice or credit note) or from a
// ZUGFeRD / Factur-X / XRechnung PDF, and validates it for its profile.
func ReadInvoice(ctx context.Context, data []byte, name string) (*Invoice, error) {
	inv := &Invoice{XML: data, Name: name}
	if pdf.IsPDF(data) {
		doc, _, err := Extract(ctx, data)
		if err != nil {
			return nil, fmt.Errorf("finding the invoice in the PDF: %w", err)
		}
		inv.XML, inv.Name, inv.FromPDF = doc.XML, doc.FileName, true
	}
	m, in, err := syntax.Read(ctx, inv.XML)
	if err != nil {
		return nil, fmt.Errorf("reading the invoice: %w", err)
	}
	inv.Model, inv.Info = m, in
	if inv.Report, err = rules.Validate(ctx, inv.XML); err != nil {
		return nil, fmt.Errorf("validating the invoice: %w", err)
	}
	if inv.Name == "" || !strings.EqualFold(path.Ext(inv.Name), ".xml") {
		inv.Name = "invoice.xml"
	}
	return inv, nil
}

// ViewResult is a rendered view.
type ViewResult struct {
	Data        []byte
	ContentType string // text/html; charset=utf-8 or application/pdf
	Title       string
	Invoice     *Invoice
}

// View renders an e-invoice for people: HTML, or a PDF/A-3b printed from the same HTML
// with the source XML attached (/AFRelationship Source), so the file that is read is also
// the file that is archived.
func View(ctx context.Context, p Printers, data []byte, o ViewOptions) (*ViewResult, error) {
	switch o.Format {
	case "", "html", "pdf":
	default:
		return nil, fault.New(fault.InvalidInput, "format must be html or pdf, not %q", o.Format)
	}
	if !view.Supported(o.Language) {
		return nil, fault.New(fault.InvalidInput, "language must be one of %s, not %q", strings.Join(view.Languages(), ", "), o.Language)
	}
	if o.Format == "pdf" {
		if err := p.check(); err != nil {
			return nil, err
		}
	}
	inv, err := ReadInvoice(ctx, data, o.Name)
	if err != nil {
		return nil, err
	}
	res := &ViewResult{Title: view.Title(inv.Model, o.Language), Invoice: inv}
	vo := view.Options{Language: o.Language, Report: inv.Report, Syntax: string(inv.Info.Syntax), Profile: string(inv.Info.Profile)}
	if o.Format != "pdf" {
		if res.Data, err = view.HTML(inv.Model, vo); err != nil {
			return nil, fmt.Errorf("rendering the view: %w", err)
		}
		res.ContentType = "text/html; charset=utf-8"
		return res, nil
	}
	printed, err := printView(ctx, p, inv.Model, vo)
	if err != nil {
		return nil, err
	}
	d, err := pdf.Read(printed)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "the printed view cannot be read back")
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	res.Data, err = d.Embed(pdf.File{
		Name: inv.Name, Description: "The e-invoice this view shows (" + string(inv.Info.Syntax) + ")", MIME: "text/xml",
		Relationship: "Source", Data: inv.XML,
	}, pdf.EmbedOptions{}, o.Now)
	if err != nil {
		return nil, fmt.Errorf("attaching the invoice XML: %w", err)
	}
	res.ContentType = "application/pdf"
	return res, nil
}

// printView prints the view of inv as PDF/A-3b on A4, pages numbered in the footer.
func printView(ctx context.Context, p Printers, inv *einvoice.Invoice, vo view.Options) ([]byte, error) {
	vo.Print = true
	html, err := view.HTML(inv, vo)
	if err != nil {
		return nil, fmt.Errorf("rendering the view: %w", err)
	}
	footer := `<div style="font-family:'Liberation Sans','DejaVu Sans',sans-serif;font-size:8pt;width:100%;text-align:right;padding-right:15mm">` +
		view.PageWord(vo.Language) + ` <span class="pageNumber"></span> / <span class="totalPages"></span></div>`
	// The view loads nothing: no network is reachable from it (a zero policy allows no
	// internal address, and the page has no sub-resources to ask for).
	out, err := convert.HTML(ctx, p.Printer, p.PDFA, netguard.Policy{}, &convert.HTMLRequest{
		HTML: string(bytes.TrimSpace(html)), Format: "A4", OutputProfile: "PDF/A-3b", Title: view.Title(inv, vo.Language),
		Margins: &convert.Margins{Top: "15mm", Bottom: "18mm", Left: "15mm", Right: "15mm"},
		Footer:  &convert.Band{HTML: footer, Height: "15mm"},
	})
	if err != nil {
		return nil, fmt.Errorf("printing the view: %w", err)
	}
	return out, nil
}
