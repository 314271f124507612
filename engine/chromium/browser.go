package chromium

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/netip"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/netguard"
)

// Binary is Debian's Chromium.
const Binary = "chromium"

// flags keep the browser from reaching out on its own (the machine's network is closed, and
// a service's browser has no business calling home) and fit it to a container. Start adds
// the proxy, the DevTools pipe, the profile and, where the sandbox cannot run, --no-sandbox.
var flags = []string{
	"--headless", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
	"--no-first-run", "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
	"--disable-sync", "--disable-extensions", "--disable-default-apps", "--disable-quic", "--disable-breakpad",
	"--disable-domain-reliability", "--disable-client-side-phishing-detection", "--metrics-recording-only",
	"--disable-features=Translate,OptimizationHints,MediaRouter,InterestFeedContentSuggestions,AutofillServerCommunication", "--in-process-gpu",
	"--font-render-hinting=none",
	// Every connection goes through the proxy of the browser (see proxy.go), loopback too
	// (Chromium bypasses proxies for loopback unless told not to), and the browser resolves
	// no name itself: a connection the proxy did not check cannot be made, not even a
	// prefetch, a preconnect or a header band's link, which the request interception of the
	// page never sees.
	"--proxy-bypass-list=<-loopback>", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
	// WebRTC may use no UDP that bypasses the proxy (STUN, direct peers); its TURN over TCP
	// goes through the proxy like everything else.
	"--webrtc-ip-handling-policy=disable_non_proxied_udp",
	// DevTools over two pipes the browser inherits, not a TCP port every local process can
	// drive.
	"--remote-debugging-pipe",
	// Memory bounds: a page's JavaScript heap stops at 512 MB (a runaway script fails its
	// job instead of swelling the browser), and a browser keeps at most two renderer
	// processes; the supervisor recycles a browser whose processes hold more than the
	// engine's memory limit after a job.
	"--js-flags=--max-old-space-size=512", "--renderer-process-limit=2",
}

// preferences is the profile's preference file: no network prediction (DNS prefetch,
// preconnect) and WebRTC without non-proxied UDP, for every browser context of the profile.
const preferences = `{"net":{"network_prediction_options":2},"webrtc":{"ip_handling_policy":"disable_non_proxied_udp","multiple_routes_enabled":false,"nonproxied_udp_enabled":false}}`

// quietf takes chromedp's reports of protocol oddities it recovers from (an event for a
// frame that is gone): debug information, not errors of ours.
func quietf(format string, args ...any) { slog.Debug("chromedp: " + fmt.Sprintf(format, args...)) }

// common is what the browsers of one engine share.
type common struct {
	policy   netguard.Policy
	tempRoot string // parent of the profiles; "" is os.TempDir()
	log      *slog.Logger
	// user is the account Chromium runs as when the server runs as root (Chromium refuses
	// its sandbox as root); "" is nobody.
	user string
	// noSandbox is set once the kernel refused Chromium's sandbox: later starts skip it.
	noSandbox atomic.Bool
	warned    sync.Map    // warnings logged once
	proxied   proxyCounts // what the browsers' proxies refused and carried
	// Tests only: another program, more flags (a test certificate), the proxy's name lookup.
	binary    string
	testFlags []string
	resolve   func(ctx context.Context, host string) ([]netip.Addr, error)
}

func (c *common) warnOnce(key, msg string, args ...any) {
	if _, seen := c.warned.LoadOrStore(key, true); !seen {
		c.log.Warn(msg, args...)
	}
}

// Browser is one Chromium process, an engine.Process.
type Browser struct {
	env           *common
	dir           string // the profile
	tmp           string // Chromium's TMPDIR when it cannot be under the profile
	child         *engine.Child
	proxy         *proxy
	conn          *chromedp.PipeConn
	stderr        *tailBuffer
	ctx           context.Context // the browser's chromedp context
	cancelAlloc   context.CancelFunc
	cancelBrowser context.CancelFunc
	next          chan *tab   // the next JavaScript job's tab, prepared ahead
	scripted      atomic.Bool // a JavaScript job came: prepare tabs ahead from now on
	shared        *tab        // the tab of jobs without JavaScript, reset before each
}

// tab is an attached page in a browser context of its own.
type tab struct {
	ctx    context.Context
	cancel context.CancelFunc
	bc     cdp.BrowserContextID
	b      *Browser
	err    error
}

// prepare makes a fresh browser context and tab for the next job. Attaching to a new
// browser context starts a renderer process and takes about half a second, so it happens
// while the previous job runs rather than when the next one arrives.
func (b *Browser) prepare() { b.next <- b.newTab() }

