package server

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
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
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
	"golang.org/x/text/encoding/charmap"

	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/internal/testtool"
	"github.com/papierkram/papierkram/llm"
	"github.com/papierkram/papierkram/netguard"
)

const scanDir = "../../../shared/corpus/receipts/de-scans/"

func scan(t *testing.T, name string) []byte {
	b, err := os.ReadFile(scanDir + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReceiptsExtract: a real scan through the whole pipeline, and the 400s of bad files.
func TestReceiptsExtract(t *testing.T) {
	e := newTestEnv(t)
	res := e.upload("/api/receipts/extract", [2]any{"file", scan(t, "aldi_02032020_19_02423.jpg")})
	r := decode(t, res)
	data, _ := r["data"].(map[string]any)
	if res.StatusCode != 200 || r["success"] != true || data["gross"] != "24.23" || data["date"] != "2020-03-02" || data["issuer"] != "ALDI" || data["paymentMethod"] != "CASH" {
		t.Fatalf("%d %v", res.StatusCode, data)
	}
	if data["skr03Account"] != "4980" || data["skr04Account"] != "6850" || r["source"] != "OCR" || r["language"] != "de" || r["country"] != "DE" {
		t.Errorf("accounts/source: %v %v %v %v", data, r["source"], r["language"], r["country"])
	}
	vat, _ := r["vatBreakdown"].([]any)
	checks, _ := r["checks"].([]any)
	if len(vat) < 1 || len(checks) < 2 || !strings.Contains(r["text"].(string), "ZU ZAHLEN") {
		t.Errorf("vat %v checks %v", vat, checks)
	}
	llmInfo, _ := r["llm"].(map[string]any)
	if llmInfo["used"] != false || llmInfo["credits"] != 0.0 {
		t.Errorf("llm %v", llmInfo)
	}

	wantProblem(t, e.upload("/api/receipts/extract", [2]any{"file", []byte("just some text, no image")}), 400, "invalid_input")
	wantProblem(t, e.upload("/api/receipts/extract", [2]any{"file", scan(t, "aldi_02032020_19_02423.jpg")[:300]}), 400, "invalid_input")
	wantProblem(t, e.upload("/api/receipts/extract"), 400, "invalid_input")
	// A blank page has no receipt: 500 extraction_failed carrying the result's members.
	p := wantProblem(t, e.upload("/api/receipts/extract", [2]any{"file", blankPNG(t)}), 500, "extraction_failed")
	if p["success"] != false || p["error"] == "" || p["quality"] == nil {
		t.Errorf("failed extraction body: %v", p)
	}
}

func blankPNG(t *testing.T) []byte {
	img := image.NewGray(image.Rect(0, 0, 800, 1000))
	for i := range img.Pix {
		img.Pix[i] = 250
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestReceiptsBatch: results come back in order, a bad file fails alone, 21 files are 400.
func TestReceiptsBatch(t *testing.T) {
	e := newTestEnv(t)
	res := e.upload("/api/receipts/extract-batch",
		[2]any{"files", scan(t, "lidl_21042020_09_01706.jpg")}, [2]any{"files", []byte("garbage")}, [2]any{"files", scan(t, "toom_04042020_03_04877.jpg")})
	b := decode(t, res)
	results, _ := b["results"].([]any)
	if res.StatusCode != 200 || b["count"] != 3.0 || b["succeeded"] != 2.0 || b["failed"] != 1.0 || len(results) != 3 {
		t.Fatalf("%d %v", res.StatusCode, b)
	}
	gross := func(i int) any { return results[i].(map[string]any)["data"].(map[string]any)["gross"] }
	if gross(0) != "17.06" || gross(2) != "48.77" || results[1].(map[string]any)["success"] != false || !strings.Contains(fmt.Sprint(results[1].(map[string]any)["error"]), "unsupported file type") {
		t.Errorf("results %v %v %v", gross(0), results[1], gross(2))
	}
	var many [][2]any
	for range 21 {
		many = append(many, [2]any{"files", []byte("x")})
	}
	wantProblem(t, e.upload("/api/receipts/extract-batch", many...), 400, "invalid_input")
}

// TestReceiptsAsyncWebhook: the receiver checks the HMAC and the payload; its first answer
// is 500, so the event comes again.
func TestReceiptsAsyncWebhook(t *testing.T) {
	var calls atomic.Int32
	got := make(chan []byte, 4)
	sigs := make(chan string, 4)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- b
		sigs <- r.Header.Get("X-Service-Signature")
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusInternalServerError)
		}
	}))
	defer recv.Close()
	e := newTestEnv(t, func(c *Config) {
		c.Network = netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
		c.WebhookRetries = []time.Duration{50 * time.Millisecond}
	})
	res := e.upload("/api/receipts/extract-async?callbackUrl="+recv.URL+"&callbackSecret=geheim", [2]any{"file", scan(t, "real_24042020_08_02642.jpg")})
	job := decode(t, res)
	if res.StatusCode != 202 || job["status"] != "queued" || job["filename"] != "in.pdf" || res.Header.Get("Location") != job["statusUrl"] {
		t.Fatalf("%d %v", res.StatusCode, job)
	}
	var bodies [][]byte
	for len(bodies) < 2 {
		select {
		case b := <-got:
			bodies = append(bodies, b)
			mac := hmac.New(sha256.New, []byte("geheim"))
			mac.Write(b)
			if sig := <-sigs; sig != hex.EncodeToString(mac.Sum(nil)) {
				t.Errorf("signature %q does not verify", sig)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("%d webhooks", len(bodies))
		}
	}
	if !bytes.Equal(bodies[0], bodies[1]) {
		t.Error("the retry is not the same event")
	}
	var p struct {
		Event, JobID, Status, Filename string
		DurationMs                     *float64
		Result                         struct {
			Success bool
			Data    struct{ Gross, Date string }
		}
	}
	json.Unmarshal(bodies[0], &p)
	if p.Event != "receipt.extraction.completed" || p.JobID != job["jobId"] || p.Status != "completed" || p.Filename != "in.pdf" || p.DurationMs == nil || !p.Result.Success || p.Result.Data.Gross != "26.42" {
		t.Errorf("payload %s", bodies[0])
	}
	st := decode(t, e.do("GET", job["statusUrl"].(string), testKey, nil))
	if r, _ := st["result"].(map[string]any); st["status"] != "completed" || r["data"].(map[string]any)["date"] != "2020-04-24" {
		t.Errorf("status %v", st)
	}
	wantProblem(t, e.upload("/api/receipts/extract-async", [2]any{"file", []byte("not a receipt")}), 400, "invalid_input")
	wantProblem(t, e.upload("/api/receipts/extract-async?callbackUrl=http://169.254.169.254/", [2]any{"file", scan(t, "real_24042020_08_02642.jpg")}), 400, "invalid_input")
}

