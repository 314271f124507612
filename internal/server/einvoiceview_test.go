package server

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/internal/testtool"
)

func corpusBytes(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "corpus", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVisualizeAndCreate: the view of a UBL credit note as HTML and as PDF/A, the view of a
// ZUGFeRD PDF, a hybrid created from a UBL XRechnung that our own validate accepts and every
// PDF endpoint reads back, metering, and the refusals.
func TestVisualizeAndCreate(t *testing.T) {
	e := newTestEnv(t)
	credit := corpusBytes(t, "en16931/examples-ubl/ubl-tc434-creditnote1.xml")

	res := e.upload("/api/xrechnung/visualize", [2]any{"file", credit})
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	html := string(body)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || res.Header.Get("X-Service-Syntax") != "UBL" {
		t.Fatalf("%d %q %q: %.300s", res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("X-Service-Syntax"), body)
	}
	if !strings.Contains(html, `lang="de"`) || !strings.Contains(html, "Gutschrift") || strings.Contains(strings.ToLower(html), "<script") {
		t.Fatalf("not the German view of a credit note: %.500s", html)
	}

	view := pdfBody(t, e.upload("/api/xrechnung/visualize?format=pdf&language=en", [2]any{"file", credit}))
	pages, _ := strconv.Atoi(testtool.Info(t, view)["Pages"])
	if pages < 1 || !strings.Contains(testtool.Text(t, view), "Credit note") {
		t.Fatalf("%d pages: %.300s", pages, testtool.Text(t, view))
	}
	if l := testtool.Run(t, "pdfdetach", "-list", testtool.File(t, "view.pdf", view)); !strings.Contains(l, ".xml") {
		t.Fatalf("the view carries no XML: %s", l)
	}
	e.readBack(t, view, pages)

	hybrid := corpusBytes(t, "zugferd/2.3-examples/3. EN16931/EN16931_Einfach/EN16931_Einfach.pdf")
	res = e.upload("/api/xrechnung/visualize?language=fr", [2]any{"file", hybrid})
	body, _ = io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("X-Service-Profile") != "EN16931" || !strings.Contains(string(body), "Facture") {
		t.Fatalf("%d %q: %.300s", res.StatusCode, res.Header.Get("X-Service-Profile"), body)
	}

	free := e.freeKey(t, "create")
	xr := corpusBytes(t, "xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_ubl.xml")
	res = e.uploadAs(free, "/api/zugferd/create", [2]any{"@file", xr})
	made := pdfBody(t, res)
	if res.Header.Get("X-Service-Profile") != "XRECHNUNG" || res.Header.Get("X-Service-Embedded-File") != "xrechnung.xml" {
		t.Fatalf("headers %v", res.Header)
	}
	if used := usedConversions(t, e, free); used != 1 {
		t.Fatalf("create used %v conversions, want 1", used)
	}
	if v := decode(t, e.upload("/api/zugferd/validate", [2]any{"file", made})); v["valid"] != true {
		t.Fatalf("our own validate refuses the hybrid: %v", v)
	}
	pages, _ = strconv.Atoi(testtool.Info(t, made)["Pages"])
	e.readBack(t, made, pages)

	broken := []byte(strings.Replace(string(xr), "<cbc:PayableAmount currencyID=\"EUR\">", "<cbc:PayableAmount currencyID=\"EUR\">9", 1))
	p := wantProblem(t, e.upload("/api/zugferd/create", [2]any{"file", broken}), 400, "invalid_input")
	if _, ok := p["report"].(map[string]any); !ok {
		t.Fatalf("the refusal carries no report: %v", p)
	}
	wantProblem(t, e.upload("/api/xrechnung/visualize", [2]any{"file", []byte("%PDF-1.4 not really")}), 400, "invalid_pdf")
	wantProblem(t, e.upload("/api/xrechnung/visualize", [2]any{"file", []byte("<a>no invoice</a>")}), 400, "invalid_input")
	wantProblem(t, e.upload("/api/xrechnung/visualize?language=it", [2]any{"file", credit}), 400, "invalid_input")
}
