package store

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/papierkram/papierkram/fault"
)

func open(t *testing.T, dir string) *SQLite {
	t.Helper()
	s, err := OpenSQLite(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestKeysLifecycle(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	secret := NewSecret()
	if !strings.HasPrefix(secret, "pk_") || len(secret) < 30 {
		t.Fatalf("secret %q", secret)
	}
	k := &Key{Name: "ci", Hash: Hash(secret), Plan: PlanFree}
	if err := s.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	got, err := s.KeyByHash(ctx, Hash(secret))
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != k.ID || got.Name != "ci" || got.Plan != PlanFree || got.MonthlyConversions() != 100 {
		t.Fatalf("got %+v", got)
	}
	if _, err := s.KeyByHash(ctx, Hash(secret+"x")); fault.CodeOf(err) != fault.Unauthorized {
		t.Fatalf("unknown key: %v", err)
	}
	if err := s.RevokeKey(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	got, _ = s.KeyByHash(ctx, Hash(secret))
	if got.RevokedAt == nil {
		t.Fatal("revocation not stored")
	}
	if err := s.RevokeKey(ctx, "key_nope"); fault.CodeOf(err) != fault.NotFound {
		t.Fatalf("revoke unknown: %v", err)
	}
	if err := s.CreateKey(ctx, &Key{Name: "x", Hash: Hash("y"), Plan: "gold"}); fault.CodeOf(err) != fault.InvalidInput {
		t.Fatalf("bad plan: %v", err)
	}
	// The secret itself is nowhere in the database files.
	for _, f := range []string{"papierkram.db", "papierkram.db-wal"} {
		b, _ := os.ReadFile(filepath.Join(filepath.Dir(s.path(t)), f))
		if bytes.Contains(b, []byte(secret)) {
			t.Fatalf("%s holds the plain secret", f)
		}
	}
}

// path returns the database file of s, for tests that inspect it.
func (s *SQLite) path(t *testing.T) string {
	var seq int
	var name, file string
	if err := s.db.QueryRow(`PRAGMA database_list`).Scan(&seq, &name, &file); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestReserveConversionIsAtomic(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	const limit, tries = 100, 160
	var granted atomic.Int64
	var wg sync.WaitGroup
	for i := range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			family := []string{"convert", "zugferd"}[i%2]
			ok, err := s.ReserveConversion(ctx, "k1", "2026-11", family, limit)
			if err != nil {
				t.Error(err)
			}
			if ok {
				granted.Add(1)
			}
		}()
	}
	wg.Wait()
	if granted.Load() != limit {
		t.Fatalf("granted %d of %d tries, limit %d", granted.Load(), tries, limit)
	}
	// A release gives one back; another month is untouched.
	if err := s.ReleaseConversion(ctx, "k1", "2026-11", "convert"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.ReserveConversion(ctx, "k1", "2026-11", "convert", limit); !ok {
		t.Fatal("released conversion not available again")
	}
	if ok, _ := s.ReserveConversion(ctx, "k1", "2026-11", "convert", limit); ok {
		t.Fatal("101st conversion granted")
	}
	if ok, _ := s.ReserveConversion(ctx, "k1", "2026-12", "convert", limit); !ok {
		t.Fatal("new month has no allowance")
	}
	if ok, _ := s.ReserveConversion(ctx, "k2", "2026-11", "convert", -1); !ok {
		t.Fatal("unlimited key refused")
	}
}

func TestUsageCounters(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir())
	for range 3 {
		if err := s.CountRequest(ctx, "k1", "2026-11", "pdf-tools"); err != nil {
			t.Fatal(err)
		}
	}
	s.CountRequest(ctx, "k2", "2026-11", "convert")
	s.AddCredits(ctx, "k1", "2026-11", "receipts", 7)
	s.ReserveConversion(ctx, "k1", "2026-11", "convert", -1)
	u, err := s.Usage(ctx, "k1", "2026-11")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Usage{
		"convert":   {KeyID: "k1", Month: "2026-11", Family: "convert", Conversions: 1},
		"pdf-tools": {KeyID: "k1", Month: "2026-11", Family: "pdf-tools", Requests: 3},
		"receipts":  {KeyID: "k1", Month: "2026-11", Family: "receipts", Credits: 7},
	}
	if len(u) != len(want) {
		t.Fatalf("usage rows %+v", u)
	}
	for _, row := range u {
		if row != want[row.Family] {
			t.Fatalf("row %+v, want %+v", row, want[row.Family])
		}
	}
	all, _ := s.Usage(ctx, "", "2026-11")
	if len(all) != 4 {
		t.Fatalf("all keys: %d rows", len(all))
	}
}

func TestMigrationsAreIdempotent(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	s.CreateKey(context.Background(), &Key{Name: "a", Hash: Hash("a"), Plan: PlanAdmin})
	s.Close()
	s2 := open(t, dir) // second open must not re-run migration 1 (it would fail: table exists)
	keys, err := s2.Keys(context.Background())
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys after reopen: %v %v", keys, err)
	}
}

func TestMonthReset(t *testing.T) {
	got := MonthReset(time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC))
	if want := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Fatalf("reset %v, want %v", got, want)
	}
}

