package store

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"io/fs"
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
	"github.com/papierkram/papierkram/internal/testpg"
)

// One PostgreSQL cluster for the package; each test gets a database of its own on it.
func TestMain(m *testing.M) { os.Exit(testpg.Main(m)) }

// backend is one implementation of Store under the contract tests: every test of the
// contract runs against each, so that the two cannot drift apart.
type backend struct {
	name string
	// fresh returns where a new, empty store lives: a directory, or a database URL.
	fresh func(t *testing.T) string
	// open opens the store at loc, closed when t ends.
	open func(t *testing.T, loc string) Store
	// exec runs a statement on the store's database, for tests that reach past the interface.
	exec func(t *testing.T, s Store, sql string)
}

var backends = []backend{
	{
		name:  "sqlite",
		fresh: func(t *testing.T) string { return t.TempDir() },
		open:  func(t *testing.T, dir string) Store { return open(t, dir) },
		exec: func(t *testing.T, s Store, sql string) {
			t.Helper()
			if _, err := s.(*SQLite).db.Exec(sql); err != nil {
				t.Fatal(err)
			}
		},
	},
	{
		name:  "postgres",
		fresh: func(t *testing.T) string { return testpg.StartShared(t) },
		open:  func(t *testing.T, url string) Store { return openPG(t, url) },
		exec: func(t *testing.T, s Store, sql string) {
			t.Helper()
			if _, err := s.(*Postgres).pool.Exec(context.Background(), sql); err != nil {
				t.Fatal(err)
			}
		},
	},
}

// eachBackend runs fn as a subtest per implementation, with a new empty store.
func eachBackend(t *testing.T, fn func(t *testing.T, b backend, s Store)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) { fn(t, b, b.open(t, b.fresh(t))) })
	}
}

