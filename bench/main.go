// Command bench starts a Papierkram server, sends scenarios at given concurrencies and prints
// p50/p95/p99/max latency and throughput per scenario, each next to a baseline measured in the
// same run (so figures compare on this machine, today).
//
//	go run ./bench -bin bin/papierkram -c 1,4 -n 400
package main

import (
	"encoding/base64"
	"image"
	"image/color"
	pngenc "image/png"
	"sync"

	"github.com/xuri/excelize/v2"

	"github.com/papierkram/papierkram/convert/docx"
	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/internal/testoffice"

	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
	"unsafe"

	"github.com/papierkram/papierkram/internal/testpdf"
)

// scenario is one thing to measure: one call of it is one request (or one baseline call).
type scenario struct {
	name     string
	baseline string // what the ratio compares against
	run      func(ctx context.Context, env *env) error
	base     func(ctx context.Context, env *env) error
}

type env struct {
	url, key string
	bin      string // the papierkram binary
	client   *http.Client
	pdf      []byte
	pdfPath  string
	dir      string
	files    map[string]string // generated inputs by name
	mu       sync.Mutex
	bodies   map[string]body
	inputs   map[string][]byte
}

// input returns the bytes and path of a generated PDF, making it on first use.
func (e *env) input(name string, o testpdf.Options) ([]byte, string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	p := filepath.Join(e.dir, name+".pdf")
	if _, ok := e.files[name]; !ok {
		b := testpdf.Make(o)
		os.WriteFile(p, b, 0o600)
		e.files[name] = p
		e.inputs[name] = b
	}
	return e.inputs[name], p
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// run is the benchmark; its deferred stops run on every error too, so that no server is
// left behind.
func run() error {
	bin := flag.String("bin", "bin/papierkram", "the papierkram binary to start")
	addr := flag.String("addr", "", "use a running server at this base URL instead of starting one")
	key := flag.String("key", "bench-key", "API key (with -addr)")
	conc := flag.String("c", "1,4", "concurrency levels, comma-separated")
	n := flag.Int("n", 40, "requests per scenario and concurrency level")
	only := flag.String("scenario", "", "run only scenarios whose name contains this")
	pdf := flag.String("pdf", "", "PDF for page-count (default: a corpus invoice)")
	baseline := flag.Bool("baseline", true, "also measure each scenario's baseline")
	gotenberg := flag.String("gotenberg", "", "a Gotenberg binary (built from source): run the side-by-side scenarios against it instead")
	rounds := flag.Int("rounds", 4, "side by side: rounds per scenario, alternating which server goes first")
	unoconv := flag.String("unoconverter", "", "side by side: the unoconv script of github.com/gotenberg/unoconverter, which Gotenberg's office routes run")
	flag.Parse()

	dir, err := os.MkdirTemp("", "papierkram-bench-inputs-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	e := &env{bin: *bin, key: *key, client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}, dir: dir, files: map[string]string{}, bodies: map[string]body{}, inputs: map[string][]byte{}}
	if *addr == "" {
		url, stop, err := start(*bin, *key)
		if err != nil {
			return err
		}
		defer stop()
		e.url = url
	} else {
		e.url = strings.TrimRight(*addr, "/")
	}
	e.pdfPath = *pdf
	if e.pdfPath == "" {
		e.pdfPath = filepath.Join("..", "shared", "corpus", "pdf", "invoice-blanks", "MustangGnuaccountingBeispielRE-20170509_505blanko.pdf")
	}
	if b, err := os.ReadFile(e.pdfPath); err == nil {
		e.pdf = b
	}

	var levels []int
	for _, s := range strings.Split(*conc, ",") {
		if c, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && c > 0 {
			levels = append(levels, c)
		}
	}
	if *gotenberg != "" {
		g, gpid, stop, err := startGotenberg(*gotenberg, *unoconv)
		if err != nil {
			return err
		}
		defer stop()
		return sideBySide(e, g, gpid, levels, *n, *rounds, *only)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tc\tn\tp50 ms\tp95 ms\tp99 ms\tmax ms\treq/s\tbaseline\tbase p50 ms\tbase req/s\tp50 ratio\tPSS MB warm→end\t")
	for _, sc := range scenarios() {
		if *only != "" && !strings.Contains(sc.name, *only) {
			continue
		}
		if sc.name == "page-count" && e.pdf == nil {
			fmt.Fprintf(os.Stderr, "bench: skipping page-count: no PDF at %s\n", e.pdfPath)
			continue
		}
		for _, c := range levels {
			for range c + 2 { // warm every browser before memory is read
				if err := sc.run(context.Background(), e); err != nil {
					return fmt.Errorf("%s: %w", sc.name, err)
				}
			}
			before := treeRSS(serverPID)
			r, err := measure(e, sc.run, c, *n)
			if err != nil {
				return fmt.Errorf("%s: %w", sc.name, err)
			}
			b := result{p50: 1}
			if *baseline {
				if b, err = measure(e, sc.base, c, *n); err != nil {
					return fmt.Errorf("%s baseline: %w", sc.name, err)
				}
			}
			ratio := "-"
			if *baseline {
				ratio = fmt.Sprintf("%.2f", float64(r.p50)/float64(b.p50))
			} else {
				sc.baseline = "(not measured)"
			}
			mem := "-"
			if serverPID != 0 {
				mem = fmt.Sprintf("%d→%d", before>>20, treeRSS(serverPID)>>20)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.2f\t%.0f\t%s\t%.2f\t%.0f\t%s\t%s\t\n", sc.name, c, *n,
				ms(r.p50), ms(r.p95), ms(r.p99), ms(r.max), r.rps, sc.baseline, ms(b.p50), b.rps, ratio, mem)
		}
	}
	return tw.Flush()
}

func scenarios() []scenario {
	return []scenario{
		{
			name: "auth-validate", baseline: "GET /health (no auth)",
			run:  func(ctx context.Context, e *env) error { return e.get(ctx, "/api/auth/validate") },
			base: func(ctx context.Context, e *env) error { return e.get(ctx, "/health") },
		},
		{
			name: "preview-p1-of-20", baseline: "pdftoppm CLI",
			run: func(ctx context.Context, e *env) error {
				b, _ := e.input("20pages", testpdf.Options{Pages: 20})
				return e.upload(ctx, "/api/preview?page=1&dpi=96", "file", b)
			},
			base: func(ctx context.Context, e *env) error {
				_, p := e.input("20pages", testpdf.Options{Pages: 20})
				return exec.CommandContext(ctx, "pdftoppm", "-png", "-r", "96", "-f", "1", "-l", "1", "-singlefile", p).Run()
			},
		},
		{
			name: "split-100-pages", baseline: "qpdf --split-pages",
			run: func(ctx context.Context, e *env) error {
				b, _ := e.input("100pages", testpdf.Options{Pages: 100})
				return e.upload(ctx, "/api/pdf-tools/split?pages=all", "file", b)
			},
			base: func(ctx context.Context, e *env) error {
				_, p := e.input("100pages", testpdf.Options{Pages: 100})
				out, err := os.MkdirTemp(e.dir, "split-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(out)
				return exec.CommandContext(ctx, "qpdf", "--split-pages", p, filepath.Join(out, "p.pdf")).Run()
			},
		},
		{
			name: "metadata-20MB", baseline: "pdfinfo CLI",
			run: func(ctx context.Context, e *env) error {
				b, _ := e.input("20MB", testpdf.Options{Pages: 20, Filler: 1 << 20})
				return e.upload(ctx, "/api/pdf-tools/metadata", "file", b)
			},
			base: func(ctx context.Context, e *env) error {
				_, p := e.input("20MB", testpdf.Options{Pages: 20, Filler: 1 << 20})
				return exec.CommandContext(ctx, "pdfinfo", p).Run()
			},
		},
		{
			name: "html-invoice", baseline: "cold chromium --print-to-pdf",
			run: func(ctx context.Context, e *env) error {
				return e.post(ctx, "/v1/convert/html-to-pdf", `{"html":`+strconv.Quote(invoiceHTML)+`}`)
			},
			base: func(ctx context.Context, e *env) error { return coldChromium(ctx, e, "invoice.html", invoiceHTML) },
		},
		{
			name: "markdown-report-20p", baseline: "cold chromium --print-to-pdf (same HTML)",
			run: func(ctx context.Context, e *env) error {
				return e.post(ctx, "/v1/convert/markdown-to-pdf", `{"markdown":`+strconv.Quote(reportMarkdown())+`,"theme":"technical"}`)
			},
			base: func(ctx context.Context, e *env) error {
				return coldChromium(ctx, e, "report.html", "<html><body><pre>"+reportMarkdown()+"</pre></body></html>")
			},
		},
		{
			name: "word-2p-table-image", baseline: "cold soffice --convert-to pdf",
			run: func(ctx context.Context, e *env) error {
				return e.upload(ctx, "/v1/convert/word-to-pdf", "document", wordDoc())
			},
			base: func(ctx context.Context, e *env) error { return coldOffice(ctx, e, "doc.docx", wordDoc()) },
		},
		{
			name: "excel-3-sheets", baseline: "cold soffice --convert-to pdf",
			run: func(ctx context.Context, e *env) error {
				return e.upload(ctx, "/v1/convert/excel-to-pdf", "document", workbook())
			},
			base: func(ctx context.Context, e *env) error { return coldOffice(ctx, e, "book.xlsx", workbook()) },
		},
		{
			// A CI job that validates one invoice per process pays the start of the binary;
			// the baseline is the validation alone, in this process.
			name: "xrechnung-validate-cli", baseline: "rules.Validate in process",
			run: func(ctx context.Context, e *env) error {
				return exec.CommandContext(ctx, e.bin, "xrechnung", "validate", invoicePath).Run()
			},
			base: func(ctx context.Context, e *env) error {
				b, err := os.ReadFile(invoicePath)
				if err == nil {
					_, err = rules.Validate(ctx, b)
				}
				return err
			},
		},
		{
			name: "page-count", baseline: "pdfinfo CLI",
			run: func(ctx context.Context, e *env) error {
				return e.upload(ctx, "/api/preview/page-count", "file", e.pdf)
			},
			base: func(ctx context.Context, e *env) error {
				return exec.CommandContext(ctx, "pdfinfo", e.pdfPath).Run()
			},
		},
	}
}

func (e *env) get(ctx context.Context, path string) error {
	req, _ := http.NewRequestWithContext(ctx, "GET", e.url+path, nil)
	req.Header.Set("X-API-Key", e.key)
	return e.send(req)
}

// coldChromium is the baseline of the HTML scenarios: a new browser per document.
func coldChromium(ctx context.Context, e *env, name, html string) error {
	in := filepath.Join(e.dir, name)
	os.WriteFile(in, []byte(html), 0o600)
	prof, err := os.MkdirTemp(e.dir, "cold-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(prof)
	return exec.CommandContext(ctx, "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+prof,
		"--no-pdf-header-footer", "--print-to-pdf="+filepath.Join(prof, "out.pdf"), "file://"+in).Run()
}

// reportMarkdown is a report of about 20 pages: headings, paragraphs, tables and code.
func reportMarkdown() string {
	var b strings.Builder
	b.WriteString("---\ntitle: Quartalsbericht\nauthor: Benchmark\n---\n# Quartalsbericht\n\n")
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "## Abschnitt %d\n\n", i)
		for range 3 {
			b.WriteString("Der Umsatz entwickelte sich im Berichtszeitraum erfreulich; die Kosten blieben im Rahmen der Planung, und die Liquidität war jederzeit gesichert. ")
		}
		b.WriteString("\n\n| Monat | Umsatz | Kosten |\n|---|---:|---:|\n| Januar | 120.000 € | 80.000 € |\n| Februar | 135.000 € | 82.500 € |\n| März | 142.000 € | 85.000 € |\n\n")
		b.WriteString("```go\nfunc Summe(xs []float64) (s float64) {\n\tfor _, x := range xs {\n\t\ts += x\n\t}\n\treturn s\n}\n```\n\n<div style=\"break-after:page\"></div>\n\n")
	}
	return b.String()
}

// invoicePath is an XRechnung of the official test suite with many fields (UBL).
var invoicePath = filepath.Join("..", "shared", "corpus", "xrechnung-testsuite", "technical-cases", "cius", "01.03_comprehensive_test_ubl.xml")

// invoiceHTML is a one-page invoice, the scenario of the HTML benchmark.
const invoiceHTML = `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Rechnung 2026-0042</title>
<style>body{font-family:'Liberation Sans',sans-serif;font-size:10pt;margin:0}h1{font-size:18pt}
table{width:100%;border-collapse:collapse}td,th{border-bottom:1px solid #ccc;padding:4px;text-align:left}
.r{text-align:right}.sum{font-weight:bold}</style></head><body>
<p>Muster GmbH · Hauptstr. 1 · 10115 Berlin</p><p>Beispiel AG<br>Ringstraße 5<br>80331 München</p>
<h1>Rechnung 2026-0042</h1><p>Datum: 22.11.2026 · Leistungszeitraum: November 2026</p>
<table><tr><th>Pos.</th><th>Beschreibung</th><th class="r">Menge</th><th class="r">Preis</th><th class="r">Summe</th></tr>
<tr><td>1</td><td>Beratung</td><td class="r">8 h</td><td class="r">120,00 €</td><td class="r">960,00 €</td></tr>
<tr><td>2</td><td>Entwicklung</td><td class="r">24 h</td><td class="r">110,00 €</td><td class="r">2.640,00 €</td></tr>
<tr><td>3</td><td>Reisekosten</td><td class="r">1</td><td class="r">85,50 €</td><td class="r">85,50 €</td></tr>
<tr><td colspan="4" class="r">Netto</td><td class="r">3.685,50 €</td></tr>
<tr><td colspan="4" class="r">USt. 19 %</td><td class="r">700,25 €</td></tr>
<tr class="sum"><td colspan="4" class="r">Gesamt</td><td class="r">4.385,75 €</td></tr></table>
<p>Zahlbar innerhalb von 14 Tagen auf DE89 3704 0044 0532 0130 00.</p></body></html>`

func (e *env) post(ctx context.Context, path, body string) error {
	req, _ := http.NewRequestWithContext(ctx, "POST", e.url+path, strings.NewReader(body))
	req.Header.Set("X-API-Key", e.key)
	req.Header.Set("Content-Type", "application/json")
	return e.send(req)
}

// upload posts data as a one-file multipart body, built once per input (see form).
func (e *env) upload(ctx context.Context, path, part string, data []byte) error {
	key := fmt.Sprintf("%s/%d/%p", part, len(data), unsafe.SliceData(data))
	return e.form(ctx, e.url+path, key, file(part, "doc.pdf", data))
}

type body struct {
	data        []byte
	contentType string
}

func (e *env) send(req *http.Request) error {
	res, err := e.client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 300 {
		return fmt.Errorf("%s %s: %d %s", req.Method, req.URL.Path, res.StatusCode, body)
	}
	return nil
}

type result struct {
	p50, p95, p99, max time.Duration
	rps                float64
}

// measure runs n calls of f with c workers, after a short warm-up.
func measure(e *env, f func(context.Context, *env) error, c, n int) (result, error) {
	lat, took, err := timed(e, f, c, n)
	if err != nil {
		return result{}, err
	}
	r := runs{lat: lat, took: took}
	return r.result(), nil
}

// timed runs n calls of f with c workers, after a short warm-up, and returns each call's
// latency and the time all of them took.
func timed(e *env, f func(context.Context, *env) error, c, n int) ([]time.Duration, time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for range min(c, 4) { // warm-up: connections, caches, lazy engines
		if err := f(ctx, e); err != nil {
			return nil, 0, err
		}
	}
	lat := make([]time.Duration, n)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		next  = make(chan int)
	)
	start := time.Now()
	for range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t := time.Now()
				if err := f(ctx, e); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
				lat[i] = time.Since(t)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return lat, time.Since(start), first
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// start runs the binary on a free loopback port with a throw-away data dir.
func start(bin, key string) (string, func(), error) {
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	dir, err := os.MkdirTemp("", "papierkram-bench-")
	if err != nil {
		return "", nil, err
	}
	// Engines warm as in production: the measured requests never meet a cold start.
	cmd := exec.Command(bin, "serve", "--addr", addr, "--data-dir", dir, "--log-format", "json")
	cmd.Env = append(os.Environ(), "PAPIERKRAM_API_KEYS="+key)
	// Should the bench die anyway (a signal), the kernel stops its server.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	logf, _ := os.Create(filepath.Join(dir, "server.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("start %s: %w", bin, err)
	}
	serverPID = cmd.Process.Pid
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		os.RemoveAll(dir)
	}
	url := "http://" + addr
	// Up, and its engines warm (the log says so for each warmed engine, spares included):
	// requests measured while LibreOffice starts in the background share the cores with it.
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		res, err := http.Get(url + "/health")
		if err != nil {
			continue
		}
		res.Body.Close()
		log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		if bytes.Count(log, []byte(`"msg":"engine warm"`)) >= 2 {
			return url, stop, nil
		}
	}
	stop()
	return "", nil, fmt.Errorf("server did not come up with warm engines at %s", url)
}

