package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/papierkram/papierkram/convert"
	"github.com/papierkram/papierkram/internal/ops"
	"github.com/papierkram/papierkram/internal/version"
	"github.com/papierkram/papierkram/jobs"
	"github.com/papierkram/papierkram/llm"
	"github.com/papierkram/papierkram/netguard"
	"github.com/papierkram/papierkram/pdf/pdfa"
	"github.com/papierkram/papierkram/receipt"
	"github.com/papierkram/papierkram/store"
)

// Engine is what the server needs of an external-program supervisor: readiness and shutdown.
type Engine interface {
	Ready(ctx context.Context) error
	Stop(ctx context.Context) error
}

// Config configures a Server. Zero values get sensible defaults.
type Config struct {
	Addr              string        // listen address, default ":8080"
	APIKeys           []string      // keys accepted besides stored ones (operator-provided; admin plan)
	MaxUploadBytes    int64         // body limit of upload endpoints, default 50 MiB
	MetricsPublic     bool          // serve /metrics without a key
	ReadHeaderTimeout time.Duration // against slow clients, default 10 s
	ReadTimeout       time.Duration // whole request, default 2 min (a 50 MiB upload on a slow link)
	WriteTimeout      time.Duration // whole response, default 3 min (60 s renders plus queueing)
	ShutdownTimeout   time.Duration // how long running requests may finish on SIGTERM, default 30 s
	// DrainDelay is how long the server keeps answering after SIGTERM while /ready says
	// "draining", so that a load balancer stops sending before the listener closes; 0 closes
	// it at once.
	DrainDelay     time.Duration
	WebhookRetries []time.Duration // waits before webhook retries; default 1 s, 5 s, 30 s
	// Jobs makes the queue of asynchronous jobs from the server's options (its workers);
	// nil keeps jobs in this process's memory (jobs.NewMemory).
	Jobs func(jobs.Options) (jobs.Queue, error)
	// Locale is the default locale (BCP 47) of LibreOffice conversions: number and date
	// formats and the default paper; default de-DE.
	Locale    string
	Logger    *slog.Logger
	Store     store.Store
	Registry  *prometheus.Registry // where metrics go; a new one when nil
	Engines   map[string]Engine    // by name, for /ready and shutdown
	Renderer  Renderer             // page images and text (engine/poppler)
	PDFA      pdfa.Converter       // PDF/A-3b conversion (engine/ghostscript)
	Network   netguard.Policy      // what outbound requests on a caller's behalf may reach
	Printer   convert.Printer      // HTML to PDF (engine/chromium)
	Office    convert.Office       // Word and Excel to PDF (engine/office)
	Highlight convert.Highlighter  // colours of Markdown's code blocks (engine/pygments); plain without
	OCR       receipt.OCR          // text from receipt images (engine/tesseract)
	SecondOCR receipt.Reader       // optional second reading of a receipt Tesseract leaves unsettled (engine/paddle)
	TextLayer ops.Recognizer       // invisible text layers of scanned pages (engine/tesseract)
	Distiller ops.Distiller        // lossy PDF compression (engine/ghostscript)
	Model     *llm.Client          // optional language model for receipts; nil = rules only
	Now       func() time.Time     // the clock, for quota tests
	// RateLimit bounds each key's heavy operations (conversions, PDF/A, previews, OCR,
	// signing); the zero value is DefaultRateLimit, PerMinute 0 with a Burst set, or negative, turns it off.
	RateLimit RateLimit
}

// Server is the HTTP service.
type Server struct {
	cfg   Config
	log   *slog.Logger
	store store.Store
	api   huma.API
	// enumSchemas caches, per operation, its JSON body schema when an enum is in it
	// (foldEnums); *huma.Operation → *huma.Schema, nil for none.
	enumSchemas sync.Map
	mux         *routeMux
	handler     http.Handler
	metrics     *httpMetrics
	reg         *prometheus.Registry
	envKeys     []*store.Key
	now         func() time.Time
	jobs        jobs.Queue
	// draining is set once the server was told to stop: /ready fails from then on.
	draining atomic.Bool
	limiter  *limiter
	big      chan struct{} // places for large in-process work (validations of big documents)
}