func (b *Browser) newTab() *tab {
	t := &tab{b: b}
	ctx, cancel := context.WithTimeout(b.ctx, stepLimit)
	defer cancel()
	bc, err := chromedp.CallBrowser(ctx, target.CreateBrowserContext, target.CreateBrowserContextParams{DisposeOnDetach: new(true)})
	if err == nil {
		t.bc = bc.BrowserContextID
		var tgt target.CreateTargetResult
		tgt, err = chromedp.CallBrowser(ctx, target.CreateTarget, target.CreateTargetParams{URL: "about:blank", BrowserContextID: bc.BrowserContextID})
		if err == nil {
			t.ctx, t.cancel = chromedp.NewContext(b.ctx, chromedp.WithTargetID(tgt.TargetID))
			err = chromedp.Do(t.ctx)
		}
	}
	t.err = err
	return t
}

// take returns the prepared tab and starts preparing the one after it. A browser that has
// not opened it within stepLimit is stuck.
//
// The first JavaScript job of a browser waits for its tab: preparing one ahead from the
// start would keep a renderer process (40–60 MB) per browser for the jobs with JavaScript,
// which most servers never get.
func (b *Browser) take(ctx context.Context) (*tab, error) {
	if !b.scripted.Swap(true) {
		go b.prepare()
	}
	limit := time.NewTimer(stepLimit)
	defer limit.Stop()
	select {
	case <-limit.C:
		return nil, fault.New(fault.EngineUnavailable, "the browser did not open a tab in time")
	case t := <-b.next:
		go b.prepare()
		if t.err != nil {
			t.close()
			return nil, t.err
		}
		return t, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// close closes the tab and disposes of its browser context (cookies, cache, storage).
func (t *tab) close() {
	if t.cancel != nil {
		t.cancel()
	}
	if t.bc != "" {
		ctx, cancel := context.WithTimeout(t.b.ctx, 5*time.Second)
		defer cancel()
		chromedp.CallBrowser(ctx, target.DisposeBrowserContext, target.DisposeBrowserContextParams{BrowserContextID: t.bc})
	}
}

// NewBrowser returns a Browser that is not started yet, with the default network policy (no
// internal address) and its profile under os.TempDir().
func NewBrowser() *Browser { return &Browser{env: &common{log: slog.Default()}} }

// errNoSandbox is Chromium refusing to start because the kernel does not let it build its
// sandbox (no unprivileged user namespaces: a container's seccomp profile, AppArmor).
var errNoSandbox = errors.New("chromium: no usable sandbox")

// sandboxRefused reports whether Chromium's output says that it could not build its
// sandbox: no namespace sandbox and no setuid helper ("No usable sandbox", AppArmor), or
// namespaces that a seccomp filter forbids (Docker's default profile).
func sandboxRefused(stderr string) bool {
	for _, m := range []string{"No usable sandbox", "Failed to move to new namespace"} {
		if strings.Contains(stderr, m) {
			return true
		}
	}
	return false
}

// Start launches Chromium with a fresh profile, its own proxy and a DevTools pipe. The
// sandbox is on wherever the kernel allows it; as root, Chromium runs as an unprivileged
// user so that it can be.
func (b *Browser) Start(ctx context.Context) error {
	err := b.start(ctx, !b.env.noSandbox.Load())
	if errors.Is(err, errNoSandbox) {
		b.env.noSandbox.Store(true)
		b.env.log.Warn("chromium runs WITHOUT its sandbox: the kernel refused it (unprivileged user namespaces are off or blocked, e.g. by the container's seccomp profile or AppArmor); see the README's security section")
		err = b.start(ctx, false)
	}
	return err
}

func (b *Browser) start(ctx context.Context, sandbox bool) (err error) {
	defer func() {
		if err != nil {
			b.Stop()
		}
	}()
	root := b.env.tempRoot
	if root == "" {
		root = os.TempDir()
	}
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		if cred, err = b.env.unprivileged(root); err != nil {
			b.env.warnOnce("user", "chromium runs as root and WITHOUT its sandbox: it cannot run as an unprivileged user", "error", err)
			cred, sandbox = nil, false
		}
	}
	if b.dir, err = os.MkdirTemp(root, "papierkram-chromium-"); err != nil {
		return err
	}
	// Chromium's own temporary files (its singleton socket directory, left behind when the
	// browser is killed) go under the profile, which Stop removes, and so does everything it
	// would put in a home directory.
	tmp := filepath.Join(b.dir, "tmp")
	for _, d := range []string{tmp, filepath.Join(b.dir, "Default")} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	// Chromium's singleton socket lives in a directory it makes in TMPDIR, and a unix socket
	// path has at most 107 bytes: under a deep temporary root, its temporary files go to a
	// short directory of their own, which Stop removes too. It is made in the root itself
	// when that is short enough (a server's run directory, swept after a SIGKILL), and in
	// the system's only when not.
	const socket = len("/org.chromium.Chromium.XXXXXX/SingletonSocket")
	if len(tmp)+socket > 107 {
		short := root
		if len(root)+len("/c-1234567890")+socket > 107 {
			short = ""
		}
		if b.tmp, err = os.MkdirTemp(short, "c-"); err != nil {
			return err
		}
		tmp = b.tmp
	}
	if err := os.WriteFile(filepath.Join(b.dir, "Default", "Preferences"), []byte(preferences), 0o600); err != nil {
		return err
	}
	if cred != nil {
		for _, d := range []string{b.dir, b.tmp} {
			if d == "" {
				continue
			}
			if err := chownTree(d, int(cred.Uid), int(cred.Gid)); err != nil {
				return err
			}
		}
	}
	if b.proxy, err = startProxy(b.env.policy, &b.env.proxied, b.env.log); err != nil {
		return err
	}
	if b.env.resolve != nil {
		b.proxy.resolve = b.env.resolve
	}
	args := append(append([]string(nil), flags...), "--proxy-server=http://"+b.proxy.addr(), "--user-data-dir="+b.dir)
	if !sandbox {
		args = append(args, "--no-sandbox")
	}
	args = append(append(args, b.env.testFlags...), "about:blank")

	// The browser reads commands from its descriptor 3 and writes answers to its 4.
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return err
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return err
	}
	b.conn = chromedp.NewPipeConn(respR, cmdW)
	b.stderr = &tailBuffer{max: 8 << 10}
	bin := Binary
	if b.env.binary != "" {
		bin = b.env.binary
	}
	b.child, err = engine.StartProcess(ctx, engine.Command{Name: bin, Args: args, ExtraFiles: []*os.File{cmdR, respW}, Credential: cred,
		Env: []string{"TMPDIR=" + tmp, "HOME=" + b.dir, "XDG_CONFIG_HOME=" + filepath.Join(b.dir, ".config"), "XDG_CACHE_HOME=" + filepath.Join(b.dir, ".cache")}}, nil, b.stderr)
	cmdR.Close() // the browser has its own copies now
	respW.Close()
	if err != nil {
		return err
	}
	b.env.log.Debug("chromium starting", "pid", b.child.Pid(), "sandbox", sandbox, "unprivileged", cred != nil, "proxy", b.proxy.addr())

	allocCtx, cancelAlloc := chromedp.NewAllocatorContext(context.Background(), &pipeAllocator{conn: b.conn})
	bctx, cancelBrowser := chromedp.NewContext(allocCtx, chromedp.WithErrorf(quietf), chromedp.WithBrowserOption(chromedp.WithBrowserErrorf(quietf)))
	b.ctx, b.cancelAlloc, b.cancelBrowser = bctx, cancelAlloc, cancelBrowser
	// The first call connects, and the connection lives as long as the context of that call:
	// it must be the browser's own context, not a shorter one; ctx bounds the wait instead.
	connected := make(chan error, 1)
	go func() { connected <- chromedp.Do(bctx) }()
	select {
	case err = <-connected:
	case <-ctx.Done():
		return fault.Wrap(fault.EngineUnavailable, ctx.Err(), "chromium did not start in time")
	case <-b.child.Done():
		err = fmt.Errorf("chromium exited at start: %v", b.child.Err())
	}
	if err != nil {
		b.child.Kill() // so that its output is complete
		if sandbox && sandboxRefused(b.stderr.String()) {
			return errNoSandbox
		}
		return fault.Wrap(fault.EngineUnavailable, fmt.Errorf("%w (chromium: %s)", err, engine.LastLine(b.stderr.String())), "cannot connect to chromium")
	}
	// Jobs without JavaScript share one tab, the browser's first (its profile is the job
	// browser's own and nothing else uses it): a page that cannot run scripts cannot write
	// storage, the cache is off, and cookies (which a sub-resource could set) are cleared
	// before every job. That saves the half second a fresh context costs, and the first tab
	// rather than one more keeps a browser at two renderer processes, not four. Jobs with
	// JavaScript get a fresh context each (prepared ahead once the first came).
	b.shared = &tab{ctx: bctx, b: b}
	for _, err := range []error{
		call(b.shared.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}),
		call(b.shared.ctx, network.Enable, network.EnableParams{}),
		call(b.shared.ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}),
		call(b.shared.ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}),
	} {
		if err != nil {
			return fault.Wrap(fault.EngineUnavailable, err, "cannot set up a chromium tab")
		}
	}
	b.next = make(chan *tab, 1)
	return nil
}

