package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice"
)

func corpusFile(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "corpus", rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// xmllintSchema validates with the corpus schemas, an external checker.
func xmllintSchema(t *testing.T, data []byte, schema string) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "x.xml")
	os.WriteFile(f, data, 0o600)
	out, err := exec.Command("xmllint", "--noout", "--schema", filepath.Join("..", "..", "..", "shared", "corpus", "schemas", schema), f).CombinedOutput()
	if err != nil {
		t.Fatalf("xmllint: %v\n%s", err, out)
	}
}

func readAll(t *testing.T, res *http.Response) []byte {
	t.Helper()
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return b
}

func TestGenerateEveryFormat(t *testing.T) {
	e := newTestEnv(t)
	for _, c := range []struct{ format, version, schema, guideline string }{
		{"", "", "cii-d16b/CII/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd", einvoice.GuidelineXRechnung30},
		{"UBL", "", "ubl-2.1/maindoc/UBL-Invoice-2.1.xsd", einvoice.GuidelineXRechnung30},
		{"CII", "2.3", "cii-d16b/CII/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd", einvoice.GuidelineXRechnung23},
	} {
		inv := einvoice.Example()
		inv.Specification = ""
		body, _ := json.Marshal(GenerateRequest{Invoice: *inv, XRechnungFormat: c.format, XRechnungVersion: c.version})
		res := e.do("POST", "/api/xrechnung/generate", testKey, body)
		out := readAll(t, res)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/xml" {
			t.Fatalf("%s: %d %s", c.format, res.StatusCode, out)
		}
		xmllintSchema(t, out, c.schema)
		s := string(out)
		for _, want := range []string{c.guideline, "RE-2026-0042", "264.15", "DE02120300000000202051", "Beratung", "04011000-12345-34"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s %s: output lacks %q", c.format, c.version, want)
			}
		}
		// Parse it back through the API: the same invoice.
		r2 := e.upload("/api/xrechnung/parse", [2]any{"file", out})
		var back einvoice.Invoice
		if err := json.Unmarshal(readAll(t, r2), &back); err != nil || r2.StatusCode != 200 {
			t.Fatalf("parse: %d %v", r2.StatusCode, err)
		}
		if back.Totals.GrossTotal.String() != "264.15" || len(back.Lines) != 2 || back.Lines[0].Item.Attributes[0].Value != "E. Mustermann" {
			t.Errorf("%s: parsed back %+v", c.format, back.Totals)
		}
	}
}

// TestGenerateKeepsSpecificationAndChecks: generate writes the specification the invoice
// names (an EN 16931 invoice stays EN 16931, not held to XRechnung's rules), answers 422
// with the report when what it wrote breaks a fatal rule, and names failed warnings.
func TestGenerateKeepsSpecificationAndChecks(t *testing.T) {
	e := newTestEnv(t)
	for _, format := range []string{"CII", "UBL"} {
		inv := einvoice.Example()
		inv.Specification = einvoice.GuidelineEN16931
		inv.BuyerReference, inv.Seller.Contact = "", einvoice.Contact{} // what only XRechnung requires
		body, _ := json.Marshal(GenerateRequest{Invoice: *inv, XRechnungFormat: format})
		res := e.do("POST", "/api/xrechnung/generate", testKey, body)
		out := readAll(t, res)
		if res.StatusCode != 200 {
			t.Fatalf("%s EN 16931: %d %s", format, res.StatusCode, out)
		}
		if !strings.Contains(string(out), ">"+einvoice.GuidelineEN16931+"<") || strings.Contains(string(out), "xrechnung") {
			t.Errorf("%s: BT-24 was rewritten:\n%.600s", format, out)
		}
		rep := decode(t, e.upload("/api/xrechnung/validate", [2]any{"file", out}))
		if rep["valid"] != true {
			t.Errorf("%s: our validator rejects the generated EN 16931 invoice: %v", format, rep["results"])
		}

		// A total that does not add up: refused with the rules, not answered with a bad file.
		inv = einvoice.Example()
		inv.Totals.AmountDue = einvoice.MustDecimal("999.99")
		body, _ = json.Marshal(GenerateRequest{Invoice: *inv, XRechnungFormat: format})
		p := wantProblem(t, e.do("POST", "/api/xrechnung/generate", testKey, body), 422, "unprocessable")
		report, _ := p["report"].(map[string]any)
		if !strings.Contains(p["detail"].(string), "BR-CO-16") || report == nil || report["valid"] != false {
			t.Errorf("%s: %v", format, p)
		}
	}
}

