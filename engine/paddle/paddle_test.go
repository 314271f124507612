package paddle

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine"
)

const dir = "js" // installed by scripts/setup.sh (npm ci)

func newPaddle(t *testing.T) *Paddle {
	if err := Installed(dir); err != nil {
		t.Fatalf("PaddleOCR is not installed: %v (run scripts/setup.sh)", err)
	}
	p := New(engine.Config{Concurrency: 1, TempRoot: t.TempDir(), JobTimeout: time.Minute}, dir)
	t.Cleanup(func() { p.Stop(context.Background()) })
	return p
}

// TestRead: a corpus receipt's address, a line item and the total line are read, the label
// and its amount on one line.
func TestRead(t *testing.T) {
	img, err := os.ReadFile("../../../shared/corpus/receipts/de-scans/aldi_02032020_19_02423.jpg")
	if err != nil {
		t.Fatal(err)
	}
	text, err := newPaddle(t).Read(t.Context(), img)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Pohlweg 110", "BIO HONIG 3,29", "24,23"} {
		if !strings.Contains(text, want) {
			t.Errorf("%q not read in:\n%s", want, text)
		}
	}
	var total bool
	for l := range strings.SplitSeq(text, "\n") {
		total = total || strings.Contains(strings.ToUpper(l), "ZAHLEN") && strings.Contains(l, "24,23")
	}
	if !total {
		t.Errorf("the total's label and amount are not on one line:\n%s", text)
	}
}

// servers are the pids of this process's `ocr.mjs --serve` children.
func servers(t *testing.T) []int {
	t.Helper()
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if strings.Contains(string(cmd), "ocr.mjs\x00--serve") && len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestWarmProcess: the models load once; readings after the first use the same process; a
// reading past its time stops that process, in bounded time, and the next reading gets a
// new one; Stop leaves no process behind.
func TestWarmProcess(t *testing.T) {
	img, err := os.ReadFile("../../../shared/corpus/receipts/de-scans/aldi_02032020_19_02423.jpg")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	p := New(engine.Config{Concurrency: 1, TempRoot: root, JobTimeout: time.Minute}, dir)
	t.Cleanup(func() { p.Stop(context.Background()) })
	var first []int
	for i := range 3 {
		text, err := p.Read(t.Context(), img)
		if err != nil || !strings.Contains(text, "24,23") {
			t.Fatalf("reading %d: %v\n%s", i, err, text)
		}
		pids := servers(t)
		if len(pids) != 1 {
			t.Fatalf("after reading %d: %d PaddleOCR processes, want 1", i, len(pids))
		}
		if first == nil {
			first = pids
			// onnxruntime's start-up log goes to the process's own TMPDIR, not /tmp.
			if logs, _ := filepath.Glob(filepath.Join(root, "papierkram-paddleocr-tmp-*", "mat-debug-*.log")); len(logs) != 1 {
				t.Errorf("onnxruntime's logs in the process's TMPDIR: %v", logs)
			}
		} else if pids[0] != first[0] {
			t.Fatalf("reading %d ran in process %d, the first in %d", i, pids[0], first[0])
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := p.Read(ctx, img); err == nil {
		t.Fatal("a reading with 50 ms succeeded")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("a reading past its time returned after %v", d)
	}
	text, err := p.Read(t.Context(), img)
	if err != nil || !strings.Contains(text, "24,23") {
		t.Fatalf("the reading after a timeout: %v\n%s", err, text)
	}
	if pids := servers(t); len(pids) != 1 || pids[0] == first[0] {
		t.Fatalf("after the timeout: processes %v, the stopped one was %d", pids, first[0])
	}
	if err := p.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if pids := servers(t); len(pids) != 0 {
		t.Fatalf("after Stop: processes %v", pids)
	}
	if left, _ := os.ReadDir(root); len(left) != 0 {
		t.Fatalf("after Stop, the temporary root holds %d entries, e.g. %s", len(left), left[0].Name())
	}
}

// TestBadInput: a damaged image is an error, in bounded time.
func TestBadInput(t *testing.T) {
	p := newPaddle(t)
	start := time.Now()
	if _, err := p.Read(t.Context(), []byte("\x89PNG\r\n\x1a\nnot really")); err == nil {
		t.Error("a damaged image was read")
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestInstalled names what is missing.
func TestInstalled(t *testing.T) {
	if err := Installed(t.TempDir()); err == nil || !strings.Contains(err.Error(), "ocr.mjs") {
		t.Errorf("an empty directory: %v", err)
	}
	if err := Installed(dir); err != nil {
		t.Errorf("js: %v", err)
	}
}

// TestScaleFor: a receipt's whole scan is shrunk by Scale, a few rows of one by PartScale;
// what is no image by Scale.
func TestScaleFor(t *testing.T) {
	encode := func(w, h int) []byte {
		var b bytes.Buffer
		if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	for _, c := range []struct {
		w, h int
		want float64
	}{{1000, 3000, Scale}, {2480, 3508, Scale}, {900, 400, PartScale}, {1000, 1000, PartScale}, {1000, 1001, Scale}} {
		if got := scaleFor(encode(c.w, c.h)); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%d × %d: scale %v, want %v", c.w, c.h, got, c.want)
		}
	}
	if got := scaleFor([]byte("no image")); got != Scale {
		t.Errorf("no image: scale %v", got)
	}
}
