package server

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/ops"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/pagerange"
	"github.com/papierkram/papierkram/pdf/pdfa"
)

var pdfUpload = form{{Name: "file", Doc: "The PDF.", File: true, Required: true, Types: []string{"application/pdf"}}, passwordPart}

// fileOutput is a binary response: a PDF, an image, a spreadsheet.
type fileOutput struct {
	ContentType        string `header:"Content-Type"`
	ContentDisposition string `header:"Content-Disposition"`
	Body               []byte
}

func pdfOutput(name string, b []byte) *fileOutput {
	return &fileOutput{ContentType: "application/pdf", ContentDisposition: fmt.Sprintf("attachment; filename=%q", name), Body: b}
}

func binaryResponse(mt map[string]*huma.MediaType) map[string]*huma.Response {
	return map[string]*huma.Response{"200": {Description: "The document.", Content: mt}}
}

// uploadedPDF reads the "file" part and parses it with read: pdf.Read for an operation
// that writes a document, pdf.ReadToRead for one that only reads it.
func uploadedPDF(ctx context.Context, read func([]byte) (*pdf.Doc, error)) (*pdf.Doc, *File, error) {
	up, err := pdfUpload.read(ctx)
	if err != nil {
		return nil, nil, err
	}
	f := up.File("file")
	d, err := read(f.Data)
	return d, f, err
}

// uploadedPages reads the uploaded PDF, as uploadedPDF, and its page specification.
func uploadedPages(ctx context.Context, read func([]byte) (*pdf.Doc, error), spec string) (*pdf.Doc, *File, pagerange.Spec, error) {
	d, f, err := uploadedPDF(ctx, read)
	if err != nil {
		return nil, nil, nil, err
	}
	sp, err := pagerange.Parse(spec, d.PageCount())
	return d, f, sp, err
}

// stem is a file name without its extension, for naming outputs after inputs.
func stem(name string) string {
	name = strings.TrimSuffix(name, ".pdf")
	if name == "" {
		return "document"
	}
	return name
}

// SplitPart is one output PDF of a split.
type SplitPart struct {
	Pages string `json:"pages" doc:"The pages this part holds, as a page specification." example:"1-3"`
	From  int    `json:"from" doc:"First page (1-based)." example:"1"`
	To    int    `json:"to" doc:"Last page." example:"3"`
	File  string `json:"file" contentEncoding:"base64" doc:"The part as a Base64 PDF."`
}

// SplitResult is the split response.
type SplitResult struct {
	Count int         `json:"count" doc:"Number of parts." example:"2"`
	Parts []SplitPart `json:"parts" doc:"The parts, in the order of the page specification."`
}

// MetadataResult is the metadata response.
type MetadataResult struct {
	*pdf.Info
}

type extractQuery struct {
	Pages string `query:"pages" required:"true" maxLength:"1000" doc:"Pages to keep, in this order: 1-3,7 or 5,1 (repeats allowed)."`
}

var mergeUpload = form{{Name: "files", Doc: "The PDFs, in order (2 to 50).", File: true, Required: true, Max: 50, Types: []string{"application/pdf"}}}

