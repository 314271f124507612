package chromium

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testtool"
	"github.com/papierkram/papierkram/netguard"
)

// sandboxRoot is a temporary root that the unprivileged user Chromium runs as (when the
// tests run as root) can reach, so that the tests' browsers run sandboxed as deployed.
func sandboxRoot(t *testing.T) string {
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o711) // t.TempDir's parent is private to its owner
	return dir
}

// TestPageCannotReachInternalNetwork: whatever a page asks for (prefetch, preconnect,
// preload, a header band's link, sub-resources, a URL job, WebSockets, WebRTC's STUN and
// TURN), no connection and no datagram reaches an internal address: not an HTTP request,
// not even the TLS hello that would tell the caller the port is open.
func TestPageCannotReachInternalNetwork(t *testing.T) {
	c := pool(t, 1)
	s := newSink(t)
	tcp := []string{s.tcp("127.0.0.1:0"), s.tcp("[::1]:0"), s.tcp("127.0.0.1:0"), s.tcp("[::1]:0")}
	h4, h6, tls4, tls6 := tcp[0], tcp[1], tcp[2], tcp[3]
	// Port 80 where it can be had: the URL without a port, as an attacker writes it.
	if ln, err := net.Listen("tcp", "127.0.0.1:80"); err == nil {
		ln.Close()
		tcp = append(tcp, s.tcp("127.0.0.1:80"))
	} else {
		t.Logf("port 80 not available (%v): http://127.0.0.1/ is requested but not counted", err)
	}
	udp := []string{s.udp("127.0.0.1:0"), s.udp("[::1]:0")}

	var links strings.Builder
	for _, rel := range []string{"prefetch", "preconnect", "dns-prefetch", "preload", "stylesheet"} {
		for _, u := range []string{"http://" + h4 + "/", "http://[::1]:" + port(h6) + "/", "https://" + tls4 + "/", "https://" + tls6 + "/", "http://127.0.0.1/"} {
			links.WriteString(`<link rel="` + rel + `" as="image" href="` + u + rel + `">`)
		}
	}
	subresources := `<img src="http://` + h4 + `/img"><img src="https://` + tls6 + `/img"><iframe src="https://` + tls4 + `/frame"></iframe>` +
		`<iframe src="http://[::1]:` + port(h6) + `/frame"></iframe><style>@import url(https://` + tls4 + `/css);</style>`
	scripts := `<script>
new WebSocket('ws://` + h4 + `/'); new WebSocket('wss://` + tls6 + `/');
const pc = new RTCPeerConnection({iceServers: [
  {urls: ['stun:` + udp[0] + `', 'stun:` + udp[1] + `']},
  {urls: ['turn:` + h4 + `?transport=tcp', 'turn:` + udp[0] + `?transport=udp'], username: 'u', credential: 'p'}]});
pc.createDataChannel('x');
pc.createOffer().then(o => pc.setLocalDescription(o));
fetch('https://` + tls4 + `/fetch').catch(() => {});
</script>`
	body := `<html><head>` + links.String() + `</head><body><p>Rechnung</p>` + subresources + scripts + `</body></html>`
	band := `<div>Kopf` + links.String() + `<img src="http://` + h4 + `/band"></div>`
	ctx := context.Background()
	for _, js := range []bool{false, true} {
		if _, err := c.Print(ctx, Job{HTML: body, JavaScript: js, WaitUntil: "networkidle0"}); err != nil {
			t.Errorf("page (JavaScript %v): %v", js, err)
		}
		// A band's links fail the print (Chromium's doing); that is the caller's 4xx.
		bands := page.PrintToPDFParams{DisplayHeaderFooter: new(true), HeaderTemplate: band, FooterTemplate: band, MarginTop: new(1.0), MarginBottom: new(1.0)}
		if _, err := c.Print(ctx, Job{HTML: `<p>x</p>`, JavaScript: js, PDF: bands}); err != nil && fault.CodeOf(err) != fault.Unprocessable {
			t.Errorf("bands (JavaScript %v): %v", js, err)
		}
	}
	for _, u := range []string{"https://" + tls4 + "/", "https://[::1]:" + port(tls6) + "/"} {
		_, err := c.Print(ctx, Job{URL: u, Allow: func(context.Context, string) bool { return true }})
		if fault.CodeOf(err) != fault.Unprocessable && fault.CodeOf(err) != fault.InvalidInput {
			t.Errorf("URL job %s: %v", u, err)
		}
	}
	// Stopping the engine ends every browser, so that nothing is still on its way.
	c.Supervisor().Stop(ctx)
	if n := s.count("tcp", tcp...); n != 0 {
		t.Errorf("%d TCP connections reached internal listeners", n)
	}
	if n := s.count("udp", udp...); n != 0 {
		t.Errorf("%d datagrams reached internal STUN/TURN listeners", n)
	}
	if c.env.proxied.refused.Load() == 0 {
		t.Error("the proxy refused nothing: the page's requests did not reach it")
	}
}