// HTML's 25 MB is the spec's limit; uploads get a configurable default.
const (
	defaultMaxUpload = 50 << 20
	maxHTMLBody      = 25 << 20
	maxJSONBody      = 1 << 20
)

// New builds the server and registers every route.
func New(cfg Config) (*Server, error) {
	if cfg.Store == nil {
		return nil, errors.New("server: a store is required")
	}
	if cfg.Addr == "" {
		cfg.Addr = ":8080"
	}
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = defaultMaxUpload
	}
	if cfg.ReadHeaderTimeout <= 0 {
		cfg.ReadHeaderTimeout = 10 * time.Second
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = 2 * time.Minute
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 3 * time.Minute
	}
	if cfg.ShutdownTimeout <= 0 {
		cfg.ShutdownTimeout = 30 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Registry == nil {
		cfg.Registry = prometheus.NewRegistry()
		cfg.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	var loc localeTag
	if err := loc.UnmarshalText([]byte(cmp.Or(cfg.Locale, "de-DE"))); err != nil {
		return nil, fmt.Errorf("server: locale: %w", err)
	}
	cfg.Locale = string(loc)
	if cfg.RateLimit == (RateLimit{}) {
		cfg.RateLimit = DefaultRateLimit
	}
	s := &Server{cfg: cfg, log: cfg.Logger, store: cfg.Store, mux: &routeMux{ServeMux: http.NewServeMux()}, reg: cfg.Registry, now: cfg.Now,
		limiter: newLimiter(cfg.RateLimit), big: make(chan struct{}, runtime.NumCPU())}
	jo := jobs.Options{Network: cfg.Network, Logger: cfg.Logger, Now: cfg.Now, Retries: cfg.WebhookRetries,
		Workers: map[string]jobs.Work{receiptJobKind: s.runReceiptJob, documentJobKind: s.runDocumentJob}}
	if cfg.Jobs == nil {
		s.jobs = jobs.NewMemory(jo)
	} else {
		q, err := cfg.Jobs(jo)
		if err != nil {
			return nil, fmt.Errorf("server: job queue: %w", err)
		}
		s.jobs = q
	}
	for _, secret := range cfg.APIKeys {
		if secret == "" {
			continue
		}
		h := store.Hash(secret)
		s.envKeys = append(s.envKeys, &store.Key{ID: "env_" + store.IDOf(h)[4:], Name: "environment", Hash: h, Plan: store.PlanAdmin})
	}
	s.metrics = newHTTPMetrics(cfg.Registry)

	hc := huma.DefaultConfig("Papierkram API", version.API)
	hc.OpenAPIPath = "/openapi"
	hc.DocsPath = "" // our own offline page, see docs.go
	hc.SchemasPath = ""
	hc.Components.Schemas = huma.NewMapRegistry("#/components/schemas/", schemaName)
	hc.RejectUnknownQueryParameters = true
	hc.CreateHooks = nil // no $schema links in responses: bodies are the spec's shapes
	hc.Info.Description = apiDescription
	hc.Components.SecuritySchemes = map[string]*huma.SecurityScheme{
		"apiKey": {Type: "apiKey", In: "header", Name: "X-API-Key", Description: "The API key. Every endpoint except /health, /ready, /openapi.json and /docs needs it."},
	}
	hc.Security = []map[string][]string{{"apiKey": {}}}
	huma.NewErrorWithContext = func(hctx huma.Context, status int, msg string, errs ...error) huma.StatusError {
		return newProblem(hctx.Context(), status, msg, errs...)
	}
	huma.NewError = func(status int, msg string, errs ...error) huma.StatusError {
		return newProblem(context.Background(), status, msg, errs...)
	}
	s.api = humago.New(s.mux, hc)
	s.api.UseMiddleware(s.guard, s.foldEnums)

	s.registerPDFTools()
	s.registerPreview()
	s.registerSignatures()
	s.registerXRechnung()
	s.registerZugferd()
	s.registerZugferdEmbed()
	s.registerZugferdToXRechnung()
	mount(s, ops.Visualize)
	mount(s, ops.Create)
	s.registerForms()
	s.registerSpreadsheets()
	s.registerTemplates()
	s.registerDocuments()
	s.registerCompose()
	s.registerDocumentJobs()
	s.registerFonts()
	s.registerOffice()
	s.registerConvert()
	s.registerAccount()
	s.registerReceipts()
	s.registerInvoiceExtract()
	s.registerPlain()
	s.handler = s.observe(s.mux)
	return s, nil
}

// routeMux records the patterns registered on it, so a test can hold them against the
// OpenAPI document.
type routeMux struct {
	*http.ServeMux
	patterns []string
}

func (m *routeMux) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.HandleFunc(pattern, h)
}

