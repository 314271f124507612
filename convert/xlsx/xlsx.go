// Package xlsx converts workbooks to PDF: the print options of the request are written into
// the workbook (page setup, print areas and titles as defined names, gridlines in the sheet
// XML) with excelize, then the office pool renders it, formulas recalculated.
package xlsx

import (
	"archive/zip"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/papierkram/papierkram/internal/lazyre"
	"path"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/papierkram/papierkram/convert"
	"github.com/papierkram/papierkram/engine/office"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf/conform"
)

// Options are the spec's spreadsheet print options; zero values leave the workbook's own.
type Options struct {
	Orientation       string // portrait or landscape
	FitToPage         bool   // scale to the page width (no cut-off columns)
	Scaling           int    // percent, 10-400
	PrintArea         string // A1:D20, or Sheet!A1:D20 for one sheet
	RepeatRows        string // 1:2
	RepeatColumns     string // A:B
	Gridlines         bool
	BlackAndWhite     bool
	Margins           *Margins
	Header, Footer    string   // spreadsheet header/footer codes (&L &C &R &B &D &P &N &F &A)
	Sheets            []string // default: the visible sheets
	PageBetweenSheets *bool    // default true
	PaperSize         string   // A3, A4, A5, Letter or Legal; default: the sheet's, else the locale's

	locale string // the request's, for the default paper
}

// Margins are lengths as in HTML conversion ("10mm", "1in").
type Margins struct {
	Top, Bottom, Left, Right string
}

// Request is a spreadsheet to PDF conversion.
type Request struct {
	Document []byte
	Filename string
	Options  Options
	PDFA     bool
	// Locale (BCP 47) decides number and date formats that follow the system and the paper of
	// sheets that name none (Letter in the US and Canada, else A4); empty: de-DE.
	Locale string
	// Recalculate recomputes every formula; by default Excel's stored results stay.
	Recalculate bool
	// Fonts are the caller's uploaded fonts; those the workbook names are embedded (through
	// an OpenDocument copy, as .xlsx cannot carry fonts), so that LibreOffice draws with them.
	Fonts []convert.FontFace
}

// Kind names a workbook by its bytes and name: xlsx, xlsm or ods.
func Kind(data []byte, filename string) (string, error) {
	ext := strings.ToLower(strings.TrimPrefix(path.Ext(filename), "."))
	switch {
	case bytes.HasPrefix(data, []byte("PK\x03\x04")):
		if bytes.Contains(data[:min(len(data), 200)], []byte("mimetypeapplication/vnd.oasis.opendocument.spreadsheet")) {
			return "ods", nil
		}
		if ext == "xlsm" {
			return "xlsm", nil
		}
		return "xlsx", nil
	case bytes.HasPrefix(data, []byte{0xD0, 0xCF, 0x11, 0xE0}):
		if bytes.Contains(data, []byte("E\x00n\x00c\x00r\x00y\x00p\x00t\x00i\x00o\x00n\x00I\x00n\x00f\x00o")) {
			return "", fault.New(fault.InvalidInput, "the workbook is password-protected; remove the password and upload it again")
		}
		return "xls", nil
	}
	return "", fault.New(fault.InvalidInput, "the document is not a workbook (.xlsx, .xlsm, .ods)")
}

// Limits against zip bombs: an unpacked workbook may not exceed these.
const (
	maxUnzip    = 512 << 20
	maxUnzipXML = 128 << 20
)

var (
	cellRange = lazyre.New(`^\$?[A-Za-z]{1,3}\$?[0-9]{1,7}(:\$?[A-Za-z]{1,3}\$?[0-9]{1,7})?$`)
	rowRange  = lazyre.New(`^\$?([0-9]{1,7}):\$?([0-9]{1,7})$`)
	colRange  = lazyre.New(`^\$?([A-Za-z]{1,3}):\$?([A-Za-z]{1,3})$`)
)

