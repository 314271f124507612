package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/papierkram/papierkram/internal/testpdf"
)

// The side-by-side mode (-gotenberg PATH) sends the same documents to this server and to a
// Gotenberg started from the given binary, in alternating rounds so that whatever else the
// machine does falls on both alike, and prints the ratios. Gotenberg runs as its users run
// it: its defaults, its engines found through the environment its Docker image sets (the
// *_BIN_PATH variables; Debian's paths are assumed for those not set).

// peerScenario is one piece of work both servers can do.
type peerScenario struct {
	name   string
	ours   func(ctx context.Context, e *env) error
	theirs func(ctx context.Context, e *env, g string) error
}

// part is one part of a multipart form: a file (data) when filename is set, else a field.
type part struct {
	name, filename, value string
	data                  []byte
}

// file is a form file part whose content is data (not copied: a body is built once).
func file(name, filename string, data []byte) part {
	return part{name: name, filename: filename, data: data}
}

func peerScenarios() []peerScenario {
	return []peerScenario{
		{
			name: "html-invoice-1p",
			ours: func(ctx context.Context, e *env) error {
				return e.post(ctx, "/v1/convert/html-to-pdf", `{"html":`+strconv.Quote(invoiceHTML)+`}`)
			},
			theirs: func(ctx context.Context, e *env, g string) error {
				return e.form(ctx, g+"/forms/chromium/convert/html", "g-html1", file("files", "index.html", []byte(invoiceHTML)))
			},
		},
		{
			name: "html-report-20p",
			ours: func(ctx context.Context, e *env) error {
				return e.post(ctx, "/v1/convert/html-to-pdf", `{"html":`+strconv.Quote(reportHTML(20))+`}`)
			},
			theirs: func(ctx context.Context, e *env, g string) error {
				return e.form(ctx, g+"/forms/chromium/convert/html", "g-html20", file("files", "index.html", []byte(reportHTML(20))))
			},
		},
		{
			name: "docx-2p",
			ours: func(ctx context.Context, e *env) error {
				return e.form(ctx, e.url+"/v1/convert/word-to-pdf", "o-docx", file("document", "doc.docx", wordDoc()))
			},
			theirs: func(ctx context.Context, e *env, g string) error {
				return e.form(ctx, g+"/forms/libreoffice/convert", "g-docx", file("files", "doc.docx", wordDoc()))
			},
		},
		{
			name: "xlsx-3-sheets",
			ours: func(ctx context.Context, e *env) error {
				return e.form(ctx, e.url+"/v1/convert/excel-to-pdf", "o-xlsx", file("document", "book.xlsx", workbook()))
			},
			theirs: func(ctx context.Context, e *env, g string) error {
				return e.form(ctx, g+"/forms/libreoffice/convert", "g-xlsx", file("files", "book.xlsx", workbook()))
			},
		},
		{
			name: "merge-2x10p",
			ours: func(ctx context.Context, e *env) error {
				a, b := tenPages(e)
				return e.form(ctx, e.url+"/api/pdf-tools/merge", "o-merge", file("files", "a.pdf", a), file("files", "b.pdf", b))
			},
			theirs: func(ctx context.Context, e *env, g string) error {
				a, b := tenPages(e)
				return e.form(ctx, g+"/forms/pdfengines/merge", "g-merge", file("files", "a.pdf", a), file("files", "b.pdf", b))
			},
		},
		{
			name: "split-100p",
			ours: func(ctx context.Context, e *env) error {
				b, _ := e.input("100pages", testpdf.Options{Pages: 100})
				return e.form(ctx, e.url+"/api/pdf-tools/split?pages=all", "o-split", file("file", "doc.pdf", b))
			},
			theirs: func(ctx context.Context, e *env, g string) error {
				b, _ := e.input("100pages", testpdf.Options{Pages: 100})
				return e.form(ctx, g+"/forms/pdfengines/split", "g-split", file("files", "doc.pdf", b),
					part{name: "splitMode", value: "intervals"}, part{name: "splitSpan", value: "1"})
			},
		},
		{
			name: "pdfa-3b-10p-html",
			ours: func(ctx context.Context, e *env) error {
				return e.form(ctx, e.url+"/api/pdf-tools/pdfa", "o-pdfa", file("file", "report.pdf", e.report10(ctx)))
			},
			theirs: func(ctx context.Context, e *env, g string) error {
				return e.form(ctx, g+"/forms/pdfengines/convert", "g-pdfa", file("files", "report.pdf", e.report10(ctx)),
					part{name: "pdfa", value: "PDF/A-3b"})
			},
		},
	}
}