func (m *routeMux) Handle(pattern string, h http.Handler) {
	m.patterns = append(m.patterns, pattern)
	m.ServeMux.Handle(pattern, h)
}

// Routes lists every registered pattern ("POST /api/preview", "GET /health", ...).
func (s *Server) Routes() []string { return append([]string(nil), s.mux.patterns...) }

// Handler is the whole service as an http.Handler.
func (s *Server) Handler() http.Handler { return s.handler }

// HTTPServer returns the configured *http.Server (timeouts, HTTP/1.1 and h2c).
func (s *Server) HTTPServer() *http.Server {
	p := new(http.Protocols)
	p.SetHTTP1(true)
	p.SetUnencryptedHTTP2(true) // h2c, for clients and proxies that speak HTTP/2 in the clear
	return &http.Server{
		Addr:              s.cfg.Addr,
		Handler:           s.handler,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		Protocols:         p,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// Run serves on ln until ctx is done, then shuts down gracefully: it stops accepting, lets
// running requests finish within ShutdownTimeout, then stops the engines.
func (s *Server) Run(ctx context.Context, ln net.Listener) error {
	hs := s.HTTPServer()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	s.log.Info("listening", "addr", ln.Addr().String(), "version", version.Version)

	var serveErr error
	select {
	case err := <-errc:
		serveErr = err
	case <-ctx.Done():
	}
	s.draining.Store(true)
	if serveErr == nil && s.cfg.DrainDelay > 0 {
		s.log.Info("draining: /ready answers 503 while requests still arrive", "for", s.cfg.DrainDelay.String())
		select {
		case <-time.After(s.cfg.DrainDelay):
		case serveErr = <-errc:
		}
	}
	s.log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		s.log.Warn("shutdown: requests still running were cut off", "error", err)
		hs.Close()
	}
	// Running jobs get the rest of the shutdown time; a durable queue runs what is then cut
	// off again on another instance, the in-memory one loses it.
	if err := s.jobs.Close(sctx); err != nil {
		s.log.Warn("jobs: stop", "error", err)
	}
	for name, e := range s.cfg.Engines {
		if err := e.Stop(sctx); err != nil {
			s.log.Warn("engine stop", "engine", name, "error", err)
		}
	}
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) {
		return fmt.Errorf("server: %w", serveErr)
	}
	return nil
}

const apiDescription = `Papierkram converts documents to PDF, works on PDFs, reads, writes and validates e-invoices
(ZUGFeRD / Factur-X, XRechnung), signs PDFs and extracts receipts.

Every endpoint needs the header X-API-Key except /health, /ready, /openapi.json and /docs.
Errors are RFC 9457 problem objects (application/problem+json) with a stable code; the codes
are listed under "Problems" in /docs. Routes marked "not implemented yet" answer 501.`

// schemaName names OpenAPI schemas by their Go type, except that the receipt package's
// short names get the spec's prefix (Result is ReceiptExtractionResult, Data is
// ReceiptData), so they clash with no other package's Result.
func schemaName(t reflect.Type, hint string) string {
	name := huma.DefaultSchemaNamer(t, hint)
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.PkgPath() == reflect.TypeFor[receipt.Result]().PkgPath() {
		if name == "Result" {
			return "ReceiptExtractionResult"
		}
		return "Receipt" + name
	}
	return name
}
