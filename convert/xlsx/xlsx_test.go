package xlsx

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/office"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testtool"
)

// workbook has three sheets: Umsatz (120 data rows under a title row, several pages),
// Kosten (formulas without cached values, a print area of its own) and Intern.
func workbook(t *testing.T) []byte {
	f := excelize.NewFile()
	defer f.Close()
	f.SetSheetName("Sheet1", "Umsatz")
	f.SetSheetRow("Umsatz", "A1", &[]any{"Artikel", "Menge", "Preis", "Region"})
	for i := 2; i <= 121; i++ {
		f.SetSheetRow("Umsatz", "A"+strconv.Itoa(i), &[]any{fmt.Sprintf("Position %03d", i-1), i, float64(i) * 1.5, "Nord"})
	}
	f.NewSheet("Kosten")
	f.SetSheetRow("Kosten", "A1", &[]any{"Kostenart", "Betrag"})
	for i := 2; i <= 10; i++ {
		f.SetSheetRow("Kosten", "A"+strconv.Itoa(i), &[]any{fmt.Sprintf("Kosten %d", i-1), i - 1})
	}
	f.SetCellValue("Kosten", "A11", "Summe")
	f.SetCellFormula("Kosten", "B11", "SUM(B2:B10)*2")
	f.SetCellValue("Kosten", "D20", "Außerhalb des Druckbereichs")
	f.SetDefinedName(&excelize.DefinedName{Name: "_xlnm.Print_Area", RefersTo: "'Kosten'!$A$1:$B$11", Scope: "Kosten"})
	f.NewSheet("Intern")
	f.SetCellValue("Intern", "A1", "Geheime Notiz")
	buf, err := f.WriteToBuffer()
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func pool(t *testing.T) *office.Office {
	o, err := office.New(engine.Config{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close(context.Background()) })
	return o
}

func pageSizes(t *testing.T, pdf []byte) [][2]float64 {
	info := testtool.Info(t, pdf, "-f", "1", "-l", "100")
	var out [][2]float64
	for i := 1; ; i++ {
		v, ok := info[fmt.Sprintf("Page %4d size", i)]
		if !ok {
			return out
		}
		var w, h float64
		fmt.Sscanf(v, "%f x %f", &w, &h)
		out = append(out, [2]float64{w, h})
	}
}

func TestOptions(t *testing.T) {
	o := pool(t)
	pdf, err := ToPDF(context.Background(), o, Request{Document: workbook(t), Filename: "bericht.xlsx", Options: Options{
		Sheets: []string{"Umsatz", "Kosten"}, Orientation: "landscape", RepeatRows: "1:1", Gridlines: true,
		Footer: "&CSeite &P von &N", Header: "&L&BQuartalsbericht&R&A", Margins: &Margins{Top: "20mm", Bottom: "20mm"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, pdf)
	pages := testtool.PageTexts(t, pdf)
	if len(pages) < 3 {
		t.Fatalf("%d pages, want the 120 rows over several pages plus Kosten", len(pages))
	}
	for i, size := range pageSizes(t, pdf) {
		if size[0] <= size[1] {
			t.Errorf("page %d is %v, not landscape", i+1, size)
		}
	}
	umsatz := 0
	for i, p := range pages {
		if !strings.Contains(p, fmt.Sprintf("Seite %d von %d", i+1, len(pages))) {
			t.Errorf("page %d lacks its footer: %q", i+1, p)
		}
		if !strings.Contains(p, "Quartalsbericht") {
			t.Errorf("page %d lacks the header", i+1)
		}
		if strings.Contains(p, "Position") {
			umsatz++
			if !strings.Contains(p, "Artikel") {
				t.Errorf("page %d of Umsatz lacks the repeated title row", i+1)
			}
		}
		if strings.Contains(p, "Geheime Notiz") {
			t.Errorf("unselected sheet printed on page %d", i+1)
		}
	}
	if umsatz < 2 {
		t.Errorf("Umsatz on %d pages; the test needs it to span several", umsatz)
	}
	last := pages[len(pages)-1]
	if !strings.Contains(last, "Summe") || !strings.Contains(last, "90") {
		t.Errorf("formula not evaluated (want Summe 90): %q", last)
	}
	if strings.Contains(last, "Außerhalb") {
		t.Error("the workbook's own print area of Kosten was not honoured")
	}
}

// TestJoinedSheets: with pageBetweenSheets=false, a sheet continues on the page where the
// one before it ended, and the same workbook prints one page per sheet with the default.
func TestJoinedSheets(t *testing.T) {
	o := pool(t)
	f := excelize.NewFile()
	for i, name := range []string{"Januar", "Februar", "März"} {
		if i == 0 {
			f.SetSheetName("Sheet1", name)
		} else {
			f.NewSheet(name)
		}
		for r := 1; r <= 5; r++ {
			f.SetSheetRow(name, "A"+strconv.Itoa(r), &[]any{fmt.Sprintf("%s Zeile %d", name, r), r * (i + 1)})
		}
	}
	f.SetColWidth("Februar", "A", "A", 40)
	f.MergeCell("März", "C1", "E1")
	f.SetCellValue("März", "C1", "Zusammengefasst")
	buf, err := f.WriteToBuffer()
	if err != nil {
		t.Fatal(err)
	}
	no := false
	joined, err := ToPDF(context.Background(), o, Request{Document: buf.Bytes(), Filename: "q1.xlsx", Options: Options{PageBetweenSheets: &no}})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, joined)
	pages := testtool.PageTexts(t, joined)
	if len(pages) != 1 {
		t.Fatalf("joined sheets on %d pages, want 1", len(pages))
	}
	text := pages[0]
	last := -1
	for _, want := range []string{"Januar Zeile 1", "Januar Zeile 5", "Februar Zeile 1", "Februar Zeile 5", "März Zeile 1", "Zusammengefasst", "März Zeile 5"} {
		at := strings.Index(text, want)
		if at < 0 {
			t.Fatalf("%q missing from the joined page: %q", want, text)
		}
		if at < last {
			t.Errorf("%q out of order", want)
		}
		last = at
	}
	apart, err := ToPDF(context.Background(), o, Request{Document: buf.Bytes(), Filename: "q1.xlsx"})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(testtool.PageTexts(t, apart)); n != 3 {
		t.Errorf("default: %d pages, want one per sheet", n)
	}

	// A long sheet: the next one starts on the page where it ends, print area honoured.
	long, err := ToPDF(context.Background(), o, Request{Document: workbook(t), Filename: "b.xlsx", Options: Options{
		Sheets: []string{"Umsatz", "Kosten"}, PageBetweenSheets: &no}})
	if err != nil {
		t.Fatal(err)
	}
	pages = testtool.PageTexts(t, long)
	end := pages[len(pages)-1]
	if len(pages) < 2 || !strings.Contains(end, "Position 120") || !strings.Contains(end, "Kostenart") || strings.Contains(end, "Außerhalb") {
		t.Errorf("Kosten does not continue under the end of Umsatz (%d pages), last page: %q", len(pages), end)
	}
}

func TestPrintAreaFitAndPDFA(t *testing.T) {
	o := pool(t)
	pdf, err := ToPDF(context.Background(), o, Request{Document: workbook(t), PDFA: true, Options: Options{
		Sheets: []string{"Umsatz"}, PrintArea: "A1:B5", FitToPage: true, BlackAndWhite: true, Scaling: 90,
	}})
	if err != nil {
		t.Fatal(err)
	}
	text := testtool.Text(t, pdf)
	if n := strings.Count(text, "Position"); n != 4 || !strings.Contains(text, "Menge") || strings.Contains(text, "Preis") || strings.Contains(text, "Nord") || strings.Contains(text, "Kosten") {
		t.Errorf("print area A1:B5 of Umsatz alone not applied (%d rows):\n%s", n, text)
	}
	if n := len(testtool.PageTexts(t, pdf)); n != 1 {
		t.Errorf("%d pages", n)
	}
	if xmp := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "a.pdf", pdf)); !strings.Contains(xmp, "<pdfaid:part>3</pdfaid:part>") {
		t.Error("no PDF/A-3 identification")
	}
}

func TestBadOptions(t *testing.T) {
	wb := workbook(t)
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Sheets: []string{"Nope"}}, `no sheet "Nope"`},
		{Options{Orientation: "sideways"}, "portrait or landscape"},
		{Options{PrintArea: "A1:ZZZZ9"}, "not a cell range"},
		{Options{RepeatRows: "A:B"}, "not a row range"},
		{Options{RepeatColumns: "1:2"}, "not a column range"},
		{Options{Scaling: 1000}, "between 10 and 400"},
		{Options{Margins: &Margins{Top: "lots"}}, "margins.top"},
	} {
		_, err := Apply(wb, c.opt)
		if fault.CodeOf(err) != fault.InvalidInput || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opt, err, c.want)
		}
	}
	for name, doc := range map[string][]byte{"not a workbook": []byte("hello"), "corrupt zip": append([]byte("PK\x03\x04"), make([]byte, 100)...)} {
		_, err := Apply(doc, Options{Orientation: "landscape"})
		if fault.CodeOf(err) != fault.InvalidInput {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzApply(f *testing.F) {
	f.Add(workbook(&testing.T{}))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := Apply(data, Options{Orientation: "landscape", RepeatRows: "1:1", Gridlines: true, PrintArea: "A1:B2"})
		if err != nil && fault.CodeOf(err) != fault.InvalidInput && fault.CodeOf(err) != fault.Internal {
			t.Fatalf("%v", err)
		}
	})
}

