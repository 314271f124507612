package server

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/internal/testtool"
)

// TestZugferdEmbed: a plain PDF and an invoice become an XRechnung PDF/A-3 that our
// validate calls valid and pdfdetach lists; the Base64 form embeds into a PDF/A-3 as is; an
// invoice failing its rules is 400 with the report, and malformed requests are 400.
func TestZugferdEmbed(t *testing.T) {
	e := newTestEnv(t)
	plain := corpusFile(t, "pdf/invoice-blanks/MustangGnuaccountingBeispielRE-20170509_505PDF14.pdf")
	a3 := corpusFile(t, "pdf/invoice-blanks/MustangGnuaccountingBeispielRE-20201121_508blankoA3.pdf")
	inv, _ := json.Marshal(einvoice.Example())

	res := e.uploadAs(testKey, "/api/zugferd/embed", [2]any{"@file", plain}, [2]any{"invoice", string(inv)}, [2]any{"profile", "xrechnung"})
	if cd := res.Header.Get("Content-Disposition"); !strings.Contains(cd, `-xrechnung.pdf"`) {
		t.Errorf("Content-Disposition %q", cd)
	}
	out := pdfBody(t, res)
	testtool.QPDFCheck(t, out)
	if list := testtool.Run(t, "pdfdetach", "-list", testtool.File(t, "x.pdf", out)); !strings.Contains(list, "1: xrechnung.xml") {
		t.Errorf("pdfdetach: %s", list)
	}
	rep := decode(t, e.upload("/api/zugferd/validate", [2]any{"file", out}))
	if rep["valid"] != true || rep["profile"] != "XRECHNUNG" || rep["fileName"] != "xrechnung.xml" {
		t.Errorf("validate of the embedded file: %v %v %v", rep["valid"], rep["profile"], rep["fileName"])
	}
	if info := testtool.Info(t, out); info["Title"] != "Invoice "+einvoice.Example().Number {
		t.Errorf("title %q of an untitled PDF", info["Title"])
	}

	body, _ := json.Marshal(map[string]any{"file": base64.StdEncoding.EncodeToString(a3), "filename": "blank.pdf", "invoice": json.RawMessage(inv), "profile": "BASIC", "title": "Rechnung"})
	res = e.do("POST", "/api/zugferd/embed/base64", testKey, body)
	out = pdfBody(t, res)
	if !strings.HasPrefix(string(out), string(a3)) {
		t.Error("a PDF/A-3 input was not kept byte for byte under the update")
	}
	ex := decode(t, e.upload("/api/zugferd/extract", [2]any{"file", out}))
	if ex["profile"] != "BASIC" || ex["fileName"] != "factur-x.xml" {
		t.Errorf("extract: %v %v", ex["profile"], ex["fileName"])
	}
	if info := testtool.Info(t, out); info["Title"] != "Rechnung" {
		t.Errorf("title %q", info["Title"])
	}

	bad := einvoice.Example()
	bad.Totals.AmountDue = einvoice.MustDecimal("1.00")
	badJSON, _ := json.Marshal(bad)
	p := wantProblem(t, e.uploadAs(testKey, "/api/zugferd/embed", [2]any{"@file", a3}, [2]any{"invoice", string(badJSON)}), 400, "invalid_input")
	report, _ := p["report"].(map[string]any)
	if report == nil || report["valid"] != false || !strings.Contains(p["detail"].(string), "BR-CO-16") {
		t.Errorf("invalid invoice: %v / report %v", p["detail"], report != nil)
	}
	for name, parts := range map[string][][2]any{
		"bad profile":  {{"@file", a3}, {"invoice", string(inv)}, {"profile", "PLATINUM"}},
		"no invoice":   {{"@file", a3}},
		"not json":     {{"@file", a3}, {"invoice", "<Invoice/>"}},
		"unknown key":  {{"@file", a3}, {"invoice", `{"number":"1","colour":"red"}`}},
		"not a pdf":    {{"@file", []byte("hello")}, {"invoice", string(inv)}},
		"invalid json": {{"@file", a3}, {"invoice", `{"number":`}},
	} {
		res := e.uploadAs(testKey, "/api/zugferd/embed", parts...)
		if res.StatusCode != 400 {
			t.Errorf("%s: status %d", name, res.StatusCode)
		}
		res.Body.Close()
	}
	body, _ = json.Marshal(map[string]any{"file": base64.StdEncoding.EncodeToString(a3)})
	wantProblem(t, e.do("POST", "/api/zugferd/embed/base64", testKey, body), 400, "invalid_input")
}

