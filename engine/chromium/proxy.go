package chromium

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/papierkram/papierkram/netguard"
)

// The proxy is the only way out of a browser. Chromium is started with it as the proxy of
// every scheme and host, loopback included, and with a host resolver that resolves nothing,
// so every connection a page causes (sub-resources, prefetches and preconnects, the header
// and footer bands, WebSockets, WebRTC's TURN over TCP) arrives here before any socket to the
// target exists. The renderer's request interception stays as the first, courteous answer
// (a clear "URL not allowed"); the proxy is what enforces the network policy, below the page,
// for requests the interception never sees.
//
// Only CONNECT is served (https and wss tunnels); plain-HTTP requests are refused, as the
// policy allows pages https only. For each CONNECT the proxy resolves the name itself,
// checks every address, and dials a checked address: there is no second lookup a rebinding
// DNS server could answer differently.

const (
	proxyHeaderTimeout = 10 * time.Second // for Chromium to send its CONNECT
	proxyResolveLimit  = 10 * time.Second
	proxyDialTimeout   = 10 * time.Second
	proxyMaxHeader     = 16 << 10
	// proxyMaxTunnels bounds one browser's open tunnels. Chromium itself opens at most 32
	// connections to a proxy, so only a browser gone wrong meets this bound.
	proxyMaxTunnels = 64
)

type proxy struct {
	ln     net.Listener
	policy netguard.Policy
	// resolve looks a name up (nil: net.DefaultResolver; tests set their own).
	resolve netguard.Lookup
	log     *slog.Logger
	slots   chan struct{}
	counts  *proxyCounts

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// proxyCounts are the engine's proxies' counters, for tests and diagnosis.
type proxyCounts struct{ refused, tunnels atomic.Int64 }

// startProxy listens on a loopback port of its own and serves until close.
func startProxy(policy netguard.Policy, counts *proxyCounts, log *slog.Logger) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if counts == nil {
		counts = new(proxyCounts)
	}
	p := &proxy{ln: ln, policy: policy, log: log, slots: make(chan struct{}, proxyMaxTunnels), counts: counts,
		conns: map[net.Conn]struct{}{}}
	p.wg.Go(p.serve)
	return p, nil
}

// addr is the proxy's address, host:port with a literal IP.
func (p *proxy) addr() string { return p.ln.Addr().String() }

// close stops accepting, ends every tunnel and waits for the proxy's goroutines.
func (p *proxy) close() {
	p.mu.Lock()
	p.closed = true
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.ln.Close()
	p.wg.Wait()
}

// track registers c so that close can end it; it reports false once the proxy is closed.
func (p *proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *proxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			p.log.Warn("browser proxy: accept", "error", err)
			return
		}
		if !p.track(c) {
			c.Close()
			return
		}
		p.wg.Go(func() {
			defer p.untrack(c)
			p.handle(c)
		})
	}
}

// reply writes a short status answer that ends the connection.
func reply(c net.Conn, status int) {
	c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	io.WriteString(c, "HTTP/1.1 "+strconv.Itoa(status)+" "+http.StatusText(status)+"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
}

func (p *proxy) handle(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(proxyHeaderTimeout))
	br := bufio.NewReaderSize(io.LimitReader(c, proxyMaxHeader), 4096)
	req, err := http.ReadRequest(br)
	if err != nil {
		reply(c, http.StatusBadRequest)
		return
	}
	host, port, err := connectTarget(req)
	if err != nil {
		p.counts.refused.Add(1)
		p.log.Debug("browser proxy: refused", "method", req.Method, "target", req.RequestURI, "reason", err)
		reply(c, http.StatusForbidden)
		return
	}
	select {
	case p.slots <- struct{}{}:
		defer func() { <-p.slots }()
	default:
		reply(c, http.StatusServiceUnavailable)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), proxyResolveLimit+proxyDialTimeout)
	defer cancel()
	addrs, err := p.check(ctx, host)
	if err != nil {
		p.counts.refused.Add(1)
		p.log.Debug("browser proxy: refused", "target", req.RequestURI, "reason", err)
		reply(c, http.StatusForbidden)
		return
	}
	up, err := p.dial(ctx, addrs, port)
	if err != nil {
		reply(c, http.StatusBadGateway)
		return
	}
	if !p.track(up) {
		up.Close()
		return
	}
	defer p.untrack(up)
	p.counts.tunnels.Add(1)
	c.SetReadDeadline(time.Time{})
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		return
	}
	// Bytes Chromium sent after its CONNECT (it waits for the answer, but need not).
	if n := br.Buffered(); n > 0 {
		b, _ := br.Peek(n)
		if _, err := up.Write(b); err != nil {
			return
		}
	}
	tunnel(c, up)
}

// connectTarget checks that req is a CONNECT to host:port and returns the two.
func connectTarget(req *http.Request) (host string, port int, err error) {
	if req.Method != http.MethodConnect {
		return "", 0, errors.New("only CONNECT is served (pages may load https only)")
	}
	h, ps, err := net.SplitHostPort(req.RequestURI)
	if err != nil {
		return "", 0, err
	}
	port, err = strconv.Atoi(ps)
	if err != nil || port < 1 || port > 65535 || strings.TrimLeft(ps, "0123456789") != "" {
		return "", 0, errors.New("bad port")
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return h, port, nil
	}
	// A name, as Chromium sends it: ASCII (IDNs in punycode), no trailing dot needed.
	h = strings.TrimSuffix(strings.ToLower(h), ".")
	if h == "" || len(h) > 253 || strings.TrimLeft(h, "abcdefghijklmnopqrstuvwxyz0123456789-_.") != "" {
		return "", 0, errors.New("bad host")
	}
	return h, port, nil
}

// check resolves host with the proxy's lookup and returns its addresses when the policy
// allows every one of them.
func (p *proxy) check(ctx context.Context, host string) ([]netip.Addr, error) {
	rctx, cancel := context.WithTimeout(ctx, proxyResolveLimit)
	defer cancel()
	return p.policy.Addrs(rctx, host, p.resolve)
}

// dial connects to the first of addrs that answers; the policy's dialer checks the address
// once more just before the socket connects.
func (p *proxy) dial(ctx context.Context, addrs []netip.Addr, port int) (net.Conn, error) {
	d := p.policy.Dialer(proxyDialTimeout)
	var err error
	for _, a := range addrs {
		var c net.Conn
		if c, err = d.DialContext(ctx, "tcp", netip.AddrPortFrom(a.Unmap(), uint16(port)).String()); err == nil {
			return c, nil
		}
	}
	return nil, err
}

// tunnel copies both ways until both sides are done; the end of one direction is passed on
// as a half close, so TLS's close_notify still arrives.
func tunnel(a, b net.Conn) {
	done := make(chan struct{})
	go func() {
		io.Copy(b, a)
		closeWrite(b)
		close(done)
	}()
	io.Copy(a, b)
	closeWrite(a)
	<-done
}

func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
		return
	}
	c.Close()
}
