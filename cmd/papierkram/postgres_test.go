package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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
		// The first instance drains for 10 s after SIGTERM (see the end of the test).
		base, cmd, exited := startInstance(t, bin, url, "--rate-limit", "0", "--drain-delay", []string{"10s", "0s"}[i])
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

// startInstance runs `papierkram serve` on a free loopback port against the database and
// waits until it is ready; the test's end stops it with SIGTERM.
func startInstance(t *testing.T, bin, url string, args ...string) (base string, cmd *exec.Cmd, exited chan error) {
	t.Helper()
	addr := freeAddr(t)
	cmd = exec.Command(bin, append([]string{"serve", "--addr", addr, "--database-url", url, "--data-dir", t.TempDir(), "--log-format", "json", "--warm", "none"}, args...)...)
	// Its temporary files go to a directory the test removes: an instance a test kills
	// (SIGKILL) cannot remove its own run directory, and would leave it in /tmp.
	tmp, err := os.MkdirTemp("", "papierkram-instance-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited = make(chan error, 1)
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
	base = "http://" + addr
	for deadline := time.Now().Add(30 * time.Second); ; {
		if res, err := http.Get(base + "/ready"); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return base, cmd, exited
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("an instance did not become ready")
		}
		time.Sleep(50 * time.Millisecond) // polling with a deadline, not waiting for an event
	}
}

// TestAJobOutlivesItsInstance: instance A accepts an asynchronous receipt extraction that
// waits for the language model (the stand-in on 127.0.0.1 holds A's request back);
// instance B, started then, answers for the job; A is killed (SIGKILL) in the middle of it,
// and the job completes on B with exactly one completed webhook.
func TestAJobOutlivesItsInstance(t *testing.T) {
	bin := binary(t)
	url := testpg.Start(t)
	out, err := exec.Command(bin, "keys", "create", "--database-url", url, "--name", "jobs", "--plan", "admin").Output()
	if err != nil {
		t.Fatalf("keys create: %v", err)
	}
	key := strings.TrimSpace(string(out))
	receiptScan, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "corpus", "receipts", "de-scans", "aldi_02032020_19_02423.jpg"))
	if err != nil {
		t.Fatal(err)
	}

	held := make(chan struct{}, 1)
	release := make(chan struct{})
	defer close(release)
	var mu sync.Mutex
	var asked int
	var hooks []map[string]any
	var deliveries []string
	hooked := make(chan struct{}, 4)
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		asked++
		first := asked == 1
		mu.Unlock()
		if first { // A's question: held until A is gone
			held <- struct{}{}
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "model": "test-vision",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": aldiAnswer}}},
			"usage":   map[string]any{"prompt_tokens": 900, "completion_tokens": 120, "total_tokens": 1020},
		})
	})
	mux.HandleFunc("/hook", func(w http.ResponseWriter, r *http.Request) {
		var p map[string]any
		json.NewDecoder(r.Body).Decode(&p)
		mu.Lock()
		hooks = append(hooks, p)
		deliveries = append(deliveries, r.Header.Get("X-Service-Delivery"))
		mu.Unlock()
		hooked <- struct{}{}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	peer := &http.Server{Handler: mux}
	go peer.Serve(ln)
	defer peer.Close()
	local := "http://" + ln.Addr().String()
	t.Setenv("PAPIERKRAM_LLM_BASE_URL", local+"/v1")
	t.Setenv("PAPIERKRAM_LLM_MODEL", "test-vision")
	t.Setenv("PAPIERKRAM_LLM_TIMEOUT", "10m")

	flags := []string{"--allow-network", "127.0.0.1/32", "--async-timeout", "45s", "--async-rescue-after", "1s"}
	a, aCmd, aExited := startInstance(t, bin, url, flags...)
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("file", "aldi.jpg")
	fw.Write(receiptScan)
	mw.Close()
	req, _ := http.NewRequest("POST", a+"/api/receipts/extract-async?callbackUrl="+local+"/hook", &form)
	req.Header.Set("X-API-Key", key)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var job map[string]any
	json.NewDecoder(res.Body).Decode(&job)
	res.Body.Close()
	id, _ := job["jobId"].(string)
	if res.StatusCode != 202 || id == "" {
		t.Fatalf("submit: %d %v", res.StatusCode, job)
	}
	select {
	case <-held:
	case <-time.After(2 * time.Minute):
		_, j := get(t, a+"/api/receipts/jobs/"+id, key)
		t.Fatalf("A never asked the model: %v", j)
	}
	b, _, _ := startInstance(t, bin, url, flags...)
	if status, j := get(t, b+"/api/receipts/jobs/"+id, key); status != 200 || j["status"] != "running" {
		t.Fatalf("B on A's job: %d %v", status, j)
	}
	aCmd.Process.Kill()
	<-aExited
	aExited <- nil // for the cleanup's wait

	select {
	case <-hooked:
	case <-time.After(3 * time.Minute):
		t.Fatal("no webhook 3 minutes after A was killed")
	}
	status, j := get(t, b+"/api/receipts/jobs/"+id, key)
	result, _ := j["result"].(map[string]any)
	if status != 200 || j["status"] != "completed" || result == nil || result["source"] != "LLM" {
		t.Fatalf("B after the rescue: %d %v", status, j)
	}
	if data, _ := result["data"].(map[string]any); data["issuer"] != "ALDI GmbH & Co. KG" || data["gross"] != "24.23" {
		t.Fatalf("extraction %v", data)
	}
	// Exactly one completed event: the job's one webhook job has finished in the database
	// (so no retry is pending) and the receiver saw one call.
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for deadline := time.Now().Add(time.Minute); ; {
		var n, done int
		if err := conn.QueryRow(context.Background(), `SELECT count(*), count(*) FILTER (WHERE state = 'completed') FROM river_job
			WHERE kind = 'papierkram_webhook' AND args->>'jobId' = $1`, id).Scan(&n, &done); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("%d webhook jobs", n)
		}
		if done == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the webhook job did not finish")
		}
		time.Sleep(20 * time.Millisecond) // polling with a deadline
	}
	mu.Lock()
	defer mu.Unlock()
	if len(hooks) != 1 || hooks[0]["event"] != "receipt.extraction.completed" || hooks[0]["jobId"] != id || deliveries[0] == "" || hooks[0]["deliveryId"] != deliveries[0] {
		t.Fatalf("webhooks %v (deliveries %v)", hooks, deliveries)
	}
}

// aldiAnswer is the model's reading of the ALDI receipt of the corpus.
const aldiAnswer = `{"type":"CASH_RECEIPT","issuer":"ALDI GmbH & Co. KG","issuerAddress":"Pohlweg 110, 33100 Paderborn","issuerVatId":"","date":"2020-03-02","time":"09:48","reference":"8746","currency":"EUR","gross":24.23,"net":22.32,"vat":1.91,"paymentMethod":"CASH","vatBreakdown":[{"rate":7,"net":17.33,"vat":1.21,"gross":18.54},{"rate":19,"net":4.78,"vat":0.91,"gross":5.69}],"items":[{"description":"BIO HONIG","quantity":1,"unitPrice":3.99,"total":3.99}],"language":"de","country":"DE","details":{"from":"","to":"","class":"","nights":null,"litres":null,"fuelType":"","parkingDuration":""}}`
