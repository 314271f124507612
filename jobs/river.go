package jobs

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/papierkram/papierkram/fault"
)

// River is the durable queue of several instances sharing one PostgreSQL database: River
// (riverqueue/river) schedules, retries and rescues the work, our table papierkram_jobs
// (store migration 5) holds inputs and results. Any instance answers for any job, a job
// whose instance died runs again elsewhere, and a webhook is River's job of its own,
// enqueued in the transaction that records the outcome, so each outcome is reported once
// and its retries carry one delivery id.
type River struct {
	o       Options
	pool    *pgxpool.Pool
	client  *river.Client[pgx.Tx]
	http    *http.Client
	closing atomic.Bool
}

var _ Queue = (*River)(nil)

// runArgs is River's job for one of ours: only the id, the rest is in papierkram_jobs.
type runArgs struct {
	JobID string `json:"jobId"`
}

func (runArgs) Kind() string { return "papierkram_run" }

// hookArgs is one webhook delivery; DeliveryID is fixed when the outcome is recorded, so
// River's retries of it repeat the same id.
type hookArgs struct {
	JobID      string `json:"jobId"`
	DeliveryID string `json:"deliveryId"`
}

func (hookArgs) Kind() string { return "papierkram_webhook" }

// riverMigrationLock serialises River's schema migration among instances starting at once
// ("papi" "rivr"; a constant that never changes).
const riverMigrationLock int64 = 0x70617069_72697672

// runAttempts bounds how often a job is started: the runs after the first are rescues of
// a job whose instance died or stopped mid-run.
const runAttempts = 5

// NewRiver migrates River's tables, starts a River client on pool and returns the queue.
// The store's migrations must have run (they make papierkram_jobs).
func NewRiver(ctx context.Context, pool *pgxpool.Pool, o Options) (*River, error) {
	o.defaults()
	q := &River{o: o, pool: pool, http: o.Network.Client(30 * time.Second)}
	if err := q.migrate(ctx); err != nil {
		return nil, err
	}
	workers := river.NewWorkers()
	river.AddWorker(workers, &runWorker{q: q})
	river.AddWorker(workers, &hookWorker{q: q})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:                      map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: o.Concurrency}},
		Workers:                     workers,
		JobTimeout:                  o.Timeout,
		RescueStuckJobsAfter:        o.Timeout + o.RescueAfter,
		CompletedJobRetentionPeriod: o.Retention,
		Logger:                      o.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("jobs: river: %w", err)
	}
	q.client = client // before Start: workers use it from their first job on
	if err := client.Start(context.WithoutCancel(ctx)); err != nil {
		return nil, fmt.Errorf("jobs: river: start: %w", err)
	}
	return q, nil
}

