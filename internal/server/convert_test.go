package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/chromium"
	"github.com/papierkram/papierkram/internal/testtool"
)

func htmlBody(t *testing.T, fields map[string]any) string {
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const twoPages = `<html lang="de"><head><title>Bericht</title><style>body{font-family:'Liberation Serif'} h1{font-size:20pt}</style></head>
<body><h1>Jahresbericht</h1><h2>Umsatz</h2><p style="break-after:page">Erste Seite</p><h2>Ausblick</h2><p>Zweite Seite</p></body></html>`

func TestHTMLToPDF(t *testing.T) {
	e := newTestEnv(t)
	b := pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, htmlBody(t, map[string]any{
		"html": twoPages, "format": "A4", "margins": map[string]string{"top": "25mm", "bottom": "25mm", "left": "2cm", "right": "0.75in"},
		"footer": map[string]string{"html": `<div style="font-size:9pt;text-align:center;width:100%">Seite <span class="pageNumber"></span> von <span class="totalPages"></span></div>`, "height": "15mm"},
	})))
	info := testtool.Info(t, b)
	if info["Pages"] != "2" || !strings.HasPrefix(info["Page size"], "595") || !strings.Contains(info["Page size"], "841") && !strings.Contains(info["Page size"], "842") {
		t.Fatalf("pdfinfo %v", info)
	}
	pages := testtool.PageTexts(t, b)
	if !strings.Contains(pages[0], "Jahresbericht") || !strings.Contains(pages[0], "Seite 1 von 2") || !strings.Contains(pages[1], "Zweite Seite") || !strings.Contains(pages[1], "Seite 2 von 2") {
		t.Fatalf("pages %q", pages)
	}
	fonts := testtool.Run(t, "pdffonts", testtool.File(t, "f.pdf", b))
	if !strings.Contains(fonts, "LiberationSerif") {
		t.Fatalf("fonts:\n%s", fonts)
	}
	for _, line := range strings.Split(fonts, "\n")[2:] {
		if f := strings.Fields(line); len(f) >= 5 && f[len(f)-5] != "yes" {
			t.Fatalf("font not embedded:\n%s", fonts)
		}
	}

	// Landscape Letter.
	b = pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, htmlBody(t, map[string]any{"html": "<p>quer</p>", "format": "Letter", "orientation": "landscape"})))
	if info := testtool.Info(t, b); info["Page size"] != "792 x 612 pts (letter)" {
		t.Fatalf("landscape letter: %q", info["Page size"])
	} else if info["Tagged"] != "no" {
		// Untagged without PDF/UA-1: the structure tree costs size and time (decisions.md).
		t.Fatalf("a PDF without PDF/UA-1 is tagged: %v", info)
	}

	// PDF/UA-1: tagged, with an outline of the headings.
	b = pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, htmlBody(t, map[string]any{"html": twoPages, "outputProfile": "PDF/UA-1"})))
	if info := testtool.Info(t, b); info["Tagged"] != "yes" {
		t.Fatalf("PDF/UA-1 not tagged: %v", info)
	}
	if js := testtool.Run(t, "qpdf", "--json", testtool.File(t, "o.pdf", b)); !strings.Contains(js, `"/Outlines"`) || !strings.Contains(js, `"/StructTreeRoot"`) {
		t.Fatal("no outline or structure tree")
	}

	// PDF/A-3b through the one PDF/A step.
	b = pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, htmlBody(t, map[string]any{"html": twoPages, "outputProfile": "PDF/A-3b", "title": "Jahresbericht"})))
	meta := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "a.pdf", b))
	if !strings.Contains(meta, "pdfaid") || !strings.Contains(meta, "Jahresbericht") {
		t.Fatalf("PDF/A XMP:\n%s", meta)
	}
}

func TestHTMLToPDFBadInput(t *testing.T) {
	e := newTestEnv(t)
	for name, c := range map[string]struct {
		body   string
		status int
		code   string
	}{
		"invalid json":      {`{"html":`, 400, "invalid_input"},
		"nothing":           {`{}`, 400, "invalid_input"},
		"both":              {`{"html":"<p>x</p>","url":"https://example.org"}`, 400, "invalid_input"},
		"unknown format":    {`{"html":"<p>x</p>","format":"B5"}`, 400, "invalid_input"},
		"bad margin":        {`{"html":"<p>x</p>","margins":{"top":"ten"}}`, 400, "invalid_input"},
		"huge margin":       {`{"html":"<p>x</p>","margins":{"top":"200mm","bottom":"200mm"}}`, 400, "invalid_input"},
		"http url":          {`{"url":"http://example.org"}`, 400, "invalid_input"},
		"loopback url":      {`{"url":"https://127.0.0.1:1/"}`, 400, "invalid_input"},
		"unknown waitUntil": {`{"html":"<p>x</p>","waitUntil":"idle"}`, 400, "invalid_input"},
	} {
		t.Run(name, func(t *testing.T) {
			wantProblem(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, c.body), c.status, c.code)
		})
	}
	big := htmlBody(t, map[string]any{"html": strings.Repeat("x", 27<<20)})
	wantProblem(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, big), 413, "payload_too_large")
	// Failed conversions used no allowance.
	if u := decode(t, e.do("GET", "/api/usage", testKey, nil)); u["conversions"].(map[string]any)["used"] != float64(0) {
		t.Fatalf("usage after failures: %v", u)
	}
}

