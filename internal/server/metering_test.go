package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/internal/testinvoice"
	"github.com/papierkram/papierkram/store"
)

// freeKey stores a free-plan key and returns its secret.
func (e *testEnv) freeKey(t *testing.T, name string) string {
	t.Helper()
	secret := store.NewSecret()
	if err := e.store.CreateKey(t.Context(), &store.Key{Hash: store.Hash(secret), ID: store.IDOf(store.Hash(secret)), Name: name, Plan: store.PlanFree}); err != nil {
		t.Fatal(err)
	}
	return secret
}

// noRateLimit turns the per-key rate limit off, for tests of the monthly allowance alone.
func noRateLimit(c *Config) { c.RateLimit = RateLimit{PerMinute: -1} }

func usedConversions(t *testing.T, e *testEnv, key string) float64 {
	t.Helper()
	u := decode(t, e.do("GET", "/api/usage", key, nil))
	return u["conversions"].(map[string]any)["used"].(float64)
}

// waitJob polls a document job until it ends; every answer is a state the job can be in.
func waitJob(t *testing.T, e *testEnv, key, statusURL string) map[string]any {
	t.Helper()
	for {
		j := decode(t, e.do("GET", statusURL, key, nil))
		switch j["status"] {
		case "completed", "failed":
			return j
		case "queued", "running":
		default:
			t.Fatalf("job %v", j)
		}
		select {
		case <-t.Context().Done():
			t.Fatal("job did not end")
		case <-time.After(20 * time.Millisecond): // polling, as a client does
		}
	}
}

// Failed asynchronous generations used conversions (4 failures used 6): the 202 kept the
// reservation whatever the job did. Only documents actually made count now.
func TestAsyncFailuresUseNoConversions(t *testing.T) {
	e := newTestEnv(t)
	key := e.freeKey(t, "async")
	submit := func(html string) string {
		res := e.do("POST", "/api/documents/generate-async", key, `{"html":`+quote(html)+`}`)
		if res.StatusCode != http.StatusAccepted {
			t.Fatalf("status %d", res.StatusCode)
		}
		return decode(t, res)["statusUrl"].(string)
	}
	// An unclosed section fails when the template is filled, inside the job.
	for range 4 {
		if j := waitJob(t, e, key, submit(`<p>{#items}{{name}}</p>`)); j["status"] != "failed" {
			t.Fatalf("job %v", j)
		}
	}
	if n := usedConversions(t, e, key); n != 0 {
		t.Fatalf("4 failed jobs used %v conversions", n)
	}
	if j := waitJob(t, e, key, submit(`<h1>Rechnung</h1>`)); j["status"] != "completed" {
		t.Fatalf("job %v", j)
	}
	if n := usedConversions(t, e, key); n != 1 {
		t.Fatalf("1 document made, %v conversions used", n)
	}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// A key whose conversions are used up could still run PDF/A, previews, OCR and signing
// without end, and failures (which use no conversion) cost an attacker nothing. Heavy
// operations are rate-limited per key: 429 rate_limited with Retry-After.
func TestRateLimitHeavyOperations(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.RateLimit = RateLimit{PerMinute: 6, Burst: 2} })
	key := e.freeKey(t, "heavy")
	notPDF := []byte("not a PDF")
	for range 2 { // the burst: refused as bad input, but counted
		wantProblem(t, e.uploadAs(key, "/api/pdf-tools/pdfa", [2]any{"@file", notPDF}), 400, "invalid_pdf")
	}
	res := e.uploadAs(key, "/api/preview", [2]any{"@file", notPDF})
	if ra := res.Header.Get("Retry-After"); ra != "10" { // 6 a minute: one every 10 s
		t.Errorf("Retry-After %q", ra)
	}
	p := wantProblem(t, res, http.StatusTooManyRequests, "rate_limited")
	if p["retryAfterSeconds"] != float64(10) || !strings.Contains(p["detail"].(string), "6 a minute") {
		t.Fatalf("problem %v", p)
	}
	// Cheap work is not limited; another key has its own bucket; admin keys none.
	wantProblem(t, e.uploadAs(key, "/api/preview/page-count", [2]any{"@file", notPDF}), 400, "invalid_pdf")
	other := e.freeKey(t, "other")
	wantProblem(t, e.uploadAs(other, "/api/pdf-tools/pdfa", [2]any{"@file", notPDF}), 400, "invalid_pdf")
	for range 4 {
		wantProblem(t, e.uploadAs(testKey, "/api/pdf-tools/pdfa", [2]any{"@file", notPDF}), 400, "invalid_pdf")
	}
	// Ten seconds later one more is allowed.
	e.setNow(e.now.Add(10 * time.Second))
	wantProblem(t, e.uploadAs(key, "/api/pdf-tools/pdfa", [2]any{"@file", notPDF}), 400, "invalid_pdf")
	wantProblem(t, e.uploadAs(key, "/api/pdf-tools/pdfa", [2]any{"@file", notPDF}), 429, "rate_limited")
	// A batch costs a token per file.
	e.setNow(e.now.Add(time.Minute))
	files := make([][2]any, 3)
	for i := range files {
		files[i] = [2]any{"@files", []byte(fmt.Sprintf("not an image %d", i))}
	}
	wantProblem(t, e.uploadAs(key, "/api/receipts/extract-batch", files...), 429, "rate_limited")
	// The OpenAPI document says which operations are limited.
	doc := decode(t, e.do("GET", "/openapi.json", "", nil))
	paths := doc["paths"].(map[string]any)
	for path, want := range map[string]bool{"/api/pdf-tools/pdfa": true, "/v1/convert/html-to-pdf": true, "/api/preview/page-count": false, "/api/xrechnung/validate": false} {
		desc := paths[path].(map[string]any)["post"].(map[string]any)["description"].(string)
		if strings.Contains(desc, heavyNote) != want {
			t.Errorf("%s: limited %v, description %q", path, want, desc)
		}
	}
}

