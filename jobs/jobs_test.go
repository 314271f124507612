package jobs

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpg"
	"github.com/papierkram/papierkram/netguard"
	"github.com/papierkram/papierkram/store"
)

func TestMain(m *testing.M) { os.Exit(testpg.Main(m)) }

// delivery is one webhook call a receiver saw.
type delivery struct {
	id    string
	sigOK bool
	p     Payload
}

// receiver is a webhook endpoint on 127.0.0.1 that fails its first fail calls.
type receiver struct {
	mu    sync.Mutex
	fail  int
	calls []delivery
	got   chan Payload // the accepted ones
}

func newReceiver(t *testing.T, fail int) (*receiver, string) {
	r := &receiver{fail: fail, got: make(chan Payload, 16)}
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return r, srv.URL
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var p Payload
	json.Unmarshal(body, &p)
	r.mu.Lock()
	r.calls = append(r.calls, delivery{id: req.Header.Get(DeliveryHeader), sigOK: req.Header.Get(SignatureHeader) == Sign("geheim", body), p: p})
	failing := len(r.calls) <= r.fail
	r.mu.Unlock()
	if failing {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	r.got <- p
}

func (r *receiver) seen() []delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]delivery(nil), r.calls...)
}

func wait[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(2 * time.Minute):
		t.Fatalf("no %s after 2 minutes", what)
	}
	var zero T
	return zero
}

func loopback() netguard.Policy {
	return netguard.Policy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}
}

// queues runs a test on both implementations.
var queues = []struct {
	name string
	open func(t *testing.T, o Options) Queue
}{
	{"memory", func(t *testing.T, o Options) Queue {
		q := NewMemory(o)
		t.Cleanup(func() { q.Close(context.Background()) })
		return q
	}},
	{"river", func(t *testing.T, o Options) Queue { return openRiver(t, testDatabase(t), o) }},
}

