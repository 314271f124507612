package server

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/cii"
	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf/ocr"
	"github.com/papierkram/papierkram/zugferd"
)

// ZugferdReport is the verdict of /api/zugferd/validate.
type ZugferdReport zugferd.Report

// ExtractResult is the answer of /api/zugferd/extract.
type ExtractResult struct {
	FileName         string       `json:"fileName" doc:"Name of the embedded invoice XML." example:"factur-x.xml"`
	Syntax           string       `json:"syntax" example:"CII"`
	Profile          string       `json:"profile,omitempty" doc:"ZUGFeRD / Factur-X profile, or XRECHNUNG." example:"EN16931"`
	Guideline        string       `json:"guideline,omitempty" doc:"BT-24 of the XML."`
	XRechnungVersion string       `json:"xrechnungVersion,omitempty"`
	Invoice          *InvoiceData `json:"invoice"`
	XML              string       `json:"xml" doc:"The embedded XML as it is in the PDF."`
}

type base64Only struct{ Base64Body }

func (s *Server) registerZugferd() {
	up := s.uploads()
	tag := []string{"ZUGFeRD"}
	// The XML part is the validation report, named as /api/xrechnung/validate names it.
	s.api.OpenAPI().Components.Schemas.RegisterTypeAlias(reflect.TypeFor[rules.Report](), reflect.TypeFor[ValidationReport]())
	reportSchema := s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[ZugferdReport](), true, "")
	validate := func(ctx context.Context, data []byte) (*struct{ Body *ZugferdReport }, error) {
		var r *zugferd.Report
		err := s.bounded(ctx, len(data), func() (err error) { r, err = zugferd.Validate(ctx, data, s.zugferdValidateOptions()); return err })
		if err != nil {
			return nil, err
		}
		return &struct{ Body *ZugferdReport }{(*ZugferdReport)(r)}, nil
	}
	ok := map[string]*huma.Response{"200": {Description: "The report.", Content: map[string]*huma.MediaType{"application/json": {Schema: reportSchema}}}}
	register(s, huma.Operation{
		OperationID: "postZugferdValidate", Method: http.MethodPost, Path: "/api/zugferd/validate", Tags: tag, Summary: "Validate a ZUGFeRD / Factur-X PDF",
		RequestBody: pdfUpload.body(), Responses: ok,
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body *ZugferdReport }, error) {
		u, err := pdfUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		return validate(ctx, u.File("file").Data)
	}, up)
	register(s, huma.Operation{
		OperationID: "postZugferdValidateBase64", Method: http.MethodPost, Path: "/api/zugferd/validate/base64", Tags: tag, Summary: "Validate a ZUGFeRD / Factur-X PDF (Base64 input)",
		Description: "As /api/zugferd/validate, with the PDF as Base64 under the key file.", Responses: ok,
	}, func(ctx context.Context, in *base64Only) (*struct{ Body *ZugferdReport }, error) {
		data, _, err := in.decode()
		if err != nil {
			return nil, err
		}
		return validate(ctx, data)
	}, up)

	extract := func(ctx context.Context, data []byte) (*struct{ Body ExtractResult }, error) {
		doc, _, err := zugferd.Extract(ctx, data)
		if err != nil {
			return nil, err
		}
		inv, in, err := syntax.Read(ctx, doc.XML)
		if err != nil {
			return nil, err
		}
		return &struct{ Body ExtractResult }{ExtractResult{
			FileName: doc.FileName, Syntax: string(in.Syntax), Profile: string(in.Profile), Guideline: in.Guideline,
			XRechnungVersion: in.XRechnungVersion, Invoice: (*InvoiceData)(inv), XML: string(doc.XML),
		}}, nil
	}
	extractDesc := "Finds the invoice XML in a ZUGFeRD 2.x, Factur-X or XRechnung PDF (factur-x.xml, xrechnung.xml, zugferd-invoice.xml, or an associated XML file) and answers it read into InvoiceData, with its profile, guideline and the raw XML. ZUGFeRD 1.0 is refused with 400."
	register(s, huma.Operation{
		OperationID: "postZugferdExtract", Method: http.MethodPost, Path: "/api/zugferd/extract", Tags: tag, Summary: "Extract the invoice from a ZUGFeRD / Factur-X PDF",
		Description: extractDesc, RequestBody: pdfUpload.body(),
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body ExtractResult }, error) {
		u, err := pdfUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		return extract(ctx, u.File("file").Data)
	}, up)
	register(s, huma.Operation{
		OperationID: "postZugferdExtractBase64", Method: http.MethodPost, Path: "/api/zugferd/extract/base64", Tags: tag, Summary: "Extract the invoice from a ZUGFeRD / Factur-X PDF (Base64 input)",
		Description: "As /api/zugferd/extract, with the PDF as Base64 under the key file.",
	}, func(ctx context.Context, in *base64Only) (*struct{ Body ExtractResult }, error) {
		data, _, err := in.decode()
		if err != nil {
			return nil, err
		}
		return extract(ctx, data)
	}, up)
}

