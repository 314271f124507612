// Package jobs runs work asynchronously for the API: a job is accepted at once, runs with
// bounded concurrency, is kept in memory for its retention time (the spec's 30 minutes)
// and then removed, and when it ends an optional webhook is delivered: a JSON POST signed
// with HMAC-SHA256 over the exact body, retried with backoff, sent only where the outbound
// network policy allows. Document generation uses it, and receipt extraction will.
package jobs
