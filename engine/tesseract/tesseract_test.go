package tesseract

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
)

func newTesseract(t *testing.T) *Tesseract {
	ts := New(engine.Config{Concurrency: 1, TempRoot: t.TempDir()})
	t.Cleanup(func() { ts.Supervisor().Stop(context.Background()) })
	return ts
}

// TestRead reads a real scanned receipt: its total line and a mean confidence come back.
func TestRead(t *testing.T) {
	img, err := os.ReadFile("../../../shared/corpus/receipts/de-scans/aldi_02032020_19_02423.jpg")
	if err != nil {
		t.Fatal(err)
	}
	p, err := newTesseract(t).Read(t.Context(), img, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Text, "ZU ZAHLEN EURO 24,23") || p.Words < 50 || p.Confidence < 40 || p.Confidence > 100 {
		t.Errorf("words %d, confidence %.1f, text:\n%s", p.Words, p.Confidence, p.Text)
	}
	rot, _, err := newTesseract(t).Orientation(t.Context(), img)
	if err != nil || rot != 0 {
		t.Errorf("orientation %d, %v", rot, err)
	}
}

// TestReadGarbage: bytes that are no image are the caller's fault, not the server's.
func TestReadGarbage(t *testing.T) {
	_, err := newTesseract(t).Read(t.Context(), []byte("not an image"), Options{})
	if fault.CodeOf(err) != fault.InvalidInput {
		t.Errorf("err = %v (%s)", err, fault.CodeOf(err))
	}
}

func TestParseOSD(t *testing.T) {
	r, c := parseOSD("Page number: 0\nOrientation in degrees: 270\nRotate: 90\nOrientation confidence: 12.34\nScript: Latin\n")
	if r != 90 || c != 12.34 {
		t.Errorf("%d %v", r, c)
	}
}
