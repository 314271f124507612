package spreadsheet

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/papierkram/papierkram/fault"
)

// Unpacking limits for uploaded workbooks.
const (
	maxUnzipped  = 256 << 20
	maxSheetXML  = 128 << 20
	maxCSVFields = 2_000_000
)

// open reads a workbook with unpacking limits; anything that is not an XLSX is
// fault.InvalidInput.
func open(data []byte) (*excelize.File, error) {
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{UnzipSizeLimit: maxUnzipped, UnzipXMLSizeLimit: maxSheetXML})
	if err != nil {
		if strings.Contains(err.Error(), "size limit") {
			return nil, fault.New(fault.PayloadTooLarge, "the workbook unpacks to more than %d MB", maxUnzipped>>20)
		}
		return nil, fault.Wrap(fault.InvalidInput, err, "the file is not a readable XLSX workbook: %v", err)
	}
	return f, nil
}

// sheetName resolves a sheet choice: a name, a number from 1, or "" for the first.
func sheetName(f *excelize.File, choice string) (string, error) {
	list := f.GetSheetList()
	if len(list) == 0 {
		return "", fault.New(fault.InvalidInput, "the workbook has no sheets")
	}
	if choice == "" {
		return list[0], nil
	}
	for _, s := range list {
		if s == choice {
			return s, nil
		}
	}
	if n, err := strconv.Atoi(choice); err == nil && n >= 1 && n <= len(list) {
		return list[n-1], nil
	}
	return "", fault.New(fault.InvalidInput, "the workbook has no sheet %q; it has %s", choice, strings.Join(list, ", "))
}

// CSVOptions steer ToCSV and FromCSV.
type CSVOptions struct {
	Sheet     string // name or number from 1; default the first
	Delimiter rune   // default ','
	// Decimal is the decimal separator of numbers: '.' (default) or ','.
	Decimal rune
}

func (o *CSVOptions) defaults() error {
	if o.Delimiter == 0 {
		o.Delimiter = ','
	}
	if o.Decimal == 0 {
		o.Decimal = '.'
	}
	if o.Decimal != '.' && o.Decimal != ',' {
		return fault.New(fault.InvalidInput, "the decimal separator is . or ,")
	}
	if o.Delimiter == o.Decimal || o.Delimiter == '"' || o.Delimiter == '\r' || o.Delimiter == '\n' || !utf8.ValidRune(o.Delimiter) {
		return fault.New(fault.InvalidInput, "the delimiter %q cannot be used (it is the decimal separator, a quote or a line break)", o.Delimiter)
	}
	return nil
}

// ToCSV writes one sheet as CSV (RFC 4180, UTF-8): numbers as their values with the chosen
// decimal separator, not as displayed; dates as shown; formulas as their cached results.
func ToCSV(data []byte, o CSVOptions) ([]byte, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	f, err := open(data)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sheet, err := sheetName(f, o.Sheet)
	if err != nil {
		return nil, err
	}
	raw, shownRows, err := values(f, sheet)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Comma = o.Delimiter
	width := 0 // every record gets the sheet's width, as CSV readers expect
	for _, cols := range raw {
		width = max(width, len(cols))
	}
	for r, cols := range raw {
		for len(cols) < width {
			cols = append(cols, "")
		}
		var shown []string
		if r < len(shownRows) {
			shown = shownRows[r]
		}
		for i, v := range cols {
			cell, _ := excelize.CoordinatesToCellName(i+1, r+1)
			switch typ, _ := f.GetCellType(sheet, cell); {
			case typ == excelize.CellTypeBool && i < len(shown):
				cols[i] = shown[i]
			case typ == excelize.CellTypeNumber || (typ == excelize.CellTypeUnset || typ == excelize.CellTypeFormula) && isNumber(v):
				if isDateShown(shown, i, v) {
					cols[i] = shown[i] // a date keeps its display, not its serial number
				} else if o.Decimal == ',' {
					cols[i] = strings.Replace(v, ".", ",", 1)
				}
			}
		}
		if err := w.Write(cols); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

func isNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil && s != ""
}

// isDateShown tells whether a numeric cell displays as something other than a number (a
// date or time format).
func isDateShown(shown []string, i int, raw string) bool {
	if i >= len(shown) || shown[i] == raw {
		return false
	}
	s := shown[i]
	return strings.ContainsAny(s, "-/:.") && !isNumber(strings.NewReplacer(",", "", " ", "").Replace(s)) && strings.IndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0 && !strings.ContainsAny(s, "%€$£")
}

// FromCSV reads CSV into a one-sheet workbook: numbers (with the chosen decimal separator)
// become numeric cells, the rest text; the first row is bold and frozen as the header.
func FromCSV(data []byte, o CSVOptions) ([]byte, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if !utf8.Valid(data) {
		return nil, fault.New(fault.InvalidInput, "the CSV is not UTF-8")
	}
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	r.Comma = o.Delimiter
	r.FieldsPerRecord = -1
	r.LazyQuotes = false
	f := excelize.NewFile()
	defer f.Close()
	sheet := o.Sheet
	if sheet == "" {
		sheet = "Sheet1"
	}
	if sheet != "Sheet1" {
		if err := f.SetSheetName("Sheet1", sheet); err != nil {
			return nil, fault.Wrap(fault.InvalidInput, err, "sheet name %q: %v", sheet, err)
		}
	}
	sw, err := f.NewStreamWriter(sheet)
	if err != nil {
		return nil, err
	}
	bold, _ := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	// The first line is a header: frozen (the stream writer takes panes before rows).
	if err := sw.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return nil, err
	}
	fields, line := 0, 0
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fault.Wrap(fault.InvalidInput, err, "the CSV cannot be read: %v", err)
		}
		line++
		if fields += len(rec); fields > maxCSVFields {
			return nil, fault.New(fault.PayloadTooLarge, "the CSV has more than %d fields", maxCSVFields)
		}
		row := make([]any, len(rec))
		for i, v := range rec {
			if line > 1 {
				if n, ok := parseNumber(v, o.Decimal); ok {
					row[i] = n
					continue
				}
			}
			if line == 1 {
				row[i] = excelize.Cell{StyleID: bold, Value: v}
				continue
			}
			row[i] = v
		}
		cell, _ := excelize.CoordinatesToCellName(1, line)
		if err := sw.SetRow(cell, row); err != nil {
			return nil, fault.Wrap(fault.InvalidInput, err, "line %d: %v", line, err)
		}
	}
	if err := sw.Flush(); err != nil {
		return nil, err
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// parseNumber reads a plain decimal number written with the decimal separator (no
// thousands separators, which CSV exports disagree on).
func parseNumber(s string, decimal rune) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, "eExX_") || len(s) > 30 {
		return 0, false
	}
	other := "."
	if decimal == '.' {
		other = ","
	}
	if strings.Contains(s, other) {
		return 0, false
	}
	n, err := strconv.ParseFloat(strings.Replace(s, string(decimal), ".", 1), 64)
	if err != nil || (len(s) > 1 && s[0] == '0' && s[1] != '.' && s[1] != ',') {
		return 0, false // leading zeros: an id or a postcode, keep it text
	}
	return n, true
}

