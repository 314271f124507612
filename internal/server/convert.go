package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/convert"
	"github.com/papierkram/papierkram/fault"
)

func (s *Server) registerConvert() {
	register(s, huma.Operation{
		OperationID: "postConvertHtmlToPdf", Method: http.MethodPost, Path: "/v1/convert/html-to-pdf", Tags: []string{"Conversion"},
		Summary:   "HTML or URL to PDF",
		Responses: binaryResponse(pdfResponse),
	}, func(ctx context.Context, in *struct{ Body convert.HTMLRequest }) (*fileOutput, error) {
		if s.cfg.Printer == nil {
			return nil, fault.New(fault.EngineUnavailable, "HTML rendering (Chromium) is not configured on this server")
		}
		fonts, err := s.keyFonts(ctx)
		if err != nil {
			return nil, err
		}
		in.Body.Fonts = fonts
		b, err := convert.HTML(ctx, s.cfg.Printer, s.cfg.PDFA, s.cfg.Network, &in.Body)
		if err != nil {
			return nil, err
		}
		warn(ctx, in.Body.Warnings)
		return pdfOutput("document.pdf", b), nil
	}, bodyLimit(maxHTMLBody+1<<20), conversion())

	register(s, huma.Operation{
		OperationID: "postConvertMarkdownToPdf", Method: http.MethodPost, Path: "/v1/convert/markdown-to-pdf", Tags: []string{"Conversion"},
		Summary:   "Markdown to PDF",
		Responses: binaryResponse(pdfResponse),
	}, func(ctx context.Context, in *struct{ Body convert.MarkdownRequest }) (*fileOutput, error) {
		if s.cfg.Printer == nil {
			return nil, fault.New(fault.EngineUnavailable, "Markdown rendering (Chromium) is not configured on this server")
		}
		fonts, err := s.keyFonts(ctx)
		if err != nil {
			return nil, err
		}
		in.Body.Fonts = fonts
		b, err := convert.Markdown(ctx, s.cfg.Printer, s.cfg.PDFA, s.cfg.Highlight, s.cfg.Network, &in.Body)
		if err != nil {
			return nil, err
		}
		warn(ctx, in.Body.Warnings)
		return pdfOutput("document.pdf", b), nil
	}, bodyLimit(maxHTMLBody+1<<20), conversion())
}

// warn sends what a conversion wants the caller to know of its result in the
// X-Service-Warning header, one warning after the other.
func warn(ctx context.Context, warnings []string) {
	if ri := requestInfoFrom(ctx); ri != nil && ri.reply != nil && len(warnings) > 0 {
		ri.reply.Header().Set("X-Service-Warning", strings.Join(warnings, "; "))
	}
}
