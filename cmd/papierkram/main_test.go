package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	_ "image/png"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/papierkram/papierkram/internal/testoffice"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testpki"
	"github.com/papierkram/papierkram/internal/testtool"
)

// binary builds the command once for the end-to-end tests.
func binary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "papierkram")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

func get(t *testing.T, url, key string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	b, _ := io.ReadAll(res.Body)
	json.Unmarshal(b, &m)
	return res.StatusCode, m
}

// TestServeEndToEnd runs `papierkram serve` as an operator would, with an environment key,
// checks authentication through a real socket, and stops it with SIGTERM.
func TestServeEndToEnd(t *testing.T) {
	bin := binary(t)
	addr, dir := freeAddr(t), t.TempDir()
	cmd := exec.Command(bin, "serve", "--addr", addr, "--data-dir", dir, "--concurrency", "chromium=1, tesseract=3", "--warm", "chromium")
	cmd.Env = append(os.Environ(), "PAPIERKRAM_API_KEYS=k1, k2")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	logs, warmed := make(chan string, 1000), make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			// --warm chromium: its browser starts with the server, before any request.
			if strings.Contains(sc.Text(), `"msg":"engine warm"`) && strings.Contains(sc.Text(), `"engine":"chromium"`) {
				close(warmed)
			}
			logs <- sc.Text()
		}
		close(logs)
	}()
	base := "http://" + addr
	deadline := time.Now().Add(20 * time.Second)
	for {
		if res, err := http.Get(base + "/health"); err == nil {
			res.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("server did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, k := range []string{"k1", "k2"} {
		status, who := get(t, base+"/api/auth/validate", k)
		if status != 200 || who["valid"] != true {
			t.Fatalf("key %s: %d %v", k, status, who)
		}
	}
	status, p := get(t, base+"/api/auth/validate", "")
	if status != 401 || p["code"] != "unauthorized" {
		t.Fatalf("no key: %d %v", status, p)
	}
	if _, err := os.Stat(filepath.Join(dir, "papierkram.db")); err != nil {
		t.Fatalf("store not in --data-dir: %v", err)
	}
	// --concurrency sizes the engines it names; the others keep one process per core.
	req, _ := http.NewRequest("GET", base+"/metrics", nil)
	req.Header.Set("X-API-Key", "k1")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{`papierkram_engine_slots{engine="chromium"} 1`, `papierkram_engine_slots{engine="tesseract"} 3`,
		fmt.Sprintf(`papierkram_engine_slots{engine="office"} %d`, runtime.NumCPU())} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}

	select {
	case <-warmed:
	case <-time.After(90 * time.Second):
		t.Error("chromium was not warmed within 90 s of the start")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no exit 15 s after SIGTERM")
	}
	var all []string
	for l := range logs {
		all = append(all, l)
	}
	joined := strings.Join(all, "\n")
	if !strings.Contains(joined, `"msg":"request"`) || !strings.Contains(joined, `"route":"GET /api/auth/validate"`) {
		t.Fatalf("no JSON access log:\n%s", joined)
	}
	if strings.Contains(joined, "k1") && strings.Contains(joined, `"k1"`) {
		t.Fatal("a key was logged")
	}
}

func TestKeysCommands(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	out, err := exec.Command(bin, "keys", "create", "--data-dir", dir, "--name", "ci", "--plan", "free").Output()
	if err != nil {
		t.Fatal(err)
	}
	secret := strings.TrimSpace(string(out))
	if !strings.HasPrefix(secret, "pk_") {
		t.Fatalf("secret %q", secret)
	}
	list, err := exec.Command(bin, "keys", "list", "--data-dir", dir).Output()
	if err != nil || !strings.Contains(string(list), "ci") || !strings.Contains(string(list), "free") || strings.Contains(string(list), secret) {
		t.Fatalf("list: %v\n%s", err, list)
	}
	id := strings.Fields(strings.Split(string(list), "\n")[1])[0]
	if err := exec.Command(bin, "keys", "revoke", "--data-dir", dir, id).Run(); err != nil {
		t.Fatal(err)
	}
	list, _ = exec.Command(bin, "keys", "list", "--data-dir", dir).Output()
	row := strings.Fields(strings.Split(string(list), "\n")[1])
	if revoked := row[len(row)-1]; revoked == "-" || !strings.HasPrefix(revoked, "20") {
		t.Fatalf("revocation not listed:\n%s", list)
	}
	if err := exec.Command(bin, "keys", "create", "--data-dir", dir, "--plan", "gold").Run(); err == nil {
		t.Fatal("unknown plan accepted")
	}
	v, _ := exec.Command(bin, "version").Output()
	if !strings.Contains(string(v), "API 0.1.0") {
		t.Fatalf("version %q", v)
	}
}

