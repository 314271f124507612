package spreadsheet

import (
	"fmt"
	"github.com/papierkram/papierkram/internal/lazyre"
	"strconv"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/papierkram/papierkram/fault"
)

// Column types.
const (
	Text     = "text"
	Number   = "number"
	Currency = "currency"
	Percent  = "percent"
	Date     = "date"
	Boolean  = "boolean"
)

// Limits of a generated workbook, far inside Excel's own.
const (
	maxSheets = 64
	maxRows   = 100_000 // per sheet
	maxCols   = 256
	maxCells  = 2_000_000
)

// Workbook describes a workbook to generate.
type Workbook struct {
	Sheets []Sheet `json:"sheets" doc:"The sheets, in order." minItems:"1"`
}

// Sheet is one worksheet: a header row from the columns, then the rows.
type Sheet struct {
	Name    string   `json:"name" doc:"Sheet name (at most 31 characters, none of : \\ / ? * [ ])." example:"Ausgaben"`
	Columns []Column `json:"columns" doc:"The columns, left to right; each gives the header cell and how values are typed."`
	// Rows are arrays of values in column order, or objects keyed by the columns' keys.
	// A string starting with "=" is a formula.
	Rows         []any  `json:"rows" doc:"Arrays of values in column order, or objects keyed by column key. A string starting with = is a formula (A1 references)."`
	FreezeHeader bool   `json:"freezeHeader,omitempty" doc:"Keep the header row visible when scrolling."`
	AutoFilter   bool   `json:"autoFilter,omitempty" doc:"Filter buttons on the header row."`
	TotalsRow    bool   `json:"totalsRow,omitempty" doc:"A last row summing every number, currency and percent column (SUBTOTAL, so filters apply)."`
	TotalsLabel  string `json:"totalsLabel,omitempty" doc:"Text of the totals row's first cell; default Total." example:"Summe"`
}

// Column is a column's header and type.
type Column struct {
	Header string  `json:"header" example:"Betrag"`
	Key    string  `json:"key,omitempty" doc:"Name of the value in object rows; default the header." example:"amount"`
	Type   string  `json:"type,omitempty" enum:"text,number,currency,percent,date,boolean" doc:"Default text."`
	Width  float64 `json:"width,omitempty" doc:"Width in characters; default fitted to the header, at least 10."`
	// NumberFormat is an Excel number format overriding the type's default.
	NumberFormat string `json:"numberFormat,omitempty" doc:"Excel number format, e.g. #,##0.00 or dd.mm.yyyy; defaults: currency #,##0.00 with its symbol, percent 0.00%, date yyyy-mm-dd." example:"#,##0.00"`
	Currency     string `json:"currency,omitempty" doc:"ISO 4217 code of a currency column; default EUR." example:"EUR"`
	// Formula is a formula for every row, {row} standing for the row's number.
	Formula string `json:"formula,omitempty" doc:"A formula for every row of this column; {row} is the row number, e.g. =B{row}*C{row}." example:"=B{row}*C{row}"`
}

var currencySymbols = map[string]string{"EUR": "€", "USD": "$", "GBP": "£", "CHF": "CHF", "JPY": "¥", "PLN": "zł", "SEK": "kr", "DKK": "kr", "CZK": "Kč"}

// format is the column's number format, "" for none.
func (c Column) format() string {
	if c.NumberFormat != "" {
		return c.NumberFormat
	}
	switch c.Type {
	case Number:
		return "#,##0.##"
	case Currency:
		code := strings.ToUpper(c.Currency)
		if code == "" {
			code = "EUR"
		}
		sym, ok := currencySymbols[code]
		if !ok {
			sym = code
		}
		return `#,##0.00 "` + sym + `"`
	case Percent:
		return "0.00%"
	case Date:
		return "yyyy-mm-dd"
	}
	return ""
}

