package chromium

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testtool"
)

func pool(t *testing.T, n int) *Chromium {
	c := New(engine.Config{Concurrency: n, JobTimeout: 20 * time.Second, TempRoot: sandboxRoot(t)})
	t.Cleanup(func() { c.Supervisor().Stop(context.Background()) })
	return c
}

func TestPrintHTML(t *testing.T) {
	c := pool(t, 1)
	html := `<html><head><title>T</title><style>@page{size:A4} h1{color:#123}</style></head><body><h1>Rechnung 2026-001</h1>
<p style="break-after:page">Seite eins</p><p>Seite zwei</p></body></html>`
	a4 := page.PrintToPDFParams{PaperWidth: 8.27, PaperHeight: 11.69}
	pdf, err := c.Print(context.Background(), Job{HTML: html, PDF: a4})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, pdf)
	info := testtool.Info(t, pdf)
	if info["Pages"] != "2" || !strings.HasPrefix(info["Page size"], "595") {
		t.Fatalf("pdfinfo %v", info)
	}
	texts := testtool.PageTexts(t, pdf)
	if !strings.Contains(texts[0], "Rechnung 2026-001") || !strings.Contains(texts[1], "Seite zwei") {
		t.Fatalf("text %q", texts)
	}
}

func TestNetworkPolicyAndJavaScript(t *testing.T) {
	c := pool(t, 1)
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); w.Write([]byte("SECRET")) }))
	defer srv.Close()
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer tls.Close()
	html := `<html><body><p>Hallo</p>
<img src="` + srv.URL + `/img.png"><link rel="stylesheet" href="` + srv.URL + `/s.css">
<iframe src="file:///etc/hostname"></iframe><img src="` + tls.URL + `/private.png">
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<script>document.body.insertAdjacentHTML('beforeend', '<p>JS RAN</p>'); fetch('` + srv.URL + `/x')</script></body></html>`
	var asked []string
	var mu sync.Mutex
	allow := func(ctx context.Context, u string) bool {
		mu.Lock()
		asked = append(asked, u)
		mu.Unlock()
		return false
	}
	pdf, err := c.Print(context.Background(), Job{HTML: html, Allow: allow, WaitUntil: "networkidle0"})
	if err != nil {
		t.Fatal(err)
	}
	text := testtool.Text(t, pdf)
	if !strings.Contains(text, "Hallo") || strings.Contains(text, "JS RAN") || strings.Contains(text, "SECRET") {
		t.Fatalf("text %q", text)
	}
	if hits.Load() != 0 {
		t.Fatalf("the page reached the server's network %d times", hits.Load())
	}
	mu.Lock()
	if len(asked) != 1 || !strings.HasPrefix(asked[0], tls.URL) {
		t.Fatalf("policy asked about %v (only the https URL should reach it)", asked)
	}
	mu.Unlock()
	// With JavaScript on, the script runs, but its fetch to http: is still refused.
	pdf, err = c.Print(context.Background(), Job{HTML: html, JavaScript: true, Allow: allow})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(testtool.Text(t, pdf), "JS RAN") || hits.Load() != 0 {
		t.Fatalf("executeJs: text %q, hits %d", testtool.Text(t, pdf), hits.Load())
	}
	// A URL job for a refused address fails clearly.
	if _, err := c.Print(context.Background(), Job{URL: srv.URL, Allow: allow}); fault.CodeOf(err) != fault.InvalidInput {
		t.Fatalf("URL to loopback: %v", err)
	}
}