var serverPID int

// freePort returns a loopback port nobody listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// tree is pid and all its descendants, pid first.
func tree(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := statFields(p); len(f) > 1 {
			if pp, err := strconv.Atoi(f[1]); err == nil {
				children[pp] = append(children[pp], p)
			}
		}
	}
	var all []int
	var walk func(int)
	walk = func(p int) {
		all = append(all, p)
		for _, c := range children[p] {
			walk(c)
		}
	}
	walk(pid)
	return all
}

// statFields are the fields of /proc/pid/stat after the command in parentheses (which may
// hold spaces): state first, then the parent's pid.
func statFields(pid int) []string {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := strings.LastIndexByte(string(stat), ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(stat[i+1:]))
}

// treeRSS sums the proportional resident memory (PSS: shared pages split between the
// processes that share them) of pid and all its descendants (the browsers).
func treeRSS(pid int) int64 {
	var total int64
	for _, p := range tree(pid) {
		status, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/smaps_rollup")
		for _, line := range strings.Split(string(status), "\n") {
			if v, ok := strings.CutPrefix(line, "Pss:"); ok {
				kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
				total += kb << 10
			}
		}
	}
	return total
}

// clockTick is the unit of the CPU times in /proc/pid/stat (USER_HZ, 100 on Linux).
const clockTick = 10 * time.Millisecond

