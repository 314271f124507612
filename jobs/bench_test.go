package jobs

import (
	"context"
	"encoding/json"
	"testing"
)

// BenchmarkSubmit measures job submission (accepting a job with a 100 KB input) on the
// in-memory queue (the baseline) and on River in PostgreSQL in the same run; the River
// sub-benchmark reports its ratio as x-memory. Workers do nothing, so the figure is the
// queue's own cost.
func BenchmarkSubmit(b *testing.B) {
	input := make([]byte, 100<<10)
	noop := map[string]Work{"noop": func(context.Context, Info, []byte, json.RawMessage) (Result, error) { return Result{}, nil }}
	var base float64
	for _, impl := range []string{"memory", "river"} {
		b.Run(impl, func(b *testing.B) {
			var q Queue
			if impl == "memory" {
				m := NewMemory(Options{Workers: noop, Concurrency: 4})
				defer m.Close(context.Background())
				q = m
			} else {
				q = openRiver(b, testDatabase(b), Options{Workers: noop, Concurrency: 4})
			}
			for b.Loop() {
				if _, err := q.Submit(context.Background(), Submission{Owner: "k", Kind: "noop", Filename: "x", Input: input}); err != nil {
					b.Fatal(err)
				}
			}
			perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			if impl == "memory" {
				base = perOp
			} else if base > 0 {
				b.ReportMetric(perOp/base, "x-memory")
			}
		})
	}
}