// Generate builds the workbook. A description it cannot honour (an unknown type, a value
// of the wrong kind, a bad sheet name, too many rows) is fault.InvalidInput naming the
// sheet, row and column.
func Generate(w Workbook) ([]byte, error) {
	if len(w.Sheets) == 0 {
		return nil, fault.New(fault.InvalidInput, "a workbook needs at least one sheet")
	}
	if len(w.Sheets) > maxSheets {
		return nil, fault.New(fault.InvalidInput, "at most %d sheets", maxSheets)
	}
	cells := 0
	for _, s := range w.Sheets {
		cells += (len(s.Rows) + 2) * max(len(s.Columns), 1)
	}
	if cells > maxCells {
		return nil, fault.New(fault.PayloadTooLarge, "the workbook would have %d cells; at most %d", cells, maxCells)
	}
	f := excelize.NewFile()
	defer f.Close()
	bold, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i, s := range w.Sheets {
		name := strings.TrimSpace(s.Name)
		if name == "" {
			name = fmt.Sprintf("Sheet%d", i+1)
		}
		if seen[strings.ToLower(name)] {
			return nil, fault.New(fault.InvalidInput, "sheet name %q is used twice", name)
		}
		seen[strings.ToLower(name)] = true
		if i == 0 {
			err = f.SetSheetName("Sheet1", name)
		} else {
			_, err = f.NewSheet(name)
		}
		if err != nil {
			return nil, fault.Wrap(fault.InvalidInput, err, "sheet %q: %v", name, err)
		}
		if err := writeSheet(f, name, s, bold); err != nil {
			return nil, err
		}
	}
	// Excel and LibreOffice compute the formulas when the file is opened: we write none of
	// their results.
	full := true
	if err := f.SetCalcProps(&excelize.CalcPropsOptions{FullCalcOnLoad: &full}); err != nil {
		return nil, err
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeSheet(f *excelize.File, name string, s Sheet, bold int) error {
	if len(s.Columns) == 0 {
		return fault.New(fault.InvalidInput, "sheet %q has no columns", name)
	}
	if len(s.Columns) > maxCols {
		return fault.New(fault.InvalidInput, "sheet %q: at most %d columns", name, maxCols)
	}
	if len(s.Rows) > maxRows {
		return fault.New(fault.PayloadTooLarge, "sheet %q: at most %d rows", name, maxRows)
	}
	styles := make([]int, len(s.Columns))
	for j, c := range s.Columns {
		switch c.Type {
		case "", Text, Number, Currency, Percent, Date, Boolean:
		default:
			return fault.New(fault.InvalidInput, "sheet %q, column %q: unknown type %q; text, number, currency, percent, date or boolean", name, c.Header, c.Type)
		}
		col, _ := excelize.ColumnNumberToName(j + 1)
		if err := f.SetCellValue(name, col+"1", c.Header); err != nil {
			return err
		}
		width := c.Width
		if width <= 0 {
			width = max(10, float64(len([]rune(c.Header)))+2)
		}
		if err := f.SetColWidth(name, col, col, min(width, 255)); err != nil {
			return fault.Wrap(fault.InvalidInput, err, "sheet %q, column %q: %v", name, c.Header, err)
		}
		if nf := c.format(); nf != "" {
			st, err := f.NewStyle(&excelize.Style{CustomNumFmt: &nf})
			if err != nil {
				return fault.Wrap(fault.InvalidInput, err, "sheet %q, column %q: number format %q: %v", name, c.Header, nf, err)
			}
			styles[j] = st
		}
	}
	last, _ := excelize.ColumnNumberToName(len(s.Columns))
	if err := f.SetCellStyle(name, "A1", last+"1", bold); err != nil {
		return err
	}
	for i, raw := range s.Rows {
		r := i + 2
		values, err := rowValues(raw, s.Columns)
		if err != nil {
			return fault.Wrap(fault.InvalidInput, err, "sheet %q, row %d: %v", name, i+1, err)
		}
		for j, c := range s.Columns {
			cell, _ := excelize.CoordinatesToCellName(j+1, r)
			v := values[j]
			if c.Formula != "" && v == nil {
				v = strings.ReplaceAll(c.Formula, "{row}", fmt.Sprint(r))
			}
			if err := setCell(f, name, cell, c, v); err != nil {
				return fault.Wrap(fault.InvalidInput, err, "sheet %q, row %d, column %q: %v", name, i+1, c.Header, err)
			}
			if styles[j] != 0 {
				if err := f.SetCellStyle(name, cell, cell, styles[j]); err != nil {
					return err
				}
			}
		}
	}
	end := len(s.Rows) + 1
	if s.TotalsRow {
		r := end + 1
		label := s.TotalsLabel
		if label == "" {
			label = "Total"
		}
		for j, c := range s.Columns {
			cell, _ := excelize.CoordinatesToCellName(j+1, r)
			col, _ := excelize.ColumnNumberToName(j + 1)
			switch {
			case c.Type == Number || c.Type == Currency || c.Type == Percent:
				if err := f.SetCellFormula(name, cell, fmt.Sprintf("SUBTOTAL(109,%s2:%s%d)", col, col, max(end, 2))); err != nil {
					return err
				}
				st := styles[j]
				nf := c.format()
				if bs, err := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}, CustomNumFmt: &nf}); err == nil {
					st = bs
				}
				if err := f.SetCellStyle(name, cell, cell, st); err != nil {
					return err
				}
			case j == 0:
				f.SetCellValue(name, cell, label)
				f.SetCellStyle(name, cell, cell, bold)
			}
		}
	}
	if s.FreezeHeader {
		if err := f.SetPanes(name, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
			return err
		}
	}
	if s.AutoFilter {
		if err := f.AutoFilter(name, fmt.Sprintf("A1:%s%d", last, max(end, 1)), nil); err != nil {
			return err
		}
	}
	return nil
}