// visiblePages bounds the pages the FX-VISIBLE checks read: an invoice's figures are on its
// first pages, and OCR of a long scan would cost more than the check is worth.
const visiblePages = 10

// zugferdValidateOptions reads the pages with poppler, and scanned pages with Tesseract
// when it is configured; without poppler the FX-VISIBLE checks do not run.
func (s *Server) zugferdValidateOptions() zugferd.ValidateOptions {
	if s.cfg.Renderer == nil {
		return zugferd.ValidateOptions{}
	}
	return zugferd.ValidateOptions{Pages: func(ctx context.Context, pdf []byte) ([]string, error) {
		return ocr.PageTexts(ctx, s.cfg.Renderer, s.cfg.Renderer, s.cfg.TextLayer, pdf, visiblePages)
	}}
}

// ZugferdEmbedRequest is the body of /api/zugferd/embed/base64.
type ZugferdEmbedRequest struct {
	File     string       `json:"file" doc:"The PDF in standard Base64 (the key of every /base64 endpoint)." required:"true"`
	Filename string       `json:"filename,omitempty" doc:"The PDF's file name; the answer is named after it."`
	Invoice  *InvoiceData `json:"invoice" doc:"The invoice." required:"true"`
	Profile  string       `json:"profile,omitempty" doc:"MINIMUM, BASICWL, BASIC, EN16931, EXTENDED or XRECHNUNG; default the profile of the invoice's specification (BT-24), else EN16931." example:"EN16931"`
	Title    string       `json:"title,omitempty" doc:"Document title (Info and XMP); default the PDF's own, or 'Invoice <number>'."`
}

var embedForm = form{
	{Name: "file", Doc: "The PDF (any PDF; it is made PDF/A-3b unless it already is).", File: true, Required: true, Types: []string{"application/pdf"}},
	// An XRechnung may carry its attachments (BG-24) as Base64 in the InvoiceData: the
	// official examples with attachments are several megabytes.
	{Name: "invoice", Doc: "InvoiceData JSON (at most 32 MB, attachments included).", Required: true, Limit: 32 << 20},
	{Name: "profile", Doc: "MINIMUM, BASICWL, BASIC, EN16931, EXTENDED or XRECHNUNG; default the profile of the invoice's specification (BT-24), else EN16931."},
	{Name: "title", Doc: "Document title (Info and XMP); default the PDF's own, or 'Invoice <number>'."},
}

