package jobs

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/netguard"
)

// Job states.
const (
	Queued    = "queued"
	Running   = "running"
	Completed = "completed"
	Failed    = "failed"
)

// SignatureHeader carries the hex HMAC-SHA256 of a webhook's body.
const SignatureHeader = "X-Service-Signature"

// Job is the public state of a job.
type Job struct {
	ID         string    `json:"jobId"`
	Status     string    `json:"status" enum:"queued,running,completed,failed"`
	Filename   string    `json:"filename"`
	DurationMs int64     `json:"durationMs"`
	Error      string    `json:"error,omitempty"`
	Created    time.Time `json:"createdAt"`
	ExpiresAt  time.Time `json:"expiresAt"`

	owner  string
	result Result
}

// Result is what a job produced: a file, and what a webhook says about it.
type Result struct {
	Data        []byte
	ContentType string
	Summary     any // the webhook's result field
}

// Webhook says where to report a job's end.
type Webhook struct {
	URL, Secret string
	// Event is the event name's stem: "document.generation" gives
	// document.generation.completed and document.generation.failed.
	Event string
}

// Options configure a Manager.
type Options struct {
	Concurrency int           // jobs running at once; default 2
	Retention   time.Duration // default 30 minutes
	Network     netguard.Policy
	Retries     []time.Duration // waits before the retries of a webhook; default 1 s, 5 s, 30 s
	Logger      *slog.Logger
	Now         func() time.Time
}

// Manager holds the jobs.
type Manager struct {
	o      Options
	mu     sync.Mutex
	jobs   map[string]*Job
	sem    chan struct{}
	client *http.Client
	wg     sync.WaitGroup
	ctx    context.Context
	stop   context.CancelFunc
}