// TestMillionRows: a huge sheet is refused for print options at once, and converting it
// without options runs into the time limit while the pool stays usable.
func TestMillionRows(t *testing.T) {
	f := excelize.NewFile()
	defer f.Close() // the stream writer spills to a temporary file
	sw, err := f.NewStreamWriter("Sheet1")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 1_000_000; i++ {
		cell, _ := excelize.CoordinatesToCellName(1, i)
		sw.SetRow(cell, []any{i, "Zeile"})
	}
	sw.Flush()
	buf, err := f.WriteToBuffer()
	if err != nil {
		t.Fatal(err)
	}
	big := buf.Bytes()
	if _, err := Apply(big, Options{Orientation: "landscape"}); fault.CodeOf(err) != fault.InvalidInput || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("options on a million rows: %v", err)
	}
	// Printing a million rows takes LibreOffice minutes; 15 s ends it surely and still leaves
	// the small workbook after it room on a busy machine (it needs ~0.1 s idle).
	o, err := office.New(engine.Config{Concurrency: 1, JobTimeout: 15 * time.Second, TempRoot: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close(context.Background()) })
	if _, err := ToPDF(context.Background(), o, Request{Document: big}); fault.CodeOf(err) != fault.Timeout {
		t.Fatalf("a million rows: %v, want timeout", err)
	}
	if _, err := ToPDF(context.Background(), o, Request{Document: workbook(t), Options: Options{Sheets: []string{"Intern"}}}); err != nil {
		t.Fatalf("after the timeout: %v", err)
	}
}

