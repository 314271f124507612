package server

import (
	"context"
	"encoding/base64"
	"net/http"
	"strconv"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/preview"
)

// Renderer renders pages and extracts text (engine/poppler).
type Renderer interface {
	preview.Renderer
	Text(ctx context.Context, pdf []byte, first, last int, layout bool) ([]string, error)
}

// PreviewImage is one rendered page.
type PreviewImage struct {
	Page        int    `json:"page" doc:"1-based page number." example:"1"`
	Width       int    `json:"width" doc:"Image width in pixels." example:"794"`
	Height      int    `json:"height" doc:"Image height in pixels." example:"1123"`
	ContentType string `json:"contentType" enum:"image/png,image/jpeg" example:"image/png"`
	File        string `json:"file" contentEncoding:"base64" doc:"The image, Base64."`
}

// PreviewResponse is the response of /api/preview/pages.
type PreviewResponse struct {
	Count  int            `json:"count" doc:"Number of images." example:"2"`
	Images []PreviewImage `json:"images"`
}

// PageCount is the page-count result.
type PageCount struct {
	Pages int `json:"pages" doc:"The number of pages." example:"3"`
}

// TextPage is one page's text.
type TextPage struct {
	Page int    `json:"page" example:"1"`
	Text string `json:"text" example:"Rechnung Nr. 2026-001"`
}

// TextResult is the response of /api/pdf-tools/text.
type TextResult struct {
	Count int        `json:"count" example:"1"`
	Pages []TextPage `json:"pages"`
}

type textQuery struct {
	Pages  string `query:"pages" default:"all" maxLength:"1000" doc:"Pages: all, 1, 1-3, 1,3,5 or 1-3,7."`
	Layout bool   `query:"layout" doc:"Keep the physical layout (columns, alignment) instead of reading order."`
}

func (s *Server) renderer() (Renderer, error) {
	if s.cfg.Renderer == nil {
		return nil, fault.New(fault.EngineUnavailable, "page rendering (poppler) is not configured on this server")
	}
	return s.cfg.Renderer, nil
}

// render renders pages through the preview operation (its page and pixel limits).
func (s *Server) render(ctx context.Context, data []byte, pages, format string, dpi, maxWidth int) ([]PreviewImage, error) {
	r, err := s.renderer()
	if err != nil {
		return nil, err
	}
	imgs, err := preview.Render(ctx, r, data, preview.Options{Pages: pages, Format: format, DPI: dpi, MaxWidth: maxWidth})
	if err != nil {
		return nil, err
	}
	out := make([]PreviewImage, len(imgs))
	for i, img := range imgs {
		out[i] = PreviewImage{Page: img.Page, Width: img.Width, Height: img.Height, ContentType: img.ContentType, File: base64.StdEncoding.EncodeToString(img.Data)}
	}
	return out, nil
}

func imageOutput(img PreviewImage) (*fileOutput, error) {
	b, err := base64.StdEncoding.DecodeString(img.File)
	return &fileOutput{ContentType: img.ContentType, Body: b}, err
}

type previewBase64 struct {
	PreviewQuery
	Base64Body
}

type previewPagesBase64 struct {
	PreviewPagesQuery
	Base64Body
}

type pdfaBase64 struct {
	PDFAQuery
	Base64Body
}

