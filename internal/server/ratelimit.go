package server

import (
	"context"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/time/rate"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/store"
)

// heavyPaths are the operations, besides the conversions, that run an engine (Ghostscript,
// poppler, Tesseract, LibreOffice) or sign: the work a key whose allowance is used up could
// otherwise still ask for without end. One table, so the rate limit's reach can be read in one
// place (and is listed in the OpenAPI descriptions through heavyNote).
var heavyPaths = []string{
	"/api/pdf-tools/pdfa", "/api/pdf-tools/text",
	"/api/pdf-tools/compress", "/api/pdf-tools/ocr", "/api/pdf-tools/images-to-pdf",
	"/api/preview", // the page images; page-count is cheap and not listed
	"/api/zugferd/embed",
	"/api/xrechnung/visualize", // format=pdf prints with Chromium and Ghostscript
	"/api/receipts/extract",    // also extract-batch and extract-async
	"/api/xrechnung/extract",
	"/api/signatures/sign",
	"/api/spreadsheets/convert",
}

// heavyNote is added to the description of every heavy operation.
const heavyNote = "Counts against the key's rate limit of heavy operations (429 `rate_limited` with Retry-After when exceeded; admin keys are not limited)."

// heavy tells whether the operation at path counts against the per-key rate limit.
func heavy(path string, conversion bool) bool {
	if conversion {
		return true
	}
	if path == "/api/preview/page-count" {
		return false
	}
	for _, p := range heavyPaths {
		if path == p || strings.HasPrefix(path, p+"/") || strings.HasPrefix(path, p+"-") {
			return true
		}
	}
	return false
}

// RateLimit is the per-key limit of heavy operations: PerMinute on average, Burst at once.
// A zero PerMinute turns it off. Admin keys are not limited.
type RateLimit struct {
	PerMinute float64
	Burst     int
}

// DefaultRateLimit: a person at a workbench or a steady integration stays far below it; a loop
// of failing renders or PDF/A conversions from one key does not.
var DefaultRateLimit = RateLimit{PerMinute: 60, Burst: 20}

// limiter holds one token bucket per key, made on first use. Keys are few (they are stored
// or configured), so buckets are never evicted.
type limiter struct {
	limit RateLimit
	mu    sync.Mutex
	keys  map[string]*rate.Limiter
	// refused counts the requests answered 429, for the metrics.
	refused atomic.Int64
}

func newLimiter(l RateLimit) *limiter {
	return &limiter{limit: l, keys: map[string]*rate.Limiter{}}
}

// take takes n tokens of key's bucket at now, or answers how long until they are there.
func (l *limiter) take(key *store.Key, now time.Time, n int) (time.Duration, bool) {
	if l == nil || l.limit.PerMinute <= 0 || key.Admin() {
		return 0, true
	}
	l.mu.Lock()
	b := l.keys[key.ID]
	if b == nil {
		b = rate.NewLimiter(rate.Limit(l.limit.PerMinute/60), max(l.limit.Burst, 1))
		l.keys[key.ID] = b
	}
	l.mu.Unlock()
	r := b.ReserveN(now, n)
	if !r.OK() { // more than the burst at once
		return time.Duration(float64(n) / l.limit.PerMinute * float64(time.Minute)), false
	}
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now) // a refused request uses nothing
		return d, false
	}
	return 0, true
}

// rateLimited is the 429 problem of a key over its rate, with Retry-After in whole seconds.
func (l *limiter) rateLimited(wait time.Duration) error {
	l.refused.Add(1)
	secs := int64(math.Ceil(wait.Seconds()))
	return fault.New(fault.RateLimited, "too many heavy requests from this key: at most %g a minute (%d at once); retry in %d s",
		l.limit.PerMinute, max(l.limit.Burst, 1), secs).With("retryAfterSeconds", secs)
}

// chargeMore takes n more tokens for the request in ctx (a batch of n files costs n), or
// answers the 429 problem.
func (s *Server) chargeMore(ctx context.Context, n int) error {
	key := keyFrom(ctx)
	if n <= 0 || key == nil {
		return nil
	}
	if wait, ok := s.limiter.take(key, s.now(), n); !ok {
		return s.limiter.rateLimited(wait)
	}
	return nil
}

// bigInput is the size above which an in-process validation waits for one of a few places:
// rules that look across a document make a large one cost more than its size (a 95 MB
// invoice took 52 s), and a few of them must not take every core from the small ones.
const bigInput = 1 << 20

// bounded runs work at once for inputs up to bigInput, and for larger ones on one of the
// server's places for large work (one per core), waiting no longer than ctx allows.
func (s *Server) bounded(ctx context.Context, size int, work func() error) error {
	if size > bigInput {
		select {
		case s.big <- struct{}{}:
			defer func() { <-s.big }()
		case <-ctx.Done():
			return fault.FromContext(ctx, "the document was waiting for its turn")
		}
	}
	return work()
}
