package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/papierkram/papierkram/fault"
)

// Process is one long-running program of a pool (a browser, an office suite).
type Process interface {
	Start(ctx context.Context) error
	// Healthy is a cheap check; an error makes the supervisor restart the process.
	Healthy(ctx context.Context) error
	// Stop kills the process and its whole process group and waits for it.
	Stop() error
}

// Config configures a Supervisor.
type Config struct {
	Name         string        // "chromium", "office", "poppler", ...: metrics and errors
	Binary       string        // the program a process-per-job engine runs; Ready checks it is installed
	Concurrency  int           // jobs at once (= pool size); default runtime.NumCPU()
	MaxQueue     int           // jobs allowed to wait; beyond it Run fails at once with fault.Busy; default 4 × Concurrency
	JobTimeout   time.Duration // per job; default 60 s
	StartTimeout time.Duration // for Process.Start; default 30 s
	MaxJobs      int           // restart a Process after this many jobs; 0 = never
	// MaxMemory restarts a Process whose programs hold more than this many bytes (their
	// anonymous resident memory)
	// after a job, for the Processes that can tell (Measured); 0 = never.
	MaxMemory int64
	Eager     bool // start processes in Start rather than on first use
	// Spare keeps one more process started in reserve once the pool is in use: a retired
	// process (recycled, crashed, or left with a job's state) is replaced by it at once, and
	// the next spare starts in the background, so no job waits for a cold start.
	Spare    bool
	New      func(slot int) Process // nil for process-per-job programs
	TempRoot string                 // parent of per-job temporary directories; default os.TempDir()
	Logger   *slog.Logger
}

// slot is one unit of concurrency; for pools it owns a process.
type slot struct {
	id      int
	proc    Process
	started bool
	jobs    int
	limit   int          // jobs before this process is recycled; 0 = never
	memory  atomic.Int64 // what its process held after its last job (Measured), bytes
	// measured is when memory was read: at most every memoryEvery, because reading a
	// browser's process tree (every thread's children, every process's statm) cost a
	// tenth of the server's time per one-page conversion (#24).
	measured time.Time
}

// memoryEvery is how often a process's memory is measured after its jobs: a leak past
// MaxMemory is still caught within it.
const memoryEvery = time.Second

// Supervisor runs jobs for one external program.
type Supervisor struct {
	cfg   Config
	log   *slog.Logger
	slots chan *slot // idle slots
	all   []*slot
	done  chan struct{} // closed by Stop

	mu       sync.Mutex
	stopped  bool
	spare    Process       // started, in reserve (Config.Spare); guarded by mu
	starting chan struct{} // closed when the spare being started is ready or failed; nil when none is; guarded by mu
	running  sync.WaitGroup
	warming  atomic.Int64 // Warm calls under way: not ready for a load balancer yet
	admitted atomic.Int64 // running + queued
	active   atomic.Int64 // running

	restarts  prometheus.Counter
	jobs      *prometheus.CounterVec
	durations prometheus.Histogram
	queueLen  prometheus.GaugeFunc
	slotsG    prometheus.GaugeFunc
	runningG  prometheus.GaugeFunc
	memoryG   prometheus.GaugeFunc
	restartsN atomic.Int64
	jobsN     atomic.Int64
	failuresN atomic.Int64
}

// Stats is a snapshot of a supervisor's counters.
type Stats struct {
	Spare                    bool // a spare process is ready
	Queued, Running          int
	Jobs, Failures, Restarts int64
}

