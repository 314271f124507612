package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/convert/docx"
	"github.com/papierkram/papierkram/convert/xlsx"
	"github.com/papierkram/papierkram/fault"
)

var wordUpload = form{
	{Name: "document", Doc: "The .docx (also .docm with macros ignored, .doc, .odt, .rtf).", File: true, Required: true},
	{Name: "variables", Doc: `JSON object of template values: {"name": "text", "logo": {"image": "data:image/png;base64,...", "width": "40mm"}, "items": [{"name": "...", "price": "..."}], "vip": true}. Tags in the document: {{name}}, {{item.field}}, {#items}…{/items} (repeats table rows or paragraphs), {#flag}…{/flag}, {^flag}…{/flag}.`},
	{Name: "outputProfile", Doc: "PDF/A-3b for PDF/A-3b output (LibreOffice's own PDF/A export)."},
	{Name: "trackChanges", Doc: "visualize: print tracked changes as markup; absent or accept: accept all changes."},
	{Name: "hideComments", Doc: "true: leave comments out; default: comments become PDF annotations."},
	{Name: "locale", Doc: "BCP 47 locale for formats that follow the system (dates of fields, numbers) and the default paper; default the server's (de-DE). The document's own language settings win where it has them."},
	{Name: "updateIndexes", Doc: "true: rebuild tables of contents and other indexes; fields otherwise print what the document holds (a SAVEDATE stays the date it was saved)."},
}

var excelUpload = form{
	{Name: "document", Doc: "The .xlsx (also .xlsm with macros ignored, .ods).", File: true, Required: true},
	{Name: "locale", Doc: "BCP 47 locale for number and date formats that follow the system (e.g. #,##0.00 \"€\" as 1.032,00 €, &D as 24.11.2026) and the paper of sheets without one (A4; Letter for US and Canadian locales); default the server's (de-DE)."},
	{Name: "paperSize", Doc: "A3, A4, A5, Letter or Legal; default: the sheet's own, else the locale's."},
	{Name: "recalculate", Doc: "true: recompute every formula; default: Excel's stored results stay (also of functions LibreOffice lacks) and only formulas without one are computed."},
	{Name: "orientation", Doc: "portrait or landscape."},
	{Name: "fitToPage", Doc: "true: scale every sheet to the page width (no cut-off columns)."},
	{Name: "scaling", Doc: "Scale in percent, 10-400."},
	{Name: "printArea", Doc: "Cell range to print, A1:D20 (every chosen sheet) or Sheet1!A1:D20. Without it the workbook's own print areas apply."},
	{Name: "repeatRows", Doc: "Rows repeated on every page, 1:2."},
	{Name: "repeatColumns", Doc: "Columns repeated on every page, A:B."},
	{Name: "gridlines", Doc: "true: print gridlines."},
	{Name: "blackAndWhite", Doc: "true: print in black and white as Excel does: no cell fills, text and borders black (charts and pictures keep their colours)."},
	{Name: "margins", Doc: `JSON object {"top","bottom","left","right"} of lengths ("15mm", "1in").`},
	{Name: "headerFooter", Doc: `JSON object {"header","footer"} with spreadsheet codes &L &C &R &B &D &P &N &F &A, e.g. "&CPage &P of &N".`},
	{Name: "sheets", Doc: `JSON array of sheet names; default: the visible sheets.`},
	{Name: "pageBetweenSheets", Doc: "true (default): every sheet starts on a new page; false: a sheet continues on the page where the one before it ended (cells, formats, merges and row heights carry over; drawings and charts are left out in this mode)."},
	{Name: "outputProfile", Doc: "PDF/A-3b for PDF/A-3b output."},
}

// wordFields are word-to-pdf's options.
type wordFields struct {
	Locale        localeTag      `form:"locale"`
	UpdateIndexes bool           `form:"updateIndexes"`
	Variables     map[string]any `form:"variables,json"`
	TrackChanges  string         `form:"trackChanges"`
	HideComments  bool           `form:"hideComments"`
	PDFA          pdfaOutput     `form:"outputProfile"`
}

