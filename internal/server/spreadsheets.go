package server

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/convert/tmpl"
	"github.com/papierkram/papierkram/convert/xlsx"
	"github.com/papierkram/papierkram/engine/office"
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
func oneRune(u *Upload, name string) (rune, error) {
	v := u.Fields[name]
	if v == "" {
		return 0, nil
	}
	if utf8.RuneCountInString(v) != 1 {
		return 0, fault.New(fault.InvalidInput, "%s must be one character, not %q", name, v).With("field", name)
	}
	r, _ := utf8.DecodeRuneInString(v)
	return r, nil
}

func (s *Server) registerSpreadsheets() {
	up := s.uploads()
	tag := []string{"Spreadsheets"}
	register(s, huma.Operation{
		OperationID: "postSpreadsheetsGenerate", Method: http.MethodPost, Path: "/api/spreadsheets/generate", Tags: tag,
		Summary:     "Generate an XLSX workbook",
		Description: "Builds a workbook from sheets of typed columns (text, number, currency, percent, date, boolean; Excel number formats), rows as arrays or objects, formulas (a string starting with =, or a column formula with {row}), a frozen header, an auto-filter and a totals row (SUBTOTAL). The file is marked for recalculation on opening, so Excel and LibreOffice show every formula's result.",
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
		Description: "Fills {{name}} cells with typed values (numbers stay numbers), repeats the rows from {#items} to {/items} per item with their styles and formulas (each copy's formulas point at its own row; a range below that ended at the template row grows over the copies, so a SUM adds every item), and answers the workbook, or with format=PDF its PDF through LibreOffice. Template mistakes (an unclosed section) are 400.",
		RequestBody: fillForm.body(), Responses: binaryResponse(map[string]*huma.MediaType{xlsxType: xlsxResponse[xlsxType], "application/pdf": pdfResponse["application/pdf"]}),
	}, func(ctx context.Context, _ *struct{}) (*fileOutput, error) {
		u, err := fillForm.read(ctx)
		if err != nil {
			return nil, err
		}
		var data map[string]any
		if err := jsonField(u, "data", &data); err != nil {
			return nil, err
		}
		format := strings.ToUpper(strings.TrimSpace(u.Fields["format"]))
		if format != "" && format != "XLSX" && format != "PDF" {
			return nil, fault.New(fault.InvalidInput, "format must be XLSX or PDF, not %q", u.Fields["format"]).With("field", "format")
		}
		f := u.File("file")
		switch name := u.Fields["template"]; {
		case name != "" && f != nil:
			return nil, fault.New(fault.InvalidInput, "send the template as file or name it in template, not both")
		case name != "":
			doc, err := s.storedTemplate(ctx, name, tmpl.KindXLSX)
			if err != nil {
				return nil, err
			}
			f = &File{Name: "file", Filename: name + ".xlsx", Data: doc}
		case f == nil:
			return nil, fault.New(fault.InvalidInput, "the template is missing: send file or name a stored one in template")
		}
		out, err := spreadsheet.Fill(f.Data, data)
		if err != nil {
			return nil, err
		}
		if format == "PDF" {
			if s.cfg.Office == nil {
				return nil, fault.New(fault.EngineUnavailable, "LibreOffice is not configured")
			}
			fonts, err := s.keyFonts(ctx)
			if err != nil {
				return nil, err
			}
			pdf, err := xlsx.ToPDF(ctx, s.cfg.Office, xlsx.Request{Document: out, Filename: "filled.xlsx", Fonts: fonts})
			if err != nil {
				return nil, err
			}
			return pdfOutput(stem(strings.TrimSuffix(f.Filename, ".xlsx"))+"-filled.pdf", pdf), nil
		}
		return xlsxOutput(stem(strings.TrimSuffix(f.Filename, ".xlsx"))+"-filled.xlsx", out), nil
	}, up, conversion())

	register(s, huma.Operation{
		OperationID: "postSpreadsheetsConvert", Method: http.MethodPost, Path: "/api/spreadsheets/convert", Tags: tag,
		Summary:     "Convert between XLSX, CSV, ODS and JSON",
		Description: "to=csv: one sheet as UTF-8 CSV (numbers as values with the chosen decimal separator, dates as shown, every record as wide as the sheet). to=json: one sheet as objects keyed by its first row. to=ods: the workbook as OpenDocument through LibreOffice. to=xlsx: CSV into a workbook, numbers typed, the first line a frozen bold header.",
		RequestBody: sheetConvertForm.body(),
		Responses: binaryResponse(map[string]*huma.MediaType{xlsxType: xlsxResponse[xlsxType], "text/csv": csvResponse["text/csv"],
			"application/json": {Schema: &huma.Schema{Type: "array", Items: &huma.Schema{Type: "object"}}}, "application/vnd.oasis.opendocument.spreadsheet": {Schema: &huma.Schema{Type: "string", Format: "binary"}}}),
	}, func(ctx context.Context, _ *struct{}) (*fileOutput, error) {
		u, err := sheetConvertForm.read(ctx)
		if err != nil {
			return nil, err
		}
		var o spreadsheet.CSVOptions
		o.Sheet = u.Fields["sheet"]
		if o.Delimiter, err = oneRune(u, "delimiter"); err != nil {
			return nil, err
		}
		if o.Decimal, err = oneRune(u, "decimalSeparator"); err != nil {
			return nil, err
		}
		f := u.File("file")
		name := stem(strings.TrimSuffix(strings.TrimSuffix(f.Filename, ".xlsx"), ".csv"))
		switch to := strings.ToLower(strings.TrimSpace(u.Fields["to"])); to {
		case "csv":
			out, err := spreadsheet.ToCSV(f.Data, o)
			if err != nil {
				return nil, err
			}
			return &fileOutput{ContentType: "text/csv; charset=utf-8", ContentDisposition: `attachment; filename="` + name + `.csv"`, Body: out}, nil
		case "json":
			rows, err := spreadsheet.ToJSON(f.Data, o.Sheet)
			if err != nil {
				return nil, err
			}
			b, err := json.Marshal(rows)
			if err != nil {
				return nil, err
			}
			return &fileOutput{ContentType: "application/json", Body: b}, nil
		case "xlsx":
			out, err := spreadsheet.FromCSV(f.Data, o)
			if err != nil {
				return nil, err
			}
			return xlsxOutput(name+".xlsx", out), nil
		case "ods":
			if _, err := xlsx.Kind(f.Data, f.Filename); err != nil {
				return nil, err
			}
			if s.cfg.Office == nil {
				return nil, fault.New(fault.EngineUnavailable, "LibreOffice is not configured")
			}
			out, err := s.cfg.Office.Convert(ctx, office.Job{Document: f.Data, Ext: "xlsx"}, "ods")
			if err != nil {
				return nil, err
			}
			return &fileOutput{ContentType: "application/vnd.oasis.opendocument.spreadsheet", ContentDisposition: `attachment; filename="` + name + `.ods"`, Body: out}, nil
		default:
			return nil, fault.New(fault.InvalidInput, "to must be csv, json, ods or xlsx, not %q", u.Fields["to"]).With("field", "to")
		}
	}, up, conversion())
}