func TestGenerateRefusesBadInvoiceData(t *testing.T) {
	e := newTestEnv(t)
	for _, c := range []struct{ body, want string }{
		{`{"number":"1"}`, "issueDate (BT-2)"},
		{`{"number":"1","issueDate":"02.11.2026"}`, "YYYY-MM-DD"},
		{`{"number":"1","totals":{"grossTotal":"1,50"}}`, "not a decimal"},
		{`{"number":"1","totals":{"grossTotal":1e400}}`, "not a decimal"},
		{`{"number":"1","sellr":{}}`, "unknown field"},
		{`{"number":`, "not valid JSON"},
		{`{"number":"1","issueDate":"2026-01-01","currency":"EUR","seller":{"name":"a\u0001"},"buyer":{"name":"b"}}`, "control character"},
		{`{"number":"1","issueDate":"2026-01-01","currency":"EUR","seller":{"name":"a"},"buyer":{"name":"b"},"xrechnungFormat":"PDF"}`, "CII or UBL"},
	} {
		p := wantProblem(t, e.do("POST", "/api/xrechnung/generate", testKey, c.body), 400, "invalid_input")
		if !strings.Contains(p["detail"].(string), c.want) {
			t.Errorf("%s: detail %q lacks %q", c.body, p["detail"], c.want)
		}
	}
	wantProblem(t, e.do("POST", "/api/xrechnung/generate", testKey, nil, "Content-Type", "text/plain"), 415, "unsupported_media_type")
}

func TestParseDetectTransformCorpus(t *testing.T) {
	e := newTestEnv(t)
	ciiDoc := corpusFile(t, "xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_uncefact.xml")
	ublDoc := corpusFile(t, "xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_ubl.xml")

	det := decode(t, e.upload("/api/xrechnung/detect", [2]any{"file", ciiDoc}))
	if det["syntax"] != "CII" || det["documentType"] != "Invoice" || det["profile"] != "XRECHNUNG" || det["xrechnungVersion"] != "3.0" {
		t.Errorf("detect CII: %v", det)
	}
	det = decode(t, e.upload("/api/xrechnung/detect", [2]any{"file", ublDoc}))
	if det["syntax"] != "UBL" {
		t.Errorf("detect UBL: %v", det)
	}

	inv := decode(t, e.upload("/api/xrechnung/parse", [2]any{"file", ciiDoc}))
	if inv["number"] == "" || inv["seller"] == nil || len(inv["lines"].([]any)) == 0 {
		t.Errorf("parse: %v", inv)
	}

	res := e.upload("/api/xrechnung/transform", [2]any{"file", ciiDoc})
	out := readAll(t, res)
	if res.StatusCode != 200 || !strings.Contains(string(out), "urn:oasis:names:specification:ubl:schema:xsd:Invoice-2") {
		t.Fatalf("transform: %d %.300s", res.StatusCode, out)
	}
	xmllintSchema(t, out, "ubl-2.1/maindoc/UBL-Invoice-2.1.xsd")
	res = e.upload("/api/xrechnung/transform?targetFormat=CII", [2]any{"file", ublDoc})
	out = readAll(t, res)
	if res.StatusCode != 200 {
		t.Fatalf("transform to CII: %d %s", res.StatusCode, out)
	}
	xmllintSchema(t, out, "cii-d16b/CII/uncefact/data/standard/CrossIndustryInvoice_100pD16B.xsd")

	// Already UBL, hostile, not XML: 400 problems naming the cause.
	p := wantProblem(t, e.upload("/api/xrechnung/transform", [2]any{"file", ublDoc}), 400, "invalid_input")
	if !strings.Contains(p["detail"].(string), "already UBL") {
		t.Errorf("detail %v", p["detail"])
	}
	p = wantProblem(t, e.upload("/api/xrechnung/parse", [2]any{"file", []byte(`<!DOCTYPE x [<!ENTITY a SYSTEM "file:///etc/passwd">]><x>&a;</x>`)}), 400, "invalid_input")
	if !strings.Contains(p["detail"].(string), "DOCTYPE") || strings.Contains(p["detail"].(string), "root:") {
		t.Errorf("detail %v", p["detail"])
	}
	p = wantProblem(t, e.upload("/api/xrechnung/parse", [2]any{"file", []byte(strings.Replace(string(ciiDoc), "<ram:DuePayableAmount>", "<ram:DuePayableAmount>1,5", 1))}), 400, "invalid_input")
	if p["path"] == nil || !strings.Contains(p["path"].(string), "DuePayableAmount") || p["line"] == nil {
		t.Errorf("problem lacks line and path: %v", p)
	}
	wantProblem(t, e.upload("/api/xrechnung/detect", [2]any{"file", corpusFile(t, "pdf/invoice-blanks/"+firstBlank(t))}), 400, "invalid_input")
}