// embed writes the invoice as CII for its profile and embeds it.
func (s *Server) embed(ctx context.Context, file []byte, name string, inv *einvoice.Invoice, profile, title string) (*fileOutput, error) {
	var p einvoice.Profile
	if strings.TrimSpace(profile) != "" {
		var err error
		if p, err = einvoice.ParseProfile(profile); err != nil {
			return nil, fault.Wrap(fault.InvalidInput, err, "profile: %v", err).With("field", "profile")
		}
	}
	xml, err := cii.Write(inv, cii.Options{Profile: p})
	if err != nil {
		return nil, err
	}
	res, err := zugferd.Embed(ctx, s.cfg.PDFA, file, xml, zugferd.Options{Title: title, Now: s.now(), Invoice: inv})
	if err != nil {
		return nil, err
	}
	return pdfOutput(stem(name)+"-"+strings.ToLower(string(res.Profile))+".pdf", res.PDF), nil
}

func (s *Server) registerZugferdEmbed() {
	up := s.uploads()
	tag := []string{"ZUGFeRD"}
	register(s, huma.Operation{
		OperationID: "postZugferdEmbed", Method: http.MethodPost, Path: "/api/zugferd/embed", Tags: tag, Summary: "Embed an invoice into a PDF",
		RequestBody: embedForm.body(), Responses: binaryResponse(pdfResponse),
	}, func(ctx context.Context, _ *struct{}) (*fileOutput, error) {
		u, err := embedForm.read(ctx)
		if err != nil {
			return nil, err
		}
		var in struct {
			Invoice einvoice.Invoice `form:"invoice,json"`
			Profile string           `form:"profile"`
			Title   string           `form:"title"`
		}
		if err := u.Bind(&in); err != nil {
			return nil, err
		}
		f := u.File("file")
		return s.embed(ctx, f.Data, f.Filename, &in.Invoice, in.Profile, in.Title)
	}, up)
	register(s, huma.Operation{
		OperationID: "postZugferdEmbedBase64", Method: http.MethodPost, Path: "/api/zugferd/embed/base64", Tags: tag, Summary: "Embed an invoice into a PDF (Base64 input)",
		RequestBody: &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{"application/json": {
			Schema: s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[ZugferdEmbedRequest](), true, "")}}},
		Responses: binaryResponse(pdfResponse),
	}, func(ctx context.Context, _ *struct{}) (*fileOutput, error) {
		var in struct{ Body ZugferdEmbedRequest }
		if err := readJSON(ctx, &in.Body); err != nil {
			return nil, err
		}
		if in.Body.Invoice == nil {
			return nil, fault.New(fault.InvalidInput, "the key \"invoice\" with the InvoiceData is missing").With("field", "invoice")
		}
		data, err := decodeBase64(in.Body.File)
		if err != nil {
			return nil, err
		}
		return s.embed(ctx, data, baseName(in.Body.Filename), (*einvoice.Invoice)(in.Body.Invoice), in.Body.Profile, in.Body.Title)
	}, up)
}

// XRechnungConversion is the answer of /v1/convert/zugferd-to-xrechnung with
// includeValidationReport.
type XRechnungConversion struct {
	Syntax           string            `json:"syntax" example:"UBL"`
	XRechnungVersion string            `json:"xrechnungVersion" example:"3.0"`
	SourceProfile    string            `json:"sourceProfile" doc:"Profile of the embedded invoice." example:"EN16931"`
	SourceFileName   string            `json:"sourceFileName" doc:"Name of the embedded invoice XML." example:"factur-x.xml"`
	XML              string            `json:"xml" doc:"The XRechnung XML."`
	Report           *ValidationReport `json:"report" doc:"Validation of the XRechnung: XSD, EN 16931 and XRechnung CIUS, every checked rule."`
}