// fakeModel is an OpenAI-compatible chat completions server on 127.0.0.1 that answers with
// content, after delay.
func fakeModel(t *testing.T, content string, delay time.Duration, seen *atomic.Value) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if seen != nil {
			seen.Store(string(b))
		}
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, "wrong path or key", http.StatusUnauthorized)
			return
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
			return
		}
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": "test-vision",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
			"usage":   map[string]any{"prompt_tokens": 900, "completion_tokens": 120, "total_tokens": 1020},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

const modelAnswer = `{"type":"CASH_RECEIPT","issuer":"ALDI GmbH & Co. KG","issuerAddress":"Pohlweg 110, 33100 Paderborn","issuerVatId":"","date":"2020-03-02","time":"09:48","reference":"8746","currency":"EUR","gross":24.23,"net":22.32,"vat":1.91,"paymentMethod":"CASH","vatBreakdown":[{"rate":7,"net":17.33,"vat":1.21,"gross":18.54},{"rate":19,"net":4.78,"vat":0.91,"gross":5.69}],"items":[{"description":"BIO HONIG","quantity":1,"unitPrice":3.99,"total":3.99}],"language":"de","country":"DE","details":{"from":"","to":"","class":"","nights":null,"litres":null,"fuelType":"","parkingDuration":""}}`