func firstBlank(t *testing.T) string {
	es, err := os.ReadDir(filepath.Join("..", "..", "..", "shared", "corpus", "pdf", "invoice-blanks"))
	if err != nil || len(es) == 0 {
		t.Fatal("no invoice blanks", err)
	}
	return es[0].Name()
}

func TestOpenAPIDocumentsInvoiceData(t *testing.T) {
	e := newTestEnv(t)
	doc := decode(t, e.do("GET", "/openapi.json", testKey, nil))
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	inv, ok := schemas["InvoiceData"].(map[string]any)
	if !ok {
		t.Fatalf("no InvoiceData schema among %d", len(schemas))
	}
	num := inv["properties"].(map[string]any)["number"].(map[string]any)
	if !strings.Contains(num["description"].(string), "BT-1") {
		t.Errorf("number: %v", num)
	}
	if gt := schemas["Totals"].(map[string]any)["properties"].(map[string]any)["grossTotal"].(map[string]any); gt["type"] != "string" || !strings.Contains(gt["description"].(string), "BT-112") {
		t.Errorf("grossTotal: %v", gt)
	}
}

// TestValidate: a corpus invoice is valid; the same with its amount due off by a cent is
// not, and BR-CO-16 says where; the HTML page names the failed rule; non-XML is a 400.
func TestValidate(t *testing.T) {
	e := newTestEnv(t)
	ublDoc := corpusFile(t, "xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_ubl.xml")
	rep := decode(t, e.upload("/api/xrechnung/validate", [2]any{"file", ublDoc}))
	if rep["valid"] != true || rep["syntax"] != "UBL" {
		t.Fatalf("corpus invoice: %v", rep["summary"])
	}
	if n := rep["summary"].(map[string]any)["checked"].(float64); n < 100 {
		t.Errorf("only %v rules checked", n)
	}

	re := regexp.MustCompile(`<cbc:PayableAmount currencyID="EUR">([0-9.]+)</cbc:PayableAmount>`)
	m := re.FindSubmatch(ublDoc)
	if m == nil {
		t.Fatal("no PayableAmount in the fixture")
	}
	v, _ := strconv.ParseFloat(string(m[1]), 64)
	broken := re.ReplaceAll(ublDoc, []byte(fmt.Sprintf(`<cbc:PayableAmount currencyID="EUR">%.2f</cbc:PayableAmount>`, v+0.01)))
	rep = decode(t, e.upload("/api/xrechnung/validate", [2]any{"file", broken}))
	if rep["valid"] != false {
		t.Fatal("an amount due off by a cent passed")
	}
	found := false
	for _, r := range rep["results"].([]any) {
		r := r.(map[string]any)
		if r["id"] == "BR-CO-16" && r["passed"] == false {
			found = r["severity"] == "fatal" && strings.HasSuffix(r["location"].(string), "cac:LegalMonetaryTotal[1]")
		}
	}
	if !found {
		t.Error("BR-CO-16 did not fail at the monetary total")
	}

	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	w, _ := mw.CreateFormFile("file", "invoice.xml")
	w.Write(broken)
	mw.Close()
	res := e.do("POST", "/api/xrechnung/validate", testKey, buf.Bytes(), "Content-Type", mw.FormDataContentType(), "Accept", "text/html")
	page := readAll(t, res)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(page), "BR-CO-16") || !strings.Contains(string(page), "An e-invoice with errors") {
		t.Errorf("HTML report: %d %s %.300s", res.StatusCode, res.Header.Get("Content-Type"), page)
	}

	wantProblem(t, e.upload("/api/xrechnung/validate", [2]any{"file", []byte("not xml at all")}), 400, "invalid_input")
}