func (s *Server) registerPreview() {
	up := s.uploads()
	tag := []string{"Preview"}
	imageResp := binaryResponse(imgResponse)
	onePage := func(ctx context.Context, data []byte, q PreviewQuery) (*fileOutput, error) {
		imgs, err := s.render(ctx, data, strconv.Itoa(q.Page), q.Format, q.DPI, q.MaxWidth)
		if err != nil {
			return nil, err
		}
		return imageOutput(imgs[0])
	}
	register(s, huma.Operation{
		OperationID: "postPreview", Method: http.MethodPost, Path: "/api/preview", Tags: tag, Summary: "Render a page as an image",
		Description: "The image itself (PNG or JPEG) is the response body.", RequestBody: pdfUpload.body(), Responses: imageResp,
	}, func(ctx context.Context, in *PreviewQuery) (*fileOutput, error) {
		up, err := pdfUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		return onePage(ctx, up.File("file").Data, *in)
	}, up)
	register(s, huma.Operation{
		OperationID: "postPreviewBase64", Method: http.MethodPost, Path: "/api/preview/base64", Tags: tag, Summary: "Render a page as an image (Base64 input)",
		Description: "As /api/preview, with the PDF as Base64 under the key file.", Responses: imageResp,
	}, func(ctx context.Context, in *previewBase64) (*fileOutput, error) {
		data, _, err := in.decode()
		if err != nil {
			return nil, err
		}
		return onePage(ctx, data, in.PreviewQuery)
	}, up)

	pages := func(ctx context.Context, data []byte, q PreviewPagesQuery) (*struct{ Body PreviewResponse }, error) {
		imgs, err := s.render(ctx, data, q.Pages, q.Format, q.DPI, q.MaxWidth)
		if err != nil {
			return nil, err
		}
		return &struct{ Body PreviewResponse }{PreviewResponse{Count: len(imgs), Images: imgs}}, nil
	}
	register(s, huma.Operation{
		OperationID: "postPreviewPages", Method: http.MethodPost, Path: "/api/preview/pages", Tags: tag, Summary: "Render pages as images",
		Description: "One Base64 image per requested page, at most 50.", RequestBody: pdfUpload.body(),
	}, func(ctx context.Context, in *PreviewPagesQuery) (*struct{ Body PreviewResponse }, error) {
		up, err := pdfUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		return pages(ctx, up.File("file").Data, *in)
	}, up)
	register(s, huma.Operation{
		OperationID: "postPreviewPagesBase64", Method: http.MethodPost, Path: "/api/preview/pages/base64", Tags: tag, Summary: "Render pages as images (Base64 input)",
		Description: "As /api/preview/pages, with the PDF as Base64 under the key file.",
	}, func(ctx context.Context, in *previewPagesBase64) (*struct{ Body PreviewResponse }, error) {
		data, _, err := in.decode()
		if err != nil {
			return nil, err
		}
		return pages(ctx, data, in.PreviewPagesQuery)
	}, up)

	register(s, huma.Operation{
		OperationID: "pageCount", Method: http.MethodPost, Path: "/api/preview/page-count", Tags: tag,
		Summary:     "Count the pages of a PDF",
		RequestBody: pdfUpload.body(),
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body PageCount }, error) {
		d, _, err := uploadedPDF(ctx, pdf.ReadToRead)
		if err != nil {
			return nil, err
		}
		return &struct{ Body PageCount }{PageCount{Pages: d.PageCount()}}, nil
	}, up)

	register(s, huma.Operation{
		OperationID: "postPdfToolsText", Method: http.MethodPost, Path: "/api/pdf-tools/text", Tags: []string{"PDF tools"},
		Summary: "Extract text", Description: "Plain text per page (UTF-8); layout=true keeps columns and alignment.", RequestBody: pdfUpload.body(),
	}, func(ctx context.Context, in *textQuery) (*struct{ Body TextResult }, error) {
		r, err := s.renderer()
		if err != nil {
			return nil, err
		}
		d, _, sp, err := uploadedPages(ctx, pdf.ReadToRead, in.Pages)
		if err != nil {
			return nil, err
		}
		list := sp.Pages()
		first, last := list[0], list[0]
		for _, p := range list {
			first, last = min(first, p), max(last, p)
		}
		texts, err := r.Text(ctx, d.Bytes(), first, last, in.Layout)
		if err != nil {
			return nil, err
		}
		res := TextResult{}
		for _, p := range list {
			t := ""
			if i := p - first; i < len(texts) {
				t = texts[i]
			}
			res.Pages = append(res.Pages, TextPage{Page: p, Text: t})
		}
		res.Count = len(res.Pages)
		return &struct{ Body TextResult }{res}, nil
	}, up)
}
