package main

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/papierkram/papierkram/internal/testpg"
)

// TestTwoInstancesShareOneQuota: two `papierkram serve` processes on one PostgreSQL
// database answer for a key made by `papierkram keys create` against it, and 104 racing
// metered conversions for that free key, spread over both, give exactly 100 successes and
// 4 answers 429 quota_exceeded: the allowance is counted once across instances. On SIGTERM
// an instance drains: /ready fails while it still answers, then it exits.
func TestTwoInstancesShareOneQuota(t *testing.T) {
	bin := binary(t)
	url := testpg.Start(t)
	out, err := exec.Command(bin, "keys", "create", "--database-url", url, "--name", "shared", "--plan", "free").Output()
	if err != nil {
		t.Fatalf("keys create: %v", err)
	}
	key := strings.TrimSpace(string(out))
	var bases []string
	var procs []*exec.Cmd
	var exits []chan error
	for i := range 2 {
		addr := freeAddr(t)
		// The first instance drains for 10 s after SIGTERM (see the end of the test).
		cmd := exec.Command(bin, "serve", "--addr", addr, "--database-url", url, "--data-dir", t.TempDir(), "--rate-limit", "0", "--log-format", "json", "--drain-delay", []string{"10s", "0s"}[i])
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		t.Cleanup(func() {
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				t.Error("an instance did not stop within 30 s of SIGTERM")
			}
		})
		base := "http://" + addr
		for deadline := time.Now().Add(30 * time.Second); ; {
			if res, err := http.Get(base + "/ready"); err == nil {
				res.Body.Close()
				if res.StatusCode == 200 {
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatal("an instance did not become ready")
			}
			time.Sleep(50 * time.Millisecond) // polling with a deadline, not waiting for an event
		}
		bases = append(bases, base)
		procs, exits = append(procs, cmd), append(exits, exited)
	}
	for _, b := range bases {
		if status, who := get(t, b+"/api/auth/validate", key); status != 200 || who["valid"] != true {
			t.Fatalf("%s does not know the key: %d %v", b, status, who)
		}
	}
	// A workbook made once (generating is not metered), then converted to CSV: a metered
	// conversion that runs in process, so the test measures the quota, not an engine.
	req, _ := http.NewRequest("POST", bases[0]+"/api/spreadsheets/generate", strings.NewReader(`{"sheets":[{"name":"a","columns":[{"header":"x","type":"number"}],"rows":[[1],[2]]}]}`))
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	book, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("generate: %d %s", res.StatusCode, book)
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	w, _ := mw.CreateFormFile("file", "book.xlsx")
	w.Write(book)
	mw.WriteField("to", "csv")
	mw.Close()
	statuses := map[int]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for i := range 104 {
		wg.Go(func() {
			req, _ := http.NewRequest("POST", bases[i%2]+"/api/spreadsheets/convert", bytes.NewReader(body.Bytes()))
			req.Header.Set("X-API-Key", key)
			req.Header.Set("Content-Type", mw.FormDataContentType())
			res, err := http.DefaultClient.Do(req)
			status := 0
			if err == nil {
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				status = res.StatusCode
				if status == 429 && !strings.Contains(string(b), "quota_exceeded") {
					status = -429
				}
			}
			mu.Lock()
			statuses[status]++
			mu.Unlock()
		})
	}
	wg.Wait()
	if statuses[200] != 100 || statuses[429] != 4 {
		t.Fatalf("statuses %v, want 100 × 200 and 4 × 429 quota_exceeded", statuses)
	}
	for _, b := range bases {
		status, u := get(t, b+"/api/usage", key)
		conv, _ := u["conversions"].(map[string]any)
		if status != 200 || conv["used"] != float64(100) {
			t.Fatalf("%s usage: %d %v", b, status, u)
		}
	}

	// SIGTERM: the first instance keeps answering while /ready says draining, so a load
	// balancer stops sending before its listener closes; then it exits cleanly.
	procs[0].Process.Signal(syscall.SIGTERM)
	for deadline := time.Now().Add(10 * time.Second); ; {
		status, r := get(t, bases[0]+"/ready", "")
		if status == 503 && r["checks"].(map[string]any)["instance"] == "draining" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/ready never reported draining: %d %v", status, r)
		}
		time.Sleep(20 * time.Millisecond) // polling with a deadline
	}
	if status, _ := get(t, bases[0]+"/api/auth/validate", key); status != 200 {
		t.Fatalf("a draining instance refused a request: %d", status)
	}
	if status, _ := get(t, bases[1]+"/ready", ""); status != 200 {
		t.Fatalf("the other instance is not ready: %d", status)
	}
	select {
	case err := <-exits[0]:
		if err != nil {
			t.Fatalf("exit after draining: %v", err)
		}
		exits[0] <- nil // for the cleanup's wait
	case <-time.After(40 * time.Second):
		t.Fatal("no exit 40 s after SIGTERM")
	}
}
