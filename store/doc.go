// Package store keeps Papierkram's little state: API keys (hashed), usage counters, and the
// files later capabilities store per key (certificates, templates, fonts).
//
// The default implementation is an embedded SQLite database (pure Go, no cgo) in the data
// directory, in WAL mode so that a process killed mid-request loses no committed write.
// Files are written atomically: to a temporary file, synced, then renamed.
package store