// TestValidateRuleSet: the official ZUGFeRD 2.3 Physiotherapeut example fails the 1.08
// rules its profile URN chooses (BR-FX-EN-04) and passes with ruleSet=facturx-1.07; the
// report names the rule set, its version and who chose it; an unknown rule set is a 400.
func TestValidateRuleSet(t *testing.T) {
	e := newTestEnv(t)
	doc := corpusFile(t, "zugferd/2.3-examples/3. EN16931/EN16931_Physiotherapeut/factur-x.xml")
	rep := decode(t, e.upload("/api/xrechnung/validate", [2]any{"file", doc}))
	set := rep["ruleSet"].(map[string]any)
	if rep["valid"] != false || set["id"] != "facturx-1.08" || set["version"] != "1.08 / 2.4" || set["chosenBy"] != "document" {
		t.Errorf("by the document: valid %v, rule set %v", rep["valid"], set)
	}
	rep = decode(t, e.upload("/api/xrechnung/validate?ruleSet=facturx-1.07", [2]any{"file", doc}))
	set = rep["ruleSet"].(map[string]any)
	if rep["valid"] != true || set["id"] != "facturx-1.07" || set["chosenBy"] != "request" {
		t.Errorf("asked for 1.07: valid %v, rule set %v, summary %v", rep["valid"], set, rep["summary"])
	}
	wantProblem(t, e.upload("/api/xrechnung/validate?ruleSet=peppol-9", [2]any{"file", doc}), 400, "invalid_input")
}

// TestZugferdValidateExtract: a Factur-X example validates in both parts, extracts to its
// XML and model, Base64 input works too; a ZUGFeRD 1.0 file and a plain PDF are 400.
func TestZugferdValidateExtract(t *testing.T) {
	e := newTestEnv(t)
	pdfDoc := corpusFile(t, "zugferd/2.3-examples/3. EN16931/EN16931_Einfach/EN16931_Einfach.pdf")
	rep := decode(t, e.upload("/api/zugferd/validate", [2]any{"file", pdfDoc}))
	if rep["valid"] != true || rep["profile"] != "EN16931" || rep["fileName"] != "factur-x.xml" {
		t.Fatalf("validate: %v %v %v", rep["valid"], rep["profile"], rep["fileName"])
	}
	xml := rep["xml"].(map[string]any)
	pdfPart := rep["pdf"].(map[string]any)
	if xml["valid"] != true || xml["syntax"] != "CII" || pdfPart["valid"] != true || len(pdfPart["results"].([]any)) < 8 {
		t.Errorf("parts: xml %v, pdf %v", xml["valid"], pdfPart)
	}
	body, _ := json.Marshal(map[string]string{"file": base64.StdEncoding.EncodeToString(pdfDoc)})
	res := e.do("POST", "/api/zugferd/validate/base64", testKey, body)
	if b := decode(t, res); b["valid"] != true {
		t.Errorf("base64 validate: %v", b["valid"])
	}
	ex := decode(t, e.upload("/api/zugferd/extract", [2]any{"file", pdfDoc}))
	inv := ex["invoice"].(map[string]any)
	if ex["profile"] != "EN16931" || !strings.Contains(ex["xml"].(string), "CrossIndustryInvoice") || inv["number"] == "" || len(inv["lines"].([]any)) == 0 {
		t.Errorf("extract: profile %v, invoice %v", ex["profile"], inv["number"])
	}
	p := wantProblem(t, e.upload("/api/zugferd/validate", [2]any{"file", corpusFile(t, "zugferd/zugferd10/ZUGFeRD_1p0_BASIC_Einfach.pdf")}), 400, "invalid_input")
	if !strings.Contains(p["detail"].(string), "ZUGFeRD 1.0") {
		t.Errorf("1.0: %v", p["detail"])
	}
	blanks, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "corpus", "pdf", "invoice-blanks", "*.pdf"))
	blank, _ := os.ReadFile(blanks[0])
	wantProblem(t, e.upload("/api/zugferd/extract", [2]any{"file", blank}), 400, "invalid_input")
	wantProblem(t, e.upload("/api/zugferd/validate", [2]any{"file", []byte("%PDF-1.7 broken")}), 400, "invalid_pdf")
}
