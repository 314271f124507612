package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/papierkram/papierkram/fault"

	_ "modernc.org/sqlite" // pure Go SQLite: the binary needs no C toolchain
)

// migrations are applied in order, each once, each in its own transaction.
// Append only: never edit a migration that has shipped.
var migrations = []string{
	// 1: keys and usage.
	`CREATE TABLE keys (
		id          TEXT PRIMARY KEY,
		name        TEXT NOT NULL,
		hash        BLOB NOT NULL UNIQUE,
		plan        TEXT NOT NULL,
		monthly     INTEGER NOT NULL DEFAULT 0,
		created_at  INTEGER NOT NULL,
		revoked_at  INTEGER
	);
	CREATE TABLE usage (
		key_id      TEXT NOT NULL,
		month       TEXT NOT NULL,
		family      TEXT NOT NULL,
		requests    INTEGER NOT NULL DEFAULT 0,
		conversions INTEGER NOT NULL DEFAULT 0,
		credits     INTEGER NOT NULL DEFAULT 0,
		PRIMARY KEY (key_id, month, family)
	);`,
	// 2: PKCS#12 files per key. The file is stored as uploaded: its private key stays
	// encrypted under the certificate password, which is never stored.
	`CREATE TABLE certificates (
		key_id      TEXT NOT NULL,
		name        TEXT NOT NULL,
		data        BLOB NOT NULL,
		subject     TEXT NOT NULL DEFAULT '',
		issuer      TEXT NOT NULL DEFAULT '',
		not_before  INTEGER,
		not_after   INTEGER,
		sha256      TEXT NOT NULL,
		uploaded_at INTEGER NOT NULL,
		PRIMARY KEY (key_id, name)
	);`,
	// 3: document templates per key (HTML, .docx, .xlsx, zip of HTML and assets).
	`CREATE TABLE templates (
		key_id      TEXT NOT NULL,
		name        TEXT NOT NULL,
		kind        TEXT NOT NULL,
		data        BLOB NOT NULL,
		sha256      TEXT NOT NULL,
		uploaded_at INTEGER NOT NULL,
		PRIMARY KEY (key_id, name)
	);`,
	// 4: fonts per key, with what their name table says.
	`CREATE TABLE fonts (
		key_id      TEXT NOT NULL,
		name        TEXT NOT NULL,
		family      TEXT NOT NULL,
		weight      INTEGER NOT NULL,
		italic      INTEGER NOT NULL,
		format      TEXT NOT NULL,
		data        BLOB NOT NULL,
		sha256      TEXT NOT NULL,
		uploaded_at INTEGER NOT NULL,
		PRIMARY KEY (key_id, name)
	);`,
}

// SQLite is the embedded Store.
type SQLite struct {
	db *sql.DB
}

// OpenSQLite opens (creating if needed) the database papierkram.db in dir and migrates it.
func OpenSQLite(ctx context.Context, dir string) (*SQLite, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("store: data dir: %w", err)
	}
	path := filepath.Join(dir, "papierkram.db")
	// WAL + synchronous NORMAL: a killed process loses no committed transaction (only a power
	// loss could lose the last ones). IMMEDIATE transactions take the write lock up front, so
	// concurrent writers wait on busy_timeout instead of failing mid-transaction.
	dsn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)" +
		"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	s := &SQLite{db: db}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// Only the service's user may read the store (keys are hashes, but certificates are in it).
	for _, f := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(f, 0o600); err != nil && !os.IsNotExist(err) {
			db.Close()
			return nil, fmt.Errorf("store: %w", err)
		}
	}
	return s, nil
}

func (s *SQLite) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		return fmt.Errorf("store: migrations table: %w", err)
	}
	var have int
	if err := s.db.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return fmt.Errorf("store: read schema version: %w", err)
	}
	if have > len(migrations) {
		return fmt.Errorf("store: database schema version %d is newer than this binary (%d)", have, len(migrations))
	}
	for v := have + 1; v <= len(migrations); v++ {
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("store: migration %d: %w", v, err)
		}
		if _, err := tx.ExecContext(ctx, migrations[v-1]); err != nil {
			tx.Rollback()
			return fmt.Errorf("store: migration %d: %w", v, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, v, time.Now().Unix()); err != nil {
			tx.Rollback()
			return fmt.Errorf("store: migration %d: %w", v, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("store: migration %d: %w", v, err)
		}
	}
	return nil
}

func (s *SQLite) CreateKey(ctx context.Context, k *Key) error {
	if err := k.prepare(); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO keys (id, name, hash, plan, monthly, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		k.ID, k.Name, k.Hash[:], string(k.Plan), k.Limit, k.CreatedAt.Unix())
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE") || strings.Contains(err.Error(), "PRIMARY KEY") {
			return fault.New(fault.Conflict, "that key exists already") // as the PostgreSQL store answers
		}
		return fmt.Errorf("store: create key: %w", err)
	}
	return nil
}

const keyColumns = `id, name, hash, plan, monthly, created_at, revoked_at`