// TestReceiptsLanguageModel: the model's answer is used and reconciled, a credit counted;
// a malformed answer and a timeout fall back to the rules result and say why.
func TestReceiptsLanguageModel(t *testing.T) {
	aldi := scan(t, "aldi_02032020_19_02423.jpg")
	var seen atomic.Value
	good := fakeModel(t, modelAnswer, 0, &seen)
	e := newTestEnv(t, func(c *Config) {
		c.Model = llm.New(llm.Config{BaseURL: good.URL + "/v1", APIKey: "sk-test", Model: "test-vision"})
	})
	r := decode(t, e.upload("/api/receipts/extract", [2]any{"file", aldi}))
	data := r["data"].(map[string]any)
	info := r["llm"].(map[string]any)
	if r["source"] != "LLM" || info["used"] != true || info["credits"] != 1.0 || info["tokens"] != 1020.0 || data["issuer"] != "ALDI GmbH & Co. KG" || data["net"] != "22.32" || data["reference"] != "8746" {
		t.Errorf("model result: %v %v %v", r["source"], info, data)
	}
	if items, _ := r["items"].([]any); len(items) != 1 {
		t.Errorf("items %v", items)
	}
	req, _ := seen.Load().(string)
	if !strings.Contains(req, `"json_schema"`) || !strings.Contains(req, "data:image/jpeg;base64,") && !strings.Contains(req, "data:image/png;base64,") || !strings.Contains(req, "ZU ZAHLEN") {
		t.Errorf("request to the model lacks schema, image or OCR text: %.300s", req)
	}
	usage := decode(t, e.do("GET", "/api/usage", testKey, nil))
	credits := 0.0
	families, _ := usage["families"].([]any)
	for _, f := range families {
		if m := f.(map[string]any); m["family"] == "receipts" {
			credits = m["credits"].(float64)
		}
	}
	if credits != 1 {
		t.Errorf("credits %v: %v", credits, usage)
	}

	// A model that reads the total wrong, with a figure not printed on the receipt: the
	// printed total stands.
	wrong := fakeModel(t, strings.Replace(modelAnswer, `"gross":24.23`, `"gross":74.23`, 1), 0, nil)
	e2 := newTestEnv(t, func(c *Config) {
		c.Model = llm.New(llm.Config{BaseURL: wrong.URL + "/v1", APIKey: "sk-test", Model: "m"})
	})
	if r := decode(t, e2.upload("/api/receipts/extract", [2]any{"file", aldi})); r["data"].(map[string]any)["gross"] != "24.23" {
		t.Errorf("reconciled gross %v", r["data"])
	}

	for name, srv := range map[string]*httptest.Server{
		"malformed": fakeModel(t, `{"type": "SPACESHIP", "gross": "lots"`, 0, nil),
		"timeout":   fakeModel(t, modelAnswer, 5*time.Second, nil),
	} {
		e := newTestEnv(t, func(c *Config) {
			c.Model = llm.New(llm.Config{BaseURL: srv.URL + "/v1", APIKey: "sk-test", Model: "m", Timeout: 700 * time.Millisecond})
		})
		res := e.upload("/api/receipts/extract", [2]any{"file", aldi})
		r := decode(t, res)
		info := r["llm"].(map[string]any)
		if res.StatusCode != 200 || r["source"] != "OCR" || info["used"] != false || info["fallback"] == "" || r["data"].(map[string]any)["gross"] != "24.23" {
			t.Errorf("%s: %d %v %v", name, res.StatusCode, r["source"], info)
		}
	}
}