func TestPDFCommands(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "in.pdf")
	if err := os.WriteFile(in, testpdf.New(4), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "pdf", "split", "--pages", "1-2,4", "--out-dir", dir, in).Output()
	if err != nil {
		t.Fatal(err)
	}
	files := strings.Fields(string(out))
	if len(files) != 2 || !strings.HasSuffix(files[0], "in-1-2.pdf") || !strings.HasSuffix(files[1], "in-4.pdf") {
		t.Fatalf("split wrote %q", files)
	}
	part, _ := os.ReadFile(files[0])
	if got := testtool.PageTexts(t, part); len(got) != 2 || got[1] != "Page 2" {
		t.Fatalf("part pages %q", got)
	}
	// Without --pages, split gives every page (a shared flag variable once made it page 1).
	out, err = exec.Command(bin, "pdf", "split", "--out-dir", t.TempDir(), in).Output()
	if err != nil || len(strings.Fields(string(out))) != 4 {
		t.Fatalf("default split: %v %q", err, out)
	}
	meta, err := exec.Command(bin, "pdf", "metadata", in).Output()
	if err != nil || !strings.Contains(string(meta), `"pages": 4`) {
		t.Fatalf("metadata: %v %s", err, meta)
	}
	cmd := exec.Command(bin, "pdf", "split", "--pages", "9", in)
	if err := cmd.Run(); cmd.ProcessState.ExitCode() != 2 {
		t.Fatalf("bad page spec: exit %d (%v)", cmd.ProcessState.ExitCode(), err)
	}
	// preview goes through the same operation as /api/preview: page, dpi, and its pixel budget.
	png, err := exec.Command(bin, "pdf", "preview", "--page", "2", "--dpi", "36", in).Output()
	if cfg, _, derr := image.DecodeConfig(bytes.NewReader(png)); err != nil || derr != nil || cfg.Width < 297 || cfg.Width > 298 {
		t.Fatalf("preview: %v %v %+v", err, derr, cfg)
	}
	poster := filepath.Join(dir, "poster.pdf")
	os.WriteFile(poster, testpdf.Make(testpdf.Options{Pages: 1, Width: 2384 * 2, Height: 3370 * 2}), 0o600)
	cmd = exec.Command(bin, "pdf", "preview", "--dpi", "300", poster)
	if msg, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(msg), "pixels at 300 dpi") {
		t.Fatalf("poster preview: exit %d %s", cmd.ProcessState.ExitCode(), msg)
	}

	formFile, valuesFile, filled := filepath.Join(dir, "form.pdf"), filepath.Join(dir, "values.json"), filepath.Join(dir, "filled.pdf")
	os.WriteFile(formFile, testpdf.Form(), 0o600)
	os.WriteFile(valuesFile, []byte(`{"name":"Erika","size":"S"}`), 0o600)
	if fields, err := exec.Command(bin, "pdf", "form-fields", formFile).Output(); err != nil || !strings.Contains(string(fields), `"address.city"`) {
		t.Fatalf("form-fields: %v %s", err, fields)
	}
	if b, err := exec.Command(bin, "pdf", "fill-form", "--values", valuesFile, "--flatten", "-o", filled, formFile).CombinedOutput(); err != nil {
		t.Fatalf("fill-form: %v %s", err, b)
	}
	if b, _ := os.ReadFile(filled); !strings.Contains(testtool.Text(t, b), "Erika") {
		t.Error("the filled value is not on the page")
	}
	spec, book, csvFile := filepath.Join(dir, "spec.json"), filepath.Join(dir, "book.xlsx"), filepath.Join(dir, "book.csv")
	os.WriteFile(spec, []byte(`{"sheets":[{"name":"A","columns":[{"header":"Name"},{"header":"Betrag","type":"number"}],"rows":[["x",1.5]]}]}`), 0o600)
	if b, err := exec.Command(bin, "spreadsheet", "generate", "-o", book, spec).CombinedOutput(); err != nil {
		t.Fatalf("spreadsheet generate: %v %s", err, b)
	}
	if b, err := exec.Command(bin, "spreadsheet", "convert", "--to", "csv", "--delimiter", ";", "--decimal", ",", "-o", csvFile, book).CombinedOutput(); err != nil {
		t.Fatalf("spreadsheet convert: %v %s", err, b)
	}
	if b, _ := os.ReadFile(csvFile); string(b) != "Name;Betrag\nx;1,5\n" {
		t.Errorf("csv %q", b)
	}
	os.WriteFile(valuesFile, []byte(`{"size":"XL"}`), 0o600)
	if b, err := exec.Command(bin, "pdf", "fill-form", "--values", valuesFile, "-o", filled, formFile).CombinedOutput(); err == nil || !strings.Contains(string(b), "one of M, S") {
		t.Fatalf("fill-form with a bad value: %v %s", err, b)
	}

	// validate: the report on stdout; exit 0 when the file conforms, 1 when it does not
	// (a plain PDF has no XMP identification, no output intent …), 2 for what is no PDF.
	cmd = exec.Command(bin, "pdf", "validate", in)
	report, _ := cmd.Output()
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(report), `"compliant": false`) || !strings.Contains(string(report), `"6.6.2.1-1"`) {
		t.Fatalf("validate a plain PDF: exit %d %s", cmd.ProcessState.ExitCode(), report)
	}
	pdfa := filepath.Join(dir, "a.pdf")
	if b, err := exec.Command(bin, "pdf", "pdfa", "-o", pdfa, in).CombinedOutput(); err != nil {
		t.Fatalf("pdfa: %v %s", err, b)
	}
	if b, err := exec.Command(bin, "pdf", "validate", "--profile", "PDF/A-3b", pdfa).Output(); err != nil || !strings.Contains(string(b), `"compliant": true`) {
		t.Fatalf("validate our PDF/A: %v %s", err, b)
	}
	cmd = exec.Command(bin, "pdf", "validate", valuesFile)
	if b, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 2 {
		t.Fatalf("validate what is no PDF: exit %d %s", cmd.ProcessState.ExitCode(), b)
	}
}

