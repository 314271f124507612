package jobs

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/papierkram/papierkram/fault"
)

// TestRiverInstancesShareJobs: two queues on one database are two instances: each answers
// for the other's jobs, and both start together (River's and our migrations are applied
// once).
func TestRiverInstancesShareJobs(t *testing.T) {
	ctx := context.Background()
	url := testDatabase(t)
	ran := make(chan string, 4)
	work := func(name string) map[string]Work {
		return map[string]Work{"echo": func(_ context.Context, j Info, input []byte, _ json.RawMessage) (Result, error) {
			ran <- name
			return Result{Data: input, ContentType: "text/plain"}, nil
		}}
	}
	var a, b *River
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); a = openRiver(t, url, Options{Workers: work("a")}) }()
	go func() { defer wg.Done(); b = openRiver(t, url, Options{Workers: work("b")}) }()
	wg.Wait()
	if a == nil || b == nil {
		t.FailNow()
	}
	j, err := a.Submit(ctx, Submission{Owner: "k", Kind: "echo", Filename: "x.txt", Input: []byte("hallo")})
	if err != nil {
		t.Fatal(err)
	}
	wait(t, ran, "run")
	res := waitResult(t, b, "k", j.ID)
	if string(res.Data) != "hallo" {
		t.Errorf("result on b %q", res.Data)
	}
	if _, err := b.Get(ctx, "other", j.ID); fault.CodeOf(err) != fault.NotFound {
		t.Errorf("another key on b: %v", err)
	}
}

// waitResult polls until the job completed.
func waitResult(t *testing.T, q Queue, owner, id string) Result {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		res, err := q.Result(context.Background(), owner, id)
		if err == nil {
			return res
		}
		if fault.CodeOf(err) != fault.Conflict || time.Now().After(deadline) {
			t.Fatalf("job %s: %v", id, err)
		}
		time.Sleep(50 * time.Millisecond) // polling, as a client does
	}
}

// TestRiverRescuesAJobOfAKilledInstance: instance A (a child process) starts a job and is
// killed (SIGKILL) in the middle of it; instance B runs the job again and the receiver gets
// exactly one completed event.
func TestRiverRescuesAJobOfAKilledInstance(t *testing.T) {
	if url := os.Getenv("JOBS_CHILD_DATABASE"); url != "" {
		childInstance(t, url, os.Getenv("JOBS_CHILD_HOOK"))
		return
	}
	ctx := context.Background()
	url := testDatabase(t)
	rec, hookURL := newReceiver(t, 0)

	cmd := exec.Command(os.Args[0], "-test.run=^TestRiverRescuesAJobOfAKilledInstance$", "-test.v")
	cmd.Env = append(os.Environ(), "JOBS_CHILD_DATABASE="+url, "JOBS_CHILD_HOOK="+hookURL)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var id string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "running %s", &id); err == nil {
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if id == "" {
		t.Fatal("the child instance ran no job")
	}

	// B runs with a short rescue time so that the test does not wait for the default.
	b := openRiver(t, url, Options{Network: loopback(), Timeout: time.Second, RescueAfter: time.Second,
		Workers: map[string]Work{"slow": func(_ context.Context, j Info, input []byte, _ json.RawMessage) (Result, error) {
			return Result{Data: input, Summary: json.RawMessage(`{"by":"b"}`)}, nil
		}}})
	p := wait(t, rec.got, "completed webhook")
	if p.JobID != id || p.Event != "receipt.extraction.completed" || !sameJSON(p.Result, `{"by":"b"}`) {
		t.Errorf("payload %+v (%s)", p, p.Result)
	}
	if res := waitResult(t, b, "k", id); string(res.Data) != "Beleg" {
		t.Errorf("result %q", res.Data)
	}
	// Exactly one completed event: one webhook job exists for the job, and it is finished
	// (so no retry is pending), and the receiver saw one call.
	deadline := time.Now().Add(time.Minute)
	for {
		var n, done int
		err := b.pool.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE state = 'completed') FROM river_job
			WHERE kind = 'papierkram_webhook' AND args->>'jobId' = $1`, id).Scan(&n, &done)
		if err != nil && err != pgx.ErrNoRows {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("%d webhook jobs for %s", n, id)
		}
		if done == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the webhook job never completed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if calls := rec.seen(); len(calls) != 1 {
		t.Errorf("%d webhook calls, want 1: %+v", len(calls), calls)
	}
}

// childInstance is instance A: it submits a job whose work blocks, says so, and waits to
// be killed.
func childInstance(t *testing.T, url, hook string) {
	started := make(chan string)
	q := openRiver(t, url, Options{Network: loopback(), Workers: map[string]Work{"slow": func(ctx context.Context, j Info, _ []byte, _ json.RawMessage) (Result, error) {
		started <- j.ID
		<-ctx.Done()
		return Result{}, ctx.Err()
	}}})
	if _, err := q.Submit(context.Background(), Submission{Owner: "k", Kind: "slow", Filename: "beleg.jpg", Input: []byte("Beleg"),
		Hook: &Webhook{URL: hook, Event: "receipt.extraction"}}); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("running %s\n", <-started)
	select {} // until killed
}

// sameJSON compares JSON by value: PostgreSQL's jsonb keeps its own spacing.
func sameJSON(a json.RawMessage, b string) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal([]byte(b), &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}