// TestReceiptsToDocument: the expense report as PDF (text, image page) and DOCX.
func TestReceiptsToDocument(t *testing.T) {
	e := newTestEnv(t)
	res := e.upload("/api/receipts/to-document?title=Spesenbeleg%20M%C3%A4rz", [2]any{"file", scan(t, "aldi_02032020_19_02423.jpg")})
	r := decode(t, res)
	if res.StatusCode != 200 || r["success"] != true || r["contentType"] != "application/pdf" || r["format"] != "PDF" || r["filename"] != "spesenbeleg-2020-03-02.pdf" {
		t.Fatalf("%d %v", res.StatusCode, r["filename"])
	}
	pdf, _ := base64.StdEncoding.DecodeString(r["file"].(string))
	text := testtool.Text(t, pdf)
	for _, want := range []string{"Spesenbeleg März", "ALDI", "24,23 €", "02.03.2020", "4980 / 6850", "Originalbeleg", "Bar"} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	// The report's text pages (as many as its items need), then the receipt's image on a
	// page of its own.
	pages := testtool.PageTexts(t, pdf)
	if n := len(pages); n < 2 || !strings.Contains(pages[n-1], "Originalbeleg") || strings.Contains(pages[n-1], "Positionen") {
		t.Errorf("%d pages, the last:\n%s", n, pages[n-1])
	}
	if imgs := testtool.Run(t, "pdfimages", "-list", "-f", strconv.Itoa(len(pages)), testtool.File(t, "r.pdf", pdf)); strings.Count(imgs, "\n") < 3 {
		t.Errorf("the last page has no image:\n%s", imgs)
	}
	if ext := r["extraction"].(map[string]any); ext["data"].(map[string]any)["gross"] != "24.23" {
		t.Errorf("extraction %v", ext["data"])
	}
	res = e.upload("/api/receipts/to-document?format=DOCX", [2]any{"file", scan(t, "toom_04042020_03_04877.jpg")})
	r = decode(t, res)
	docx, _ := base64.StdEncoding.DecodeString(r["file"].(string))
	if res.StatusCode != 200 || r["format"] != "DOCX" || !bytes.HasPrefix(docx, []byte("PK")) {
		t.Errorf("docx: %d %v", res.StatusCode, r["format"])
	}
	// A stored template gets the same data.
	decode(t, e.uploadAs(testKey, "/api/templates", [2]any{"@file", []byte(`<html><body><h1>Beleg {{issuer}}</h1><p>{{date date}}: {{money gross}} ({{skr04}})</p>{{image image}}</body></html>`)}, [2]any{"name", "beleg"}))
	r = decode(t, e.upload("/api/receipts/to-document?templateName=beleg", [2]any{"file", scan(t, "toom_04042020_03_04877.jpg")}))
	own, _ := base64.StdEncoding.DecodeString(fmt.Sprint(r["file"]))
	if text := testtool.Text(t, own); !strings.Contains(text, "Beleg toom") || !strings.Contains(text, "04.04.2020: 48,77 €") || !strings.Contains(text, "(6845)") {
		t.Errorf("stored template report:\n%s", text)
	}
	wantProblem(t, e.upload("/api/receipts/to-document?templateName=nope", [2]any{"file", scan(t, "toom_04042020_03_04877.jpg")}), 404, "not_found")
}

// TestReceiptsExport: CSV and XLSX read back; an empty array is 400.
func TestReceiptsExport(t *testing.T) {
	e := newTestEnv(t)
	body := `[{"date":"2020-03-02","time":"09:48","type":"CASH_RECEIPT","issuer":"ALDI, Paderborn","currency":"EUR","net":"22.32","vat":"1.91","gross":"24.23","paymentMethod":"CASH","skr03Account":"4980","skr04Account":"6850","expenseCategory":"Sonstiger Betriebsbedarf"},{"date":"2020-04-24","issuer":"real","gross":26.42}]`
	res := e.do("POST", "/api/receipts/export/csv", testKey, body)
	b, _ := io.ReadAll(res.Body)
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil || res.StatusCode != 200 || len(recs) != 3 || res.Header.Get("Content-Type") != "text/csv; charset=utf-8" || recs[0][12] != "Expense Category" || recs[1][3] != "ALDI, Paderborn" || recs[2][8] != "26.42" {
		t.Errorf("csv %d %q %v: %s", res.StatusCode, recs, err, b)
	}
	res = e.do("POST", "/api/receipts/export/xlsx", testKey, body)
	b, _ = io.ReadAll(res.Body)
	f, err := excelize.OpenReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := f.CalcCellValue("Belege", "I4"); v != "50.65" {
		t.Errorf("sum %q", v)
	}
	wantProblem(t, e.do("POST", "/api/receipts/export/csv", testKey, `[]`), 400, "invalid_input")
	wantProblem(t, e.do("POST", "/api/receipts/export/xlsx", testKey, `{"date":"x"}`), 400, "invalid_input")

	res = e.do("POST", "/api/receipts/export/csv?delimiter=;&decimalSeparator=,", testKey, body)
	if b, _ = io.ReadAll(res.Body); !strings.HasPrefix(strings.SplitN(string(b), "\r\n", 3)[1], "2020-03-02;09:48;CASH_RECEIPT;ALDI, Paderborn;;EUR;22,32;1,91;24,23;") {
		t.Errorf("German CSV: %s", b)
	}
	wantProblem(t, e.do("POST", "/api/receipts/export/csv?delimiter=ab", testKey, body), 400, "invalid_input")

	// DATEV: Windows-1252, semicolons, a decimal comma; ALDI's 1.91 on 22.32 is two rates.
	res = e.do("POST", "/api/receipts/export/datev?chart=SKR04&consultant=29098&client=55003", testKey, body)
	b, _ = io.ReadAll(res.Body)
	text, _ := charmap.Windows1252.NewDecoder().Bytes(b)
	r := csv.NewReader(bytes.NewReader(text))
	r.Comma, r.FieldsPerRecord = ';', -1
	recs, err = r.ReadAll()
	if err != nil || res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/csv; charset=windows-1252" || len(recs) != 4 {
		t.Fatalf("datev %d %v: %s", res.StatusCode, err, text)
	}
	if h := recs[0]; h[0] != "EXTF" || h[10] != "29098" || h[11] != "55003" || h[14] != "20200302" || h[15] != "20200424" || h[26] != "04" {
		t.Errorf("datev header %q", h)
	}
	if a, b := recs[2], recs[3]; a[0] != "24,23" || a[6] != "6850" || a[7] != "1600" || a[8] != "" || a[13] != "USt aufteilen: ALDI, Paderborn" ||
		b[0] != "26,42" || b[9] != "2404" {
		t.Errorf("datev bookings %q / %q", a[:14], b[:14])
	}
	wantProblem(t, e.do("POST", "/api/receipts/export/datev?fiscalYearStart=2020-13-01", testKey, body), 400, "invalid_input")
	wantProblem(t, e.do("POST", "/api/receipts/export/datev?chart=SKR99", testKey, body), 400, "invalid_input")
	wantProblem(t, e.do("POST", "/api/receipts/export/datev", testKey, `[{"gross":"1.00"}]`), 400, "invalid_input")
}