func TestHungPageAndKilledBrowser(t *testing.T) {
	// 5 s: room for the plain jobs after the hang on a busy machine (a fresh browser's first
	// print); the bound below only says the endless script did not run on unchecked.
	c := New(engine.Config{Concurrency: 1, JobTimeout: 5 * time.Second, TempRoot: t.TempDir()})
	defer c.Supervisor().Stop(context.Background())
	start := time.Now()
	_, err := c.Print(context.Background(), Job{HTML: `<script>for(;;){}</script>`, JavaScript: true})
	if fault.CodeOf(err) != fault.Timeout || time.Since(start) > 60*time.Second {
		t.Fatalf("endless script: %v after %s", err, time.Since(start))
	}
	pdf, err := c.Print(context.Background(), Job{HTML: `<p>after the hang</p>`})
	if err != nil || !strings.Contains(testtool.Text(t, pdf), "after the hang") {
		t.Fatalf("next job: %v", err)
	}
	// Kill the browser while a job waits on the network: the job fails, the next succeeds.
	var pid int
	c.Supervisor().Run(context.Background(), func(ctx context.Context, w *engine.Worker) error {
		pid = w.Process().(*Browser).child.Pid() // one slot: the next job runs on this browser
		return nil
	})
	done := make(chan error, 1)
	go func() {
		_, err := c.Print(context.Background(), Job{HTML: `<script>setInterval(()=>fetch('data:,x'), 10)</script>`, JavaScript: true, WaitUntil: "networkidle0"})
		done <- err
	}()
	time.Sleep(700 * time.Millisecond)
	syscall.Kill(-pid, syscall.SIGKILL)
	if err := <-done; err == nil {
		t.Fatal("job on a killed browser succeeded")
	}
	pdf, err = c.Print(context.Background(), Job{HTML: `<p>recovered</p>`})
	if err != nil || !strings.Contains(testtool.Text(t, pdf), "recovered") {
		t.Fatalf("after kill: %v", err)
	}
	if c.Supervisor().Stats().Restarts < 2 {
		t.Fatalf("restarts %d", c.Supervisor().Stats().Restarts)
	}
}

// TestBrowserLeavesNoTemporaryFiles: Chromium's own temporary files (its singleton socket
// directory, which a killed browser leaves behind) live under the profile, and stopping the
// browser removes them.
func TestBrowserLeavesNoTemporaryFiles(t *testing.T) {
	b := NewBrowser()
	if err := b.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	dir := b.dir
	if m, _ := filepath.Glob(filepath.Join(dir, "tmp", "org.chromium.Chromium.*")); len(m) == 0 {
		t.Error("chromium's temporary directory is not under the profile")
	}
	b.Stop()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the profile %s is still there: %v", dir, err)
	}
}

// TestKilledBrowserLeavesNothingOutsideItsRoot: under a server's run directory (whose path
// is too long for Chromium's singleton socket under the profile), Chromium's temporary
// directory is made in the run directory, which the next start sweeps, and not in the
// system's, where a SIGKILLed server would leave it for good.
func TestKilledBrowserLeavesNothingOutsideItsRoot(t *testing.T) {
	parent, err := os.MkdirTemp("", "pk-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(parent) })
	os.Chmod(parent, 0o711) // the browser may run as an unprivileged user
	run, err := engine.NewRunDir(parent, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer run.Close()
	b := NewBrowser()
	b.env.tempRoot = run.Path
	if err := b.Start(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	if b.tmp == "" {
		t.Fatalf("%s leaves room for the socket under the profile: the test does not reach the short directory", run.Path)
	}
	if filepath.Dir(b.tmp) != run.Path {
		t.Errorf("chromium's temporary directory %s is not in the run directory %s", b.tmp, run.Path)
	}
	if m, _ := filepath.Glob(filepath.Join(b.tmp, "org.chromium.Chromium.*")); len(m) == 0 {
		t.Errorf("chromium did not use %s", b.tmp)
	}
}

// TestBrowserOverMemoryIsReplaced: a browser measures what its process group holds; with
// a limit below that, the browser is replaced after its job, and the next job runs on a
// new one.
func TestBrowserOverMemoryIsReplaced(t *testing.T) {
	c := New(engine.Config{Concurrency: 1, JobTimeout: 20 * time.Second, TempRoot: sandboxRoot(t), MaxMemory: 8 << 20})
	t.Cleanup(func() { c.Supervisor().Stop(context.Background()) })
	var held int64
	for range 2 {
		err := c.Supervisor().Run(context.Background(), func(ctx context.Context, w *engine.Worker) error {
			start := time.Now()
			m, err := w.Process().(*Browser).Memory()
			t.Logf("the browser holds %d MB (measured in %s)", m>>20, time.Since(start))
			held = max(held, m)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// A headless Chromium with its renderer and utility processes holds tens of MB.
	if held < 8<<20 {
		t.Fatalf("the browser holds %d bytes by its own count", held)
	}
	if r := c.Supervisor().Stats().Restarts; r < 1 {
		t.Fatalf("%d restarts over the memory limit", r)
	}
}
