package server

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/chromium"
	"github.com/papierkram/papierkram/internal/testtool"
)

// accepts counts the connections made to TCP listeners on loopback.
type accepts struct {
	mu    sync.Mutex
	cond  *sync.Cond
	peers map[string]bool
	n     int
	wg    sync.WaitGroup
}

func newAccepts(t *testing.T) *accepts {
	a := &accepts{peers: map[string]bool{}}
	a.cond = sync.NewCond(&a.mu)
	t.Cleanup(a.wg.Wait)
	return a
}

func (a *accepts) listen(t *testing.T, addr string) string {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	a.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			a.mu.Lock()
			a.peers[c.RemoteAddr().String()] = true
			a.n++
			a.cond.Broadcast()
			a.mu.Unlock()
			c.Close()
		}
	})
	return ln.Addr().String()
}

// count is the number of connections the listeners at addrs accepted, once all made so far
// have been accepted: a probe connection made last to each is accepted after them.
func (a *accepts) count(t *testing.T, addrs ...string) int {
	for _, addr := range addrs {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		a.mu.Lock()
		for !a.peers[c.LocalAddr().String()] {
			a.cond.Wait()
		}
		a.mu.Unlock()
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.n - len(addrs)
}

// TestRenderedPagesCannotReachInternalNetwork: through every endpoint that renders HTML,
// a page's prefetches, preconnects, header band links, WebSockets and URL reach no internal
// address (not even a TLS hello), and a request that breaks its browser does not break the
// next caller's render on the same browser.
func TestRenderedPagesCannotReachInternalNetwork(t *testing.T) {
	root := t.TempDir()
	os.Chmod(filepath.Dir(root), 0o711) // the browser's unprivileged user reaches its profile
	cr := chromium.New(engine.Config{Concurrency: 1, TempRoot: root, JobTimeout: 20 * time.Second})
	t.Cleanup(func() { cr.Supervisor().Stop(context.Background()) })
	e := newTestEnv(t, func(c *Config) { c.Printer = cr; c.Engines["chromium"] = cr.Supervisor() })

	a := newAccepts(t)
	h4, h6, tls4 := a.listen(t, "127.0.0.1:0"), a.listen(t, "[::1]:0"), a.listen(t, "127.0.0.1:0")
	var links strings.Builder
	for _, rel := range []string{"prefetch", "preconnect", "dns-prefetch", "preload"} {
		for _, u := range []string{"http://" + h4 + "/", "http://" + h6 + "/", "https://" + tls4 + "/"} {
			links.WriteString(`<link rel="` + rel + `" as="image" href="` + u + rel + `">`)
		}
	}
	body := func(v map[string]any) string { b, _ := json.Marshal(v); return string(b) }
	neighbour := decode(t, e.do("POST", "/api/admin/keys", testKey, `{"name":"Nachbar"}`))["key"].(string)

	pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, body(map[string]any{"html": links.String() + "<p>eins</p>"})))
	pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, body(map[string]any{"html": links.String() + "<p>zwei</p>", "executeJs": true, "waitUntil": "networkidle0"})))
	pdfBody(t, e.do("POST", "/v1/convert/markdown-to-pdf", testKey, body(map[string]any{"markdown": "# Titel\n\n" + links.String() + "\n\nText", "allowUnsafeHtml": true})))
	pdfBody(t, e.do("POST", "/api/documents/generate", testKey, body(map[string]any{"html": links.String() + "<h1>Nr. {{n}}</h1>", "data": map[string]any{"n": "7"}})))
	ws := `<script>new WebSocket('ws://` + h4 + `/'); new WebSocket('wss://` + h6 + `/')</script><p>ws</p>`
	pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, body(map[string]any{"html": ws, "executeJs": true, "waitUntil": "networkidle0"})))
	wantProblem(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, body(map[string]any{"url": "https://" + tls4 + "/"})), 400, "invalid_input")

	// A header band with links fails the attacker's own render, as the caller's error; the
	// neighbour's render right after it, on the same (only) browser, succeeds.
	for i := range 2 {
		res := e.do("POST", "/v1/convert/html-to-pdf", testKey, body(map[string]any{"html": "<p>Angriff</p>", "header": map[string]any{"html": "<span>Kopf</span>" + links.String()}}))
		if res.StatusCode != 200 {
			wantProblem(t, res, 422, "unprocessable")
		} else {
			res.Body.Close()
		}
		b := pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", neighbour, body(map[string]any{"html": "<p>Rechnung des Nachbarn</p>"})))
		if !strings.Contains(testtool.Text(t, b), "Rechnung des Nachbarn") {
			t.Fatalf("round %d: the neighbour's PDF lacks its text", i)
		}
	}

	cr.Supervisor().Stop(context.Background()) // nothing is still on its way
	if n := a.count(t, h4, h6, tls4); n != 0 {
		t.Errorf("%d connections reached internal listeners", n)
	}
}
