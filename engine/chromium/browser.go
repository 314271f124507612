package chromium

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
)

// Binary is Debian's Chromium.
const Binary = "chromium"

// flags keep the browser from reaching out on its own (the machine's network is closed, and
// a service's browser has no business calling home) and fit it to a container.
var flags = []string{
	"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio",
	"--no-first-run", "--no-default-browser-check", "--disable-background-networking", "--disable-component-update",
	"--disable-sync", "--disable-extensions", "--disable-default-apps", "--disable-quic", "--disable-breakpad",
	"--disable-domain-reliability", "--disable-client-side-phishing-detection", "--metrics-recording-only",
	"--disable-features=Translate,OptimizationHints,MediaRouter,InterestFeedContentSuggestions,AutofillServerCommunication",
	"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--font-render-hinting=none",
}

// quietf takes chromedp's reports of protocol oddities it recovers from (an event for a
// frame that is gone): debug information, not errors of ours.
func quietf(format string, args ...any) { slog.Debug("chromedp: " + fmt.Sprintf(format, args...)) }

// Browser is one Chromium process, an engine.Process.
type Browser struct {
	dir           string
	child         *engine.Child
	ctx           context.Context // the browser's chromedp context
	cancelAlloc   context.CancelFunc
	cancelBrowser context.CancelFunc
	next          chan *tab // the next JavaScript job's tab, prepared ahead
	shared        *tab      // the tab of jobs without JavaScript, reset before each
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
	bc, err := chromedp.CallBrowser(b.ctx, target.CreateBrowserContext, target.CreateBrowserContextParams{DisposeOnDetach: new(true)})
	if err == nil {
		t.bc = bc.BrowserContextID
		var tgt target.CreateTargetResult
		tgt, err = chromedp.CallBrowser(b.ctx, target.CreateTarget, target.CreateTargetParams{URL: "about:blank", BrowserContextID: bc.BrowserContextID})
		if err == nil {
			t.ctx, t.cancel = chromedp.NewContext(b.ctx, chromedp.WithTargetID(tgt.TargetID))
			err = chromedp.Do(t.ctx)
		}
	}
	t.err = err
	return t
}

// take returns the prepared tab and starts preparing the one after it.
func (b *Browser) take(ctx context.Context) (*tab, error) {
	select {
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

// New returns a Browser that is not started yet.
func New() *Browser { return &Browser{} }

// Start launches Chromium with a fresh profile and connects to its DevTools socket.
func (b *Browser) Start(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "papierkram-chromium-")
	if err != nil {
		return err
	}
	b.dir = dir
	// Chromium's own temporary files (its singleton socket directory, left behind when the
	// browser is killed) go under the profile, which Stop removes.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		os.RemoveAll(dir)
		return err
	}
	args := append(append([]string(nil), flags...), "--user-data-dir="+dir, "about:blank")
	child, err := engine.StartProcess(ctx, engine.Command{Name: Binary, Args: args, Env: []string{"TMPDIR=" + tmp}}, nil, nil)
	if err != nil {
		os.RemoveAll(dir)
		return err
	}
	b.child = child
	// Chromium writes its port and browser path to DevToolsActivePort once it listens.
	var ws string
	for ws == "" {
		if b, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort")); err == nil {
			if lines := strings.Fields(string(b)); len(lines) == 2 {
				ws = "ws://127.0.0.1:" + lines[0] + lines[1]
				break
			}
		}
		select {
		case <-ctx.Done():
			b.Stop()
			return fault.Wrap(fault.EngineUnavailable, ctx.Err(), "chromium did not start in time")
		case <-child.Done():
			b.Stop()
			return fault.New(fault.EngineUnavailable, "chromium exited at start: %v", child.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	allocCtx, cancelAlloc := remote.NewAllocator(context.Background(), ws, remote.NoModifyURL, remote.WithDialTimeout(10*time.Second))
	bctx, cancelBrowser := chromedp.NewContext(allocCtx, chromedp.WithErrorf(quietf), chromedp.WithBrowserOption(chromedp.WithBrowserErrorf(quietf)))
	b.ctx, b.cancelAlloc, b.cancelBrowser = bctx, cancelAlloc, cancelBrowser
	// The first call connects, and the connection lives as long as the context of that call:
	// it must be the browser's own context, not a shorter one.
	if err := chromedp.Do(bctx); err != nil {
		b.Stop()
		return fault.Wrap(fault.EngineUnavailable, err, "cannot connect to chromium")
	}
	// Jobs without JavaScript share one tab in a browser context of its own: a page that
	// cannot run scripts cannot write storage, the cache is off, and cookies (which a
	// sub-resource could set) are cleared before every job. That saves the half second a
	// fresh context costs. Jobs with JavaScript get a fresh context each (prepared ahead).
	b.shared = b.newTab()
	if err := b.shared.err; err != nil {
		b.Stop()
		return fault.Wrap(fault.EngineUnavailable, err, "cannot open a chromium tab")
	}
	for _, err := range []error{
		call(b.shared.ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}),
		call(b.shared.ctx, network.Enable, network.EnableParams{}),
		call(b.shared.ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}),
		call(b.shared.ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}),
	} {
		if err != nil {
			b.Stop()
			return fault.Wrap(fault.EngineUnavailable, err, "cannot set up a chromium tab")
		}
	}
	b.next = make(chan *tab, 1)
	go b.prepare()
	return nil
}

// call runs one protocol command and keeps only its error.
func call[P, R any](ctx context.Context, cmd cdp.Command[P, R], p P) error {
	_, err := chromedp.Call(ctx, cmd, p)
	return err
}

// Healthy asks the browser for its version.
func (b *Browser) Healthy(ctx context.Context) error {
	if b.child == nil || b.child.Exited() {
		return fmt.Errorf("chromium is not running")
	}
	ctx, cancel := context.WithTimeout(b.ctx, 2*time.Second)
	defer cancel()
	_, err := chromedp.CallBrowser(ctx, browser.GetVersion, cdp.Empty{})
	return err
}

// Stop kills the browser and removes its profile.
func (b *Browser) Stop() error {
	if b.cancelBrowser != nil {
		b.cancelBrowser()
		b.cancelAlloc()
	}
	var err error
	if b.child != nil {
		err = b.child.Kill()
	}
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
	return err
}