func (q *River) migrate(ctx context.Context) error {
	var ok bool
	if err := q.pool.QueryRow(ctx, `SELECT to_regclass('papierkram_jobs') IS NOT NULL`).Scan(&ok); err != nil {
		return fmt.Errorf("jobs: %w", err)
	}
	if !ok {
		return errors.New("jobs: the table papierkram_jobs is missing: open the store (its migrations make it) first")
	}
	m, err := rivermigrate.New(riverpgxv5.New(q.pool), &rivermigrate.Config{Logger: q.o.Logger})
	if err != nil {
		return fmt.Errorf("jobs: river migrations: %w", err)
	}
	// River's migrations cannot share one transaction (one adds an enum value the next
	// uses), so the lock is a session lock held on a connection of its own while River
	// migrates through the others.
	conn, err := q.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("jobs: river migrations: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, riverMigrationLock); err != nil {
		return fmt.Errorf("jobs: river migration lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, riverMigrationLock)
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("jobs: river migrations: %w", err)
	}
	return nil
}

// Close lets running jobs finish until ctx ends, then cancels them: River puts a cancelled
// job back, and another instance (or this one, restarted) runs it again.
func (q *River) Close(ctx context.Context) error {
	q.closing.Store(true)
	if err := q.client.Stop(ctx); err != nil {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return q.client.StopAndCancel(stopCtx)
	}
	return nil
}

// CheckWebhook implements Queue.
func (q *River) CheckWebhook(ctx context.Context, w *Webhook) error {
	return checkWebhook(ctx, q.o.Network, w)
}

// Submit implements Queue: the row and River's job are inserted in one transaction.
func (q *River) Submit(ctx context.Context, s Submission) (Job, error) {
	if err := checkSubmission(&q.o, &s); err != nil {
		return Job{}, err
	}
	now := q.o.Now().UTC().Truncate(time.Microsecond) // PostgreSQL's precision
	j := Job{ID: newID("job_"), Status: Queued, Filename: s.Filename, Created: now, ExpiresAt: now.Add(q.o.Retention)}
	var hook Webhook
	if s.Hook != nil {
		hook = *s.Hook
	}
	input := s.Input
	if input == nil {
		input = []byte{}
	}
	err := pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
		// Expired jobs go when new ones come: no sweeper to run, and Get ignores them anyway.
		// A job left running by instances that all died goes a day later.
		if _, err := tx.Exec(ctx, `DELETE FROM papierkram_jobs
			WHERE expires_at < $1 AND (status IN ('completed', 'failed') OR expires_at < $1 - interval '1 day')`, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO papierkram_jobs (id, owner, kind, filename, status, input, params, created_at, expires_at, hook_url, hook_secret, hook_event)
			VALUES ($1, $2, $3, $4, 'queued', $5, $6, $7, $8, $9, $10, $11)`,
			j.ID, s.Owner, s.Kind, s.Filename, input, string(s.Params), now, j.ExpiresAt, hook.URL, hook.Secret, hook.Event); err != nil {
			return err
		}
		_, err := q.client.InsertTx(ctx, tx, runArgs{JobID: j.ID}, &river.InsertOpts{MaxAttempts: runAttempts})
		return err
	})
	if err != nil {
		return Job{}, fault.Wrap(fault.Internal, err, "jobs: submit")
	}
	return j, nil
}

// Get implements Queue.
func (q *River) Get(ctx context.Context, owner, id string) (Job, error) {
	j, _, err := q.get(ctx, owner, id, false)
	return j, err
}

// Result implements Queue.
func (q *River) Result(ctx context.Context, owner, id string) (Result, error) {
	j, res, err := q.get(ctx, owner, id, true)
	if err != nil {
		return Result{}, err
	}
	return resultOf(j, res)
}

func (q *River) get(ctx context.Context, owner, id string, withResult bool) (Job, Result, error) {
	var (
		j       = Job{ID: id}
		res     Result
		summary []byte
	)
	// The result bytes are read only when asked for: polling stays cheap.
	err := q.pool.QueryRow(ctx, `SELECT status, filename, duration_ms, error, created_at, expires_at,
			CASE WHEN $4 THEN result END, content_type, summary
		FROM papierkram_jobs
		WHERE id = $1 AND owner = $2 AND NOT (expires_at < $3 AND status IN ('completed', 'failed'))`,
		id, owner, q.o.Now(), withResult).Scan(&j.Status, &j.Filename, &j.DurationMs, &j.Error, &j.Created, &j.ExpiresAt, &res.Data, &res.ContentType, &summary)
	if errors.Is(err, pgx.ErrNoRows) {
		return Job{}, Result{}, notFound(id, q.o.Retention)
	}
	if err != nil {
		return Job{}, Result{}, fault.Wrap(fault.Internal, err, "jobs: read job")
	}
	j.Created, j.ExpiresAt = j.Created.UTC(), j.ExpiresAt.UTC()
	res.Summary = summary
	return j, res, nil
}

// runWorker runs one of our jobs on River.
type runWorker struct {
	river.WorkerDefaults[runArgs]
	q *River
}

func (w *runWorker) Work(ctx context.Context, rj *river.Job[runArgs]) error {
	q := w.q
	var (
		info   = Info{ID: rj.Args.JobID}
		status string
		input  []byte
		params []byte
	)
	err := q.pool.QueryRow(ctx, `UPDATE papierkram_jobs SET status = 'running', started_at = $2
		WHERE id = $1 AND status IN ('queued', 'running')
		RETURNING owner, kind, filename, status, input, params`, info.ID, q.o.Now()).
		Scan(&info.Owner, &info.Kind, &info.Filename, &status, &input, &params)
	if errors.Is(err, pgx.ErrNoRows) {
		// Already ended (a rescued run of a finished job) or expired: nothing to do.
		return q.complete(ctx, rj, nil)
	}
	if err != nil {
		return fmt.Errorf("jobs: start %s: %w", info.ID, err)
	}
	start := q.o.Now()
	res, werr := run(ctx, q.o.Workers[info.Kind], info, input, params)
	if werr != nil && q.closing.Load() && ctx.Err() != nil {
		// This instance is stopping: River puts the job back for another run.
		return werr
	}
	return q.complete(ctx, rj, &outcome{job: info, res: res, err: werr, took: q.o.Now().Sub(start)})
}

func (w *runWorker) Timeout(*river.Job[runArgs]) time.Duration { return w.q.o.Timeout }

type outcome struct {
	job  Info
	res  Result
	err  error
	took time.Duration
}

// complete records an outcome, enqueues its webhook and completes River's job, all in one
// transaction: a run that dies before the commit leaves no trace and runs again, and an
// outcome already recorded (by an earlier run thought dead) is not recorded twice.
func (q *River) complete(ctx context.Context, rj *river.Job[runArgs], o *outcome) error {
	// The job's own deadline may have passed: the outcome is written regardless.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	return pgx.BeginFunc(ctx, q.pool, func(tx pgx.Tx) error {
		if o != nil {
			status, errText, summary := Completed, "", []byte(o.res.Summary)
			if o.err != nil {
				status, errText, summary, o.res = Failed, errorText(o.err), nil, Result{}
			}
			if len(summary) == 0 {
				summary = nil
			}
			var hook string
			err := tx.QueryRow(ctx, `UPDATE papierkram_jobs
				SET status = $2, error = $3, result = $4, content_type = $5, summary = $6, duration_ms = $7, input = ''::bytea
				WHERE id = $1 AND status NOT IN ('completed', 'failed')
				RETURNING hook_url`,
				o.job.ID, status, errText, o.res.Data, o.res.ContentType, summary, o.took.Milliseconds()).Scan(&hook)
			switch {
			case errors.Is(err, pgx.ErrNoRows):
				// Recorded before, or expired meanwhile.
			case err != nil:
				return fmt.Errorf("jobs: record %s: %w", o.job.ID, err)
			case hook != "":
				if _, err := q.client.InsertTx(ctx, tx, hookArgs{JobID: o.job.ID, DeliveryID: newID("dlv_")},
					&river.InsertOpts{MaxAttempts: len(q.o.Retries) + 1}); err != nil {
					return fmt.Errorf("jobs: enqueue webhook of %s: %w", o.job.ID, err)
				}
			}
		}
		_, err := river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, rj)
		return err
	})
}

// hookWorker delivers one webhook; River retries it on the queue's schedule.
type hookWorker struct {
	river.WorkerDefaults[hookArgs]
	q *River
}

func (w *hookWorker) Work(ctx context.Context, rj *river.Job[hookArgs]) error {
	q := w.q
	var (
		j       = Job{ID: rj.Args.JobID}
		hook    Webhook
		summary []byte
	)
	err := q.pool.QueryRow(ctx, `SELECT status, filename, duration_ms, error, summary, hook_url, hook_secret, hook_event
		FROM papierkram_jobs WHERE id = $1`, j.ID).
		Scan(&j.Status, &j.Filename, &j.DurationMs, &j.Error, &summary, &hook.URL, &hook.Secret, &hook.Event)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil // expired: nothing left to report
	}
	if err != nil {
		return err
	}
	body, err := payload(j, hook.Event, summary, rj.Args.DeliveryID)
	if err != nil {
		return river.JobCancel(err)
	}
	if err := post(ctx, q.http, hook, rj.Args.DeliveryID, body); err != nil {
		if rj.Attempt >= rj.MaxAttempts {
			q.o.Logger.Warn("webhook not delivered", "jobId", j.ID, "deliveryId", rj.Args.DeliveryID, "attempts", rj.Attempt, "error", err)
		}
		return err
	}
	return nil
}

// NextRetry follows the queue's webhook schedule (Options.Retries) instead of River's
// exponential default.
func (w *hookWorker) NextRetry(rj *river.Job[hookArgs]) time.Time {
	r := w.q.o.Retries
	if len(r) == 0 {
		return time.Now()
	}
	return time.Now().Add(r[min(max(rj.Attempt-1, 0), len(r)-1)])
}

func (w *hookWorker) Timeout(*river.Job[hookArgs]) time.Duration { return 40 * time.Second }
