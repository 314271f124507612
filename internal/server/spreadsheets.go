package server

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/convert/tmpl"
	"github.com/papierkram/papierkram/convert/xlsx"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/spreadsheet"
)

const xlsxType = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

var (
	fillForm = form{
		{Name: "file", Doc: "The .xlsx template; or name a stored one in template.", File: true, Types: []string{xlsxType}},
		{Name: "template", Doc: "Name of an .xlsx template stored with POST /api/templates, instead of file."},
		{Name: "data", Doc: `JSON object of the values: {{name}} cells take them typed, {#items}…{/items} rows repeat per item. Example: {"number":"R-7","items":[{"name":"Papier","qty":2,"price":12.5}]}`, Required: true},
		{Name: "format", Doc: "XLSX (default) or PDF (through LibreOffice, formulas computed)."},
		{Name: "locale", Doc: "With format PDF: BCP 47 locale of number and date formats and of the default paper; default the server's (de-DE)."},
	}
	sheetConvertForm = form{
		{Name: "file", Doc: "The workbook (.xlsx), or CSV when converting to xlsx.", File: true, Required: true, Types: []string{xlsxType, "text/csv"}},
		{Name: "to", Doc: "csv, json, ods (from .xlsx) or xlsx (from CSV).", Required: true},
		{Name: "sheet", Doc: "Sheet name or number from 1; default the first. For CSV to xlsx: the new sheet's name."},
		{Name: "delimiter", Doc: "CSV field delimiter: one character; default ,. Use ; for German Excel."},
		{Name: "decimalSeparator", Doc: "Decimal separator of CSV numbers: . (default) or ,."},
	}
)

func xlsxOutput(name string, b []byte) *fileOutput {
	return &fileOutput{ContentType: xlsxType, ContentDisposition: `attachment; filename="` + name + `"`, Body: b}
}

