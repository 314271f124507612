package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/convert/document"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/jobs"
	"github.com/papierkram/papierkram/receipt"
	"github.com/papierkram/papierkram/store"
)

// Receipt uploads, as the spec names their parts.
var (
	receiptTypes  = []string{"image/jpeg", "image/png", "image/webp", "image/gif", "image/tiff", "application/pdf"}
	receiptUpload = form{{Name: "file", Doc: "A receipt: JPEG, PNG, WebP, GIF or TIFF image, or PDF.", File: true, Required: true, Types: receiptTypes}}
	receiptBatch  = form{{Name: "files", Doc: "Up to 20 receipts (images or PDFs), each extracted on its own.", File: true, Required: true, Max: maxBatch, Types: receiptTypes}}
)

const (
	maxBatch      = 20
	batchParallel = 4 // extractions of a batch at once; the OCR pool bounds the rest
)

// BatchExtractionResult holds one result per submitted file, in order.
type BatchExtractionResult struct {
	Count     int               `json:"count" example:"2"`
	Succeeded int               `json:"succeeded" example:"2"`
	Failed    int               `json:"failed" example:"0"`
	Results   []*receipt.Result `json:"results"`
}

// ReceiptJob is an asynchronous extraction.
type ReceiptJob struct {
	jobs.Job
	StatusURL string          `json:"statusUrl" example:"/api/receipts/jobs/job_4f2a"`
	Result    *receipt.Result `json:"result,omitempty" doc:"The ReceiptExtractionResult, once the job completed."`
}

// ReceiptToDocumentResult is an expense report and the extraction it shows.
type ReceiptToDocumentResult struct {
	Success     bool            `json:"success"`
	Error       string          `json:"error,omitempty"`
	File        string          `json:"file" contentEncoding:"base64" doc:"The expense report, Base64."`
	ContentType string          `json:"contentType" enum:"application/pdf,application/vnd.openxmlformats-officedocument.wordprocessingml.document"`
	Filename    string          `json:"filename" example:"spesenbeleg-2020-03-02.pdf"`
	Format      string          `json:"format" enum:"PDF,DOCX"`
	Extraction  *receipt.Result `json:"extraction"`
}

func (s *Server) extractor() *receipt.Extractor {
	return &receipt.Extractor{OCR: s.cfg.OCR, Second: s.cfg.SecondOCR, PDF: s.cfg.Renderer, Model: s.cfg.Model, Now: s.now, Log: s.log}
}

// extract runs one extraction and counts the model's credits. Failures of the file are
// 400 problems; a failed extraction is a 500 problem that carries the result's members,
// as the spec asks of receipt endpoints.
func (s *Server) extract(ctx context.Context, keyID string, f *File) (*receipt.Result, error) {
	if s.cfg.OCR == nil {
		return nil, fault.New(fault.EngineUnavailable, "OCR (tesseract) is not configured on this server")
	}
	r, err := s.extractor().Extract(ctx, f.Data, f.Filename)
	if err != nil {
		// The file's fault or a passing one is not a failed extraction: it keeps its own status.
		if fault.Lookup(fault.CodeOf(err)).Kind != fault.ServerFault {
			return nil, err
		}
		return nil, failedExtraction(&receipt.Result{Filename: f.Filename, Error: err.Error()}, err)
	}
	if r.LLM.Credits > 0 {
		if err := s.store.AddCredits(context.WithoutCancel(ctx), keyID, store.Month(s.now()), "receipts", int64(r.LLM.Credits)); err != nil {
			s.log.WarnContext(ctx, "AI credit not counted", "keyId", keyID, "error", err)
		}
	}
	return r, nil
}