// ToPDF applies the options and converts.
func ToPDF(ctx context.Context, o convert.Office, r Request) ([]byte, error) {
	kind, err := Kind(r.Document, r.Filename)
	if err != nil {
		return nil, err
	}
	doc := r.Document
	switch {
	case r.Options.isZero():
		// LibreOffice reads the workbook as it is (a damaged one is its 422).
	case kind == "xlsx" || kind == "xlsm":
		opt := r.Options
		opt.locale = cmp.Or(r.Locale, office.DefaultLocale)
		if doc, err = Apply(doc, opt); err != nil {
			return nil, err
		}
	default:
		return nil, fault.New(fault.InvalidInput, "print options need an .xlsx or .xlsm workbook; this is a .%s file", kind)
	}
	join := r.Options.PageBetweenSheets != nil && !*r.Options.PageBetweenSheets
	faces, err := usedFaces(doc, r.Fonts)
	if err != nil {
		return nil, err
	}
	if len(faces) > 0 {
		// An .xlsx cannot carry fonts, an .ods can: LibreOffice writes the workbook as .ods
		// (print settings included), the fonts go in, and the .ods is printed.
		if kind != "ods" {
			if doc, err = o.Convert(ctx, office.Job{Document: doc, Ext: kind}, "ods"); err != nil {
				return nil, err
			}
			kind = "ods"
		}
		if doc, err = embedODS(doc, faces); err != nil {
			return nil, err
		}
	}
	name := strings.TrimSuffix(path.Base(r.Filename), path.Ext(r.Filename))
	out, err := o.Convert(ctx, office.Job{Document: doc, Ext: kind, Name: name, Locale: r.Locale, Recalculate: r.Recalculate, PDFA: r.PDFA, JoinSheets: join}, "pdf")
	if err == nil && r.PDFA {
		// LibreOffice's PDF/A export is trusted no more than Ghostscript's.
		err = conform.Require(ctx, out, conform.PDFA3B, "LibreOffice's PDF/A export")
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// paperSizes are OOXML's paperSize codes of the sizes a caller may name.
var paperSizes = map[string]int{"letter": 1, "legal": 5, "a3": 8, "a4": 9, "a5": 11}

// localPaper is the paper of a locale that a sheet without a paper size prints on (OOXML's
// absent paperSize means Letter, which in Europe is nobody's default).
func localPaper(locale string) int {
	switch region := strings.ToUpper(locale[strings.LastIndexAny(locale, "-_")+1:]); region {
	case "US", "CA", "MX", "PH", "CL", "CO", "VE":
		return paperSizes["letter"]
	}
	return paperSizes["a4"]
}

func (o Options) isZero() bool {
	return o.PaperSize == "" && o.Orientation == "" && !o.FitToPage && o.Scaling == 0 && o.PrintArea == "" && o.RepeatRows == "" && o.RepeatColumns == "" &&
		!o.Gridlines && !o.BlackAndWhite && o.Margins == nil && o.Header == "" && o.Footer == "" && len(o.Sheets) == 0
}

// maxSheetXML bounds a worksheet that print options are written into: excelize parses the
// whole sheet, which for a million-row sheet costs gigabytes and minutes outside any engine
// time limit. Without options such a workbook goes to LibreOffice untouched.
const maxSheetXML = 32 << 20

// Apply writes the options into an .xlsx/.xlsm workbook.
func Apply(data []byte, opt Options) ([]byte, error) {
	if z, err := zip.NewReader(bytes.NewReader(data), int64(len(data))); err == nil {
		for _, fl := range z.File {
			if strings.HasPrefix(fl.Name, "xl/worksheets/") && fl.UncompressedSize64 > maxSheetXML {
				return nil, fault.New(fault.InvalidInput, "the workbook is too large for print options (%s unpacks to %d MB, at most %d MB); convert it without options or split it",
					fl.Name, fl.UncompressedSize64>>20, maxSheetXML>>20)
			}
		}
	}
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{UnzipSizeLimit: maxUnzip, UnzipXMLSizeLimit: maxUnzipXML})
	if err != nil {
		if errors.Is(err, excelize.ErrWorkbookFileFormat) || strings.Contains(err.Error(), "zip") {
			return nil, fault.Wrap(fault.InvalidInput, err, "the workbook cannot be read: it is damaged or not an .xlsx file")
		}
		if strings.Contains(err.Error(), "size") {
			return nil, fault.Wrap(fault.InvalidInput, err, "the workbook unpacks to more than %d MB", maxUnzip>>20)
		}
		return nil, fault.Wrap(fault.InvalidInput, err, "the workbook cannot be read: %v", err)
	}
	defer f.Close()
	all := f.GetSheetList()
	sheets, err := selectSheets(f, all, opt.Sheets)
	if err != nil {
		return nil, err
	}
	chosen := map[string]bool{}
	for _, s := range sheets {
		chosen[s] = true
	}
	// Unchosen sheets are hidden: LibreOffice prints only visible ones. The active sheet
	// must stay visible, so it moves to the first chosen one first.
	if idx, err := f.GetSheetIndex(sheets[0]); err == nil {
		f.SetActiveSheet(idx)
	}
	for _, s := range all {
		if !chosen[s] {
			if err := f.SetSheetVisible(s, false); err != nil {
				return nil, fault.Wrap(fault.InvalidInput, err, "sheet %q: %v", s, err)
			}
			// LibreOffice prints a hidden sheet that has a print area of its own.
			for _, n := range []string{"_xlnm.Print_Area", "_xlnm.Print_Titles"} {
				f.DeleteDefinedName(&excelize.DefinedName{Name: n, Scope: s})
			}
		}
	}
	for _, s := range sheets {
		if err := apply(f, s, opt); err != nil {
			return nil, err
		}
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		return nil, fmt.Errorf("xlsx: write: %w", err)
	}
	out := buf.Bytes()
	if opt.Gridlines {
		if out, err = gridlines(out, sheets); err != nil {
			return nil, err
		}
	}
	if opt.BlackAndWhite {
		return blackAndWhite(out)
	}
	return out, nil
}

var (
	stylesSection = lazyre.New(`(?s)<(fills|fonts|borders|dxfs)\b[^>]*>.*?</(?:fills|fonts|borders|dxfs)>`)
	fillEl        = lazyre.New(`(?s)<fill>.*?</fill>`)
	colorEl       = lazyre.New(`<color\b[^>]*/>|(?s)<color\b[^>]*>.*?</color>`)
)

// blackAndWhite prints the workbook as Excel's "black and white" does, which LibreOffice
// ignores: no cell fills, text and borders in the automatic colour (black). The workbook's
// styles change, not its cells; charts and pictures keep their colours.
func blackAndWhite(data []byte) ([]byte, error) {
	parts, order, err := unpack(data)
	if err != nil {
		return nil, err
	}
	st, ok := parts["xl/styles.xml"]
	if !ok {
		return data, nil
	}
	parts["xl/styles.xml"] = stylesSection.ReplaceAllFunc(st, func(sec []byte) []byte {
		if bytes.HasPrefix(sec, []byte("<fills")) || bytes.HasPrefix(sec, []byte("<dxfs")) {
			sec = fillEl.ReplaceAll(sec, []byte(`<fill><patternFill patternType="none"/></fill>`))
		}
		return colorEl.ReplaceAll(sec, nil)
	})
	return repack(parts, order)
}

func selectSheets(f *excelize.File, all, want []string) ([]string, error) {
	if len(want) == 0 {
		var vis []string
		for _, s := range all {
			if v, err := f.GetSheetVisible(s); err == nil && v {
				vis = append(vis, s)
			}
		}
		if len(vis) == 0 {
			return nil, fault.New(fault.InvalidInput, "the workbook has no visible sheet")
		}
		return vis, nil
	}
	have := map[string]bool{}
	for _, s := range all {
		have[s] = true
	}
	for _, s := range want {
		if !have[s] {
			return nil, fault.New(fault.InvalidInput, "the workbook has no sheet %q; it has %s", s, quoteList(all))
		}
	}
	return want, nil
}

func quoteList(s []string) string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = fmt.Sprintf("%q", v)
	}
	return strings.Join(q, ", ")
}

