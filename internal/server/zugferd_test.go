package server

import (
	"encoding/base64"
	"encoding/json"
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
