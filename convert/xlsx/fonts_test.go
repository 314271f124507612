package xlsx

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/papierkram/papierkram/convert"
	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/office"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testtool"
)

// TestWorkbookFonts: a workbook whose cells use the Go fonts (installed nowhere) prints with
// them when they are given, through an .ods copy that carries them; without them
// LibreOffice substitutes. The workbook's print options survive the detour.
func TestWorkbookFonts(t *testing.T) {
	f := excelize.NewFile()
	defer f.Close()
	regular, _ := f.NewStyle(&excelize.Style{Font: &excelize.Font{Family: "Go", Size: 14}})
	bold, _ := f.NewStyle(&excelize.Style{Font: &excelize.Font{Family: "Go", Size: 14, Bold: true}})
	f.SetCellValue("Sheet1", "A1", "Umsatz in Go")
	f.SetCellStyle("Sheet1", "A1", "A1", regular)
	f.SetCellValue("Sheet1", "A2", "Summe fett")
	f.SetCellStyle("Sheet1", "A2", "A2", bold)
	buf, err := f.WriteToBuffer()
	if err != nil {
		t.Fatal(err)
	}
	faces := []convert.FontFace{{Family: "Go", Weight: 400, Format: "truetype", Data: goregular.TTF}, {Family: "Go", Weight: 700, Format: "truetype", Data: gobold.TTF}}
	o, err := office.New(engine.Config{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close(context.Background()) })
	pdf, err := ToPDF(t.Context(), o, Request{Document: buf.Bytes(), Filename: "go.xlsx", Fonts: faces, Options: Options{Orientation: "landscape"}})
	if err != nil {
		t.Fatal(err)
	}
	fonts := testtool.Run(t, "pdffonts", testtool.File(t, "go.pdf", pdf))
	if !strings.Contains(fonts, "GoRegular") && !strings.Contains(fonts, "Go-Regular") || !strings.Contains(fonts, "Go-Bold") {
		t.Errorf("the workbook was not drawn with the given fonts:\n%s", fonts)
	}
	if text := testtool.Text(t, pdf); !strings.Contains(text, "Umsatz in Go") {
		t.Errorf("text %q", text)
	}
	plain, err := ToPDF(t.Context(), o, Request{Document: buf.Bytes(), Filename: "go.xlsx", Options: Options{Orientation: "landscape"}})
	if err != nil {
		t.Fatal(err)
	}
	// The print settings come through the .ods detour: the same landscape page as directly.
	if a, b := testtool.Info(t, pdf)["Page size"], testtool.Info(t, plain)["Page size"]; a != b || !landscape(a) {
		t.Errorf("page size %q through .ods, %q directly", a, b)
	}
	if f := testtool.Run(t, "pdffonts", testtool.File(t, "plain.pdf", plain)); strings.Contains(f, "GoRegular") || strings.Contains(f, "Go-Bold") {
		t.Errorf("Go fonts without embedding (a process kept them?):\n%s", f)
	}
}

// landscape reads pdfinfo's "W x H pts" and tells whether the page is wider than high.
func landscape(size string) bool {
	var w, h float64
	_, err := fmt.Sscanf(size, "%g x %g", &w, &h)
	return err == nil && w > h
}

// FuzzWorkbookFonts: any package is read for its fonts and, as an .ods, gets them or is
// refused as the caller's fault.
func FuzzWorkbookFonts(f *testing.F) {
	wb := excelize.NewFile()
	st, _ := wb.NewStyle(&excelize.Style{Font: &excelize.Font{Family: "Go"}})
	wb.SetCellStyle("Sheet1", "A1", "A1", st)
	buf, _ := wb.WriteToBuffer()
	wb.Close()
	f.Add(buf.Bytes())
	faces := []convert.FontFace{{Family: "Go", Weight: 400, Format: "truetype", Data: goregular.TTF[:64]}}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := usedFaces(data, faces); err != nil && fault.CodeOf(err) != fault.InvalidInput {
			t.Fatalf("usedFaces: %v", err)
		}
		if _, err := embedODS(data, faces); err != nil && fault.CodeOf(err) != fault.InvalidInput {
			t.Fatalf("embedODS: %v", err)
		}
	})
}