func (s *Server) registerPDFTools() {
	up := s.uploads()
	tag := []string{"PDF tools"}

	// The toolbox of the operation layer, shared with the command line.
	mount(s, ops.Compress)
	mount(s, ops.Encrypt)
	mount(s, ops.Decrypt)
	mount(s, ops.Unlock)
	mount(s, ops.Bookmarks)
	mount(s, ops.SetBookmarks)
	mount(s, ops.DeletePages)
	mount(s, ops.Insert)
	mount(s, ops.Reorder)
	mount(s, ops.Stamp)
	mount(s, ops.Watermark)
	mount(s, ops.PageNumbers)
	mount(s, ops.Flatten)
	mount(s, ops.ImagesToPDF)
	mount(s, ops.OCR)
	mount(s, ops.Validate)

	register(s, huma.Operation{
		OperationID: "postPdfToolsSplit", Method: http.MethodPost, Path: "/api/pdf-tools/split", Tags: tag,
		Summary: "Split a PDF", RequestBody: pdfUpload.body(),
	}, func(ctx context.Context, in *pagesQuery) (*struct{ Body SplitResult }, error) {
		d, _, sp, err := uploadedPages(ctx, pdf.Read, in.Pages)
		if err != nil {
			return nil, err
		}
		parts, err := d.Split(sp)
		if err != nil {
			return nil, err
		}
		res := SplitResult{Count: len(parts)}
		for _, p := range parts {
			res.Parts = append(res.Parts, SplitPart{Pages: p.Range.String(), From: p.Range.From, To: p.Range.To, File: base64.StdEncoding.EncodeToString(p.PDF)})
		}
		return &struct{ Body SplitResult }{res}, nil
	}, up)

	register(s, huma.Operation{
		OperationID: "postPdfToolsRotate", Method: http.MethodPost, Path: "/api/pdf-tools/rotate", Tags: tag,
		Summary: "Rotate pages", RequestBody: pdfUpload.body(), Responses: binaryResponse(pdfResponse),
	}, func(ctx context.Context, in *rotateQuery) (*fileOutput, error) {
		d, f, sp, err := uploadedPages(ctx, pdf.Read, in.Pages)
		if err != nil {
			return nil, err
		}
		b, err := d.Rotate(in.Degrees, sp)
		if err != nil {
			return nil, err
		}
		return pdfOutput(stem(f.Filename)+"-rotated.pdf", b), nil
	}, up)

	register(s, huma.Operation{
		OperationID: "postPdfToolsMetadata", Method: http.MethodPost, Path: "/api/pdf-tools/metadata", Tags: tag,
		Summary: "Read PDF metadata", RequestBody: pdfUpload.body(),
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body *pdf.Info }, error) {
		up, err := pdfUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		info, err := pdf.Inspect(up.File("file").Data)
		if err != nil {
			return nil, err
		}
		return &struct{ Body *pdf.Info }{info}, nil
	}, up)

	register(s, huma.Operation{
		OperationID: "postPdfToolsMetadataSet", Method: http.MethodPost, Path: "/api/pdf-tools/metadata/set", Tags: tag,
		Summary: "Set PDF metadata", RequestBody: pdfUpload.body(), Responses: binaryResponse(pdfResponse),
	}, func(ctx context.Context, in *metadataSetQuery) (*fileOutput, error) {
		d, f, err := uploadedPDF(ctx, pdf.Read)
		if err != nil {
			return nil, err
		}
		opt := func(s string) *string {
			if s == "" {
				return nil
			}
			return &s
		}
		b, err := d.SetMetadata(pdf.Changes{Title: opt(in.Title), Author: opt(in.Author), Subject: opt(in.Subject),
			Keywords: opt(in.Keywords), Creator: opt(in.Creator), Producer: opt(in.Producer)}, s.now())
		if err != nil {
			return nil, err
		}
		return pdfOutput(stem(f.Filename)+".pdf", b), nil
	}, up)

	convert := func(ctx context.Context, data []byte, name string, q PDFAQuery) (*fileOutput, error) {
		if s.cfg.PDFA == nil {
			return nil, fault.New(fault.EngineUnavailable, "PDF/A conversion (Ghostscript) is not configured on this server")
		}
		b, err := pdfa.Convert(ctx, s.cfg.PDFA, data, pdfa.Options{Title: q.Title, Author: q.Author, Now: s.now()})
		if err != nil {
			return nil, err
		}
		return pdfOutput(stem(name)+"-pdfa.pdf", b), nil
	}
	register(s, huma.Operation{
		OperationID: "postPdfToolsPdfa", Method: http.MethodPost, Path: "/api/pdf-tools/pdfa", Tags: tag,
		Summary: "Convert to PDF/A-3b", RequestBody: pdfUpload.body(), Responses: binaryResponse(pdfResponse),
	}, func(ctx context.Context, in *PDFAQuery) (*fileOutput, error) {
		up, err := pdfUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		f := up.File("file")
		return convert(ctx, f.Data, f.Filename, *in)
	}, up)
	register(s, huma.Operation{
		OperationID: "postPdfToolsPdfaBase64", Method: http.MethodPost, Path: "/api/pdf-tools/pdfa/base64", Tags: tag,
		Summary: "Convert to PDF/A-3b (Base64 input)", Responses: binaryResponse(pdfResponse),
		Description: "As /api/pdf-tools/pdfa, with the PDF as Base64 under the key file.",
	}, func(ctx context.Context, in *pdfaBase64) (*fileOutput, error) {
		data, name, err := in.decode()
		if err != nil {
			return nil, err
		}
		return convert(ctx, data, name, in.PDFAQuery)
	}, up)

	register(s, huma.Operation{
		OperationID: "postPdfToolsMerge", Method: http.MethodPost, Path: "/api/pdf-tools/merge", Tags: tag,
		Summary: "Merge PDFs", RequestBody: mergeUpload.body(), Responses: binaryResponse(pdfResponse),
	}, func(ctx context.Context, _ *struct{}) (*fileOutput, error) {
		up, err := mergeUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		var docs [][]byte
		for _, f := range up.Files["files"] {
			docs = append(docs, f.Data)
		}
		b, err := pdf.Merge(docs...)
		if err != nil {
			return nil, err
		}
		return pdfOutput("merged.pdf", b), nil
	}, up)

	register(s, huma.Operation{
		OperationID: "postPdfToolsExtractPages", Method: http.MethodPost, Path: "/api/pdf-tools/extract-pages", Tags: tag,
		Summary: "Extract pages into one PDF", RequestBody: pdfUpload.body(), Responses: binaryResponse(pdfResponse),
		Description: "One PDF of the pages named, in the order named (repeats allowed).",
	}, func(ctx context.Context, in *extractQuery) (*fileOutput, error) {
		d, f, sp, err := uploadedPages(ctx, pdf.Read, in.Pages)
		if err != nil {
			return nil, err
		}
		if sp.Count() > pdf.MaxPages {
			return nil, fault.New(fault.InvalidPageSpec, "at most %d pages can be extracted", pdf.MaxPages)
		}
		b, err := d.Extract(sp)
		if err != nil {
			return nil, err
		}
		return pdfOutput(stem(f.Filename)+"-pages.pdf", b), nil
	}, up)
}
