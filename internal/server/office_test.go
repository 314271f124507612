package server

import (
	"archive/zip"
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/papierkram/papierkram/internal/testoffice"
	"github.com/papierkram/papierkram/internal/testtool"
)

// postParts sends a multipart request: a document part with a file name, then fields.
func (e *testEnv) postParts(path, filename string, doc []byte, fields ...string) *http.Response {
	e.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	w, _ := mw.CreateFormFile("document", filename)
	w.Write(doc)
	for i := 0; i+1 < len(fields); i += 2 {
		mw.WriteField(fields[i], fields[i+1])
	}
	mw.Close()
	return e.do("POST", path, testKey, &buf, "Content-Type", mw.FormDataContentType())
}

func TestWordToPDF(t *testing.T) {
	e := newTestEnv(t)
	doc := testoffice.Docx(testoffice.Paragraphs("Angebot für {{kunde}}", "{#posten}", "Posten: {{name}}", "{/posten}", "{^rabatt}Kein Rabatt{/rabatt}"), nil, nil)
	res := e.postParts("/v1/convert/word-to-pdf", "angebot.docx", doc,
		"variables", `{"kunde":"Stadtwerke","posten":[{"name":"Beratung"},{"name":"Schulung"}],"rabatt":false}`, "outputProfile", "PDF/A-3b")
	pdf := pdfBody(t, res)
	if cd := res.Header.Get("Content-Disposition"); !strings.Contains(cd, "angebot.pdf") {
		t.Errorf("Content-Disposition %q", cd)
	}
	text := testtool.Text(t, pdf)
	for _, want := range []string{"Angebot für Stadtwerke", "Posten: Beratung", "Posten: Schulung", "Kein Rabatt"} {
		if !strings.Contains(text, want) {
			t.Errorf("PDF lacks %q:\n%s", want, text)
		}
	}
	if xmp := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "a.pdf", pdf)); !strings.Contains(xmp, "<pdfaid:part>3</pdfaid:part>") {
		t.Error("outputProfile PDF/A-3b not applied")
	}

	// Input errors are 4xx problems, and the pool keeps working.
	p := wantProblem(t, e.postParts("/v1/convert/word-to-pdf", "x.docx", []byte("not a document")), 400, "invalid_input")
	if !strings.Contains(p["detail"].(string), "not a Word file") {
		t.Errorf("detail %v", p["detail"])
	}
	wantProblem(t, e.postParts("/v1/convert/word-to-pdf", "x.docx", doc, "variables", `{"kunde":`), 400, "invalid_input")
	wantProblem(t, e.postParts("/v1/convert/word-to-pdf", "x.docx", doc, "trackChanges", "delete"), 400, "invalid_input")
	wantProblem(t, e.postParts("/v1/convert/word-to-pdf", "x.docx", doc, "outputProfile", "PDF/X"), 400, "invalid_input")
	wantProblem(t, e.postParts("/v1/convert/word-to-pdf", "x.rtf", []byte(`{\rtf1 broken`), "variables", `{"a":"b"}`), 400, "invalid_input")
	pdfBody(t, e.postParts("/v1/convert/word-to-pdf", "plain.docx", testoffice.Simple("danach")))
}

