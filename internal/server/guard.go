package server

import (
	"context"
	"net/http"

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
	ctx := hctx.Context()
	r.Body = http.MaxBytesReader(w, r.Body, meta.maxBody)

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
		next(hctx)
		// Only a conversion that succeeded uses the allowance.
		if hctx.Status() >= 400 {
			if err := s.store.ReleaseConversion(context.WithoutCancel(ctx), key.ID, month, meta.family); err != nil {
				logFrom(ctx).WarnContext(ctx, "conversion not released", "error", err)
			}
		}
		return
	}
	next(hctx)
}