func ptr[T any](v T) *T { return &v }

// apply sets one sheet's page setup and print names.
func apply(f *excelize.File, sheet string, opt Options) error {
	bad := func(field string, err error) error {
		return fault.Wrap(fault.InvalidInput, err, "%s: %v", field, err)
	}
	var pl excelize.PageLayoutOptions
	switch strings.ToLower(opt.Orientation) {
	case "":
	case "portrait", "landscape":
		pl.Orientation = ptr(strings.ToLower(opt.Orientation))
	default:
		return fault.New(fault.InvalidInput, "orientation is %q; portrait or landscape", opt.Orientation)
	}
	if opt.Scaling != 0 {
		if opt.Scaling < 10 || opt.Scaling > 400 {
			return fault.New(fault.InvalidInput, "scaling is %d; between 10 and 400 (percent)", opt.Scaling)
		}
		pl.AdjustTo = ptr(uint(opt.Scaling))
	}
	if opt.FitToPage {
		pl.FitToWidth, pl.FitToHeight = ptr(1), ptr(0)
		if err := f.SetSheetProps(sheet, &excelize.SheetPropsOptions{FitToPage: ptr(true)}); err != nil {
			return bad("fitToPage", err)
		}
	}
	if opt.BlackAndWhite {
		pl.BlackAndWhite = ptr(true)
	}
	if opt.PaperSize != "" {
		code, ok := paperSizes[strings.ToLower(opt.PaperSize)]
		if !ok {
			return fault.New(fault.InvalidInput, "paperSize is %q; A3, A4, A5, Letter or Legal", opt.PaperSize).With("field", "paperSize")
		}
		pl.Size = ptr(code)
	} else if cur, err := f.GetPageLayout(sheet); err == nil && (cur.Size == nil || *cur.Size == 0) {
		// Writing a page setup without a size would make the sheet Letter.
		pl.Size = ptr(localPaper(cmp.Or(opt.locale, office.DefaultLocale)))
	}
	if err := f.SetPageLayout(sheet, &pl); err != nil {
		return bad("page layout", err)
	}
	var m excelize.PageLayoutMarginsOptions
	if opt.Margins != nil {
		for _, x := range []struct {
			name, v string
			dst     **float64
		}{{"margins.top", opt.Margins.Top, &m.Top}, {"margins.bottom", opt.Margins.Bottom, &m.Bottom}, {"margins.left", opt.Margins.Left, &m.Left}, {"margins.right", opt.Margins.Right, &m.Right}} {
			if x.v == "" {
				continue
			}
			in, err := convert.Length(x.v)
			if err != nil {
				return fault.Wrap(fault.InvalidInput, err, "%s: %v", x.name, err)
			}
			*x.dst = ptr(in)
		}
	}
	if opt.Margins != nil {
		// Margins not given keep the sheet's, or Excel's defaults: excelize would write 0,
		// which pushes the header and footer off the page.
		cur, _ := f.GetPageMargins(sheet)
		for _, x := range []struct {
			dst, cur **float64
			def      float64
		}{{&m.Top, &cur.Top, 0.75}, {&m.Bottom, &cur.Bottom, 0.75}, {&m.Left, &cur.Left, 0.7}, {&m.Right, &cur.Right, 0.7}, {&m.Header, &cur.Header, 0.3}, {&m.Footer, &cur.Footer, 0.3}} {
			if *x.dst == nil {
				if *x.cur != nil && **x.cur > 0 {
					*x.dst = *x.cur
				} else {
					*x.dst = ptr(x.def)
				}
			}
		}
	}
	if opt.Gridlines {
		// Makes excelize write a printOptions element, which gridlines() then marks.
		m.Horizontally = ptr(false)
	}
	if err := f.SetPageMargins(sheet, &m); err != nil {
		return bad("margins", err)
	}
	if opt.Header != "" || opt.Footer != "" {
		if err := f.SetHeaderFooter(sheet, &excelize.HeaderFooterOptions{OddHeader: opt.Header, OddFooter: opt.Footer}); err != nil {
			return bad("headerFooter", err)
		}
	}
	if opt.PrintArea != "" {
		target, ref := sheet, opt.PrintArea
		if s, r, ok := strings.Cut(opt.PrintArea, "!"); ok {
			target, ref = strings.Trim(s, "'"), r
		}
		if !cellRange.MatchString(ref) {
			return fault.New(fault.InvalidInput, "printArea %q is not a cell range such as A1:D20 (or Sheet1!A1:D20)", opt.PrintArea)
		}
		if target == sheet {
			if err := setName(f, "_xlnm.Print_Area", sheet, absolute(sheet, ref)); err != nil {
				return bad("printArea", err)
			}
		}
	}
	var titles []string
	if opt.RepeatColumns != "" {
		c := colRange.FindStringSubmatch(opt.RepeatColumns)
		if c == nil {
			return fault.New(fault.InvalidInput, "repeatColumns %q is not a column range such as A:B", opt.RepeatColumns)
		}
		titles = append(titles, fmt.Sprintf("%s!$%s:$%s", quoteSheet(sheet), strings.ToUpper(c[1]), strings.ToUpper(c[2])))
	}
	if opt.RepeatRows != "" {
		r := rowRange.FindStringSubmatch(opt.RepeatRows)
		if r == nil {
			return fault.New(fault.InvalidInput, "repeatRows %q is not a row range such as 1:2", opt.RepeatRows)
		}
		titles = append(titles, fmt.Sprintf("%s!$%s:$%s", quoteSheet(sheet), r[1], r[2]))
	}
	if len(titles) > 0 {
		if err := setName(f, "_xlnm.Print_Titles", sheet, strings.Join(titles, ",")); err != nil {
			return bad("repeatRows/repeatColumns", err)
		}
	}
	return nil
}

