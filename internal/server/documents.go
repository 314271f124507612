package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/convert/document"
	"github.com/papierkram/papierkram/convert/tmpl"
	"github.com/papierkram/papierkram/fault"
)

func (s *Server) registerDocuments() {
	register(s, huma.Operation{
		OperationID: "postDocumentsGenerate", Method: http.MethodPost, Path: "/api/documents/generate", Tags: []string{"Documents"},
		Summary:     "Generate a PDF from an HTML template and data",
		Description: "Fills a stored or inline HTML template (values HTML-escaped; {#items}…{/items} repeats; helpers {{money total}}, {{number qty 2}}, {{date issued}}, {{qr payment}} for an inline QR code, {{image logo}} for a data: image) for the locale, then prints it on the warm Chromium with the page settings of /v1/convert/html-to-pdf (format, orientation, margins, header and footer with page numbers, PDF/A-3b, stationery) and an optional text watermark on every page. JavaScript stays off; the template reaches no network unless the server allows it.",
		Responses:   binaryResponse(pdfResponse),
	}, func(ctx context.Context, in *struct{ Body document.Request }) (*fileOutput, error) {
		r := &in.Body
		src := r.HTML
		out := strings.ToUpper(r.Output)
		if out != "" && out != "PDF" && out != "DOCX" && out != "ODT" {
			return nil, fault.New(fault.InvalidInput, "output must be PDF, DOCX or ODT, not %q", r.Output).With("field", "output")
		}
		switch {
		case r.Template != "" && r.HTML != "":
			return nil, fault.New(fault.InvalidInput, "give template or html, not both")
		case r.Template != "":
			t, err := s.store.Template(ctx, keyFrom(ctx).ID, r.Template)
			if err != nil {
				return nil, err
			}
			switch t.Kind {
			case tmpl.KindHTML:
				src = string(t.Data)
			case tmpl.KindDOCX:
				to := strings.ToLower(out)
				if to == "" {
					to = "pdf"
				}
				b, err := document.GenerateWord(ctx, s.cfg.Office, r, t.Data, to)
				if err != nil {
					return nil, err
				}
				return documentOutput(to, b), nil
			default:
				return nil, fault.New(fault.InvalidInput, "the template %q is %s; generate takes html and docx templates", r.Template, t.Kind)
			}
		case r.HTML == "":
			return nil, fault.New(fault.InvalidInput, "give template (a stored HTML or Word template's name) or html")
		}
		switch out {
		case "DOCX", "ODT":
			b, err := document.GenerateAs(ctx, s.cfg.Office, r, src, strings.ToLower(out))
			if err != nil {
				return nil, err
			}
			return documentOutput(strings.ToLower(out), b), nil
		}
		if s.cfg.Printer == nil {
			return nil, fault.New(fault.EngineUnavailable, "Chromium is not configured")
		}
		b, err := document.Generate(ctx, s.cfg.Printer, s.cfg.PDFA, s.cfg.Network, r, src)
		if err != nil {
			return nil, err
		}
		return pdfOutput("document.pdf", b), nil
	}, bodyLimit(maxHTMLBody+1<<20), conversion())
}

func (s *Server) registerCompose() {
	register(s, huma.Operation{
		OperationID: "postDocumentsCompose", Method: http.MethodPost, Path: "/api/documents/compose", Tags: []string{"Documents"},
		Summary:     "Compose several parts into one PDF",
		Description: "Renders each part (a stored or inline HTML template with data, a Base64 PDF, or a Base64 .docx with placeholders) and puts them in order into one PDF, optionally after a table of contents (titled parts with their first page), with a bookmark per titled part and page numbers counted through the whole document ({page} and {pages} in pageNumbers).",
		Responses:   binaryResponse(pdfResponse),
	}, func(ctx context.Context, in *struct{ Body document.ComposeRequest }) (*fileOutput, error) {
		r := &in.Body
		for i := range r.Parts {
			p := &r.Parts[i]
			if p.Template == "" {
				continue
			}
			if p.HTML != "" {
				return nil, fault.New(fault.InvalidInput, "part %d: give template or html, not both", i+1)
			}
			doc, err := s.storedTemplate(ctx, p.Template, tmpl.KindHTML)
			if err != nil {
				return nil, err
			}
			p.HTML = string(doc)
		}
		if s.cfg.Printer == nil {
			return nil, fault.New(fault.EngineUnavailable, "Chromium is not configured")
		}
		out, err := document.Compose(ctx, document.Engines{Printer: s.cfg.Printer, Office: s.cfg.Office, Network: s.cfg.Network}, r)
		if err != nil {
			return nil, err
		}
		return pdfOutput("document.pdf", out), nil
	}, bodyLimit(s.cfg.MaxUploadBytes), conversion())
}

// documentOutput names a generated document by its format.
func documentOutput(to string, b []byte) *fileOutput {
	ct := map[string]string{"pdf": "application/pdf", "docx": templateTypes[tmpl.KindDOCX], "odt": "application/vnd.oasis.opendocument.text"}[to]
	return &fileOutput{ContentType: ct, ContentDisposition: `attachment; filename="document.` + to + `"`, Body: b}
}
