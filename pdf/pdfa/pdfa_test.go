package pdfa

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/ghostscript"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

func gs(t *testing.T) *ghostscript.Ghostscript {
	g := ghostscript.New(engine.Config{Concurrency: 2, JobTimeout: 60 * time.Second, TempRoot: t.TempDir()})
	t.Cleanup(func() { g.Supervisor().Stop(context.Background()) })
	return g
}

// checkPDFA asserts PDF/A-3b as tools we did not write see it.
func checkPDFA(t *testing.T, out []byte) string {
	t.Helper()
	testtool.QPDFCheck(t, out)
	p := testtool.File(t, "a.pdf", out)
	meta := testtool.Run(t, "pdfinfo", "-meta", p)
	if !(strings.Contains(meta, "pdfaid:part='3'") || strings.Contains(meta, `pdfaid:part="3"`) || strings.Contains(meta, "<pdfaid:part>3</pdfaid:part>")) ||
		!(strings.Contains(meta, "pdfaid:conformance='B'") || strings.Contains(meta, `pdfaid:conformance="B"`) || strings.Contains(meta, "<pdfaid:conformance>B</pdfaid:conformance>")) {
		t.Fatalf("no PDF/A-3B identification in XMP:\n%s", meta)
	}
	fonts := testtool.Run(t, "pdffonts", p)
	for _, line := range strings.Split(fonts, "\n")[2:] {
		if f := strings.Fields(line); len(f) >= 5 && f[len(f)-5] != "yes" {
			t.Fatalf("font not embedded:\n%s", fonts)
		}
	}
	js := testtool.Run(t, "qpdf", "--json", p)
	for _, want := range []string{`"/OutputIntents"`, `"/GTS_PDFA1"`, `"/DestOutputProfile"`, `sRGB IEC61966-2.1`} {
		if !strings.Contains(js, want) {
			t.Fatalf("no %s in the converted file", want)
		}
	}
	return meta
}

func TestConvert(t *testing.T) {
	g := gs(t)
	src := testpdf.New(3)
	out, err := Convert(context.Background(), g, src, Options{Title: "Jahresbericht 2026 – Entwurf", Author: "Jürgen (Büro)", Now: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	meta := checkPDFA(t, out)
	info := testtool.Info(t, out)
	if info["Title"] != "Jahresbericht 2026 – Entwurf" || info["Author"] != "Jürgen (Büro)" {
		t.Fatalf("Info %v", info)
	}
	for _, want := range []string{"Jahresbericht 2026 – Entwurf", "Jürgen (Büro)", "2026-11-22T09:00:00Z"} {
		if !strings.Contains(meta, want) {
			t.Fatalf("XMP lacks %q", want)
		}
	}
	if got := testtool.PageTexts(t, out); !reflect.DeepEqual(got, []string{"Page 1", "Page 2", "Page 3"}) {
		t.Fatalf("content changed: %q", got)
	}
}

func TestConvertCorpus(t *testing.T) {
	g := gs(t)
	dir := filepath.Join("..", "..", "..", "shared", "corpus", "pdf", "invoice-blanks")
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		t.Fatalf("corpus: %v", err)
	}
	for _, e := range entries {
		src, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		out, err := Convert(context.Background(), g, src, Options{})
		if err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		checkPDFA(t, out)
		// Same words (pdftotext's reading order may change with the re-encoded fonts).
		a, b := strings.Fields(testtool.Text(t, src)), strings.Fields(testtool.Text(t, out))
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			t.Fatalf("%s: text changed", e.Name())
		}
		if ti := testtool.Info(t, src)["Title"]; ti != "" && testtool.Info(t, out)["Title"] != ti {
			t.Fatalf("%s: title %q lost", e.Name(), ti)
		}
	}
}

func TestConvertRefusesBadInput(t *testing.T) {
	g := gs(t)
	if _, err := Convert(context.Background(), g, []byte("not a pdf"), Options{}); fault.CodeOf(err) != fault.InvalidPDF {
		t.Fatalf("garbage: %v", err)
	}
}
