package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/einvoice/syntax"
)

// InvoiceData is the API's name of the e-invoice model (einvoice.Invoice).
type InvoiceData einvoice.Invoice

// DetectResult is the detect response.
type DetectResult syntax.Info

// GenerateRequest is the body of /api/xrechnung/generate: InvoiceData plus the output choice.
type GenerateRequest struct {
	einvoice.Invoice
	XRechnungFormat  string `json:"xrechnungFormat,omitempty"`
	XRechnungVersion string `json:"xrechnungVersion,omitempty"`
}

var xmlUpload = form{{Name: "file", Doc: "The invoice XML (CII or UBL).", File: true, Required: true, Types: []string{"application/xml", "text/xml"}}}

func xmlOutput(name string, b []byte) *fileOutput {
	return &fileOutput{ContentType: "application/xml", ContentDisposition: fmt.Sprintf("attachment; filename=%q", name), Body: b}
}

// uploadedXML reads the "file" part of an e-invoice upload.
func uploadedXML(ctx context.Context) (*File, error) {
	u, err := xmlUpload.read(ctx)
	if err != nil {
		return nil, err
	}
	return u.File("file"), nil
}

// generate renders the request's invoice under its specification (XRechnung when it names
// none) and checks it: a failed fatal rule is a 422 with the report, warnings go to the
// caller in X-Service-Warning.
func generate(ctx context.Context, req *GenerateRequest) ([]byte, string, error) {
	format, err := syntax.Parse(req.XRechnungFormat, syntax.CII)
	if err != nil {
		return nil, "", err
	}
	inv := einvoice.Invoice(req.Invoice)
	out, r, err := rules.Generate(ctx, &inv, format, req.XRechnungVersion)
	if err != nil {
		return nil, "", err
	}
	warn(ctx, r.Warnings())
	return out, strings.ToLower(string(format)), nil
}

func (s *Server) registerXRechnung() {
	up := s.uploads()
	tag := []string{"XRechnung"}
	s.api.OpenAPI().Components.Schemas.RegisterTypeAlias(reflect.TypeFor[einvoice.Decimal](), reflect.TypeFor[string]())
	s.api.OpenAPI().Components.Schemas.RegisterTypeAlias(reflect.TypeFor[einvoice.Date](), reflect.TypeFor[string]())
	invoiceSchema := s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[InvoiceData](), true, "")
	s.validateRoute()
	documentInvoice(s.api.OpenAPI().Components.Schemas)
	example := GenerateRequest{Invoice: *einvoice.Example(), XRechnungFormat: "CII"}

	register(s, huma.Operation{
		OperationID: "postXrechnungGenerate", Method: http.MethodPost, Path: "/api/xrechnung/generate", Tags: tag, Summary: "Generate XRechnung XML",
		RequestBody: &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{"application/json": {
			Schema: &huma.Schema{AllOf: []*huma.Schema{invoiceSchema, {Type: "object", Properties: map[string]*huma.Schema{
				"xrechnungFormat":  {Type: "string", Enum: []any{"CII", "UBL"}, Default: "CII", Description: "Output syntax."},
				"xrechnungVersion": {Type: "string", Enum: []any{"3.0", "2.3"}, Default: "3.0", Description: "XRechnung version (BT-24) when the invoice names no specification; a specification the invoice names (EN 16931, XRechnung, Peppol BIS, a ZUGFeRD / Factur-X profile) is kept."},
			}}}},
			Example: example,
		}}},
		Responses: binaryResponse(xmlResponse),
	}, func(ctx context.Context, _ *struct{}) (*fileOutput, error) {
		var req GenerateRequest
		if err := readJSON(ctx, &req); err != nil {
			return nil, err
		}
		out, ext, err := generate(ctx, &req)
		if err != nil {
			return nil, err
		}
		return xmlOutput("xrechnung-"+ext+".xml", out), nil
	}, up)

	register(s, huma.Operation{
		OperationID: "postXrechnungParse", Method: http.MethodPost, Path: "/api/xrechnung/parse", Tags: tag, Summary: "Parse an e-invoice XML",
		RequestBody: xmlUpload.body(),
		Responses: map[string]*huma.Response{"200": {Description: "InvoiceData.", Content: map[string]*huma.MediaType{
			"application/json": {Schema: invoiceSchema}}}},
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body *InvoiceData }, error) {
		f, err := uploadedXML(ctx)
		if err != nil {
			return nil, err
		}
		inv, _, err := syntax.Read(ctx, f.Data)
		return &struct{ Body *InvoiceData }{(*InvoiceData)(inv)}, err
	}, up)

	register(s, huma.Operation{
		OperationID: "postXrechnungDetect", Method: http.MethodPost, Path: "/api/xrechnung/detect", Tags: tag, Summary: "Detect CII or UBL",
		RequestBody: xmlUpload.body(),
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body DetectResult }, error) {
		f, err := uploadedXML(ctx)
		if err != nil {
			return nil, err
		}
		in, err := syntax.Detect(ctx, f.Data)
		return &struct{ Body DetectResult }{DetectResult(in)}, err
	}, up)

	register(s, huma.Operation{
		OperationID: "postXrechnungTransform", Method: http.MethodPost, Path: "/api/xrechnung/transform", Tags: tag, Summary: "Transform CII to UBL (or UBL to CII)",
		RequestBody: xmlUpload.body(), Responses: binaryResponse(xmlResponse),
	}, func(ctx context.Context, in *transformQuery) (*fileOutput, error) {
		target, err := syntax.Parse(in.TargetFormat, syntax.UBL)
		if err != nil {
			return nil, err
		}
		f, err := uploadedXML(ctx)
		if err != nil {
			return nil, err
		}
		out, _, err := syntax.Transform(ctx, f.Data, target)
		if err != nil {
			return nil, err
		}
		return xmlOutput(strings.TrimSuffix(f.Filename, ".xml")+"-"+strings.ToLower(string(target))+".xml", out), nil
	}, up)
}