func port(hostport string) string { _, p, _ := net.SplitHostPort(hostport); return p }

// TestProxyCarriesAllowedHTTPS: an address the policy allows is reached, through the
// proxy, with the job's Allow asked as before.
func TestProxyCarriesAllowedHTTPS(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/css")
		w.Write([]byte(`p.note::after { content: " CSS GELADEN"; }`))
	}))
	defer srv.Close()
	policy := netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
	c := New(engine.Config{Concurrency: 1, JobTimeout: 20 * time.Second, TempRoot: sandboxRoot(t)}, WithPolicy(policy))
	// The test server's certificate is its own; only tests ever pass this flag.
	c.env.testFlags = []string{"--ignore-certificate-errors"}
	defer c.Supervisor().Stop(context.Background())
	allow := func(ctx context.Context, u string) bool { _, err := policy.CheckURL(ctx, u); return err == nil }
	pdf, err := c.Print(context.Background(), Job{HTML: `<link rel="stylesheet" href="` + srv.URL + `/s.css"><p class="note">Hinweis</p>`, Allow: allow})
	if err != nil {
		t.Fatal(err)
	}
	if text := testtool.Text(t, pdf); !strings.Contains(text, "CSS GELADEN") {
		t.Errorf("the allowed stylesheet did not apply: %q", text)
	}
	if hits.Load() == 0 || c.env.proxied.tunnels.Load() == 0 {
		t.Errorf("hits %d, tunnels %d", hits.Load(), c.env.proxied.tunnels.Load())
	}
}

// TestFailedJobLeavesBrowserClean: a job that breaks its browser (a header band with a
// link makes Chromium's print fail and leaves the tab stuck) fails on its own; the next
// caller's job on the same pool of one succeeds.
func TestFailedJobLeavesBrowserClean(t *testing.T) {
	c := pool(t, 1)
	s := newSink(t)
	addr := s.tcp("127.0.0.1:0")
	band := `<div>x<link rel="prefetch" href="http://` + addr + `/band"><link rel="stylesheet" href="https://` + addr + `/s.css"></div>`
	attack := Job{HTML: `<p>attacker</p>`, PDF: page.PrintToPDFParams{DisplayHeaderFooter: new(true), HeaderTemplate: band, FooterTemplate: "<span></span>", MarginTop: new(1.0)}}
	for i := range 3 {
		start := time.Now()
		_, err := c.Print(context.Background(), attack)
		t.Logf("attacker %d: %v after %s", i, err, time.Since(start))
		start = time.Now()
		if code := fault.CodeOf(err); code != "" && code != fault.Unprocessable {
			t.Errorf("attacker %d: %v (want success or the caller's 4xx)", i, err)
		}
		pdf, err := c.Print(context.Background(), Job{HTML: `<p>Rechnung des Nachbarn</p>`})
		t.Logf("victim %d: %v after %s", i, err, time.Since(start))
		if err != nil {
			t.Fatalf("victim %d after the attacker's job: %v", i, err)
		}
		if text := testtool.Text(t, pdf); !strings.Contains(text, "Rechnung des Nachbarn") {
			t.Fatalf("victim %d: %q", i, text)
		}
	}
}

