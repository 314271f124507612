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

// Headers of a webhook delivery.
const (
	// SignatureHeader carries the hex HMAC-SHA256 of a webhook's body.
	SignatureHeader = "X-Service-Signature"
	// DeliveryHeader carries the delivery's id: the same on every retry of one event, so a
	// receiver can drop a duplicate.
	DeliveryHeader = "X-Service-Delivery"
)

// Job is the public state of a job.
type Job struct {
	ID         string    `json:"jobId"`
	Status     string    `json:"status" enum:"queued,running,completed,failed"`
	Filename   string    `json:"filename"`
	DurationMs int64     `json:"durationMs"`
	Error      string    `json:"error,omitempty"`
	Created    time.Time `json:"createdAt"`
	ExpiresAt  time.Time `json:"expiresAt"`
}

// Result is what a job produced: a file, and what a webhook says about it. Summary is JSON
// so that a result survives storage and another instance can answer for it.
type Result struct {
	Data        []byte
	ContentType string
	Summary     json.RawMessage // the webhook's result field
}

// Webhook says where to report a job's end.
type Webhook struct {
	URL, Secret string
	// Event is the event name's stem: "document.generation" gives
	// document.generation.completed and document.generation.failed.
	Event string
}

// Info names the job a Work runs.
type Info struct {
	ID, Owner, Kind, Filename string
}

// Work does one kind of job. It gets the submitted input and parameters back as they were
// stored, so that any instance can run it, and again after a crash: it must not rely on
// anything of the request that submitted it.
type Work func(ctx context.Context, j Info, input []byte, params json.RawMessage) (Result, error)

// Submission is a job to accept.
type Submission struct {
	Owner, Kind, Filename string
	Input                 []byte
	Params                json.RawMessage
	Hook                  *Webhook
}

// Queue accepts jobs, runs them and keeps their results for the retention time.
type Queue interface {
	// CheckWebhook refuses a callback URL the network policy does not allow, before a job
	// is accepted.
	CheckWebhook(ctx context.Context, w *Webhook) error
	// Submit stores a job; it runs in the background on a worker of its kind.
	Submit(ctx context.Context, s Submission) (Job, error)
	// Get returns a job of owner; fault.NotFound for an unknown, expired or foreign one.
	Get(ctx context.Context, owner, id string) (Job, error)
	// Result returns a completed job's result; fault.Conflict before, or when it failed.
	Result(ctx context.Context, owner, id string) (Result, error)
	// Close stops taking work: running jobs get until ctx ends to finish.
	Close(ctx context.Context) error
}

// Options configure a queue.
type Options struct {
	Workers     map[string]Work // by kind; a kind without a worker cannot be submitted
	Concurrency int             // jobs running at once in this process; default 2
	Retention   time.Duration   // default 30 minutes
	// Timeout bounds one run of a job; default 10 minutes. A job whose instance died is
	// run again once it has been running for Timeout plus RescueAfter (durable queues only).
	Timeout     time.Duration
	RescueAfter time.Duration   // default 1 minute
	Network     netguard.Policy // where webhooks may go
	Retries     []time.Duration // waits before the retries of a webhook; default 1 s, 5 s, 30 s
	Logger      *slog.Logger
	Now         func() time.Time
}

func (o *Options) defaults() {
	if o.Concurrency <= 0 {
		o.Concurrency = 2
	}
	if o.Retention <= 0 {
		o.Retention = 30 * time.Minute
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
	}
	if o.RescueAfter <= 0 {
		o.RescueAfter = time.Minute
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
}

// checkWebhook is CheckWebhook for both queues.
func checkWebhook(ctx context.Context, p netguard.Policy, w *Webhook) error {
	if w == nil || w.URL == "" {
		return nil
	}
	if _, err := p.CheckURL(ctx, w.URL); err != nil {
		return fault.Wrap(fault.InvalidInput, err, "callbackUrl: %v", err).With("field", "callbackUrl")
	}
	return nil
}

// checkSubmission refuses what no worker could run.
func checkSubmission(o *Options, s *Submission) error {
	if o.Workers[s.Kind] == nil {
		return fault.New(fault.Internal, "jobs: no worker for kind %q", s.Kind)
	}
	if len(s.Params) == 0 {
		s.Params = json.RawMessage("{}")
	}
	if !json.Valid(s.Params) {
		return fault.New(fault.Internal, "jobs: the parameters of a %s job are not JSON", s.Kind)
	}
	return nil
}

// run calls a worker; a panic is the job's failure, not the process's.
func run(ctx context.Context, w Work, j Info, input []byte, params json.RawMessage) (res Result, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("job failed: %v", v)
		}
	}()
	if w == nil {
		return Result{}, fault.New(fault.Internal, "jobs: no worker for kind %q", j.Kind)
	}
	return w(ctx, j, input, params)
}

// errorText is what a failed job says: a fault's own message without its code.
func errorText(err error) string {
	if fe := fault.As(err); fe != nil {
		return fe.Message
	}
	return err.Error()
}

func notFound(id string, retention time.Duration) error {
	return fault.New(fault.NotFound, "no job %q (jobs are kept for %s)", id, retention)
}

// resultOf answers Result from a job's state.
func resultOf(j Job, res Result) (Result, error) {
	switch j.Status {
	case Completed:
		return res, nil
	case Failed:
		return Result{}, fault.New(fault.Conflict, "the job failed: %s", j.Error)
	}
	return Result{}, fault.New(fault.Conflict, "the job is %s; poll until it is completed", j.Status)
}

// Payload is a webhook's body.
type Payload struct {
	Event      string          `json:"event"`
	DeliveryID string          `json:"deliveryId"`
	JobID      string          `json:"jobId"`
	Status     string          `json:"status"`
	Filename   string          `json:"filename"`
	DurationMs int64           `json:"durationMs"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      string          `json:"error,omitempty"`
}

// payload is the body reporting a finished job.
func payload(j Job, event string, summary json.RawMessage, delivery string) ([]byte, error) {
	p := Payload{DeliveryID: delivery, JobID: j.ID, Status: j.Status, Filename: j.Filename, DurationMs: j.DurationMs, Error: j.Error}
	if j.Status == Completed {
		p.Event, p.Result = event+".completed", summary
	} else {
		p.Event = event + ".failed"
	}
	return json.Marshal(p)
}

// Sign is the signature header's value for a body: hex HMAC-SHA256 with the secret.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// post delivers a webhook once. The client dials through the network policy, so a stored
// URL whose name now resolves elsewhere is refused at delivery too.
func post(ctx context.Context, client *http.Client, hook Webhook, delivery string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, hook.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Papierkram-Webhook")
	req.Header.Set(DeliveryHeader, delivery)
	if hook.Secret != "" {
		req.Header.Set(SignatureHeader, Sign(hook.Secret, body))
	}
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("the receiver answered %d", res.StatusCode)
	}
	return nil
}

func newID(prefix string) string {
	var b [12]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}