// extractUpload reads the receipt upload and extracts it; nothing found is a failure.
func (s *Server) extractUpload(ctx context.Context) (*receipt.Result, error) {
	u, err := receiptUpload.read(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.extract(ctx, keyFrom(ctx).ID, u.File("file"))
	if err != nil {
		return nil, err
	}
	if !r.Success {
		return nil, failedExtraction(r, nil)
	}
	return r, nil
}

// failedExtraction is the 500 problem of a failed extraction, with the result's members.
func failedExtraction(r *receipt.Result, cause error) error {
	if r.Error == "" && cause != nil {
		r.Error = cause.Error()
	}
	e := fault.Wrap(fault.ExtractionFailed, cause, "extraction failed: %s", r.Error) // cause may be nil
	b, _ := json.Marshal(r)
	var members map[string]any
	_ = json.Unmarshal(b, &members)
	for k, v := range members {
		e = e.With(k, v)
	}
	return e
}

func (s *Server) registerReceipts() {
	up := s.uploads()
	tag := []string{"Receipts"}
	exportBody := &huma.RequestBody{Required: true, Description: "A JSON array of ReceiptData; amounts as decimal strings or numbers.", Content: map[string]*huma.MediaType{
		"application/json": {Schema: &huma.Schema{Type: "array", MinItems: new(1), Items: s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[receipt.Data](), true, "")}}}}
	register(s, huma.Operation{
		OperationID: "postReceiptsExtract", Method: http.MethodPost, Path: "/api/receipts/extract", Tags: tag,
		Summary: "Extract a receipt", RequestBody: receiptUpload.body(), Errors: []int{http.StatusBadRequest, http.StatusInternalServerError},
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body *receipt.Result }, error) {
		r, err := s.extractUpload(ctx)
		if err != nil {
			return nil, err
		}
		return &struct{ Body *receipt.Result }{r}, nil
	}, up)

	register(s, huma.Operation{
		OperationID: "postReceiptsExtractBatch", Method: http.MethodPost, Path: "/api/receipts/extract-batch", Tags: tag,
		Summary: "Extract up to 20 receipts", RequestBody: receiptBatch.body(), Errors: []int{http.StatusBadRequest, http.StatusInternalServerError},
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body BatchExtractionResult }, error) {
		u, err := receiptBatch.read(ctx)
		if err != nil {
			return nil, err
		}
		files := u.Files["files"]
		// The request's own token paid for one file; each further one is an extraction too.
		if err := s.chargeMore(ctx, len(files)-1); err != nil {
			return nil, err
		}
		out, err := s.extractBatch(ctx, files)
		if err != nil {
			return nil, err
		}
		return &struct{ Body BatchExtractionResult }{out}, nil
	}, up)

	register(s, huma.Operation{
		OperationID: "postReceiptsExtractAsync", Method: http.MethodPost, Path: "/api/receipts/extract-async", Tags: tag,
		Summary: "Extract a receipt asynchronously", RequestBody: receiptUpload.body(), DefaultStatus: http.StatusAccepted,
		Errors: []int{http.StatusBadRequest, http.StatusInternalServerError},
	}, func(ctx context.Context, in *asyncQuery) (*struct {
		Location string `header:"Location"`
		Body     *ReceiptJob
	}, error) {
		u, err := receiptUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		f := u.File("file")
		if _, err := receipt.Sniff(f.Data); err != nil {
			return nil, err
		}
		if s.cfg.OCR == nil {
			return nil, fault.New(fault.EngineUnavailable, "OCR (tesseract) is not configured on this server")
		}
		var hook *jobs.Webhook
		if in.CallbackURL != "" {
			hook = &jobs.Webhook{URL: in.CallbackURL, Secret: in.CallbackSecret, Event: "receipt.extraction"}
			if err := s.jobs.CheckWebhook(ctx, hook); err != nil {
				return nil, err
			}
		}
		j, err := s.jobs.Submit(ctx, jobs.Submission{Owner: keyFrom(ctx).ID, Kind: receiptJobKind, Filename: f.Filename, Input: f.Data, Hook: hook})
		if err != nil {
			return nil, err
		}
		v := receiptJobView(j)
		return &struct {
			Location string `header:"Location"`
			Body     *ReceiptJob
		}{v.StatusURL, v}, nil
	}, up)

	register(s, huma.Operation{
		OperationID: "getReceiptsJob", Method: http.MethodGet, Path: "/api/receipts/jobs/{jobId}", Tags: tag, Summary: "State of an extraction job",
		Errors: []int{http.StatusNotFound},
	}, func(ctx context.Context, in *jobPath) (*struct{ Body *ReceiptJob }, error) {
		j, err := s.jobs.Get(ctx, keyFrom(ctx).ID, in.JobID)
		if err != nil {
			return nil, err
		}
		v := receiptJobView(j)
		if j.Status == jobs.Completed {
			res, err := s.jobs.Result(ctx, keyFrom(ctx).ID, in.JobID)
			if err != nil {
				return nil, err
			}
			if err := json.Unmarshal(res.Summary, &v.Result); err != nil {
				return nil, fault.Wrap(fault.Internal, err, "receipt job %s: result", j.ID)
			}
		}
		return &struct{ Body *ReceiptJob }{v}, nil
	})

	register(s, huma.Operation{
		OperationID: "postReceiptsToDocument", Method: http.MethodPost, Path: "/api/receipts/to-document", Tags: tag,
		Summary: "Expense report from a receipt", RequestBody: receiptUpload.body(), Errors: []int{http.StatusBadRequest, http.StatusNotFound, http.StatusInternalServerError},
	}, func(ctx context.Context, in *toDocumentQuery) (*struct{ Body ReceiptToDocumentResult }, error) {
		r, err := s.extractUpload(ctx)
		if err != nil {
			return nil, err
		}
		title := in.Title
		if strings.TrimSpace(title) == "" {
			title = "Spesenbeleg"
		}
		req := &document.Request{Data: receipt.ReportData(r, title), Title: title, Output: in.Format, Locale: "de-DE"}
		if in.TemplateName != "" {
			req.Template = in.TemplateName
		} else {
			req.HTML = receipt.ReportTemplate
		}
		run, err := s.documentJob(ctx, keyFrom(ctx).ID, req)
		if err != nil {
			return nil, err
		}
		doc, err := run(ctx)
		if err != nil {
			return nil, err
		}
		ext := ".pdf"
		if in.Format == "DOCX" {
			ext = ".docx"
		}
		name := "spesenbeleg"
		if r.Data.Date != "" {
			name += "-" + string(r.Data.Date)
		}
		return &struct{ Body ReceiptToDocumentResult }{ReceiptToDocumentResult{
			Success: true, File: base64.StdEncoding.EncodeToString(doc.Body), ContentType: doc.ContentType,
			Filename: name + ext, Format: strings.ToUpper(strings.TrimPrefix(ext, ".")), Extraction: r,
		}}, nil
	}, up, conversion())

	register(s, huma.Operation{
		OperationID: "postReceiptsExportXlsx", Method: http.MethodPost, Path: "/api/receipts/export/xlsx", Tags: tag,
		Summary: "Export receipts to XLSX", RequestBody: exportBody, Responses: binaryResponse(xlsxResponse), Errors: []int{http.StatusBadRequest},
		Description: "A JSON array of ReceiptData (e.g. the data of extraction results) as a workbook: the columns " + exportColumns + "; dates as dates (DD.MM.YYYY), amounts as numbers (#,##0.00), a bold frozen header with an auto-filter, and a summary row (SUBTOTAL sums of Net, VAT and Gross, so they follow the filter). An empty array is 400.",
	}, func(ctx context.Context, _ *struct{}) (*fileOutput, error) {
		var rows []receipt.Data
		if err := readJSON(ctx, &rows); err != nil {
			return nil, err
		}
		b, err := receipt.XLSX(rows)
		if err != nil {
			return nil, err
		}
		return &fileOutput{ContentType: xlsxType, ContentDisposition: `attachment; filename="belege.xlsx"`, Body: b}, nil
	}, bodyLimit(16<<20))

	register(s, huma.Operation{
		OperationID: "postReceiptsExportCsv", Method: http.MethodPost, Path: "/api/receipts/export/csv", Tags: tag,
		Summary: "Export receipts to CSV", RequestBody: exportBody, Responses: binaryResponse(csvResponse), Errors: []int{http.StatusBadRequest},
		Description: "A JSON array of ReceiptData as RFC 4180 CSV (UTF-8 without BOM, CRLF, a header row) with the columns " + exportColumns + ". Amounts have two decimals (24.23; `decimalSeparator=,` writes 24,23), dates are YYYY-MM-DD; `delimiter=;` makes a file German Excel opens in columns. Text cells starting with = + - @ get a leading apostrophe against formula injection. An empty array is 400.",
	}, func(ctx context.Context, in *csvQuery) (*fileOutput, error) {
		var rows []receipt.Data
		if err := readJSON(ctx, &rows); err != nil {
			return nil, err
		}
		o := receipt.CSVOptions{}
		for _, f := range []struct {
			name, v string
			to      *rune
		}{{"delimiter", in.Delimiter, &o.Delimiter}, {"decimalSeparator", in.DecimalSeparator, &o.DecimalSeparator}} {
			if r := []rune(f.v); len(r) > 1 {
				return nil, fault.New(fault.InvalidInput, "%s %q: one character", f.name, f.v).With("field", f.name)
			} else if len(r) == 1 {
				*f.to = r[0]
			}
		}
		b, err := receipt.CSV(rows, o)
		if err != nil {
			return nil, err
		}
		return &fileOutput{ContentType: "text/csv; charset=utf-8", ContentDisposition: `attachment; filename="belege.csv"`, Body: b}, nil
	}, bodyLimit(16<<20))

	register(s, huma.Operation{
		OperationID: "postReceiptsExportDatev", Method: http.MethodPost, Path: "/api/receipts/export/datev", Tags: tag,
		Summary: "Export receipts as a DATEV booking batch", RequestBody: exportBody, Errors: []int{http.StatusBadRequest},
		Responses: binaryResponse(csvResponse),
	}, func(ctx context.Context, in *datevQuery) (*fileOutput, error) {
		var rows []receipt.Data
		if err := readJSON(ctx, &rows); err != nil {
			return nil, err
		}
		o := receipt.DATEVOptions{Chart: in.Chart, Consultant: in.Consultant, Client: in.Client, ContraAccount: in.ContraAccount}
		if in.FiscalYearStart != "" {
			t, err := time.Parse(time.DateOnly, in.FiscalYearStart)
			if err != nil {
				return nil, fault.New(fault.InvalidInput, "fiscalYearStart %q: write YYYY-MM-DD", in.FiscalYearStart).With("field", "fiscalYearStart")
			}
			o.FiscalYearStart = t
		}
		b, err := receipt.DATEV(rows, o)
		if err != nil {
			return nil, err
		}
		return &fileOutput{ContentType: "text/csv; charset=windows-1252", ContentDisposition: `attachment; filename="EXTF_Buchungsstapel.csv"`, Body: b}, nil
	}, bodyLimit(16<<20))
}