func TestSignAndVerifyCommands(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	in, p12, out := filepath.Join(dir, "in.pdf"), filepath.Join(dir, "c.p12"), filepath.Join(dir, "out.pdf")
	os.WriteFile(in, testpdf.New(1), 0o600)
	os.WriteFile(p12, testpki.Valid(t).P12(t, "pw"), 0o600)
	cmd := exec.Command(bin, "sign", "--cert", p12, "--reason", "CLI", "-o", out, in)
	cmd.Stdin = strings.NewReader("pw\n")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sign: %v %s", err, b)
	}
	signed, _ := os.ReadFile(out)
	if b, _ := exec.Command("pdfsig", out).CombinedOutput(); !strings.Contains(string(b), "Signature is Valid.") {
		t.Fatalf("pdfsig:\n%s", b)
	}
	rep, err := exec.Command(bin, "verify", out).Output()
	if err != nil || !strings.Contains(string(rep), `"verdict": "valid"`) || !strings.Contains(string(rep), `"reason": "CLI"`) {
		t.Fatalf("verify: %v %s", err, rep)
	}
	signed[len(signed)/3] ^= 0xff
	os.WriteFile(out, signed, 0o600)
	if err := exec.Command(bin, "verify", out).Run(); err == nil {
		t.Fatal("verify of a damaged file exited 0")
	}
	cmd = exec.Command(bin, "sign", "--cert", p12, in)
	cmd.Env = append(os.Environ(), "PAPIERKRAM_CERT_PASSWORD=wrong")
	if cmd.Run(); cmd.ProcessState.ExitCode() != 2 {
		t.Fatalf("wrong password: exit %d", cmd.ProcessState.ExitCode())
	}
}

