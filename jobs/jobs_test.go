package jobs

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/netguard"
)

// receiver is a webhook endpoint on 127.0.0.1 that fails its first call.
type receiver struct {
	mu    sync.Mutex
	calls int
	got   chan Payload
	sigOK bool
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.calls++
	first := r.calls == 1
	r.sigOK = req.Header.Get(SignatureHeader) == Sign("geheim", body)
	r.mu.Unlock()
	if first {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	var p Payload
	json.Unmarshal(body, &p)
	r.got <- p
}

func loopback() netguard.Policy {
	return netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
}

// TestJobAndWebhook: the job runs, the result is kept for its owner only, the webhook is
// signed, retried after a failure and carries the spec's fields.
func TestJobAndWebhook(t *testing.T) {
	rec := &receiver{got: make(chan Payload, 1)}
	srv := httptest.NewServer(rec)
	defer srv.Close()
	m := New(Options{Network: loopback(), Retries: []time.Duration{10 * time.Millisecond}})
	defer m.Close()
	hook := &Webhook{URL: srv.URL, Secret: "geheim", Event: "document.generation"}
	if err := m.CheckWebhook(context.Background(), hook); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	j := m.Submit("key_a", "doc.pdf", hook, func(ctx context.Context, id string) (Result, error) {
		<-release
		return Result{Data: []byte("%PDF"), ContentType: "application/pdf", Summary: map[string]any{"size": 4}}, nil
	})
	if j.Status != Queued || j.ID == "" {
		t.Fatalf("%+v", j)
	}
	if _, err := m.Result("key_a", j.ID); fault.CodeOf(err) != fault.Conflict {
		t.Errorf("result before the end: %v", err)
	}
	if _, err := m.Get("key_b", j.ID); fault.CodeOf(err) != fault.NotFound {
		t.Errorf("another key sees the job: %v", err)
	}
	close(release)
	select {
	case p := <-rec.got:
		if p.Event != "document.generation.completed" || p.JobID != j.ID || p.Status != Completed || p.Filename != "doc.pdf" || p.Result == nil {
			t.Errorf("payload %+v", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no webhook")
	}
	rec.mu.Lock()
	if rec.calls != 2 || !rec.sigOK {
		t.Errorf("calls %d, signature ok %v", rec.calls, rec.sigOK)
	}
	rec.mu.Unlock()
	res, err := m.Result("key_a", j.ID)
	if err != nil || string(res.Data) != "%PDF" {
		t.Errorf("result %q %v", res.Data, err)
	}
}

// TestFailedJobAndExpiry: a failing job reports its error (webhook .failed), and jobs are
// gone after the retention time.
func TestFailedJobAndExpiry(t *testing.T) {
	rec := &receiver{got: make(chan Payload, 1), calls: 1} // no failure first
	srv := httptest.NewServer(rec)
	defer srv.Close()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	m := New(Options{Network: loopback(), Now: clock, Retention: time.Minute})
	defer m.Close()
	j := m.Submit("k", "x.pdf", &Webhook{URL: srv.URL, Event: "document.generation"}, func(ctx context.Context, id string) (Result, error) {
		return Result{}, fault.New(fault.InvalidInput, "template: {#a} is never closed")
	})
	p := <-rec.got
	if p.Event != "document.generation.failed" || p.Error != "template: {#a} is never closed" || p.Result != nil {
		t.Errorf("payload %+v", p)
	}
	got, err := m.Get("k", j.ID)
	if err != nil || got.Status != Failed {
		t.Errorf("%+v %v", got, err)
	}
	mu.Lock()
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	if _, err := m.Get("k", j.ID); fault.CodeOf(err) != fault.NotFound {
		t.Errorf("expired job still there: %v", err)
	}
}

func TestCheckWebhook(t *testing.T) {
	m := New(Options{})
	defer m.Close()
	for _, u := range []string{"http://127.0.0.1:9/x", "http://10.0.0.1/", "file:///etc/passwd", "http://169.254.169.254/latest"} {
		if err := m.CheckWebhook(context.Background(), &Webhook{URL: u}); fault.CodeOf(err) != fault.InvalidInput {
			t.Errorf("%s accepted: %v", u, err)
		}
	}
	if err := m.CheckWebhook(context.Background(), nil); err != nil {
		t.Error(err)
	}
}
