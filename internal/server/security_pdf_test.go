package server

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/internal/testpdf"
)

// TestPDFBombsRefused: a 2 MB PDF that inflates to 2 GiB, one whose object streams
// inflate to 1.5 GiB and one of 100,000 pages are refused by every endpoint that reads a
// PDF, in the documented problem shape, before pdfcpu, poppler or Ghostscript work on
// them: quickly (they took 43 s and more) and without the GBs of memory split and
// extraction took (the server runs in this process, so its allocations are measured).
func TestPDFBombsRefused(t *testing.T) {
	e := newTestEnv(t)
	inv, _ := json.Marshal(einvoice.Example())
	bombs := []struct {
		name   string
		data   []byte
		status int
		code   string
		detail string
	}{
		{"2 GiB stream", testpdf.ContentBomb(2<<30, 1), 413, "payload_too_large", "the limit per stream"},
		{"object streams", testpdf.ObjectStreamBomb(512<<20, nil), 413, "payload_too_large", "the limit per object stream"},
		{"100,000 pages", testpdf.ManyPages(100_000, 0), 400, "invalid_pdf", "100000 pages; at most 5000"},
		// Extraction reads receipts and invoices, not books: 500 pages are refused at once.
		{"500 pages", testpdf.ManyPages(500, 0), 400, "invalid_input", "500 pages"},
	}
	endpoints := []struct {
		path  string
		parts [][2]any
	}{
		{"/api/pdf-tools/split?pages=all", nil},
		{"/api/pdf-tools/extract-pages?pages=1", nil},
		{"/api/pdf-tools/text", nil},
		{"/api/pdf-tools/pdfa", nil},
		{"/api/preview", nil},
		{"/api/preview/page-count", nil},
		{"/api/pdf-tools/metadata", nil},
		{"/api/zugferd/embed", [][2]any{{"invoice", string(inv)}}},
		{"/api/receipts/extract", nil},
		{"/api/xrechnung/extract", nil},
	}
	for _, b := range bombs {
		for _, ep := range endpoints {
			if b.name == "500 pages" && !strings.HasSuffix(ep.path, "/extract") {
				continue // a long document is fine for the PDF tools
			}
			t.Run(b.name+" "+ep.path, func(t *testing.T) {
				parts := append([][2]any{{"@file", b.data}}, ep.parts...)
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				start := time.Now()
				res := e.uploadAs(testKey, ep.path, parts...)
				took := time.Since(start)
				p := wantProblem(t, res, b.status, b.code)
				runtime.ReadMemStats(&after)
				alloc := (after.TotalAlloc - before.TotalAlloc) >> 20
				if d, _ := p["detail"].(string); !strings.Contains(d, b.detail) {
					t.Errorf("detail %q does not name the limit (%q)", d, b.detail)
				}
				if took > 20*time.Second*raceSlowdown {
					t.Errorf("answered after %v", took)
				}
				// The upload itself is buffered a few times; 9 MB of pages cost about 100 MB
				// to scan and upload, the 2 GiB bomb GBs without the check.
				if alloc > 300 {
					t.Errorf("%d MiB allocated for the request", alloc)
				}
				t.Logf("%v, %d MiB", took.Round(time.Millisecond), alloc)
			})
		}
	}
}
