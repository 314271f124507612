package testpg

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) { os.Exit(Main(m)) }

// TestStartAndStop checks what the tests built on this package rely on: a reachable empty
// database on loopback, fsync off, a server not running as root, and nothing left after Stop.
func TestStartAndStop(t *testing.T) {
	ctx := context.Background()
	c, err := startCluster()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	url := c.NewDatabase(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	settings := map[string]string{}
	for _, name := range []string{"fsync", "listen_addresses", "unix_socket_directories", "data_directory"} {
		var v string
		if err := conn.QueryRow(ctx, `SELECT current_setting($1)`, name).Scan(&v); err != nil {
			t.Fatal(err)
		}
		settings[name] = v
	}
	var tables int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE schemaname = 'public'`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	if settings["fsync"] != "off" || settings["listen_addresses"] != "127.0.0.1" ||
		!strings.HasPrefix(settings["unix_socket_directories"], c.base) || settings["data_directory"] != c.DataDir() || tables != 0 {
		t.Fatalf("settings %v, %d tables", settings, tables)
	}

	pids := c.serverPIDs()
	if len(pids) < 2 { // the postmaster and at least its checkpointer
		t.Fatalf("server processes %v", pids)
	}
	checked := 0
	for i, pid := range pids {
		uid, ok := procUID(t, pid)
		if !ok && i > 0 {
			// A backend (the one of the connection closed above) may exit between the
			// listing and this read; the postmaster, pids[0], may not.
			continue
		}
		if !ok {
			t.Fatalf("postmaster %d is gone", pid)
		}
		if uid == "0" {
			t.Fatalf("server process %d runs as root", pid)
		}
		checked++
	}
	if checked < 2 {
		t.Fatalf("checked %d of the server processes %v", checked, pids)
	}
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	if left := alive(pids); len(left) != 0 {
		t.Fatalf("processes %v outlived Stop", left)
	}
	if _, err := os.Stat(c.base); !os.IsNotExist(err) {
		t.Fatalf("cluster directory left behind: %v", err)
	}
	if _, err := pgx.Connect(ctx, url); err == nil {
		t.Fatal("the stopped cluster still answers")
	}
}

// TestServerDiesWithTestProcess kills (SIGKILL, as go test -timeout does) a child test
// process that started a cluster, and checks that the server does not outlive it.
func TestServerDiesWithTestProcess(t *testing.T) {
	if os.Getenv("TESTPG_CHILD") != "" {
		c, err := startCluster()
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Printf("server %d %s\n", c.server.Pid, c.base)
		select {} // until killed
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestServerDiesWithTestProcess$")
	cmd.Env = append(os.Environ(), "TESTPG_CHILD=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var pid int
	var base string
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if _, err := fmt.Sscanf(sc.Text(), "server %d %s", &pid, &base); err == nil {
			break
		}
		t.Log(sc.Text())
	}
	cmd.Process.Kill()
	cmd.Wait()
	if pid == 0 {
		t.Fatal("the child started no server")
	}
	defer os.RemoveAll(base)
	deadline := time.Now().Add(30 * time.Second)
	for len(alive([]int{pid})) != 0 {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("server %d outlived its test process by 30 s", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSharedGivesSeparateDatabases(t *testing.T) {
	ctx := context.Background()
	a, b := StartShared(t), StartShared(t)
	if a == b {
		t.Fatalf("one database twice: %s", a)
	}
	ca, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer ca.Close(ctx)
	if _, err := ca.Exec(ctx, `CREATE TABLE only_in_a (x int)`); err != nil {
		t.Fatal(err)
	}
	cb, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Close(ctx)
	var n int
	if err := cb.QueryRow(ctx, `SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("b sees a's table: %d %v", n, err)
	}
	if Shared(t) != Shared(t) {
		t.Fatal("two shared clusters")
	}
}

// procUID is the real uid of a process, from /proc/pid/status; ok is false when the
// process has exited.
func procUID(t *testing.T, pid int) (uid string, ok bool) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
		return "", false
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			return strings.Fields(rest)[0], true
		}
	}
	t.Fatalf("no Uid in /proc/%d/status", pid)
	return "", false
}
