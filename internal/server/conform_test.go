package server

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/internal/testoffice"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

// validation is what /api/pdf-tools/validate answers.
type validation struct {
	Profile   string `json:"profile"`
	Compliant bool   `json:"compliant"`
	Failed    []struct {
		Rule      string   `json:"rule"`
		Count     int      `json:"count"`
		Locations []string `json:"locations"`
	} `json:"failed"`
	Checked int `json:"checkedRules"`
}

func (e *testEnv) validatePDFA(t *testing.T, pdf []byte, query string) validation {
	t.Helper()
	res := e.uploadAs(testKey, "/api/pdf-tools/validate"+query, [2]any{"@file", pdf})
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("validate: %d %s", res.StatusCode, b)
	}
	var v validation
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if v.Checked < 20 {
		t.Fatalf("only %d rules checked", v.Checked)
	}
	return v
}

// TestValidateEndpoint: a veraPDF corpus file that uses DeviceCMYK without an output intent
// fails 6.2.4.3-3, as JSON and as a page; what is not a PDF, or a profile we do not check,
// is 400.
func TestValidateEndpoint(t *testing.T) {
	e := newTestEnv(t)
	bad := corpusFile(t, "verapdf/PDF_A-2b/6.2 Graphics/6.2.4.3 Uncalibrated -Device colour spaces/veraPDF test suite 6-2-4-3-t02-fail-a.pdf")
	v := e.validatePDFA(t, bad, "")
	if v.Compliant || v.Profile != "PDF/A-2B" || len(v.Failed) != 1 || v.Failed[0].Rule != "6.2.4.3-3" || len(v.Failed[0].Locations) == 0 {
		t.Errorf("report %+v", v)
	}
	if v := e.validatePDFA(t, bad, "?profile=pdf/a-3b"); v.Profile != "PDF/A-3B" || v.Compliant {
		t.Errorf("with profile: %+v", v)
	}
	res := e.uploadAs(testKey, "/api/pdf-tools/validate?format=html", [2]any{"@file", bad})
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(page), "not compliant") || !strings.Contains(string(page), "6.2.4.3-3") {
		t.Errorf("html: %d %q %.300s", res.StatusCode, res.Header.Get("Content-Type"), page)
	}
	if c := res.Header.Get("X-Service-Compliant"); c != "false" {
		t.Errorf("X-Service-Compliant %q", c)
	}
	wantProblem(t, e.uploadAs(testKey, "/api/pdf-tools/validate", [2]any{"@file", []byte("no PDF")}), 400, "invalid_pdf")
	wantProblem(t, e.uploadAs(testKey, "/api/pdf-tools/validate?profile=PDF/A-1b", [2]any{"@file", bad}), 400, "invalid_input")
}

// TestOwnPDFAConforms feeds every PDF/A this service writes back to its validator: HTML,
// Markdown, Word and Excel conversions with PDF/A output, the PDF/A endpoint and a
// ZUGFeRD embed. Each must conform to PDF/A-3B.
func TestOwnPDFAConforms(t *testing.T) {
	e := newTestEnv(t)
	inv, _ := json.Marshal(einvoice.Example())
	outputs := map[string][]byte{
		"html-to-pdf": pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, htmlBody(t, map[string]any{
			"html":          `<html><head><title>Rechnung</title></head><body><h1>Rechnung 4711</h1><p style="color:#c00;opacity:.5">Übertrag: 1.234,56 €</p><img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="></body></html>`,
			"outputProfile": "PDF/A-3b"}))),
		"markdown-to-pdf": pdfBody(t, e.do("POST", "/v1/convert/markdown-to-pdf", testKey, htmlBody(t, map[string]any{
			"markdown": "---\ntitle: Bericht\n---\n# Bericht\n\n| A | B |\n|---|---|\n| 1 | 2 |\n", "outputProfile": "PDF/A-3b"}))),
		"word-to-pdf": pdfBody(t, e.postParts("/v1/convert/word-to-pdf", "brief.docx", testoffice.Simple("Sehr geehrte Damen und Herren,", "anbei die Rechnung."), "outputProfile", "PDF/A-3b")),
		"pdfa":        pdfBody(t, e.uploadAs(testKey, "/api/pdf-tools/pdfa", [2]any{"@file", testpdf.New(3)})),
		"zugferd":     pdfBody(t, e.uploadAs(testKey, "/api/zugferd/embed", [2]any{"@file", testpdf.New(1)}, [2]any{"invoice", string(inv)})),
	}
	for name, pdf := range outputs {
		v := e.validatePDFA(t, pdf, "?profile=PDF/A-3b")
		if !v.Compliant {
			t.Errorf("%s: our own PDF/A fails: %+v", name, v.Failed)
		}
	}
}

// TestPDFUAOutput: html-to-pdf with PDF/UA-1 identifies itself (pdfuaid), maps Chromium's
// Strong and Em, and passes the PDF/UA-1 rules when every image has alternate text; an
// image without it is named in X-Service-Warning and fails 7.3-1.
func TestPDFUAOutput(t *testing.T) {
	e := newTestEnv(t)
	img := `<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==" width="40" height="40"`
	page := func(alt string) string {
		return `<!doctype html><html lang="de"><head><title>Bericht 2026</title></head><body><h1>Bericht</h1><h2>Teil</h2><p>Ein <strong>wichtiger</strong> und <em>betonter</em> Satz, <a href="https://example.org">ein Link</a>.</p>` +
			img + ` alt="Logo">` + img + alt + `><table><tr><th>A</th></tr><tr><td>1</td></tr></table></body></html>`
	}
	res := e.do("POST", "/v1/convert/html-to-pdf", testKey, htmlBody(t, map[string]any{"html": page(` alt="Unterschrift"`), "outputProfile": "PDF/UA-1"}))
	if w := res.Header.Get("X-Service-Warning"); w != "" {
		t.Errorf("warning for a page whose images all have alt: %q", w)
	}
	good := pdfBody(t, res)
	if meta := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "ua.pdf", good)); !strings.Contains(meta, "<pdfuaid:part>1</pdfuaid:part>") || !strings.Contains(meta, "Bericht 2026") {
		t.Errorf("XMP: %s", meta)
	}
	if out, err := exec.Command("pdfinfo", "-struct", testtool.File(t, "ua.pdf", good)).CombinedOutput(); err != nil || strings.Contains(string(out), "Error") || !strings.Contains(string(out), "Figure") {
		t.Errorf("pdfinfo -struct: %v %s", err, out)
	}
	if v := e.validatePDFA(t, good, "?profile=PDF/UA-1"); !v.Compliant || v.Profile != "PDF/UA-1" {
		t.Errorf("PDF/UA-1: %+v", v)
	}
	res = e.do("POST", "/v1/convert/html-to-pdf", testKey, htmlBody(t, map[string]any{"html": page(""), "outputProfile": "PDF/UA-1"}))
	if w := res.Header.Get("X-Service-Warning"); !strings.Contains(w, "1 image(s) have no alternate text") {
		t.Errorf("X-Service-Warning %q", w)
	}
	v := e.validatePDFA(t, pdfBody(t, res), "?profile=PDF/UA-1")
	if v.Compliant || len(v.Failed) != 1 || v.Failed[0].Rule != "7.3-1" || v.Failed[0].Count != 1 {
		t.Errorf("without alt: %+v", v)
	}
}
