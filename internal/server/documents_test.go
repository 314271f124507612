package server

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/oned"
	"github.com/makiuchi-d/gozxing/qrcode"

	"github.com/papierkram/papierkram/engine/office"
	"github.com/papierkram/papierkram/internal/testoffice"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
	"github.com/papierkram/papierkram/netguard"
	"github.com/papierkram/papierkram/store"
)

// TestDocumentsGenerate: a stored HTML template filled with data prints with escaped
// values, German money and dates, a list, a QR code that decodes back to its value, and a
// watermark on each of its two pages; template mistakes are 400.
func TestDocumentsGenerate(t *testing.T) {
	e := newTestEnv(t)
	tpl := `<html><body><h1>Rechnung {{number}}</h1><p>{{customer}}</p><p>Datum: {{date issued}}</p>
<table>{#items}<tr><td>{{name}}</td><td>{{money price}}</td></tr>{/items}</table>
<p>Summe: {{money total}}</p><div style="page-break-before:always">{{qr girocode 240}}</div></body></html>`
	decode(t, e.uploadAs(testKey, "/api/templates", [2]any{"@file", []byte(tpl)}, [2]any{"name", "rechnung"}))
	body := `{"template":"rechnung","locale":"de-DE","watermark":{"text":"ENTWURF","angle":0},
 "data":{"number":"R-42","customer":"<b>Müller & Söhne</b>","issued":"2026-11-22","total":1234.5,
  "items":[{"name":"Beratung","price":1000},{"name":"Reise","price":234.5}],
  "girocode":"BCD\n002\n1\nSCT\n\nMax Mustermann\nDE88200800000970375700\nEUR1234.50"}}`
	out := pdfBody(t, e.do("POST", "/api/documents/generate", testKey, body))
	pages := testtool.PageTexts(t, out)
	if len(pages) != 2 {
		t.Fatalf("%d pages", len(pages))
	}
	for _, want := range []string{"Rechnung R-42", "<b>Müller & Söhne</b>", "22.11.2026", "Beratung", "1.000,00 €", "234,50 €", "1.234,50 €"} {
		if !strings.Contains(pages[0], want) {
			t.Errorf("page 1 lacks %q:\n%s", want, pages[0])
		}
	}
	for i, p := range pages {
		if !strings.Contains(p, "ENTWURF") {
			t.Errorf("page %d has no watermark", i+1)
		}
	}
	dir := t.TempDir()
	testtool.Run(t, "pdftoppm", "-png", "-r", "100", "-f", "2", "-l", "2", testtool.File(t, "doc.pdf", out), filepath.Join(dir, "p"))
	matches, _ := filepath.Glob(filepath.Join(dir, "p*.png"))
	if len(matches) != 1 {
		t.Fatalf("rendered %v", matches)
	}
	fh, _ := os.Open(matches[0])
	img, err := png.Decode(fh)
	fh.Close()
	if err != nil {
		t.Fatal(err)
	}
	bmp, _ := gozxing.NewBinaryBitmapFromImage(img.(image.Image))
	qr, err := qrcode.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatalf("no QR code found on page 2: %v", err)
	}
	if !strings.Contains(qr.GetText(), "DE88200800000970375700") || !strings.HasPrefix(qr.GetText(), "BCD\n002") {
		t.Errorf("QR text %q", qr.GetText())
	}

	// A PDF stamp lies over every page.
	stamp, _ := json.Marshal(map[string]any{"html": `<p>eins</p><p style="page-break-before:always">zwei</p>`, "watermark": map[string]any{"pdf": testpdf.New(1), "opacity": 0.5}})
	stamped := testtool.PageTexts(t, pdfBody(t, e.do("POST", "/api/documents/generate", testKey, stamp)))
	if len(stamped) != 2 || !strings.Contains(stamped[0], "Page 1") || !strings.Contains(stamped[1], "Page 1") || !strings.Contains(stamped[1], "zwei") {
		t.Errorf("stamped pages: %q", stamped)
	}

	// DOCX and ODT come from LibreOffice; LibreOffice reopens the DOCX with the same text.
	res := e.do("POST", "/api/documents/generate", testKey, `{"html":"<h1>Angebot {{number}}</h1><p>{{money total}}</p>","data":{"number":"A-7","total":99.5},"output":"DOCX"}`)
	docx := readAll(t, res)
	if res.StatusCode != 200 || !bytes.HasPrefix(docx, []byte("PK")) {
		t.Fatalf("docx: %d %.200s", res.StatusCode, docx)
	}
	reopened, err := e.srv.cfg.Office.Convert(t.Context(), office.Job{Document: docx, Ext: "docx"}, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	if text := testtool.Text(t, reopened); !strings.Contains(text, "Angebot A-7") || !strings.Contains(text, "99,50 €") {
		t.Errorf("reopened DOCX:\n%s", text)
	}
	res = e.do("POST", "/api/documents/generate", testKey, `{"html":"<p>{{x}}</p>","data":{"x":"odt"},"output":"ODT"}`)
	if odt := readAll(t, res); res.Header.Get("Content-Type") != "application/vnd.oasis.opendocument.text" || !bytes.Contains(odt, []byte("application/vnd.oasis.opendocument.text")) {
		t.Errorf("odt: %s", res.Header.Get("Content-Type"))
	}

	// A stored Word template: PDF by default, DOCX filled as it is.
	word := testoffice.Docx(testoffice.Paragraphs("Angebot für {{kunde}}", "{#posten}", "Posten: {{name}}", "{/posten}"), nil, nil)
	decode(t, e.uploadAs(testKey, "/api/templates", [2]any{"@file", word}, [2]any{"name", "angebot"}))
	wordPDF := pdfBody(t, e.do("POST", "/api/documents/generate", testKey, `{"template":"angebot","data":{"kunde":"Erika","posten":[{"name":"Beratung"},{"name":"Reise"}]}}`))
	if text := testtool.Text(t, wordPDF); !strings.Contains(text, "Angebot für Erika") || !strings.Contains(text, "Posten: Reise") {
		t.Errorf("Word template PDF:\n%s", text)
	}
	res = e.do("POST", "/api/documents/generate", testKey, `{"template":"angebot","output":"DOCX","data":{"kunde":"Max"}}`)
	if b := readAll(t, res); res.StatusCode != 200 || !bytes.HasPrefix(b, []byte("PK")) || res.Header.Get("Content-Type") != templateTypes["docx"] {
		t.Errorf("Word template DOCX: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	wantProblem(t, e.do("POST", "/api/documents/generate", testKey, `{"template":"angebot","watermark":{"text":"x"}}`), 400, "invalid_input")

	for name, b := range map[string]string{
		"output":    `{"html":"x","output":"RTF"}`,
		"unclosed":  `{"html":"{#items}x"}`,
		"both":      `{"html":"x","template":"rechnung"}`,
		"neither":   `{"data":{}}`,
		"money":     `{"html":"{{money x}}","data":{"x":"abc"}}`,
		"watermark": `{"html":"x","watermark":{"text":" "}}`,
		"text+pdf":  `{"html":"x","watermark":{"text":"x","pdf":"JVBERi0="}}`,
		"stamp":     `{"html":"x","watermark":{"pdf":"bm90IGEgcGRm"}}`,
		"stamp odt": `{"html":"x","output":"ODT","watermark":{"pdf":"JVBERi0="}}`,
	} {
		if res := e.do("POST", "/api/documents/generate", testKey, b); res.StatusCode != 400 {
			t.Errorf("%s: %d", name, res.StatusCode)
		}
	}
	wantProblem(t, e.do("POST", "/api/documents/generate", testKey, `{"template":"nope"}`), 404, "not_found")
}

// TestDocumentsCompose: an HTML part, an uploaded PDF and a stored template make one PDF
// after a table of contents, numbered through, with a bookmark per part.
func TestDocumentsCompose(t *testing.T) {
	e := newTestEnv(t)
	decode(t, e.uploadAs(testKey, "/api/templates", [2]any{"@file", []byte("<p>Schluss {{x}}</p>")}, [2]any{"name", "schluss"}))
	body, _ := json.Marshal(map[string]any{
		"toc": true, "pageNumbers": "Seite {page} von {pages}",
		"parts": []map[string]any{
			{"title": "Einleitung", "html": "<h1>Teil A</h1>"},
			{"title": "Anlage", "pdf": testpdf.New(2), "skipPageNumbers": true},
			{"title": "Schluss", "template": "schluss", "data": map[string]any{"x": "gut"}},
		},
	})
	out := pdfBody(t, e.do("POST", "/api/documents/compose", testKey, body))
	pages := testtool.PageTexts(t, out)
	if len(pages) != 5 {
		t.Fatalf("%d pages: %q", len(pages), pages)
	}
	// Our own output is readable by every endpoint that reads PDFs, ranges split included.
	e.readBack(t, out, 5)
	pdfBody(t, e.upload("/api/pdf-tools/extract-pages?pages=4-5,1", [2]any{"file", out}))
	if res := e.upload("/api/pdf-tools/split?pages=1-2,3-5", [2]any{"file", out}); res.StatusCode != 200 {
		t.Fatalf("split of a composed PDF: %d %s", res.StatusCode, must(io.ReadAll(res.Body)))
	}
	// The Anlage (pages 3 and 4) has its own footers: no numbers there, but it counts.
	for i, want := range []string{"Inhalt", "Teil A", "Page 1", "Page 2", "Schluss gut"} {
		numbered := strings.Contains(pages[i], fmt.Sprintf("Seite %d von 5", i+1))
		if !strings.Contains(pages[i], want) || numbered == (i == 2 || i == 3) {
			t.Errorf("page %d: %q", i+1, pages[i])
		}
	}
	toc := strings.Join(strings.Fields(pages[0]), " ")
	for _, want := range []string{"Einleitung 2", "Anlage 3", "Schluss 5"} {
		if !strings.Contains(toc, want) {
			t.Errorf("table of contents lacks %q: %s", want, toc)
		}
	}
	js := testtool.Run(t, "qpdf", "--json", "--json-key=outlines", testtool.File(t, "c.pdf", out))
	var outlines struct {
		Outlines []struct {
			Title string `json:"title"`
		} `json:"outlines"`
	}
	json.Unmarshal([]byte(js), &outlines)
	var titles []string
	for _, o := range outlines.Outlines {
		titles = append(titles, o.Title)
	}
	if strings.Join(titles, ",") != "Inhalt,Einleitung,Anlage,Schluss" {
		t.Errorf("bookmarks %v", titles)
	}
	for name, b := range map[string]string{
		"empty": `{"parts":[]}`,
		"two":   `{"parts":[{"html":"x","pdf":"JVBERg=="}]}`,
		"bad":   `{"parts":[{"pdf":"bm90IGEgcGRm"}]}`,
	} {
		if res := e.do("POST", "/api/documents/compose", testKey, b); res.StatusCode != 400 {
			t.Errorf("%s: %d", name, res.StatusCode)
		}
	}
}

// TestDocumentsGenerateAsync: 202 with a job, a signed webhook on 127.0.0.1 when it is
// done, the document from resultUrl; an internal callback URL is refused by default.
func TestDocumentsGenerateAsync(t *testing.T) {
	type hook struct {
		body []byte
		sig  string
	}
	got := make(chan hook, 1)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- hook{b, r.Header.Get("X-Service-Signature")}
	}))
	defer recv.Close()
	e := newTestEnv(t, func(c *Config) {
		c.Network = netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
		c.WebhookRetries = []time.Duration{50 * time.Millisecond}
	})
	body, _ := json.Marshal(map[string]any{"html": "<h1>Async {{n}}</h1>", "data": map[string]any{"n": "7"}, "callbackUrl": recv.URL, "callbackSecret": "s3cret"})
	res := e.do("POST", "/api/documents/generate-async", testKey, body)
	job := decode(t, res)
	if res.StatusCode != 202 || job["status"] != "queued" || !strings.HasPrefix(job["jobId"].(string), "job_") || res.Header.Get("Location") != job["statusUrl"] {
		t.Fatalf("202: %d %v", res.StatusCode, job)
	}
	var h hook
	select {
	case h = <-got:
	case <-time.After(60 * time.Second):
		t.Fatal("no webhook")
	}
	mac := hmac.New(sha256.New, []byte("s3cret"))
	mac.Write(h.body)
	if h.sig != hex.EncodeToString(mac.Sum(nil)) {
		t.Error("webhook signature does not verify")
	}
	var p map[string]any
	json.Unmarshal(h.body, &p)
	result, _ := p["result"].(map[string]any)
	if p["event"] != "document.generation.completed" || p["jobId"] != job["jobId"] || p["status"] != "completed" || result["url"] != job["resultUrl"] {
		t.Errorf("payload %s", h.body)
	}
	if st := decode(t, e.do("GET", job["statusUrl"].(string), testKey, nil)); st["status"] != "completed" {
		t.Errorf("status %v", st)
	}
	pdf := pdfBody(t, e.do("GET", job["resultUrl"].(string), testKey, nil))
	if !strings.Contains(testtool.Text(t, pdf), "Async 7") {
		t.Error("the job's document lacks its text")
	}
	other := store.NewSecret()
	e.store.CreateKey(t.Context(), &store.Key{Hash: store.Hash(other), ID: store.IDOf(store.Hash(other)), Name: "other", Plan: store.PlanFree})
	wantProblem(t, e.do("GET", job["statusUrl"].(string), other, nil), 404, "not_found")

	plain := newTestEnv(t)
	body, _ = json.Marshal(map[string]any{"html": "x", "callbackUrl": recv.URL})
	wantProblem(t, plain.do("POST", "/api/documents/generate-async", testKey, body), 400, "invalid_input")
	// A template mistake shows in the job, which fails.
	res = plain.do("POST", "/api/documents/generate-async", testKey, `{"html":"{#a}"}`)
	failed := decode(t, res)
	for i := 0; i < 100 && failed["status"] != "failed"; i++ {
		time.Sleep(20 * time.Millisecond)
		failed = decode(t, plain.do("GET", failed["statusUrl"].(string), testKey, nil))
	}
	if failed["status"] != "failed" || !strings.Contains(fmt.Sprint(failed["error"]), "never closed") {
		t.Errorf("failed job: %v", failed)
	}
	wantProblem(t, plain.do("GET", failed["resultUrl"].(string), testKey, nil), 409, "conflict")
}

