package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/fault"
)

func TestAuthentication(t *testing.T) {
	e := newTestEnv(t)
	p := wantProblem(t, e.do("GET", "/api/auth/validate", "", nil), 401, "unauthorized")
	if !strings.Contains(p["detail"].(string), "missing") {
		t.Fatalf("detail %v", p["detail"])
	}
	res := e.do("GET", "/api/auth/validate", "wrong", nil)
	if res.Header.Get("WWW-Authenticate") == "" {
		t.Fatal("401 without WWW-Authenticate")
	}
	wantProblem(t, res, 401, "unauthorized")

	res = e.do("GET", "/api/auth/validate", testKey, nil)
	if res.StatusCode != 200 {
		t.Fatalf("env key: %d", res.StatusCode)
	}
	who := decode(t, res)
	if who["valid"] != true || who["plan"] != "admin" || who["admin"] != true || !strings.HasPrefix(who["keyId"].(string), "env_") {
		t.Fatalf("whoami %v", who)
	}

	// A key made through the admin API works, shows its plan and allowance, and stops
	// working once revoked.
	res = e.do("POST", "/api/admin/keys", testKey, `{"name":"accounting"}`)
	if res.StatusCode != 201 {
		t.Fatalf("create key: %d", res.StatusCode)
	}
	nk := decode(t, res)
	secret, id := nk["key"].(string), nk["id"].(string)
	if !strings.HasPrefix(secret, "pk_") || nk["plan"] != "free" || nk["monthlyConversions"] != float64(100) {
		t.Fatalf("new key %v", nk)
	}
	who = decode(t, e.do("GET", "/api/auth/validate", secret, nil))
	conv := who["conversions"].(map[string]any)
	if who["keyId"] != id || who["name"] != "accounting" || conv["limit"] != float64(100) || conv["remaining"] != float64(100) || conv["resetAt"] != "2026-12-01T00:00:00Z" {
		t.Fatalf("whoami %v", who)
	}
	wantProblem(t, e.do("GET", "/api/admin/keys", secret, nil), 403, "forbidden")
	list := e.do("GET", "/api/admin/keys", testKey, nil)
	var keys []map[string]any
	json.NewDecoder(list.Body).Decode(&keys)
	list.Body.Close()
	if len(keys) != 1 || keys[0]["id"] != id || keys[0]["key"] != nil {
		t.Fatalf("key list %v", keys)
	}
	if res := e.do("DELETE", "/api/admin/keys/"+id, testKey, nil); res.StatusCode != 204 {
		t.Fatalf("revoke: %d", res.StatusCode)
	}
	p = wantProblem(t, e.do("GET", "/api/auth/validate", secret, nil), 401, "unauthorized")
	if !strings.Contains(p["detail"].(string), "revoked") {
		t.Fatalf("detail %v", p["detail"])
	}
	wantProblem(t, e.do("DELETE", "/api/admin/keys/key_nope", testKey, nil), 404, "not_found")

	// Neither the secret nor the header value ever reaches the log.
	if logs := e.logs.String(); strings.Contains(logs, secret) || strings.Contains(logs, testKey) {
		t.Fatal("an API key was logged")
	}
}

func TestPublicRoutes(t *testing.T) {
	e := newTestEnv(t)
	h := decode(t, e.do("GET", "/health", "", nil))
	if h["status"] != "ok" {
		t.Fatalf("health %v", h)
	}
	r := decode(t, e.do("GET", "/ready", "", nil))
	if r["status"] != "ready" || r["checks"].(map[string]any)["store"] != "ok" {
		t.Fatalf("ready %v", r)
	}
	doc := decode(t, e.do("GET", "/openapi.json", "", nil))
	if doc["openapi"] != "3.1.0" || doc["info"].(map[string]any)["version"] != "0.1.0" {
		t.Fatalf("openapi %v %v", doc["openapi"], doc["info"])
	}
	res := e.do("GET", "/docs", "", nil)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{"/v1/convert/html-to-pdf", "/api/preview/page-count", `id="problem-quota_exceeded"`, "not implemented yet"} {
		if !strings.Contains(string(body), want) {
			t.Fatalf("/docs lacks %q", want)
		}
	}
	if strings.Contains(string(body), "<script") || strings.Contains(string(body), `src="http`) || strings.Contains(string(body), `href="http`) {
		t.Fatal("/docs loads scripts or remote resources")
	}
	// Metrics need an admin key unless configured public.
	wantProblem(t, e.do("GET", "/metrics", "", nil), 401, "unauthorized")
	res = e.do("GET", "/metrics", testKey, nil)
	m, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(m), `papierkram_http_requests_total{route="GET /health",status="200"} 1`) ||
		!strings.Contains(string(m), "papierkram_http_request_duration_seconds_bucket") {
		t.Fatalf("metrics lack request counters:\n%s", m)
	}
	pub := newTestEnv(t, func(c *Config) { c.MetricsPublic = true })
	if res := pub.do("GET", "/metrics", "", nil); res.StatusCode != 200 {
		t.Fatalf("public metrics: %d", res.StatusCode)
	}
}

