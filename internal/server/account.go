package server

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/store"
)

// Allowance is a key's conversion allowance for a month.
type Allowance struct {
	Limit     int       `json:"limit" doc:"Conversions allowed per calendar month (UTC); -1 means unlimited." example:"100"`
	Used      int64     `json:"used" doc:"Conversions used this month." example:"12"`
	Remaining int64     `json:"remaining" doc:"Conversions left this month; -1 means unlimited." example:"88"`
	ResetAt   time.Time `json:"resetAt" doc:"When the allowance resets: the start of the next month, UTC." example:"2026-12-01T00:00:00Z"`
}

// FamilyUsage is one endpoint family's counters.
type FamilyUsage struct {
	Family      string `json:"family" doc:"Endpoint family: the path segment after /api or /v1." example:"convert"`
	Requests    int64  `json:"requests" doc:"Authenticated requests." example:"40"`
	Conversions int64  `json:"conversions" doc:"Successful conversions (count against the allowance)." example:"12"`
	Credits     int64  `json:"credits" doc:"Language-model credits used." example:"0"`
}

// KeyUsage is one key's usage in a month.
type KeyUsage struct {
	KeyID       string        `json:"keyId" example:"key_3f9a1c2b7d4e"`
	Month       string        `json:"month" doc:"YYYY-MM, UTC." example:"2026-11"`
	Conversions Allowance     `json:"conversions"`
	Families    []FamilyUsage `json:"families"`
}

// Whoami answers GET /api/auth/validate.
type Whoami struct {
	Valid       bool      `json:"valid" doc:"Always true: an invalid key gets 401." example:"true"`
	KeyID       string    `json:"keyId" example:"key_3f9a1c2b7d4e"`
	Name        string    `json:"name" example:"accounting"`
	Plan        string    `json:"plan" enum:"free,unlimited,admin" example:"free"`
	Admin       bool      `json:"admin" example:"false"`
	Conversions Allowance `json:"conversions"`
}

// KeyInfo is a stored key as the admin endpoints show it: never the secret.
type KeyInfo struct {
	ID                 string     `json:"id" example:"key_3f9a1c2b7d4e"`
	Name               string     `json:"name" example:"accounting"`
	Plan               string     `json:"plan" enum:"free,unlimited,admin" example:"free"`
	MonthlyConversions int        `json:"monthlyConversions" doc:"Conversions per month; -1 unlimited." example:"100"`
	CreatedAt          time.Time  `json:"createdAt" example:"2026-11-22T10:00:00Z"`
	RevokedAt          *time.Time `json:"revokedAt,omitempty"`
}

// NewKey is the answer to key creation: the only time the secret is shown.
type NewKey struct {
	KeyInfo
	Key string `json:"key" doc:"The secret, for the X-API-Key header. Shown once; only its SHA-256 is stored." example:"pk_mfrggzdfmztwq2lknnwg23tpobyxe43u"`
}

type monthQuery struct {
	Month string `query:"month" pattern:"^[0-9]{4}-(0[1-9]|1[0-2])$" doc:"Month YYYY-MM (UTC); default the current one." example:"2026-11"`
}

func keyInfo(k *store.Key) KeyInfo {
	return KeyInfo{ID: k.ID, Name: k.Name, Plan: string(k.Plan), MonthlyConversions: k.MonthlyConversions(), CreatedAt: k.CreatedAt, RevokedAt: k.RevokedAt}
}

func (s *Server) usageOf(ctx context.Context, k *store.Key, month string) (*KeyUsage, error) {
	rows, err := s.store.Usage(ctx, k.ID, month)
	if err != nil {
		return nil, err
	}
	u := &KeyUsage{KeyID: k.ID, Month: month, Families: []FamilyUsage{}}
	for _, r := range rows {
		u.Families = append(u.Families, FamilyUsage{Family: r.Family, Requests: r.Requests, Conversions: r.Conversions, Credits: r.Credits})
		u.Conversions.Used += r.Conversions
	}
	u.Conversions.Limit = k.MonthlyConversions()
	u.Conversions.Remaining = -1
	if u.Conversions.Limit >= 0 {
		u.Conversions.Remaining = max(int64(u.Conversions.Limit)-u.Conversions.Used, 0)
	}
	t, err := time.Parse("2006-01", month)
	if err != nil {
		return nil, fault.New(fault.InvalidInput, "month %q is not YYYY-MM", month)
	}
	u.Conversions.ResetAt = store.MonthReset(t)
	return u, nil
}

func (s *Server) monthOr(m string) string {
	if m == "" {
		return store.Month(s.now())
	}
	return m
}

