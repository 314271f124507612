package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/fault"
)

// PageCounter counts the pages of a PDF (engine/poppler does it with pdfinfo).
type PageCounter interface {
	PageCount(ctx context.Context, pdf []byte) (int, error)
}

// PageCount is the page-count result.
type PageCount struct {
	Pages int `json:"pages" doc:"The number of pages." example:"3"`
}

var pdfUpload = form{{Name: "file", Doc: "The PDF.", File: true, Required: true, Types: []string{"application/pdf"}}}

// registerSystem registers the built routes that belong to no larger capability yet.
func (s *Server) registerSystem() {
	register(s, huma.Operation{
		OperationID: "pageCount", Method: http.MethodPost, Path: "/api/preview/page-count", Tags: []string{"Preview"},
		Summary: "Count the pages of a PDF", Description: "Returns {\"pages\": N}. 400 with code invalid_pdf for a file that is not a readable PDF, encrypted_pdf for an encrypted one.",
		RequestBody: pdfUpload.body(),
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body PageCount }, error) {
		if s.cfg.Pages == nil {
			return nil, fault.New(fault.EngineUnavailable, "the page counter (poppler) is not configured on this server")
		}
		up, err := pdfUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		pdf := up.File("file").Data
		if err := sniffPDF(pdf); err != nil {
			return nil, err
		}
		n, err := s.cfg.Pages.PageCount(ctx, pdf)
		if err != nil {
			return nil, err
		}
		return &struct{ Body PageCount }{PageCount{Pages: n}}, nil
	}, s.uploads())
}