// TestBrowserSandboxAndPipe: Chromium's renderers run in its sandbox (seccomp-bpf and a
// user namespace of their own), as an unprivileged user when the tests run as root, and
// no process of the browser listens on a TCP port (DevTools goes over a pipe).
func TestBrowserSandboxAndPipe(t *testing.T) {
	c := pool(t, 1)
	if _, err := c.Print(context.Background(), Job{HTML: `<p>x</p><script>document.title='x'</script>`, JavaScript: true}); err != nil {
		t.Fatal(err)
	}
	var pid int
	c.Supervisor().Run(context.Background(), func(ctx context.Context, w *engine.Worker) error {
		pid = w.Process().(*Browser).child.Pid()
		return nil
	})
	procs := processGroup(t, pid)
	browser := status(t, pid)
	if os.Geteuid() == 0 && strings.Fields(browser["Uid"])[0] == "0" {
		t.Errorf("the browser runs as root: Uid %s", browser["Uid"])
	}
	cmdline, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if !bytes.Contains(cmdline, []byte("--remote-debugging-pipe")) || bytes.Contains(cmdline, []byte("--remote-debugging-port")) || bytes.Contains(cmdline, []byte("--no-sandbox")) {
		t.Errorf("browser command line %q", bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
	}
	userNS, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "ns", "user"))
	renderers := 0
	for _, p := range procs {
		cl, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p), "cmdline"))
		if !bytes.Contains(cl, []byte("--type=renderer")) {
			continue
		}
		renderers++
		ns, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(p), "ns", "user"))
		if st := status(t, p); st["Seccomp"] != "2" || ns == userNS {
			t.Errorf("renderer %d: Seccomp %q, user namespace %s (browser's %s)", p, st["Seccomp"], ns, userNS)
		}
	}
	if renderers == 0 {
		t.Fatalf("no renderer among the browser's processes %v", procs)
	}
	if l := listening(t, procs); len(l) > 0 {
		t.Errorf("the browser's processes listen on TCP: %v", l)
	}
}

// processGroup lists the processes of process group pgid.
func processGroup(t *testing.T, pgid int) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces, so count after its ')'.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 2 && f[2] == strconv.Itoa(pgid) {
			out = append(out, p)
		}
	}
	return out
}

func status(t *testing.T, pid int) map[string]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m
}

// listening returns the TCP sockets in LISTEN state that procs hold open.
func listening(t *testing.T, procs []int) []string {
	inodes := map[string]bool{}
	for _, p := range procs {
		dir := filepath.Join("/proc", strconv.Itoa(p), "fd")
		fds, _ := os.ReadDir(dir)
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join(dir, fd.Name())); err == nil && strings.HasPrefix(l, "socket:[") {
				inodes[strings.Trim(l[len("socket:"):], "[]")] = true
			}
		}
	}
	var out []string
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(line)
			if len(fs) > 9 && fs[3] == "0A" && inodes[fs[9]] {
				out = append(out, fs[1])
			}
		}
	}
	return out
}

// TestSandboxFallback: where the kernel refuses Chromium's sandbox (here a stand-in that
// fails as Chromium does under Docker's default seccomp profile unless --no-sandbox is
// given), the engine still starts, without the sandbox, and does not try again.
func TestSandboxFallback(t *testing.T) {
	root := sandboxRoot(t)
	script := filepath.Join(root, "chromium-without-namespaces")
	os.WriteFile(script, []byte(`#!/bin/sh
for a in "$@"; do [ "$a" = --no-sandbox ] && exec chromium "$@"; done
echo "Failed to move to new namespace: PID namespaces supported, Network namespace supported, but failed: errno = Operation not permitted" >&2
exit 1
`), 0o755)
	c := New(engine.Config{Concurrency: 1, JobTimeout: 20 * time.Second, TempRoot: root})
	c.env.binary = script
	defer c.Supervisor().Stop(context.Background())
	pdf, err := c.Print(context.Background(), Job{HTML: `<p>ohne Sandbox</p>`})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(testtool.Text(t, pdf), "ohne Sandbox") || !c.env.noSandbox.Load() {
		t.Fatalf("text %q, sandbox given up: %v", testtool.Text(t, pdf), c.env.noSandbox.Load())
	}
}
