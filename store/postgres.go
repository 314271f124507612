package store

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/papierkram/papierkram/fault"
)

var _ Store = (*Postgres)(nil)

// Open opens the store the operator chose: the embedded SQLite database in dataDir when
// databaseURL is empty (the default, no server needed), PostgreSQL when it is a
// postgres:// or postgresql:// URL (several instances sharing one database).
func Open(ctx context.Context, databaseURL, dataDir string) (Store, error) {
	// Each branch returns a nil Store on error, never a nil *SQLite or *Postgres inside one.
	if databaseURL == "" {
		s, err := OpenSQLite(ctx, dataDir)
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	scheme, _, _ := strings.Cut(databaseURL, "://")
	switch strings.ToLower(scheme) {
	case "postgres", "postgresql":
		p, err := OpenPostgres(ctx, databaseURL)
		if err != nil {
			return nil, err
		}
		return p, nil
	}
	// Not the URL itself: it may hold a password, and errors end up in logs.
	return nil, fault.New(fault.InvalidInput, "the database URL must start with postgres:// or postgresql://")
}

// postgresMigrationFiles hold the PostgreSQL schema, one file per version (NNNN_what.sql),
// applied in order, each once. Append only: never edit a migration that has shipped.
//
//go:embed migrations/postgres/*.sql
var postgresMigrationFiles embed.FS

// postgresMigrations is the embedded schema in version order; index i is version i+1.
var postgresMigrations = mustLoadMigrations(postgresMigrationFiles, "migrations/postgres")

func mustLoadMigrations(fsys fs.FS, dir string) []string {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		panic("store: embedded migrations: " + err.Error())
	}
	var out []string
	for _, e := range entries { // ReadDir sorts by name, and the names start with the version
		num, _, _ := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if err != nil || v != len(out)+1 {
			panic(fmt.Sprintf("store: migration %s: want version %d first in its name", e.Name(), len(out)+1))
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			panic("store: embedded migrations: " + err.Error())
		}
		out = append(out, string(b))
	}
	return out
}

// migrationLock is the pg_advisory_xact_lock key that serialises schema migrations of
// instances starting at the same time ("papi" "mig" in ASCII; any constant would do as
// long as it never changes).
const migrationLock int64 = 0x7061706900_6d6967

// Postgres is the Store for several instances sharing one PostgreSQL database: keys,
// counters and files all live in the database, so any instance answers for any key.
type Postgres struct {
	pool *pgxpool.Pool
}

// OpenPostgres connects to the database at url (postgres://user:password@host:port/db?...,
// or the key=value form) and migrates it. Two instances may open the same database at
// once: migrations take a transaction-scoped advisory lock.
func OpenPostgres(ctx context.Context, url string) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// The parser's message may quote the URL, password included (pgx redacts on a
		// best-effort basis only), and errors end up in logs: say what is wrong, not what it was.
		return nil, fault.New(fault.InvalidInput, "the database URL cannot be parsed; expected postgres://user:password@host:port/database")
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "papierkram" // shows in pg_stat_activity
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: connect to PostgreSQL: %w", err)
	}
	p := &Postgres{pool: pool}
	// The pool connects lazily; fail at start, not at the first request, when the database
	// cannot be reached.
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: connect to PostgreSQL: %w", err)
	}
	if err := p.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return p, nil
}

// migrate applies the missing migrations, one transaction each. Each transaction first takes
// the advisory lock and only then looks at the schema version, so an instance that waited for
// another sees its work and does not repeat it; DDL is transactional in PostgreSQL, so a
// failed migration leaves no half-made tables behind.
func (p *Postgres) migrate(ctx context.Context) error {
	for {
		done, err := p.migrateOne(ctx)
		if err != nil || done {
			return err
		}
	}
}