// New returns a supervisor; call Start before Run.
func New(cfg Config) *Supervisor {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = runtime.NumCPU()
	}
	if cfg.MaxQueue < 0 {
		cfg.MaxQueue = 0
	} else if cfg.MaxQueue == 0 {
		cfg.MaxQueue = 4 * cfg.Concurrency
	}
	if cfg.JobTimeout <= 0 {
		cfg.JobTimeout = 60 * time.Second
	}
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = 30 * time.Second
	}
	if cfg.TempRoot == "" {
		cfg.TempRoot = os.TempDir()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	s := &Supervisor{cfg: cfg, log: cfg.Logger.With("engine", cfg.Name), slots: make(chan *slot, cfg.Concurrency), done: make(chan struct{})}
	for i := range cfg.Concurrency {
		// The first processes recycle at staggered counts (slot i of n after MaxJobs·(n−i)/n
		// jobs), so that jobs spread evenly over the slots do not retire every process at
		// once: one warm spare can only stand in for one of them at a time.
		sl := &slot{id: i, limit: cfg.MaxJobs - i*cfg.MaxJobs/max(cfg.Concurrency, 1)}
		if cfg.New != nil {
			sl.proc = cfg.New(i)
		}
		s.all = append(s.all, sl)
		s.slots <- sl
	}
	labels := prometheus.Labels{"engine": cfg.Name}
	s.restarts = prometheus.NewCounter(prometheus.CounterOpts{Name: "papierkram_engine_restarts_total", Help: "Processes restarted (crash, hang, health, recycling).", ConstLabels: labels})
	s.jobs = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "papierkram_engine_jobs_total", Help: "Jobs by result.", ConstLabels: labels}, []string{"result"})
	s.durations = prometheus.NewHistogram(prometheus.HistogramOpts{Name: "papierkram_engine_job_duration_seconds", Help: "Job run time, queueing excluded.", ConstLabels: labels,
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}})
	s.slotsG = prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "papierkram_engine_slots", Help: "Processes the engine runs jobs in at once (its concurrency).", ConstLabels: labels},
		func() float64 { return float64(cfg.Concurrency) })
	s.queueLen = prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "papierkram_engine_queue_length", Help: "Jobs waiting for a slot.", ConstLabels: labels},
		func() float64 { return float64(s.Stats().Queued) })
	s.memoryG = prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "papierkram_engine_memory_bytes", Help: "Anonymous resident memory the engine's processes held after their last jobs.", ConstLabels: labels},
		func() float64 {
			var sum int64
			for _, sl := range s.all {
				sum += sl.memory.Load()
			}
			return float64(sum)
		})
	s.runningG = prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "papierkram_engine_running", Help: "Jobs running.", ConstLabels: labels},
		func() float64 { return float64(s.active.Load()) })
	return s
}

// Name is the engine's name.
func (s *Supervisor) Name() string { return s.cfg.Name }

// Describe and Collect make a Supervisor a prometheus.Collector.
func (s *Supervisor) Describe(ch chan<- *prometheus.Desc) {
	s.restarts.Describe(ch)
	s.memoryG.Describe(ch)
	s.slotsG.Describe(ch)
	s.jobs.Describe(ch)
	s.durations.Describe(ch)
	s.queueLen.Describe(ch)
	s.runningG.Describe(ch)
}

func (s *Supervisor) Collect(ch chan<- prometheus.Metric) {
	s.restarts.Collect(ch)
	s.memoryG.Collect(ch)
	s.slotsG.Collect(ch)
	s.jobs.Collect(ch)
	s.durations.Collect(ch)
	s.queueLen.Collect(ch)
	s.runningG.Collect(ch)
}

// Start starts the pool's processes when the engine is eager; lazy engines start nothing.
func (s *Supervisor) Start(ctx context.Context) error {
	if !s.cfg.Eager {
		return nil
	}
	return s.Warm(ctx)
}