func open(t *testing.T, dir string) *SQLite {
	t.Helper()
	s, err := OpenSQLite(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func openPG(t *testing.T, url string) *Postgres {
	t.Helper()
	s, err := OpenPostgres(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestKeysLifecycle(t *testing.T) {
	eachBackend(t, func(t *testing.T, b backend, s Store) {
		ctx := context.Background()
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
		if got.ID != k.ID || got.Name != "ci" || got.Plan != PlanFree || got.MonthlyConversions() != 100 || got.Hash != k.Hash {
			t.Fatalf("got %+v", got)
		}
		// Both keep whole seconds, so a key reads back the same from either.
		if !got.CreatedAt.Equal(k.CreatedAt.Truncate(time.Second)) || got.CreatedAt.Location() != time.UTC {
			t.Fatalf("created %v, stored %v", got.CreatedAt, k.CreatedAt)
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
		first := *got.RevokedAt
		if err := s.RevokeKey(ctx, k.ID); err != nil { // again: keeps the first time
			t.Fatal(err)
		}
		if got, _ = s.KeyByHash(ctx, Hash(secret)); !got.RevokedAt.Equal(first) {
			t.Fatalf("second revocation moved the time: %v, was %v", got.RevokedAt, first)
		}
		if err := s.RevokeKey(ctx, "key_nope"); fault.CodeOf(err) != fault.NotFound {
			t.Fatalf("revoke unknown: %v", err)
		}
		if err := s.CreateKey(ctx, &Key{Name: "x", Hash: Hash("y"), Plan: "gold"}); fault.CodeOf(err) != fault.InvalidInput {
			t.Fatalf("bad plan: %v", err)
		}
		// A limit, negative or larger than 32 bits, survives the round trip.
		for i, limit := range []int{-1, 5000, 1 << 40} {
			kk := &Key{Name: "l", Hash: Hash(fmt.Sprint("limit", i)), Plan: PlanFree, Limit: limit}
			if err := s.CreateKey(ctx, kk); err != nil {
				t.Fatal(err)
			}
			if got, err := s.KeyByHash(ctx, kk.Hash); err != nil || got.Limit != limit {
				t.Fatalf("limit %d read back as %+v, %v", limit, got, err)
			}
		}
		keys, err := s.Keys(ctx)
		if err != nil || len(keys) != 4 {
			t.Fatalf("keys %v %v", keys, err)
		}
		// The secret itself is nowhere in the database's files.
		for _, f := range databaseFiles(t, b, s) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(data, []byte(secret)) {
				t.Fatalf("%s holds the plain secret", f)
			}
		}
	})
}

// databaseFiles lists the files the store's data is in: SQLite's database and WAL, or the
// whole PostgreSQL cluster after a checkpoint has written every change out of memory.
func databaseFiles(t *testing.T, b backend, s Store) []string {
	t.Helper()
	var root string
	switch s := s.(type) {
	case *SQLite:
		dir := filepath.Dir(s.path(t))
		return []string{filepath.Join(dir, "papierkram.db"), filepath.Join(dir, "papierkram.db-wal")}
	case *Postgres:
		b.exec(t, s, `CHECKPOINT`)
		root = testpg.Shared(t).DataDir()
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	if err != nil || len(files) < 100 { // a cluster has hundreds of files: make sure we read it
		t.Fatalf("cluster files: %d, %v", len(files), err)
	}
	return files
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
	eachBackend(t, func(t *testing.T, _ backend, s Store) {
		ctx := context.Background()
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
		if ok, err := s.ReserveConversion(ctx, "k3", "2026-11", "convert", 0); ok || err != nil {
			t.Fatalf("limit 0 granted a conversion: %v %v", ok, err)
		}
		// Releasing what a family never had gives nothing back to the month.
		if err := s.ReleaseConversion(ctx, "k1", "2026-11", "never"); err != nil {
			t.Fatal(err)
		}
		if ok, _ := s.ReserveConversion(ctx, "k1", "2026-11", "convert", limit); ok {
			t.Fatal("a release of an unused family freed a conversion")
		}
		u, _ := s.Usage(ctx, "k3", "2026-11")
		if len(u) != 0 {
			t.Fatalf("refused reservation counted: %+v", u)
		}
	})
}

func TestUsageCounters(t *testing.T) {
	eachBackend(t, func(t *testing.T, _ backend, s Store) {
		ctx := context.Background()
		for range 3 {
			if err := s.CountRequest(ctx, "k1", "2026-11", "pdf-tools"); err != nil {
				t.Fatal(err)
			}
		}
		s.CountRequest(ctx, "k2", "2026-11", "convert")
		s.AddCredits(ctx, "k1", "2026-11", "receipts", 7)
		s.AddCredits(ctx, "k1", "2026-11", "receipts", 5)
		s.ReserveConversion(ctx, "k1", "2026-11", "convert", -1)
		s.ReleaseConversion(ctx, "k1", "2026-11", "pdf-tools") // none to give back: stays 0
		u, err := s.Usage(ctx, "k1", "2026-11")
		if err != nil {
			t.Fatal(err)
		}
		want := []Usage{
			{KeyID: "k1", Month: "2026-11", Family: "convert", Conversions: 1},
			{KeyID: "k1", Month: "2026-11", Family: "pdf-tools", Requests: 3},
			{KeyID: "k1", Month: "2026-11", Family: "receipts", Credits: 12},
		}
		if fmt.Sprint(u) != fmt.Sprint(want) {
			t.Fatalf("usage rows %+v, want %+v", u, want)
		}
		all, _ := s.Usage(ctx, "", "2026-11")
		if len(all) != 4 || all[3].KeyID != "k2" {
			t.Fatalf("all keys: %+v", all)
		}
		if other, _ := s.Usage(ctx, "", "2026-10"); len(other) != 0 {
			t.Fatalf("another month: %+v", other)
		}
	})
}

func TestMigrationsAreIdempotent(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			loc := b.fresh(t)
			s := b.open(t, loc)
			s.CreateKey(context.Background(), &Key{Name: "a", Hash: Hash("a"), Plan: PlanAdmin})
			s.Close()
			s2 := b.open(t, loc) // must not re-run migration 1 (it would fail: table exists)
			keys, err := s2.Keys(context.Background())
			if err != nil || len(keys) != 1 {
				t.Fatalf("keys after reopen: %v %v", keys, err)
			}
		})
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			loc := b.fresh(t)
			s := b.open(t, loc)
			b.exec(t, s, `INSERT INTO schema_migrations (version, applied_at) VALUES (999, `+map[string]string{"sqlite": "0", "postgres": "now()"}[b.name]+`)`)
			s.Close()
			var err error
			if b.name == "sqlite" {
				_, err = OpenSQLite(context.Background(), loc)
			} else {
				_, err = OpenPostgres(context.Background(), loc)
			}
			if err == nil || !strings.Contains(err.Error(), "newer than this binary") {
				t.Fatalf("opened a schema from the future: %v", err)
			}
		})
	}
}

func TestMonthReset(t *testing.T) {
	got := MonthReset(time.Date(2026, 12, 31, 23, 0, 0, 0, time.UTC))
	if want := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Fatalf("reset %v, want %v", got, want)
	}
}

