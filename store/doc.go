// Package store keeps Papierkram's little state: API keys (hashed), usage counters, and the
// files later capabilities store per key (certificates, templates, fonts).
//
// Two implementations of Store, one contract (store_test.go runs every test against both):
//
//   - SQLite (OpenSQLite), the default: an embedded database (pure Go, no cgo) in the data
//     directory, so that one instance needs no server. WAL mode, so that a process killed
//     mid-request loses no committed write.
//   - PostgreSQL (OpenPostgres, with pgx), for several instances behind a load balancer:
//     they share the database and nothing else, so file data lives in bytea columns, and a
//     conversion is reserved in one statement, so that a key's allowance holds across
//     instances. Instances starting together migrate the schema once, under an advisory lock.
//
// Open picks one from the operator's database URL (--database-url; empty means SQLite).
// Each keeps a schema_migrations table and applies its numbered migrations in order
// (SQLite's in sqlite.go, PostgreSQL's in migrations/postgres), refusing a schema newer than
// the binary.
//
// WriteFileAtomic writes a file so that readers see the old or the whole new one: temporary
// file, synced, then renamed.
package store