// setName sets a sheet-scoped defined name, replacing the workbook's own.
func setName(f *excelize.File, name, sheet, refersTo string) error {
	f.DeleteDefinedName(&excelize.DefinedName{Name: name, Scope: sheet})
	return f.SetDefinedName(&excelize.DefinedName{Name: name, RefersTo: refersTo, Scope: sheet})
}

func quoteSheet(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

var cellRef = lazyre.New(`\$?([A-Za-z]{1,3})\$?([0-9]{1,7})`)

func absolute(sheet, ref string) string {
	return quoteSheet(sheet) + "!" + cellRef.ReplaceAllStringFunc(ref, func(c string) string {
		m := cellRef.FindStringSubmatch(c)
		return "$" + strings.ToUpper(m[1]) + "$" + m[2]
	})
}

// gridlines marks printOptions gridLines in the XML of the given sheets (excelize has no
// setting for it).
func gridlines(data []byte, sheets []string) ([]byte, error) {
	parts, order, err := unpack(data)
	if err != nil {
		return nil, err
	}
	targets := sheetFiles(parts)
	for _, s := range sheets {
		p := targets[s]
		if b, ok := parts[p]; ok {
			parts[p] = bytes.Replace(b, []byte("<printOptions"), []byte(`<printOptions gridLines="1" gridLinesSet="1"`), 1)
		}
	}
	return repack(parts, order)
}

var (
	sheetEl = lazyre.New(`<sheet\b[^>]*\bname="([^"]*)"[^>]*\br:id="([^"]*)"`)
	relEl   = lazyre.New(`<Relationship\b[^>]*\bId="([^"]*)"[^>]*\bTarget="([^"]*)"`)
	relEl2  = lazyre.New(`<Relationship\b[^>]*\bTarget="([^"]*)"[^>]*\bId="([^"]*)"`)
)

// sheetFiles maps sheet names to their worksheet parts, from the workbook and its rels
// (as excelize writes them).
func sheetFiles(parts map[string][]byte) map[string]string {
	rels := map[string]string{}
	for _, m := range relEl.FindAllSubmatch(parts["xl/_rels/workbook.xml.rels"], -1) {
		rels[string(m[1])] = string(m[2])
	}
	for _, m := range relEl2.FindAllSubmatch(parts["xl/_rels/workbook.xml.rels"], -1) {
		rels[string(m[2])] = string(m[1])
	}
	out := map[string]string{}
	for _, m := range sheetEl.FindAllSubmatch(parts["xl/workbook.xml"], -1) {
		t := rels[string(m[2])]
		if strings.HasPrefix(t, "/") {
			t = strings.TrimPrefix(t, "/")
		} else {
			t = path.Join("xl", t)
		}
		out[unescape(string(m[1]))] = t
	}
	return out
}

func unescape(s string) string {
	return strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&apos;", "'").Replace(s)
}
