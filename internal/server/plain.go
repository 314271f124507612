package server

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/version"
	"github.com/papierkram/papierkram/web"
)

// registerPlain adds the routes outside the API proper: health, readiness, metrics, docs,
// and the catch-all that answers unknown paths with a problem.
func (s *Server) registerPlain() {
	s.mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok", "version": version.Version})
	})
	s.mux.HandleFunc("GET /ready", s.ready)
	metrics := promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{})
	s.mux.Handle("GET /metrics", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.cfg.MetricsPublic {
			k, err := s.authenticate(r.Context(), r.Header.Get("X-API-Key"))
			if err != nil {
				writeProblem(w, r, err)
				return
			}
			if !k.Admin() {
				writeProblem(w, r, fault.New(fault.Forbidden, "metrics need an admin key unless the server runs with --metrics-public"))
				return
			}
		}
		metrics.ServeHTTP(w, r)
	}))
	s.mux.HandleFunc("GET /docs", s.docs)
	// The workbench's page and files need no key: they hold no secret, and every API call
	// the page makes sends the key the user entered.
	wb := web.Handler(http.HandlerFunc(s.notFound))
	s.mux.Handle("GET /{$}", wb)
	s.mux.Handle("GET /app/", wb)
	s.mux.HandleFunc("/", s.notFound)
}

// ready reports whether the store and every engine can take work, and the instance is not
// draining (told to stop: a load balancer should send it nothing new).
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	checks := map[string]string{"instance": "ok"}
	ok := true
	if s.draining.Load() {
		checks["instance"], ok = "draining", false
	}
	if err := s.store.Ping(ctx); err != nil {
		checks["store"], ok = err.Error(), false
	} else {
		checks["store"] = "ok"
	}
	for name, e := range s.cfg.Engines {
		if err := e.Ready(ctx); err != nil {
			checks[name], ok = err.Error(), false
		} else {
			checks[name] = "ok"
		}
	}
	status, word := http.StatusOK, "ready"
	if !ok {
		status, word = http.StatusServiceUnavailable, "not ready"
	}
	writeJSON(w, status, map[string]any{"status": word, "checks": checks})
}

var methods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// notFound answers what no route matched: 405 when the path exists for another method, else
// 404, both as problems. Unknown API paths need a key first, so they reveal nothing.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, m := range methods {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "/" && pattern != "" {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) > 0 {
		slices.Sort(allowed)
		for _, m := range allowed {
			w.Header().Add("Allow", m)
		}
		writeProblem(w, r, fault.New(fault.MethodNotAllowed, "%s is not allowed on %s", r.Method, r.URL.Path))
		return
	}
	if _, err := s.authenticate(r.Context(), r.Header.Get("X-API-Key")); err != nil {
		writeProblem(w, r, err)
		return
	}
	writeProblem(w, r, fault.New(fault.NotFound, "no route %s %s", r.Method, r.URL.Path))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(v)
	w.Write(append(b, '\n'))
}
