package jobs

import (
	"context"
	"net/http"
	"sync"
	"time"
)

// Memory is the queue of a single instance: jobs live in this process and are lost with
// it. It is the queue next to the embedded SQLite store.
type Memory struct {
	o      Options
	mu     sync.Mutex
	jobs   map[string]*memJob
	sem    chan struct{}
	client *http.Client
	wg     sync.WaitGroup
	ctx    context.Context
	stop   context.CancelFunc
}

var _ Queue = (*Memory)(nil)

type memJob struct {
	Job
	owner  string
	result Result
}

// NewMemory starts an in-memory queue; Close stops it.
func NewMemory(o Options) *Memory {
	o.defaults()
	ctx, stop := context.WithCancel(context.Background())
	return &Memory{o: o, jobs: map[string]*memJob{}, sem: make(chan struct{}, o.Concurrency), client: o.Network.Client(30 * time.Second), ctx: ctx, stop: stop}
}

// Close cancels running jobs and pending deliveries and waits for them: their results
// would be unreachable once the process ends anyway.
func (m *Memory) Close(context.Context) error {
	m.stop()
	m.wg.Wait()
	return nil
}

// CheckWebhook implements Queue.
func (m *Memory) CheckWebhook(ctx context.Context, w *Webhook) error {
	return checkWebhook(ctx, m.o.Network, w)
}

// Submit implements Queue.
func (m *Memory) Submit(_ context.Context, s Submission) (Job, error) {
	if err := checkSubmission(&m.o, &s); err != nil {
		return Job{}, err
	}
	now := m.o.Now().Truncate(time.Microsecond) // what a durable queue keeps
	j := &memJob{Job: Job{ID: newID("job_"), Status: Queued, Filename: s.Filename, Created: now.UTC(), ExpiresAt: now.Add(m.o.Retention).UTC()}, owner: s.Owner}
	m.mu.Lock()
	m.sweep(now)
	m.jobs[j.ID] = j
	snapshot := j.Job
	m.mu.Unlock()
	m.wg.Add(1)
	go m.run(j, s)
	return snapshot, nil
}

func (m *Memory) run(j *memJob, s Submission) {
	defer m.wg.Done()
	select {
	case m.sem <- struct{}{}:
	case <-m.ctx.Done():
		return
	}
	start := m.o.Now()
	m.set(func() { j.Status = Running })
	ctx, cancel := context.WithTimeout(m.ctx, m.o.Timeout)
	res, err := run(ctx, m.o.Workers[s.Kind], Info{ID: j.ID, Owner: s.Owner, Kind: s.Kind, Filename: s.Filename}, s.Input, s.Params)
	cancel()
	<-m.sem
	var snapshot Job
	m.set(func() {
		j.DurationMs = m.o.Now().Sub(start).Milliseconds()
		if err != nil {
			j.Status, j.Error = Failed, errorText(err)
		} else {
			j.Status, j.result = Completed, res
		}
		snapshot = j.Job
	})
	if s.Hook != nil && s.Hook.URL != "" {
		m.deliver(snapshot, res.Summary, *s.Hook)
	}
}

func (m *Memory) set(f func()) {
	m.mu.Lock()
	f()
	m.mu.Unlock()
}

// Get implements Queue.
func (m *Memory) Get(_ context.Context, owner, id string) (Job, error) {
	j, err := m.get(owner, id)
	if err != nil {
		return Job{}, err
	}
	return j.Job, nil
}

func (m *Memory) get(owner, id string) (memJob, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(m.o.Now())
	j, ok := m.jobs[id]
	if !ok || j.owner != owner {
		return memJob{}, notFound(id, m.o.Retention)
	}
	return *j, nil
}

// Result implements Queue.
func (m *Memory) Result(_ context.Context, owner, id string) (Result, error) {
	j, err := m.get(owner, id)
	if err != nil {
		return Result{}, err
	}
	return resultOf(j.Job, j.result)
}

// sweep removes expired jobs; the caller holds mu.
func (m *Memory) sweep(now time.Time) {
	for id, j := range m.jobs {
		if now.After(j.ExpiresAt) && (j.Status == Completed || j.Status == Failed) {
			delete(m.jobs, id)
		}
	}
}

// deliver posts the webhook, retrying on a network error or a non-2xx answer.
func (m *Memory) deliver(j Job, summary []byte, hook Webhook) {
	delivery := newID("dlv_")
	body, err := payload(j, hook.Event, summary, delivery)
	if err != nil {
		m.o.Logger.Error("webhook payload", "jobId", j.ID, "error", err)
		return
	}
	for attempt := 0; ; attempt++ {
		err := post(m.ctx, m.client, hook, delivery, body)
		if err == nil {
			return
		}
		if attempt >= len(m.o.Retries) {
			m.o.Logger.Warn("webhook not delivered", "jobId", j.ID, "deliveryId", delivery, "attempts", attempt+1, "error", err)
			return
		}
		select {
		case <-time.After(m.o.Retries[attempt]):
		case <-m.ctx.Done():
			return
		}
	}
}