// ToJSON reads one sheet into objects keyed by its first row: numbers as numbers, booleans
// as booleans, everything else as the text shown; empty cells are left out.
func ToJSON(data []byte, sheetChoice string) ([]map[string]any, error) {
	f, err := open(data)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sheet, err := sheetName(f, sheetChoice)
	if err != nil {
		return nil, err
	}
	rows, shown, err := values(f, sheet)
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	if len(rows) == 0 {
		return out, nil
	}
	header := rows[0]
	width := 0
	for _, r := range rows {
		width = max(width, len(r))
	}
	for len(header) < width { // a column whose header is empty keeps its values
		header = append(header, "")
	}
	for i, h := range header {
		if strings.TrimSpace(h) == "" {
			header[i] = fmt.Sprintf("column%d", i+1)
		}
	}
	for r := 1; r < len(rows); r++ {
		obj := map[string]any{}
		for c, v := range rows[r] {
			if v == "" || c >= len(header) {
				continue
			}
			cell, _ := excelize.CoordinatesToCellName(c+1, r+1)
			typ, _ := f.GetCellType(sheet, cell)
			var disp []string
			if r < len(shown) {
				disp = shown[r]
			}
			switch {
			case typ == excelize.CellTypeBool:
				obj[header[c]] = v == "1" || strings.EqualFold(v, "true")
			case (typ == excelize.CellTypeNumber || typ == excelize.CellTypeUnset || typ == excelize.CellTypeFormula) && isNumber(v) && !isDateShown(disp, c, v):
				n, _ := strconv.ParseFloat(v, 64)
				obj[header[c]] = n
			default:
				if c < len(disp) && disp[c] != "" {
					v = disp[c]
				}
				obj[header[c]] = v
			}
		}
		if len(obj) > 0 {
			out = append(out, obj)
		}
	}
	return out, nil
}

// maxFormulaChecks bounds the empty cells looked at for a formula without a stored result.
const maxFormulaChecks = 1_000_000

// values reads a sheet's raw values and the values as shown; a formula without a stored
// result (a workbook written by a program, such as ours, that computes nothing) gets the
// result of excelize's calculation instead of staying empty.
func values(f *excelize.File, sheet string) (raw, shown [][]string, err error) {
	if raw, err = f.GetRows(sheet, excelize.Options{RawCellValue: true}); err != nil {
		return nil, nil, fault.Wrap(fault.InvalidInput, err, "sheet %q cannot be read", sheet)
	}
	shown, _ = f.GetRows(sheet)
	cols, rows := 0, len(raw)
	if dim, err := f.GetSheetDimension(sheet); err == nil {
		if _, to, ok := strings.Cut(dim, ":"); ok {
			if c, r, err := excelize.CellNameToCoordinates(to); err == nil {
				cols, rows = c, max(rows, r)
			}
		}
	}
	for _, r := range raw {
		cols = max(cols, len(r))
	}
	checks := 0
	for r := 0; r < rows && checks < maxFormulaChecks; r++ {
		for c := 0; c < cols && checks < maxFormulaChecks; c++ {
			if r < len(raw) && c < len(raw[r]) && raw[r][c] != "" {
				continue
			}
			checks++
			cell, _ := excelize.CoordinatesToCellName(c+1, r+1)
			if formula, _ := f.GetCellFormula(sheet, cell); formula == "" {
				continue
			}
			v, err := f.CalcCellValue(sheet, cell, excelize.Options{RawCellValue: true})
			if err != nil || v == "" {
				continue // a function excelize lacks: the cell stays empty, as stored
			}
			disp, err := f.CalcCellValue(sheet, cell)
			if err != nil {
				disp = v
			}
			raw, shown = putValue(raw, r, c, v), putValue(shown, r, c, disp)
		}
	}
	return raw, shown, nil
}

func putValue(rows [][]string, r, c int, v string) [][]string {
	for len(rows) <= r {
		rows = append(rows, nil)
	}
	for len(rows[r]) <= c {
		rows[r] = append(rows[r], "")
	}
	rows[r][c] = v
	return rows
}