var zugferdToXRechnungForm = form{
	{Name: "document", Doc: "The ZUGFeRD 2.x / Factur-X PDF.", File: true, Required: true, Types: []string{"application/pdf"}},
	{Name: "targetSyntax", Doc: "UBL (default) or CII."},
	{Name: "targetVersion", Doc: "XRechnung version: 3.0 (default) or 2.3."},
	{Name: "enforceLeitwegId", Doc: "true: fail with 422 unless the buyer reference (BT-10) ends up a well-formed Leitweg-ID (check digits ISO/IEC 7064 MOD 97-10). Default false."},
	{Name: "validate", Doc: "true (default): fail with 422 and the report under `report` when the XRechnung breaks a fatal rule (XSD, EN 16931, XRechnung CIUS). false: answer the XML anyway."},
	{Name: "includeValidationReport", Doc: "true: answer JSON (XRechnungConversion) with the XML and the full report instead of the bare XML. Default false."},
	{Name: "leitwegId", Doc: "Leitweg-ID to put into BT-10, as leitwegIdMode says; a malformed one is 400."},
	{Name: "leitwegIdMode", Doc: "append (default): set BT-10 only when empty; replace: overwrite it; strict (default with enforceLeitwegId): fail with 422 unless the invoice has one."},
}

func (s *Server) registerZugferdToXRechnung() {
	s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[XRechnungConversion](), true, "")
	register(s, huma.Operation{
		OperationID: "postConvertZugferdToXrechnung", Method: http.MethodPost, Path: "/v1/convert/zugferd-to-xrechnung", Tags: []string{"Conversion"},
		Summary:     "ZUGFeRD PDF to XRechnung",
		RequestBody: zugferdToXRechnungForm.body(),
		Responses: map[string]*huma.Response{"200": {Description: "The XRechnung, or with includeValidationReport the XML and its report.", Content: map[string]*huma.MediaType{
			"application/xml":  {Schema: &huma.Schema{Type: "string"}},
			"application/json": {Schema: &huma.Schema{Ref: "#/components/schemas/XRechnungConversion"}},
		}}},
	}, func(ctx context.Context, _ *struct{}) (*fileOutput, error) {
		u, err := zugferdToXRechnungForm.read(ctx)
		if err != nil {
			return nil, err
		}
		var opt toXRechnungFields
		if err := u.Bind(&opt); err != nil {
			return nil, err
		}
		o, err := opt.options()
		if err != nil {
			return nil, err
		}
		c, err := zugferd.ToXRechnung(ctx, u.File("document").Data, o)
		if err != nil {
			return nil, err
		}
		in, err := syntax.Detect(ctx, c.XML)
		if err != nil {
			return nil, err
		}
		name := stem(u.File("document").Filename) + "-xrechnung-" + strings.ToLower(string(c.Syntax)) + ".xml"
		if !opt.Report {
			return xmlOutput(name, c.XML), nil
		}
		b, err := json.Marshal(XRechnungConversion{
			Syntax: string(c.Syntax), XRechnungVersion: in.XRechnungVersion, SourceProfile: string(c.Source.Info.Profile),
			SourceFileName: c.Source.FileName, XML: string(c.XML), Report: (*ValidationReport)(c.Report),
		})
		if err != nil {
			return nil, err
		}
		return &fileOutput{ContentType: "application/json", Body: b}, nil
	}, s.uploads(), conversion())
}

// toXRechnungFields are zugferd-to-xrechnung's options.
type toXRechnungFields struct {
	Version       string `form:"targetVersion"`
	Syntax        string `form:"targetSyntax"`
	LeitwegID     string `form:"leitwegId"`
	LeitwegIDMode string `form:"leitwegIdMode"`
	Enforce       bool   `form:"enforceLeitwegId"`
	Validate      *bool  `form:"validate"` // default true
	Report        bool   `form:"includeValidationReport"`
}

func (f *toXRechnungFields) options() (zugferd.ConvertOptions, error) {
	o := zugferd.ConvertOptions{Version: f.Version, LeitwegID: f.LeitwegID, LeitwegIDMode: f.LeitwegIDMode, EnforceLeitwegID: f.Enforce, Validate: f.Validate == nil || *f.Validate}
	var err error
	if o.Syntax, err = syntax.Parse(f.Syntax, syntax.UBL); err != nil {
		return o, fault.Wrap(fault.InvalidInput, err, "targetSyntax: %v", err).With("field", "targetSyntax")
	}
	return o, nil
}
