package rules

import (
	"context"
	"fmt"
	"syscall"
	"testing"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/syntax"
)

// withLines is the example invoice with n lines.
func withLines(n int) *einvoice.Invoice {
	inv := einvoice.Example()
	base := inv.Lines
	inv.Lines = nil
	for i := range n {
		l := base[i%2]
		l.ID = fmt.Sprint(i + 1)
		inv.Lines = append(inv.Lines, l)
	}
	return inv
}

// BenchmarkValidate validates XRechnung invoices of 10 and 500 lines in each syntax; the
// baseline in the same run is syntax detection, which parses the document, so the ratio is
// the cost of the rules over the cost of reading. Run with -cpu 1 for invoices per second
// on one core.
func BenchmarkValidate(b *testing.B) {
	for _, s := range []syntax.Syntax{syntax.UBL, syntax.CII} {
		for _, n := range []int{10, 500} {
			doc, err := syntax.XRechnung(withLines(n), s, "")
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/%d-lines/parse", s, n), func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				for b.Loop() {
					if _, err := syntax.Detect(context.Background(), doc); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(fmt.Sprintf("%s/%d-lines/validate", s, n), func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				b.ReportAllocs()
				start := cpuTime()
				for b.Loop() {
					r, err := Validate(context.Background(), doc)
					if err != nil || r.Summary.Checked == 0 {
						b.Fatal(err)
					}
				}
				// The process's CPU time per validation (garbage collection included): on
				// a busy machine wall time per op measures the neighbours as well.
				b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// cpuTime is the user and system CPU time the process has used, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