// New starts a manager; Close stops it.
func New(o Options) *Manager {
	if o.Concurrency <= 0 {
		o.Concurrency = 2
	}
	if o.Retention <= 0 {
		o.Retention = 30 * time.Minute
	}
	if o.Retries == nil {
		o.Retries = []time.Duration{time.Second, 5 * time.Second, 30 * time.Second}
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	ctx, stop := context.WithCancel(context.Background())
	return &Manager{o: o, jobs: map[string]*Job{}, sem: make(chan struct{}, o.Concurrency), client: o.Network.Client(30 * time.Second), ctx: ctx, stop: stop}
}

// Close cancels running jobs and pending deliveries and waits for them.
func (m *Manager) Close() {
	m.stop()
	m.wg.Wait()
}

// CheckWebhook refuses a callback URL the network policy does not allow, before a job is
// accepted.
func (m *Manager) CheckWebhook(ctx context.Context, w *Webhook) error {
	if w == nil || w.URL == "" {
		return nil
	}
	if _, err := m.o.Network.CheckURL(ctx, w.URL); err != nil {
		return fault.New(fault.InvalidInput, "callbackUrl: %v", err).With("field", "callbackUrl")
	}
	return nil
}

// Submit accepts a job for owner and runs it in the background; run learns the job's id.
func (m *Manager) Submit(owner, filename string, hook *Webhook, run func(ctx context.Context, id string) (Result, error)) Job {
	now := m.o.Now()
	j := &Job{ID: newID(), Status: Queued, Filename: filename, Created: now.UTC(), ExpiresAt: now.Add(m.o.Retention).UTC(), owner: owner}
	m.mu.Lock()
	m.sweep(now)
	m.jobs[j.ID] = j
	snapshot := *j
	m.mu.Unlock()
	m.wg.Add(1)
	go m.run(j, hook, run)
	return snapshot
}

func (m *Manager) run(j *Job, hook *Webhook, run func(ctx context.Context, id string) (Result, error)) {
	defer m.wg.Done()
	select {
	case m.sem <- struct{}{}:
	case <-m.ctx.Done():
		return
	}
	start := m.o.Now()
	m.set(j, func(j *Job) { j.Status = Running })
	res, err := func() (res Result, err error) {
		defer func() {
			if v := recover(); v != nil {
				err = fmt.Errorf("job failed: %v", v)
			}
		}()
		return run(m.ctx, j.ID)
	}()
	<-m.sem
	m.set(j, func(j *Job) {
		j.DurationMs = m.o.Now().Sub(start).Milliseconds()
		if err != nil {
			j.Status, j.Error = Failed, err.Error()
			if fe := fault.As(err); fe != nil {
				j.Error = fe.Message
			}
		} else {
			j.Status, j.result = Completed, res
		}
	})
	if hook != nil && hook.URL != "" {
		m.deliver(j, hook)
	}
}

func (m *Manager) set(j *Job, f func(*Job)) {
	m.mu.Lock()
	f(j)
	m.mu.Unlock()
}

// Get returns a job of owner; fault.NotFound for an unknown, expired or foreign one.
func (m *Manager) Get(owner, id string) (Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(m.o.Now())
	j, ok := m.jobs[id]
	if !ok || j.owner != owner {
		return Job{}, fault.New(fault.NotFound, "no job %q (jobs are kept for %s)", id, m.o.Retention)
	}
	return *j, nil
}

// Result returns a completed job's result.
func (m *Manager) Result(owner, id string) (Result, error) {
	j, err := m.Get(owner, id)
	if err != nil {
		return Result{}, err
	}
	switch j.Status {
	case Completed:
		return j.result, nil
	case Failed:
		return Result{}, fault.New(fault.Conflict, "the job failed: %s", j.Error)
	}
	return Result{}, fault.New(fault.Conflict, "the job is %s; poll until it is completed", j.Status)
}

// sweep removes expired jobs; the caller holds mu.
func (m *Manager) sweep(now time.Time) {
	for id, j := range m.jobs {
		if now.After(j.ExpiresAt) && (j.Status == Completed || j.Status == Failed) {
			delete(m.jobs, id)
		}
	}
}

// Payload is a webhook's body.
type Payload struct {
	Event      string `json:"event"`
	JobID      string `json:"jobId"`
	Status     string `json:"status"`
	Filename   string `json:"filename"`
	DurationMs int64  `json:"durationMs"`
	Result     any    `json:"result,omitempty"`
	Error      string `json:"error,omitempty"`
}

// Sign is the signature header's value for a body: hex HMAC-SHA256 with the secret.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// deliver posts the webhook, retrying on a network error or a non-2xx answer.
func (m *Manager) deliver(j *Job, hook *Webhook) {
	m.mu.Lock()
	p := Payload{JobID: j.ID, Status: j.Status, Filename: j.Filename, DurationMs: j.DurationMs, Error: j.Error}
	if j.Status == Completed {
		p.Event, p.Result = hook.Event+".completed", j.result.Summary
	} else {
		p.Event = hook.Event + ".failed"
	}
	m.mu.Unlock()
	body, err := json.Marshal(p)
	if err != nil {
		m.o.Logger.Error("webhook payload", "jobId", j.ID, "error", err)
		return
	}
	for attempt := 0; ; attempt++ {
		err := m.post(hook, body)
		if err == nil {
			return
		}
		if attempt >= len(m.o.Retries) {
			m.o.Logger.Warn("webhook not delivered", "jobId", j.ID, "attempts", attempt+1, "error", err)
			return
		}
		select {
		case <-time.After(m.o.Retries[attempt]):
		case <-m.ctx.Done():
			return
		}
	}
}

func (m *Manager) post(hook *Webhook, body []byte) error {
	req, err := http.NewRequestWithContext(m.ctx, http.MethodPost, hook.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Papierkram-Webhook")
	if hook.Secret != "" {
		req.Header.Set(SignatureHeader, Sign(hook.Secret, body))
	}
	res, err := m.client.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("the receiver answered %d", res.StatusCode)
	}
	return nil
}

func newID() string {
	var b [12]byte
	rand.Read(b[:])
	return "job_" + hex.EncodeToString(b[:])
}