// TestZugferdToXRechnung: the XML by default, JSON with the report on request, 422 with
// the report for a source XRechnung's rules reject, 400 for ZUGFeRD 1.0 and bad options.
func TestZugferdToXRechnung(t *testing.T) {
	e := newTestEnv(t)
	xr := corpusFile(t, "zugferd/2.3-examples/5. XRECHNUNG/XRECHNUNG_Einfach/XRECHNUNG_Einfach.pdf")
	en := corpusFile(t, "zugferd/2.3-examples/3. EN16931/EN16931_Einfach/EN16931_Einfach.pdf")
	const path = "/v1/convert/zugferd-to-xrechnung"

	res := e.uploadAs(testKey, path, [2]any{"@document", xr})
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/xml" {
		t.Fatalf("status %d, %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	body := string(readAll(t, res))
	if !strings.Contains(body, "<Invoice xmlns=\"urn:oasis:names:specification:ubl:schema:xsd:Invoice-2\"") || !strings.Contains(body, "xrechnung_3.0") {
		t.Errorf("not a UBL XRechnung 3.0: %.300s", body)
	}

	res = e.uploadAs(testKey, path, [2]any{"@document", xr}, [2]any{"targetSyntax", "CII"}, [2]any{"includeValidationReport", "true"}, [2]any{"targetVersion", "2.3"})
	out := decode(t, res)
	rep, _ := out["report"].(map[string]any)
	if out["syntax"] != "CII" || out["xrechnungVersion"] != "2.3" || out["sourceProfile"] != "XRECHNUNG" || rep == nil || rep["valid"] != true ||
		!strings.Contains(out["xml"].(string), "rsm:CrossIndustryInvoice") {
		t.Errorf("with report: %v %v %v valid %v", out["syntax"], out["xrechnungVersion"], out["sourceProfile"], rep["valid"])
	}

	p := wantProblem(t, e.uploadAs(testKey, path, [2]any{"@document", en}, [2]any{"leitwegId", "04011000-12345-03"}), 422, "unprocessable")
	if rep, _ := p["report"].(map[string]any); rep == nil || !strings.Contains(p["detail"].(string), "BR-DE-2") {
		t.Errorf("EN16931 without seller contact: %v", p["detail"])
	}
	res = e.uploadAs(testKey, path, [2]any{"@document", en}, [2]any{"validate", "false"})
	if b := readAll(t, res); res.StatusCode != 200 || !strings.Contains(string(b), "xrechnung_3.0") {
		t.Errorf("validate=false: %d", res.StatusCode)
	}
	p = wantProblem(t, e.uploadAs(testKey, path, [2]any{"@document", corpusFile(t, "zugferd/2.3-examples/0. MINIMUM/MINIMUM_Rechnung/MINIMUM_Rechnung.pdf")}), 422, "unprocessable")
	if !strings.Contains(p["detail"].(string), "BG-25") {
		t.Errorf("MINIMUM: %v", p["detail"])
	}
	p = wantProblem(t, e.uploadAs(testKey, path, [2]any{"@document", corpusFile(t, "zugferd/zugferd10/ZUGFeRD_1p0_BASIC_Einfach.pdf")}), 400, "invalid_input")
	if !strings.Contains(p["detail"].(string), "ZUGFeRD 1.0") {
		t.Errorf("1.0: %v", p["detail"])
	}
	wantProblem(t, e.uploadAs(testKey, path, [2]any{"@document", en}, [2]any{"enforceLeitwegId", "true"}), 422, "unprocessable")
	for name, parts := range map[string][][2]any{
		"syntax":  {{"@document", xr}, {"targetSyntax", "JSON"}},
		"version": {{"@document", xr}, {"targetVersion", "9"}},
		"bool":    {{"@document", xr}, {"validate", "maybe"}},
		"id":      {{"@document", xr}, {"leitwegId", "123"}},
		"mode":    {{"@document", xr}, {"leitwegIdMode", "merge"}},
		"no doc":  {{"targetSyntax", "UBL"}},
		"not pdf": {{"@document", []byte("<x/>")}},
		"unknown": {{"@document", xr}, {"colour", "red"}},
	} {
		if res := e.uploadAs(testKey, path, parts...); res.StatusCode != 400 {
			t.Errorf("%s: status %d", name, res.StatusCode)
		}
	}
}

// TestZugferdValidateVisible: the report of an official sample carries the FX-VISIBLE
// checks, all passed (the sample's pages and XML agree), as warnings.
func TestZugferdValidateVisible(t *testing.T) {
	e := newTestEnv(t)
	rep := decode(t, e.upload("/api/zugferd/validate", [2]any{"file", corpusFile(t, "zugferd/2.3-examples/3. EN16931/EN16931_Physiotherapeut/EN16931_Physiotherapeut.pdf")}))
	part, _ := rep["pdf"].(map[string]any)
	results, _ := part["results"].([]any)
	seen := map[string]bool{}
	for _, r := range results {
		x, _ := r.(map[string]any)
		id, _ := x["id"].(string)
		if !strings.HasPrefix(id, "FX-VISIBLE") {
			continue
		}
		seen[id] = true
		if x["passed"] != true || x["severity"] != "warning" || !strings.Contains(x["message"].(string), "The page shows") {
			t.Errorf("%s: %v", id, x)
		}
	}
	for _, id := range []string{"NUMBER", "DATE", "SELLER", "BUYER", "TOTAL", "DUE", "CURRENCY", "IBAN"} {
		if !seen["FX-VISIBLE-"+id] {
			t.Errorf("no FX-VISIBLE-%s in %v", id, results)
		}
	}
	// The ZUGFeRD 2.3 example names no delivery date, period or delivery country, which
	// Factur-X 1.08 requires between German parties: BR-FX-EN-04 is its only failure (the
	// official 1.08 Schematron agrees); what the page shows agrees with the XML.
	xml, _ := rep["xml"].(map[string]any)
	var fatal []string
	for _, r := range xml["results"].([]any) {
		if x := r.(map[string]any); x["passed"] != true && x["severity"] == "fatal" {
			fatal = append(fatal, x["id"].(string))
		}
	}
	if rep["valid"] != false || len(fatal) != 1 || fatal[0] != "BR-FX-EN-04" {
		t.Errorf("valid %v, fatal %v", rep["valid"], fatal)
	}
}

// TestZugferdEmbedWithAttachments: an official XRechnung with attachments (BG-24), as
// InvoiceData over 1 MB, embeds (it was 413 at a 1 MB field limit while the CLI embedded
// it); the attachments are in the embedded XML.
func TestZugferdEmbedWithAttachments(t *testing.T) {
	e := newTestEnv(t)
	plain := corpusFile(t, "pdf/invoice-blanks/MustangGnuaccountingBeispielRE-20170509_505PDF14.pdf")
	parsed := decode(t, e.upload("/api/xrechnung/parse", [2]any{"file", corpusFile(t, "xrechnung-testsuite/business-cases/standard/03.07a-INVOICE_uncefact.xml")}))
	docs, _ := parsed["documents"].([]any)
	var withContent []any
	for _, d := range docs {
		if m := d.(map[string]any); m["attachment"] != nil {
			withContent = append(withContent, d)
		}
	}
	if len(withContent) == 0 {
		t.Fatalf("the sample has no attachment: %v", docs)
	}
	// Three copies of the attachments take the InvoiceData well over 1 MB.
	for i := range 2 {
		for _, d := range withContent {
			c := maps.Clone(d.(map[string]any))
			c["id"] = fmt.Sprintf("%v-%d", c["id"], i)
			a := maps.Clone(c["attachment"].(map[string]any))
			a["filename"] = fmt.Sprintf("%d-%v", i, a["filename"]) // BR-DE-22: unique names
			c["attachment"] = a
			docs = append(docs, c)
		}
	}
	parsed["documents"] = docs
	inv, _ := json.Marshal(parsed)
	if len(inv) < 1<<20 {
		t.Fatalf("InvoiceData of %d bytes does not test the old limit", len(inv))
	}
	out := pdfBody(t, e.uploadAs(testKey, "/api/zugferd/embed", [2]any{"@file", plain}, [2]any{"invoice", string(inv)}, [2]any{"profile", "xrechnung"}))
	dir := t.TempDir()
	testtool.Run(t, "pdfdetach", "-saveall", "-o", dir, testtool.File(t, "x.pdf", out))
	xml, err := os.ReadFile(filepath.Join(dir, "xrechnung.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(xml), "AttachmentBinaryObject"); n < 3*len(withContent) {
		t.Errorf("%d attachments in the embedded XML, want %d", n, 3*len(withContent))
	}
}
