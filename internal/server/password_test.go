package server

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

// TestPDFPassword: a PDF that needs a password to open is refused with a hint at the
// password part; with the password, preview, text, metadata, rotate and invoice extraction
// read it, and what they write is no longer encrypted; a wrong password is its own problem.
func TestPDFPassword(t *testing.T) {
	e := newTestEnv(t)
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.pdf")
	os.WriteFile(plain, testpdf.New(3), 0o600)
	locked := filepath.Join(dir, "locked.pdf")
	if out, err := exec.Command("qpdf", "--encrypt", "geheim", "owner-pw", "256", "--", plain, locked).CombinedOutput(); err != nil {
		t.Fatalf("qpdf: %v %s", err, out)
	}
	data, _ := os.ReadFile(locked)

	p := wantProblem(t, e.uploadAs(testKey, "/api/preview/page-count", [2]any{"@file", data}), 400, "encrypted_pdf")
	if !strings.Contains(p["detail"].(string), "password") {
		t.Errorf("no hint at the password part: %v", p["detail"])
	}
	wantProblem(t, e.uploadAs(testKey, "/api/preview/page-count", [2]any{"@file", data}, [2]any{"password", "falsch"}), 400, "invalid_pdf_password")

	if r := decode(t, e.uploadAs(testKey, "/api/preview/page-count", [2]any{"@file", data}, [2]any{"password", "geheim"})); r["pages"] != float64(3) {
		t.Errorf("page count %v", r)
	}
	if r := decode(t, e.uploadAs(testKey, "/api/pdf-tools/metadata", [2]any{"@file", data}, [2]any{"password", "geheim"})); r["pages"] != float64(3) {
		t.Errorf("metadata %v", r)
	}
	res := e.uploadAs(testKey, "/api/pdf-tools/rotate?degrees=90", [2]any{"@file", data}, [2]any{"password", "geheim"})
	out, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("rotate: %d %s", res.StatusCode, out)
	}
	info, err := exec.Command("pdfinfo", testtool.File(t, "r.pdf", out)).CombinedOutput()
	if s := strings.Join(strings.Fields(string(info)), " "); err != nil || !strings.Contains(s, "Encrypted: no") || !strings.Contains(s, "Pages: 3") {
		t.Errorf("pdfinfo of the rotated copy: %v %s", err, s)
	}
	res = e.uploadAs(testKey, "/api/preview/pages?pages=1", [2]any{"@file", data}, [2]any{"password", "geheim"})
	if b, _ := io.ReadAll(res.Body); res.StatusCode != 200 || !strings.Contains(string(b), `"page":1`) {
		t.Errorf("preview pages: %d %.200s", res.StatusCode, b)
	}
	// A part the endpoint does not take stays unknown.
	wantProblem(t, e.uploadAs(testKey, "/api/xrechnung/validate", [2]any{"@file", []byte("<x/>")}, [2]any{"password", "geheim"}), 400, "invalid_input")
}
