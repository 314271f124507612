// Package testpg starts private PostgreSQL clusters for tests: Debian's own binaries
// (initdb and postgres from the postgresql package that scripts/setup.sh installs),
// a data directory in a temporary directory, listening on a free loopback port only.
// No mocks: the tests talk to the real server the service talks to in production.
//
// Start gives one test a cluster of its own. A package whose tests all need PostgreSQL
// starts one cluster for all of them instead (starting one costs about a second):
//
//	func TestMain(m *testing.M) { os.Exit(testpg.Main(m)) }
//
// and each test takes a fresh, empty database on it with StartShared(t).
//
// Only tests import this package.
package testpg

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is a running PostgreSQL cluster owned by the test process.
type Cluster struct {
	base    string // the temporary directory holding data/, sock/ and the server log
	bin     string // the directory of initdb and postgres
	port    int
	cred    *syscall.Credential // the unprivileged user the server runs as when we are root
	server  *os.Process         // the postmaster, our child
	exited  chan struct{}       // closed once the postmaster has exited and been reaped
	stopped bool
}

// Start starts a cluster for t alone and returns the URL of an empty database on it.
// The cluster is stopped when t ends, and t fails if a server process outlives the stop.
func Start(t testing.TB) (url string) {
	t.Helper()
	c, err := startCluster()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Stop(); err != nil {
			t.Error(err)
		}
	})
	return c.NewDatabase(t)
}

var (
	mainRunning atomic.Bool
	sharedMu    sync.Mutex
	shared      *Cluster
	sharedErr   error
)

// Main runs the package's tests (call it from TestMain) and stops the shared cluster, if a
// test started one, when they are done. It returns the exit code for os.Exit.
func Main(m *testing.M) int {
	mainRunning.Store(true)
	code := m.Run()
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared != nil {
		if err := shared.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}
	return code
}

// Shared returns the cluster all tests of the package share, starting it on first use: tests
// that never ask for it (or a child process the tests run) start none. It needs Main in
// TestMain, which stops it; without Main it would outlive the tests.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	if !mainRunning.Load() {
		t.Fatal("testpg: the shared cluster needs func TestMain(m *testing.M) { os.Exit(testpg.Main(m)) }")
	}
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil && sharedErr == nil {
		shared, sharedErr = startCluster()
	}
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

// StartShared returns the URL of a new empty database on the shared cluster (see Shared),
// dropped when t ends.
func StartShared(t testing.TB) (url string) {
	t.Helper()
	return Shared(t).NewDatabase(t)
}

// DataDir is the cluster's data directory, for tests that look at what the server wrote.
func (c *Cluster) DataDir() string { return filepath.Join(c.base, "data") }

// URL is the address of database db on the cluster, as its superuser "postgres".
func (c *Cluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

var dbSeq atomic.Int64

// NewDatabase creates an empty database, dropped when t ends, and returns its URL. Tests that
// share a cluster each get their own, so that none sees another's rows or schema version.
func (c *Cluster) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("t%d_%d", os.Getpid(), dbSeq.Add(1))
	if err := c.exec(fmt.Sprintf(`CREATE DATABASE %q`, name)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if c.stopped {
			return // went with its cluster
		}
		// FORCE ends the sessions of pools a test forgot to close.
		if err := c.exec(fmt.Sprintf(`DROP DATABASE IF EXISTS %q WITH (FORCE)`, name)); err != nil {
			t.Error(err)
		}
	})
	return c.URL(name)
}

// exec runs one statement in the maintenance database.
func (c *Cluster) exec(sql string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		return fmt.Errorf("testpg: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		return fmt.Errorf("testpg: %s: %w", sql, err)
	}
	return nil
}

// binDir finds the directory of initdb and postgres: Debian's versioned one (the newest major version), or initdb on PATH.
func binDir() (string, error) {
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	major := func(p string) int {
		n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(p))))
		return n
	}
	sort.Slice(found, func(i, j int) bool { return major(found[i]) > major(found[j]) })
	if len(found) > 0 {
		return filepath.Dir(found[0]), nil
	}
	p, err := exec.LookPath("initdb")
	if err != nil {
		return "", errors.New("testpg: no PostgreSQL server binaries (initdb, postgres): run make setup, which installs Debian's postgresql")
	}
	// initdb finds postgres beside itself; follow a symlink on PATH to the real directory.
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
	}
	return filepath.Dir(p), nil
}

// serverUser is who runs the server: initdb and postgres refuse to run as root, so as root
// the postgres system user (or nobody) does; otherwise we do.
func serverUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 == nil && err2 == nil && uid != 0 {
			return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
		}
	}
	return nil, errors.New("testpg: running as root, and there is neither a postgres nor a nobody user to run the server as")
}

// tempParent is where the cluster's directory goes: the usual temporary directory, unless
// the server's user could not reach into it (a TMPDIR under /root, say).
func tempParent(cred *syscall.Credential) string {
	dir := os.TempDir()
	if cred == nil {
		return dir
	}
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return "/tmp"
		}
		if d == filepath.Dir(d) {
			return dir
		}
	}
}

