package store

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpg"
)

// TestPostgresReserveAcrossInstances is two service instances (two pools) taking from one
// key's allowance at once: exactly the limit is granted, however the calls interleave.
func TestPostgresReserveAcrossInstances(t *testing.T) {
	ctx := context.Background()
	url := testpg.StartShared(t)
	a, b := openPG(t, url), openPG(t, url)
	const limit, tries = 100, 104
	var granted atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := []*Postgres{a, b}[i%2]
			family := []string{"convert", "zugferd", "pdf-tools"}[i%3] // the allowance spans families
			<-start
			ok, err := s.ReserveConversion(ctx, "k1", "2026-11", family, limit)
			if err != nil {
				t.Error(err)
			}
			if ok {
				granted.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	if granted.Load() != limit {
		t.Fatalf("granted %d of %d, limit %d", granted.Load(), tries, limit)
	}
	var sum int64
	u, err := b.Usage(ctx, "k1", "2026-11")
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range u {
		sum += row.Conversions
	}
	if sum != limit || len(u) != 3 {
		t.Fatalf("usage %+v", u)
	}
	checkTotals(t, a)
}

// TestPostgresReserveAndReleaseConcurrently mixes reservations and releases from two
// instances: the statements lock the month total first, so none deadlocks, and the total
// stays the sum of the families.
func TestPostgresReserveAndReleaseConcurrently(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := testpg.StartShared(t)
	a, b := openPG(t, url), openPG(t, url)
	const limit = 10
	var wg sync.WaitGroup
	var inUse, maxInUse atomic.Int64
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := []*Postgres{a, b}[i%2]
			family := []string{"convert", "zugferd"}[i%2]
			for range 5 {
				ok, err := s.ReserveConversion(ctx, "k1", "2026-11", family, limit)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					continue
				}
				n := inUse.Add(1)
				for m := maxInUse.Load(); n > m && !maxInUse.CompareAndSwap(m, n); m = maxInUse.Load() {
				}
				inUse.Add(-1) // given back before the release: the counter may lag, never lead
				if err := s.ReleaseConversion(ctx, "k1", "2026-11", family); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if maxInUse.Load() > limit {
		t.Fatalf("%d conversions held at once, limit %d", maxInUse.Load(), limit)
	}
	checkTotals(t, a)
	u, _ := a.Usage(ctx, "k1", "2026-11")
	for _, row := range u {
		if row.Conversions != 0 {
			t.Fatalf("every reservation was released, yet %+v", row)
		}
	}
}

// checkTotals asserts the invariant ReserveConversion relies on: each month total equals the
// sum of its families.
func checkTotals(t *testing.T, p *Postgres) {
	t.Helper()
	var bad int
	err := p.pool.QueryRow(context.Background(), `SELECT count(*) FROM conversion_totals t FULL JOIN
		(SELECT key_id, month, SUM(conversions) AS s FROM usage GROUP BY key_id, month) u USING (key_id, month)
		WHERE COALESCE(t.conversions, 0) <> COALESCE(u.s, 0)`).Scan(&bad)
	if err != nil || bad != 0 {
		t.Fatalf("%d month totals differ from their families (%v)", bad, err)
	}
}

// TestPostgresConcurrentMigrations starts several instances on an empty database at once,
// as a deploy does: the advisory lock lets each migration run once and every instance start.
func TestPostgresConcurrentMigrations(t *testing.T) {
	url := testpg.StartShared(t)
	const n = 4
	errs := make([]error, n)
	stores := make([]*Postgres, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = OpenPostgres(context.Background(), url)
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("instance %d: %v", i, errs[i])
		}
		defer stores[i].Close()
	}
	rows, err := stores[0].pool.Query(context.Background(), `SELECT version FROM schema_migrations ORDER BY version`)
	if err != nil {
		t.Fatal(err)
	}
	var versions []int
	for rows.Next() {
		var v int
		rows.Scan(&v)
		versions = append(versions, v)
	}
	rows.Close()
	if len(versions) != len(postgresMigrations) || versions[0] != 1 || versions[len(versions)-1] != len(postgresMigrations) {
		t.Fatalf("schema versions %v, want 1..%d once each", versions, len(postgresMigrations))
	}
	if err := stores[n-1].CreateKey(context.Background(), &Key{Name: "a", Hash: Hash("a"), Plan: PlanFree}); err != nil {
		t.Fatal(err)
	}
}

