package spreadsheet

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/office"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testtool"
)

func officePool(t *testing.T) *office.Office {
	t.Helper()
	o, err := office.New(engine.Config{Concurrency: 1, TempRoot: t.TempDir(), JobTimeout: 90 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close(context.Background()) })
	return o
}

func openT(t *testing.T, b []byte) *excelize.File {
	t.Helper()
	f, err := excelize.OpenReader(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func decodeJSON[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

const spec = `{"sheets":[{"name":"Ausgaben","freezeHeader":true,"autoFilter":true,"totalsRow":true,"totalsLabel":"Summe",
 "columns":[{"header":"Artikel"},{"header":"Menge","key":"qty","type":"number"},{"header":"Preis","key":"price","type":"currency","currency":"EUR"},
  {"header":"Betrag","type":"currency","formula":"=B{row}*C{row}"},{"header":"Datum","key":"date","type":"date","numberFormat":"dd.mm.yyyy"},{"header":"Bezahlt","key":"paid","type":"boolean"}],
 "rows":[["Papier",2,12.5,null,"2026-01-05",true],{"Artikel":"Toner","qty":1,"price":37.5,"date":"2026-02-01","paid":false}]},
 {"name":"Notizen","columns":[{"header":"Text"}],"rows":[["eins"],["zwei"]]}]}`

// TestGenerate: typed cells, formats, formulas, totals, frozen header and filter as excelize
// reads them back, and LibreOffice computes the formulas to the expected numbers.
func TestGenerate(t *testing.T) {
	out, err := Generate(decodeJSON[Workbook](t, spec))
	if err != nil {
		t.Fatal(err)
	}
	f := openT(t, out)
	if got := f.GetSheetList(); len(got) != 2 || got[0] != "Ausgaben" || got[1] != "Notizen" {
		t.Fatalf("sheets %v", got)
	}
	for cell, want := range map[string]string{"A1": "Artikel", "A2": "Papier", "B2": "2", "C3": "37.5", "A4": "Summe"} {
		if v, _ := f.GetCellValue("Ausgaben", cell, excelize.Options{RawCellValue: true}); v != want {
			t.Errorf("%s = %q, want %q", cell, v, want)
		}
	}
	if typ, _ := f.GetCellType("Ausgaben", "B2"); typ != excelize.CellTypeNumber && typ != excelize.CellTypeUnset {
		t.Errorf("B2 is not a number cell: %v", typ)
	}
	for cell, want := range map[string]string{"D2": "B2*C2", "D3": "B3*C3", "C4": "SUBTOTAL(109,C2:C3)", "D4": "SUBTOTAL(109,D2:D3)"} {
		if got, _ := f.GetCellFormula("Ausgaben", cell); got != want {
			t.Errorf("%s formula %q, want %q", cell, got, want)
		}
	}
	if v, _ := f.GetCellValue("Ausgaben", "E2"); v != "05.01.2026" {
		t.Errorf("date shows %q", v)
	}
	if v, _ := f.GetCellValue("Ausgaben", "F2"); v != "TRUE" {
		t.Errorf("boolean shows %q", v)
	}
	if panes, _ := f.GetPanes("Ausgaben"); !panes.Freeze || panes.YSplit != 1 {
		t.Errorf("panes %+v", panes)
	}
	if v, _ := f.GetCellValue("Ausgaben", "C2"); !strings.Contains(v, "€") {
		t.Errorf("currency shows %q", v)
	}

	pdf, err := officePool(t).ToPDF(context.Background(), office.Job{Document: out, Ext: "xlsx"})
	if err != nil {
		t.Fatal(err)
	}
	text := testtool.Text(t, pdf)
	for _, want := range []string{"62.50", "Summe", "Toner"} { // 2×12.50 + 1×37.50
		if !strings.Contains(strings.ReplaceAll(text, ",", "."), want) {
			t.Errorf("LibreOffice's PDF lacks %q:\n%s", want, text)
		}
	}
}

func TestGenerateRefuses(t *testing.T) {
	for name, s := range map[string]string{
		"no sheets":    `{"sheets":[]}`,
		"unknown type": `{"sheets":[{"name":"a","columns":[{"header":"x","type":"money"}],"rows":[]}]}`,
		"text number":  `{"sheets":[{"name":"a","columns":[{"header":"x","type":"number"}],"rows":[["zwölf"]]}]}`,
		"comma number": `{"sheets":[{"name":"a","columns":[{"header":"x","type":"currency"}],"rows":[["1.234,56"]]}]}`,
		"bad date":     `{"sheets":[{"name":"a","columns":[{"header":"x","type":"date"}],"rows":[["5.1.2026"]]}]}`,
		"too many":     `{"sheets":[{"name":"a","columns":[{"header":"x"}],"rows":[[1,2]]}]}`,
		"unknown key":  `{"sheets":[{"name":"a","columns":[{"header":"x"}],"rows":[{"y":1}]}]}`,
		"bad name":     `{"sheets":[{"name":"a/b","columns":[{"header":"x"}],"rows":[]}]}`,
		"twice":        `{"sheets":[{"name":"a","columns":[{"header":"x"}]},{"name":"A","columns":[{"header":"x"}]}]}`,
	} {
		_, err := Generate(decodeJSON[Workbook](t, s))
		if fault.CodeOf(err) != fault.InvalidInput {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestGenerateDecimalStrings: amounts as the API writes them elsewhere ("100.00") go into
// number and currency columns as numbers.
func TestGenerateDecimalStrings(t *testing.T) {
	book, err := Generate(decodeJSON[Workbook](t, `{"sheets":[{"name":"a","columns":[{"header":"Betrag","type":"currency"},{"header":"Menge","type":"number"}],"rows":[["100.00","12"],["-3.5",2]]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	f := openT(t, book)
	for cell, want := range map[string]string{"A2": "100", "B2": "12", "A3": "-3.5"} {
		v, _ := f.GetCellValue("a", cell, excelize.Options{RawCellValue: true})
		if typ, _ := f.GetCellType("a", cell); v != want || typ != excelize.CellTypeNumber && typ != excelize.CellTypeUnset {
			t.Errorf("%s = %q (%v), want the number %s", cell, v, typ, want)
		}
	}
}

// template is an invoice sheet: a title, one item row between {#items} and {/items} with a
// formula, and a total under it.
func template(t *testing.T) []byte {
	f := excelize.NewFile()
	s := "Sheet1"
	f.SetCellStr(s, "A1", "Rechnung {{number}}")
	f.SetCellStr(s, "B1", "{{total}}")
	f.SetCellStr(s, "A2", "{{customer.name}}")
	f.SetCellStr(s, "A4", "Artikel")
	f.SetCellStr(s, "A5", "{#items}{{name}}")
	f.SetCellStr(s, "B5", "{{qty}}")
	f.SetCellStr(s, "C5", "{{price}}")
	f.SetCellFormula(s, "D5", "B5*C5")
	f.SetCellStr(s, "E5", "{/items}")
	f.SetCellStr(s, "C6", "Summe")
	f.SetCellFormula(s, "D6", "SUM(D5:D5)")
	st, _ := f.NewStyle(&excelize.Style{Font: &excelize.Font{Italic: true}})
	f.SetCellStyle(s, "A5", "A5", st)
	buf, err := f.WriteToBuffer()
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestFill: values keep their types, the item row repeats with its style and formula, the
// total widens over the copies, and LibreOffice computes it.
func TestFill(t *testing.T) {
	data := decodeJSON[map[string]any](t, `{"number":"R-7","total":99.5,"customer":{"name":"Erika Mustermann"},"items":[{"name":"Papier","qty":2,"price":12.5},{"name":"Toner","qty":1,"price":37.5},{"name":"Stifte","qty":10,"price":1.2}]}`)
	out, err := Fill(template(t), data)
	if err != nil {
		t.Fatal(err)
	}
	f := openT(t, out)
	s := "Sheet1"
	for cell, want := range map[string]string{"A1": "Rechnung R-7", "B1": "99.5", "A2": "Erika Mustermann", "A5": "Papier", "A6": "Toner", "A7": "Stifte", "B7": "10", "C6": "37.5", "C8": "Summe", "E5": ""} {
		if v, _ := f.GetCellValue(s, cell, excelize.Options{RawCellValue: true}); v != want {
			t.Errorf("%s = %q, want %q", cell, v, want)
		}
	}
	if typ, _ := f.GetCellType(s, "B1"); typ == excelize.CellTypeSharedString || typ == excelize.CellTypeInlineString {
		t.Error("a number became text")
	}
	for cell, want := range map[string]string{"D5": "B5*C5", "D6": "B6*C6", "D7": "B7*C7", "D8": "SUM(D5:D7)"} {
		if got, _ := f.GetCellFormula(s, cell); got != want {
			t.Errorf("%s formula %q, want %q", cell, got, want)
		}
	}
	if a, b := styleOf(f, s, "A5"), styleOf(f, s, "A7"); a != b || a == 0 {
		t.Errorf("the row style did not carry down: %d vs %d", a, b)
	}
	pdf, err := officePool(t).ToPDF(context.Background(), office.Job{Document: out, Ext: "xlsx"})
	if err != nil {
		t.Fatal(err)
	}
	if text := testtool.Text(t, pdf); !strings.Contains(text, "74") || !strings.Contains(text, "Stifte") { // 25 + 37.5 + 12
		t.Errorf("LibreOffice's total:\n%s", text)
	}

	// An empty list removes the block.
	out, err = Fill(template(t), decodeJSON[map[string]any](t, `{"items":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := openT(t, out).GetCellValue(s, "C5"); v != "Summe" {
		t.Errorf("after an empty list C5 = %q", v)
	}
}

func styleOf(f *excelize.File, sheet, cell string) int { s, _ := f.GetCellStyle(sheet, cell); return s }

func TestFillRefuses(t *testing.T) {
	f := excelize.NewFile()
	f.SetCellStr("Sheet1", "A1", "{#items}{{x}}")
	buf, _ := f.WriteToBuffer()
	if _, err := Fill(buf.Bytes(), map[string]any{}); fault.CodeOf(err) != fault.InvalidInput || !strings.Contains(err.Error(), "has no {/items}") {
		t.Errorf("unclosed: %v", err)
	}
	if _, err := Fill([]byte("PK\x03\x04 not a zip"), nil); fault.CodeOf(err) != fault.InvalidInput {
		t.Errorf("not a workbook: %v", err)
	}
}

// TestCSV: a sheet goes to CSV with ; and decimal commas, comes back into a workbook with
// numbers as numbers, and gives the same CSV again; JSON rows are keyed by the header.
func TestCSV(t *testing.T) {
	book, err := Generate(decodeJSON[Workbook](t, spec))
	if err != nil {
		t.Fatal(err)
	}
	o := CSVOptions{Delimiter: ';', Decimal: ','}
	csv1, err := ToCSV(book, o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(csv1), "Papier;2;12,5;") || !strings.Contains(string(csv1), "05.01.2026") {
		t.Fatalf("csv:\n%s", csv1)
	}
	back, err := FromCSV(csv1, o)
	if err != nil {
		t.Fatal(err)
	}
	if typ, _ := openT(t, back).GetCellType("Sheet1", "C2"); typ == excelize.CellTypeSharedString || typ == excelize.CellTypeInlineString {
		t.Error("12,5 came back as text")
	}
	csv2, err := ToCSV(back, o)
	if err != nil {
		t.Fatal(err)
	}
	if string(csv1) != string(csv2) {
		t.Errorf("round trip differs:\n%s\n---\n%s", csv1, csv2)
	}
	notes, err := ToCSV(book, CSVOptions{Sheet: "2"})
	if err != nil || string(notes) != "Text\neins\nzwei\n" {
		t.Errorf("second sheet: %q %v", notes, err)
	}
	rows, err := ToJSON(book, "Ausgaben")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0]["Artikel"] != "Papier" || rows[0]["Menge"] != float64(2) || rows[1]["Preis"] != 37.5 || rows[0]["Bezahlt"] != true {
		t.Errorf("json: %v", rows)
	}
	for name, c := range map[string]struct {
		data string
		o    CSVOptions
	}{"quote": {"a\n\"b", CSVOptions{}}, "same separators": {"a", CSVOptions{Delimiter: ',', Decimal: ','}}, "latin1": {"\xe4", CSVOptions{}}} {
		if _, err := FromCSV([]byte(c.data), c.o); fault.CodeOf(err) != fault.InvalidInput {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ToCSV(book, CSVOptions{Sheet: "Nope"}); fault.CodeOf(err) != fault.InvalidInput {
		t.Errorf("unknown sheet: %v", err)
	}
}

func FuzzFill(f *testing.F) {
	f.Add(`{"number":"1","items":[{"name":"a","qty":1}]}`)
	f.Add(`{"items":{"name":"x"}}`)
	f.Add(`{"items":[1,2,3],"customer":null}`)
	f.Fuzz(func(t *testing.T, s string) {
		var data map[string]any
		if json.Unmarshal([]byte(s), &data) != nil {
			return
		}
		if _, err := Fill(template(t), data); err != nil && fault.As(err) == nil {
			t.Fatalf("uncoded error: %v", err)
		}
	})
}

func FuzzFromCSV(f *testing.F) {
	f.Add("a;b\n1,5;x\n", byte(';'))
	f.Add("\"q\"\"\",1\n", byte(','))
	f.Fuzz(func(t *testing.T, s string, delim byte) {
		out, err := FromCSV([]byte(s), CSVOptions{Delimiter: rune(delim)})
		if err != nil {
			if fault.As(err) == nil {
				t.Fatalf("uncoded error: %v", err)
			}
			return
		}
		if _, err := ToCSV(out, CSVOptions{Delimiter: rune(delim)}); err != nil {
			t.Fatalf("a workbook we wrote cannot be read back: %v", err)
		}
	})
}

// TestFormulasAndHeaderlessColumns: formulas without a stored result (as our own generated
// and filled workbooks have them) reach CSV and JSON computed, and a column without a header
// keeps its values in JSON.
func TestFormulasAndHeaderlessColumns(t *testing.T) {
	f := excelize.NewFile()
	f.SetSheetRow("Sheet1", "A1", &[]any{"Menge", "Preis"})
	f.SetSheetRow("Sheet1", "A2", &[]any{2, 12.5})
	f.SetSheetRow("Sheet1", "A3", &[]any{3, 4})
	f.SetCellFormula("Sheet1", "C2", "A2*B2")
	f.SetCellFormula("Sheet1", "C3", "A3*B3")
	f.SetCellFormula("Sheet1", "B4", "SUM(B2:B3)")
	f.SetCellValue("Sheet1", "D2", "ohne Kopf")
	buf, _ := f.WriteToBuffer()
	out, err := ToCSV(buf.Bytes(), CSVOptions{Delimiter: ';', Decimal: ','})
	if err != nil {
		t.Fatal(err)
	}
	want := "Menge;Preis;;\n2;12,5;25;ohne Kopf\n3;4;12;\n;16,5;;\n"
	if string(out) != want {
		t.Errorf("csv %q, want %q", out, want)
	}
	rows, err := ToJSON(buf.Bytes(), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0]["column3"] != 25.0 || rows[0]["column4"] != "ohne Kopf" || rows[2]["Preis"] != 16.5 {
		t.Errorf("json %v", rows)
	}
	// The generator's totals row (a formula) is no longer empty in CSV.
	book, err := Generate(decodeJSON[Workbook](t, spec))
	if err != nil {
		t.Fatal(err)
	}
	csv, err := ToCSV(book, CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "Summe") || !strings.ContainsAny(last, "0123456789") {
		t.Errorf("totals row without its sums: %q", last)
	}
}
