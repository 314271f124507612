package syntax_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/syntax"
)

// tenLines is a typical XRechnung: the example with ten lines.
func tenLines() *einvoice.Invoice {
	inv := einvoice.Example()
	base := inv.Lines
	inv.Lines = nil
	for i := range 10 {
		l := base[i%2]
		l.ID = fmt.Sprint(i + 1)
		inv.Lines = append(inv.Lines, l)
	}
	return inv
}

// BenchmarkReadWrite parses and re-writes a 10-line XRechnung in each syntax; the baseline
// in the same run is the parse alone, so the figures read as parse cost plus write cost.
func BenchmarkReadWrite(b *testing.B) {
	for _, s := range []syntax.Syntax{syntax.CII, syntax.UBL} {
		doc, err := syntax.XRechnung(tenLines(), s, "")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(string(s)+"/parse", func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := syntax.Read(context.Background(), doc); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(string(s)+"/parse+write", func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				inv, _, err := syntax.Read(context.Background(), doc)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := syntax.Write(inv, s, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
