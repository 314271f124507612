package server

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/papierkram/papierkram/internal/testtool"
)

// TestSpreadsheets: generate, fill (XLSX and PDF) and convert through the API, read back by
// excelize, poppler and archive/zip; bad requests are 400.
func TestSpreadsheets(t *testing.T) {
	e := newTestEnv(t)
	spec := `{"sheets":[{"name":"Ausgaben","totalsRow":true,"columns":[{"header":"Artikel"},{"header":"Menge","type":"number"},{"header":"Preis","type":"currency"}],"rows":[["Papier",2,12.5],["Toner",1,37.5]]}]}`
	res := e.do("POST", "/api/spreadsheets/generate", testKey, []byte(spec), "Content-Type", "application/json")
	book := readAll(t, res)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != xlsxType {
		t.Fatalf("generate: %d %s", res.StatusCode, book)
	}
	f, err := excelize.OpenReader(bytes.NewReader(book))
	if err != nil {
		t.Fatal(err)
	}
	if formula, _ := f.GetCellFormula("Ausgaben", "C4"); formula != "SUBTOTAL(109,C2:C3)" {
		t.Errorf("totals formula %q", formula)
	}
	wantProblem(t, e.do("POST", "/api/spreadsheets/generate", testKey, []byte(`{"sheets":[{"name":"a","columns":[{"header":"x","type":"money"}]}]}`), "Content-Type", "application/json"), 400, "invalid_input")

	tpl := excelize.NewFile()
	tpl.SetCellStr("Sheet1", "A1", "{#items}{{name}}")
	tpl.SetCellStr("Sheet1", "B1", "{{price}}{/items}")
	tpl.SetCellFormula("Sheet1", "B2", "SUM(B1:B1)")
	buf, _ := tpl.WriteToBuffer()
	data := `{"items":[{"name":"Papier","price":25},{"name":"Toner","price":37.5}]}`
	pdf := pdfBody(t, e.uploadAs(testKey, "/api/spreadsheets/fill", [2]any{"@file", buf.Bytes()}, [2]any{"data", data}, [2]any{"format", "pdf"}))
	if text := testtool.Text(t, pdf); !strings.Contains(text, "Toner") || !strings.Contains(text, "62,5") { // the server prints in de-DE by default
		t.Errorf("filled PDF:\n%s", text)
	}
	filled := readAll(t, e.uploadAs(testKey, "/api/spreadsheets/fill", [2]any{"@file", buf.Bytes()}, [2]any{"data", data}))
	if g, err := excelize.OpenReader(bytes.NewReader(filled)); err != nil {
		t.Fatal(err)
	} else if formula, _ := g.GetCellFormula("Sheet1", "B3"); formula != "SUM(B1:B2)" {
		t.Errorf("filled total %q", formula)
	}
	wantProblem(t, e.uploadAs(testKey, "/api/spreadsheets/fill", [2]any{"@file", buf.Bytes()}, [2]any{"data", data}, [2]any{"format", "odt"}), 400, "invalid_input")

	csv := readAll(t, e.uploadAs(testKey, "/api/spreadsheets/convert", [2]any{"@file", book}, [2]any{"to", "csv"}, [2]any{"delimiter", ";"}, [2]any{"decimalSeparator", ","}))
	if !strings.HasPrefix(string(csv), "Artikel;Menge;Preis\nPapier;2;12,5\n") {
		t.Errorf("csv: %q", csv)
	}
	var rows []map[string]any
	if err := json.Unmarshal(readAll(t, e.uploadAs(testKey, "/api/spreadsheets/convert", [2]any{"@file", book}, [2]any{"to", "json"})), &rows); err != nil || len(rows) != 3 || rows[1]["Preis"] != 37.5 {
		t.Errorf("json: %v %v", rows, err)
	}
	back := readAll(t, e.uploadAs(testKey, "/api/spreadsheets/convert", [2]any{"@file", csv}, [2]any{"to", "xlsx"}, [2]any{"delimiter", ";"}, [2]any{"decimalSeparator", ","}))
	if g, err := excelize.OpenReader(bytes.NewReader(back)); err != nil {
		t.Fatal(err)
	} else if v, _ := g.GetCellValue("Sheet1", "C2", excelize.Options{RawCellValue: true}); v != "12.5" {
		t.Errorf("csv to xlsx C2 = %q", v)
	}
	ods := readAll(t, e.uploadAs(testKey, "/api/spreadsheets/convert", [2]any{"@file", book}, [2]any{"to", "ods"}))
	z, err := zip.NewReader(bytes.NewReader(ods), int64(len(ods)))
	if err != nil {
		t.Fatalf("ods is not a zip: %v", err)
	}
	for _, zf := range z.File {
		if zf.Name == "mimetype" {
			r, _ := zf.Open()
			b, _ := io.ReadAll(r)
			if string(b) != "application/vnd.oasis.opendocument.spreadsheet" {
				t.Errorf("ods mimetype %q", b)
			}
		}
	}
	for name, parts := range map[string][][2]any{
		"to":        {{"@file", book}, {"to", "pdf"}},
		"delimiter": {{"@file", book}, {"to", "csv"}, {"delimiter", ";;"}},
		"not xlsx":  {{"@file", []byte("a,b")}, {"to", "csv"}},
		"sheet":     {{"@file", book}, {"to", "csv"}, {"sheet", "Nope"}},
	} {
		if res := e.uploadAs(testKey, "/api/spreadsheets/convert", parts...); res.StatusCode != 400 {
			t.Errorf("%s: %d", name, res.StatusCode)
		}
	}
}