const invoiceHTML = `<html><body style="font-family:Liberation Sans;font-size:11pt">
<p>Muster Software GmbH<br>Hauptstraße 5<br>50667 Köln<br>Tel. 0221 987654 · rechnung@muster-software.de</p>
<p>Stadtverwaltung Bonn<br>Berliner Platz 2<br>53111 Bonn</p>
<h1>Rechnung</h1>
<p>Rechnungsnummer: RE-2026-0042<br>Rechnungsdatum: 02.11.2026<br>Leitweg-ID: 04011000-12345-03</p>
<table><tr><td>Beratung 2 x 120,00</td><td>240,00</td></tr><tr><td>Lizenz Jahresabo 1 x 360,00</td><td>360,00</td></tr></table>
<p>Nettobetrag 600,00 EUR<br>USt 19% 600,00 114,00 714,00<br>Gesamtbetrag 714,00 EUR</p>
<p>Zahlbar bis 16.11.2026 ohne Abzug.<br>IBAN DE02 1203 0000 0000 2020 51 · BIC BYLADEM1001<br>USt-IdNr. DE123456789</p>
</body></html>`

// TestXRechnungExtract: a ZUGFeRD PDF is read from its XML; a printed invoice from its text
// and, as a photo, by OCR; the result generates an XRechnung once the missing terms are
// filled in.
func TestXRechnungExtract(t *testing.T) {
	e := newTestEnv(t)
	res := e.upload("/api/xrechnung/extract", [2]any{"file", corpusFile(t, "zugferd/2.3-examples/3. EN16931/EN16931_Einfach/EN16931_Einfach.pdf")})
	r := decode(t, res)
	inv, _ := r["invoice"].(map[string]any)
	if res.StatusCode != 200 || r["source"] != "EMBEDDED_XML" || r["aiExtractionUsed"] != false || inv["number"] != "471102" {
		t.Fatalf("%d %v %v", res.StatusCode, r["source"], inv["number"])
	}
	if !strings.Contains(fmt.Sprint(r["missingFields"]), "BT-10") {
		t.Errorf("the EN16931 example has no Leitweg-ID: %v", r["missingFields"])
	}

	body, _ := json.Marshal(map[string]any{"html": invoiceHTML})
	pdf := pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, body))
	for name, file := range map[string][]byte{"pdf": pdf, "png": renderPNG(t, e, pdf)} {
		res := e.upload("/api/xrechnung/extract", [2]any{"file", file})
		b, _ := io.ReadAll(res.Body)
		var r struct {
			Invoice          json.RawMessage
			MissingFields    []struct{ BT string }
			AIExtractionUsed bool
			Source           string
		}
		json.Unmarshal(b, &r)
		var inv struct {
			Number, IssueDate, BuyerReference string
			Seller                            struct{ Name, VATID string }
			Totals                            struct{ GrossTotal, NetTotal string }
		}
		json.Unmarshal(r.Invoice, &inv)
		wantSource := map[string]string{"pdf": "PDF_TEXT", "png": "OCR"}[name]
		if res.StatusCode != 200 || r.Source != wantSource || r.AIExtractionUsed || inv.Number != "RE-2026-0042" || inv.IssueDate != "2026-11-02" || inv.BuyerReference != "04011000-12345-03" || inv.Totals.GrossTotal != "714.00" || inv.Totals.NetTotal != "600.00" || inv.Seller.Name != "Muster Software GmbH" {
			t.Errorf("%s: %d %s", name, res.StatusCode, b)
			continue
		}
		if name != "pdf" {
			continue
		}
		// Filled in with what the PDF did not show, the invoice generates a valid XRechnung.
		var full map[string]any
		json.Unmarshal(r.Invoice, &full)
		seller := full["seller"].(map[string]any)
		seller["electronicAddress"] = map[string]any{"id": "rechnung@muster-software.de", "scheme": "EM"}
		seller["contact"].(map[string]any)["name"] = "Erika Muster"
		full["buyer"].(map[string]any)["electronicAddress"] = map[string]any{"id": "rechnung@bonn.de", "scheme": "EM"}
		gen, _ := json.Marshal(full)
		xml := e.do("POST", "/api/xrechnung/generate", testKey, gen)
		xb, _ := io.ReadAll(xml.Body)
		if xml.StatusCode != 200 {
			t.Fatalf("generate: %d %s", xml.StatusCode, xb)
		}
		v := decode(t, e.uploadAs(testKey, "/api/xrechnung/validate", [2]any{"@file", xb}))
		if v["valid"] != true {
			var failed []any
			for _, r := range v["results"].([]any) {
				if r.(map[string]any)["passed"] == false {
					failed = append(failed, r.(map[string]any)["id"], r.(map[string]any)["message"])
				}
			}
			t.Errorf("generated XRechnung is not valid: %v", failed)
		}
	}
	// With a language model: its fields fill what the text lacks; the answer says so.
	answer := `{"number":"RE-2026-0042","issueDate":"2026-11-02","dueDate":"2026-11-16","currency":"EUR","buyerReference":"04011000-12345-03","paymentTerms":"","seller":{"name":"Muster Software GmbH","street":"Hauptstraße 5","postCode":"50667","city":"Köln","country":"DE","vatId":"DE123456789","taxNumber":"","email":"rechnung@muster-software.de","phone":"0221 987654","contactName":"Erika Muster"},"buyer":{"name":"Stadtverwaltung Bonn","street":"Berliner Platz 2","postCode":"53111","city":"Bonn","country":"DE","vatId":"","taxNumber":"","email":"","phone":"","contactName":""},"iban":"DE02120300000000202051","bic":"BYLADEM1001","netTotal":600,"vatTotal":114,"grossTotal":714,"vatBreakdown":[{"rate":19,"net":600,"vat":114,"gross":714}],"lines":[{"name":"Beratung","quantity":2,"unitPrice":120,"netAmount":240,"vatRate":19},{"name":"Lizenz Jahresabo","quantity":1,"unitPrice":360,"netAmount":360,"vatRate":19}]}`
	model := fakeModel(t, answer, 0, nil)
	withModel := newTestEnv(t, func(c *Config) {
		c.Model = llm.New(llm.Config{BaseURL: model.URL + "/v1", APIKey: "sk-test", Model: "m"})
	})
	r = decode(t, withModel.upload("/api/xrechnung/extract", [2]any{"file", pdf}))
	inv, _ = r["invoice"].(map[string]any)
	if r["aiExtractionUsed"] != true || r["source"] != "LLM" || inv["seller"].(map[string]any)["contact"].(map[string]any)["name"] != "Erika Muster" || strings.Contains(fmt.Sprint(r["missingFields"]), "BT-41") {
		t.Errorf("with a model: %v %v %v", r["aiExtractionUsed"], r["source"], r["missingFields"])
	}
	wantProblem(t, e.upload("/api/xrechnung/extract", [2]any{"file", []byte("<xml/>")}), 400, "invalid_input")
	wantProblem(t, e.upload("/api/xrechnung/extract", [2]any{"file", blankPNG(t)}), 500, "extraction_failed")
}

func renderPNG(t *testing.T, e *testEnv, pdf []byte) []byte {
	imgs, err := e.srv.cfg.Renderer.Render(t.Context(), pdf, []int{1}, poppler.RenderOptions{DPI: 200, Format: poppler.PNG})
	if err != nil {
		t.Fatal(err)
	}
	return imgs[0]
}