func TestHTMLRenderTimeout(t *testing.T) {
	// 5 s leaves the request after the hang (a fresh browser's first print) room on a busy machine.
	cr := chromium.New(engine.Config{Concurrency: 1, TempRoot: t.TempDir(), JobTimeout: 5 * time.Second})
	t.Cleanup(func() { cr.Supervisor().Stop(context.Background()) })
	e := newTestEnv(t, func(c *Config) { c.Printer = cr; c.Engines["chromium"] = cr.Supervisor() })
	wantProblem(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, `{"html":"<script>for(;;){}</script>","executeJs":true}`), 504, "timeout")
	// The browser stays healthy for the next request.
	b := pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, `{"html":"<p>danach</p>"}`))
	if !strings.Contains(testtool.Text(t, b), "danach") {
		t.Fatal("no text after the timeout")
	}
}

// TestQuotaOnConversions: a free key gets exactly 100 successful conversions a month; the
// 101st is refused, also when requests race.
func TestQuotaOnConversions(t *testing.T) {
	e := newTestEnv(t, noRateLimit) // the monthly allowance alone
	key := decode(t, e.do("POST", "/api/admin/keys", testKey, `{"name":"free"}`))["key"].(string)
	var ok, refused atomic.Int64
	var wg sync.WaitGroup
	next := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range next {
				res := e.do("POST", "/v1/convert/html-to-pdf", key, `{"html":"<p>Nr. `+itoaTest(i)+`</p>"}`)
				switch res.StatusCode {
				case 200:
					ok.Add(1)
				case 429:
					refused.Add(1)
				default:
					t.Errorf("conversion %d: %d", i, res.StatusCode)
				}
				res.Body.Close()
			}
		})
	}
	for i := range 104 {
		next <- i
	}
	close(next)
	wg.Wait()
	if ok.Load() != 100 || refused.Load() != 4 {
		t.Fatalf("%d converted, %d refused", ok.Load(), refused.Load())
	}
	p := wantProblem(t, e.do("POST", "/v1/convert/html-to-pdf", key, `{"html":"<p>101</p>"}`), 429, "quota_exceeded")
	if p["resetAt"] != "2026-12-01T00:00:00Z" {
		t.Fatalf("problem %v", p)
	}
}

func itoaTest(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestMarkdownToPDF(t *testing.T) {
	e := newTestEnv(t)
	md := "---\ntitle: Projektbericht\nauthor: Eva Beispiel\ndate: 2026-01-15\n---\n# Einleitung\n\nText mit Fußnote[^1].\n\n" +
		"## Zahlen\n\n| Pos | Artikel | Preis |\n|---|---|---:|\n| 1 | Papier | 4,99 € |\n\n```go\nfunc main() { fmt.Println(\"hallo\") }\n```\n\n" +
		"- [x] erledigt\n- [ ] offen\n\n<script>document.write('BOOM')</script>\n\n[^1]: Die Fußnote.\n"
	res := e.do("POST", "/v1/convert/markdown-to-pdf", testKey, htmlBody(t, map[string]any{"markdown": md, "theme": "technical", "outputProfile": "PDF/UA-1"}))
	if w := res.Header.Get("X-Service-Warning"); w != "" {
		t.Errorf("warning %q", w)
	}
	b := pdfBody(t, res)
	// The code is coloured: the keyword "func" is printed in the palette's keyword red.
	img := testtool.Render(t, b, 1, 100)
	red := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r>>8 > 130 && g>>8 < 80 && bl>>8 < 90 {
				red++
			}
		}
	}
	if red < 20 {
		t.Errorf("%d keyword-red pixels: the code block is not highlighted", red)
	}
	text := testtool.Text(t, b)
	for _, want := range []string{"Einleitung", "1. Zahlen", "Papier", "4,99 €", `fmt.Println("hallo")`, "erledigt", "Die Fußnote."} {
		if !strings.Contains(text, want) {
			t.Errorf("PDF text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "BOOM") {
		t.Error("inline script survived")
	}
	info := testtool.Info(t, b)
	if info["Title"] != "Projektbericht" || info["Author"] != "Eva Beispiel" || !strings.Contains(info["CreationDate"], "Jan 15") || info["Tagged"] != "yes" {
		t.Fatalf("pdfinfo %v", info)
	}
	meta := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "m.pdf", b))
	if !strings.Contains(meta, "Projektbericht") || !strings.Contains(meta, "Eva Beispiel") || !strings.Contains(meta, "2026-01-15") {
		t.Fatalf("XMP:\n%s", meta)
	}
	if js := testtool.Run(t, "qpdf", "--json", testtool.File(t, "o.pdf", b)); !strings.Contains(js, `"/Outlines"`) {
		t.Fatal("no outline")
	}
	wantProblem(t, e.do("POST", "/v1/convert/markdown-to-pdf", testKey, `{"markdown":""}`), 400, "invalid_input")
}

