package server

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBatchKeepsWhatItRead: a batch that cannot be read within the server's write deadline
// still answers, in time, with a result for every file: those read, and the rest marked as
// not read for lack of time. Before, the deadline cut the answer and every result was lost.
func TestBatchKeepsWhatItRead(t *testing.T) {
	const write = 8 * time.Second
	e := newTestEnv(t, func(c *Config) { c.WriteTimeout = write })
	ts := httptest.NewUnstartedServer(e.srv.Handler())
	ts.Config.WriteTimeout = write // the real server's deadline: past it, the client gets nothing
	ts.Start()
	defer ts.Close()

	scans, _ := filepath.Glob(filepath.Join(scanDir, "*.jpg"))
	if len(scans) < 20 {
		t.Fatalf("%d scans in the corpus", len(scans))
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, p := range scans[:20] {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := mw.CreateFormFile("files", filepath.Base(p))
		w.Write(b)
	}
	mw.Close()
	req, _ := http.NewRequest("POST", ts.URL+"/api/receipts/extract-batch", &body)
	req.Header.Set("X-API-Key", testKey)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("answer %d, %v: %.300s", res.StatusCode, err, b)
	}
	var out struct {
		Count, Succeeded, Failed int
		Results                  []struct {
			Filename string
			Success  bool
			Error    string
		}
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	late := 0
	for i, r := range out.Results {
		if r.Filename != filepath.Base(scans[i]) {
			t.Errorf("result %d is for %q, want %q", i, r.Filename, filepath.Base(scans[i]))
		}
		if strings.Contains(r.Error, "time ran out") {
			late++
		}
	}
	// Twenty full OCRs on two Tesseract processes take far longer than the batch's few
	// seconds, on any machine: some must be reported as not read.
	if out.Count != 20 || len(out.Results) != 20 || out.Succeeded+out.Failed != 20 || late == 0 {
		t.Errorf("count %d, %d results, %d read, %d failed, %d late", out.Count, len(out.Results), out.Succeeded, out.Failed, late)
	}
	t.Logf("%d read, %d failed (%d for lack of time)", out.Succeeded, out.Failed, late)
}
