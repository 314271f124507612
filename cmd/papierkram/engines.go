package main

import (
	"github.com/papierkram/papierkram/engine/office"
	"log/slog"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/chromium"
	"github.com/papierkram/papierkram/engine/ghostscript"
	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/engine/tesseract"
	"github.com/papierkram/papierkram/internal/server"
	"github.com/papierkram/papierkram/netguard"
)

// engines are the external programs the server drives.
type engines struct {
	poppler     *poppler.Poppler
	ghostscript *ghostscript.Ghostscript
	chromium    *chromium.Chromium
	office      *office.Office
	tesseract   *tesseract.Tesseract
}

// newEngines builds the engines; every temporary file they make lives under tempRoot (the
// process's run directory, swept at the next start if the process is killed).
func newEngines(log *slog.Logger, jobTimeout time.Duration, tempRoot string, network netguard.Policy) (*engines, error) {
	cpus := runtime.NumCPU()
	// One soffice per core, each converting one document at a time.
	of, err := office.New(engine.Config{Concurrency: cpus, JobTimeout: jobTimeout, Logger: log, TempRoot: tempRoot})
	if err != nil {
		return nil, err
	}
	return &engines{
		office: of,
		// Tesseract runs single-threaded, one process per core.
		tesseract:   tesseract.New(engine.Config{Concurrency: cpus, JobTimeout: jobTimeout, Logger: log, TempRoot: tempRoot}),
		poppler:     poppler.New(engine.Config{Concurrency: 2 * cpus, JobTimeout: jobTimeout, Logger: log, TempRoot: tempRoot}),
		ghostscript: ghostscript.New(engine.Config{Concurrency: cpus, JobTimeout: jobTimeout, Logger: log, TempRoot: tempRoot}),
		// One browser per core; each is recycled after 200 jobs so that a slow leak in a
		// long-lived browser never grows without bound. Each browser's own proxy holds every
		// connection a page makes to the network policy.
		chromium: chromium.NewEngine(engine.Config{Concurrency: cpus, JobTimeout: jobTimeout, MaxJobs: 200, Logger: log, TempRoot: tempRoot}, chromium.WithPolicy(network)),
	}, nil
}

func (e *engines) supervisors() []*engine.Supervisor {
	return []*engine.Supervisor{e.poppler.Supervisor(), e.ghostscript.Supervisor(), e.chromium.Supervisor(), e.office.Supervisor(), e.tesseract.Supervisor()}
}

func (e *engines) byName() map[string]server.Engine {
	m := map[string]server.Engine{}
	for _, s := range e.supervisors() {
		m[s.Name()] = s
	}
	m["office"] = e.office // its Stop also removes the bridge script
	return m
}

func (e *engines) registry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, s := range e.supervisors() {
		reg.MustRegister(s)
	}
	return reg
}
