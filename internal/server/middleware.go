package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/store"
)

type ctxKey int

const requestInfoKey ctxKey = 0

// requestInfo travels in the request context: what the logs, problems and quotas need.
type requestInfo struct {
	id    string
	path  string
	log   *slog.Logger
	key   *store.Key // set by authentication
	req   *http.Request
	reply http.ResponseWriter
}

func requestInfoFrom(ctx context.Context) *requestInfo {
	ri, _ := ctx.Value(requestInfoKey).(*requestInfo)
	return ri
}

// keyFrom returns the authenticated key of the request.
func keyFrom(ctx context.Context) *store.Key {
	if ri := requestInfoFrom(ctx); ri != nil {
		return ri.key
	}
	return nil
}

// requestFrom returns the HTTP request behind a handler's context, for the handlers that read
// their body themselves (uploads).
func requestFrom(ctx context.Context) *http.Request {
	if ri := requestInfoFrom(ctx); ri != nil {
		return ri.req
	}
	return nil
}

func newRequestID() string {
	var b [12]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// validRequestID accepts a caller's id only when it is short and plain, so it cannot forge
// log lines or headers.
func validRequestID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// statusWriter records what was written, for logs and metrics.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush keeps streaming responses working through the wrapper.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

type httpMetrics struct {
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	inflight prometheus.Gauge
}

func newHTTPMetrics(reg prometheus.Registerer) *httpMetrics {
	m := &httpMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "papierkram_http_requests_total", Help: "HTTP requests by route and status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "papierkram_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120},
		}, []string{"route"}),
		inflight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "papierkram_http_requests_in_flight", Help: "HTTP requests being served.",
		}),
	}
	reg.MustRegister(m.requests, m.latency, m.inflight)
	return m
}

// observe wraps the whole router: request id, panic recovery, access log and metrics.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !validRequestID(id) {
			id = newRequestID()
		}
		sw := &statusWriter{ResponseWriter: w}
		ri := &requestInfo{id: id, path: r.URL.Path, log: s.log.With("requestId", id), reply: sw}
		r = r.WithContext(context.WithValue(r.Context(), requestInfoKey, ri))
		ri.req = r
		sw.Header().Set("X-Request-Id", id)
		s.metrics.inflight.Inc()

		defer func() {
			s.metrics.inflight.Dec()
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler { // the handler chose to abort: let net/http do so
					panic(v)
				}
				ri.log.Error("panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if sw.status == 0 {
					writeProblem(sw, r, fault.New(fault.Internal, "an unexpected error occurred; the request id identifies it in the server log"))
				}
			}
			route := r.Pattern
			if route == "" {
				route = "unmatched"
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			elapsed := time.Since(start)
			s.metrics.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
			s.metrics.latency.WithLabelValues(route).Observe(elapsed.Seconds())
			attrs := []any{"method", r.Method, "path", r.URL.Path, "route", route, "status", status,
				"bytes", sw.bytes, "durationMs", elapsed.Milliseconds(), "remote", r.RemoteAddr}
			if ri.key != nil {
				attrs = append(attrs, "keyId", ri.key.ID)
			}
			level := slog.LevelInfo
			if status >= 500 {
				level = slog.LevelError
			}
			ri.log.Log(r.Context(), level, "request", attrs...)
		}()
		next.ServeHTTP(sw, r)
	})
}