// Work ends when its answer could no longer be written: a validation that would run on for
// seconds after the response's write deadline is stopped and answered 504.
func TestWorkEndsAtWriteDeadline(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.WriteTimeout = time.Second })
	big := testinvoice.Large(t, 2500) // ~24 MB: several seconds of rules
	start := time.Now()
	wantProblem(t, e.uploadAs(testKey, "/api/xrechnung/validate", [2]any{"@file", big}), http.StatusGatewayTimeout, "timeout")
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("answered after %v", d)
	}
}

// Large validations (over 1 MiB) take one of a few places, one per core, so that a key
// sending many big invoices cannot take every core from the small ones: while the places are
// taken, a small invoice is validated at once and a big one waits, within its deadline.
func TestLargeValidationsWaitForAPlace(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.WriteTimeout = 3 * time.Second })
	big := testinvoice.Large(t, 200)
	if len(big) <= bigInput {
		t.Fatalf("the big invoice has %d bytes", len(big))
	}
	small := testinvoice.Large(t, 1)
	for range cap(e.srv.big) {
		e.srv.big <- struct{}{}
	}
	res := e.uploadAs(testKey, "/api/xrechnung/validate", [2]any{"@file", small})
	if res.StatusCode != 200 {
		t.Fatalf("small invoice while the places are taken: %d", res.StatusCode)
	}
	res.Body.Close()
	p := wantProblem(t, e.uploadAs(testKey, "/api/xrechnung/validate", [2]any{"@file", big}), http.StatusGatewayTimeout, "timeout")
	if !strings.Contains(p["detail"].(string), "waiting for its turn") {
		t.Fatalf("problem %v", p)
	}
	for range cap(e.srv.big) {
		<-e.srv.big
	}
	// (Its copied lines break the sum and id rules: a report, not a verdict, is the point.)
	if v := decode(t, e.uploadAs(testKey, "/api/xrechnung/validate", [2]any{"@file", big})); v["documentType"] != "Invoice" || len(v["results"].([]any)) == 0 {
		t.Fatalf("big invoice with a free place: %.500v", v)
	}
}
