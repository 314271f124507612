package document

import (
	"context"
	"fmt"
	"html"
	"strings"

	"github.com/papierkram/papierkram/convert"
	"github.com/papierkram/papierkram/convert/docx"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/netguard"
	"github.com/papierkram/papierkram/pdf"
)

// maxParts bounds a composition.
const maxParts = 50

// ComposeRequest puts parts of several kinds into one PDF.
type ComposeRequest struct {
	Parts []ComposePart `json:"parts" minItems:"1" maxItems:"50" doc:"The parts, in order."`
	// PageNumbers is a label for the foot of every page; {page} and {pages} count through
	// the whole document.
	PageNumbers string `json:"pageNumbers,omitempty" maxLength:"200" doc:"Label at the foot of every page, counting through all parts: {page} and {pages}. Empty: no numbers." example:"Seite {page} von {pages}"`
	TOC         bool   `json:"toc,omitempty" doc:"A table of contents first, listing the parts that have a title with their first page."`
	TOCTitle    string `json:"tocTitle,omitempty" maxLength:"200" default:"Inhalt"`
	Locale      string `json:"locale,omitempty" default:"de-DE" doc:"For the helpers of HTML parts."`

	Format      string           `json:"format,omitempty" enum:"A3,A4,A5,Letter,Legal,Tabloid" default:"A4" doc:"Page size of HTML parts and the table of contents."`
	Orientation string           `json:"orientation,omitempty" enum:"portrait,landscape" default:"portrait"`
	Margins     *convert.Margins `json:"margins,omitempty"`

	// Fonts are the calling key's uploaded fonts.
	Fonts []convert.FontFace `json:"-"`
}

// ComposePart is one part: an HTML template with data, a PDF, or a Word document.
type ComposePart struct {
	Title    string         `json:"title,omitempty" maxLength:"300" doc:"Bookmark and table-of-contents entry of the part." example:"Anlage 1"`
	Template string         `json:"template,omitempty" maxLength:"100" doc:"A stored HTML template's name."`
	HTML     string         `json:"html,omitempty" doc:"An inline HTML template."`
	Data     map[string]any `json:"data,omitempty" doc:"Values for the HTML template or the Word document's placeholders."`
	PDF      []byte         `json:"pdf,omitempty" doc:"A PDF, Base64."`
	DOCX     []byte         `json:"docx,omitempty" doc:"A Word document (.docx), Base64; its {{placeholders}} take data."`
	// SkipPageNumbers leaves the part's pages unnumbered (they still count), for parts with
	// footers of their own.
	SkipPageNumbers bool `json:"skipPageNumbers,omitempty" doc:"Leave this part's pages without the composition's page numbers (they still count), e.g. for a part with its own footer."`
}

// Engines are what composing needs.
type Engines struct {
	Printer convert.Printer
	Office  convert.Office
	Network netguard.Policy
}

// Compose renders every part, puts them in order (after a table of contents when asked),
// numbers the pages through the whole document and bookmarks each titled part. Stored
// templates must have been resolved into HTML by the caller.
func Compose(ctx context.Context, e Engines, r *ComposeRequest) ([]byte, error) {
	if len(r.Parts) == 0 || len(r.Parts) > maxParts {
		return nil, fault.New(fault.InvalidInput, "a composition has 1 to %d parts", maxParts)
	}
	page := Request{Locale: r.Locale, Format: r.Format, Orientation: r.Orientation, Margins: r.Margins, Fonts: r.Fonts}
	docs := make([][]byte, len(r.Parts))
	counts := make([]int, len(r.Parts))
	for i, p := range r.Parts {
		var err error
		switch kinds := btoi(p.HTML != "") + btoi(len(p.PDF) > 0) + btoi(len(p.DOCX) > 0); {
		case kinds != 1:
			return nil, fault.New(fault.InvalidInput, "part %d: give exactly one of template, html, pdf and docx", i+1)
		case p.HTML != "":
			pr := page
			pr.Data = p.Data
			docs[i], err = Generate(ctx, e.Printer, nil, e.Network, &pr, p.HTML)
		case len(p.PDF) > 0:
			docs[i] = p.PDF
		default:
			if e.Office == nil {
				return nil, fault.New(fault.EngineUnavailable, "LibreOffice is not configured on this server")
			}
			docs[i], err = docx.ToPDF(ctx, e.Office, docx.Request{Document: p.DOCX, Filename: "part.docx", Variables: p.Data, Fonts: r.Fonts})
		}
		if err != nil {
			return nil, fmt.Errorf("part %d: %w", i+1, err)
		}
		d, err := pdf.Read(docs[i])
		if err != nil {
			return nil, fmt.Errorf("part %d: %w", i+1, err)
		}
		counts[i] = d.PageCount()
	}

	var toc []byte
	tocPages := 0
	if r.TOC {
		// The table's own length moves every entry; render until it stands still.
		for guess := 1; guess <= 3; guess++ {
			b, err := r.toc(ctx, e, page, counts, guess)
			if err != nil {
				return nil, err
			}
			d, err := pdf.Read(b)
			if err != nil {
				return nil, err
			}
			toc, tocPages = b, d.PageCount()
			if tocPages == guess {
				break
			}
		}
	}
	all := docs
	if toc != nil {
		all = append([][]byte{toc}, docs...)
	}
	out, err := pdf.Merge(all...)
	if err != nil {
		return nil, err
	}
	var outline []pdf.OutlineItem
	if toc != nil {
		outline = append(outline, pdf.OutlineItem{Title: r.tocTitle(), Page: 1})
	}
	start := tocPages + 1
	var skip []int
	for i, p := range r.Parts {
		if p.Title != "" {
			outline = append(outline, pdf.OutlineItem{Title: p.Title, Page: start})
		}
		if p.SkipPageNumbers {
			for n := start; n < start+counts[i]; n++ {
				skip = append(skip, n)
			}
		}
		start += counts[i]
	}
	if len(outline) > 0 {
		d, err := pdf.Read(out)
		if err != nil {
			return nil, err
		}
		if out, err = d.SetOutline(outline); err != nil {
			return nil, err
		}
	}
	if r.PageNumbers != "" {
		d, err := pdf.Read(out)
		if err != nil {
			return nil, err
		}
		if out, err = d.NumberPages(r.PageNumbers, skip...); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (r *ComposeRequest) tocTitle() string {
	if r.TOCTitle == "" {
		return "Inhalt"
	}
	return r.TOCTitle
}

// toc renders the table of contents for parts starting after tocPages pages.
func (r *ComposeRequest) toc(ctx context.Context, e Engines, page Request, counts []int, tocPages int) ([]byte, error) {
	var b strings.Builder
	b.WriteString(`<html><head><meta charset="utf-8"><style>body{font-family:sans-serif}table{width:100%;border-collapse:collapse}td{padding:4pt 0}td.p{text-align:right}</style></head><body><h1>`)
	b.WriteString(html.EscapeString(r.tocTitle()))
	b.WriteString(`</h1><table>`)
	start := tocPages + 1
	for i, p := range r.Parts {
		if p.Title != "" {
			fmt.Fprintf(&b, `<tr><td>%s</td><td class="p">%d</td></tr>`, html.EscapeString(p.Title), start)
		}
		start += counts[i]
	}
	b.WriteString(`</table></body></html>`)
	return convert.HTML(ctx, e.Printer, nil, e.Network, &convert.HTMLRequest{HTML: b.String(), Format: page.Format, Orientation: page.Orientation, Margins: page.Margins, Fonts: page.Fonts})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