// ValidationReport is the verdict of /api/xrechnung/validate.
type ValidationReport rules.Report

type validateQuery struct {
	Accept  string `header:"Accept" doc:"text/html for a readable report page; JSON otherwise."`
	RuleSet string `query:"ruleSet" enum:"auto,en16931,xrechnung-3.0,facturx-1.08,facturx-1.07" default:"auto" doc:"The rule set to judge by: auto (the one the document's specification identifier BT-24 names: XRechnung 3.0, Factur-X 1.08 for a Factur-X profile, else EN 16931), en16931 (CEN's rules alone), xrechnung-3.0, facturx-1.08 (ZUGFeRD 2.4) or facturx-1.07 (ZUGFeRD 2.3, for files made before 15 January 2026; the profile URN does not tell the versions apart). The report's ruleSet names the one applied."`
}

// validate registers the XML validation endpoint.
func (s *Server) validateRoute() {
	up := s.uploads()
	register(s, huma.Operation{
		OperationID: "postXrechnungValidate", Method: http.MethodPost, Path: "/api/xrechnung/validate", Tags: []string{"XRechnung"}, Summary: "Validate an e-invoice XML",
		RequestBody: xmlUpload.body(),
		Responses: map[string]*huma.Response{"200": {Description: "The report.", Content: map[string]*huma.MediaType{
			"application/json": {Schema: s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[ValidationReport](), true, "")},
			"text/html":        {Schema: &huma.Schema{Type: "string"}}}}},
	}, func(ctx context.Context, in *validateQuery) (*fileOutput, error) {
		f, err := uploadedXML(ctx)
		if err != nil {
			return nil, err
		}
		var r *rules.Report
		err = s.bounded(ctx, len(f.Data), func() (err error) {
			r, err = rules.ValidateWith(ctx, f.Data, rules.Options{RuleSet: in.RuleSet})
			return err
		})
		if err != nil {
			return nil, err
		}
		if strings.Contains(in.Accept, "text/html") {
			return &fileOutput{ContentType: "text/html; charset=utf-8", Body: r.HTML()}, nil
		}
		body, err := json.Marshal((*ValidationReport)(r))
		if err != nil {
			return nil, err
		}
		return &fileOutput{ContentType: "application/json", Body: body}, nil
	}, up)
}

// documentInvoice copies each model field's business-term comment into the OpenAPI schemas.
func documentInvoice(r huma.Registry) {
	for _, t := range einvoice.DocumentedTypes() {
		typeName := t.Name()
		if t == reflect.TypeFor[einvoice.Invoice]() {
			t = reflect.TypeFor[InvoiceData]() // documented under the API's name
		}
		sch := r.Schema(t, false, "")
		if sch == nil {
			continue
		}
		if ref := sch.Ref; ref != "" {
			sch = r.SchemaFromRef(ref)
		}
		for i := range t.NumField() {
			f := t.Field(i)
			key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if p := sch.Properties[key]; p != nil && p.Description == "" {
				p.Description = einvoice.FieldDoc(typeName + "." + f.Name)
			}
		}
	}
}