func (s *Server) registerAccount() {
	register(s, huma.Operation{
		OperationID: "validateKey", Method: http.MethodGet, Path: "/api/auth/validate", Tags: []string{"Authentication"},
		Summary: "Validate the API key",
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body Whoami }, error) {
		k := keyFrom(ctx)
		u, err := s.usageOf(ctx, k, store.Month(s.now()))
		if err != nil {
			return nil, err
		}
		return &struct{ Body Whoami }{Whoami{Valid: true, KeyID: k.ID, Name: k.Name, Plan: string(k.Plan), Admin: k.Admin(), Conversions: u.Conversions}}, nil
	})

	register(s, huma.Operation{
		OperationID: "getUsage", Method: http.MethodGet, Path: "/api/usage", Tags: []string{"Authentication"},
		Summary: "Usage of the calling key",
	}, func(ctx context.Context, in *monthQuery) (*struct{ Body *KeyUsage }, error) {
		u, err := s.usageOf(ctx, keyFrom(ctx), s.monthOr(in.Month))
		if err != nil {
			return nil, err
		}
		return &struct{ Body *KeyUsage }{u}, nil
	})

	type createKeyInput struct {
		Body struct {
			Name               string `json:"name" minLength:"1" maxLength:"100" doc:"A label for the key." example:"accounting"`
			Plan               string `json:"plan,omitempty" enum:"free,unlimited,admin" default:"free" doc:"free: 100 conversions per month unless monthlyConversions says otherwise; unlimited; admin: unlimited and may use /api/admin."`
			MonthlyConversions int    `json:"monthlyConversions,omitempty" minimum:"-1" doc:"Monthly conversion allowance; 0 = the plan's default, -1 = unlimited." example:"100"`
		}
	}
	register(s, huma.Operation{
		OperationID: "createKey", Method: http.MethodPost, Path: "/api/admin/keys", Tags: []string{"Administration"},
		Summary: "Create an API key", Description: "Creates a key and returns its secret once. Admin keys only.", DefaultStatus: http.StatusCreated,
	}, func(ctx context.Context, in *createKeyInput) (*struct{ Body NewKey }, error) {
		secret := store.NewSecret()
		plan := store.Plan(in.Body.Plan)
		if plan == "" {
			plan = store.PlanFree
		}
		k := &store.Key{Name: in.Body.Name, Hash: store.Hash(secret), Plan: plan, Limit: in.Body.MonthlyConversions}
		if err := s.store.CreateKey(ctx, k); err != nil {
			return nil, err
		}
		return &struct{ Body NewKey }{NewKey{KeyInfo: keyInfo(k), Key: secret}}, nil
	}, adminOnly())

	register(s, huma.Operation{
		OperationID: "listKeys", Method: http.MethodGet, Path: "/api/admin/keys", Tags: []string{"Administration"},
		Summary: "List API keys", Description: "Every stored key, revoked ones included; never the secrets. Admin keys only.",
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body []KeyInfo }, error) {
		keys, err := s.store.Keys(ctx)
		if err != nil {
			return nil, err
		}
		out := make([]KeyInfo, 0, len(keys))
		for _, k := range keys {
			out = append(out, keyInfo(k))
		}
		return &struct{ Body []KeyInfo }{out}, nil
	}, adminOnly())

	type keyPath struct {
		ID string `path:"id" maxLength:"64" doc:"The key id." example:"key_3f9a1c2b7d4e"`
	}
	register(s, huma.Operation{
		OperationID: "revokeKey", Method: http.MethodDelete, Path: "/api/admin/keys/{id}", Tags: []string{"Administration"},
		Summary: "Revoke an API key", Description: "The key stops working at once. Admin keys only.", DefaultStatus: http.StatusNoContent,
		Errors: []int{http.StatusNotFound},
	}, func(ctx context.Context, in *keyPath) (*struct{}, error) {
		return nil, s.store.RevokeKey(ctx, in.ID)
	}, adminOnly())

	register(s, huma.Operation{
		OperationID: "adminUsage", Method: http.MethodGet, Path: "/api/admin/usage", Tags: []string{"Administration"},
		Summary: "Usage of every key", Description: "Requests, conversions and credits of every key in a month. Admin keys only.",
	}, func(ctx context.Context, in *monthQuery) (*struct{ Body []*KeyUsage }, error) {
		month := s.monthOr(in.Month)
		keys, err := s.store.Keys(ctx)
		if err != nil {
			return nil, err
		}
		keys = append(keys, s.envKeys...)
		out := make([]*KeyUsage, 0, len(keys))
		for _, k := range keys {
			u, err := s.usageOf(ctx, k, month)
			if err != nil {
				return nil, err
			}
			out = append(out, u)
		}
		return &struct{ Body []*KeyUsage }{out}, nil
	}, adminOnly())
}
