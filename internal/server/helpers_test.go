package server

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/papierkram/papierkram/engine/office"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/chromium"
	"github.com/papierkram/papierkram/engine/ghostscript"
	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/engine/pygments"
	"github.com/papierkram/papierkram/engine/tesseract"
	"github.com/papierkram/papierkram/store"
)

const testKey = "test-admin-key"

// logBuffer collects log output safely across goroutines.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *logBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

type testEnv struct {
	t     testing.TB
	srv   *Server
	http  *httptest.Server
	store *store.SQLite
	logs  *logBuffer
	now   time.Time
	mu    sync.Mutex
}

func newTestEnv(t testing.TB, mutate ...func(*Config)) *testEnv {
	t.Helper()
	st, err := store.OpenSQLite(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := &testEnv{t: t, store: st, logs: &logBuffer{}, now: time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)}
	pop := poppler.New(engine.Config{Concurrency: 2, TempRoot: t.TempDir(), JobTimeout: 30 * time.Second})
	gs := ghostscript.New(engine.Config{Concurrency: 2, TempRoot: t.TempDir(), JobTimeout: 60 * time.Second})
	cr := chromium.New(engine.Config{Concurrency: 2, TempRoot: t.TempDir(), JobTimeout: 20 * time.Second})
	// The office pool starts lazily: tests that convert no office file start no soffice.
	of, err := office.New(engine.Config{Concurrency: 2, TempRoot: t.TempDir(), JobTimeout: 60 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ocr := tesseract.New(engine.Config{Concurrency: 2, TempRoot: t.TempDir(), JobTimeout: 60 * time.Second})
	hl := pygments.New(engine.Config{Concurrency: 2, TempRoot: t.TempDir(), JobTimeout: 30 * time.Second})
	t.Cleanup(func() {
		ocr.Supervisor().Stop(context.Background())
		hl.Supervisor().Stop(context.Background())
		pop.Supervisor().Stop(context.Background())
		gs.Supervisor().Stop(context.Background())
		cr.Supervisor().Stop(context.Background())
		of.Close(context.Background())
	})
	cfg := Config{
		APIKeys: []string{testKey}, Store: st, Renderer: pop, PDFA: gs, Printer: cr, Office: of, OCR: ocr, TextLayer: ocr, Distiller: gs, Highlight: hl,
		Engines: map[string]Engine{"poppler": pop.Supervisor(), "ghostscript": gs.Supervisor(), "chromium": cr.Supervisor(), "office": of, "tesseract": ocr.Supervisor(), "pygments": hl.Supervisor()},
		Logger:  slog.New(slog.NewJSONHandler(e.logs, nil)),
		Now:     func() time.Time { e.mu.Lock(); defer e.mu.Unlock(); return e.now },
	}
	for _, m := range mutate {
		m(&cfg)
	}
	e.srv, err = New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e.http = httptest.NewServer(e.srv.Handler())
	t.Cleanup(e.http.Close)
	return e
}

func (e *testEnv) setNow(t time.Time) { e.mu.Lock(); e.now = t; e.mu.Unlock() }

// do sends a request; body may be nil, a string, []byte or an io.Reader.
func (e *testEnv) do(method, path, key string, body any, header ...string) *http.Response {
	e.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	case io.Reader:
		r = b
	}
	req, err := http.NewRequest(method, e.http.URL+path, r)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

// decode reads a JSON body into a map and closes it.
func decode(t *testing.T, res *http.Response) map[string]any {
	t.Helper()
	defer res.Body.Close()
	var m map[string]any
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %q", err, b)
	}
	return m
}

// wantProblem asserts an RFC 9457 problem with status and code, and returns it.
func wantProblem(t *testing.T, res *http.Response, status int, code string) map[string]any {
	t.Helper()
	if res.StatusCode != status {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("status %d, want %d: %s", res.StatusCode, status, b)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/problem+json") {
		t.Fatalf("Content-Type %q, want application/problem+json", ct)
	}
	p := decode(t, res)
	if p["code"] != code {
		t.Fatalf("code %v, want %s: %v", p["code"], code, p)
	}
	if int(p["status"].(float64)) != status || p["title"] == "" || p["detail"] == "" {
		t.Fatalf("problem lacks status/title/detail: %v", p)
	}
	if p["type"] != "/docs#problem-"+code {
		t.Fatalf("type %v", p["type"])
	}
	if id, _ := p["requestId"].(string); id == "" || id != res.Header.Get("X-Request-Id") {
		t.Fatalf("requestId %v vs header %q", p["requestId"], res.Header.Get("X-Request-Id"))
	}
	return p
}

// multipartBody builds a multipart body from name -> content; names starting with "@" are files.
func multipartBody(t *testing.T, parts ...[2]string) (io.Reader, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		if name, ok := strings.CutPrefix(p[0], "@"); ok {
			w, _ := mw.CreateFormFile(name, name+".pdf")
			w.Write([]byte(p[1]))
		} else {
			mw.WriteField(p[0], p[1])
		}
	}
	mw.Close()
	return &buf, mw.FormDataContentType()
}
