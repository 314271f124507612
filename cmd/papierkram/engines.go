package main

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/papierkram/papierkram/convert"
	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/chromium"
	"github.com/papierkram/papierkram/engine/ghostscript"
	"github.com/papierkram/papierkram/engine/office"
	"github.com/papierkram/papierkram/engine/paddle"
	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/engine/pygments"
	"github.com/papierkram/papierkram/engine/tesseract"
	"github.com/papierkram/papierkram/internal/ops"
	"github.com/papierkram/papierkram/internal/server"
	"github.com/papierkram/papierkram/netguard"
	"github.com/papierkram/papierkram/pdf/compress"
	"github.com/papierkram/papierkram/pdf/ocr"
	"github.com/papierkram/papierkram/pdf/pdfa"
	"github.com/papierkram/papierkram/pdf/preview"
	"github.com/papierkram/papierkram/receipt"
)

// engines are the external programs the server drives.
type engines struct {
	poppler     *poppler.Poppler
	ghostscript *ghostscript.Ghostscript
	chromium    *chromium.Chromium
	office      *office.Office
	tesseract   *tesseract.Tesseract
	pygments    *pygments.Pygments
	paddle      *paddle.Paddle // nil when PaddleOCR is not installed
}

// engineList is the one list of the server's engines: each one's name, its default number of
// processes per core (each runs one job at a time; pdftoppm's jobs are short and mostly
// I/O, so two per core) and whether it keeps processes that --warm can start early. Flags,
// metrics, /ready and shutdown all derive from it.
var engineList = []struct {
	name   string
	perCPU int
	warm   bool
	memory int // MiB a process may hold (anonymous resident memory) after a job before it is recycled; 0: one job per process
}{
	{"chromium", 1, true, 1024}, {"office", 1, true, 1024}, {"ghostscript", 1, false, 0}, {"poppler", 2, false, 0}, {"tesseract", 1, false, 0},
	{"pygments", 1, false, 0}, {"paddleocr", 1, true, 1024},
}

// parseMemory reads --memory-limit: comma-separated engine=MiB pairs over the defaults, for
// the engines that keep processes; the limits in bytes.
func parseMemory(spec string) (map[string]int64, error) {
	mib := map[string]int{}
	for _, e := range engineList {
		if e.memory > 0 {
			mib[e.name] = e.memory
		}
	}
	mib, err := enginePairs("--memory-limit", "MiB", spec, mib, 64, 65536)
	if err != nil {
		return nil, err
	}
	m := map[string]int64{}
	for name, v := range mib {
		m[name] = int64(v) << 20
	}
	return m, nil
}