// unprivileged is the account a root server runs Chromium as, with root (the parent of the
// profiles) made searchable by it when root is ours; the directories above it must already
// be.
func (c *common) unprivileged(root string) (*syscall.Credential, error) {
	name := c.user
	if name == "" {
		name = "nobody"
	}
	u, err := user.Lookup(name)
	if err != nil {
		return nil, err
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err1 != nil || err2 != nil || uid == 0 {
		return nil, fmt.Errorf("user %s has no usable ids (%s:%s)", name, u.Uid, u.Gid)
	}
	cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}
	root, err = filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	if !searchable(filepath.Dir(root), cred) {
		return nil, fmt.Errorf("user %s cannot reach the temporary directory %s", name, root)
	}
	if !searchable(root, cred) {
		// Search permission only (no listing): the profiles under it have random names and
		// the job directories beside them stay private (0700).
		if fi, err := os.Stat(root); err == nil {
			os.Chmod(root, fi.Mode().Perm()|0o001)
		}
		if !searchable(root, cred) {
			return nil, fmt.Errorf("user %s cannot reach the temporary directory %s", name, root)
		}
	}
	return cred, nil
}

// searchable reports whether cred may search every directory from / down to dir.
func searchable(dir string, cred *syscall.Credential) bool {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return false
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return false
		}
		m := fi.Mode().Perm()
		var x bool
		switch {
		case st.Uid == cred.Uid:
			x = m&0o100 != 0
		case st.Gid == cred.Gid:
			x = m&0o010 != 0
		default:
			x = m&0o001 != 0
		}
		if !x {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

func chownTree(dir string, uid, gid int) error {
	return filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

// pipeAllocator hands chromedp the browser behind a DevTools pipe. Like chromedp's remote
// allocator it attaches: the process is ours (engine.StartProcess), not chromedp's.
type pipeAllocator struct {
	conn *chromedp.PipeConn
	wg   sync.WaitGroup
}

func (a *pipeAllocator) Allocate(ctx context.Context, opts ...chromedp.BrowserOption) (*chromedp.Browser, error) {
	// The connection outlives ctx until the tabs are closed, as in chromedp/remote.
	wctx, cancel := context.WithCancel(context.Background())
	a.wg.Go(func() {
		<-ctx.Done()
		chromedp.Cancel(ctx)
		cancel()
	})
	return chromedp.NewBrowserTransport(wctx, a.conn, opts...)
}

func (a *pipeAllocator) Wait()          { a.wg.Wait() }
func (a *pipeAllocator) Attaches() bool { return true }

// tailBuffer keeps the last max bytes written to it (a browser's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { t.mu.Lock(); defer t.mu.Unlock(); return string(t.b) }

// call runs one protocol command and keeps only its error.
func call[P, R any](ctx context.Context, cmd cdp.Command[P, R], p P) error {
	_, err := chromedp.Call(ctx, cmd, p)
	return err
}

// Healthy asks the browser for its version and checks that the shared tab answers: a tab
// that a failed job left stuck must fail this check, so that the supervisor replaces the
// browser before the next job, not during it.
func (b *Browser) Healthy(ctx context.Context) error {
	if b.child == nil || b.child.Exited() {
		return fmt.Errorf("chromium is not running")
	}
	if b.shared == nil || b.shared.err != nil {
		return fmt.Errorf("chromium has no shared tab")
	}
	bctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
	defer cancel()
	if _, err := chromedp.CallBrowser(bctx, browser.GetVersion, cdp.Empty{}); err != nil {
		return err
	}
	tctx, cancel := context.WithTimeout(b.shared.ctx, 2*time.Second)
	defer cancel()
	if _, err := chromedp.Call(tctx, page.GetFrameTree, cdp.Empty{}); err != nil {
		return fmt.Errorf("chromium's shared tab does not answer: %w", err)
	}
	return nil
}

// Memory is what the browser and its renderers hold (PSS of its process group).
func (b *Browser) Memory() (int64, error) {
	if b.child == nil {
		return 0, nil
	}
	return b.child.Memory()
}

var _ engine.Measured = (*Browser)(nil)

// Stop kills the browser, closes its proxy and removes its profile.
func (b *Browser) Stop() error {
	var err error
	// Killed first: cancelling the chromedp contexts of a live browser closes its tabs
	// one by one, which a stuck browser answers only after chromedp's timeouts.
	if b.child != nil {
		err = b.child.Kill()
	}
	if b.cancelBrowser != nil {
		b.cancelBrowser()
		b.cancelAlloc()
	}
	if b.conn != nil {
		b.conn.Close()
	}
	if b.proxy != nil {
		b.proxy.close()
	}
	for _, d := range []string{b.dir, b.tmp} {
		if d != "" {
			os.RemoveAll(d)
		}
	}
	// A second Stop (the supervisor's, after a failed Start) has nothing left to do.
	b.child, b.conn, b.proxy, b.dir, b.tmp = nil, nil, nil, "", ""
	return err
}
