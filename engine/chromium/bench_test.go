package chromium

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine"
)

// BenchmarkPrintInvoice is the common case: a one-page invoice without sub-resources, on a
// warm browser (sandboxed, behind its proxy).
func BenchmarkPrintInvoice(b *testing.B) {
	root := b.TempDir()
	os.Chmod(filepath.Dir(root), 0o711)
	c := New(engine.Config{Concurrency: 1, JobTimeout: 60 * time.Second, TempRoot: root})
	defer c.Supervisor().Stop(context.Background())
	html := `<html><head><style>body{font-family:sans-serif} td{padding:2mm}</style></head><body>
<h1>Rechnung 2026-001</h1><p>Muster GmbH, Hauptstraße 1, 10115 Berlin</p>
<table><tr><td>Beratung</td><td>10 h</td><td>1.200,00 €</td></tr><tr><td>USt 19 %</td><td></td><td>228,00 €</td></tr>
<tr><th>Summe</th><td></td><th>1.428,00 €</th></tr></table></body></html>`
	ctx := context.Background()
	if _, err := c.Print(ctx, Job{HTML: html}); err != nil { // starts the browser
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Print(ctx, Job{HTML: html}); err != nil {
			b.Fatal(err)
		}
	}
}
