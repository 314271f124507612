package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/netip"
	"os/exec"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testpki"
	"github.com/papierkram/papierkram/internal/testtool"
	"github.com/papierkram/papierkram/netguard"
)

// uploadAs posts named parts (files when the name starts with @) with key.
func (e *testEnv) uploadAs(key, path string, parts ...[2]any) *http.Response {
	e.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		name := p[0].(string)
		if n, ok := strings.CutPrefix(name, "@"); ok {
			w, _ := mw.CreateFormFile(n, n+".bin")
			w.Write(p[1].([]byte))
		} else {
			mw.WriteField(name, p[1].(string))
		}
	}
	mw.Close()
	req, _ := http.NewRequest("POST", e.http.URL+path, &buf)
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

func pdfsigOut(t *testing.T, b []byte) string {
	out, _ := exec.Command("pdfsig", testtool.File(t, "s.pdf", b)).CombinedOutput()
	return string(out)
}

func TestSignatureEndpoints(t *testing.T) {
	tsa, _ := testpki.TSA(t)
	e := newTestEnv(t, func(c *Config) {
		c.Network = netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	})
	pki := testpki.Valid(t)
	p12 := pki.P12(t, "geheim")

	// Inspect: nothing stored.
	info := decode(t, e.uploadAs(testKey, "/api/signatures/certificates/info?password=geheim", [2]any{"@file", p12}))
	if info["commonName"] != "Anna Muster" || info["issuer"] != "CN=Papierkram Test CA,O=Papierkram Tests" {
		t.Fatalf("info %v", info)
	}
	wantProblem(t, e.uploadAs(testKey, "/api/signatures/certificates/info?password=falsch", [2]any{"@file", p12}), 400, "invalid_certificate_password")
	wantProblem(t, e.uploadAs(testKey, "/api/signatures/certificates/info?password=x", [2]any{"@file", []byte("junk")}), 400, "invalid_certificate")

	// Store under a name, with the password checked; a second key cannot see or use it.
	stored := decode(t, e.uploadAs(testKey, "/api/signatures/certificates?password=geheim", [2]any{"@file", p12}, [2]any{"name", "firma"}))
	if stored["name"] != "firma" || stored["subject"] == "" || stored["notAfter"] == "" {
		t.Fatalf("stored %v", stored)
	}
	wantProblem(t, e.uploadAs(testKey, "/api/signatures/certificates", [2]any{"@file", p12}, [2]any{"name", "firma"}), 409, "conflict")
	wantProblem(t, e.uploadAs(testKey, "/api/signatures/certificates", [2]any{"@file", []byte("not pfx")}, [2]any{"name", "x"}), 400, "invalid_certificate")
	wantProblem(t, e.uploadAs(testKey, "/api/signatures/certificates", [2]any{"@file", p12}, [2]any{"name", "../etc"}), 400, "invalid_input")
	other := decode(t, e.do("POST", "/api/admin/keys", testKey, `{"name":"other"}`))["key"].(string)
	res := e.do("GET", "/api/signatures/certificates", other, nil)
	var otherList []map[string]any
	json.NewDecoder(res.Body).Decode(&otherList)
	res.Body.Close()
	if len(otherList) != 0 {
		t.Fatalf("another key lists %v", otherList)
	}
	pdf64 := base64.StdEncoding.EncodeToString(testpdf.New(2))
	signBody := func(extra string) string {
		return `{"file":"` + pdf64 + `","password":"geheim","reason":"Freigabe"` + extra + `}`
	}
	wantProblem(t, e.do("POST", "/api/signatures/sign", other, signBody(`,"certificateName":"firma"`)), 400, "invalid_certificate")

	// Sign with the stored certificate, visibly, with a timestamp, and have it validated.
	body := signBody(`,"certificateName":"firma","signerName":"Anna Muster","visible":{"page":1,"x":100,"y":20,"width":60,"height":20,"unit":"mm","text":["Anna Muster"]},"timestampUrl":"` + tsa.URL + `"`)
	signed := pdfBody(t, e.do("POST", "/api/signatures/sign", testKey, body, "X-Service-Validate", "true"))
	out := pdfsigOut(t, signed)
	if !strings.Contains(out, "Signature is Valid.") || !strings.Contains(out, "Signer Certificate Common Name: Anna Muster") {
		t.Fatalf("pdfsig:\n%s", out)
	}
	// Verify through the API, multipart and Base64.
	rep := decode(t, e.upload("/api/signatures/verify", [2]any{"file", signed}))
	sig := rep["signatures"].([]any)[0].(map[string]any)
	if rep["valid"] != true || sig["verdict"] != "valid" || sig["reason"] != "Freigabe" || sig["timestamp"].(map[string]any)["valid"] != true ||
		sig["signer"].(map[string]any)["name"] != "Anna Muster" {
		t.Fatalf("verify %v", rep)
	}
	b64, _ := json.Marshal(map[string]string{"file": base64.StdEncoding.EncodeToString(signed)})
	rep = decode(t, e.do("POST", "/api/signatures/verify/base64", testKey, b64))
	if rep["count"] != float64(1) {
		t.Fatalf("verify base64 %v", rep)
	}
	rep = decode(t, e.upload("/api/signatures/verify", [2]any{"file", testpdf.New(1)}))
	if rep["signed"] != false || rep["count"] != float64(0) {
		t.Fatalf("unsigned %v", rep)
	}
	wantProblem(t, e.upload("/api/signatures/verify", [2]any{"file", []byte("garbage")}), 400, "invalid_pdf")

	// Inline certificate with a wrong password; no certificate; a TSA outside the allow list.
	wantProblem(t, e.do("POST", "/api/signatures/sign", testKey, signBody(`,"certificate":"`+base64.StdEncoding.EncodeToString(p12)+`","password":"falsch"`)), 400, "invalid_certificate_password")
	wantProblem(t, e.do("POST", "/api/signatures/sign", testKey, signBody(``)), 400, "invalid_input")
	wantProblem(t, e.do("POST", "/api/signatures/sign", testKey, signBody(`,"certificateName":"firma","timestampUrl":"http://10.9.9.9/tsa"`)), 400, "invalid_input")

	// Upload signing.
	res = e.uploadAs(testKey, "/api/signatures/sign/upload?password=geheim&reason=Upload", [2]any{"@pdf", testpdf.New(1)}, [2]any{"@certificate", p12})
	up := pdfBody(t, res)
	if out := pdfsigOut(t, up); !strings.Contains(out, "Signature is Valid.") {
		t.Fatalf("upload signing:\n%s", out)
	}

	// List, then delete.
	res = e.do("GET", "/api/signatures/certificates", testKey, nil)
	var list []map[string]any
	json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	if len(list) != 1 || list[0]["name"] != "firma" || list[0]["subject"] == nil {
		t.Fatalf("list %v", list)
	}
	if res := e.do("DELETE", "/api/signatures/certificates/firma", testKey, nil); res.StatusCode != 204 {
		t.Fatalf("delete: %d", res.StatusCode)
	}
	wantProblem(t, e.do("DELETE", "/api/signatures/certificates/firma", testKey, nil), 404, "not_found")

	// The password never reaches the logs.
	if strings.Contains(e.logs.String(), "geheim") {
		t.Fatal("a certificate password was logged")
	}
}