// oneRune reads a one-character option.
func (s *Server) registerSpreadsheets() {
	up := s.uploads()
	tag := []string{"Spreadsheets"}
	register(s, huma.Operation{
		OperationID: "postSpreadsheetsGenerate", Method: http.MethodPost, Path: "/api/spreadsheets/generate", Tags: tag,
		Summary: "Generate an XLSX workbook",
		RequestBody: &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{"application/json": {
			Schema:  s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeFor[spreadsheet.Workbook](), true, ""),
			Example: json.RawMessage(`{"sheets":[{"name":"Ausgaben","freezeHeader":true,"autoFilter":true,"totalsRow":true,"columns":[{"header":"Artikel"},{"header":"Menge","key":"qty","type":"number"},{"header":"Preis","key":"price","type":"currency","currency":"EUR"},{"header":"Betrag","type":"currency","formula":"=B{row}*C{row}"}],"rows":[["Papier",2,12.5],{"Artikel":"Toner","qty":1,"price":37.5}]}]}`),
		}}},
		Responses: binaryResponse(xlsxResponse),
	}, func(ctx context.Context, _ *struct{}) (*fileOutput, error) {
		var w spreadsheet.Workbook
		if err := readJSON(ctx, &w); err != nil {
			return nil, err
		}
		out, err := spreadsheet.Generate(w)
		if err != nil {
			return nil, err
		}
		return xlsxOutput("workbook.xlsx", out), nil
	}, up)

	register(s, huma.Operation{
		OperationID: "postSpreadsheetsFill", Method: http.MethodPost, Path: "/api/spreadsheets/fill", Tags: tag,
		Summary:     "Fill an XLSX template",
		RequestBody: fillForm.body(), Responses: binaryResponse(map[string]*huma.MediaType{xlsxType: xlsxResponse[xlsxType], "application/pdf": pdfResponse["application/pdf"]}),
	}, func(ctx context.Context, _ *struct{}) (*fileOutput, error) {
		u, err := fillForm.read(ctx)
		if err != nil {
			return nil, err
		}
		var in struct {
			Data     map[string]any `form:"data,json"`
			Locale   localeTag      `form:"locale"`
			Format   string         `form:"format"`
			Template string         `form:"template"`
		}
		if err := u.Bind(&in); err != nil {
			return nil, err
		}
		if f := strings.ToUpper(in.Format); f != "" && f != "XLSX" && f != "PDF" {
			return nil, fault.New(fault.InvalidInput, "format must be XLSX or PDF, not %q", in.Format).With("field", "format")
		}
		f, err := s.sheetTemplate(ctx, u.File("file"), in.Template)
		if err != nil {
			return nil, err
		}
		out, err := spreadsheet.Fill(f.Data, in.Data)
		if err != nil {
			return nil, err
		}
		name := stem(strings.TrimSuffix(f.Filename, ".xlsx")) + "-filled"
		if strings.EqualFold(in.Format, "PDF") {
			return s.sheetPDF(ctx, out, name, s.locale(in.Locale))
		}
		return xlsxOutput(name+".xlsx", out), nil
	}, up, conversion())

	register(s, huma.Operation{
		OperationID: "postSpreadsheetsConvert", Method: http.MethodPost, Path: "/api/spreadsheets/convert", Tags: tag,
		Summary:     "Convert between XLSX, CSV, ODS and JSON",
		RequestBody: sheetConvertForm.body(),
		Responses: binaryResponse(map[string]*huma.MediaType{xlsxType: xlsxResponse[xlsxType], "text/csv": csvResponse["text/csv"],
			"application/json": {Schema: &huma.Schema{Type: "array", Items: &huma.Schema{Type: "object"}}}, "application/vnd.oasis.opendocument.spreadsheet": {Schema: &huma.Schema{Type: "string", Format: "binary"}}}),
	}, func(ctx context.Context, _ *struct{}) (*fileOutput, error) {
		u, err := sheetConvertForm.read(ctx)
		if err != nil {
			return nil, err
		}
		var in struct {
			To        string `form:"to"`
			Sheet     string `form:"sheet"`
			Delimiter rune   `form:"delimiter"`
			Decimal   rune   `form:"decimalSeparator"`
		}
		if err := u.Bind(&in); err != nil {
			return nil, err
		}
		f := u.File("file")
		out, err := spreadsheet.Convert(ctx, s.cfg.Office, f.Data, f.Filename, in.To, spreadsheet.CSVOptions{Sheet: in.Sheet, Delimiter: in.Delimiter, Decimal: in.Decimal})
		if err != nil {
			return nil, err
		}
		res := &fileOutput{ContentType: out.ContentType, Body: out.Data}
		if out.Ext != "json" { // JSON is data for the caller, the others are files
			res.ContentDisposition = `attachment; filename="` + stem(strings.TrimSuffix(strings.TrimSuffix(f.Filename, ".xlsx"), ".csv")) + "." + out.Ext + `"`
		}
		return res, nil
	}, up, conversion())
}

// sheetTemplate is the workbook to fill: the uploaded one, or the key's stored template of
// that name (one of the two).
func (s *Server) sheetTemplate(ctx context.Context, f *File, name string) (*File, error) {
	switch {
	case name != "" && f != nil:
		return nil, fault.New(fault.InvalidInput, "send the template as file or name it in template, not both")
	case name != "":
		doc, err := s.storedTemplate(ctx, name, tmpl.KindXLSX)
		if err != nil {
			return nil, err
		}
		return &File{Name: "file", Filename: name + ".xlsx", Data: doc}, nil
	case f == nil:
		return nil, fault.New(fault.InvalidInput, "the template is missing: send file or name a stored one in template")
	}
	return f, nil
}

// sheetPDF prints a workbook with the key's fonts; name is its file name without extension.
func (s *Server) sheetPDF(ctx context.Context, book []byte, name, locale string) (*fileOutput, error) {
	if s.cfg.Office == nil {
		return nil, fault.New(fault.EngineUnavailable, "LibreOffice is not configured")
	}
	fonts, err := s.keyFonts(ctx)
	if err != nil {
		return nil, err
	}
	pdf, err := xlsx.ToPDF(ctx, s.cfg.Office, xlsx.Request{Document: book, Filename: name + ".xlsx", Fonts: fonts, Locale: locale})
	if err != nil {
		return nil, err
	}
	return pdfOutput(name+".pdf", pdf), nil
}