func TestStationeryAndContentArea(t *testing.T) {
	e := newTestEnv(t)
	letterhead := func(text string) string {
		b := pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, htmlBody(t, map[string]any{
			"html": `<div style="position:fixed;bottom:0;right:0;font-size:8pt">` + text + `</div>`, "margins": map[string]string{"top": "0", "bottom": "0", "left": "0", "right": "0"}})))
		return "base64:" + base64.StdEncoding.EncodeToString(b)
	}
	body := htmlBody(t, map[string]any{
		"markdown":    "# Angebot\n\nErster Absatz.\n\n<div style=\"break-after:page\"></div>\n\nZweite Seite.",
		"theme":       "stationery",
		"contentArea": map[string]float64{"x": 30, "y": 60, "width": 150, "height": 180},
		"stationery":  map[string]string{"firstPage": letterhead("BRIEFKOPF ERSTE SEITE"), "subsequentPages": letterhead("FOLGESEITE")},
	})
	b := pdfBody(t, e.do("POST", "/v1/convert/markdown-to-pdf", testKey, body))
	pages := testtool.PageTexts(t, b)
	if len(pages) != 2 || !strings.Contains(pages[0], "Angebot") || !strings.Contains(pages[0], "BRIEFKOPF ERSTE SEITE") ||
		!strings.Contains(pages[1], "Zweite Seite") || !strings.Contains(pages[1], "FOLGESEITE") || strings.Contains(pages[1], "BRIEFKOPF") {
		t.Fatalf("pages %q", pages)
	}
	// The text flows inside the content area (30 mm = 85 pt from the left, 60 mm = 170 pt from the top).
	p := testtool.File(t, "c.pdf", b)
	inside := testtool.Run(t, "pdftotext", "-f", "1", "-l", "1", "-x", "85", "-y", "170", "-W", "425", "-H", "510", p, "-")
	left := testtool.Run(t, "pdftotext", "-f", "1", "-l", "1", "-x", "0", "-y", "0", "-W", "80", "-H", "842", p, "-")
	above := testtool.Run(t, "pdftotext", "-f", "1", "-l", "1", "-x", "0", "-y", "0", "-W", "595", "-H", "165", p, "-")
	if !strings.Contains(inside, "Angebot") || strings.Contains(left+above, "Angebot") || strings.Contains(left+above, "Erster") {
		t.Fatalf("content area: inside %q, left %q, above %q", inside, left, above)
	}
	wantProblem(t, e.do("POST", "/v1/convert/markdown-to-pdf", testKey, `{"markdown":"x","stationery":{"firstPage":"JVBERi0="}}`), 400, "invalid_input")
	wantProblem(t, e.do("POST", "/v1/convert/markdown-to-pdf", testKey, `{"markdown":"x","stationery":{"firstPage":"base64:aGVsbG8="}}`), 400, "invalid_input")
	wantProblem(t, e.do("POST", "/v1/convert/markdown-to-pdf", testKey, `{"markdown":"x","contentArea":{"x":100,"y":10,"width":150,"height":100}}`), 400, "invalid_input")
	// The same stationery works for HTML.
	b = pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, `{"html":"<p>Inhalt</p>","stationery":{"firstPage":"`+letterhead("KOPF")+`"}}`))
	if text := testtool.Text(t, b); !strings.Contains(text, "Inhalt") || !strings.Contains(text, "KOPF") {
		t.Fatalf("html stationery: %q", text)
	}
}