// treeCPU is the CPU time pid has used (self) and that pid and its descendants have used
// (all), counting the children they have reaped: a browser's renderers that ended are in
// their parent's count. Self is the server's own work (a program it ran and reaped counts
// as its engines'); the rest of all is its engines'.
func treeCPU(pid int) (self, all time.Duration) {
	for i, p := range tree(pid) {
		f := statFields(p)
		if len(f) < 15 {
			continue
		}
		var t [4]int64 // utime, stime, cutime, cstime
		for k := range t {
			t[k], _ = strconv.ParseInt(f[11+k], 10, 64)
		}
		if i == 0 {
			self = time.Duration(t[0]+t[1]) * clockTick
		}
		all += time.Duration(t[0]+t[1]+t[2]+t[3]) * clockTick
	}
	return self, all
}

// coldOffice is the baseline of the office scenarios: a new LibreOffice per document, as
// soffice --convert-to runs it (a fresh profile, so that runs do not share state).
func coldOffice(ctx context.Context, e *env, name string, doc []byte) error {
	dir, err := os.MkdirTemp(e.dir, "cold-office-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	in := filepath.Join(dir, name)
	if err := os.WriteFile(in, doc, 0o600); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "soffice", "--headless", "--norestore", "-env:UserInstallation=file://"+filepath.Join(dir, "profile"),
		"--convert-to", "pdf", "--outdir", dir, in)
	cmd.Env = append(os.Environ(), "HOME="+dir)
	return cmd.Run()
}