// rowValues puts a row (array or object) into column order.
func rowValues(raw any, cols []Column) ([]any, error) {
	out := make([]any, len(cols))
	switch row := raw.(type) {
	case []any:
		if len(row) > len(cols) {
			return nil, fmt.Errorf("%d values for %d columns", len(row), len(cols))
		}
		copy(out, row)
	case map[string]any:
		known := map[string]bool{}
		for j, c := range cols {
			key := c.Key
			if key == "" {
				key = c.Header
			}
			known[key] = true
			out[j] = row[key]
		}
		for k := range row {
			if !known[k] {
				return nil, fmt.Errorf("no column has the key %q", k)
			}
		}
	default:
		return nil, fmt.Errorf("a row is an array or an object")
	}
	return out, nil
}

// setCell writes one typed value.
func setCell(f *excelize.File, sheet, cell string, c Column, v any) error {
	if s, ok := v.(string); ok && strings.HasPrefix(s, "=") && len(s) > 1 {
		return f.SetCellFormula(sheet, cell, s[1:])
	}
	if v == nil {
		return nil
	}
	switch c.Type {
	case Number, Currency, Percent:
		switch x := v.(type) {
		case float64:
			return f.SetCellValue(sheet, cell, x)
		case string:
			// Amounts travel as decimal strings everywhere else in the API ("100.00"); a
			// workbook stores numbers, so the string's value goes in.
			if !decimalString.MatchString(x) {
				return fmt.Errorf("%q is not a number: a JSON number or a decimal string such as \"100.00\"", x)
			}
			n, err := strconv.ParseFloat(x, 64)
			if err != nil {
				return fmt.Errorf("%q is not a number", x)
			}
			return f.SetCellValue(sheet, cell, n)
		}
		return fmt.Errorf("a %s column takes numbers or decimal strings", c.Type)
	case Date:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("a date column takes YYYY-MM-DD strings")
		}
		t, err := parseDate(s)
		if err != nil {
			return err
		}
		return f.SetCellValue(sheet, cell, t)
	case Boolean:
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("a boolean column takes true or false")
		}
		return f.SetCellValue(sheet, cell, b)
	}
	switch x := v.(type) {
	case string:
		return f.SetCellStr(sheet, cell, x)
	case float64, bool:
		return f.SetCellValue(sheet, cell, x)
	}
	return fmt.Errorf("a text column takes strings, numbers or booleans")
}

// decimalString is the API's decimal amount: digits, an optional dot and decimals.
var decimalString = lazyre.New(`^-?[0-9]{1,15}(\.[0-9]{1,10})?$`)

func parseDate(s string) (time.Time, error) {
	for _, layout := range []string{time.DateOnly, time.RFC3339, "2006-01-02T15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date (YYYY-MM-DD)", s)
}
