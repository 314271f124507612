package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/papierkram/papierkram/internal/testpg"
	"github.com/papierkram/papierkram/store"
)

// BenchmarkAuthenticatedRequest measures what the store adds to every request, on the
// embedded SQLite store (the baseline) and on PostgreSQL in the same run: the key looked
// up by its hash, the request counted, the usage read (GET /api/usage). The PostgreSQL
// sub-benchmark reports its ratio to SQLite as x-sqlite.
func BenchmarkAuthenticatedRequest(b *testing.B) {
	ctx := context.Background()
	pgURL := testpg.Start(b)
	var base float64
	for _, backend := range []string{"sqlite", "postgres"} {
		b.Run(backend, func(b *testing.B) {
			st, err := store.Open(ctx, map[string]string{"postgres": pgURL}[backend], b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			secret := store.NewSecret()
			if err := st.CreateKey(ctx, &store.Key{Name: "bench", Hash: store.Hash(secret), Plan: store.PlanFree}); err != nil {
				b.Fatal(err)
			}
			s, err := New(Config{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				req := httptest.NewRequest("GET", "/api/usage", nil)
				req.Header.Set("X-API-Key", secret)
				rec := httptest.NewRecorder()
				s.Handler().ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatal(rec.Code, rec.Body.String())
				}
			}
			perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			if backend == "sqlite" {
				base = perOp
			} else if base > 0 {
				b.ReportMetric(perOp/base, "x-sqlite")
			}
		})
	}
}
