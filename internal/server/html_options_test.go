package server

import (
	"fmt"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/internal/testtool"
)

// latePage draws its text 300 ms after its script starts, and a bar that grows to full
// height over 600 ms (as chart libraries animate); window.done marks the end.
const latePage = `<!doctype html><html><head><title>Spät</title></head><body><div id="box"></div>
<div id="bar" style="width:200px;height:0;background:#000"></div>
<script>
setTimeout(function () { var s = document.createElement("p"); s.id = "late"; s.textContent = "Spaet gezeichnet"; document.getElementById("box").appendChild(s); }, 300);
var t0 = performance.now();
(function grow() { var h = Math.min(600, (performance.now() - t0)); document.getElementById("bar").style.height = h + "px"; if (h < 600) requestAnimationFrame(grow); else window.done = true; })();
</script></body></html>`

// barHeight is how much of the page's first column is dark: the bar's drawn height in pixels
// at 50 dpi.
func barHeight(t *testing.T, pdf []byte) int {
	img := testtool.Render(t, pdf, 1, 50)
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Min.X+b.Dx()/3; x++ {
			if r, g, bl, _ := img.At(x, y).RGBA(); r+g+bl < 3*0x4000 {
				n++
				break
			}
		}
	}
	return n
}

// TestWaitingForLateContent: without waiting, the late text is missing and the bar short;
// waitForSelector, waitForExpression and waitDelay each get them printed; the waits are
// checked before any rendering.
func TestWaitingForLateContent(t *testing.T) {
	e := newTestEnv(t)
	convert := func(fields map[string]any) []byte {
		fields["html"], fields["executeJs"] = latePage, true
		return pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, htmlBody(t, fields)))
	}
	plain := convert(map[string]any{})
	if strings.Contains(testtool.Text(t, plain), "Spaet gezeichnet") {
		t.Fatal("the late text is there without waiting: the page is not late enough to test anything")
	}
	full := 600 * 50 / 96 // 600 CSS px at 50 dpi
	if h := barHeight(t, plain); h >= full-5 {
		t.Fatalf("the bar is full (%d px) without waiting", h)
	}
	for name, fields := range map[string]map[string]any{
		"waitForSelector":   {"waitForSelector": "#late"},
		"waitForExpression": {"waitForExpression": "window.done === true"},
		"waitDelay":         {"waitDelay": "1500ms"},
	} {
		pdf := convert(fields)
		if !strings.Contains(testtool.Text(t, pdf), "Spaet gezeichnet") {
			t.Errorf("%s: the late text is missing", name)
		}
		if name != "waitForSelector" { // the selector is there before the bar is done
			if h := barHeight(t, pdf); h < full-5 {
				t.Errorf("%s: bar %d px, want about %d", name, h, full)
			}
		}
	}
	// networkidle0's quiet window counts from the load event: the late text (300 ms) is
	// not waited for by it, but nothing breaks either.
	pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, htmlBody(t, map[string]any{"html": latePage, "executeJs": true, "waitUntil": "networkidle0"})))

	for name, c := range map[string]struct {
		fields map[string]any
		field  string
	}{
		"delay over 30 s":              {map[string]any{"html": "<p>x</p>", "waitDelay": "31s"}, "waitDelay"},
		"delay not a duration":         {map[string]any{"html": "<p>x</p>", "waitDelay": "bald"}, "waitDelay"},
		"expression without js":        {map[string]any{"html": "<p>x</p>", "waitForExpression": "true"}, "waitForExpression"},
		"selector the browser rejects": {map[string]any{"html": "<p>x</p>", "waitForSelector": "p[[["}, "waitForSelector"},
	} {
		p := wantProblem(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, htmlBody(t, c.fields)), 400, "invalid_input")
		if p["field"] != c.field {
			t.Errorf("%s: %v", name, p)
		}
	}
	// A selector that never matches ends with the job's time limit, saying what it waited for.
	p := wantProblem(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, htmlBody(t, map[string]any{"html": "<p>x</p>", "waitForSelector": "#never"})), 504, "timeout")
	if !strings.Contains(p["detail"].(string), "#never") {
		t.Errorf("timeout detail %v", p["detail"])
	}
}