func scanKey(row interface{ Scan(...any) error }) (*Key, error) {
	var (
		k       Key
		hash    []byte
		plan    string
		created int64
		revoked sql.NullInt64
	)
	if err := row.Scan(&k.ID, &k.Name, &hash, &plan, &k.Limit, &created, &revoked); err != nil {
		return nil, err
	}
	copy(k.Hash[:], hash)
	k.Plan = Plan(plan)
	k.CreatedAt = time.Unix(created, 0).UTC()
	if revoked.Valid {
		t := time.Unix(revoked.Int64, 0).UTC()
		k.RevokedAt = &t
	}
	return &k, nil
}

func (s *SQLite) KeyByHash(ctx context.Context, h [32]byte) (*Key, error) {
	k, err := scanKey(s.db.QueryRowContext(ctx, `SELECT `+keyColumns+` FROM keys WHERE hash = ?`, h[:]))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fault.New(fault.Unauthorized, "unknown API key")
	}
	if err != nil {
		return nil, fmt.Errorf("store: key lookup: %w", err)
	}
	// The index found the row by hash; compare again in constant time so that the check
	// itself never depends on how many bytes matched.
	if !Equal(k.Hash, h) {
		return nil, fault.New(fault.Unauthorized, "unknown API key")
	}
	return k, nil
}

func (s *SQLite) Keys(ctx context.Context) ([]*Key, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+keyColumns+` FROM keys ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("store: list keys: %w", err)
	}
	defer rows.Close()
	var keys []*Key
	for rows.Next() {
		k, err := scanKey(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list keys: %w", err)
		}
		keys = append(keys, k)
	}
	return keys, rows.Err()
}

func (s *SQLite) RevokeKey(ctx context.Context, id string) error {
	res, err := s.db.ExecContext(ctx, `UPDATE keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, time.Now().Unix(), id)
	if err != nil {
		return fmt.Errorf("store: revoke key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fault.New(fault.NotFound, "no key with id %q", id)
	}
	return nil
}

func (s *SQLite) CountRequest(ctx context.Context, keyID, month, family string) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO usage (key_id, month, family, requests) VALUES (?, ?, ?, 1)
		ON CONFLICT (key_id, month, family) DO UPDATE SET requests = requests + 1`, keyID, month, family)
	if err != nil {
		return fmt.Errorf("store: count request: %w", err)
	}
	return nil
}

func (s *SQLite) ReserveConversion(ctx context.Context, keyID, month, family string, limit int) (bool, error) {
	tx, err := s.db.BeginTx(ctx, nil) // IMMEDIATE (see the DSN): the count and the check are one step
	if err != nil {
		return false, fmt.Errorf("store: reserve conversion: %w", err)
	}
	defer tx.Rollback()
	if limit >= 0 {
		var used int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(conversions), 0) FROM usage WHERE key_id = ? AND month = ?`, keyID, month).Scan(&used); err != nil {
			return false, fmt.Errorf("store: reserve conversion: %w", err)
		}
		if used >= limit {
			return false, nil
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO usage (key_id, month, family, conversions) VALUES (?, ?, ?, 1)
		ON CONFLICT (key_id, month, family) DO UPDATE SET conversions = conversions + 1`, keyID, month, family); err != nil {
		return false, fmt.Errorf("store: reserve conversion: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("store: reserve conversion: %w", err)
	}
	return true, nil
}

func (s *SQLite) ReleaseConversion(ctx context.Context, keyID, month, family string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE usage SET conversions = MAX(conversions - 1, 0) WHERE key_id = ? AND month = ? AND family = ?`, keyID, month, family)
	if err != nil {
		return fmt.Errorf("store: release conversion: %w", err)
	}
	return nil
}

func (s *SQLite) AddCredits(ctx context.Context, keyID, month, family string, n int64) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO usage (key_id, month, family, credits) VALUES (?, ?, ?, ?)
		ON CONFLICT (key_id, month, family) DO UPDATE SET credits = credits + excluded.credits`, keyID, month, family, n)
	if err != nil {
		return fmt.Errorf("store: add credits: %w", err)
	}
	return nil
}

func (s *SQLite) Usage(ctx context.Context, keyID, month string) ([]Usage, error) {
	q := `SELECT key_id, month, family, requests, conversions, credits FROM usage WHERE month = ?`
	args := []any{month}
	if keyID != "" {
		q += ` AND key_id = ?`
		args = append(args, keyID)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY key_id, family`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: usage: %w", err)
	}
	defer rows.Close()
	var out []Usage
	for rows.Next() {
		var u Usage
		if err := rows.Scan(&u.KeyID, &u.Month, &u.Family, &u.Requests, &u.Conversions, &u.Credits); err != nil {
			return nil, fmt.Errorf("store: usage: %w", err)
		}
		out = append(out, u)
	}
	return out, rows.Err()
}

func (s *SQLite) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

func (s *SQLite) Close() error { return s.db.Close() }