func TestGridlinesInSheetXML(t *testing.T) {
	out, err := Apply(workbook(t), Options{Sheets: []string{"Kosten"}, Gridlines: true})
	if err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, _ := zip.NewReader(bytes.NewReader(out), int64(len(out)))
	marked := map[string]bool{}
	for _, fl := range z.File {
		if strings.HasPrefix(fl.Name, "xl/worksheets/sheet") {
			r, _ := fl.Open()
			b, _ := io.ReadAll(r)
			marked[fl.Name] = bytes.Contains(b, []byte(`gridLines="1"`))
		}
	}
	if !marked["xl/worksheets/sheet2.xml"] || marked["xl/worksheets/sheet1.xml"] {
		t.Errorf("gridlines marked on %v; want Kosten (sheet2) only", marked)
	}
}

// TestPaperLocaleAndBlackAndWhite: a sheet without a paper size prints on A4 (German
// locale) or Letter (en-US) also when options rewrite its page setup; paperSize wins;
// blackAndWhite leaves no coloured pixel where fills and coloured text were.
func TestPaperLocaleAndBlackAndWhite(t *testing.T) {
	o := pool(t)
	ctx := context.Background()
	f := excelize.NewFile()
	f.SetCellValue("Sheet1", "A1", "Rot auf Gelb")
	f.SetCellValue("Sheet1", "B3", 1032.5)
	st, _ := f.NewStyle(&excelize.Style{Font: &excelize.Font{Color: "FF0000", Size: 28, Bold: true}, Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"FFFF00"}}})
	f.SetCellStyle("Sheet1", "A1", "B3", st)
	f.SetColWidth("Sheet1", "A", "B", 30)
	buf, _ := f.WriteToBuffer()
	book := buf.Bytes()
	for _, c := range []struct {
		locale string
		opt    Options
		want   string
	}{
		{"de-DE", Options{}, "A4"},
		{"de-DE", Options{Orientation: "portrait", FitToPage: true}, "A4"},
		{"en-US", Options{Orientation: "portrait"}, "letter"},
		{"de-DE", Options{PaperSize: "a5"}, "A5"},
		{"de-DE", Options{PaperSize: "Legal"}, "legal"},
	} {
		pdf, err := ToPDF(ctx, o, Request{Document: book, Filename: "farben.xlsx", Locale: c.locale, Options: c.opt})
		if err != nil {
			t.Fatal(err)
		}
		want := map[string][2]float64{"A4": {595, 842}, "letter": {612, 792}, "A5": {420, 595}, "legal": {612, 1008}}[c.want]
		if size := pageSizes(t, pdf)[0]; math.Abs(size[0]-want[0]) > 1 || math.Abs(size[1]-want[1]) > 1 {
			t.Errorf("%s %+v: %v, want %s", c.locale, c.opt, size, c.want)
		}
	}
	coloured := func(pdf []byte) int {
		img := testtool.Render(t, pdf, 1, 50)
		n := 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				if max(r, g, bl)-min(r, g, bl) > 0x2000 {
					n++
				}
			}
		}
		return n
	}
	plain, err := ToPDF(ctx, o, Request{Document: book, Filename: "farben.xlsx"})
	if err != nil {
		t.Fatal(err)
	}
	bw, err := ToPDF(ctx, o, Request{Document: book, Filename: "farben.xlsx", Options: Options{BlackAndWhite: true}})
	if err != nil {
		t.Fatal(err)
	}
	if c := coloured(plain); c < 500 {
		t.Fatalf("the coloured workbook shows only %d coloured pixels", c)
	}
	if c := coloured(bw); c != 0 {
		t.Errorf("blackAndWhite left %d coloured pixels", c)
	}
	if text := testtool.Text(t, bw); !strings.Contains(text, "Rot auf Gelb") || !strings.Contains(text, "1032") {
		t.Errorf("blackAndWhite lost content: %q", text)
	}
	if _, err := ToPDF(ctx, o, Request{Document: book, Filename: "x.xlsx", Options: Options{PaperSize: "B5"}}); fault.CodeOf(err) != fault.InvalidInput {
		t.Errorf("paperSize B5: %v", err)
	}
}