// TestKilledWriterLosesNothing runs a child process that writes keys and usage (and, with
// SQLite, files) as fast as it can and reports each committed write; the parent kills it
// with SIGKILL mid-stream and checks that the store is intact and holds every write the
// child reported.
func TestKilledWriterLosesNothing(t *testing.T) {
	if dir := os.Getenv("PAPIERKRAM_STORE_CHILD"); dir != "" {
		childWriter(dir, os.Getenv("PAPIERKRAM_STORE_CHILD_URL"))
		return
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			loc := b.fresh(t)
			dir, url := loc, ""
			if b.name == "postgres" {
				dir, url = t.TempDir(), loc
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterLosesNothing$")
			cmd.Env = append(os.Environ(), "PAPIERKRAM_STORE_CHILD="+dir, "PAPIERKRAM_STORE_CHILD_URL="+url)
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
				} else {
					t.Log(sc.Text())
				}
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			if acked < 150 {
				t.Fatalf("child acknowledged only %d writes", acked)
			}

			s := b.open(t, loc)
			if sq, ok := s.(*SQLite); ok {
				var check string
				if err := sq.db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
					t.Fatalf("integrity_check = %q, %v", check, err)
				}
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
			if url != "" {
				return // files on disk are SQLite's side of the store
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
		})
	}
}

func childWriter(dir, url string) {
	ctx := context.Background()
	s, err := Open(ctx, url, dir)
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
		if url == "" {
			if err := WriteFileAtomic(filepath.Join(dir, "files", fmt.Sprintf("f%d", i%5)), data, 0o600); err != nil {
				fmt.Println("error", err)
				os.Exit(1)
			}
		}
		fmt.Printf("ack %d\n", i)
	}
}

func TestCertificates(t *testing.T) {
	eachBackend(t, func(t *testing.T, _ backend, s Store) {
		ctx := context.Background()
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
		got, err := s.Certificate(ctx, "k1", "firma")
		if err != nil || got.NotBefore != nil || got.NotAfter != nil || got.Subject != "" {
			t.Fatalf("before SetCertificateInfo: %+v %v", got, err)
		}
		nb, na := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2028, 1, 1, 0, 0, 0, 0, time.UTC)
		if err := s.SetCertificateInfo(ctx, "k1", "firma", "CN=A", "CN=CA", nb, na); err != nil {
			t.Fatal(err)
		}
		got, err = s.Certificate(ctx, "k1", "firma")
		if err != nil || string(got.Data) != "p12 bytes" || got.Subject != "CN=A" || !got.NotBefore.Equal(nb) || !got.NotAfter.Equal(na) ||
			got.SHA256 != "ab" || !got.UploadedAt.Equal(c.UploadedAt.Truncate(time.Second)) {
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
		if _, err := s.Certificate(ctx, "k1", "firma"); fault.CodeOf(err) != fault.NotFound {
			t.Fatalf("deleted certificate: %v", err)
		}
		if sq, ok := s.(*SQLite); ok {
			fi, err := os.Stat(sq.path(t))
			if err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("database file mode %v %v", fi.Mode(), err)
			}
		}
	})
}