// enginePairs reads comma-separated engine=n pairs over defaults, which name the engines
// the flag knows; n runs from lo to hi.
func enginePairs(flag, unit, spec string, defaults map[string]int, lo, hi int) (map[string]int, error) {
	out := maps.Clone(defaults)
	for _, item := range strings.Split(spec, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		name, v, ok := strings.Cut(item, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if _, known := out[name]; !ok || !known || err != nil || n < lo || n > hi {
			return nil, fmt.Errorf("%s %q: write engine=%s with %s from %d to %d, engines %s", flag, item, unit, unit, lo, hi, strings.Join(slices.Sorted(maps.Keys(defaults)), ", "))
		}
		out[name] = n
	}
	return out, nil
}

// defaultConcurrency is each engine's number of processes on cpus cores.
func defaultConcurrency(cpus int) map[string]int {
	m := map[string]int{}
	for _, e := range engineList {
		m[e.name] = e.perCPU * cpus
	}
	return m
}

// parseConcurrency reads --concurrency: comma-separated engine=n pairs over the defaults.
func parseConcurrency(spec string, cpus int) (map[string]int, error) {
	return enginePairs("--concurrency", "n", spec, defaultConcurrency(cpus), 1, 64)
}

// newEngines builds the engines with conc processes each; every temporary file they make
// lives under tempRoot (the process's run directory, swept at the next start if the process
// is killed).
func newEngines(log *slog.Logger, jobTimeout time.Duration, tempRoot string, network netguard.Policy, conc map[string]int, memory map[string]int64, paddleDir string) (*engines, error) {
	// One soffice per core, each converting one document at a time.
	// A spare soffice and a spare browser stand by once the pools are in use: a process
	// retired (recycled, crashed, or left with a document's fonts) is replaced at once
	// instead of the next request waiting for a cold start.
	of, err := office.New(engine.Config{Concurrency: conc["office"], JobTimeout: jobTimeout, MaxMemory: memory["office"], Logger: log, TempRoot: tempRoot, Spare: true})
	if err != nil {
		return nil, err
	}
	var pd *paddle.Paddle
	if err := paddleInstalled(paddleDir); err != nil {
		log.Info("receipts are read by Tesseract alone", "paddleocr", err)
	} else {
		pd = paddle.New(engine.Config{Concurrency: conc["paddleocr"], JobTimeout: jobTimeout, MaxMemory: memory["paddleocr"], Logger: log, TempRoot: tempRoot}, paddleDir)
	}
	return &engines{
		paddle: pd,
		office: of,
		// Tesseract runs single-threaded, one process per core.
		tesseract:   tesseract.New(engine.Config{Concurrency: conc["tesseract"], JobTimeout: jobTimeout, Logger: log, TempRoot: tempRoot}),
		poppler:     poppler.New(engine.Config{Concurrency: conc["poppler"], JobTimeout: jobTimeout, Logger: log, TempRoot: tempRoot}),
		ghostscript: ghostscript.New(engine.Config{Concurrency: conc["ghostscript"], JobTimeout: jobTimeout, Logger: log, TempRoot: tempRoot}),
		pygments:    pygments.New(engine.Config{Concurrency: conc["pygments"], JobTimeout: jobTimeout, Logger: log, TempRoot: tempRoot}),
		// One browser per core; each is recycled after 200 jobs so that a slow leak in a
		// long-lived browser never grows without bound. Each browser's own proxy holds every
		// connection a page makes to the network policy.
		chromium: chromium.New(engine.Config{Concurrency: conc["chromium"], JobTimeout: jobTimeout, MaxJobs: 200, MaxMemory: memory["chromium"], Logger: log, TempRoot: tempRoot, Spare: true}, chromium.WithPolicy(network)),
	}, nil
}

// warmable are the engines that keep processes: the ones --warm can start early.
func warmable() (names []string) {
	for _, e := range engineList {
		if e.warm {
			names = append(names, e.name)
		}
	}
	return names
}

// parseWarm reads --warm: engine names, or none.
func parseWarm(spec string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(spec, ",") {
		switch name = strings.ToLower(strings.TrimSpace(name)); {
		case name == "" || name == "none":
		case slices.Contains(warmable(), name):
			out = append(out, name)
		default:
			return nil, fmt.Errorf("--warm %q: name engines that keep processes (%s), or none", name, strings.Join(warmable(), ", "))
		}
	}
	return out, nil
}

// warm starts the named engines' processes in the background; a failure is logged (the
// engine then starts on its first job and says why there).
func (e *engines) warm(ctx context.Context, log *slog.Logger, names []string) {
	for _, en := range e.all() {
		if !slices.Contains(names, en.Name()) {
			continue
		}
		go func() {
			if err := en.Supervisor().Warm(ctx); err != nil && ctx.Err() == nil {
				log.Warn("engine not warmed", "engine", en.Name(), "error", err)
			}
		}()
	}
}

// all are the engines, in the order of engineList.
func (e *engines) all() []engine.Engine {
	all := []engine.Engine{e.chromium, e.office, e.ghostscript, e.poppler, e.tesseract, e.pygments}
	if e.paddle != nil {
		all = append(all, e.paddle)
	}
	return all
}

// second is the receipt pipeline's second OCR reading, nil when PaddleOCR is not installed
// (a nil *paddle.Paddle must not become a non-nil interface).
func (e *engines) second() receipt.Reader {
	if e.paddle == nil {
		return nil
	}
	return e.paddle
}

// paddleInstalled says why PaddleOCR cannot run from dir ("" turns it off).
func paddleInstalled(dir string) error {
	if dir == "" {
		return fmt.Errorf("turned off (--paddle-dir is empty)")
	}
	return paddle.Installed(dir)
}

// byName are the engines for /ready and shutdown.
func (e *engines) byName() map[string]server.Engine {
	m := map[string]server.Engine{}
	for _, en := range e.all() {
		m[en.Name()] = en
	}
	return m
}

func (e *engines) registry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, en := range e.all() {
		reg.MustRegister(en.Supervisor())
	}
	return reg
}

