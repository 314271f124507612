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

// TestParseTSV: words keep their boxes, confidences and lines; rows of other levels, empty
// words and malformed rows are skipped.
func TestParseTSV(t *testing.T) {
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t1654\t2339\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t120\t80\t210\t32\t96.5\tRechnung\n" +
		"5\t1\t1\t1\t1\t2\t340\t80\t90\t32\t90\tNr.\n" +
		"5\t1\t1\t1\t1\t3\tx\t80\t90\t32\t90\tbroken\n" +
		"5\t1\t1\t1\t1\t4\t500\t80\t90\t32\t-1\t \n" +
		"5\t1\t1\t1\t2\t1\t120\t130\t100\t32\t80\tSumme\n" +
		"5\t1\t2\t1\t1\t1\t120\t180\t100\t32\t80\tDatum\n" +
		"5\t1\t2\t1\t1\t2\t240\t180\t100\t32\t80\t01.02.2026\n"
	mean, words, boxes := parseTSV([]byte(tsv))
	if words != 6 || len(boxes) != 5 || mean < 86 || mean > 87 {
		t.Fatalf("mean %v, %d words, boxes %+v", mean, words, boxes)
	}
	if b := boxes[0]; b.Text != "Rechnung" || b.Left != 120 || b.Top != 80 || b.Width != 210 || b.Height != 32 || b.Confidence != 96.5 {
		t.Errorf("box %+v", b)
	}
	for i, want := range []int{0, 0, 1, 2, 2} {
		if boxes[i].Line != want {
			t.Errorf("box %d (%s) on line %d, want %d", i, boxes[i].Text, boxes[i].Line, want)
		}
	}
}

// FuzzParseTSV: any output parses without a panic, within MaxBoxes.
func FuzzParseTSV(f *testing.F) {
	f.Add("5\t1\t1\t1\t1\t1\t120\t80\t210\t32\t96.5\tRechnung\n")
	f.Add("5\t1\t1\t1\t1\t1\t-5\t99999999999\t0\t32\tNaN\tx\n")
	f.Fuzz(func(t *testing.T, s string) {
		_, words, boxes := parseTSV([]byte(s))
		if len(boxes) > MaxBoxes || len(boxes) > words {
			t.Fatalf("%d boxes of %d words", len(boxes), words)
		}
	})
}