func TestTemplates(t *testing.T) {
	eachBackend(t, func(t *testing.T, _ backend, s Store) {
		ctx := context.Background()
		big := make([]byte, 3<<20) // incompressible, larger than any page or protocol buffer
		rand.Read(big)
		// Names sort bytewise in both stores: upper case before lower case.
		for _, tp := range []*Template{
			{KeyID: "k1", Name: "b", Kind: "zip", Data: big, SHA256: "s1"},
			{KeyID: "k1", Name: "a", Kind: "html", Data: []byte("<p>{{.x}}</p>"), SHA256: "s2"},
			{KeyID: "k1", Name: "B", Kind: "docx", Data: []byte{0, 1, 2, 0}, SHA256: "s3"},
		} {
			if err := s.PutTemplate(ctx, tp); err != nil {
				t.Fatal(err)
			}
			if tp.Size != int64(len(tp.Data)) {
				t.Fatalf("size %d after put, want %d", tp.Size, len(tp.Data))
			}
		}
		if err := s.PutTemplate(ctx, &Template{KeyID: "k1", Name: "a", Kind: "html", Data: []byte("x")}); fault.CodeOf(err) != fault.Conflict {
			t.Fatalf("duplicate: %v", err)
		}
		got, err := s.Template(ctx, "k1", "b")
		if err != nil || !bytes.Equal(got.Data, big) || got.Size != int64(len(big)) || got.Kind != "zip" || got.SHA256 != "s1" {
			t.Fatalf("template b: %v (size %d)", err, got.Size)
		}
		if got, err := s.Template(ctx, "k1", "B"); err != nil || !bytes.Equal(got.Data, []byte{0, 1, 2, 0}) {
			t.Fatalf("template B: %+v %v", got, err)
		}
		list, err := s.Templates(ctx, "k1")
		if err != nil || len(list) != 3 {
			t.Fatalf("list %v %v", list, err)
		}
		var names []string
		for _, tp := range list {
			if tp.Data != nil {
				t.Fatalf("listing holds data of %s", tp.Name)
			}
			names = append(names, fmt.Sprintf("%s:%d", tp.Name, tp.Size))
		}
		if want := fmt.Sprintf("[B:4 a:13 b:%d]", len(big)); fmt.Sprint(names) != want {
			t.Fatalf("listing %v, want %s", names, want)
		}
		if _, err := s.Template(ctx, "k2", "a"); fault.CodeOf(err) != fault.NotFound {
			t.Fatalf("other key: %v", err)
		}
		if list, err := s.Templates(ctx, "k2"); err != nil || list == nil || len(list) != 0 {
			t.Fatalf("other key lists %v %v", list, err)
		}
		if err := s.DeleteTemplate(ctx, "k2", "a"); fault.CodeOf(err) != fault.NotFound {
			t.Fatalf("delete other key's: %v", err)
		}
		if err := s.DeleteTemplate(ctx, "k1", "a"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Template(ctx, "k1", "a"); fault.CodeOf(err) != fault.NotFound {
			t.Fatalf("deleted template: %v", err)
		}
	})
}

func TestFonts(t *testing.T) {
	eachBackend(t, func(t *testing.T, _ backend, s Store) {
		ctx := context.Background()
		regular := &Font{KeyID: "k1", Name: "Inter-Regular", Family: "Inter", Weight: 400, Format: "truetype", Data: []byte("ttf bytes"), SHA256: "s1"}
		italic := &Font{KeyID: "k1", Name: "Inter-BoldItalic", Family: "Inter", Weight: 700, Italic: true, Format: "opentype", Data: []byte("otf"), SHA256: "s2"}
		for _, f := range []*Font{regular, italic} {
			if err := s.PutFont(ctx, f); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.PutFont(ctx, regular); fault.CodeOf(err) != fault.Conflict {
			t.Fatalf("duplicate: %v", err)
		}
		for _, withData := range []bool{false, true} {
			fonts, err := s.Fonts(ctx, "k1", withData)
			if err != nil || len(fonts) != 2 {
				t.Fatalf("fonts %v %v", fonts, err)
			}
			f := fonts[0] // Inter-BoldItalic sorts first
			if f.Name != "Inter-BoldItalic" || f.Family != "Inter" || f.Weight != 700 || !f.Italic || f.Format != "opentype" ||
				f.Size != 3 || f.SHA256 != "s2" || f.UploadedAt.Location() != time.UTC || (string(f.Data) == "otf") != withData {
				t.Fatalf("withData %v: %+v", withData, f)
			}
			if fonts[1].Italic || fonts[1].Weight != 400 || fonts[1].Size != 9 {
				t.Fatalf("regular: %+v", fonts[1])
			}
		}
		if fonts, err := s.Fonts(ctx, "k2", true); err != nil || fonts == nil || len(fonts) != 0 {
			t.Fatalf("other key: %v %v", fonts, err)
		}
		if err := s.DeleteFont(ctx, "k1", "Inter-Regular"); err != nil {
			t.Fatal(err)
		}
		if err := s.DeleteFont(ctx, "k1", "Inter-Regular"); fault.CodeOf(err) != fault.NotFound {
			t.Fatalf("second delete: %v", err)
		}
		if fonts, _ := s.Fonts(ctx, "k1", false); len(fonts) != 1 {
			t.Fatalf("after delete: %v", fonts)
		}
	})
}

// TestDuplicateKey: the same secret twice is a conflict in both stores.
func TestDuplicateKey(t *testing.T) {
	eachBackend(t, func(t *testing.T, _ backend, s Store) {
		if err := s.CreateKey(t.Context(), &Key{Name: "a", Hash: Hash("dup"), Plan: PlanFree}); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateKey(t.Context(), &Key{Name: "b", Hash: Hash("dup"), Plan: PlanFree}); fault.CodeOf(err) != fault.Conflict {
			t.Fatalf("same secret twice: %v", err)
		}
	})
}

func TestPing(t *testing.T) {
	eachBackend(t, func(t *testing.T, _ backend, s Store) {
		if err := s.Ping(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
}
