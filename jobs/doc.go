// Package jobs runs work asynchronously for the API: a job is accepted at once, runs on a
// worker registered for its kind with bounded concurrency, is kept for its retention time
// (the spec's 30 minutes) and then removed, and when it ends an optional webhook is
// delivered: a JSON POST signed with HMAC-SHA256 over the exact body, with a delivery id
// that stays the same across retries, retried with backoff, sent only where the outbound
// network policy allows.
//
// Two queues implement one interface and pass one contract test: Memory keeps jobs in the
// process (beside the embedded SQLite store), River keeps them in PostgreSQL through River
// (beside the PostgreSQL store), where every instance answers for every job and a job
// whose instance died runs again on another. Because of River, work is not a closure but
// a kind, an input and parameters that any instance can run.
package jobs
