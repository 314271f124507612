package engine

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/papierkram/papierkram/fault"
)

// sleeper is a real long-running process: `sleep 1000` in its own group.
type sleeper struct {
	child  *Child
	starts *atomic.Int64
	// measures counts Memory calls, for every sleeper of a pool.
	measures *atomic.Int64
}

func (p *sleeper) Start(ctx context.Context) error {
	c, err := StartProcess(ctx, Command{Name: "sleep", Args: []string{"1000"}}, nil, nil)
	if err != nil {
		return err
	}
	p.child = c
	if p.starts != nil {
		p.starts.Add(1)
	}
	return nil
}

func (p *sleeper) Healthy(context.Context) error {
	if p.child == nil || p.child.Exited() {
		return errors.New("exited")
	}
	return nil
}

// Memory is what the sleep process holds, measured as the engines' processes are.
func (p *sleeper) Memory() (int64, error) {
	if p.measures != nil {
		p.measures.Add(1)
	}
	return p.child.Memory()
}

func (p *sleeper) Stop() error {
	if p.child == nil {
		return nil
	}
	return p.child.Kill()
}

func pool(t *testing.T, cfg Config) (*Supervisor, *atomic.Int64) {
	t.Helper()
	starts := &atomic.Int64{}
	cfg.New = func(int) Process { return &sleeper{starts: starts} }
	if cfg.TempRoot == "" {
		cfg.TempRoot = t.TempDir()
	}
	s := New(cfg)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop(context.Background()) })
	return s, starts
}

// alive reports whether any process of group pgid still exists.
func alive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

func TestChildKilledMidJobIsReplaced(t *testing.T) {
	s, starts := pool(t, Config{Name: "t", Concurrency: 1, Eager: true})
	var first int
	err := s.Run(context.Background(), func(ctx context.Context, w *Worker) error {
		c := w.Process().(*sleeper).child
		first = c.Pid()
		syscall.Kill(c.Pid(), syscall.SIGKILL) // the program crashes under the job
		<-c.Done()
		return errors.New("lost the process")
	})
	if err == nil {
		t.Fatal("job on a killed process succeeded")
	}
	var second int
	if err := s.Run(context.Background(), func(ctx context.Context, w *Worker) error {
		second = w.Process().(*sleeper).child.Pid()
		return w.Process().Healthy(ctx)
	}); err != nil {
		t.Fatalf("next job: %v", err)
	}
	if second == first || starts.Load() != 2 || s.Stats().Restarts != 1 {
		t.Fatalf("pid %d -> %d, starts %d, restarts %d", first, second, starts.Load(), s.Stats().Restarts)
	}
}

func TestHungCommandIsKilledWithItsGroup(t *testing.T) {
	root := t.TempDir()
	s := New(Config{Name: "t", Concurrency: 1, JobTimeout: 300 * time.Millisecond, TempRoot: root})
	pidFile := root + "/../pid-" + strconv.Itoa(os.Getpid())
	defer os.Remove(pidFile)
	start := time.Now()
	err := s.Run(context.Background(), func(ctx context.Context, w *Worker) error {
		// A grandchild too: the kill must reach the whole group.
		_, _, err := w.Exec(ctx, Command{Name: "sh", Args: []string{"-c", "echo $$ > " + pidFile + "; sleep 100 & sleep 100"}})
		return err
	})
	if fault.CodeOf(err) != fault.Timeout {
		t.Fatalf("err = %v, want timeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Run returned after %s", d)
	}
	b, _ := os.ReadFile(pidFile)
	pgid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if pgid == 0 {
		t.Fatal("no pid recorded")
	}
	deadline := time.Now().Add(3 * time.Second)
	for alive(pgid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pgid) {
		t.Fatalf("process group %d survived the timeout", pgid)
	}
	if err := s.Run(context.Background(), func(ctx context.Context, w *Worker) error {
		_, _, err := w.Exec(ctx, Command{Name: "true"})
		return err
	}); err != nil {
		t.Fatalf("next job: %v", err)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Fatalf("temp dirs left: %v", entries)
	}
}