// csvQuery fits the CSV to the program that opens it.
type csvQuery struct {
	Delimiter        string `query:"delimiter" doc:"Field delimiter: , (default) ; | or a tab. Use ; for German Excel."`
	DecimalSeparator string `query:"decimalSeparator" doc:"Decimal separator of amounts: . (default) or ,."`
}

// datevQuery holds the header values of a DATEV batch.
type datevQuery struct {
	Chart           string `query:"chart" enum:"SKR03,SKR04" default:"SKR03" doc:"The chart of accounts the batch books on."`
	Consultant      int    `query:"consultant" minimum:"1001" maximum:"9999999" default:"1001" doc:"Beraternummer, as the tax adviser's DATEV has it."`
	Client          int    `query:"client" minimum:"1" maximum:"99999" default:"1" doc:"Mandantennummer."`
	FiscalYearStart string `query:"fiscalYearStart" format:"date" doc:"First day of the fiscal year (YYYY-MM-DD); default 1 January of the receipts' year."`
	ContraAccount   string `query:"contraAccount" pattern:"^[0-9]{4}$" doc:"Contra account for every receipt (e.g. a credit card clearing account), instead of Kasse or Bank by payment method."`
}

// exportColumns names the export's columns for the OpenAPI descriptions.
var exportColumns = strings.Join(receipt.Columns, ", ")