func startCluster() (*Cluster, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	cred, err := serverUser()
	if err != nil {
		return nil, err
	}
	// Not t.TempDir: its parent is private to root, and the server's user must reach the
	// data directory; this directory is removed by Stop.
	base, err := os.MkdirTemp(tempParent(cred), "testpg-")
	if err != nil {
		return nil, fmt.Errorf("testpg: %w", err)
	}
	c := &Cluster{base: base, bin: bin, cred: cred}
	ok := false
	defer func() {
		if !ok {
			c.Stop()
		}
	}()
	if err := os.Mkdir(filepath.Join(base, "sock"), 0o700); err != nil {
		return nil, fmt.Errorf("testpg: %w", err)
	}
	if cred != nil {
		for _, d := range []string{base, filepath.Join(base, "sock")} {
			if err := os.Chown(d, int(cred.Uid), int(cred.Gid)); err != nil {
				return nil, fmt.Errorf("testpg: %w", err)
			}
		}
	}
	data := c.DataDir()
	// --no-sync and fsync=off: a test cluster never needs to survive a power loss, and
	// syncing is most of the time initdb and a test's writes take.
	if out, err := c.run("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8",
		"--locale=C", "--no-sync", "--no-instructions"); err != nil {
		return nil, fmt.Errorf("testpg: initdb: %v\n%s", err, out)
	}
	conf := fmt.Sprintf(`
# testpg: a private test cluster, reachable on loopback only.
listen_addresses = '127.0.0.1'
unix_socket_directories = '%s'
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 32MB
max_connections = 100
`, filepath.Join(base, "sock"))
	f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return nil, fmt.Errorf("testpg: %w", err)
	}
	_, err = f.WriteString(conf)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("testpg: %w", err)
	}
	// A free port can be taken by someone else between our probe and the server's bind:
	// then the server exits and another port is tried.
	var startErr error
	for range 3 {
		if c.port, err = freePort(); err != nil {
			return nil, err
		}
		if startErr = c.startServer(); startErr == nil {
			ok = true
			return c, nil
		}
		if c.server != nil {
			break // it runs but does not answer: another port would not help
		}
	}
	return nil, startErr
}

// startServer runs postgres itself as our child rather than through pg_ctl, which detaches
// it: a detached server outlives a test binary killed by -timeout, and its exit is reaped by
// nobody in a container whose PID 1 does not reap. Our child gets the parent-death signal
// SIGQUIT (PostgreSQL's immediate shutdown) and we reap it.
func (c *Cluster) startServer() error {
	logPath := filepath.Join(c.base, "server.log")
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("testpg: %w", err)
	}
	defer logf.Close() // the child has its own copy
	cmd := c.command("postgres", "-D", c.DataDir(), "-p", strconv.Itoa(c.port))
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr.Pdeathsig = syscall.SIGQUIT
	started := make(chan error, 1)
	exited := make(chan struct{})
	go func() {
		// The kernel sends the parent-death signal when the thread that started the child
		// ends, not the process: hold this thread until the child is gone. Returning
		// without unlocking then ends the thread, as it should.
		runtime.LockOSThread()
		if err := cmd.Start(); err != nil {
			started <- err
			close(exited)
			return
		}
		started <- nil
		cmd.Wait()
		close(exited)
	}()
	if err := <-started; err != nil {
		return fmt.Errorf("testpg: start postgres: %w", err)
	}
	c.server, c.exited = cmd.Process, exited
	// Ready when it accepts a connection (what pg_ctl -w waits for, too).
	deadline := time.Now().Add(time.Minute)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return nil
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(logPath)
			c.server, c.exited = nil, nil
			return fmt.Errorf("testpg: postgres exited at start:\n%s", log)
		default:
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(logPath)
			return fmt.Errorf("testpg: postgres not ready after a minute: %v\n%s", err, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("testpg: free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// run runs one of the PostgreSQL programs as the server's user, in the cluster's directory
// (the test's working directory may be closed to that user).
func (c *Cluster) run(name string, args ...string) ([]byte, error) {
	return c.command(name, args...).CombinedOutput()
}

func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(c.bin, name), args...)
	cmd.Dir = c.base
	cmd.Env = []string{"PATH=" + c.bin + ":/usr/bin:/bin", "LC_ALL=C", "LANG=C", "HOME=" + c.base, "TZ=UTC"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	return cmd
}

// Stop shuts the cluster down at once (SIGQUIT, PostgreSQL's immediate shutdown, as
// pg_ctl stop -m immediate sends: no checkpoint, the data is thrown away), checks that no
// server process is left, and removes its directory. Stopping twice does nothing.
func (c *Cluster) Stop() error {
	if c.stopped {
		return nil
	}
	c.stopped = true
	defer os.RemoveAll(c.base)
	if c.server == nil {
		return nil // never started
	}
	pids := c.serverPIDs()
	var errs []error
	c.server.Signal(syscall.SIGQUIT)
	select {
	case <-c.exited:
	case <-time.After(time.Minute):
		c.server.Kill()
		<-c.exited
		errs = append(errs, errors.New("testpg: postgres ignored SIGQUIT for a minute; killed it"))
	}
	// The postmaster exits after its children (it kills those that linger), so none may be
	// left now.
	if left := alive(pids); len(left) != 0 {
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		errs = append(errs, fmt.Errorf("testpg: server processes %v outlived the postmaster; killed them", left))
	}
	return errors.Join(errs...)
}

// serverPIDs are the postmaster and its children (from /proc).
func (c *Cluster) serverPIDs() []int {
	if c.server == nil {
		return nil
	}
	pm := c.server.Pid
	pids := []int{pm}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if _, ppid, ok := procStat(pid); ok && ppid == pm {
			pids = append(pids, pid)
		}
	}
	return pids
}

// procStat reads a process's state and parent from /proc/pid/stat.
func procStat(pid int) (state byte, ppid int, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses, so cut at the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 || len(f[0]) != 1 {
		return 0, 0, false
	}
	ppid, err = strconv.Atoi(f[1])
	return f[0][0], ppid, err == nil
}

// alive lists the pids that still run; a zombie has exited and only waits to be reaped
// by its parent (in a container, PID 1 may never do it).
func alive(pids []int) []int {
	var left []int
	for _, pid := range pids {
		if state, _, ok := procStat(pid); ok && state != 'Z' && state != 'X' {
			left = append(left, pid)
		}
	}
	return left
}
