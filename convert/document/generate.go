package document

import (
	"context"
	"fmt"
	"html"
	"strings"

	"github.com/papierkram/papierkram/convert"
	"github.com/papierkram/papierkram/convert/docx"
	"github.com/papierkram/papierkram/convert/tmpl"
	"github.com/papierkram/papierkram/engine/office"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/netguard"
	"github.com/papierkram/papierkram/pdf/pdfa"
)

// Request is a document generated from an HTML template and data, with the page
// settings of html-to-pdf and an optional watermark.
type Request struct {
	Template string         `json:"template,omitempty" maxLength:"100" doc:"Name of an HTML template stored with POST /api/templates. Give template or html." example:"rechnung"`
	HTML     string         `json:"html,omitempty" maxLength:"26214400" doc:"An inline HTML template. Give template or html." example:"<h1>Rechnung {{number}}</h1><p>{{money total}}</p>"`
	Data     map[string]any `json:"data,omitempty" doc:"The values: {{name}} (HTML-escaped), {#list}…{/list}, {^name}…{/name}, and the helpers money, number, date, qr, image, upper, lower."`
	Locale   string         `json:"locale,omitempty" default:"de-DE" doc:"How money, numbers and dates are written (BCP 47)." example:"de-DE"`

	Watermark *Watermark `json:"watermark,omitempty" doc:"Text laid across every page."`
	// Output is PDF (printed by Chromium with the page settings below), DOCX or ODT
	// (written by LibreOffice from the rendered HTML, with its default page settings).
	Output string `json:"output,omitempty" enum:"PDF,DOCX,ODT" default:"PDF" doc:"PDF (Chromium, with the page settings), DOCX or ODT (LibreOffice, from the rendered HTML)."`

	Format        string              `json:"format,omitempty" enum:"A3,A4,A5,Letter,Legal,Tabloid" default:"A4" doc:"Page size."`
	Orientation   string              `json:"orientation,omitempty" enum:"portrait,landscape" default:"portrait"`
	Margins       *convert.Margins    `json:"margins,omitempty" doc:"Page margins; default 10 mm each."`
	Header        *convert.Band       `json:"header,omitempty"`
	Footer        *convert.Band       `json:"footer,omitempty"`
	OutputProfile string              `json:"outputProfile,omitempty" enum:"PDF/A-3b,PDF/UA-1"`
	Title         string              `json:"title,omitempty" maxLength:"1000" doc:"Document title for the metadata."`
	Stationery    *convert.Stationery `json:"stationery,omitempty" doc:"Letterhead PDFs laid under the content."`

	// Fonts are the calling key's uploaded fonts.
	Fonts []convert.FontFace `json:"-"`
}

// Watermark is a text, or the first page of a PDF, across every page.
type Watermark struct {
	Text    string   `json:"text,omitempty" maxLength:"200" doc:"The text; give text or pdf." example:"ENTWURF"`
	PDF     []byte   `json:"pdf,omitempty" doc:"A PDF, Base64, whose first page is laid centred over every page (a stamp); give text or pdf."`
	Opacity float64  `json:"opacity,omitempty" minimum:"0" maximum:"1" default:"0.15"`
	Angle   *float64 `json:"angle,omitempty" minimum:"-360" maximum:"360" default:"-45" doc:"Degrees, counter-clockwise negative as in CSS; 0 runs horizontally."`
	Size    float64  `json:"fontSize,omitempty" minimum:"6" maximum:"400" default:"96" doc:"Font size in points."`
}

// html is the watermark as an element that Chromium repeats on every printed page (a fixed
// element prints on each page).
func (w *Watermark) html() string {
	op, angle, size := w.Opacity, -45.0, w.Size
	if op <= 0 || op > 1 {
		op = 0.15
	}
	if w.Angle != nil {
		angle = *w.Angle
	}
	if size <= 0 {
		size = 96
	}
	return fmt.Sprintf(`<div aria-hidden="true" style="position:fixed;top:0;left:0;width:100%%;height:100%%;display:flex;align-items:center;justify-content:center;pointer-events:none;z-index:2147483647"><div style="transform:rotate(%.1fdeg);font:bold %.1fpt sans-serif;color:rgba(0,0,0,%.2f);white-space:nowrap">%s</div></div>`,
		angle, size, op, html.EscapeString(w.Text))
}

