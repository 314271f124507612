package main

import (
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/internal/server"
	"github.com/papierkram/papierkram/internal/version"
	"github.com/papierkram/papierkram/jobs"
	"github.com/papierkram/papierkram/llm"
	"github.com/papierkram/papierkram/netguard"
	"github.com/papierkram/papierkram/store"
)

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

func envBool(name string) bool {
	b, _ := strconv.ParseBool(os.Getenv(name))
	return b
}

func envInt(name string, def int64) int64 {
	if n, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil {
		return n
	}
	return def
}

func envDuration(name string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return d
	}
	return def
}

// newLogger logs JSON when stderr is not a terminal (a service's normal case), text otherwise.
func newLogger(format string) *slog.Logger {
	if format == "" {
		format = "json"
		if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			format = "text"
		}
	}
	if format == "text" {
		return slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	return slog.New(slog.NewJSONHandler(os.Stderr, nil))
}

func serveCmd() *cobra.Command {
	var (
		addr, dataDir, logFormat string
		databaseURL              string
		allowNetworks            string
		maxUploadMB              int64
		metricsPublic, devKey    bool
		shutdown, jobTimeout     time.Duration
		drainDelay               time.Duration
		asyncTimeout, rescue     time.Duration
		locale                   string
		concurrency              string
		memoryLimit              string
		warm                     string
		paddleDir                string
		tempDir                  string
		ratePerMinute            float64
		rateBurst                int64
	)
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the HTTP API",
		Long: `Run the HTTP API.

Environment: PAPIERKRAM_ADDR, PAPIERKRAM_DATA_DIR, PAPIERKRAM_DATABASE_URL, PAPIERKRAM_API_KEYS (comma-separated keys
accepted besides stored ones, with admin rights: for development, tests and operators),
PAPIERKRAM_MAX_UPLOAD_MB, PAPIERKRAM_METRICS_PUBLIC, PAPIERKRAM_DRAIN_DELAY, PAPIERKRAM_ASYNC_TIMEOUT,
PAPIERKRAM_ASYNC_RESCUE_AFTER, PAPIERKRAM_LOCALE. Flags win over the environment.

Receipts read with a language model when PAPIERKRAM_LLM_BASE_URL and PAPIERKRAM_LLM_MODEL are
set (any OpenAI-compatible chat completions server, e.g. https://api.openai.com/v1 or
http://localhost:11434/v1 for Ollama), with PAPIERKRAM_LLM_API_KEY as its bearer token and
PAPIERKRAM_LLM_TIMEOUT (default 60s); without them the offline rules engine reads them.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			log := newLogger(logFormat)
			slog.SetDefault(log)
			st, err := store.Open(ctx, databaseURL, dataDir)
			if err != nil {
				return err
			}
			defer st.Close()
			var keys []string
			for _, k := range strings.Split(os.Getenv("PAPIERKRAM_API_KEYS"), ",") {
				if k = strings.TrimSpace(k); k != "" {
					keys = append(keys, k)
				}
			}
			if devKey {
				k := store.NewSecret()
				keys = append(keys, k)
				fmt.Fprintf(os.Stderr, "\n  Development API key (admin, valid while this process runs):\n\n    %s\n\n  Try: curl -H \"X-API-Key: %s\" http://localhost%s/api/auth/validate\n\n", k, k, displayAddr(addr))
			}
			allow, err := netguard.ParseAllow(allowNetworks)
			if err != nil {
				return err
			}
			run, err := engine.NewRunDir(tempDir, log)
			if err != nil {
				return err
			}
			defer run.Close()
			network := netguard.Policy{Allow: allow}
			conc, err := parseConcurrency(concurrency, runtime.NumCPU())
			if err != nil {
				return err
			}
			warmNames, err := parseWarm(warm)
			if err != nil {
				return err
			}
			memory, err := parseMemory(memoryLimit)
			if err != nil {
				return err
			}
			eng, err := newEngines(log, jobTimeout, run.Path, network, conc, memory, paddleDir)
			if err != nil {
				return err
			}
			// Asynchronous jobs live where the store is: in PostgreSQL (River) when instances
			// share one, else in this process.
			queue := func(o jobs.Options) (jobs.Queue, error) {
				o.Timeout, o.RescueAfter = asyncTimeout, rescue
				if pg, ok := st.(*store.Postgres); ok {
					return jobs.NewRiver(ctx, pg.Pool(), o)
				}
				return jobs.NewMemory(o), nil
			}
			srv, err := server.New(server.Config{
				Jobs: queue, Locale: locale,
				Addr: addr, APIKeys: keys, MaxUploadBytes: maxUploadMB << 20, MetricsPublic: metricsPublic,
				ShutdownTimeout: shutdown, DrainDelay: drainDelay, Logger: log, Store: st, Registry: eng.registry(), Engines: eng.byName(),
				Renderer: eng.poppler, PDFA: eng.ghostscript, Network: network, Printer: eng.chromium, Office: eng.office, Highlight: eng.pygments,
				OCR: eng.tesseract, SecondOCR: eng.second(), TextLayer: eng.tesseract, Distiller: eng.ghostscript, Model: modelFromEnv(), RateLimit: server.RateLimit{PerMinute: ratePerMinute, Burst: int(rateBurst)},
			})
			if err != nil {
				return err
			}
			// Warm engines start beside the listener: /health answers at once, and the first
			// conversions find their processes running (a cold LibreOffice took 17–20 s).
			eng.warm(ctx, log, warmNames)
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen %s: %w", addr, err)
			}
			return srv.Run(ctx, ln)
		},
	}
	f := cmd.Flags()
	f.StringVar(&addr, "addr", env("PAPIERKRAM_ADDR", ":8080"), "listen address")
	f.StringVar(&dataDir, "data-dir", env("PAPIERKRAM_DATA_DIR", "./data"), "directory of the embedded store")
	f.StringVar(&databaseURL, "database-url", env("PAPIERKRAM_DATABASE_URL", ""), "postgres://… to keep keys, usage and stored files in PostgreSQL (several instances share it); empty: the embedded store in --data-dir")
	f.Int64Var(&maxUploadMB, "max-upload-mb", envInt("PAPIERKRAM_MAX_UPLOAD_MB", 50), "body limit of upload endpoints, in MiB")
	f.BoolVar(&metricsPublic, "metrics-public", envBool("PAPIERKRAM_METRICS_PUBLIC"), "serve /metrics without an API key")
	f.BoolVar(&devKey, "dev-key", false, "create an admin API key for this process and print it")
	f.StringVar(&logFormat, "log-format", env("PAPIERKRAM_LOG_FORMAT", ""), "json or text (default: text on a terminal, else json)")
	f.DurationVar(&shutdown, "shutdown-timeout", 30*time.Second, "how long running requests may finish on SIGTERM")
	f.DurationVar(&drainDelay, "drain-delay", envDuration("PAPIERKRAM_DRAIN_DELAY", 0), "after SIGTERM, how long to keep answering while /ready reports draining (behind a load balancer: a few health-check intervals)")
	f.StringVar(&allowNetworks, "allow-network", env("PAPIERKRAM_ALLOW_NETWORKS", ""), "comma-separated internal addresses or CIDR ranges that timestamp authorities, webhooks and rendered pages may reach (by default none: loopback, private and link-local are refused)")
	f.StringVar(&paddleDir, "paddle-dir", env("PAPIERKRAM_PADDLE_DIR", "engine/paddle/js"), "where PaddleOCR is installed (npm ci there), the second reading of receipts Tesseract leaves unconfirmed; off when empty or not installed")
	f.StringVar(&warm, "warm", env("PAPIERKRAM_WARM", "chromium,office,paddleocr"), "engines whose processes start with the server rather than on their first job (chromium, office, paddleocr when installed; none for none)")
	f.StringVar(&memoryLimit, "memory-limit", env("PAPIERKRAM_MEMORY_LIMIT", ""), "MiB a browser, office or PaddleOCR process may hold (anonymous resident memory, its processes together) after a job before it is replaced, e.g. chromium=768 (default chromium=1024,office=1024,paddleocr=1024)")
	f.StringVar(&concurrency, "concurrency", env("PAPIERKRAM_CONCURRENCY", ""), "processes per engine, e.g. chromium=4,office=2 (engines chromium, office, ghostscript, poppler, tesseract, pygments, paddleocr; default one per core, poppler two)")
	f.DurationVar(&jobTimeout, "job-timeout", 60*time.Second, "time limit of one engine job (a render, a conversion)")
	f.StringVar(&locale, "locale", env("PAPIERKRAM_LOCALE", "de-DE"), "default locale (BCP 47) of Word and Excel conversions: number and date formats, and the paper of documents that name none (A4; Letter for US and Canadian locales)")
	f.DurationVar(&asyncTimeout, "async-timeout", envDuration("PAPIERKRAM_ASYNC_TIMEOUT", 10*time.Minute), "time limit of one asynchronous job (receipts/extract-async, documents/generate-async)")
	f.DurationVar(&rescue, "async-rescue-after", envDuration("PAPIERKRAM_ASYNC_RESCUE_AFTER", time.Minute), "with --database-url: a job still running this long after --async-timeout is taken to have lost its instance and runs again on another")
	f.Float64Var(&ratePerMinute, "rate-limit", float64(envInt("PAPIERKRAM_RATE_LIMIT", int64(server.DefaultRateLimit.PerMinute))), "heavy operations (conversions, PDF/A, previews, OCR, signing) a key may start per minute; 0 turns the limit off (admin keys have none)")
	f.Int64Var(&rateBurst, "rate-burst", envInt("PAPIERKRAM_RATE_BURST", int64(server.DefaultRateLimit.Burst)), "heavy operations a key may start at once")
	f.StringVar(&tempDir, "temp-dir", env("PAPIERKRAM_TEMP_DIR", os.TempDir()), "where engines keep temporary files (a directory per process; what a killed process left is removed at the next start)")
	return cmd
}

func displayAddr(addr string) string {
	if strings.HasPrefix(addr, ":") {
		return addr
	}
	if _, port, err := net.SplitHostPort(addr); err == nil {
		return ":" + port
	}
	return addr
}

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintf(cmd.OutOrStdout(), "papierkram %s (API %s)\n", version.Version, version.API)
		},
	}
}

// modelFromEnv is the language model the environment configures, or nil.
func modelFromEnv() *llm.Client {
	cfg := llm.Config{BaseURL: os.Getenv("PAPIERKRAM_LLM_BASE_URL"), APIKey: os.Getenv("PAPIERKRAM_LLM_API_KEY"), Model: os.Getenv("PAPIERKRAM_LLM_MODEL")}
	if d, err := time.ParseDuration(os.Getenv("PAPIERKRAM_LLM_TIMEOUT")); err == nil {
		cfg.Timeout = d
	}
	if !cfg.Enabled() {
		return nil
	}
	return llm.New(cfg)
}