func (s *Server) registerInvoiceExtract() {
	upload := form{{Name: "file", Doc: "An invoice: PDF (a ZUGFeRD, Factur-X or XRechnung PDF is read from its XML) or a JPEG, PNG or WebP photo or scan.", File: true, Required: true, Types: []string{"application/pdf", "image/jpeg", "image/png", "image/webp"}}, passwordPart}
	register(s, huma.Operation{
		OperationID: "postXrechnungExtract", Method: http.MethodPost, Path: "/api/xrechnung/extract", Tags: []string{"XRechnung"},
		Summary: "Extract invoice data from a PDF or photo", RequestBody: upload.body(), Errors: []int{http.StatusBadRequest, http.StatusInternalServerError},
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body *receipt.InvoiceResult }, error) {
		u, err := upload.read(ctx)
		if err != nil {
			return nil, err
		}
		if s.cfg.OCR == nil || s.cfg.Renderer == nil {
			return nil, fault.New(fault.EngineUnavailable, "OCR (tesseract) and PDF reading (poppler) are needed and not configured on this server")
		}
		r, err := s.extractor().Invoice(ctx, u.File("file").Data)
		if r != nil && r.LLM.Credits > 0 {
			if err := s.store.AddCredits(context.WithoutCancel(ctx), keyFrom(ctx).ID, store.Month(s.now()), "xrechnung", int64(r.LLM.Credits)); err != nil {
				s.log.WarnContext(ctx, "AI credit not counted", "error", err)
			}
		}
		if err != nil {
			return nil, err
		}
		return &struct{ Body *receipt.InvoiceResult }{r}, nil
	}, s.uploads())
}

