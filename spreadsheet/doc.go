// Package spreadsheet makes and changes workbooks: Generate builds an XLSX from a
// description of sheets, columns and rows (typed cells, number formats, formulas, frozen
// header, auto-filter, totals row); Fill fills an XLSX template written in the template
// language of package tmpl, repeating rows for lists; ToCSV, FromCSV and ToJSON convert
// between a sheet and CSV or JSON rows. Workbooks are read with limits: a compressed
// workbook cannot unpack into gigabytes.
package spreadsheet
