package server

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/pdf"
)

// FormFields is the answer of /api/pdf-forms/fields.
type FormFields struct {
	Count  int             `json:"count"`
	Fields []pdf.FormField `json:"fields"`
}

var formFillForm = form{
	{Name: "file", Doc: "The PDF with an AcroForm.", File: true, Required: true, Types: []string{"application/pdf"}},
	{Name: "values", Doc: `JSON object of field values by full name: strings (numbers are taken for text fields), true/false for check boxes, an option for radio groups and choices, a list for multi-select list boxes. Example: {"name":"Erika","address.city":"Köln","agree":true}`, Required: true},
	{Name: "flatten", Doc: "true: draw the filled fields into the pages and remove the form, so nobody can change the values. Default false."},
}

func (s *Server) registerForms() {
	up := s.uploads()
	tag := []string{"PDF forms"}
	register(s, huma.Operation{
		OperationID: "postPdfFormsFields", Method: http.MethodPost, Path: "/api/pdf-forms/fields", Tags: tag,
		Summary: "List the form fields of a PDF", RequestBody: pdfUpload.body(),
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body FormFields }, error) {
		d, _, err := uploadedPDF(ctx, pdf.ReadToRead)
		if err != nil {
			return nil, err
		}
		fields, err := d.FormFields()
		if err != nil {
			return nil, err
		}
		if fields == nil {
			fields = []pdf.FormField{}
		}
		return &struct{ Body FormFields }{FormFields{Count: len(fields), Fields: fields}}, nil
	}, up)

	register(s, huma.Operation{
		OperationID: "postPdfFormsFill", Method: http.MethodPost, Path: "/api/pdf-forms/fill", Tags: tag,
		Summary: "Fill the form fields of a PDF", RequestBody: formFillForm.body(), Responses: binaryResponse(pdfResponse),
	}, func(ctx context.Context, _ *struct{}) (*fileOutput, error) {
		u, err := formFillForm.read(ctx)
		if err != nil {
			return nil, err
		}
		var in struct {
			Values  map[string]any `form:"values,json"`
			Flatten bool           `form:"flatten"`
		}
		if err := u.Bind(&in); err != nil {
			return nil, err
		}
		f := u.File("file")
		d, err := pdf.Read(f.Data)
		if err != nil {
			return nil, err
		}
		out, err := d.FillForm(in.Values, in.Flatten)
		if err != nil {
			return nil, err
		}
		return pdfOutput(stem(f.Filename)+"-filled.pdf", out), nil
	}, up)
}
