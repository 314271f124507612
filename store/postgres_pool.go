package store

import "github.com/jackc/pgx/v5/pgxpool"

// Pool is the store's connection pool, for the durable job queue (jobs.NewRiver) that
// lives in the same database.
func (p *Postgres) Pool() *pgxpool.Pool { return p.pool }