// Warm starts every slot's process (and the spare, when the engine keeps one) now, eager
// or not, so that the first requests do not wait for cold starts. It returns when they run
// or the first fails; a request that comes meanwhile waits for its slot as it would anyway.
func (s *Supervisor) Warm(ctx context.Context) error {
	if s.cfg.New == nil {
		return nil // a process per job: nothing to keep warm
	}
	// Until its processes run, the engine is not ready: a load balancer that checks /ready
	// sends this instance nothing that would wait for a cold start.
	s.warming.Add(1)
	defer s.warming.Add(-1)
	start := time.Now()
	for range s.cfg.Concurrency {
		var sl *slot
		select {
		case sl = <-s.slots:
		case <-ctx.Done():
			return ctx.Err()
		}
		err := s.ensure(ctx, sl)
		s.slots <- sl
		if err != nil {
			return err
		}
	}
	// The spare counts as warm too: until it runs, a recycle would wait for a cold start
	// (and a benchmark's first requests would share the cores with its start).
	s.mu.Lock()
	starting := s.starting
	s.mu.Unlock()
	if starting != nil {
		select {
		case <-starting:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.log.Info("engine warm", "processes", s.cfg.Concurrency, "spare", s.Stats().Spare, "duration", time.Since(start).Round(time.Millisecond).String())
	return nil
}

// Worker is what a job gets: its process (nil for process-per-job programs) and a temporary
// directory of its own.
type Worker struct {
	proc   Process
	dir    string
	retire string
}

// Retire asks for the job's process to be replaced once the job ends, whatever its outcome:
// for a job that leaves state in the process that no later job may see.
func (w *Worker) Retire(why string) { w.retire = why }

// Process is the pool process the job runs on, or nil.
func (w *Worker) Process() Process { return w.proc }

// TempDir is the job's directory; it is removed when the job ends, whatever happened.
func (w *Worker) TempDir() string { return w.dir }

// Exec runs a program for the job (see package function Exec) with the job's directory as
// its working directory unless c.Dir says otherwise.
func (w *Worker) Exec(ctx context.Context, c Command) (stdout, stderr []byte, err error) {
	if c.Dir == "" {
		c.Dir = w.dir
	}
	return Exec(ctx, c)
}

// Run runs job on a free slot, waiting in the queue when all are busy. It fails at once
// with fault.Busy when the queue is full, with fault.Timeout when the job runs over
// JobTimeout, with fault.Canceled when ctx ends first, and with fault.EngineUnavailable
// after Stop or when the process cannot be started.
func (s *Supervisor) Run(ctx context.Context, job func(ctx context.Context, w *Worker) error) (err error) {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return fault.New(fault.EngineUnavailable, "the %s engine is shutting down", s.cfg.Name)
	}
	s.running.Add(1)
	s.mu.Unlock()
	defer s.running.Done()

	if n := s.admitted.Add(1); n > int64(s.cfg.Concurrency+s.cfg.MaxQueue) {
		s.admitted.Add(-1)
		s.jobs.WithLabelValues("busy").Inc()
		return fault.New(fault.Busy, "the %s engine is busy (%d jobs running, %d waiting); retry shortly", s.cfg.Name, s.cfg.Concurrency, s.cfg.MaxQueue)
	}
	defer s.admitted.Add(-1)

	var sl *slot
	select {
	case sl = <-s.slots:
	case <-ctx.Done():
		s.jobs.WithLabelValues("canceled").Inc()
		return fault.Wrap(fault.Canceled, ctx.Err(), "the request ended while waiting for the %s engine", s.cfg.Name)
	case <-s.done:
		return fault.New(fault.EngineUnavailable, "the %s engine is shutting down", s.cfg.Name)
	}
	s.active.Add(1)
	defer func() {
		s.active.Add(-1)
		s.mu.Lock()
		stopped := s.stopped
		s.mu.Unlock()
		if stopped && sl.proc != nil && sl.started { // Stop came while this job ran
			sl.proc.Stop()
			sl.started = false
		}
		s.slots <- sl
	}()

	if err := s.ensure(ctx, sl); err != nil {
		s.jobs.WithLabelValues("error").Inc()
		return err
	}
	dir, err := os.MkdirTemp(s.cfg.TempRoot, "papierkram-"+s.cfg.Name+"-")
	if err != nil {
		return fmt.Errorf("engine %s: temp dir: %w", s.cfg.Name, err)
	}
	defer os.RemoveAll(dir)

	jctx, cancel := context.WithTimeout(ctx, s.cfg.JobTimeout)
	defer cancel()
	start := time.Now()
	w := &Worker{proc: sl.proc, dir: dir}
	err = s.call(jctx, job, w)
	s.durations.Observe(time.Since(start).Seconds())
	s.jobsN.Add(1)

	timedOut := errors.Is(jctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	switch {
	case timedOut:
		err = fault.Wrap(fault.Timeout, err, "the %s job ran over its time limit of %s and was stopped", s.cfg.Name, s.cfg.JobTimeout)
	case err != nil && ctx.Err() != nil:
		err = fault.Wrap(fault.Canceled, err, "the request ended during the %s job", s.cfg.Name)
	}
	result := "ok"
	if err != nil {
		s.failuresN.Add(1)
		result = "error"
		switch fault.CodeOf(err) {
		case fault.Timeout:
			result = "timeout"
		case fault.Canceled:
			result = "canceled"
		}
	}
	s.jobs.WithLabelValues(result).Inc()

	if sl.proc != nil && sl.started {
		sl.jobs++
		switch {
		case timedOut || (err != nil && ctx.Err() != nil):
			// The process may still be busy with the abandoned job: never hand it on.
			s.retire(sl, "job did not finish")
		case w.retire != "": // before the health check, which a stuck process answers slowly
			s.retire(sl, w.retire)
		case err != nil && sl.proc.Healthy(context.WithoutCancel(ctx)) != nil:
			s.retire(sl, "unhealthy after a failed job")
		case sl.limit > 0 && sl.jobs >= sl.limit:
			s.retire(sl, "recycled after max jobs")
		case s.overMemory(sl):
			s.retire(sl, "recycled over its memory limit")
		}
	}
	return err
}

// overMemory measures the slot's process after a job (when it can tell) and says whether
// it holds more than MaxMemory.
func (s *Supervisor) overMemory(sl *slot) bool {
	m, ok := sl.proc.(Measured)
	if !ok {
		return false
	}
	if time.Since(sl.measured) < memoryEvery {
		return false // its last measure was under the limit, or it was retired then
	}
	b, err := m.Memory()
	if err != nil {
		return false
	}
	sl.measured = time.Now()
	sl.memory.Store(b)
	return s.cfg.MaxMemory > 0 && b > s.cfg.MaxMemory
}

// jobGrace is how long a job may take to return after its time is up, and again after its
// process was stopped, before Run returns without it.
const jobGrace = time.Second

// call runs the job and returns when it does, or soon after its context ends even if it
// does not: a job stuck in its process (a browser that stopped answering) has the process
// stopped under it, so that the caller hears of the time limit on time.
func (s *Supervisor) call(ctx context.Context, job func(context.Context, *Worker) error, w *Worker) error {
	done := make(chan error, 1)
	go func() { done <- s.guarded(ctx, job, w) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	select {
	case err := <-done:
		return err
	case <-time.After(jobGrace):
	}
	if w.proc != nil {
		w.proc.Stop() // Run retires the slot's process anyway: the job's context ended
	}
	select {
	case err := <-done:
		return err
	case <-time.After(jobGrace):
		s.log.Error("a job did not return after its time limit and its process's stop; abandoned")
		return fault.Wrap(fault.Timeout, ctx.Err(), "the %s job did not end with its time limit", s.cfg.Name)
	}
}

// guarded runs the job, turning a panic into an internal error so that the slot and the
// temp directory are still cleaned up.
func (s *Supervisor) guarded(ctx context.Context, job func(context.Context, *Worker) error, w *Worker) (err error) {
	defer func() {
		if v := recover(); v != nil {
			s.log.Error("job panicked", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			err = fault.New(fault.Internal, "the %s job failed unexpectedly", s.cfg.Name)
		}
	}()
	return job(ctx, w)
}

// ensure makes sure a pool slot has a started, healthy process.
func (s *Supervisor) ensure(ctx context.Context, sl *slot) error {
	if sl.proc == nil {
		return nil
	}
	if sl.started {
		if err := sl.proc.Healthy(ctx); err == nil {
			return nil
		}
		s.retire(sl, "unhealthy")
		if sl.started { // the spare took its place
			return nil
		}
	}
	sctx, cancel := context.WithTimeout(ctx, s.cfg.StartTimeout)
	defer cancel()
	if err := sl.proc.Start(sctx); err != nil {
		sl.proc.Stop()
		// A Process is started once: the goroutines of a failed start may still read its
		// fields, so the next try gets a fresh one.
		sl.proc = s.cfg.New(sl.id)
		if fault.As(err) != nil {
			return err
		}
		return fault.Wrap(fault.EngineUnavailable, err, "the %s engine cannot be started", s.cfg.Name)
	}
	sl.started, sl.jobs = true, 0
	s.fillSpare()
	return nil
}

// fillSpare starts a spare process in the background unless one is there or on its way.
func (s *Supervisor) fillSpare() {
	if !s.cfg.Spare || s.cfg.New == nil {
		return
	}
	s.mu.Lock()
	if s.stopped || s.spare != nil || s.starting != nil {
		s.mu.Unlock()
		return
	}
	done := make(chan struct{})
	s.starting = done
	s.mu.Unlock()
	go func() {
		defer close(done)
		p := s.cfg.New(-1)
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.StartTimeout)
		err := p.Start(ctx)
		cancel()
		s.mu.Lock()
		s.starting = nil
		if err == nil && !s.stopped {
			s.spare = p
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		p.Stop()
		if err != nil {
			s.log.Warn("spare process did not start", "error", err)
		}
	}()
}

// takeSpare returns the spare if there is a healthy one, and starts the next.
func (s *Supervisor) takeSpare() Process {
	s.mu.Lock()
	p := s.spare
	s.spare = nil
	s.mu.Unlock()
	if p != nil {
		ctx, cancel := context.WithTimeout(context.Background(), s.cfg.StartTimeout)
		defer cancel()
		if err := p.Healthy(ctx); err != nil {
			p.Stop()
			p = nil
		}
	}
	s.fillSpare()
	return p
}

// retire stops a slot's process; the next job on the slot starts a fresh one.
func (s *Supervisor) retire(sl *slot, why string) {
	if err := sl.proc.Stop(); err != nil {
		s.log.Warn("stop process", "slot", sl.id, "error", err)
	}
	sl.started, sl.limit = false, s.cfg.MaxJobs
	sl.memory.Store(0)
	sl.measured = time.Time{}
	if p := s.takeSpare(); p != nil {
		sl.proc, sl.started, sl.jobs = p, true, 0
	} else {
		sl.proc = s.cfg.New(sl.id)
	}
	s.restarts.Inc()
	s.restartsN.Add(1)
	s.log.Info("process restarted", "slot", sl.id, "reason", why, "spare", sl.started)
}

// Ready reports whether the engine can take work: not stopped, not starting its processes
// (Warm), its program installed.
func (s *Supervisor) Ready(ctx context.Context) error {
	s.mu.Lock()
	stopped := s.stopped
	s.mu.Unlock()
	if stopped {
		return fault.New(fault.EngineUnavailable, "the %s engine is stopped", s.cfg.Name)
	}
	if s.warming.Load() > 0 {
		return fault.New(fault.EngineUnavailable, "the %s engine is starting its processes (--warm)", s.cfg.Name)
	}
	if s.cfg.Binary != "" {
		if _, err := exec.LookPath(s.cfg.Binary); err != nil {
			return fault.Wrap(fault.EngineUnavailable, err, "%s is not installed", s.cfg.Binary)
		}
	}
	return nil
}

// Stop refuses new jobs, waits for running ones (as long as ctx allows), then stops every
// process.
func (s *Supervisor) Stop(ctx context.Context) error {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return nil
	}
	s.stopped = true
	close(s.done)
	spare := s.spare
	s.spare = nil
	s.mu.Unlock()
	if spare != nil {
		spare.Stop()
	}
	finished := make(chan struct{})
	go func() { s.running.Wait(); close(finished) }()
	var err error
	select {
	case <-finished:
	case <-ctx.Done():
		err = fmt.Errorf("engine %s: jobs still running at shutdown: %w", s.cfg.Name, ctx.Err())
	}
	// Stop the idle slots' processes; a job still running stops its own when it returns.
	var idle []*slot
	for len(idle) < len(s.all) {
		select {
		case sl := <-s.slots:
			if sl.proc != nil && sl.started {
				sl.proc.Stop()
				sl.started = false
			}
			idle = append(idle, sl)
			continue
		default:
		}
		break
	}
	for _, sl := range idle {
		s.slots <- sl
	}
	return err
}

// Stats returns the supervisor's counters.
func (s *Supervisor) Stats() Stats {
	running := s.active.Load()
	s.mu.Lock()
	spare := s.spare != nil
	s.mu.Unlock()
	return Stats{
		Spare:    spare,
		Queued:   int(max(s.admitted.Load()-running, 0)),
		Running:  int(running),
		Jobs:     s.jobsN.Load(),
		Failures: s.failuresN.Load(),
		Restarts: s.restartsN.Load(),
	}
}