// TestAuthAndQueryFirst: authentication and query validation come before a handler reads
// the body.
func TestAuthAndQueryFirst(t *testing.T) {
	e := newTestEnv(t)
	wantProblem(t, e.do("POST", "/api/xrechnung/extract", "", nil), 401, "unauthorized")
	p := wantProblem(t, e.do("POST", "/api/preview?dpi=301", testKey, nil), 400, "invalid_input")
	if errs := p["errors"].([]any); !strings.Contains(errs[0].(map[string]any)["location"].(string), "dpi") {
		t.Fatalf("errors %v", errs)
	}
	wantProblem(t, e.do("POST", "/api/pdf-tools/rotate?degrees=45", testKey, nil), 400, "invalid_input")
	wantProblem(t, e.do("POST", "/api/xrechnung/extract?bogus=1", testKey, nil), 400, "invalid_input")
}

func TestRoutingProblems(t *testing.T) {
	e := newTestEnv(t)
	wantProblem(t, e.do("GET", "/api/nope", "", nil), 401, "unauthorized")
	wantProblem(t, e.do("GET", "/api/nope", testKey, nil), 404, "not_found")
	res := e.do("GET", "/api/pdf-tools/split", testKey, nil)
	if res.Header.Get("Allow") != "POST" {
		t.Fatalf("Allow %q", res.Header.Get("Allow"))
	}
	wantProblem(t, res, 405, "method_not_allowed")
}

func TestBadJSON(t *testing.T) {
	e := newTestEnv(t)
	for name, body := range map[string]string{
		"not json":     `{"name":`,
		"wrong type":   `{"name": 5}`,
		"unknown plan": `{"name":"x","plan":"gold"}`,
		"empty name":   `{"name":""}`,
		"array":        `[1,2]`,
	} {
		t.Run(name, func(t *testing.T) {
			wantProblem(t, e.do("POST", "/api/admin/keys", testKey, body), 400, "invalid_input")
		})
	}
	big := `{"name":"` + strings.Repeat("a", 2<<20) + `"}`
	wantProblem(t, e.do("POST", "/api/admin/keys", testKey, big), 413, "payload_too_large")
}

// addTestRoute registers an extra operation, as a capability would.
func addTestRoute(e *testEnv, path string, h func(ctx context.Context, in *struct {
	Fail string `query:"fail"`
}) (*struct{ Body map[string]string }, error), opts ...opt) {
	register(e.srv, huma.Operation{Method: http.MethodPost, Path: path}, h, opts...)
}