// TestDocumentsBarcode: {{barcode}} draws Code 128 and EAN-13 that a reader decodes back.
func TestDocumentsBarcode(t *testing.T) {
	e := newTestEnv(t)
	for _, c := range []struct {
		tpl, value string
		reader     gozxing.Reader
	}{
		{`<p>Lieferschein</p>{{barcode number}}`, "LS-2026/00042", oned.NewCode128Reader()},
		{`<p>Artikel</p>{{barcode gtin "ean13" 80}}`, "4006381333931", oned.NewEAN13Reader()},
	} {
		body, _ := json.Marshal(map[string]any{"html": c.tpl, "data": map[string]any{"number": c.value, "gtin": c.value}})
		out := pdfBody(t, e.do("POST", "/api/documents/generate", testKey, body))
		dir := t.TempDir()
		testtool.Run(t, "pdftoppm", "-png", "-r", "150", "-f", "1", "-l", "1", "-singlefile", testtool.File(t, "doc.pdf", out), filepath.Join(dir, "p"))
		fh, err := os.Open(filepath.Join(dir, "p.png"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(fh)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		bmp, _ := gozxing.NewBinaryBitmapFromImage(img)
		res, err := c.reader.Decode(bmp, map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_TRY_HARDER: true})
		if err != nil || res.GetText() != c.value {
			t.Errorf("%s: decoded %v, %v", c.value, res, err)
		}
	}
	wantProblem(t, e.do("POST", "/api/documents/generate", testKey, `{"html":"{{barcode x \"ean13\"}}","data":{"x":"12ab"}}`), 400, "invalid_input")
	wantProblem(t, e.do("POST", "/api/documents/generate", testKey, `{"html":"{{barcode x \"pdf417\"}}","data":{"x":"1"}}`), 400, "invalid_input")
}
