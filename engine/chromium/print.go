package chromium

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"

	"github.com/chromedp/chromedp"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
)

// Job is one page to print.
type Job struct {
	HTML       string // the document, or
	URL        string // a page to load (it passes Allow like every request)
	JavaScript bool
	WaitUntil  string // load (default), domcontentloaded, networkidle0, networkidle2
	PDF        page.PrintToPDFParams
	// Allow decides whether the page may load url; data: and about:blank need no asking.
	Allow func(ctx context.Context, url string) bool
}

// Chromium prints pages on a pool of warm browsers.
type Chromium struct{ sup *engine.Supervisor }

// NewEngine returns a pool of browsers under a supervisor built from cfg.
func NewEngine(cfg engine.Config) *Chromium {
	cfg.Name, cfg.Binary = "chromium", Binary
	cfg.New = func(int) engine.Process { return New() }
	return &Chromium{sup: engine.New(cfg)}
}

// Supervisor is the engine behind c.
func (c *Chromium) Supervisor() *engine.Supervisor { return c.sup }

// Print renders j to PDF on one of the pool's browsers.
func (c *Chromium) Print(ctx context.Context, j Job) ([]byte, error) {
	var out []byte
	err := c.sup.Run(ctx, func(ctx context.Context, w *engine.Worker) error {
		var err error
		out, err = print(ctx, w.Process().(*Browser), j)
		return err
	})
	return out, err
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
		if err := call(tab, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: !j.JavaScript}); err != nil {
			return nil, tabErr(ctx, err)
		}
	} else {
		// The shared tab: a job's context of its own ends this job's event loops, not the tab.
		if err := call(b.shared.ctx, network.ClearBrowserCookies, cdp.Empty{}); err != nil {
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
		if err := call(tab, network.Enable, network.EnableParams{}); err != nil {
			return nil, tabErr(ctx, err)
		}
		if err := call(tab, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*"}}}); err != nil {
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
			if strings.Contains(res.ErrorText, "BLOCKED_BY_CLIENT") {
				return nil, fault.New(fault.InvalidInput, "the URL is not allowed: only https:// addresses outside the server's network")
			}
			return nil, fault.New(fault.Unprocessable, "the page could not be loaded: %s", res.ErrorText)
		}
	} else {
		tree, err := chromedp.Call(tab, page.GetFrameTree, cdp.Empty{})
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

	p := j.PDF
	p.TransferMode = page.PrintToPDFTransferModeReturnAsStream
	pdf, err := chromedp.Run(tab, chromedp.PrintToPDF(func(pp *page.PrintToPDFParams) { *pp = p }))
	if err != nil {
		return nil, tabErr(ctx, err)
	}
	return pdf, nil
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