// tenPages is two different ten-page PDFs, the inputs of the merge scenario.
func tenPages(e *env) ([]byte, []byte) {
	a, _ := e.input("10pages", testpdf.Options{Pages: 10})
	b, _ := e.input("10pages-landscape", testpdf.Options{Pages: 10, Width: 842, Height: 595})
	return a, b
}

// report10 is this server's PDF of a ten-page HTML report, made once: the PDF/A scenario
// converts what an html-to-pdf call wrote, the case PDF/A by remediation is for.
func (e *env) report10(ctx context.Context) []byte {
	e.mu.Lock()
	defer e.mu.Unlock()
	if b, ok := e.inputs["report10"]; ok {
		return b
	}
	req, _ := http.NewRequestWithContext(ctx, "POST", e.url+"/v1/convert/html-to-pdf", strings.NewReader(`{"html":`+strconv.Quote(reportHTML(10))+`}`))
	req.Header.Set("X-API-Key", e.key)
	req.Header.Set("Content-Type", "application/json")
	res, err := e.client.Do(req)
	if err != nil {
		panic(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		panic(fmt.Sprintf("report10: %d %s", res.StatusCode, b))
	}
	e.inputs["report10"] = b
	return b
}

// form posts a multipart form built once per key (the client's encoding is not server time).
func (e *env) form(ctx context.Context, url, key string, parts ...part) error {
	e.mu.Lock()
	b, ok := e.bodies[key]
	if !ok {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		for _, p := range parts {
			if p.filename == "" {
				mw.WriteField(p.name, p.value)
				continue
			}
			w, _ := mw.CreateFormFile(p.name, p.filename)
			w.Write(p.data)
		}
		mw.Close()
		b = body{buf.Bytes(), mw.FormDataContentType()}
		e.bodies[key] = b
	}
	e.mu.Unlock()
	req, _ := http.NewRequestWithContext(ctx, "POST", url, bytes.NewReader(b.data))
	req.Header.Set("X-API-Key", e.key)
	req.Header.Set("Content-Type", b.contentType)
	return e.send(req)
}

// reportHTML is a report of about the given number of A4 pages: headings, paragraphs, a
// table and a vector chart on every page, the kind of long document customers print.
func reportHTML(pages int) string {
	reportMu.Lock()
	defer reportMu.Unlock()
	if s, ok := reports[pages]; ok {
		return s
	}
	var b strings.Builder
	b.WriteString(`<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Quartalsbericht</title><style>
body{font-family:'Liberation Serif',serif;font-size:11pt;line-height:1.4;margin:0}
h1{font-size:20pt}h2{font-size:14pt;break-before:page}table{width:100%;border-collapse:collapse;margin:8pt 0}
td,th{border-bottom:1px solid #bbb;padding:3pt}td.r{text-align:right}svg{display:block;margin:8pt auto}
</style></head><body><h1>Quartalsbericht 3/2026</h1>`)
	for i := 1; i <= pages; i++ {
		fmt.Fprintf(&b, "<h2>%d. Geschäftsbereich %d</h2>", i, i)
		for range 3 {
			b.WriteString("<p>Der Umsatz entwickelte sich im Berichtszeitraum erfreulich; die Kosten blieben im Rahmen der Planung, und die Liquidität war jederzeit gesichert. Für das kommende Quartal erwarten wir eine stabile Nachfrage, wobei die Preise für Vorleistungen weiter steigen dürften.</p>")
		}
		b.WriteString("<table><tr><th>Monat</th><th>Umsatz</th><th>Kosten</th><th>Ergebnis</th></tr>")
		for m, name := range []string{"Juli", "August", "September"} {
			u, k := 120000+i*1000+m*7000, 80000+i*500+m*2500
			fmt.Fprintf(&b, `<tr><td>%s</td><td class="r">%d €</td><td class="r">%d €</td><td class="r">%d €</td></tr>`, name, u, k, u-k)
		}
		b.WriteString(`</table><svg width="420" height="160" viewBox="0 0 420 160">`)
		for m := range 12 {
			h := 30 + (i*17+m*23)%110
			fmt.Fprintf(&b, `<rect x="%d" y="%d" width="24" height="%d" fill="#3a6ea5"/>`, 10+m*34, 150-h, h)
		}
		b.WriteString(`<line x1="0" y1="150" x2="420" y2="150" stroke="#333"/></svg>`)
		b.WriteString("<p>Die Kennzahlen des Bereichs liegen über dem Vorjahr. Investitionen in Anlagen und Software wurden wie geplant getätigt und planmäßig abgeschrieben.</p>")
	}
	b.WriteString("</body></html>")
	reports[pages] = b.String()
	return reports[pages]
}

var (
	reportMu sync.Mutex
	reports  = map[int]string{} // by page count, built once each
)

// startGotenberg runs bin on a free port and waits for its health check. The engines are
// Debian's, unless the environment names others. Gotenberg 8.36 also wants two programs
// Debian does not ship: the unoconverter script (github.com/gotenberg/unoconverter, given
// as unoconv or UNOCONVERTER_BIN_PATH) and the pdfcpu command (PDFCPU_BIN_PATH, else built
// here from this module's pin).
func startGotenberg(bin, unoconv string) (string, int, func(), error) {
	if unoconv == "" && os.Getenv("UNOCONVERTER_BIN_PATH") == "" {
		// Gotenberg 8.36 does not start without it, whatever the scenarios.
		return "", 0, nil, errors.New("gotenberg needs the unoconv script of github.com/gotenberg/unoconverter: give -unoconverter PATH (make bench UNOCONVERTER=PATH)")
	}
	port, err := freePort()
	if err != nil {
		return "", 0, nil, err
	}
	dir, err := os.MkdirTemp("", "gotenberg-bench-")
	if err != nil {
		return "", 0, nil, err
	}
	started := false
	defer func() {
		if !started {
			os.RemoveAll(dir)
		}
	}()
	// Gotenberg after 8.36 wants the hyphenation data its image ships; Debian's Chromium has
	// none, and neither benchmark document hyphenates, so an empty directory stands for it.
	hyphen := filepath.Join(dir, "hyphen-data")
	if err := os.Mkdir(hyphen, 0o755); err != nil {
		return "", 0, nil, err
	}
	// Gotenberg's browser profiles and office directories go under dir, so that they go
	// with it also when Gotenberg is killed and cannot remove them itself.
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o755); err != nil {
		return "", 0, nil, err
	}
	defaults := map[string]string{
		"CHROMIUM_BIN_PATH": "/usr/bin/chromium", "LIBREOFFICE_BIN_PATH": "/usr/lib/libreoffice/program/soffice.bin",
		"QPDF_BIN_PATH": "/usr/bin/qpdf", "EXIFTOOL_BIN_PATH": "/usr/bin/exiftool", "PDFTK_BIN_PATH": "/usr/bin/pdftk",
		"CHROMIUM_HYPHEN_DATA_DIR_PATH": hyphen,
		"OTEL_TRACES_EXPORTER":          "none", "OTEL_METRICS_EXPORTER": "none", "OTEL_LOGS_EXPORTER": "none",
	}
	if unoconv != "" {
		// Gotenberg runs the script as a program, and its first line asks for "python", which
		// Debian 12 does not have: a wrapper runs it with the Python that has uno.
		w := filepath.Join(dir, "unoconverter")
		if err := os.WriteFile(w, []byte("#!/bin/sh\nexec /usr/bin/python3 "+strconv.Quote(unoconv)+` "$@"`+"\n"), 0o755); err != nil {
			return "", 0, nil, err
		}
		defaults["UNOCONVERTER_BIN_PATH"] = w
	}
	if os.Getenv("PDFCPU_BIN_PATH") == "" {
		p := filepath.Join(dir, "pdfcpu")
		if out, err := exec.Command("go", "build", "-o", p, "github.com/pdfcpu/pdfcpu/cmd/pdfcpu").CombinedOutput(); err != nil {
			return "", 0, nil, fmt.Errorf("build pdfcpu for gotenberg: %w: %s", err, out)
		}
		defaults["PDFCPU_BIN_PATH"] = p
	}
	env := append(os.Environ(), "TMPDIR="+tmp)
	for k, v := range defaults {
		if os.Getenv(k) == "" || k == "UNOCONVERTER_BIN_PATH" {
			env = append(env, k+"="+v)
		}
	}
	cmd := exec.Command(bin, "--api-port="+strconv.Itoa(port))
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} // gone with the bench
	logf, _ := os.Create(filepath.Join(dir, "gotenberg.log"))
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return "", 0, nil, fmt.Errorf("start %s: %w", bin, err)
	}
	stop := func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		os.RemoveAll(dir)
	}
	url := "http://127.0.0.1:" + strconv.Itoa(port)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if res, err := http.Get(url + "/health"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				started = true
				return url, cmd.Process.Pid, stop, nil
			}
		}
	}
	cmd.Process.Signal(os.Interrupt)
	cmd.Wait()
	log, _ := os.ReadFile(filepath.Join(dir, "gotenberg.log")) // before the deferred removal
	return "", 0, nil, fmt.Errorf("gotenberg did not come up at %s: %s", url, lastLines(string(log), 5))
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(l[max(0, len(l)-n):], "\n")
}

