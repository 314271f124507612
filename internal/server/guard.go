package server

import (
	"context"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/store"
)

// routeMeta is what the guard needs to know about an operation.
type routeMeta struct {
	family     string // usage family: the first path segment after /api or /v1
	conversion bool   // each success uses one conversion of the monthly allowance
	admin      bool   // only admin keys
	maxBody    int64  // request body limit
	heavy      bool   // runs an engine or signs: counts against the key's rate limit
}

const metaKey = "papierkram"

func metaOf(op *huma.Operation) *routeMeta {
	if m, ok := op.Metadata[metaKey].(*routeMeta); ok {
		return m
	}
	return &routeMeta{family: "other", maxBody: maxJSONBody}
}

// authenticate finds the key for secret: operator keys from the environment first, then the
// store. Both compare SHA-256 hashes in constant time; the secret is never logged or stored.
func (s *Server) authenticate(ctx context.Context, secret string) (*store.Key, error) {
	if secret == "" {
		return nil, fault.New(fault.Unauthorized, "the X-API-Key header is missing")
	}
	h := store.Hash(secret)
	var found *store.Key
	for _, k := range s.envKeys { // no early exit: the time taken does not tell which key matched
		if store.Equal(k.Hash, h) {
			found = k
		}
	}
	if found != nil {
		return found, nil
	}
	k, err := s.store.KeyByHash(ctx, h)
	if err != nil {
		if fault.Is(err, fault.Unauthorized) {
			return nil, fault.New(fault.Unauthorized, "the API key is not valid")
		}
		return nil, err
	}
	if k.RevokedAt != nil {
		return nil, fault.New(fault.Unauthorized, "the API key has been revoked")
	}
	return k, nil
}

// guard runs before every API operation: body limit, authentication, admin check, quota,
// and usage counting after the handler.
func (s *Server) guard(hctx huma.Context, next func(huma.Context)) {
	op := hctx.Operation()
	meta := metaOf(op)
	r, w := humago.Unwrap(hctx)
	r.Body = http.MaxBytesReader(w, r.Body, meta.maxBody)
	// No work outlives the time its answer could still be written: in-process work (parsing,
	// validating) and engine jobs end with this context, as they do when the client goes.
	ctx, cancel := context.WithTimeout(hctx.Context(), workTimeout(s.cfg.WriteTimeout))
	defer cancel()
	hctx = huma.WithContext(hctx, ctx)

	key, err := s.authenticate(ctx, r.Header.Get("X-API-Key"))
	if err != nil {
		huma.WriteErr(s.api, hctx, http.StatusUnauthorized, "", err)
		return
	}
	if ri := requestInfoFrom(ctx); ri != nil {
		ri.key = key
		ri.log = ri.log.With("keyId", key.ID)
	}
	if meta.admin && !key.Admin() {
		huma.WriteErr(s.api, hctx, http.StatusForbidden, "", fault.New(fault.Forbidden, "this endpoint needs an admin key"))
		return
	}

	now := s.now()
	month := store.Month(now)
	if err := s.store.CountRequest(ctx, key.ID, month, meta.family); err != nil {
		logFrom(ctx).WarnContext(ctx, "usage not counted", "error", err)
	}
	if meta.heavy {
		if wait, ok := s.limiter.take(key, now, 1); !ok {
			huma.WriteErr(s.api, hctx, http.StatusTooManyRequests, "", s.limiter.rateLimited(wait))
			return
		}
	}
	if meta.conversion {
		limit := key.MonthlyConversions()
		ok, err := s.store.ReserveConversion(ctx, key.ID, month, meta.family, limit)
		if err != nil {
			huma.WriteErr(s.api, hctx, http.StatusInternalServerError, "", err)
			return
		}
		if !ok {
			reset := store.MonthReset(now)
			huma.WriteErr(s.api, hctx, http.StatusTooManyRequests, "", fault.New(fault.QuotaExceeded,
				"the monthly allowance of %d conversions is used up; it resets at %s", limit, reset.Format("2006-01-02T15:04:05Z")).
				With("limit", limit).With("resetAt", reset).With("retryAfterSeconds", int64(reset.Sub(now).Seconds())+1))
			return
		}
		h := &hold{s: s, log: logFrom(ctx), keyID: key.ID, month: month, family: meta.family}
		next(huma.WithValue(hctx, holdKey{}, h))
		// Only a conversion that succeeded uses the allowance; one handed to a background
		// job is the job's to give back.
		if hctx.Status() >= 400 && !h.handed.Load() {
			h.release(ctx)
		}
		return
	}
	next(hctx)
}

// workTimeout is how long a request's work may run: its response's write deadline, less a
// margin to write the problem that says it ran out.
func workTimeout(write time.Duration) time.Duration {
	return write - min(5*time.Second, write/10)
}

// hold is a request's reservation of one conversion.
type hold struct {
	s                    *Server
	log                  *slog.Logger
	keyID, month, family string
	handed               atomic.Bool
}

type holdKey struct{}

func (h *hold) release(ctx context.Context) {
	if err := h.s.store.ReleaseConversion(context.WithoutCancel(ctx), h.keyID, h.month, h.family); err != nil {
		h.log.WarnContext(ctx, "conversion not released", "error", err)
	}
}

// handOff passes the request's conversion to background work (an asynchronous job): the
// request's answer (202) no longer decides; the job gives the conversion back if it fails,
// so that only documents actually made use the allowance. The refund is data, not a
// closure, because the job may run on another instance. Outside a conversion it is nil.
func handOff(ctx context.Context) *refund {
	h, _ := ctx.Value(holdKey{}).(*hold)
	if h == nil || !h.handed.CompareAndSwap(false, true) {
		return nil
	}
	return &refund{Month: h.month, Family: h.family}
}

// refund is a conversion reserved for a job, to give back when the job fails.
type refund struct {
	Month  string `json:"month"`
	Family string `json:"family"`
}

// giveBack returns a failed job's conversion to its key's allowance.
func (s *Server) giveBack(ctx context.Context, keyID string, r *refund) {
	if r == nil {
		return
	}
	if err := s.store.ReleaseConversion(context.WithoutCancel(ctx), keyID, r.Month, r.Family); err != nil {
		s.log.WarnContext(ctx, "conversion not released", "keyId", keyID, "error", err)
	}
}