func TestHungJobOnPoolRestartsProcess(t *testing.T) {
	s, starts := pool(t, Config{Name: "t", Concurrency: 1, JobTimeout: 200 * time.Millisecond, Eager: true})
	var pid int
	err := s.Run(context.Background(), func(ctx context.Context, w *Worker) error {
		pid = w.Process().(*sleeper).child.Pid()
		<-ctx.Done() // a job that hangs until it is stopped
		return ctx.Err()
	})
	if fault.CodeOf(err) != fault.Timeout {
		t.Fatalf("err = %v", err)
	}
	if alive(pid) {
		t.Fatal("the hung job's process still runs")
	}
	if err := s.Run(context.Background(), func(ctx context.Context, w *Worker) error { return w.Process().Healthy(ctx) }); err != nil {
		t.Fatal(err)
	}
	if starts.Load() != 2 {
		t.Fatalf("starts %d", starts.Load())
	}
}

func TestFloodIsRefused(t *testing.T) {
	s := New(Config{Name: "t", Concurrency: 1, MaxQueue: 2, TempRoot: t.TempDir()})
	release := make(chan struct{})
	var ok, busy atomic.Int64
	var wg sync.WaitGroup
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.Run(context.Background(), func(ctx context.Context, w *Worker) error { <-release; return nil })
			switch {
			case err == nil:
				ok.Add(1)
			case fault.CodeOf(err) == fault.Busy:
				busy.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	deadline := time.Now().Add(3 * time.Second)
	for busy.Load() < 7 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if st := s.Stats(); st.Running != 1 || st.Queued != 2 {
		t.Fatalf("stats while flooded: %+v", st)
	}
	close(release)
	wg.Wait()
	if ok.Load() != 3 || busy.Load() != 7 {
		t.Fatalf("ok %d busy %d", ok.Load(), busy.Load())
	}
}

func TestTempDirsAlwaysRemoved(t *testing.T) {
	root := t.TempDir()
	s := New(Config{Name: "t", Concurrency: 2, JobTimeout: 100 * time.Millisecond, TempRoot: root})
	jobs := []func(ctx context.Context, w *Worker) error{
		func(ctx context.Context, w *Worker) error { return os.WriteFile(w.TempDir()+"/a", []byte("x"), 0o600) },
		func(ctx context.Context, w *Worker) error {
			os.WriteFile(w.TempDir()+"/a", []byte("x"), 0o600)
			return errors.New("failed")
		},
		func(ctx context.Context, w *Worker) error { <-ctx.Done(); return ctx.Err() },
		func(ctx context.Context, w *Worker) error { panic("boom") },
	}
	for i, j := range jobs {
		err := s.Run(context.Background(), j)
		if i == 3 && fault.CodeOf(err) != fault.Internal {
			t.Fatalf("panic: %v", err)
		}
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Fatalf("temp dirs left: %d", len(entries))
	}
}

func TestRecycleAfterMaxJobs(t *testing.T) {
	s, starts := pool(t, Config{Name: "t", Concurrency: 1, MaxJobs: 2})
	for range 5 {
		if err := s.Run(context.Background(), func(ctx context.Context, w *Worker) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	// Lazy start, then recycled after jobs 2 and 4: three processes, two restarts.
	if starts.Load() != 3 || s.Stats().Restarts != 2 {
		t.Fatalf("starts %d restarts %d", starts.Load(), s.Stats().Restarts)
	}
}

// TestRecycleOverMemory: a process that holds more than MaxMemory after a job is replaced;
// under the limit it stays, and papierkram_engine_memory_bytes reports what it holds (a
// sleep's PSS, read from /proc).
func TestRecycleOverMemory(t *testing.T) {
	job := func(ctx context.Context, w *Worker) error { return nil }
	low, starts := pool(t, Config{Name: "low", Concurrency: 1, MaxMemory: 1})
	for range 3 {
		if err := low.Run(context.Background(), job); err != nil {
			t.Fatal(err)
		}
	}
	if starts.Load() != 3 || low.Stats().Restarts != 3 {
		t.Errorf("over the limit: starts %d restarts %d, want a new process after every job", starts.Load(), low.Stats().Restarts)
	}
	high, starts := pool(t, Config{Name: "high", Concurrency: 1, MaxMemory: 1 << 40})
	for range 3 {
		if err := high.Run(context.Background(), job); err != nil {
			t.Fatal(err)
		}
	}
	if starts.Load() != 1 || high.Stats().Restarts != 0 {
		t.Errorf("under the limit: starts %d restarts %d", starts.Load(), high.Stats().Restarts)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(high)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var held float64
	for _, f := range families {
		if f.GetName() == "papierkram_engine_memory_bytes" {
			held = f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	if held < 4096 || held > 64<<20 {
		t.Errorf("papierkram_engine_memory_bytes %v for a sleep process", held)
	}
}

// TestMemoryMeasuredEverySecond: a process under its limit is measured after its first job,
// then at most once per memoryEvery, not after every job (reading a browser's process tree
// cost a tenth of the server's time per one-page conversion).
func TestMemoryMeasuredEverySecond(t *testing.T) {
	measures := &atomic.Int64{}
	s := New(Config{Name: "m", Concurrency: 1, MaxMemory: 1 << 40, TempRoot: t.TempDir(),
		New: func(int) Process { return &sleeper{measures: measures} }})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop(context.Background()) })
	start := time.Now()
	const jobs = 50
	for range jobs {
		if err := s.Run(context.Background(), func(ctx context.Context, w *Worker) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	most := 1 + int64(time.Since(start)/memoryEvery)
	if got := measures.Load(); got < 1 || got > most || got >= jobs {
		t.Fatalf("%d jobs in %v measured the process %d times, want 1 to %d", jobs, time.Since(start), got, most)
	}
	if s.Stats().Restarts != 0 {
		t.Fatalf("restarts %d under the limit", s.Stats().Restarts)
	}
}

// TestRecyclesAreStaggered: with jobs spread evenly, the first processes do not all reach
// MaxJobs together: slot 1 of 2 recycles after half as many jobs, so one spare covers each.
func TestRecyclesAreStaggered(t *testing.T) {
	s, _ := pool(t, Config{Name: "t", Concurrency: 2, MaxJobs: 4})
	restartsAfter := func(n int) int64 {
		for range n {
			if err := s.Run(context.Background(), func(ctx context.Context, w *Worker) error { return nil }); err != nil {
				t.Fatal(err)
			}
		}
		return s.Stats().Restarts
	}
	// Jobs alternate over the two slots: after 4, slot 1 (limit 2) was recycled, slot 0
	// (limit 4) not yet; after 8, slot 0 too, and slot 1's new process is at 2 of 4.
	if r := restartsAfter(4); r != 1 {
		t.Fatalf("restarts after 4 jobs: %d, want 1", r)
	}
	if r := restartsAfter(4); r != 2 {
		t.Fatalf("restarts after 8 jobs: %d, want 2", r)
	}
}

func TestStopWaitsThenRefuses(t *testing.T) {
	s, _ := pool(t, Config{Name: "t", Concurrency: 1, Eager: true})
	started, finished := make(chan struct{}), atomic.Bool{}
	var pid int
	go s.Run(context.Background(), func(ctx context.Context, w *Worker) error {
		pid = w.Process().(*sleeper).child.Pid()
		close(started)
		time.Sleep(300 * time.Millisecond)
		finished.Store(true)
		return nil
	})
	<-started
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !finished.Load() {
		t.Fatal("Stop returned before the running job finished")
	}
	if alive(pid) {
		t.Fatal("process still alive after Stop")
	}
	if err := s.Run(context.Background(), func(ctx context.Context, w *Worker) error { return nil }); fault.CodeOf(err) != fault.EngineUnavailable {
		t.Fatalf("Run after Stop: %v", err)
	}
	if s.Ready(context.Background()) == nil {
		t.Fatal("ready after Stop")
	}
}

func TestCancelWhileQueued(t *testing.T) {
	s := New(Config{Name: "t", Concurrency: 1, TempRoot: t.TempDir()})
	release := make(chan struct{})
	go s.Run(context.Background(), func(ctx context.Context, w *Worker) error { <-release; return nil })
	defer close(release)
	for s.Stats().Running == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := s.Run(ctx, func(ctx context.Context, w *Worker) error { return nil })
	if fault.CodeOf(err) != fault.Canceled || time.Since(start) > 2*time.Second {
		t.Fatalf("queued cancel: %v after %s", err, time.Since(start))
	}
}

func TestExecErrors(t *testing.T) {
	ctx := context.Background()
	if _, _, err := Exec(ctx, Command{Name: "no-such-program-papierkram"}); fault.CodeOf(err) != fault.EngineUnavailable {
		t.Fatalf("missing program: %v", err)
	}
	_, _, err := Exec(ctx, Command{Name: "sh", Args: []string{"-c", "echo oops >&2; exit 3"}})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 || !strings.Contains(ee.Stderr, "oops") {
		t.Fatalf("exit error: %v", err)
	}
	out, _, err := Exec(ctx, Command{Name: "sh", Args: []string{"-c", "head -c 100000 /dev/zero"}, MaxOutput: 1000})
	if err != nil || len(out) != 1000 {
		t.Fatalf("capped output: %d %v", len(out), err)
	}
	// The server's environment does not leak into programs.
	os.Setenv("PAPIERKRAM_SECRET_TEST", "s3cret")
	defer os.Unsetenv("PAPIERKRAM_SECRET_TEST")
	out, _, _ = Exec(ctx, Command{Name: "env"})
	if strings.Contains(string(out), "s3cret") {
		t.Fatal("environment leaked into the child")
	}
}

// TestChildDiesWithOwner kills a process that started a long-running child with SIGKILL
// (so it cannot clean up) and checks that the child does not outlive it.
func TestChildDiesWithOwner(t *testing.T) {
	if os.Getenv("PAPIERKRAM_OWNER_CHILD") == "1" {
		c, err := StartProcess(context.Background(), Command{Name: "sleep", Args: []string{"1000"}}, nil, nil)
		if err != nil {
			os.Exit(1)
		}
		os.Stdout.WriteString(strconv.Itoa(c.Pid()) + "\n")
		time.Sleep(time.Hour)
		return
	}
	owner := exec.Command(os.Args[0], "-test.run=^TestChildDiesWithOwner$")
	owner.Env = append(os.Environ(), "PAPIERKRAM_OWNER_CHILD=1")
	out, err := owner.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := owner.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, _ := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || pid == 0 {
		owner.Process.Kill()
		t.Fatalf("no child pid: %v %q", err, line)
	}
	owner.Process.Signal(syscall.SIGKILL)
	owner.Wait()
	deadline := time.Now().Add(3 * time.Second)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if syscall.Kill(pid, 0) == nil {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("child %d outlived its killed owner", pid)
	}
}

// gated is a process whose starts after the first two wait for the test to open a gate.
type gated struct {
	n       int
	gate    chan struct{}
	started atomic.Bool
	stops   *atomic.Int64
}

func (p *gated) Start(ctx context.Context) error {
	if p.n > 2 {
		select {
		case <-p.gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	p.started.Store(true)
	return nil
}
func (p *gated) Healthy(context.Context) error { return nil }
func (p *gated) Stop() error                   { p.stops.Add(1); return nil }

// TestSpareReplacesRetiredProcess: with Spare, a retired process is replaced by the spare
// started earlier, so the next job runs while the next spare is still starting (its start
// waits for a gate the test opens only at the end).
func TestSpareReplacesRetiredProcess(t *testing.T) {
	gate := make(chan struct{})
	var made atomic.Int64
	var stops atomic.Int64
	s := New(Config{Name: "spare", Concurrency: 1, Spare: true, New: func(int) Process {
		return &gated{n: int(made.Add(1)), gate: gate, stops: &stops}
	}})
	defer func() { close(gate); s.Stop(context.Background()) }()
	ctx := context.Background()
	var first Process
	if err := s.Run(ctx, func(ctx context.Context, w *Worker) error { first = w.Process(); return nil }); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); !s.Stats().Spare; {
		if time.Now().After(deadline) {
			t.Fatal("no spare was started")
		}
		time.Sleep(5 * time.Millisecond) // polling with a deadline
	}
	// Retire the first process: the spare (process 2) takes the slot, the next spare
	// (process 3) waits at the gate.
	if err := s.Run(ctx, func(ctx context.Context, w *Worker) error { w.Retire("left state behind"); return nil }); err != nil {
		t.Fatal(err)
	}
	jctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	var got Process
	if err := s.Run(jctx, func(ctx context.Context, w *Worker) error { got = w.Process(); return nil }); err != nil {
		t.Fatalf("the job after a retirement waited for a cold start: %v", err)
	}
	if g := got.(*gated); !g.started.Load() || g == first.(*gated) || g.n != 2 {
		t.Errorf("job ran on process %d (started %v); want the started spare", g.n, g.started.Load())
	}
	if stops.Load() != 1 {
		t.Errorf("%d processes stopped; the retired ones must be", stops.Load())
	}
}

// stuck is a process whose jobs hang until it is stopped, whatever their context says (a
// browser that no longer answers).
type stuck struct {
	stopped chan struct{}
	once    sync.Once
}

func (p *stuck) Start(context.Context) error   { return nil }
func (p *stuck) Healthy(context.Context) error { return nil }
func (p *stuck) Stop() error                   { p.once.Do(func() { close(p.stopped) }); return nil }

// TestJobIgnoringItsContextEndsOnTime: a job that ignores its context and waits on its
// process still ends with a timeout, because its process is stopped under it; the slot
// then gets a new process.
func TestJobIgnoringItsContextEndsOnTime(t *testing.T) {
	s := New(Config{Name: "stuck", Concurrency: 1, JobTimeout: 200 * time.Millisecond, New: func(int) Process { return &stuck{stopped: make(chan struct{})} }})
	defer s.Stop(context.Background())
	err := s.Run(context.Background(), func(ctx context.Context, w *Worker) error {
		<-w.Process().(*stuck).stopped // never looks at ctx
		return errors.New("the process went away")
	})
	if fault.CodeOf(err) != fault.Timeout {
		t.Fatalf("err %v, want a timeout", err)
	}
	var fresh bool
	if err := s.Run(context.Background(), func(ctx context.Context, w *Worker) error {
		select {
		case <-w.Process().(*stuck).stopped:
		default:
			fresh = true
		}
		return nil
	}); err != nil || !fresh {
		t.Fatalf("the next job: %v, fresh process %v", err, fresh)
	}
}

// TestWarmIncludesSpare: Warm returns once the spare runs too, not only the pool's
// processes: until then a recycle would wait for a cold start, and whoever waits for
// "engine warm" (the benchmark) would share the cores with the spare's start.
func TestWarmIncludesSpare(t *testing.T) {
	s, starts := pool(t, Config{Name: "warm", Concurrency: 2, Spare: true})
	if err := s.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !s.Stats().Spare || starts.Load() != 3 {
		t.Errorf("after Warm: spare ready %v, %d processes started; want the spare and 3", s.Stats().Spare, starts.Load())
	}
}

// slowStart starts a sleeper once its gate opens, and says when its start began.
type slowStart struct {
	sleeper
	gate    chan struct{}
	entered chan struct{}
}

func (p *slowStart) Start(ctx context.Context) error {
	p.entered <- struct{}{}
	<-p.gate
	return p.sleeper.Start(ctx)
}

// TestNotReadyWhileWarming: while Warm starts the processes the engine is not ready (a load
// balancer checking /ready sends nothing that would wait); once they run, it is.
func TestNotReadyWhileWarming(t *testing.T) {
	gate, entered := make(chan struct{}), make(chan struct{}, 4)
	s := New(Config{Name: "gated", Concurrency: 1, TempRoot: t.TempDir(), New: func(int) Process {
		return &slowStart{gate: gate, entered: entered}
	}})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Stop(context.Background()) })
	if err := s.Ready(context.Background()); err != nil {
		t.Fatalf("before warming: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Warm(context.Background()) }()
	<-entered
	if err := s.Ready(context.Background()); err == nil || !strings.Contains(err.Error(), "starting") {
		t.Errorf("ready while its process starts: %v", err)
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(context.Background()); err != nil {
		t.Errorf("after warming: %v", err)
	}
}