// sideBySide runs every peer scenario on both servers at every concurrency level, in
// rounds that alternate which server goes first, and prints latency and throughput ratios.
func sideBySide(e *env, g string, gpid int, levels []int, n, rounds int, only string) error {
	// Rows are printed as each scenario ends (a run takes minutes), so widths are fixed.
	// CPU is the machine time of a server's whole process tree per request (its engines
	// included; "server" is our own process alone): on a busy machine it says more than
	// the latencies do.
	const row = "%-18s %3s %5s │ %8s %8s %8s %7s %7s %7s │ %8s %8s %8s %7s %7s │ %9s %9s %9s\n"
	fmt.Printf(row, "scenario", "c", "n", "p50 ms", "p95 ms", "max ms", "req/s", "cpu ms", "server", "p50 ms", "p95 ms", "max ms", "req/s", "cpu ms", "p50 ×", "req/s ×", "cpu ×")
	fmt.Printf(row, "", "", "", "ours", "", "", "", "", "", "gotenberg", "", "", "", "", "ours vs", "gotenberg", "")
	for _, sc := range peerScenarios() {
		if only != "" && !strings.Contains(sc.name, only) {
			continue
		}
		theirs := func(ctx context.Context, e *env) error { return sc.theirs(ctx, e, g) }
		for _, c := range levels {
			var o, t runs
			for r := range rounds {
				first, second, fr, sr := sc.ours, theirs, &o, &t
				if r%2 == 1 {
					first, second, fr, sr = theirs, sc.ours, &t, &o
				}
				for _, x := range []struct {
					f   func(context.Context, *env) error
					acc *runs
				}{{first, fr}, {second, sr}} {
					pid := serverPID
					if x.acc == &t {
						pid = gpid
					}
					self0, all0 := treeCPU(pid)
					lat, took, err := timed(e, x.f, c, max(1, n/rounds))
					if err != nil {
						return fmt.Errorf("%s c=%d: %w", sc.name, c, err)
					}
					self1, all1 := treeCPU(pid)
					// timed's warm-up requests ran too.
					x.acc.add(lat, took, self1-self0, all1-all0, len(lat)+min(c, 4))
				}
			}
			a, b := o.result(), t.result()
			f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
			fmt.Printf(row, sc.name, strconv.Itoa(c), strconv.Itoa(len(o.lat)),
				f(ms(a.p50)), f(ms(a.p95)), f(ms(a.max)), f(a.rps), f(ms(o.cpu())), f(ms(o.cpuSelf())), f(ms(b.p50)), f(ms(b.p95)), f(ms(b.max)), f(b.rps), f(ms(t.cpu())),
				fmt.Sprintf("%.2f", float64(b.p50)/float64(a.p50)), fmt.Sprintf("%.2f", a.rps/b.rps), fmt.Sprintf("%.2f", float64(t.cpu())/float64(max(o.cpu(), 1))))
		}
	}
	if serverPID != 0 && gpid != 0 {
		fmt.Printf("\nmemory of the process trees after the scenarios (PSS): ours %d MB, gotenberg %d MB\n", treeRSS(serverPID)>>20, treeRSS(gpid)>>20)
	}
	return nil
}

// runs collects latencies, busy time and CPU time over the rounds of one scenario.
type runs struct {
	lat       []time.Duration
	took      time.Duration
	self, all time.Duration // CPU: the server process, its whole tree
	requests  int           // that the CPU time was spent on
}

func (r *runs) add(lat []time.Duration, took, self, all time.Duration, requests int) {
	r.lat = append(r.lat, lat...)
	r.took += took
	r.self += self
	r.all += all
	r.requests += requests
}

// cpu and cpuSelf are CPU time per request, of the tree and of the server alone.
func (r *runs) cpu() time.Duration     { return r.all / time.Duration(max(r.requests, 1)) }
func (r *runs) cpuSelf() time.Duration { return r.self / time.Duration(max(r.requests, 1)) }

func (r *runs) result() result {
	lat := slices.Clone(r.lat)
	slices.Sort(lat)
	n := len(lat)
	return result{p50: lat[n/2], p95: lat[n*95/100], p99: lat[n*99/100], max: lat[n-1], rps: float64(n) / r.took.Seconds()}
}
