package office

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/internal/testoffice"
	"github.com/papierkram/papierkram/internal/testtool"
)

// localeWorkbook has a euro amount in a system-following format, a formula without a
// stored result, a formula of a function LibreOffice lacks with Excel's stored result (42),
// and a header with the date and the file name.
func localeWorkbook(t *testing.T) []byte {
	t.Helper()
	f := excelize.NewFile()
	f.SetColWidth("Sheet1", "A", "A", 30)
	f.SetCellValue("Sheet1", "A1", 1032)
	fmtEuro := `#,##0.00 "€"`
	st, _ := f.NewStyle(&excelize.Style{CustomNumFmt: &fmtEuro})
	f.SetCellStyle("Sheet1", "A1", "A1", st)
	f.SetCellFormula("Sheet1", "A2", "A1*2")
	f.SetCellFormula("Sheet1", "A3", "MYUDF(1)")
	f.SetHeaderFooter("Sheet1", &excelize.HeaderFooterOptions{OddHeader: "&LStand &D &R&F"})
	buf, err := f.WriteToBuffer()
	if err != nil {
		t.Fatal(err)
	}
	// Excel's stored result of the user-defined function.
	b := rewriteZip(t, buf.Bytes(), "xl/worksheets/sheet1.xml", func(s string) string {
		return strings.Replace(s, "<f>MYUDF(1)</f>", "<f>MYUDF(1)</f><v>42</v>", 1)
	})
	// As Excel saved it: LibreOffice trusts only Excel's stored results.
	return rewriteZip(t, b, "docProps/app.xml", func(s string) string {
		return regexp.MustCompile(`<Application>[^<]*</Application>`).ReplaceAllString(s, "<Application>Microsoft Excel</Application>")
	})
}

func rewriteZip(t *testing.T, data []byte, name string, edit func(string) string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	found := false
	for _, f := range zr.File {
		r, _ := f.Open()
		b, _ := io.ReadAll(r)
		r.Close()
		if f.Name == name {
			nb := edit(string(b))
			found = nb != string(b)
			b = []byte(nb)
		}
		w, _ := zw.Create(f.Name)
		w.Write(b)
	}
	zw.Close()
	if !found {
		t.Fatalf("%s not changed", name)
	}
	return out.Bytes()
}

// TestLocaleNameAndStoredValues: one soffice, jobs in German, American and German again:
// formats and paper follow each job's locale; &F prints the document's name; stored results
// stay unless recalculation is asked for; a Word SAVEDATE field keeps its date.
func TestLocaleNameAndStoredValues(t *testing.T) {
	o := pool(t, engine.Config{Concurrency: 1})
	ctx := context.Background()
	book := localeWorkbook(t)
	german := regexp.MustCompile(`Stand \d{2}\.\d{2}\.\d{4}`)
	american := regexp.MustCompile(`Stand \d{1,2}/\d{1,2}/\d{2,4}`)
	for i, c := range []struct {
		locale, amount, paper string
		date                  *regexp.Regexp
	}{
		{"de-DE", "1.032,00 €", "A4", german},
		{"en-US", "1,032.00 €", "letter", american},
		{"de-DE", "1.032,00 €", "A4", german},
	} {
		pdf, err := o.ToPDF(ctx, Job{Document: book, Ext: "xlsx", Name: "Quartalsbericht Q3", Locale: c.locale})
		if err != nil {
			t.Fatal(err)
		}
		text := testtool.Text(t, pdf)
		if !strings.Contains(text, c.amount) || !c.date.MatchString(text) || !strings.Contains(text, "Quartalsbericht Q3.xlsx") || !strings.Contains(text, "2064") || !strings.Contains(text, "42") {
			t.Errorf("job %d (%s): %q", i, c.locale, text)
		}
		if size := testtool.Info(t, pdf)["Page size"]; !strings.Contains(size, "("+c.paper) {
			t.Errorf("job %d (%s): page size %q", i, c.locale, size)
		}
	}
	pdf, err := o.ToPDF(ctx, Job{Document: book, Ext: "xlsx", Recalculate: true})
	if err != nil {
		t.Fatal(err)
	}
	if text := testtool.Text(t, pdf); strings.Contains(text, "42") || !strings.Contains(text, "#NAME?") || !strings.Contains(text, "document.xlsx") {
		t.Errorf("recalculated: %q", text)
	}

	// A SAVEDATE field of a document saved on 3 February 2019: printed so, not as today.
	field := `<w:p><w:r><w:t xml:space="preserve">Gespeichert: </w:t></w:r><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve"> SAVEDATE \@ "dd.MM.yyyy" </w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>03.02.2019</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`
	core := []byte(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dcterms:modified xsi:type="dcterms:W3CDTF">2019-02-03T10:00:00Z</dcterms:modified></cp:coreProperties>`)
	pdf, err = o.ToPDF(ctx, Job{Document: testoffice.Docx(field, map[string][]byte{"docProps/core.xml": core}, nil), Ext: "docx"})
	if err != nil {
		t.Fatal(err)
	}
	if text := testtool.Text(t, pdf); !regexp.MustCompile(`Gespeichert: 03[./]02[./]2019`).MatchString(text) {
		t.Errorf("SAVEDATE: %q", text)
	}
}

func TestFileStem(t *testing.T) {
	for in, want := range map[string]string{"Bericht 2026": "Bericht 2026", "../../etc/passwd": "_.._etc_passwd", "": "document", "...": "document",
		"converted": "document", "a\x00b": "a_b", strings.Repeat("ä", 100): strings.Repeat("ä", 60)} {
		if got := fileStem(in); got != want {
			t.Errorf("fileStem(%q) = %q, want %q", in, got, want)
		}
	}
}
