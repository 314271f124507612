package receipt

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/fault"
)

// Columns are the export's columns, in the spec's order.
var Columns = []string{"Date", "Time", "Type", "Issuer", "Reference", "Currency", "Net", "VAT", "Gross", "Payment Method", "SKR03 Account", "SKR04 Account", "Expense Category"}

// MaxExport bounds the receipts of one export.
const MaxExport = 10_000

func checkExport(rows []Data) error {
	switch {
	case len(rows) == 0:
		return fault.New(fault.InvalidInput, "no receipts to export: send a JSON array of ReceiptData")
	case len(rows) > MaxExport:
		return fault.New(fault.InvalidInput, "%d receipts; at most %d per export", len(rows), MaxExport)
	}
	return nil
}

// CSVOptions shape the CSV for the program that opens it: German Excel splits columns at
// a semicolon and reads 24,23 as a number.
type CSVOptions struct {
	Delimiter        rune // , (default) ; tab or |
	DecimalSeparator rune // . (default) or ,
}

// CSV writes the receipts as RFC 4180 CSV: a header row, CRLF line ends, UTF-8 without BOM,
// amounts with two decimals (24.23, or 24,23 with a decimal comma), dates YYYY-MM-DD. A text
// cell that a spreadsheet would run as a formula (= + - @ at the start) gets a leading
// apostrophe.
func CSV(rows []Data, o CSVOptions) ([]byte, error) {
	if err := checkExport(rows); err != nil {
		return nil, err
	}
	if o.Delimiter == 0 {
		o.Delimiter = ','
	}
	if !strings.ContainsRune(",;\t|", o.Delimiter) {
		return nil, fault.New(fault.InvalidInput, "delimiter %q: use , ; | or a tab", o.Delimiter)
	}
	if o.DecimalSeparator == 0 {
		o.DecimalSeparator = '.'
	}
	if o.DecimalSeparator != '.' && o.DecimalSeparator != ',' {
		return nil, fault.New(fault.InvalidInput, "decimalSeparator %q: use . or ,", o.DecimalSeparator)
	}
	amount := func(d einvoice.Decimal) string {
		return strings.Replace(fixed(d.String()), ".", string(o.DecimalSeparator), 1)
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Comma, w.UseCRLF = o.Delimiter, true
	_ = w.Write(Columns)
	for _, d := range rows {
		_ = w.Write([]string{string(d.Date), d.Time, d.Type, safe(d.Issuer), safe(d.Reference), d.Currency,
			amount(d.Net), amount(d.VAT), amount(d.Gross), d.PaymentMethod, d.SKR03Account, d.SKR04Account, safe(d.ExpenseCategory)})
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// safe defuses formula injection (OWASP CSV injection).
func safe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// fixed writes an amount with two decimals.
func fixed(s string) string {
	if s == "" {
		return ""
	}
	if i := strings.IndexByte(s, '.'); i < 0 {
		return s + ".00"
	} else if len(s)-i == 2 {
		return s + "0"
	}
	return s
}

// XLSX writes the receipts as a workbook: typed cells (dates as dates, amounts as numbers
// in a currency format), a bold frozen header with an auto-filter, and a summary row with
// the sums of Net, VAT and Gross.
func XLSX(rows []Data) ([]byte, error) {
	if err := checkExport(rows); err != nil {
		return nil, err
	}
	f := excelize.NewFile()
	defer f.Close()
	const sheet = "Belege"
	if err := f.SetSheetName("Sheet1", sheet); err != nil {
		return nil, err
	}
	bold, _ := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}, Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"E8EEF4"}}})
	dateStyle, _ := f.NewStyle(&excelize.Style{NumFmt: 14, CustomNumFmt: ptr("dd.mm.yyyy")})
	amount, _ := f.NewStyle(&excelize.Style{CustomNumFmt: ptr("#,##0.00")})
	sumStyle, _ := f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}, CustomNumFmt: ptr("#,##0.00"), Border: []excelize.Border{{Type: "top", Color: "000000", Style: 1}}})
	for i, c := range Columns {
		cell, _ := excelize.CoordinatesToCellName(i+1, 1)
		_ = f.SetCellValue(sheet, cell, c)
	}
	_ = f.SetCellStyle(sheet, "A1", "M1", bold)
	for i, d := range rows {
		r := i + 2
		set := func(col int, v any) {
			cell, _ := excelize.CoordinatesToCellName(col, r)
			_ = f.SetCellValue(sheet, cell, v)
		}
		if t, err := time.Parse(time.DateOnly, string(d.Date)); err == nil {
			set(1, t)
		}
		set(2, d.Time)
		set(3, d.Type)
		set(4, d.Issuer)
		set(5, d.Reference)
		set(6, d.Currency)
		for i, v := range []einvoice.Decimal{d.Net, d.VAT, d.Gross} {
			if v.Valid() {
				n, _ := v.Value().Float64()
				set(7+i, n)
			}
		}
		set(10, d.PaymentMethod)
		set(11, d.SKR03Account)
		set(12, d.SKR04Account)
		set(13, d.ExpenseCategory)
	}
	last := len(rows) + 1
	_ = f.SetCellStyle(sheet, "A2", fmt.Sprintf("A%d", last), dateStyle)
	_ = f.SetCellStyle(sheet, "G2", fmt.Sprintf("I%d", last), amount)
	sum := last + 1
	_ = f.SetCellValue(sheet, fmt.Sprintf("A%d", sum), "Summe")
	for _, col := range []string{"G", "H", "I"} {
		_ = f.SetCellFormula(sheet, fmt.Sprintf("%s%d", col, sum), fmt.Sprintf("SUBTOTAL(109,%s2:%s%d)", col, col, last))
	}
	_ = f.SetCellStyle(sheet, fmt.Sprintf("A%d", sum), fmt.Sprintf("M%d", sum), sumStyle)
	if err := f.AutoFilter(sheet, fmt.Sprintf("A1:M%d", last), nil); err != nil {
		return nil, fmt.Errorf("auto-filter: %w", err)
	}
	_ = f.SetPanes(sheet, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"})
	for col, w := range map[string]float64{"A": 12, "B": 7, "C": 15, "D": 28, "E": 16, "F": 9, "G": 12, "H": 12, "I": 12, "J": 16, "K": 9, "L": 9, "M": 30} {
		_ = f.SetColWidth(sheet, col, col, w)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func ptr[T any](v T) *T { return &v }