func TestPostgresErrors(t *testing.T) {
	ctx := context.Background()
	s := openPG(t, testpg.StartShared(t))
	k := &Key{Name: "a", Hash: Hash("a"), Plan: PlanFree}
	if err := s.CreateKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateKey(ctx, &Key{Name: "b", Hash: Hash("a"), Plan: PlanFree}); fault.CodeOf(err) != fault.Conflict {
		t.Fatalf("same secret twice: %v", err)
	}
	// PostgreSQL text holds no NUL byte and only UTF-8; such input is the caller's fault.
	for _, f := range []*Font{
		{KeyID: "k1", Name: "nul", Family: "A\x00B", Format: "truetype", Data: []byte("x")},
		{KeyID: "k1", Name: "latin1", Family: "Caf\xe9", Format: "truetype", Data: []byte("x")},
	} {
		if err := s.PutFont(ctx, f); fault.CodeOf(err) != fault.InvalidInput {
			t.Fatalf("family %q: %v", f.Family, err)
		}
	}
	if _, err := s.Certificate(ctx, "k1", "\x00"); fault.CodeOf(err) != fault.InvalidInput {
		t.Fatalf("NUL in a lookup: %v", err)
	}
	// An empty file is stored as empty, not refused as NULL.
	if err := s.PutTemplate(ctx, &Template{KeyID: "k1", Name: "empty", Kind: "html"}); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Template(ctx, "k1", "empty"); err != nil || got.Data == nil || len(got.Data) != 0 || got.Size != 0 {
		t.Fatalf("empty template: %+v %v", got, err)
	}
	// A canceled request is reported as canceled, not as a store fault.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.ReserveConversion(cctx, "k1", "2026-11", "convert", 5); fault.CodeOf(err) != fault.Canceled {
		t.Fatalf("canceled reservation: %v (%s)", err, fault.CodeOf(err))
	}
}

func TestOpenPostgresRefusesBadURLs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, url := range []string{
		"postgres://user:s3cret-pw@host:notaport/db",
		"postgres://user:s3cret-pw@host/db?sslmode=sometimes",
		"postgres://user:s3cret-pw@[::1/db",
	} {
		_, err := OpenPostgres(ctx, url)
		if fault.CodeOf(err) != fault.InvalidInput {
			t.Fatalf("%s: %v", url, err)
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Fatalf("the error shows the password: %v", err)
		}
	}
	// Nobody listens on port 1: the open fails at once instead of at the first request.
	_, err := OpenPostgres(ctx, "postgres://user:s3cret-pw@127.0.0.1:1/db?connect_timeout=5")
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("unreachable server: %v", err)
	}
}

func TestOpenChoosesByURL(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, ok := s.(*SQLite); !ok {
		t.Fatalf("no URL gave %T", s)
	}
	url := testpg.StartShared(t)
	for _, u := range []string{url, "postgresql" + strings.TrimPrefix(url, "postgres")} {
		p, err := Open(ctx, u, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		p.Close()
		if _, ok := p.(*Postgres); !ok {
			t.Fatalf("%s gave %T", u, p)
		}
	}
	for _, u := range []string{"mysql://u:s3cret@h/db", "host=localhost password=s3cret", "sqlite:///tmp/x"} {
		st, err := Open(ctx, u, t.TempDir())
		if fault.CodeOf(err) != fault.InvalidInput || st != nil || strings.Contains(err.Error(), "s3cret") {
			t.Fatalf("%s: %v %v", u, st, err)
		}
	}
	// A failed open returns a nil Store, not a typed nil that would pass a != nil check.
	st, err := Open(ctx, "postgres://127.0.0.1:1/db?connect_timeout=5", "")
	if err == nil || st != nil {
		t.Fatalf("unreachable: %v %v", st, err)
	}
	var fe *fault.Error
	if errors.As(err, &fe) {
		t.Fatalf("an unreachable database is no caller fault: %v", err)
	}
}