func TestQuota(t *testing.T) {
	e := newTestEnv(t, noRateLimit) // the monthly allowance alone
	addTestRoute(e, "/v1/convert/test", func(ctx context.Context, in *struct {
		Fail string `query:"fail"`
	}) (*struct{ Body map[string]string }, error) {
		if in.Fail != "" {
			return nil, fault.New(fault.InvalidInput, "asked to fail")
		}
		return &struct{ Body map[string]string }{map[string]string{"ok": "yes"}}, nil
	}, conversion())
	nk := decode(t, e.do("POST", "/api/admin/keys", testKey, `{"name":"free"}`))
	key := nk["key"].(string)

	for i := 1; i <= 100; i++ {
		if res := e.do("POST", "/v1/convert/test", key, nil); res.StatusCode != 200 {
			t.Fatalf("conversion %d: %d", i, res.StatusCode)
		} else {
			res.Body.Close()
		}
		if i == 50 { // failed conversions use no allowance
			wantProblem(t, e.do("POST", "/v1/convert/test?fail=1", key, nil), 400, "invalid_input")
		}
	}
	res := e.do("POST", "/v1/convert/test", key, nil)
	if ra := res.Header.Get("Retry-After"); ra == "" {
		t.Fatal("429 without Retry-After")
	}
	p := wantProblem(t, res, 429, "quota_exceeded")
	if p["resetAt"] != "2026-12-01T00:00:00Z" || p["limit"] != float64(100) {
		t.Fatalf("quota problem %v", p)
	}
	u := decode(t, e.do("GET", "/api/usage", key, nil))
	if c := u["conversions"].(map[string]any); c["used"] != float64(100) || c["remaining"] != float64(0) {
		t.Fatalf("usage %v", u)
	}
	fam := u["families"].([]any)[0].(map[string]any)
	if fam["family"] != "convert" || fam["requests"] != float64(102) || fam["conversions"] != float64(100) {
		t.Fatalf("family usage %v", fam)
	}
	// Admin and unlimited keys have no allowance; a new month resets it.
	for range 3 {
		if res := e.do("POST", "/v1/convert/test", testKey, nil); res.StatusCode != 200 {
			t.Fatalf("admin conversion: %d", res.StatusCode)
		}
	}
	e.setNow(time.Date(2026, 12, 1, 0, 0, 1, 0, time.UTC))
	if res := e.do("POST", "/v1/convert/test", key, nil); res.StatusCode != 200 {
		t.Fatalf("new month: %d", res.StatusCode)
	}
	all := e.do("GET", "/api/admin/usage?month=2026-11", testKey, nil)
	var rows []map[string]any
	json.NewDecoder(all.Body).Decode(&rows)
	all.Body.Close()
	if len(rows) != 2 {
		t.Fatalf("admin usage rows %v", rows)
	}
	wantProblem(t, e.do("GET", "/api/usage?month=2026-13", key, nil), 400, "invalid_input")
}

func TestPanicBecomesProblem(t *testing.T) {
	e := newTestEnv(t)
	addTestRoute(e, "/api/test/panic", func(ctx context.Context, _ *struct {
		Fail string `query:"fail"`
	}) (*struct{ Body map[string]string }, error) {
		panic("kaboom")
	})
	p := wantProblem(t, e.do("POST", "/api/test/panic", testKey, nil), 500, "internal")
	if strings.Contains(p["detail"].(string), "kaboom") {
		t.Fatal("panic value leaked to the client")
	}
	logs := e.logs.String()
	if !strings.Contains(logs, "kaboom") || !strings.Contains(logs, "goroutine") || !strings.Contains(logs, p["requestId"].(string)) {
		t.Fatalf("panic not logged with stack and request id:\n%s", logs)
	}
	// The server still serves.
	if res := e.do("GET", "/health", "", nil); res.StatusCode != 200 {
		t.Fatal("server down after panic")
	}
}

func TestUnexpectedErrorHidesCause(t *testing.T) {
	e := newTestEnv(t)
	addTestRoute(e, "/api/test/oops", func(ctx context.Context, _ *struct {
		Fail string `query:"fail"`
	}) (*struct{ Body map[string]string }, error) {
		return nil, errors.New("db password is hunter2")
	})
	p := wantProblem(t, e.do("POST", "/api/test/oops", testKey, nil), 500, "internal")
	if strings.Contains(p["detail"].(string), "hunter2") || p["errors"] != nil {
		t.Fatalf("cause leaked: %v", p)
	}
	if !strings.Contains(e.logs.String(), "hunter2") {
		t.Fatal("cause not logged")
	}
}

func TestRequestID(t *testing.T) {
	e := newTestEnv(t)
	res := e.do("GET", "/health", "", nil, "X-Request-Id", "trace-123")
	if res.Header.Get("X-Request-Id") != "trace-123" {
		t.Fatalf("caller's id not kept: %q", res.Header.Get("X-Request-Id"))
	}
	res = e.do("GET", "/health", "", nil, "X-Request-Id", "bad id\" injected")
	if id := res.Header.Get("X-Request-Id"); id == "" || strings.Contains(id, " ") {
		t.Fatalf("unsafe id accepted: %q", id)
	}
	if !strings.Contains(e.logs.String(), `"requestId":"trace-123"`) {
		t.Fatal("access log lacks the request id")
	}
}