func (p *Postgres) migrateOne(ctx context.Context) (done bool, err error) {
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return false, fmt.Errorf("store: migrate: %w", err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
		return false, fmt.Errorf("store: migration lock: %w", err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL)`); err != nil {
		return false, fmt.Errorf("store: migrations table: %w", err)
	}
	var have int
	if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&have); err != nil {
		return false, fmt.Errorf("store: read schema version: %w", err)
	}
	if have > len(postgresMigrations) {
		return false, fmt.Errorf("store: database schema version %d is newer than this binary (%d)", have, len(postgresMigrations))
	}
	if have == len(postgresMigrations) {
		return true, tx.Commit(ctx)
	}
	v := have + 1
	// Exec without arguments uses the simple protocol, which runs a file of several statements.
	if _, err := tx.Exec(ctx, postgresMigrations[v-1]); err != nil {
		return false, fmt.Errorf("store: migration %d: %w", v, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, now())`, v); err != nil {
		return false, fmt.Errorf("store: migration %d: %w", v, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, fmt.Errorf("store: migration %d: %w", v, err)
	}
	return false, nil
}

// pgError maps the PostgreSQL errors a caller can cause to fault codes, as the SQLite
// implementation does; anything else stays an internal error with its cause.
func pgError(err error, doing string) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "22021", "22P05": // character_not_in_repertoire, untranslatable_character
			// SQLite stores any bytes; PostgreSQL text refuses NUL and invalid UTF-8, which
			// only a caller's input (e.g. a font's name table) can bring.
			return fault.Wrap(fault.InvalidInput, err, "%s: the text holds a NUL byte or is not UTF-8", doing)
		}
	}
	return fmt.Errorf("store: %s: %w", doing, err)
}

// isUniqueViolation reports whether err is PostgreSQL's unique_violation.
func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505"
}

// pgTime is what a timestamp column holds for t: whole seconds, like SQLite's Unix times,
// so that both stores give back the same values.
func pgTime(t time.Time) time.Time { return t.UTC().Truncate(time.Second) }

func pgTimeOrNil(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := pgTime(*t)
	return &u
}

func utcOrNil(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// nonNil keeps an empty file an empty bytea: pgx sends a nil slice as NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func (p *Postgres) CreateKey(ctx context.Context, k *Key) error {
	if err := k.prepare(); err != nil {
		return err
	}
	_, err := p.pool.Exec(ctx, `INSERT INTO keys (id, name, hash, plan, monthly, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		k.ID, k.Name, k.Hash[:], string(k.Plan), int64(k.Limit), pgTime(k.CreatedAt))
	if isUniqueViolation(err) {
		return fault.Wrap(fault.Conflict, err, "a key with this id or secret exists already")
	}
	if err != nil {
		return pgError(err, "create key")
	}
	return nil
}

func scanPgKey(row pgx.Row) (*Key, error) {
	var (
		k       Key
		hash    []byte
		plan    string
		limit   int64
		created time.Time
		revoked *time.Time
	)
	if err := row.Scan(&k.ID, &k.Name, &hash, &plan, &limit, &created, &revoked); err != nil {
		return nil, err
	}
	copy(k.Hash[:], hash)
	k.Plan = Plan(plan)
	k.Limit = int(limit)
	k.CreatedAt = created.UTC()
	k.RevokedAt = utcOrNil(revoked)
	return &k, nil
}

func (p *Postgres) KeyByHash(ctx context.Context, h [32]byte) (*Key, error) {
	k, err := scanPgKey(p.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM keys WHERE hash = $1`, h[:]))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fault.New(fault.Unauthorized, "unknown API key")
	}
	if err != nil {
		return nil, pgError(err, "key lookup")
	}
	// As in SQLite: the index found the row; the check itself is constant-time.
	if !Equal(k.Hash, h) {
		return nil, fault.New(fault.Unauthorized, "unknown API key")
	}
	return k, nil
}

