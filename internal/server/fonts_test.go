package server

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/papierkram/papierkram/internal/testoffice"
	"github.com/papierkram/papierkram/internal/testtool"
	"github.com/papierkram/papierkram/store"
)

// TestFonts: an uploaded font (the Go font, installed nowhere on the system) is listed with
// what its name table says and embedded in that key's HTML renders, not another key's.
func TestFonts(t *testing.T) {
	e := newTestEnv(t)
	reg := decode(t, e.uploadAs(testKey, "/api/fonts", [2]any{"@file", goregular.TTF}, [2]any{"name", "go-regular"}))
	if reg["family"] != "Go" || reg["weight"] != float64(400) || reg["italic"] != false || reg["format"] != "truetype" {
		t.Fatalf("upload: %v", reg)
	}
	if b := decode(t, e.uploadAs(testKey, "/api/fonts", [2]any{"@file", gobold.TTF}, [2]any{"name", "go-bold"})); b["weight"] != float64(700) {
		t.Errorf("bold: %v", b)
	}
	wantProblem(t, e.uploadAs(testKey, "/api/fonts", [2]any{"@file", goregular.TTF}, [2]any{"name", "go-regular"}), 409, "conflict")
	wantProblem(t, e.uploadAs(testKey, "/api/fonts", [2]any{"@file", []byte("not a font at all")}, [2]any{"name", "x"}), 400, "invalid_input")

	list := decode(t, e.do("GET", "/api/fonts", testKey, nil))
	if fonts := list["fonts"].([]any); len(fonts) != 2 || !strings.Contains(strings.Join(anyStrings(list["pool"]), ","), "Liberation Sans") || len(list["substitutions"].([]any)) < 5 {
		t.Errorf("list: %v", list)
	}
	page := `{"html":"<html><head></head><body><p style=\"font-family:'Go'\">Hallo <b>fett</b></p></body></html>"}`
	pdf := pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, page))
	fonts := testtool.Run(t, "pdffonts", testtool.File(t, "f.pdf", pdf))
	if !strings.Contains(fonts, "Go-Regular") && !strings.Contains(fonts, "+Go") {
		t.Errorf("the uploaded font is not in the PDF:\n%s", fonts)
	}
	if !strings.Contains(fonts, "Go-Bold") {
		t.Errorf("the bold face is not in the PDF:\n%s", fonts)
	}
	other := store.NewSecret()
	e.store.CreateKey(t.Context(), &store.Key{Hash: store.Hash(other), ID: store.IDOf(store.Hash(other)), Name: "other", Plan: store.PlanFree})
	otherPDF := pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", other, page))
	if f := testtool.Run(t, "pdffonts", testtool.File(t, "o.pdf", otherPDF)); strings.Contains(f, "Go-") {
		t.Errorf("another key's render used the font:\n%s", f)
	}
	// Word documents of the key are drawn with its fonts too (embedded into the .docx for
	// LibreOffice); another key's are not.
	word := testoffice.Docx(`<w:p><w:r><w:rPr><w:rFonts w:ascii="Go" w:hAnsi="Go"/></w:rPr><w:t>Hallo in Go</w:t></w:r></w:p>`, nil, nil)
	wordPDF := pdfBody(t, e.postParts("/v1/convert/word-to-pdf", "go.docx", word))
	if f := testtool.Run(t, "pdffonts", testtool.File(t, "w.pdf", wordPDF)); !strings.Contains(f, "GoRegular") && !strings.Contains(f, "Go-Regular") {
		t.Errorf("the Word conversion did not use the key's font:\n%s", f)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("document", "go.docx")
	fw.Write(word)
	mw.Close()
	otherWord := pdfBody(t, e.do("POST", "/v1/convert/word-to-pdf", other, &buf, "Content-Type", mw.FormDataContentType()))
	if f := testtool.Run(t, "pdffonts", testtool.File(t, "ow.pdf", otherWord)); strings.Contains(f, "GoRegular") || strings.Contains(f, "Go-Regular") {
		t.Errorf("another key's Word conversion used the font:\n%s", f)
	}
	// Excel workbooks too (through an .ods copy that carries the fonts).
	wb := excelize.NewFile()
	st, _ := wb.NewStyle(&excelize.Style{Font: &excelize.Font{Family: "Go"}})
	wb.SetCellValue("Sheet1", "A1", "Tabelle in Go")
	wb.SetCellStyle("Sheet1", "A1", "A1", st)
	wbBuf, _ := wb.WriteToBuffer()
	wb.Close()
	excelPDF := pdfBody(t, e.postParts("/v1/convert/excel-to-pdf", "go.xlsx", wbBuf.Bytes()))
	if f := testtool.Run(t, "pdffonts", testtool.File(t, "x.pdf", excelPDF)); !strings.Contains(f, "GoRegular") && !strings.Contains(f, "Go-Regular") {
		t.Errorf("the Excel conversion did not use the key's font:\n%s", f)
	}
	if res := e.do("DELETE", "/api/fonts/go-bold", testKey, nil); res.StatusCode != 204 {
		t.Errorf("delete: %d", res.StatusCode)
	}
	wantProblem(t, e.do("DELETE", "/api/fonts/go-bold", testKey, nil), 404, "not_found")
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestFontPoolIsReal: every family GET /api/fonts lists is installed, every substitution is
// what fontconfig picks, and CJK text (in a Windows family) prints with Noto CJK embedded.
func TestFontPoolIsReal(t *testing.T) {
	for _, f := range fontPool {
		if out := testtool.Run(t, "fc-list", ":family="+f, "family"); !strings.Contains(out, f) {
			t.Errorf("pool family %q is not installed", f)
		}
	}
	for _, s := range substitutions {
		if out := testtool.Run(t, "fc-match", "-f", "%{family}", s.Requested); !strings.Contains(out, s.Used) {
			t.Errorf("%s is drawn with %q, not %s", s.Requested, out, s.Used)
		}
	}
	e := newTestEnv(t)
	body, _ := json.Marshal(map[string]any{"html": `<p style="font-family:'Microsoft YaHei'">发票 请求</p><p style="font-family:'MS Mincho'">請求書</p><p style="font-family:'Malgun Gothic'">청구서</p>`})
	pdf := pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, body))
	if text := testtool.Text(t, pdf); !strings.Contains(text, "发票 请求") || !strings.Contains(text, "請求書") || !strings.Contains(text, "청구서") {
		t.Errorf("text %q", text)
	}
	// Chromium embeds the CFF-based Noto CJK as Type 3 fonts (outlines, with ToUnicode):
	// every font must be embedded.
	fonts := strings.Split(strings.TrimSpace(testtool.Run(t, "pdffonts", testtool.File(t, "cjk.pdf", pdf))), "\n")[2:]
	for _, f := range fonts {
		if fields := strings.Fields(f); len(fields) < 5 || fields[len(fields)-5] != "yes" {
			t.Errorf("not embedded: %s", f)
		}
	}
	if len(fonts) == 0 {
		t.Error("no fonts")
	}
}