// TestKilledWriterLosesNothing runs a child process that writes keys, usage and files as fast
// as it can and reports each committed write; the parent kills it with SIGKILL mid-stream and
// checks that the database is intact and holds every write the child reported.
func TestKilledWriterLosesNothing(t *testing.T) {
	if dir := os.Getenv("PAPIERKRAM_STORE_CHILD"); dir != "" {
		childWriter(dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterLosesNothing$")
	cmd.Env = append(os.Environ(), "PAPIERKRAM_STORE_CHILD="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if n, ok := strings.CutPrefix(sc.Text(), "ack "); ok {
			acked, _ = strconv.Atoi(n)
			if acked >= 150 {
				break
			}
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if acked < 150 {
		t.Fatalf("child acknowledged only %d writes", acked)
	}

	s := open(t, dir)
	var check string
	if err := s.db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
	keys, err := s.Keys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) < acked {
		t.Fatalf("child acknowledged %d keys, %d survived", acked, len(keys))
	}
	u, _ := s.Usage(context.Background(), "child", "2026-11")
	if len(u) != 1 || u[0].Requests < int64(acked) {
		t.Fatalf("usage after kill: %+v (acked %d)", u, acked)
	}
	for i := 1; i <= acked; i++ {
		b, err := os.ReadFile(filepath.Join(dir, "files", fmt.Sprintf("f%d", i%5)))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte("content ")) || len(b) != 64*1024 {
			t.Fatalf("file f%d torn: %d bytes", i%5, len(b))
		}
	}
}

func childWriter(dir string) {
	ctx := context.Background()
	s, err := OpenSQLite(ctx, dir)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	data := bytes.Repeat([]byte("x"), 64*1024)
	copy(data, "content ")
	for i := 1; ; i++ {
		secret := fmt.Sprintf("secret-%d", i)
		if err := s.CreateKey(ctx, &Key{Name: secret, Hash: Hash(secret), Plan: PlanFree}); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		if err := s.CountRequest(ctx, "child", "2026-11", "convert"); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		if err := WriteFileAtomic(filepath.Join(dir, "files", fmt.Sprintf("f%d", i%5)), data, 0o600); err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Printf("ack %d\n", i)
	}
}

func TestCertificates(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := open(t, dir)
	c := &Certificate{KeyID: "k1", Name: "firma", Data: []byte("p12 bytes"), SHA256: "ab"}
	if err := s.PutCertificate(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := s.PutCertificate(ctx, c); fault.CodeOf(err) != fault.Conflict {
		t.Fatalf("duplicate: %v", err)
	}
	// Another key sees nothing of k1's.
	if _, err := s.Certificate(ctx, "k2", "firma"); fault.CodeOf(err) != fault.NotFound {
		t.Fatalf("other key: %v", err)
	}
	if list, _ := s.Certificates(ctx, "k2"); len(list) != 0 {
		t.Fatalf("other key lists %v", list)
	}
	nb, na := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := s.SetCertificateInfo(ctx, "k1", "firma", "CN=A", "CN=CA", nb, na); err != nil {
		t.Fatal(err)
	}
	got, err := s.Certificate(ctx, "k1", "firma")
	if err != nil || string(got.Data) != "p12 bytes" || got.Subject != "CN=A" || !got.NotAfter.Equal(na) {
		t.Fatalf("got %+v %v", got, err)
	}
	list, _ := s.Certificates(ctx, "k1")
	if len(list) != 1 || list[0].Data != nil || list[0].Issuer != "CN=CA" {
		t.Fatalf("list %+v", list)
	}
	if err := s.DeleteCertificate(ctx, "k1", "firma"); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteCertificate(ctx, "k1", "firma"); fault.CodeOf(err) != fault.NotFound {
		t.Fatalf("second delete: %v", err)
	}
	fi, err := os.Stat(filepath.Join(dir, "papierkram.db"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("database file mode %v %v", fi.Mode(), err)
	}
}