// TestPreferCSSPageSize: @page { size: A5 landscape } wins only when asked.
func TestPreferCSSPageSize(t *testing.T) {
	e := newTestEnv(t)
	html := `<style>@page { size: A5 landscape }</style><p>Quer auf A5</p>`
	for _, prefer := range []bool{false, true} {
		pdf := pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, htmlBody(t, map[string]any{"html": html, "preferCssPageSize": prefer})))
		// Without it the paper stays A4 (Chromium still takes the CSS orientation).
		if size := roundSize(testtool.Info(t, pdf)["Page size"]); (size == "595 x 420") != prefer {
			t.Errorf("preferCssPageSize %v: %s", prefer, size)
		}
	}
}

// TestBandsInsideMargins: a right-aligned footer ends at the right margin, a left-aligned
// header starts at the left margin, not at the paper's edges.
func TestBandsInsideMargins(t *testing.T) {
	e := newTestEnv(t)
	pdf := pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, htmlBody(t, map[string]any{
		"html":    "<p>Inhalt</p>",
		"margins": map[string]string{"left": "25mm", "right": "30mm", "top": "20mm", "bottom": "20mm"},
		"header":  map[string]string{"html": `<div style="text-align:left">LINKSBUENDIG</div>`},
		"footer":  map[string]string{"html": `<div style="text-align:right">RECHTSBUENDIG</div>`},
	})))
	bbox := testtool.Run(t, "pdftotext", "-bbox", testtool.File(t, "bands.pdf", pdf), "-")
	const mm = 72 / 25.4
	for word, check := range map[string]func(xMin, xMax float64) bool{
		"LINKSBUENDIG":  func(xMin, _ float64) bool { return xMin > 25*mm-2*mm && xMin < 25*mm+2*mm },
		"RECHTSBUENDIG": func(_, xMax float64) bool { return xMax < 595.3-30*mm+2*mm && xMax > 595.3-30*mm-2*mm },
	} {
		var xMin, xMax float64
		for _, line := range strings.Split(bbox, "\n") {
			if strings.Contains(line, ">"+word+"<") {
				fmt.Sscanf(line[strings.Index(line, "xMin="):], `xMin="%f" yMin="%f" xMax="%f"`, &xMin, new(float64), &xMax)
			}
		}
		if !check(xMin, xMax) {
			t.Errorf("%s spans %.1f–%.1f pt", word, xMin, xMax)
		}
	}
}

// TestPDFTitle: the title is the request's, else the page's <title> (or the Markdown front
// matter's), else none: never "about:blank".
func TestPDFTitle(t *testing.T) {
	e := newTestEnv(t)
	title := func(path string, body map[string]any) (string, string) {
		pdf := pdfBody(t, e.do("POST", path, testKey, htmlBody(t, body)))
		return testtool.Info(t, pdf)["Title"], testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "t.pdf", pdf))
	}
	for name, c := range map[string]struct {
		path string
		body map[string]any
		want string
	}{
		"no title":          {"/v1/convert/html-to-pdf", map[string]any{"html": "<p>ohne Titel</p>"}, ""},
		"<title>":           {"/v1/convert/html-to-pdf", map[string]any{"html": "<title>Rechnung 7</title><p>x</p>"}, "Rechnung 7"},
		"title field wins":  {"/v1/convert/html-to-pdf", map[string]any{"html": "<title>Seite</title><p>x</p>", "title": "Angebot 12"}, "Angebot 12"},
		"markdown plain":    {"/v1/convert/markdown-to-pdf", map[string]any{"markdown": "# Kopf\n\nText"}, ""},
		"markdown titled":   {"/v1/convert/markdown-to-pdf", map[string]any{"markdown": "---\ntitle: Protokoll\n---\n# Kopf"}, "Protokoll"},
		"generate untitled": {"/api/documents/generate", map[string]any{"html": "<p>{{n}}</p>", "data": map[string]any{"n": "1"}}, ""},
	} {
		got, xmp := title(c.path, c.body)
		if got != c.want || strings.Contains(xmp, "about:blank") || c.want == "" && strings.Contains(xmp, "<dc:title>") {
			t.Errorf("%s: title %q (want %q), XMP %.300q", name, got, c.want, xmp)
		}
	}
}