// testDatabase is an empty database on the package's cluster, with the store's schema.
func testDatabase(t testing.TB) string {
	url := testpg.StartShared(t)
	st, err := store.OpenPostgres(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	return url
}

func openRiver(t testing.TB, url string, o Options) *River {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if o.Logger == nil { // River's information lines would drown the test's output
		o.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	q, err := NewRiver(ctx, st.Pool(), o)
	if err != nil {
		st.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := q.Close(ctx); err != nil {
			t.Error(err)
		}
		st.Close()
	})
	return q
}

// TestJobAndWebhook: the job runs, the result is kept for its owner only, the webhook is
// signed, retried after failures with one delivery id and carries the spec's fields.
func TestJobAndWebhook(t *testing.T) {
	for _, impl := range queues {
		t.Run(impl.name, func(t *testing.T) {
			ctx := context.Background()
			rec, url := newReceiver(t, 2)
			release := make(chan struct{})
			q := impl.open(t, Options{Network: loopback(), Retries: []time.Duration{10 * time.Millisecond, 20 * time.Millisecond},
				Workers: map[string]Work{"doc": func(ctx context.Context, j Info, input []byte, params json.RawMessage) (Result, error) {
					<-release
					var p struct{ Name string }
					json.Unmarshal(params, &p)
					if j.Owner != "key_a" || j.Kind != "doc" || j.Filename != "doc.pdf" {
						return Result{}, fault.New(fault.Internal, "info %+v", j)
					}
					return Result{Data: append([]byte("%PDF "+p.Name+" "), input...), ContentType: "application/pdf", Summary: json.RawMessage(`{"size":4}`)}, nil
				}}})
			hook := &Webhook{URL: url, Secret: "geheim", Event: "document.generation"}
			if err := q.CheckWebhook(ctx, hook); err != nil {
				t.Fatal(err)
			}
			if _, err := q.Submit(ctx, Submission{Owner: "key_a", Kind: "nobody", Filename: "x"}); fault.CodeOf(err) != fault.Internal {
				t.Errorf("a kind without a worker: %v", err)
			}
			j, err := q.Submit(ctx, Submission{Owner: "key_a", Kind: "doc", Filename: "doc.pdf", Input: []byte("Eingabe"), Params: json.RawMessage(`{"name":"Müller"}`), Hook: hook})
			if err != nil || j.Status != Queued || j.ID == "" || j.ExpiresAt.Sub(j.Created) != 30*time.Minute {
				t.Fatalf("%+v %v", j, err)
			}
			if _, err := q.Result(ctx, "key_a", j.ID); fault.CodeOf(err) != fault.Conflict {
				t.Errorf("result before the end: %v", err)
			}
			if _, err := q.Get(ctx, "key_b", j.ID); fault.CodeOf(err) != fault.NotFound {
				t.Errorf("another key sees the job: %v", err)
			}
			close(release)
			p := wait(t, rec.got, "webhook")
			if p.Event != "document.generation.completed" || p.JobID != j.ID || p.Status != Completed || p.Filename != "doc.pdf" || !sameJSON(p.Result, `{"size":4}`) {
				t.Errorf("payload %+v (result %s)", p, p.Result)
			}
			calls := rec.seen()
			if len(calls) != 3 {
				t.Fatalf("%d calls, want 3 (two failures)", len(calls))
			}
			for _, c := range calls {
				if !c.sigOK || c.id == "" || c.id != calls[0].id || c.p.DeliveryID != c.id {
					t.Errorf("delivery %+v, first id %s", c, calls[0].id)
				}
			}
			res, err := q.Result(ctx, "key_a", j.ID)
			if err != nil || string(res.Data) != "%PDF Müller Eingabe" || res.ContentType != "application/pdf" {
				t.Errorf("result %q %q %v", res.Data, res.ContentType, err)
			}
			got, err := q.Get(ctx, "key_a", j.ID)
			if err != nil || got.Status != Completed || !got.Created.Equal(j.Created.Truncate(time.Microsecond)) {
				t.Errorf("%+v %v", got, err)
			}
		})
	}
}

// TestFailedJobAndExpiry: a failing (or panicking) job reports its error (webhook .failed),
// and jobs are gone after the retention time.
func TestFailedJobAndExpiry(t *testing.T) {
	for _, impl := range queues {
		t.Run(impl.name, func(t *testing.T) {
			ctx := context.Background()
			rec, url := newReceiver(t, 0)
			now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
			var mu sync.Mutex
			clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
			q := impl.open(t, Options{Network: loopback(), Now: clock, Retention: time.Minute, Workers: map[string]Work{
				"bad": func(context.Context, Info, []byte, json.RawMessage) (Result, error) {
					return Result{}, fault.New(fault.InvalidInput, "template: {#a} is never closed")
				},
				"panic": func(context.Context, Info, []byte, json.RawMessage) (Result, error) { panic("boom") },
			}})
			j, err := q.Submit(ctx, Submission{Owner: "k", Kind: "bad", Filename: "x.pdf", Hook: &Webhook{URL: url, Event: "document.generation"}})
			if err != nil {
				t.Fatal(err)
			}
			p := wait(t, rec.got, "webhook")
			if p.Event != "document.generation.failed" || p.Error != "template: {#a} is never closed" || p.Result != nil || p.DeliveryID == "" {
				t.Errorf("payload %+v", p)
			}
			got, err := q.Get(ctx, "k", j.ID)
			if err != nil || got.Status != Failed || got.Error != p.Error {
				t.Errorf("%+v %v", got, err)
			}
			if _, err := q.Result(ctx, "k", j.ID); fault.CodeOf(err) != fault.Conflict {
				t.Errorf("result of a failed job: %v", err)
			}
			pj, err := q.Submit(ctx, Submission{Owner: "k", Kind: "panic", Filename: "y.pdf", Hook: &Webhook{URL: url, Event: "receipt.extraction"}})
			if err != nil {
				t.Fatal(err)
			}
			if p := wait(t, rec.got, "webhook"); p.JobID != pj.ID || p.Event != "receipt.extraction.failed" || p.Error != "job failed: boom" {
				t.Errorf("panic payload %+v", p)
			}
			mu.Lock()
			now = now.Add(2 * time.Minute)
			mu.Unlock()
			if _, err := q.Get(ctx, "k", j.ID); fault.CodeOf(err) != fault.NotFound {
				t.Errorf("expired job still there: %v", err)
			}
		})
	}
}

func TestCheckWebhook(t *testing.T) {
	for _, impl := range queues {
		t.Run(impl.name, func(t *testing.T) {
			q := impl.open(t, Options{})
			for _, u := range []string{"http://127.0.0.1:9/x", "http://10.0.0.1/", "file:///etc/passwd", "http://169.254.169.254/latest"} {
				if err := q.CheckWebhook(context.Background(), &Webhook{URL: u}); fault.CodeOf(err) != fault.InvalidInput {
					t.Errorf("%s accepted: %v", u, err)
				}
			}
			if err := q.CheckWebhook(context.Background(), nil); err != nil {
				t.Error(err)
			}
		})
	}
}