// receiptJobKind is the job kind of an asynchronous extraction.
const receiptJobKind = "receipt.extraction"

// runReceiptJob extracts an accepted receipt; the input is the uploaded file.
func (s *Server) runReceiptJob(ctx context.Context, j jobs.Info, input []byte, _ json.RawMessage) (jobs.Result, error) {
	r, err := s.extract(ctx, j.Owner, &File{Name: "file", Filename: j.Filename, Data: input})
	if err != nil {
		return jobs.Result{}, err
	}
	if !r.Success {
		return jobs.Result{}, fault.New(fault.ExtractionFailed, "%s", r.Error)
	}
	summary, err := json.Marshal(r)
	if err != nil {
		return jobs.Result{}, fault.Wrap(fault.Internal, err, "receipt job %s: result", j.ID)
	}
	return jobs.Result{Summary: summary}, nil
}

func receiptJobView(j jobs.Job) *ReceiptJob {
	return &ReceiptJob{Job: j, StatusURL: "/api/receipts/jobs/" + j.ID}
}

// batchReserve is the part of a batch's time kept for the files under way to stop and the
// answer to be written.
const batchReserve = 3 * time.Second

// extractBatch reads each file on its own, batchParallel at once. When the request's time
// runs out, the files not read by then get an error of their own and the others keep their
// results: a batch of 20 full-page scans used to lose all 20 to the write deadline. Files
// still being read then are not waited for beyond half the reserve (a busy machine can
// take seconds to stop an image step): they are reported as not read, and their work,
// cancelled, ends on its own.
func (s *Server) extractBatch(ctx context.Context, files []*File) (BatchExtractionResult, error) {
	bctx, grace := ctx, time.Duration(0)
	if d, ok := ctx.Deadline(); ok {
		reserve := min(batchReserve, time.Until(d)/5)
		var cancel context.CancelFunc
		bctx, cancel = context.WithDeadline(ctx, d.Add(-reserve))
		defer cancel()
		grace = reserve / 2
	}
	late := func(f *File) *receipt.Result {
		return &receipt.Result{Filename: f.Filename, Error: "not read: the batch's time ran out first; send this file again, alone or through /api/receipts/extract-async"}
	}
	var mu sync.Mutex
	results, closed := make([]*receipt.Result, len(files)), false
	set := func(i int, r *receipt.Result) {
		mu.Lock()
		defer mu.Unlock()
		if !closed {
			results[i] = r
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, batchParallel)
	for i, f := range files {
		wg.Go(func() {
			select {
			case sem <- struct{}{}:
				defer func() { <-sem }()
			case <-bctx.Done():
				set(i, late(f))
				return
			}
			r, err := s.extract(bctx, keyFrom(ctx).ID, f)
			switch {
			case err != nil && bctx.Err() != nil && ctx.Err() == nil:
				r = late(f)
			case err != nil:
				r = &receipt.Result{Filename: f.Filename, Error: problemDetail(err)}
			}
			set(i, r)
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-bctx.Done():
		timer := time.NewTimer(grace)
		select {
		case <-done:
		case <-timer.C:
		}
		timer.Stop()
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return BatchExtractionResult{}, fault.Wrap(fault.Canceled, ctx.Err(), "the request was cancelled")
	}
	mu.Lock()
	closed = true
	out := BatchExtractionResult{Count: len(files), Results: results}
	mu.Unlock()
	for i, r := range out.Results {
		if r == nil {
			out.Results[i] = late(files[i])
		}
	}
	for _, r := range out.Results {
		if r.Success {
			out.Succeeded++
		} else {
			out.Failed++
		}
	}
	return out, nil
}

// problemDetail is the message of an error as its problem would say it.
func problemDetail(err error) string {
	if e := fault.As(err); e != nil {
		return e.Message
	}
	return err.Error()
}
