package chromium

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/papierkram/papierkram/netguard"
)

// sink is a set of listeners that count what reaches them: TCP connections accepted and
// UDP datagrams read.
type sink struct {
	t     *testing.T
	mu    sync.Mutex
	seen  *sync.Cond
	peers map[string]bool // remote addresses seen, probes included
	n     int
	wg    sync.WaitGroup
}

func newSink(t *testing.T) *sink {
	s := &sink{t: t, peers: map[string]bool{}}
	s.seen = sync.NewCond(&s.mu)
	t.Cleanup(s.wg.Wait) // registered first, so it runs after the listeners are closed
	return s
}

func (s *sink) saw(peer string) {
	s.mu.Lock()
	s.peers[peer] = true
	s.n++
	s.seen.Broadcast()
	s.mu.Unlock()
}

// tcp listens on addr (host:0) and returns the address; every connection is accepted,
// counted and closed without a byte read or written.
func (s *sink) tcp(addr string) string {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { ln.Close() })
	s.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.saw(c.RemoteAddr().String())
			c.Close()
		}
	})
	return ln.Addr().String()
}

// udp listens on addr and counts datagrams (a STUN server's side).
func (s *sink) udp(addr string) string {
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { pc.Close() })
	s.wg.Go(func() {
		buf := make([]byte, 2048)
		for {
			_, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			s.saw(from.String())
		}
	})
	return pc.LocalAddr().String()
}

// count is what reached the listeners in addrs, once everything sent to them before has
// arrived: a probe sent to each last is seen only after all that came before it (a
// listener's accept queue and a socket's receive queue are in order).
func (s *sink) count(network string, addrs ...string) int {
	s.t.Helper()
	probes := 0
	for _, a := range addrs {
		c, err := net.Dial(network, a)
		if err != nil {
			s.t.Fatal(err)
		}
		defer c.Close()
		if network == "udp" {
			c.Write([]byte("probe"))
		}
		probes++
		local := c.LocalAddr().String()
		s.mu.Lock()
		for !s.peers[local] {
			s.seen.Wait()
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.n - probes
	s.n = 0
	return n
}

// connect sends one proxy request to the proxy at addr and returns the status and the
// connection (open when the tunnel stands).
func connect(t *testing.T, addr, request string) (int, net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	io.WriteString(c, request)
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("%q: %v", request, err)
	}
	return res.StatusCode, c, br
}

func TestProxyEnforcesThePolicy(t *testing.T) {
	s := newSink(t)
	v4, v6 := s.tcp("127.0.0.1:0"), s.tcp("[::1]:0")
	var counts proxyCounts
	p, err := startProxy(netguard.Policy{}, &counts, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	// A name that resolves to an outside address and an internal one (DNS rebinding
	// answers either) is refused as a whole.
	p.resolve = func(_ context.Context, host string) ([]netip.Addr, error) {
		if host == "rebind.test" {
			return []netip.Addr{netip.MustParseAddr("203.0.113.7"), netip.MustParseAddr("127.0.0.1")}, nil
		}
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	_, port4, _ := net.SplitHostPort(v4)
	for _, req := range []string{
		"CONNECT " + v4 + " HTTP/1.1\r\nHost: " + v4 + "\r\n\r\n",
		"CONNECT " + v6 + " HTTP/1.1\r\nHost: " + v6 + "\r\n\r\n",
		"CONNECT [::ffff:127.0.0.1]:" + port4 + " HTTP/1.1\r\n\r\n",
		"CONNECT localhost:" + port4 + " HTTP/1.1\r\n\r\n",
		"CONNECT rebind.test:" + port4 + " HTTP/1.1\r\n\r\n",
		"GET http://" + v4 + "/ HTTP/1.1\r\nHost: " + v4 + "\r\n\r\n",
		"POST http://" + v6 + "/ HTTP/1.1\r\nHost: " + v6 + "\r\nContent-Length: 0\r\n\r\n",
	} {
		if code, _, _ := connect(t, p.addr(), req); code != http.StatusForbidden {
			t.Errorf("%q: status %d, want 403", req, code)
		}
	}
	if n := s.count("tcp", v4, v6); n != 0 {
		t.Errorf("refused requests opened %d connections to their targets", n)
	}
	if counts.refused.Load() != 7 || counts.tunnels.Load() != 0 {
		t.Errorf("refused %d, tunnels %d", counts.refused.Load(), counts.tunnels.Load())
	}
}

func TestProxyTunnelsToTheCheckedAddress(t *testing.T) {
	echo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer echo.Close()
	go func() {
		for {
			c, err := echo.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	allow := netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	var counts proxyCounts
	p, err := startProxy(allow, &counts, slog.Default())
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	// The name exists only for the proxy's lookup: the tunnel reaches the echo server only
	// if the proxy dials the address it checked rather than resolving again.
	p.resolve = func(_ context.Context, host string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	_, port, _ := net.SplitHostPort(echo.Addr().String())
	code, c, br := connect(t, p.addr(), "CONNECT allowed.test:"+port+" HTTP/1.1\r\nHost: allowed.test:"+port+"\r\n\r\n")
	if code != http.StatusOK {
		t.Fatalf("status %d", code)
	}
	io.WriteString(c, "ping\n")
	if line, err := br.ReadString('\n'); err != nil || line != "ping\n" {
		t.Fatalf("through the tunnel: %q %v", line, err)
	}
	if counts.tunnels.Load() != 1 {
		t.Errorf("tunnels %d", counts.tunnels.Load())
	}
}

func FuzzConnectTarget(f *testing.F) {
	for _, s := range []string{
		"CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n",
		"CONNECT [::1]:443 HTTP/1.1\r\n\r\n",
		"CONNECT 127.0.0.1:0 HTTP/1.1\r\n\r\n",
		"CONNECT xn--bcher-kva.example:8443 HTTP/1.1\r\n\r\n",
		"CONNECT [fe80::1%25eth0]:443 HTTP/1.1\r\n\r\n",
		"GET http://example.org/ HTTP/1.1\r\nHost: example.org\r\n\r\n",
		"CONNECT a b:443 HTTP/1.1\r\n\r\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		req, err := http.ReadRequest(bufio.NewReader(strings.NewReader(raw)))
		if err != nil {
			return
		}
		host, port, err := connectTarget(req)
		if err != nil {
			return
		}
		if req.Method != http.MethodConnect || port < 1 || port > 65535 || host == "" {
			t.Fatalf("accepted %q: %q %d", raw, host, port)
		}
		if _, err := netip.ParseAddr(host); err != nil && strings.TrimLeft(host, "abcdefghijklmnopqrstuvwxyz0123456789-_.") != "" {
			t.Fatalf("accepted host %q", host)
		}
	})
}
