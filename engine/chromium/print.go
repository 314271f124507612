package chromium

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"

	"github.com/chromedp/chromedp"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/netguard"
)

// Job is one page to print.
type Job struct {
	HTML       string // the document, or
	URL        string // a page to load (it passes Allow like every request)
	JavaScript bool
	WaitUntil  string // load (default), domcontentloaded, networkidle0, networkidle2
	// After WaitUntil, in this order: WaitForSelector (a CSS selector that must match an
	// element; read through the DOM, so it works without JavaScript), WaitForExpression (a
	// JavaScript expression polled until truthy; needs JavaScript), then WaitDelay.
	WaitForSelector   string
	WaitForExpression string
	WaitDelay         time.Duration
	PDF               page.PrintToPDFParams
	// Allow decides whether the page may load url; data: and about:blank need no asking.
	Allow func(ctx context.Context, url string) bool
}

// Chromium prints pages on a pool of warm browsers.
type Chromium struct {
	sup *engine.Supervisor
	env *common
}

// Option configures New.
type Option func(*common)

// WithPolicy is the network policy the browsers enforce on every connection a page makes
// (the proxy of each browser checks it); without it, no internal address is reachable.
func WithPolicy(p netguard.Policy) Option { return func(c *common) { c.policy = p } }

// WithUser names the account Chromium runs as when the server runs as root (default
// nobody): Chromium refuses its sandbox as root.
func WithUser(name string) Option { return func(c *common) { c.user = name } }

// New returns a pool of browsers under a supervisor built from cfg. Their profiles
// live under cfg.TempRoot.
func New(cfg engine.Config, opts ...Option) *Chromium {
	cfg.Name, cfg.Binary = "chromium", Binary
	env := &common{tempRoot: cfg.TempRoot, log: cfg.Logger}
	if env.log == nil {
		env.log = slog.Default()
	}
	env.log = env.log.With("engine", "chromium")
	for _, o := range opts {
		o(env)
	}
	cfg.New = func(int) engine.Process { return &Browser{env: env} }
	return &Chromium{sup: engine.New(cfg), env: env}
}

// Supervisor is the engine behind c.
func (c *Chromium) Supervisor() *engine.Supervisor { return c.sup }

// Name is the engine's name.
func (c *Chromium) Name() string { return c.sup.Name() }

// Ready reports whether the engine can take work.
func (c *Chromium) Ready(ctx context.Context) error { return c.sup.Ready(ctx) }

// Stop refuses new jobs, waits for running ones as long as ctx allows, and stops the processes.
func (c *Chromium) Stop(ctx context.Context) error { return c.sup.Stop(ctx) }

var _ engine.Engine = (*Chromium)(nil)

// Print renders j to PDF on one of the pool's browsers.
func (c *Chromium) Print(ctx context.Context, j Job) ([]byte, error) {
	var out []byte
	err := c.sup.Run(ctx, func(ctx context.Context, w *engine.Worker) error {
		var err error
		out, err = print(ctx, w.Process().(*Browser), j)
		// A failed job may leave the browser in a state no later job should inherit (a print
		// that never ends, a shared tab that no longer answers): unless the failure is known
		// to leave it as it was, the browser is replaced before the next job.
		var clean cleanErr
		if err != nil && !errors.As(err, &clean) {
			w.Retire("a job failed in the browser")
		}
		return err
	})
	return out, err
}

// stepLimit bounds one protocol command that does not depend on the page (setting up a
// tab, reading its frame tree): a browser that takes longer is stuck, and the job fails
// now rather than at its deadline.
const stepLimit = 10 * time.Second

// step runs one such command on tab.
func step[P, R any](ctx, tab context.Context, cmd cdp.Command[P, R], p P) (R, error) {
	sctx, cancel := context.WithTimeout(tab, stepLimit)
	defer cancel()
	r, err := chromedp.Call(sctx, cmd, p)
	if err != nil && ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		err = fault.Wrap(fault.EngineUnavailable, err, "the browser stopped answering")
	}
	return r, err
}

// idleQuiet is how long the network must be quiet for networkidle0/2 (as in Puppeteer).
const idleQuiet = 500 * time.Millisecond