// page renders the template with the data and lays the watermark over it.
func (r *Request) page(template string) (string, error) {
	page, err := tmpl.RenderHTML(template, r.Data, r.Locale)
	if err != nil {
		return "", err
	}
	if r.Watermark != nil {
		switch text := strings.TrimSpace(r.Watermark.Text); {
		case text != "" && r.Watermark.PDF != nil:
			return "", fault.New(fault.InvalidInput, "watermark: give text or pdf, not both")
		case r.Watermark.PDF != nil:
			return page, nil // laid over the printed pages
		case text == "":
			return "", fault.New(fault.InvalidInput, "watermark: give text or pdf")
		}
		mark := r.Watermark.html()
		if i := strings.LastIndex(strings.ToLower(page), "</body>"); i >= 0 {
			page = page[:i] + mark + page[i:]
		} else {
			page += mark
		}
	}
	return page, nil
}

// GenerateAs renders the template and has LibreOffice write it as docx or odt (a word
// processor's own page settings apply, not the request's).
func GenerateAs(ctx context.Context, o convert.Office, r *Request, template, to string) ([]byte, error) {
	if r.stamp() != nil {
		return nil, fault.New(fault.InvalidInput, "a PDF stamp is laid over PDF output only; use a text watermark for %s", to)
	}
	page, err := r.page(template)
	if err != nil {
		return nil, err
	}
	if o == nil {
		return nil, fault.New(fault.EngineUnavailable, "LibreOffice is not configured on this server")
	}
	return o.Convert(ctx, office.Job{Document: []byte(page), Ext: "html", Locale: r.Locale}, to)
}

// Generate renders the template with the data and prints it like html-to-pdf.
func Generate(ctx context.Context, p convert.Printer, a pdfa.Converter, policy netguard.Policy, r *Request, template string) ([]byte, error) {
	page, err := r.page(template)
	if err != nil {
		return nil, err
	}
	return convert.HTML(ctx, p, a, policy, &convert.HTMLRequest{
		HTML: page, Format: r.Format, Orientation: r.Orientation, Margins: r.Margins, Header: r.Header, Footer: r.Footer,
		OutputProfile: r.OutputProfile, Title: r.Title, Stationery: r.Stationery, Fonts: r.Fonts, Stamp: r.stamp(), StampOpacity: r.stampOpacity(),
	})
}

// GenerateWord fills a Word template (.docx, with the placeholders of package tmpl) and
// answers it as pdf, docx or odt. The page settings and the watermark are the template's
// own business: a request that sets the watermark is refused.
func GenerateWord(ctx context.Context, o convert.Office, r *Request, template []byte, to string) ([]byte, error) {
	if r.Watermark != nil {
		return nil, fault.New(fault.InvalidInput, "a watermark is for HTML templates; put it into the Word template")
	}
	if to == "docx" {
		filled, err := docx.Fill(template, r.Data)
		if err != nil {
			return nil, err
		}
		return docx.EmbedFonts(filled, r.Fonts)
	}
	if o == nil {
		return nil, fault.New(fault.EngineUnavailable, "LibreOffice is not configured on this server")
	}
	if to == "pdf" {
		return docx.ToPDF(ctx, o, docx.Request{Document: template, Filename: "template.docx", Variables: r.Data, PDFA: r.OutputProfile == "PDF/A-3b", Fonts: r.Fonts, Locale: r.Locale})
	}
	filled, err := docx.Fill(template, r.Data)
	if err != nil {
		return nil, err
	}
	if filled, err = docx.EmbedFonts(filled, r.Fonts); err != nil {
		return nil, err
	}
	return o.Convert(ctx, office.Job{Document: filled, Ext: "docx", Locale: r.Locale}, to)
}

func (r *Request) stamp() []byte {
	if r.Watermark == nil {
		return nil
	}
	return r.Watermark.PDF
}

func (r *Request) stampOpacity() float64 {
	if r.Watermark == nil || r.Watermark.Opacity <= 0 {
		return 0.15 // the text watermark's default
	}
	return r.Watermark.Opacity
}