// local are the engines of one command: one job at a time, each started only when the
// command uses it (Ghostscript, pdftoppm and Tesseract run a process per job; the browser
// and LibreOffice start on their first job) and all stopped by close. Commands build no
// engine of their own.
type local struct {
	ghostscript *ghostscript.Ghostscript
	poppler     *poppler.Poppler
	tesseract   *tesseract.Tesseract
	chromium    *chromium.Chromium
	office      *office.Office // made by Office, on demand: it writes its bridge script
	paddle      *paddle.Paddle // made by Second, when PaddleOCR is installed
}

// Second is the receipt pipeline's second OCR reading: PaddleOCR from PAPIERKRAM_PADDLE_DIR
// (engine/paddle/js by default), nil when it is not installed there.
func (l *local) Second() receipt.Reader {
	if l.paddle == nil {
		dir := env("PAPIERKRAM_PADDLE_DIR", "engine/paddle/js")
		if paddleInstalled(dir) != nil {
			return nil
		}
		l.paddle = paddle.New(engine.Config{Concurrency: 1}, dir)
	}
	return l.paddle
}

func newLocal() *local {
	one := engine.Config{Concurrency: 1}
	return &local{ghostscript: ghostscript.New(one), poppler: poppler.New(one), tesseract: tesseract.New(one), chromium: chromium.New(one)}
}

// ops are the engines as the operation layer names them.
func (l *local) ops() *ops.Engines {
	return &ops.Engines{PDFA: l.ghostscript, Printer: l.chromium, Distiller: l.ghostscript, Renderer: l.poppler, OCR: l.tesseract}
}

// Office is the LibreOffice engine, made on first use.
func (l *local) Office() (*office.Office, error) {
	if l.office == nil {
		o, err := office.New(engine.Config{Concurrency: 1})
		if err != nil {
			return nil, err
		}
		l.office = o
	}
	return l.office, nil
}

// pages reads what a PDF's pages show, OCR for image-only ones (zugferd validate's check).
func (l *local) pages(ctx context.Context, pdf []byte) ([]string, error) {
	return ocr.PageTexts(ctx, l.poppler, l.poppler, l.tesseract, pdf, 10)
}

func (l *local) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	all := []engine.Engine{l.ghostscript, l.poppler, l.tesseract, l.chromium}
	if l.office != nil {
		all = append(all, l.office)
	}
	if l.paddle != nil {
		all = append(all, l.paddle)
	}
	for _, en := range all {
		_ = en.Stop(ctx)
	}
}

// Interface guards: each engine does what the domain packages ask of it, checked where the
// engines are built (the only place that names them).
var (
	_ convert.Printer    = (*chromium.Chromium)(nil)
	_ convert.Office     = (*office.Office)(nil)
	_ pdfa.Converter     = (*ghostscript.Ghostscript)(nil)
	_ pdfa.Profiler      = (*ghostscript.Ghostscript)(nil)
	_ compress.Distiller = (*ghostscript.Ghostscript)(nil)
	_ preview.Renderer   = (*poppler.Poppler)(nil)
	_ ocr.Renderer       = (*poppler.Poppler)(nil)
	_ receipt.OCR        = (*tesseract.Tesseract)(nil)
	_ receipt.Reader     = (*paddle.Paddle)(nil)
	_ ocr.Recognizer     = (*tesseract.Tesseract)(nil)
	_ server.Engine      = engine.Engine(nil)
)
