package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/internal/testtool"
)

// TestViewAndCreateCommands: `xrechnung view` writes HTML to stdout and a PDF when -o names
// one (the extension picks the format, --lang the language); `zugferd create` writes a hybrid
// that `zugferd validate` accepts; the browser the commands start is gone when they end.
func TestViewAndCreateCommands(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	xml := filepath.Join("..", "..", "..", "shared", "corpus", "xrechnung-testsuite", "business-cases", "standard", "01.01a-INVOICE_ubl.xml")
	html, err := exec.Command(bin, "xrechnung", "view", "--lang", "en", xml).Output()
	if err != nil || !strings.Contains(string(html), `lang="en"`) || !strings.Contains(string(html), "Invoice") {
		t.Fatalf("view: %v %.300s", err, html)
	}
	// A temporary directory of the command's own, which the unprivileged browser can reach
	// (t.TempDir's parent is closed to others), to see that the command leaves it empty.
	tmp, err := os.MkdirTemp("", "papierkram-cli-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	out := filepath.Join(dir, "view.pdf")
	cmd := exec.Command(bin, "xrechnung", "view", "-o", out, xml)
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("view -o pdf: %v %s", err, b)
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Fatalf("the command left %d temporary entries, e.g. %s", len(left), left[0].Name())
	}
	if b, err := exec.Command("pgrep", "-f", tmp).Output(); err == nil {
		t.Fatalf("processes outlive the command: %s", b)
	}
	view, _ := os.ReadFile(out)
	testtool.QPDFCheck(t, view)
	if !strings.Contains(testtool.Text(t, view), "Rechnung") {
		t.Fatalf("not the German view: %.300s", testtool.Text(t, view))
	}
	hybrid := filepath.Join(dir, "hybrid.pdf")
	if b, err := exec.Command(bin, "zugferd", "create", "-o", hybrid, xml).CombinedOutput(); err != nil || !strings.Contains(string(b), "XRECHNUNG") {
		t.Fatalf("create: %v %s", err, b)
	}
	if b, err := exec.Command(bin, "zugferd", "validate", hybrid).CombinedOutput(); err != nil {
		t.Fatalf("validate of our own hybrid: %v %s", err, b)
	}
	cmd = exec.Command(bin, "xrechnung", "view", "--lang", "it", xml)
	if b, _ := cmd.CombinedOutput(); cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(b), "--lang") {
		t.Fatalf("--lang it: exit %d %s", cmd.ProcessState.ExitCode(), b)
	}
}