var (
	wordOnce, bookOnce   sync.Once
	wordBytes, bookBytes []byte
)

// wordDoc is a two-page letter with a table and a logo, built once.
func wordDoc() []byte {
	wordOnce.Do(func() {
		cell := func(s string) string { return `<w:tc><w:p><w:r><w:t>` + s + `</w:t></w:r></w:p></w:tc>` }
		var rows strings.Builder
		for i := 1; i <= 12; i++ {
			rows.WriteString(`<w:tr>` + cell(fmt.Sprintf("Position %d", i)) + cell("Beratung und Umsetzung") + cell(fmt.Sprintf("%d,00 €", i*120)) + `</w:tr>`)
		}
		body := `<w:p><w:r><w:t xml:space="preserve">{{logo}} Papierkram Beispiel GmbH</w:t></w:r></w:p>` +
			testoffice.Paragraphs("Angebot 2026-0042", strings.Repeat("Sehr geehrte Damen und Herren, wir bedanken uns für Ihre Anfrage. ", 12)) +
			`<w:tbl><w:tblPr><w:tblBorders><w:top w:val="single" w:sz="4"/><w:bottom w:val="single" w:sz="4"/><w:insideH w:val="single" w:sz="4"/></w:tblBorders></w:tblPr>` + rows.String() + `</w:tbl>` +
			testoffice.PageBreak + testoffice.Paragraphs("Allgemeine Geschäftsbedingungen", strings.Repeat("Es gelten unsere allgemeinen Geschäftsbedingungen in der jeweils gültigen Fassung. ", 30))
		img := image.NewRGBA(image.Rect(0, 0, 240, 80))
		for x := range 240 {
			for y := range 80 {
				img.Set(x, y, color.RGBA{uint8(x), 60, 120, 255})
			}
		}
		var png bytes.Buffer
		pngenc.Encode(&png, img)
		out, err := docx.Fill(testoffice.Docx(body, nil, nil), map[string]any{"logo": map[string]any{"image": "data:image/png;base64," + base64.StdEncoding.EncodeToString(png.Bytes()), "width": "40mm"}})
		if err != nil {
			panic(err)
		}
		wordBytes = out
	})
	return wordBytes
}

// workbook has three sheets of 40 rows with formulas.
func workbook() []byte {
	bookOnce.Do(func() {
		f := excelize.NewFile()
		for s, name := range []string{"Umsatz", "Kosten", "Ergebnis"} {
			if s == 0 {
				f.SetSheetName("Sheet1", name)
			} else {
				f.NewSheet(name)
			}
			f.SetSheetRow(name, "A1", &[]any{"Monat", "Betrag", "Anteil"})
			for i := 2; i <= 41; i++ {
				f.SetSheetRow(name, fmt.Sprintf("A%d", i), &[]any{fmt.Sprintf("Monat %d", i-1), i * 1000})
				f.SetCellFormula(name, fmt.Sprintf("C%d", i), fmt.Sprintf("B%d/SUM(B$2:B$41)", i))
			}
		}
		buf, err := f.WriteToBuffer()
		if err != nil {
			panic(err)
		}
		bookBytes = buf.Bytes()
	})
	return bookBytes
}