// excelFields are excel-to-pdf's print options.
type excelFields struct {
	Locale            localeTag                       `form:"locale"`
	PaperSize         string                          `form:"paperSize"`
	Recalculate       bool                            `form:"recalculate"`
	Orientation       string                          `form:"orientation"`
	FitToPage         bool                            `form:"fitToPage"`
	Scaling           int                             `form:"scaling"`
	PrintArea         string                          `form:"printArea"`
	RepeatRows        string                          `form:"repeatRows"`
	RepeatColumns     string                          `form:"repeatColumns"`
	Gridlines         bool                            `form:"gridlines"`
	BlackAndWhite     bool                            `form:"blackAndWhite"`
	Margins           *xlsx.Margins                   `form:"margins,json"`
	HeaderFooter      struct{ Header, Footer string } `form:"headerFooter,json"`
	Sheets            []string                        `form:"sheets,json"`
	PageBetweenSheets *bool                           `form:"pageBetweenSheets"`
	PDFA              pdfaOutput                      `form:"outputProfile"`
}

func (f *excelFields) options() xlsx.Options {
	return xlsx.Options{Orientation: f.Orientation, FitToPage: f.FitToPage, Scaling: f.Scaling, PrintArea: f.PrintArea,
		RepeatRows: f.RepeatRows, RepeatColumns: f.RepeatColumns, Gridlines: f.Gridlines, BlackAndWhite: f.BlackAndWhite,
		Margins: f.Margins, Header: f.HeaderFooter.Header, Footer: f.HeaderFooter.Footer, Sheets: f.Sheets, PageBetweenSheets: f.PageBetweenSheets, PaperSize: f.PaperSize}
}

func (s *Server) registerOffice() {
	up, conv := s.uploads(), conversion()
	register(s, huma.Operation{
		OperationID: "postConvertWordToPdf", Method: http.MethodPost, Path: "/v1/convert/word-to-pdf", Tags: []string{"Conversion"},
		Summary:     "Word to PDF",
		RequestBody: wordUpload.body(), Responses: binaryResponse(pdfResponse),
	}, func(ctx context.Context, _ *struct{}) (*fileOutput, error) {
		if s.cfg.Office == nil {
			return nil, fault.New(fault.EngineUnavailable, "office conversion (LibreOffice) is not configured on this server")
		}
		u, err := wordUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		var in wordFields
		if err := u.Bind(&in); err != nil {
			return nil, err
		}
		f := u.File("document")
		req := docx.Request{Document: f.Data, Filename: f.Filename, TrackChanges: in.TrackChanges, Variables: in.Variables, HideComments: in.HideComments, PDFA: bool(in.PDFA),
			Locale: s.locale(in.Locale), UpdateIndexes: in.UpdateIndexes}
		if req.Fonts, err = s.keyFonts(ctx); err != nil {
			return nil, err
		}
		pdf, err := docx.ToPDF(ctx, s.cfg.Office, req)
		if err != nil {
			return nil, err
		}
		return pdfOutput(stem(strings.TrimSuffix(strings.TrimSuffix(f.Filename, ".docx"), ".doc"))+".pdf", pdf), nil
	}, up, conv)

	register(s, huma.Operation{
		OperationID: "postConvertExcelToPdf", Method: http.MethodPost, Path: "/v1/convert/excel-to-pdf", Tags: []string{"Conversion"},
		Summary:     "Excel to PDF",
		RequestBody: excelUpload.body(), Responses: binaryResponse(pdfResponse),
	}, func(ctx context.Context, _ *struct{}) (*fileOutput, error) {
		if s.cfg.Office == nil {
			return nil, fault.New(fault.EngineUnavailable, "office conversion (LibreOffice) is not configured on this server")
		}
		u, err := excelUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		var in excelFields
		if err := u.Bind(&in); err != nil {
			return nil, err
		}
		f := u.File("document")
		req := xlsx.Request{Document: f.Data, Filename: f.Filename, Options: in.options(), PDFA: bool(in.PDFA), Locale: s.locale(in.Locale), Recalculate: in.Recalculate}
		if req.Fonts, err = s.keyFonts(ctx); err != nil {
			return nil, err
		}
		pdf, err := xlsx.ToPDF(ctx, s.cfg.Office, req)
		if err != nil {
			return nil, err
		}
		return pdfOutput(stem(strings.TrimSuffix(f.Filename, ".xlsx"))+".pdf", pdf), nil
	}, up, conv)
}

// locale is a request's locale, else the server's.
func (s *Server) locale(l localeTag) string {
	if l != "" {
		return string(l)
	}
	return s.cfg.Locale
}
