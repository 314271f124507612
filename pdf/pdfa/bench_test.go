package pdfa

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/chromium"
	"github.com/papierkram/papierkram/engine/ghostscript"
	"github.com/papierkram/papierkram/pdf/conform"
)

// onlyConverter hides a converter's profile: Convert then re-renders with Ghostscript, the
// baseline of the remediation.
type onlyConverter struct{ Converter }

// report is a 10-page HTML report as html-to-pdf prints it: headings, paragraphs, a
// table on every page, a coloured and a half-transparent box.
func report(b *testing.B) []byte {
	var h strings.Builder
	h.WriteString(`<!doctype html><html lang="de"><head><title>Bericht</title><style>section{page-break-after:always} td{border:1px solid #999;padding:4px}</style></head><body>`)
	for p := 1; p <= 10; p++ {
		fmt.Fprintf(&h, `<section><h1>Abschnitt %d</h1><p style="color:#0a5">Umsatz im Quartal, Übersicht.</p><div style="background:#fc0;opacity:.6;height:40px"></div><table>`, p)
		for r := 0; r < 20; r++ {
			fmt.Fprintf(&h, "<tr><td>Posten %d.%d</td><td>%d,00 €</td></tr>", p, r, 100*r+p)
		}
		h.WriteString("</table></section>")
	}
	h.WriteString("</body></html>")
	c := chromium.New(engine.Config{Concurrency: 1})
	b.Cleanup(func() { c.Supervisor().Stop(context.Background()) })
	out, err := c.Print(context.Background(), chromium.Job{HTML: h.String()})
	if err != nil {
		b.Fatal(err)
	}
	return out
}

// BenchmarkConvert: PDF/A-3b of our own 10-page HTML output by remediation (incremental
// updates, checked by the validator) against re-rendering it with Ghostscript, in the same
// run: go test -run '^$' -bench Convert -benchtime 3x ./pdf/pdfa/
func BenchmarkConvert(b *testing.B) {
	src := report(b)
	gs := ghostscript.New(engine.Config{Concurrency: 1})
	for _, c := range []struct {
		name string
		conv Converter
	}{{"remediation", gs}, {"ghostscript", onlyConverter{gs}}} {
		b.Run(c.name, func(b *testing.B) {
			var out []byte
			for b.Loop() {
				var err error
				if out, err = Convert(context.Background(), c.conv, src, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			if r, err := conform.Check(context.Background(), out, conform.PDFA3B); err != nil || !r.Compliant {
				b.Fatalf("%s: not PDF/A-3B: %v %+v", c.name, err, r)
			}
			b.ReportMetric(float64(len(out))/float64(len(src)), "size-ratio")
		})
	}
}
