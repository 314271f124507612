package server

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

type fakeEngine struct{ stopped atomic.Bool }

func (f *fakeEngine) Ready(context.Context) error { return nil }
func (f *fakeEngine) Stop(context.Context) error  { f.stopped.Store(true); return nil }

// serve runs the server's real http.Server (timeouts, protocols) on a loopback port.
func serve(t *testing.T, e *testEnv) (addr string, cancel context.CancelFunc, done chan error) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done = make(chan error, 1)
	go func() { done <- e.srv.Run(ctx, ln) }()
	t.Cleanup(cancel)
	return ln.Addr().String(), cancel, done
}

func TestSlowClientIsCutOff(t *testing.T) {
	e := newTestEnv(t, func(c *Config) { c.ReadHeaderTimeout = 300 * time.Millisecond })
	addr, _, _ := serve(t, e)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Slowloris: a request line, then headers that never end.
	io.WriteString(conn, "GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: ")
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = io.ReadAll(conn)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatal("the server kept a slow client's connection open for 5 s")
	}
}

func TestH2C(t *testing.T) {
	e := newTestEnv(t)
	addr, _, _ := serve(t, e)
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	client := &http.Client{Transport: &http.Transport{Protocols: p, TLSClientConfig: &tls.Config{}}}
	res, err := client.Get("http://" + addr + "/health")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.ProtoMajor != 2 || res.StatusCode != 200 {
		t.Fatalf("proto %s status %d", res.Proto, res.StatusCode)
	}
	// HTTP/1.1 keeps working on the same port.
	res, err = http.Get("http://" + addr + "/health")
	if err != nil || res.ProtoMajor != 1 {
		t.Fatalf("HTTP/1.1: %v %v", err, res)
	}
	res.Body.Close()
}

func TestGracefulShutdown(t *testing.T) {
	eng := &fakeEngine{}
	e := newTestEnv(t, func(c *Config) { c.Engines["fake"] = eng })
	started := make(chan struct{})
	addTestRoute(e, "/api/test/slow", func(ctx context.Context, _ *struct {
		Fail string `query:"fail"`
	}) (*struct{ Body map[string]string }, error) {
		close(started)
		time.Sleep(700 * time.Millisecond)
		return &struct{ Body map[string]string }{map[string]string{"finished": "yes"}}, nil
	})
	addr, cancel, done := serve(t, e)
	type result struct {
		status int
		body   string
		err    error
	}
	resc := make(chan result, 1)
	go func() {
		req, _ := http.NewRequest("POST", "http://"+addr+"/api/test/slow", nil)
		req.Header.Set("X-API-Key", testKey)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			resc <- result{err: err}
			return
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		resc <- result{status: res.StatusCode, body: string(b)}
	}()
	<-started
	cancel() // SIGTERM's equivalent
	r := <-resc
	if r.err != nil || r.status != 200 || !strings.Contains(r.body, "finished") {
		t.Fatalf("in-flight request cut off: %+v", r)
	}
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !eng.stopped.Load() {
		t.Fatal("engines not stopped on shutdown")
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Fatal("still accepting after shutdown")
	}
}

// TestBadRequestsLeakNothing sends many broken requests and checks that goroutines come back
// to where they were.
func TestBadRequestsLeakNothing(t *testing.T) {
	e := newTestEnv(t)
	addr, _, _ := serve(t, e)
	before := countGoroutines()
	for i := range 60 {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		switch i % 3 {
		case 0: // garbage instead of HTTP
			io.WriteString(conn, "\x16\x03\x01garbage\r\n\r\n")
		case 1: // a body shorter than its Content-Length, then hang up
			io.WriteString(conn, "POST /api/preview/page-count HTTP/1.1\r\nHost: x\r\nX-API-Key: "+testKey+"\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000\r\n\r\n--b\r\n")
		case 2: // malformed multipart
			io.WriteString(conn, "POST /api/preview/page-count HTTP/1.1\r\nHost: x\r\nX-API-Key: "+testKey+"\r\nContent-Type: multipart/form-data; boundary=b\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")
			bufio.NewReader(conn).ReadString('\n')
		}
		conn.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for countGoroutines() > before+2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := countGoroutines(); n > before+2 {
		t.Fatalf("goroutines: %d before, %d after", before, n)
	}
}