func TestXRechnungCommands(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	ciiFile := filepath.Join("..", "..", "..", "shared", "corpus", "xrechnung-testsuite", "business-cases", "standard", "01.01a-INVOICE_uncefact.xml")
	run := func(args ...string) (string, int) {
		cmd := exec.Command(bin, args...)
		out, err := cmd.Output()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}
	out, code := run("xrechnung", "detect", ciiFile)
	if code != 0 || !strings.Contains(out, `"syntax": "CII"`) || !strings.Contains(out, `"profile": "XRECHNUNG"`) {
		t.Fatalf("detect: %d %s", code, out)
	}
	js, code := run("xrechnung", "parse", ciiFile)
	if code != 0 || !strings.Contains(js, `"number"`) {
		t.Fatalf("parse: %d %s", code, js)
	}
	jsonFile := filepath.Join(dir, "inv.json")
	// The test suite's invoice names no delivery date or invoicing period, which Factur-X
	// 1.08 requires between German parties (BR-FX-EN-04) when it is embedded as BASIC
	// below: it gets its issue date as the delivery date (BT-72).
	var parsed map[string]any
	if err := json.Unmarshal([]byte(js), &parsed); err != nil {
		t.Fatal(err)
	}
	parsed["delivery"] = map[string]any{"date": parsed["issueDate"]}
	b, _ := json.Marshal(parsed)
	os.WriteFile(jsonFile, b, 0o600)
	ublFile := filepath.Join(dir, "inv-ubl.xml")
	if _, code := run("xrechnung", "generate", "--format", "UBL", "-o", ublFile, jsonFile); code != 0 {
		t.Fatalf("generate: %d", code)
	}
	if out, err := exec.Command("xmllint", "--noout", "--schema", filepath.Join("..", "..", "..", "shared", "corpus", "schemas", "ubl-2.1", "maindoc", "UBL-Invoice-2.1.xsd"), ublFile).CombinedOutput(); err != nil {
		t.Fatalf("generated UBL invalid: %s", out)
	}
	if out, code := run("xrechnung", "validate", ciiFile, ublFile); code != 0 || strings.Count(out, ": valid (") != 2 {
		t.Fatalf("validate: %d %s", code, out)
	}
	badFile := filepath.Join(dir, "bad.xml")
	ubl, _ := os.ReadFile(ublFile)
	os.WriteFile(badFile, bytes.Replace(ubl, []byte("<cbc:DocumentCurrencyCode>EUR"), []byte("<cbc:DocumentCurrencyCode>EUX"), 1), 0o600)
	if out, code := run("xrechnung", "validate", "--details", ciiFile, badFile); code != 1 || !strings.Contains(out, "bad.xml: INVALID") || !strings.Contains(out, "BR-CL-04 [fatal]") {
		t.Fatalf("validate of a bad invoice: %d %s", code, out)
	}
	zf := filepath.Join("..", "..", "..", "shared", "corpus", "zugferd", "2.3-examples", "2. BASIC", "BASIC_Einfach", "BASIC_Einfach.pdf")
	if out, code := run("zugferd", "validate", zf); code != 0 || !strings.Contains(out, "valid (BASIC factur-x.xml") {
		t.Fatalf("zugferd validate: %d %s", code, out)
	}
	if out, code := run("zugferd", "extract", zf); code != 0 || !strings.Contains(out, "rsm:CrossIndustryInvoice") {
		t.Fatalf("zugferd extract: %d %.200s", code, out)
	}
	blank := filepath.Join("..", "..", "..", "shared", "corpus", "pdf", "invoice-blanks", "MustangGnuaccountingBeispielRE-20170509_505PDF14.pdf")
	embedded := filepath.Join(dir, "embedded.pdf")
	if out, code := run("zugferd", "embed", "--invoice", ciiFile, "-o", embedded, blank); code != 0 {
		t.Fatalf("zugferd embed: %d %s", code, out)
	}
	if out, code := run("zugferd", "validate", embedded); code != 0 || !strings.Contains(out, "valid (XRECHNUNG xrechnung.xml") {
		t.Fatalf("zugferd validate of the embedded file: %d %s", code, out)
	}
	if out, code := run("zugferd", "embed", "--invoice", jsonFile, "--profile", "basic", "-o", embedded, blank); code != 0 {
		t.Fatalf("zugferd embed of InvoiceData: %d %s", code, out)
	}
	if out, code := run("zugferd", "validate", embedded); code != 0 || !strings.Contains(out, "valid (BASIC factur-x.xml") {
		t.Fatalf("zugferd validate of the BASIC file: %d %s", code, out)
	}
	if out, err := exec.Command(bin, "zugferd", "embed", "--invoice", badFile, "-o", embedded, blank).CombinedOutput(); err == nil || !strings.Contains(string(out), "carry CII; this invoice is UBL") {
		t.Fatalf("zugferd embed of UBL: %v %s", err, out)
	}
	xrPDF := filepath.Join("..", "..", "..", "shared", "corpus", "zugferd", "2.3-examples", "5. XRECHNUNG", "XRECHNUNG_Einfach", "XRECHNUNG_Einfach.pdf")
	if out, code := run("convert", "zugferd-to-xrechnung", "--to", "CII", xrPDF); code != 0 || !strings.Contains(out, "urn:xeinkauf.de:kosit:xrechnung_3.0") || !strings.Contains(out, "rsm:CrossIndustryInvoice") {
		t.Fatalf("convert zugferd-to-xrechnung: %d %.300s", code, out)
	}
	enPDF := filepath.Join("..", "..", "..", "shared", "corpus", "zugferd", "2.3-examples", "3. EN16931", "EN16931_Einfach", "EN16931_Einfach.pdf")
	if out, err := exec.Command(bin, "convert", "zugferd-to-xrechnung", "--leitweg-id", "04011000-12345-03", enPDF).CombinedOutput(); err == nil || !strings.Contains(string(out), "BR-DE-2 [fatal]") {
		t.Fatalf("convert of an EN16931 invoice without seller contact: %v %s", err, out)
	}
	if _, code := run("zugferd", "validate", ublFile); code != 1 {
		t.Fatalf("zugferd validate of an XML file: exit %d, want 1", code)
	}
	back, code := run("xrechnung", "transform", "--to", "CII", ublFile)
	if code != 0 || !strings.Contains(back, "rsm:CrossIndustryInvoice") {
		t.Fatalf("transform: %d %.200s", code, back)
	}
	bad := filepath.Join(dir, "bad.xml")
	os.WriteFile(bad, []byte("<!DOCTYPE x><x/>"), 0o600)
	if _, code := run("xrechnung", "parse", bad); code != 2 {
		t.Errorf("hostile XML: exit %d, want 2", code)
	}
}

