package store

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"strings"
	"time"

	"github.com/papierkram/papierkram/fault"
)

// Plan decides a key's allowance and rights.
type Plan string

const (
	PlanFree      Plan = "free"      // 100 conversions per calendar month unless the key says otherwise
	PlanUnlimited Plan = "unlimited" // no conversion allowance
	PlanAdmin     Plan = "admin"     // unlimited, and may use the admin endpoints
)

// Valid reports whether p is a known plan.
func (p Plan) Valid() bool { return p == PlanFree || p == PlanUnlimited || p == PlanAdmin }

// DefaultFreeConversions is the free plan's monthly allowance (the spec's 100 per month).
const DefaultFreeConversions = 100

// Key is an API key as stored: never the secret itself, only its SHA-256.
type Key struct {
	ID        string
	Name      string
	Hash      [32]byte
	Plan      Plan
	Limit     int // monthly conversions; 0 means the plan's default; negative means unlimited
	CreatedAt time.Time
	RevokedAt *time.Time
}

// MonthlyConversions is the key's monthly allowance, or -1 for unlimited.
func (k *Key) MonthlyConversions() int {
	switch {
	case k.Limit < 0 || k.Plan == PlanUnlimited || k.Plan == PlanAdmin:
		if k.Limit > 0 {
			return k.Limit
		}
		return -1
	case k.Limit > 0:
		return k.Limit
	default:
		return DefaultFreeConversions
	}
}

// prepare checks a new key and fills what its creator may leave out (id, creation time),
// the same for every store.
func (k *Key) prepare() error {
	if !k.Plan.Valid() {
		return fault.New(fault.InvalidInput, "unknown plan %q (free, unlimited or admin)", k.Plan)
	}
	if k.ID == "" {
		k.ID = IDOf(k.Hash)
	}
	if k.CreatedAt.IsZero() {
		k.CreatedAt = time.Now().UTC()
	}
	return nil
}

// Admin reports whether the key may use the admin endpoints.
func (k *Key) Admin() bool { return k.Plan == PlanAdmin }

// Usage is one key's counters for one month and endpoint family.
type Usage struct {
	KeyID       string
	Month       string // YYYY-MM, UTC
	Family      string // e.g. "convert", "pdf-tools", "zugferd"
	Requests    int64
	Conversions int64
	Credits     int64
}

// Store is what the server needs to persist. Implementations are safe for concurrent use.
type Store interface {
	CreateKey(ctx context.Context, k *Key) error
	// KeyByHash returns the key whose hash equals h, or a fault.Unauthorized error.
	KeyByHash(ctx context.Context, h [32]byte) (*Key, error)
	Keys(ctx context.Context) ([]*Key, error)
	// RevokeKey marks the key revoked; a fault.NotFound error when there is none.
	RevokeKey(ctx context.Context, id string) error

	// CountRequest adds one request to the key's counters for month and family.
	CountRequest(ctx context.Context, keyID, month, family string) error
	// ReserveConversion takes one conversion of the key's monthly allowance, atomically.
	// limit < 0 means unlimited. It returns false, without counting, when the allowance is used up.
	ReserveConversion(ctx context.Context, keyID, month, family string, limit int) (bool, error)
	// ReleaseConversion gives back a reservation whose conversion failed.
	ReleaseConversion(ctx context.Context, keyID, month, family string) error
	// AddCredits counts language-model credits.
	AddCredits(ctx context.Context, keyID, month, family string, n int64) error
	// Usage lists counters for a month; keyID "" means every key.
	Usage(ctx context.Context, keyID, month string) ([]Usage, error)

	// PutCertificate stores a certificate; fault.Conflict when the key has one of that name.
	PutCertificate(ctx context.Context, c *Certificate) error
	// Certificate returns one with its data; fault.NotFound when there is none.
	Certificate(ctx context.Context, keyID, name string) (*Certificate, error)
	// Certificates lists a key's certificates without their data.
	Certificates(ctx context.Context, keyID string) ([]*Certificate, error)
	// DeleteCertificate removes one; fault.NotFound when there is none.
	DeleteCertificate(ctx context.Context, keyID, name string) error
	// SetCertificateInfo records what opening the file revealed (subject, issuer, validity).
	SetCertificateInfo(ctx context.Context, keyID, name, subject, issuer string, notBefore, notAfter time.Time) error

	// PutTemplate stores a template; fault.Conflict when the key has one of that name.
	PutTemplate(ctx context.Context, t *Template) error
	// Template returns one with its data; fault.NotFound when there is none.
	Template(ctx context.Context, keyID, name string) (*Template, error)
	// Templates lists a key's templates without their data, by name.
	Templates(ctx context.Context, keyID string) ([]*Template, error)
	// DeleteTemplate removes one; fault.NotFound when there is none.
	DeleteTemplate(ctx context.Context, keyID, name string) error

	// PutFont stores a font; fault.Conflict when the key has one of that name.
	PutFont(ctx context.Context, f *Font) error
	// Fonts lists a key's fonts by name, with their data when withData.
	Fonts(ctx context.Context, keyID string, withData bool) ([]*Font, error)
	// DeleteFont removes one; fault.NotFound when there is none.
	DeleteFont(ctx context.Context, keyID, name string) error

	Ping(ctx context.Context) error
	Close() error
}

// Font is an uploaded font of one API key.
type Font struct {
	KeyID, Name string
	Family      string
	Weight      int
	Italic      bool
	Format      string // truetype or opentype
	Data        []byte // empty in listings without data
	Size        int64
	SHA256      string
	UploadedAt  time.Time
}

// Template is a stored document template of one API key.
type Template struct {
	KeyID, Name string
	Kind        string // html, docx, xlsx or zip
	Data        []byte // empty in listings
	Size        int64
	SHA256      string
	UploadedAt  time.Time
}

// Certificate is a stored PKCS#12 file of one API key.
type Certificate struct {
	KeyID, Name         string
	Data                []byte // empty in listings
	Subject, Issuer     string // empty until the file has been opened with its password
	NotBefore, NotAfter *time.Time
	SHA256              string // of the file
	UploadedAt          time.Time
}

// keyPrefix marks Papierkram keys so that secret scanners and people recognise them.
const keyPrefix = "pk_"

// NewSecret returns a new random API key secret.
func NewSecret() string {
	var b [20]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("store: no randomness: " + err.Error()) // crypto/rand never fails on Linux
	}
	return keyPrefix + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// Hash is the stored form of a secret.
func Hash(secret string) [32]byte { return sha256.Sum256([]byte(secret)) }

// IDOf derives a key's public id from its hash: stable, short, and reveals nothing usable.
func IDOf(h [32]byte) string { return "key_" + hex.EncodeToString(h[:6]) }

// Equal compares two hashes in constant time.
func Equal(a, b [32]byte) bool { return subtle.ConstantTimeCompare(a[:], b[:]) == 1 }

// Month returns the usage month of t (UTC), YYYY-MM.
func Month(t time.Time) string { return t.UTC().Format("2006-01") }

// MonthReset returns the start of the month after t's (UTC): when a monthly allowance resets.
func MonthReset(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month()+1, 1, 0, 0, 0, 0, time.UTC)
}
