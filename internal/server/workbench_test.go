package server

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"golang.org/x/text/encoding/charmap"

	"github.com/papierkram/papierkram/engine/chromium"
	"github.com/papierkram/papierkram/internal/testoffice"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testpki"
)

// TestWorkbenchPageIsPublic: the page and its files need no key and carry the CSP; the API
// still does.
func TestWorkbenchPageIsPublic(t *testing.T) {
	e := newTestEnv(t)
	for _, p := range []string{"/", "/app/app.js", "/app/app.css"} {
		res := e.do("GET", p, "", nil)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'self'") {
			t.Errorf("%s: %d, CSP %q", p, res.StatusCode, res.Header.Get("Content-Security-Policy"))
		}
	}
	if ct := e.do("GET", "/", "", nil).Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("content type %q", ct)
	}
	// Unknown paths answer as everywhere: a problem, and nothing before a key is shown.
	wantProblem(t, e.do("GET", "/app/nothing.js", "", nil), 401, "unauthorized")
	wantProblem(t, e.do("GET", "/api/usage", "", nil), 401, "unauthorized")
}

// TestWorkbenchInBrowser drives the workbench in a real Chromium against the real server:
// sign in, check a corpus invoice and a broken one, convert a .docx and see its preview,
// merge two PDFs, extract a receipt and export it as CSV. A failing step leaves a
// screenshot in the test's directory.
func TestWorkbenchInBrowser(t *testing.T) {
	e := newTestEnv(t)
	srv := httptest.NewServer(e.srv.Handler())
	defer srv.Close()
	dir := t.TempDir()
	// Script errors are failures of the page even when a step still passes.
	var (
		mu     sync.Mutex
		thrown []string
	)
	file := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The browser reads uploads from its own working directory: paths must be absolute.
	corpus, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(corpus, "xrechnung-testsuite", "business-cases", "standard", "01.01a-INVOICE_ubl.xml")
	xml, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	// A payable amount that no longer matches the totals: BR-CO-16 fails.
	broken := file("kaputt.xml", []byte(strings.Replace(string(xml), "<cbc:PayableAmount currencyID=\"EUR\">", "<cbc:PayableAmount currencyID=\"EUR\">1", 1)))
	if !strings.Contains(string(xml), "<cbc:PayableAmount currencyID=\"EUR\">") {
		t.Fatal("the corpus invoice changed: no PayableAmount in EUR")
	}
	docx := file("brief.docx", testoffice.Simple("Sehr geehrte Damen und Herren", "Mit freundlichen Grüßen"))
	a, b := file("a.pdf", testpdf.New(2)), file("b.pdf", testpdf.New(3))
	receipt := filepath.Join(corpus, "receipts", "de-scans", "aldi_02032020_19_02423.jpg")

	// Chromium's own temporary files (its singleton socket directory, left when the browser
	// is killed at the end) go to a directory the test removes, not /tmp.
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium.Binary), chromedp.NoSandbox, chromedp.WindowSize(1280, 1600),
		chromedp.Env("TMPDIR="+t.TempDir()))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	// shot records what the page showed when a step failed; each query has its own limit
	// so a wedged page cannot hang the test.
	shot := func(name string) {
		qctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		if b, err := chromedp.Run(qctx, chromedp.FullScreenshot(80)); err == nil {
			t.Logf("screenshot: %s", file(strings.ReplaceAll(name, " ", "-")+".jpg", b))
		} else {
			t.Logf("no screenshot: %v", err)
		}
		mu.Lock()
		t.Logf("script errors so far: %q", thrown)
		mu.Unlock()
		text, err := chromedp.Run(qctx, chromedp.Evaluate[string]("document.body.innerText"))
		t.Logf("page text (%v): %.800s", err, strings.Join(strings.Fields(text), " "))
	}
	step := func(name string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 90*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			shot(name)
			t.Fatalf("%s: %v", name, err)
		}
	}
	read := func(name string, a chromedp.Action[string]) string {
		t.Helper()
		v, err := chromedp.Run(ctx, a)
		if err != nil {
			shot(name)
			t.Fatalf("%s: %v", name, err)
		}
		return v
	}
	attr := func(name, sel, attribute string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(sel), attribute))
		if err != nil {
			shot(name)
			t.Fatalf("%s: %v", name, err)
		}
		return v.Value
	}
	css := func(s string) chromedp.CSS { return chromedp.CSS(s) }
	// audit runs axe-core (pinned in web/a11y, installed by scripts/setup.sh) on the page as
	// it stands: any WCAG 2.1 A or AA violation fails the test.
	axeSrc, err := os.ReadFile(filepath.Join("..", "..", "web", "a11y", "node_modules", "axe-core", "axe.min.js"))
	if err != nil {
		t.Fatalf("axe-core is not installed (bash scripts/setup.sh installs it): %v", err)
	}
	audit := func(name string) {
		t.Helper()
		qctx, cancel := context.WithTimeout(ctx, 90*time.Second)
		defer cancel()
		if _, err := chromedp.Run(qctx, chromedp.Evaluate[bool]("window.axe !== undefined || (function(){"+string(axeSrc)+"\n}).call(window) || true")); err != nil {
			t.Fatalf("%s: loading axe-core: %v", name, err)
		}
		v, err := chromedp.Run(qctx, chromedp.Evaluate[string](`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]}})
			.then((r) => JSON.stringify(r.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" "))}))))`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: axe-core: %v", name, err)
		}
		if v != "[]" {
			t.Errorf("%s: accessibility violations: %s", name, v)
		}
	}
	// The browser lives as long as the context of the first call: no timeout on that one.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			d := e.ExceptionDetails
			msg := d.Text
			if d.Exception != nil {
				msg += " " + d.Exception.Description
			}
			mu.Lock()
			thrown = append(thrown, fmt.Sprintf("%s:%d: %s", d.URL, d.LineNumber+1, msg))
			mu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range thrown {
			t.Errorf("script error: %s", e)
		}
	}()

	// choose picks an option the way a user does: the select changes and says so.
	choose := func(sel, value string) {
		t.Helper()
		js := fmt.Sprintf(`(s => { s.value = %q; s.dispatchEvent(new Event("change", {bubbles: true})); return s.value === %q })(document.querySelector(%q))`, value, value, sel)
		if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js)); err != nil || !ok {
			t.Fatalf("choose %s=%s: %v", sel, value, err)
		}
	}
	// download reads what a download link of the page holds, as the browser would save it.
	download := func(sel string) []byte {
		t.Helper()
		js := fmt.Sprintf(`fetch(document.querySelector(%q).href).then((r) => r.blob()).then((b) => new Promise((ok) => {
			const f = new FileReader(); f.onload = () => ok(String(f.result).split(",")[1]); f.readAsDataURL(b); }))`, sel)
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
		if err != nil {
			shot("download " + sel)
			t.Fatalf("download %s: %v", sel, err)
		}
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	step("open", chromedp.Navigate(srv.URL+"/"), chromedp.WaitVisible(css("#key")))
	audit("sign-in page")
	step("sign in",
		chromedp.SendKeys(css("#key"), testKey),
		chromedp.Click(css(`#signin-form button[type=submit]`)),
		chromedp.WaitVisible(css("#account")),
	)
	if plan := read("plan", chromedp.Text(css("#plan"))); plan != "admin" {
		t.Errorf("plan %q", plan)
	}
	step("valid invoice",
		chromedp.SetUploadFiles(css("#einvoice-file"), []string{good}),
		chromedp.Click(css(`#einvoice-form button[type=submit]`)),
		chromedp.WaitVisible(css(`#verdict[data-valid="true"]`)),
	)
	step("broken invoice",
		chromedp.SetUploadFiles(css("#einvoice-file"), []string{broken}),
		chromedp.Click(css(`#einvoice-form button[type=submit]`)),
		chromedp.WaitVisible(css(`#verdict[data-valid="false"]`)),
	)
	if rule := read("failed rule", chromedp.Text(css(`li[data-rule]`))); !strings.Contains(rule, "BR-CO-16") {
		t.Errorf("first failed rule shown: %q", rule)
	}
	// The failed rule links to its line in the XML source.
	step("rule to line",
		chromedp.Click(css(`li[data-rule] a[data-line]`)),
		chromedp.WaitVisible(css(`#einvoice-xml .line.hit`)),
	)
	audit("validation result")
	step("as CII",
		chromedp.SetUploadFiles(css("#einvoice-file"), []string{good}),
		chromedp.Click(css(`#einvoice-cii`)),
		chromedp.WaitVisible(css(`#einvoice-cii-link`)),
	)
	xmllintSchema(t, download("#einvoice-cii-link"), "cii-d16b/CII/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd")
	step("hybrid PDF",
		chromedp.Click(css(`#einvoice-hybrid`)),
		chromedp.WaitVisible(css(`#einvoice-hybrid-link`)),
	)
	hybrid := file("hybrid.pdf", download("#einvoice-hybrid-link"))
	if out, err := exec.Command("pdfdetach", "-list", hybrid).CombinedOutput(); err != nil || !strings.Contains(string(out), "xrechnung.xml") {
		t.Errorf("pdfdetach -list on the hybrid: %v %s", err, out)
	}
	// And back: the hybrid PDF to an XRechnung in UBL.
	step("hybrid to XRechnung",
		chromedp.SetUploadFiles(css("#einvoice-file"), []string{hybrid}),
		chromedp.Click(css(`#einvoice-ubl`)),
		chromedp.WaitVisible(css(`#einvoice-ubl-link`)),
	)
	xmllintSchema(t, download("#einvoice-ubl-link"), "ubl-2.1/maindoc/UBL-Invoice-2.1.xsd")
	step("convert a docx",
		chromedp.Click(css(`button[aria-controls=convert]`)),
		chromedp.SetUploadFiles(css("#convert-file"), []string{docx}),
		chromedp.Click(css(`#convert-form button[type=submit]`)),
		chromedp.WaitVisible(css(`#convert-pages img[data-page="1"]`)),
	)
	audit("conversion with previews")
	step("merge two PDFs",
		chromedp.Click(css(`button[aria-controls=pdftools]`)),
		chromedp.SetUploadFiles(css("#merge-files"), []string{a, b}),
		chromedp.WaitVisible(css(`#merge-list li:nth-child(2)`)),
		chromedp.Click(css(`#merge-list li:nth-child(2) button`)), // b before a
		chromedp.Click(css(`#merge-form button[type=submit]`)),
		chromedp.WaitVisible(css(`#merge-result`)),
	)
	if pages := attr("merged pages", "#merge-result", "data-pages"); pages != "5" {
		t.Errorf("merged pages %q", pages)
	}
	audit("merge list")
	if first := read("merge order", chromedp.Text(css(`#merge-list li:nth-child(1)`))); !strings.HasPrefix(first, "b.pdf") {
		t.Errorf("order after moving b up: %q", first)
	}
	choose("#pdfone-op", "split")
	step("split",
		chromedp.SetUploadFiles(css("#pdfone-file"), []string{b}),
		chromedp.SendKeys(css("#pdfone-pages"), "1,2-3"),
		chromedp.Click(css(`#pdfone-form button[type=submit]`)),
		chromedp.WaitVisible(css(`#pdfone-parts li:nth-child(2) a`)),
	)
	if n := attr("split parts", "#pdfone-parts", "data-count"); n != "2" {
		t.Errorf("split into %s parts", n)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(document.querySelector("#pdfone-pages").value = "", true)`)); err != nil {
		t.Fatal(err)
	}
	choose("#pdfone-op", "rotate")
	choose("#pdfone-degrees", "90")
	step("rotate page 2",
		chromedp.SetUploadFiles(css("#pdfone-file"), []string{b}),
		chromedp.SendKeys(css("#pdfone-pages"), "2"),
		chromedp.Click(css(`#pdfone-form button[type=submit]`)),
		chromedp.WaitVisible(css(`#pdfone-result`)),
	)
	rotated := file("rotated.pdf", download("#pdfone-link"))
	out, err := exec.Command("pdfinfo", "-f", "1", "-l", "3", rotated).CombinedOutput()
	if info := strings.Join(strings.Fields(string(out)), " "); err != nil || !strings.Contains(info, "Page 2 rot: 90") || !strings.Contains(info, "Page 1 rot: 0") {
		t.Errorf("pdfinfo on the rotated PDF: %v %s", err, info)
	}
	choose("#pdfone-op", "sign")
	p12 := file("firma.p12", testpki.Valid(t).P12(t, "geheim"))
	step("sign",
		chromedp.SetUploadFiles(css("#pdfone-cert"), []string{p12}),
		chromedp.SendKeys(css("#pdfone-password"), "geheim"),
		chromedp.Click(css(`#pdfone-form button[type=submit]`)),
		chromedp.WaitVisible(css(`#pdfone-result`)),
	)
	if pw := read("password emptied", chromedp.Value(css("#pdfone-password"))); pw != "" {
		t.Errorf("the password stays in its field: %q", pw)
	}
	signed := file("signed.pdf", download("#pdfone-link"))
	if out, _ := exec.Command("pdfsig", signed).CombinedOutput(); !strings.Contains(string(out), "Signature #1") {
		t.Errorf("pdfsig on the signed PDF: %s", out)
	}
	choose("#pdfone-op", "verify")
	step("verify",
		chromedp.SetUploadFiles(css("#pdfone-file"), []string{signed}),
		chromedp.Click(css(`#pdfone-form button[type=submit]`)),
		chromedp.WaitVisible(css(`#pdfone-verdict[data-valid="true"]`)),
	)
	audit("PDF tools")
	step("extract a receipt",
		chromedp.Click(css(`button[aria-controls=receipts]`)),
		chromedp.SetUploadFiles(css("#receipts-files"), []string{receipt}),
		chromedp.Click(css(`#receipts-form button[type=submit]`)),
		chromedp.WaitVisible(css(`#receipts-table input[data-field=gross]`)),
	)
	audit("receipt table")
	gross := attr("gross", `#receipts-table input[data-field=gross]`, "value")
	if gross == "" {
		t.Error("no gross amount extracted from the receipt")
	}
	// A correction in the table goes into the export.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("document.querySelector('#receipts-table input[data-field=issuer]').select(), true")); err != nil {
		t.Fatal(err)
	}
	step("correct and export CSV",
		chromedp.SendKeys(css(`#receipts-table input[data-field=issuer]`), "Aldi Süd Korrigiert\t"),
		chromedp.Click(css(`#receipts-csv`)),
		chromedp.WaitVisible(css(`#receipts-csv-link`)),
	)
	csv := attr("csv", "#receipts-csv-link", "data-csv")
	if !strings.Contains(csv, "Aldi Süd Korrigiert") || !strings.Contains(csv, gross) {
		t.Errorf("CSV lacks the corrected issuer or the gross %q: %q", gross, csv)
	}
	choose("#receipts-chart", "SKR04")
	step("export DATEV",
		chromedp.Click(css(`#receipts-datev`)),
		chromedp.WaitVisible(css(`#receipts-datev-link`)),
	)
	batch, err := charmap.Windows1252.NewDecoder().Bytes(download("#receipts-datev-link"))
	if lines := strings.Split(string(batch), "\r\n"); err != nil || len(lines) != 4 || !strings.HasPrefix(lines[0], `"EXTF";700;21;"Buchungsstapel";13;`) ||
		// The booking text ends with the corrected issuer ("USt aufteilen: " before it when
		// the receipt has two rates).
		!strings.Contains(lines[2], `Aldi Süd Korrigiert"`) || !strings.HasPrefix(lines[2], strings.Replace(gross, ".", ",", 1)+`;"S";"EUR";`) {
		t.Errorf("DATEV batch: %v %q", err, batch)
	}
}