func TestConvertCommands(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	doc := filepath.Join(dir, "brief.docx")
	os.WriteFile(doc, testoffice.Simple("Hallo {{name}}"), 0o600)
	vars := filepath.Join(dir, "vars.json")
	os.WriteFile(vars, []byte(`{"name":"Welt"}`), 0o600)
	out := filepath.Join(dir, "brief.pdf")
	if b, err := exec.Command(bin, "convert", "word", "--vars", vars, "-o", out, doc).CombinedOutput(); err != nil {
		t.Fatalf("convert word: %v\n%s", err, b)
	}
	pdf, _ := os.ReadFile(out)
	if !strings.Contains(testtool.Text(t, pdf), "Hallo Welt") {
		t.Error("template not filled")
	}
	bad := filepath.Join(dir, "bad.docx")
	os.WriteFile(bad, []byte("nope"), 0o600)
	err := exec.Command(bin, "convert", "word", "-o", filepath.Join(dir, "x.pdf"), bad).Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("bad document: %v, want exit 2", err)
	}
}

func TestReceiptCommands(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	js := filepath.Join(dir, "r.json")
	scans := "../../../shared/corpus/receipts/de-scans/"
	if b, err := exec.Command(bin, "receipt", "extract", "-o", js, scans+"lidl_21042020_09_01706.jpg", scans+"ikea_08102016_12_13439.jpg").CombinedOutput(); err != nil {
		t.Fatalf("receipt extract: %v\n%s", err, b)
	}
	csvOut, err := exec.Command(bin, "receipt", "export", "--format", "csv", js).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Date,Time,Type,Issuer,Reference,Currency,Net,VAT,Gross,Payment Method,SKR03 Account,SKR04 Account,Expense Category",
		"2020-04-21,10:00,CASH_RECEIPT,Lidl,,EUR,15.36,1.70,17.06,DEBIT_CARD,4980,6850,Sonstiger Betriebsbedarf", // Summe 1,70 15,36 17,06 on the receipt
		"2016-10-08,14:16,CASH_RECEIPT,IKEA,,EUR,,,134.39,DEBIT_CARD,0480,0670,Geringwertige Wirtschaftsgüter",
	}
	if got := strings.Split(strings.TrimSpace(string(csvOut)), "\r\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("csv:\n%s", csvOut)
	}
	// DATEV books one fiscal year per batch: 2016 and 2020 are refused, one of them is booked.
	if out, err := exec.Command(bin, "receipt", "export", "--format", "datev", js).CombinedOutput(); err == nil || !strings.Contains(string(out), "one batch per fiscal year") {
		t.Errorf("datev over two years: %v %s", err, out)
	}
	one := filepath.Join(dir, "one.json")
	os.WriteFile(one, []byte(`[{"date":"2020-04-21","issuer":"Lidl","gross":"17.06","paymentMethod":"DEBIT_CARD","skr04Account":"6850"}]`), 0o600)
	datevOut, err := exec.Command(bin, "receipt", "export", "--format", "datev", "--chart", "SKR04", one).Output()
	if lines := strings.Split(string(datevOut), "\r\n"); err != nil || len(lines) != 4 || !strings.HasPrefix(lines[0], `"EXTF";700;21;"Buchungsstapel";13;`) ||
		!strings.HasPrefix(lines[2], `17,06;"S";"EUR";;;;6850;1800;"";2104;`) {
		t.Errorf("datev: %v %q", err, datevOut)
	}
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("no receipt"), 0o600)
	if err := exec.Command(bin, "receipt", "extract", bad).Run(); err == nil {
		t.Error("a text file extracted")
	}
}