func print(ctx context.Context, b *Browser, j Job) ([]byte, error) {
	var tab context.Context
	var cancel context.CancelFunc
	// A page that runs scripts, or that navigates to another origin, gets a fresh browser
	// context; plain HTML runs on the shared tab, which always stays at about:blank.
	if j.JavaScript || j.URL != "" {
		t, err := b.take(ctx)
		if err != nil {
			return nil, tabErr(ctx, err)
		}
		// Closing a tab and its browser context takes the browser a while; nobody waits.
		defer func() { go t.close() }()
		tab, cancel = t.ctx, t.cancel
		if _, err := step(ctx, tab, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !j.JavaScript}); err != nil {
			return nil, tabErr(ctx, err)
		}
	} else {
		// The shared tab: a job's context of its own ends this job's event loops, not the tab.
		if _, err := step(ctx, b.shared.ctx, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
			return nil, tabErr(ctx, err)
		}
		tab, cancel = context.WithCancel(b.shared.ctx)
	}
	defer cancel()
	stop := context.AfterFunc(ctx, cancel) // the job's deadline ends the job
	defer stop()

	var inflight atomic.Int64
	var lastActivity atomic.Int64
	lastActivity.Store(time.Now().UnixNano())
	paused := chromedp.Events(tab, fetch.RequestPaused)
	started := chromedp.Events(tab, network.RequestWillBeSent)
	finished := chromedp.Events(tab, network.LoadingFinished)
	failed := chromedp.Events(tab, network.LoadingFailed)
	loaded := chromedp.Events(tab, page.LoadEventFired)
	domReady := chromedp.Events(tab, page.DomContentEventFired)
	if j.JavaScript || j.URL != "" {
		if _, err := step(ctx, tab, network.Enable, network.EnableParams{}); err != nil {
			return nil, tabErr(ctx, err)
		}
		if _, err := step(ctx, tab, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
			return nil, tabErr(ctx, err)
		}
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel() // before wg.Wait: ends the event loops (the tab is not reused)
	wg.Go(func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			if allowed(tab, j, ev.Request.URL) {
				chromedp.Call(tab, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
			} else {
				chromedp.Call(tab, fetch.FailRequest, fetch.FailRequestParams{RequestID: ev.RequestID, ErrorReason: network.ErrorReasonBlockedByClient})
			}
		}
	})
	count := func(d int64) { inflight.Add(d); lastActivity.Store(time.Now().UnixNano()) }
	wg.Go(func() {
		for _, err := range started {
			if err != nil {
				return
			}
			count(1)
		}
	})
	wg.Go(func() {
		for _, err := range finished {
			if err != nil {
				return
			}
			count(-1)
		}
	})
	wg.Go(func() {
		for _, err := range failed {
			if err != nil {
				return
			}
			count(-1)
		}
	})

	if j.URL != "" {
		res, err := chromedp.Call(tab, page.Navigate, page.NavigateParams{URL: j.URL})
		if err != nil {
			return nil, tabErr(ctx, err)
		}
		if res.ErrorText != "" {
			// The page's own failure, on a tab that is thrown away.
			if strings.Contains(res.ErrorText, "BLOCKED_BY_CLIENT") {
				return nil, cleanErr{fault.New(fault.InvalidInput, "the URL is not allowed: only https:// addresses outside the server's network")}
			}
			return nil, cleanErr{fault.New(fault.Unprocessable, "the page could not be loaded: %s", res.ErrorText)}
		}
	} else {
		tree, err := step(ctx, tab, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			return nil, tabErr(ctx, err)
		}
		if _, err := chromedp.Call(tab, page.SetDocumentContent, page.SetDocumentContentParams{FrameID: tree.FrameTree.Frame.ID, HTML: j.HTML}); err != nil {
			return nil, tabErr(ctx, err)
		}
	}

	// Wait for the page as asked.
	switch j.WaitUntil {
	case "domcontentloaded":
		for _, err := range domReady {
			if err != nil {
				return nil, tabErr(ctx, err)
			}
			break
		}
	default:
		for _, err := range loaded {
			if err != nil {
				return nil, tabErr(ctx, err)
			}
			break
		}
	}
	// The quiet window of networkidle counts from here, not from the job's start: a page
	// whose load took longer than the window must still be quiet for it afterwards.
	if now := time.Now().UnixNano(); lastActivity.Load() < now {
		lastActivity.Store(now)
	}
	if limit := map[string]int64{"networkidle0": 0, "networkidle2": 2}; j.WaitUntil == "networkidle0" || j.WaitUntil == "networkidle2" {
		max := limit[j.WaitUntil]
		for {
			quiet := time.Since(time.Unix(0, lastActivity.Load()))
			if inflight.Load() <= max && quiet >= idleQuiet {
				break
			}
			select {
			case <-ctx.Done():
				return nil, tabErr(ctx, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	}

	if err := waitFor(ctx, tab, j); err != nil {
		return nil, err
	}

	p := j.PDF
	p.TransferMode = page.PrintToPDFTransferModeReturnAsStream
	pdf, err := chromedp.Run(tab, chromedp.PrintToPDF(func(pp *page.PrintToPDFParams) { *pp = p }))
	if err != nil {
		bands := p.DisplayHeaderFooter != nil && *p.DisplayHeaderFooter
		if ctx.Err() == nil && bands && protocolError(err, "Printing failed") {
			// Chromium prints a header or footer template that loads something (a <link>) this
			// way, and no retry does better: the caller's input, not a browser to retry on.
			return nil, fault.Wrap(fault.Unprocessable, err, "the browser could not print the page; header and footer templates cannot load resources (no <link>, no images by URL)")
		}
		return nil, tabErr(ctx, err)
	}
	return pdf, nil
}

// pollEvery is how often a selector or an expression is tried again.
const pollEvery = 50 * time.Millisecond

// waitFor waits for j's selector, expression and delay, each within the job's time: a
// page that never gets there is the job's timeout, with what it waited for.
func waitFor(ctx, tab context.Context, j Job) error {
	// The waits end a moment before the job's deadline, so that the caller hears what was
	// not met rather than only that the job ran out of time.
	wctx := ctx
	if d, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		wctx, cancel = context.WithDeadline(ctx, d.Add(-min(time.Second, time.Until(d)/10)))
		defer cancel()
	}
	until := func(what string, ok func() (bool, error)) error {
		for {
			done, err := ok()
			if err != nil {
				return tabErr(ctx, err)
			}
			if done {
				return nil
			}
			select {
			case <-wctx.Done():
				if ctx.Err() == nil || errors.Is(ctx.Err(), context.DeadlineExceeded) {
					return fault.Wrap(fault.Timeout, wctx.Err(), "%s was not met within the time limit", what)
				}
				return tabErr(ctx, ctx.Err())
			case <-time.After(pollEvery):
			}
		}
	}
	if j.WaitForSelector != "" {
		err := until("waitForSelector "+strconv.Quote(j.WaitForSelector), func() (bool, error) {
			doc, err := step(ctx, tab, dom.GetDocument, dom.GetDocumentParams{Depth: new(int64(0))})
			if err != nil {
				return false, err
			}
			n, err := chromedp.Call(tab, dom.QuerySelector, dom.QuerySelectorParams{NodeID: doc.Root.NodeID, Selector: j.WaitForSelector})
			var pe *cdproto.Error
			if errors.As(err, &pe) && strings.Contains(pe.Message, "Could not find node") {
				return false, nil // the document was replaced between the two calls: ask again
			}
			if errors.As(err, &pe) { // the browser's answer: the selector does not parse
				return false, cleanErr{fault.New(fault.InvalidInput, "waitForSelector %q is not a CSS selector the browser accepts", j.WaitForSelector).With("field", "waitForSelector")}
			}
			if err != nil {
				return false, err
			}
			return n.NodeID != 0, nil
		})
		if err != nil {
			return err
		}
	}
	if j.WaitForExpression != "" {
		err := until("waitForExpression", func() (bool, error) {
			r, err := chromedp.Call(tab, runtime.Evaluate, runtime.EvaluateParams{Expression: "!!(" + j.WaitForExpression + ")", ReturnByValue: new(true)})
			if err != nil {
				return false, err
			}
			// An expression that throws (its variables not there yet) is not true yet.
			return r.ExceptionDetails == nil && r.Result != nil && string(r.Result.Value) == "true", nil
		})
		if err != nil {
			return err
		}
	}
	if j.WaitDelay > 0 {
		select {
		case <-ctx.Done():
			return tabErr(ctx, ctx.Err())
		case <-time.After(j.WaitDelay):
		}
	}
	return nil
}

// cleanErr is a failure that leaves the browser as it was: the page's own error on a tab
// that is thrown away.
type cleanErr struct{ error }

func (e cleanErr) Unwrap() error { return e.error }

// protocolError reports whether err is the browser's answer msg to a command.
func protocolError(err error, msg string) bool {
	var pe *cdproto.Error
	return errors.As(err, &pe) && pe.Message == msg
}

func allowed(ctx context.Context, j Job, url string) bool {
	switch {
	case strings.HasPrefix(url, "data:"), url == "about:blank":
		return true
	case strings.HasPrefix(url, "https://") && j.Allow != nil:
		return j.Allow(ctx, url)
	default:
		return false
	}
}

// tabErr names why a browser call failed: the job's time ran out, or the browser failed.
func tabErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fault.Wrap(fault.Timeout, err, "the page did not finish rendering within the time limit")
		}
		return fault.Wrap(fault.Canceled, err, "the request ended during rendering")
	}
	if fe := fault.As(err); fe != nil {
		return err
	}
	return fault.Wrap(fault.EngineUnavailable, err, "the browser failed: %v", err)
}
