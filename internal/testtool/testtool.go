// Package testtool runs the tools we did not write (qpdf, poppler) on outputs in tests.
// Only tests import it; production code runs external programs through package engine.
package testtool

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// File writes data to a temporary file and returns its path.
func File(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// Run runs a tool and returns its standard output; a failure fails the test.
func Run(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("%s %s: %v\n%s%s", name, strings.Join(args, " "), err, out, msg)
	}
	return string(out)
}

// QPDFCheck fails the test unless qpdf --check accepts pdf (exit 0; warnings are exit 3).
func QPDFCheck(t testing.TB, pdf []byte) {
	t.Helper()
	p := File(t, "check.pdf", pdf)
	out, err := exec.Command("qpdf", "--check", p).CombinedOutput()
	if err != nil {
		t.Fatalf("qpdf --check: %v\n%s", err, out)
	}
}

// Info returns pdfinfo's fields ("Pages", "Title", "Page    1 rot", ...), with -l pages.
func Info(t testing.TB, pdf []byte, extra ...string) map[string]string {
	t.Helper()
	args := append(extra, File(t, "info.pdf", pdf))
	m := map[string]string{}
	for _, line := range strings.Split(Run(t, "pdfinfo", args...), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok {
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m
}

// Text returns pdftotext's text of pdf, pages separated by form feeds.
func Text(t testing.TB, pdf []byte) string {
	t.Helper()
	return Run(t, "pdftotext", "-layout", File(t, "text.pdf", pdf), "-")
}

// PageTexts returns the trimmed text of each page.
func PageTexts(t testing.TB, pdf []byte) []string {
	t.Helper()
	pages := strings.Split(strings.TrimRight(Text(t, pdf), "\f\n"), "\f")
	for i := range pages {
		pages[i] = strings.TrimSpace(pages[i])
	}
	return pages
}

// Images are the images of pdf as pdfimages writes them (decoded pixels, PNM), in page order.
func Images(t testing.TB, pdf []byte) [][]byte {
	t.Helper()
	dir := t.TempDir()
	Run(t, "pdfimages", File(t, "images.pdf", pdf), filepath.Join(dir, "img"))
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// Render renders one page (from 1) with pdftoppm at dpi, in colour.
func Render(t testing.TB, pdf []byte, page, dpi int) image.Image {
	t.Helper()
	n := strconv.Itoa(page)
	out := Run(t, "pdftoppm", "-png", "-r", strconv.Itoa(dpi), "-f", n, "-l", n, File(t, "render.pdf", pdf))
	img, err := png.Decode(bytes.NewReader([]byte(out)))
	if err != nil {
		t.Fatalf("pdftoppm's page %d: %v", page, err)
	}
	return img
}