// TestToolboxCommands: the operation layer's commands take the server's options as
// kebab-case flags, passwords from the environment only, and refuse what the server refuses.
func TestToolboxCommands(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	in, enc, dec, stamped := filepath.Join(dir, "in.pdf"), filepath.Join(dir, "enc.pdf"), filepath.Join(dir, "dec.pdf"), filepath.Join(dir, "stamped.pdf")
	if err := os.WriteFile(in, testpdf.New(3), 0o600); err != nil {
		t.Fatal(err)
	}
	withEnv := func(c *exec.Cmd, env ...string) *exec.Cmd { c.Env = append(os.Environ(), env...); return c }
	if b, err := withEnv(exec.Command(bin, "pdf", "encrypt", "--allow-print=false", "-o", enc, in), "PAPIERKRAM_USER_PASSWORD=Geheim").CombinedOutput(); err != nil {
		t.Fatalf("encrypt: %v %s", err, b)
	}
	if show := testtool.Run(t, "qpdf", "--password=Geheim", "--show-encryption", enc); !strings.Contains(show, "AESv3") || !strings.Contains(show, "print high resolution: not allowed") {
		t.Fatalf("qpdf --show-encryption:\n%s", show)
	}
	cmd := withEnv(exec.Command(bin, "pdf", "decrypt", "-o", dec, enc), "PAPIERKRAM_PASSWORD=falsch")
	if b, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(b), "invalid_pdf_password") {
		t.Fatalf("wrong password: exit %d %s", cmd.ProcessState.ExitCode(), b)
	}
	cmd = exec.Command(bin, "pdf", "decrypt", "--password", "Geheim", enc)
	if b, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() == 0 || !strings.Contains(string(b), "unknown flag") {
		t.Fatalf("a password flag must not exist: %s", b)
	}
	if b, err := withEnv(exec.Command(bin, "pdf", "decrypt", "-o", dec, enc), "PAPIERKRAM_PASSWORD=Geheim").CombinedOutput(); err != nil {
		t.Fatalf("decrypt: %v %s", err, b)
	}
	if b, err := exec.Command(bin, "pdf", "stamp", "--text", "Geprüft", "--pages", "2", "--offset-y", "-10", "-o", stamped, dec).CombinedOutput(); err != nil {
		t.Fatalf("stamp: %v %s", err, b)
	}
	b, _ := os.ReadFile(stamped)
	if got := testtool.PageTexts(t, b); len(got) != 3 || !strings.Contains(got[1], "Geprüft") || strings.Contains(got[0], "Geprüft") {
		t.Fatalf("stamped pages %q", got)
	}
	out, err := exec.Command(bin, "pdf", "compress", "-o", filepath.Join(dir, "c.pdf"), in).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Size-Before: ") {
		t.Fatalf("compress: %v %s", err, out)
	}
	cmd = exec.Command(bin, "pdf", "compress", "--level", "extreme", in)
	if b, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(b), "--level must be one of") {
		t.Fatalf("bad level: exit %d %s", cmd.ProcessState.ExitCode(), b)
	}
	if js, err := exec.Command(bin, "pdf", "bookmarks", in).Output(); err != nil || !strings.Contains(string(js), `"count": 0`) {
		t.Fatalf("bookmarks: %v %s", err, js)
	}
}