func (p *Postgres) Keys(ctx context.Context) ([]*Key, error) {
	rows, err := p.pool.Query(ctx, `SELECT `+keyColumns+` FROM keys ORDER BY created_at, id`)
	if err != nil {
		return nil, pgError(err, "list keys")
	}
	defer rows.Close()
	var keys []*Key
	for rows.Next() {
		k, err := scanPgKey(rows)
		if err != nil {
			return nil, pgError(err, "list keys")
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return nil, pgError(err, "list keys")
	}
	return keys, nil
}

func (p *Postgres) RevokeKey(ctx context.Context, id string) error {
	tag, err := p.pool.Exec(ctx, `UPDATE keys SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2`, pgTime(time.Now()), id)
	if err != nil {
		return pgError(err, "revoke key")
	}
	if tag.RowsAffected() == 0 {
		return fault.New(fault.NotFound, "no key with id %q", id)
	}
	return nil
}

func (p *Postgres) CountRequest(ctx context.Context, keyID, month, family string) error {
	_, err := p.pool.Exec(ctx, `INSERT INTO usage (key_id, month, family, requests) VALUES ($1, $2, $3, 1)
		ON CONFLICT (key_id, month, family) DO UPDATE SET requests = usage.requests + 1`, keyID, month, family)
	if err != nil {
		return pgError(err, "count request")
	}
	return nil
}

// reserveSQL is one statement, so that no other instance can act between the check and the
// count. ON CONFLICT DO UPDATE locks the key's month total and evaluates its WHERE on the
// newest committed version of that row, so concurrent reservations queue on the row lock and
// each sees the one before. The family row is counted only when the total was (a data-modifying
// CTE that returns no row makes the outer INSERT insert nothing). The first reservation of a
// month inserts the total without a conflict, hence the limit check in its SELECT as well.
const reserveSQL = `WITH total AS (
	INSERT INTO conversion_totals AS t (key_id, month, conversions)
	SELECT $1, $2, 1 WHERE $4::bigint <> 0
	ON CONFLICT (key_id, month) DO UPDATE SET conversions = t.conversions + 1
	WHERE $4::bigint < 0 OR t.conversions < $4::bigint
	RETURNING 1
)
INSERT INTO usage AS u (key_id, month, family, conversions)
SELECT $1, $2, $3, 1 FROM total
ON CONFLICT (key_id, month, family) DO UPDATE SET conversions = u.conversions + 1
RETURNING 1`

func (p *Postgres) ReserveConversion(ctx context.Context, keyID, month, family string, limit int) (bool, error) {
	var one int
	err := p.pool.QueryRow(ctx, reserveSQL, keyID, month, family, int64(limit)).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, pgError(err, "reserve conversion")
	}
	return true, nil
}

// ReleaseConversion gives back one conversion of the family and of the month total together,
// and neither when the family has none to give (as SQLite's MAX(conversions - 1, 0)). It is a
// transaction that locks the total first, as ReserveConversion's statement does: the same lock
// order rules out deadlocks, and the lock makes the family's count it reads the current one.
func (p *Postgres) ReleaseConversion(ctx context.Context, keyID, month, family string) error {
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT 1 FROM conversion_totals WHERE key_id = $1 AND month = $2 FOR UPDATE`, keyID, month); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE usage SET conversions = conversions - 1
			WHERE key_id = $1 AND month = $2 AND family = $3 AND conversions > 0`, keyID, month, family)
		if err != nil || tag.RowsAffected() == 0 {
			return err
		}
		_, err = tx.Exec(ctx, `UPDATE conversion_totals SET conversions = conversions - 1
			WHERE key_id = $1 AND month = $2 AND conversions > 0`, keyID, month)
		return err
	})
	if err != nil {
		return pgError(err, "release conversion")
	}
	return nil
}

func (p *Postgres) AddCredits(ctx context.Context, keyID, month, family string, n int64) error {
	_, err := p.pool.Exec(ctx, `INSERT INTO usage (key_id, month, family, credits) VALUES ($1, $2, $3, $4)
		ON CONFLICT (key_id, month, family) DO UPDATE SET credits = usage.credits + excluded.credits`, keyID, month, family, n)
	if err != nil {
		return pgError(err, "add credits")
	}
	return nil
}

func (p *Postgres) Usage(ctx context.Context, keyID, month string) ([]Usage, error) {
	q := `SELECT key_id, month, family, requests, conversions, credits FROM usage WHERE month = $1`
	args := []any{month}
	if keyID != "" {
		q += ` AND key_id = $2`
		args = append(args, keyID)
	}
	rows, err := p.pool.Query(ctx, q+` ORDER BY key_id, family`, args...)
	if err != nil {
		return nil, pgError(err, "usage")
	}
	defer rows.Close()
	var out []Usage
	for rows.Next() {
		var u Usage
		if err := rows.Scan(&u.KeyID, &u.Month, &u.Family, &u.Requests, &u.Conversions, &u.Credits); err != nil {
			return nil, pgError(err, "usage")
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, pgError(err, "usage")
	}
	return out, nil
}

func (p *Postgres) Ping(ctx context.Context) error { return p.pool.Ping(ctx) }

// Close waits for the connections in use to be returned, then closes them all.
func (p *Postgres) Close() error {
	p.pool.Close()
	return nil
}
