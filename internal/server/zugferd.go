package server

import (
	"context"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/einvoice/syntax"
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
	validateDesc := "Finds the invoice XML in a ZUGFeRD, Factur-X or XRechnung PDF (factur-x.xml, xrechnung.xml, zugferd-invoice.xml, or the associated XML file) and checks both parts: `xml` is the report of /api/xrechnung/validate for the XML's profile; `pdf` lists the container checks (PDFA-ID: PDF/A-3 identification in XMP; PDFA-OUTPUTINTENT; PDFA-FONTS: embedded fonts; FX-AF: an associated file with AFRelationship Data, Source or Alternative; FX-XMP, FX-XMP-TYPE, FX-XMP-FILENAME, FX-XMP-PROFILE: the Factur-X XMP properties and their agreement with the XML). `valid` only if both parts are. ZUGFeRD 1.0 is refused with 400."
	validate := func(data []byte) (*struct{ Body *ZugferdReport }, error) {
		r, err := zugferd.Validate(data)
		if err != nil {
			return nil, err
		}
		return &struct{ Body *ZugferdReport }{(*ZugferdReport)(r)}, nil
	}
	ok := map[string]*huma.Response{"200": {Description: "The report.", Content: map[string]*huma.MediaType{"application/json": {Schema: reportSchema}}}}
	register(s, huma.Operation{
		OperationID: "postZugferdValidate", Method: http.MethodPost, Path: "/api/zugferd/validate", Tags: tag, Summary: "Validate a ZUGFeRD / Factur-X PDF",
		Description: validateDesc, RequestBody: pdfUpload.body(), Responses: ok,
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body *ZugferdReport }, error) {
		u, err := pdfUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		return validate(u.File("file").Data)
	}, up)
	register(s, huma.Operation{
		OperationID: "postZugferdValidateBase64", Method: http.MethodPost, Path: "/api/zugferd/validate/base64", Tags: tag, Summary: "Validate a ZUGFeRD / Factur-X PDF (Base64 input)",
		Description: "As /api/zugferd/validate, with the PDF as Base64 under the key file.", Responses: ok,
	}, func(ctx context.Context, in *base64Only) (*struct{ Body *ZugferdReport }, error) {
		data, _, err := in.decode()
		if err != nil {
			return nil, err
		}
		return validate(data)
	}, up)

	extract := func(data []byte) (*struct{ Body ExtractResult }, error) {
		doc, _, err := zugferd.Extract(data)
		if err != nil {
			return nil, err
		}
		inv, in, err := syntax.Read(doc.XML)
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
		return extract(u.File("file").Data)
	}, up)
	register(s, huma.Operation{
		OperationID: "postZugferdExtractBase64", Method: http.MethodPost, Path: "/api/zugferd/extract/base64", Tags: tag, Summary: "Extract the invoice from a ZUGFeRD / Factur-X PDF (Base64 input)",
		Description: "As /api/zugferd/extract, with the PDF as Base64 under the key file.",
	}, func(ctx context.Context, in *base64Only) (*struct{ Body ExtractResult }, error) {
		data, _, err := in.decode()
		if err != nil {
			return nil, err
		}
		return extract(data)
	}, up)
}
