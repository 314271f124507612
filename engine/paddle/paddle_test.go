package paddle

import (
	"context"
	"os"
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