func TestParseConcurrency(t *testing.T) {
	c, err := parseConcurrency(" Chromium=4 ,office=1,", 2)
	if err != nil || c["chromium"] != 4 || c["office"] != 1 || c["poppler"] != 4 || c["tesseract"] != 2 {
		t.Errorf("%v %v", c, err)
	}
	for _, bad := range []string{"word=2", "chromium", "chromium=0", "office=65", "office=x"} {
		if _, err := parseConcurrency(bad, 2); err == nil || !strings.Contains(err.Error(), "engine=n") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestParseWarm(t *testing.T) {
	if w, err := parseWarm(" Office, chromium "); err != nil || strings.Join(w, ",") != "office,chromium" {
		t.Errorf("%v %v", w, err)
	}
	if w, err := parseWarm("none"); err != nil || len(w) != 0 {
		t.Errorf("none: %v %v", w, err)
	}
	if _, err := parseWarm("tesseract"); err == nil {
		t.Error("tesseract keeps no process to warm")
	}
}

func TestParseMemory(t *testing.T) {
	m, err := parseMemory("")
	if err != nil || m["chromium"] != 1024<<20 || m["office"] != 1024<<20 || m["paddleocr"] != 1024<<20 || len(m) != 3 {
		t.Fatalf("defaults %v %v", m, err)
	}
	if m, err = parseMemory("chromium=768"); err != nil || m["chromium"] != 768<<20 || m["office"] != 1024<<20 {
		t.Fatalf("chromium=768: %v %v", m, err)
	}
	for _, bad := range []string{"poppler=512", "chromium=10", "chromium", "chromium=lots"} {
		if _, err := parseMemory(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
