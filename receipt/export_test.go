package receipt

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"slices"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/papierkram/papierkram/fault"
)

func exportRows(t *testing.T) []Data {
	var rows []Data
	err := json.Unmarshal([]byte(`[
		{"date":"2020-03-02","time":"09:48","type":"CASH_RECEIPT","issuer":"ALDI","reference":"8746","currency":"EUR","net":"22.32","vat":"1.91","gross":"24.23","paymentMethod":"CASH","skr03Account":"4980","skr04Account":"6850","expenseCategory":"Sonstiger Betriebsbedarf"},
		{"date":"2026-03-14","type":"RESTAURANT","issuer":"=HYPERLINK(\"x\")","currency":"EUR","gross":31.9,"net":"27.51","vat":"4.39"}
	]`), &rows)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestCSV reads the export back with encoding/csv.
func TestCSV(t *testing.T) {
	b, err := CSV(exportRows(t), CSVOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte("\r\n")) {
		t.Error("no CRLF")
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 3 || !slices.Equal(recs[0], Columns) {
		t.Fatalf("%q", recs)
	}
	if want := []string{"2020-03-02", "09:48", "CASH_RECEIPT", "ALDI", "8746", "EUR", "22.32", "1.91", "24.23", "CASH", "4980", "6850", "Sonstiger Betriebsbedarf"}; !slices.Equal(recs[1], want) {
		t.Errorf("row 1 %q", recs[1])
	}
	if recs[2][3] != `'=HYPERLINK("x")` || recs[2][8] != "31.90" {
		t.Errorf("row 2 %q", recs[2])
	}
	if _, err := CSV(nil, CSVOptions{}); fault.CodeOf(err) != fault.InvalidInput {
		t.Errorf("empty: %v", err)
	}

	// German Excel: semicolons and a decimal comma.
	b, err = CSV(exportRows(t), CSVOptions{Delimiter: ';', DecimalSeparator: ','})
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.Comma = ';'
	recs, err = r.ReadAll()
	if err != nil || len(recs) != 3 || recs[1][6] != "22,32" || recs[1][8] != "24,23" || recs[2][8] != "31,90" || recs[1][3] != "ALDI" {
		t.Errorf("German CSV %v %q", err, recs)
	}
	for _, o := range []CSVOptions{{Delimiter: 'x'}, {DecimalSeparator: ';'}} {
		if _, err := CSV(exportRows(t), o); fault.CodeOf(err) != fault.InvalidInput {
			t.Errorf("%+v: %v", o, err)
		}
	}
}

// TestXLSX reads the workbook back with excelize: typed cells, filter, frozen header, sums.
func TestXLSX(t *testing.T) {
	b, err := XLSX(exportRows(t))
	if err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	sheet := f.GetSheetName(0)
	rows, _ := f.GetRows(sheet)
	if len(rows) != 4 || !slices.Equal(rows[0], Columns) || rows[1][0] != "02.03.2020" || rows[1][8] != "24.23" || rows[3][0] != "Summe" {
		t.Errorf("rows %q", rows)
	}
	if typ, _ := f.GetCellType(sheet, "I2"); typ != excelize.CellTypeNumber && typ != excelize.CellTypeUnset {
		t.Errorf("I2 type %v", typ)
	}
	for cell, want := range map[string]string{"G4": "49.83", "H4": "6.30", "I4": "56.13"} {
		if v, err := f.CalcCellValue(sheet, cell); err != nil || v != want {
			t.Errorf("%s = %q (%v), want %s", cell, v, err, want)
		}
	}
	filter := false
	for _, n := range f.GetDefinedName() {
		filter = filter || n.Name == "_xlnm._FilterDatabase" && n.RefersTo == "'Belege'!$A$1:$M$3"
	}
	if !filter {
		t.Errorf("no auto-filter over A1:M3: %+v", f.GetDefinedName())
	}
	if p, err := f.GetPanes(sheet); err != nil || !p.Freeze || p.YSplit != 1 {
		t.Errorf("panes %+v", p)
	}
}