func TestExcelToPDF(t *testing.T) {
	e := newTestEnv(t)
	f := excelize.NewFile()
	f.SetSheetName("Sheet1", "Daten")
	for i := 1; i <= 5; i++ {
		f.SetSheetRow("Daten", fmt.Sprintf("A%d", i), &[]any{fmt.Sprintf("Zeile %d", i), i * 10})
	}
	f.NewSheet("Anhang")
	f.SetCellValue("Anhang", "A1", "Nicht drucken")
	buf, _ := f.WriteToBuffer()
	res := e.postParts("/v1/convert/excel-to-pdf", "tabelle.xlsx", buf.Bytes(),
		"orientation", "landscape", "sheets", `["Daten"]`, "headerFooter", `{"footer":"&CBlatt &A Seite &P"}`,
		"margins", `{"top":"25mm","left":"20mm"}`, "gridlines", "true", "fitToPage", "true")
	pdf := pdfBody(t, res)
	text := testtool.Text(t, pdf)
	if !strings.Contains(text, "Zeile 5") || !strings.Contains(text, "Blatt Daten Seite 1") || strings.Contains(text, "Nicht drucken") {
		t.Errorf("options not applied:\n%s", text)
	}
	info := testtool.Info(t, pdf)
	var w, h float64
	fmt.Sscanf(info["Page size"], "%f x %f", &w, &h)
	if w <= h {
		t.Errorf("page size %q is not landscape", info["Page size"])
	}
	p := wantProblem(t, e.postParts("/v1/convert/excel-to-pdf", "t.xlsx", buf.Bytes(), "sheets", `["Fehlt"]`), 400, "invalid_input")
	if !strings.Contains(p["detail"].(string), `"Fehlt"`) {
		t.Errorf("detail %v", p["detail"])
	}
	wantProblem(t, e.postParts("/v1/convert/excel-to-pdf", "t.xlsx", buf.Bytes(), "gridlines", "ja"), 400, "invalid_input")
	wantProblem(t, e.postParts("/v1/convert/excel-to-pdf", "t.xlsx", buf.Bytes(), "pageBetweenSheets", "nein"), 400, "invalid_input")
	wantProblem(t, e.postParts("/v1/convert/excel-to-pdf", "t.xlsx", []byte("PK\x03\x04garbage"), "orientation", "portrait"), 400, "invalid_input")
	// A damaged package is refused before LibreOffice, with options or without: 400.
	p = wantProblem(t, e.postParts("/v1/convert/excel-to-pdf", "t.xlsx", append([]byte("PK\x03\x04"), make([]byte, 300)...)), 400, "invalid_input")
	if !strings.Contains(p["detail"].(string), "damaged") {
		t.Errorf("detail %v", p["detail"])
	}
	// A sound zip that is no workbook reaches LibreOffice, which cannot open it: 422.
	var notBook bytes.Buffer
	zw := zip.NewWriter(&notBook)
	part, _ := zw.Create("xl/workbook.xml")
	part.Write([]byte("<nonsense/>"))
	zw.Close()
	wantProblem(t, e.postParts("/v1/convert/excel-to-pdf", "t.xlsx", notBook.Bytes()), 422, "unprocessable")
}

// TestOfficeLocaleAndPaper: excel-to-pdf prints in the server's locale (de-DE) on A4 by
// default, in the request's locale on its paper, on paperSize when given, with the upload's
// name for &F; a bad locale is 400.
func TestOfficeLocaleAndPaper(t *testing.T) {
	e := newTestEnv(t)
	f := excelize.NewFile()
	f.SetColWidth("Sheet1", "A", "A", 30)
	f.SetCellValue("Sheet1", "A1", 1032)
	euro := `#,##0.00 "€"`
	st, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &euro})
	f.SetCellStyle("Sheet1", "A1", "A1", st)
	f.SetHeaderFooter("Sheet1", &excelize.HeaderFooterOptions{OddHeader: "&L&F"})
	buf, _ := f.WriteToBuffer()
	book := buf.Bytes()
	for _, c := range []struct {
		fields        []string
		amount, paper string
	}{
		{nil, "1.032,00 €", "595 x 842"},
		{[]string{"locale", "en-US", "fitToPage", "true"}, "1,032.00 €", "612 x 792"},
		{[]string{"paperSize", "A5"}, "1.032,00 €", "420 x 595"},
	} {
		pdf := pdfBody(t, e.postParts("/v1/convert/excel-to-pdf", "Quartal 3.xlsx", book, c.fields...))
		text := testtool.Text(t, pdf)
		if !strings.Contains(text, c.amount) || !strings.Contains(text, "Quartal 3.xlsx") {
			t.Errorf("%v: %q", c.fields, text)
		}
		if size := testtool.Info(t, pdf)["Page size"]; roundSize(size) != c.paper {
			t.Errorf("%v: page size %q, want %s", c.fields, size, c.paper)
		}
	}
	p := wantProblem(t, e.postParts("/v1/convert/excel-to-pdf", "x.xlsx", book, "locale", "de_DE!!"), 400, "invalid_input")
	if p["field"] != "locale" {
		t.Errorf("problem %v", p)
	}
	wantProblem(t, e.postParts("/v1/convert/word-to-pdf", "x.docx", testoffice.Simple("x"), "locale", "not a locale at all"), 400, "invalid_input")
	wantProblem(t, e.postParts("/v1/convert/excel-to-pdf", "x.xlsx", book, "paperSize", "B5"), 400, "invalid_input")
}

// roundSize turns pdfinfo's "595.276 x 841.89 pts (A4)" into "595 x 842".
func roundSize(s string) string {
	var w, h float64
	fmt.Sscanf(s, "%f x %f", &w, &h)
	return fmt.Sprintf("%.0f x %.0f", w, h)
}
