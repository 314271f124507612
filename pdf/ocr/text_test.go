package ocr

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
)

// TestPageTexts: a page of text is read as poppler reads it, a scanned page by
// Tesseract, in page order, and no more than maxPages pages.
func TestPageTexts(t *testing.T) {
	pop, ts := engines(t)
	in := scanPDF(t, scanPage{text: true, box: a4}, scanPage{jpeg: scan(t, textPDF(0, 0), 300), box: a4}, scanPage{text: true, box: a4})
	got, err := PageTexts(context.Background(), pop, pop, ts, in, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d pages", len(got))
	}
	for i, text := range got {
		for _, want := range []string{"Gesamtbetrag 1.234,56 EUR", "Rechnung"} {
			if !strings.Contains(text, want) {
				t.Errorf("page %d lacks %q:\n%s", i+1, want, text)
			}
		}
	}
	// Without a Recognizer the scan stays as poppler read it: without letters.
	got, err = PageTexts(context.Background(), pop, pop, nil, in, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || letters(got[1]) != 0 || !strings.Contains(got[0], "Gesamtbetrag") {
		t.Errorf("text only, 2 pages: %q", got)
	}
}

// TestPageTextsRefuses: bad input and options get their fault codes.
func TestPageTextsRefuses(t *testing.T) {
	pop, ts := engines(t)
	good := testpdf.New(2)
	cases := []struct {
		name string
		data []byte
		max  int
		tr   TextReader
		code fault.Code
	}{
		{"not a PDF", []byte("hello, world"), 10, pop, fault.InvalidPDF},
		{"truncated", good[:len(good)/2], 10, pop, fault.InvalidPDF},
		{"no pages asked", good, 0, pop, fault.InvalidInput},
		{"no poppler", good, 10, nil, fault.EngineUnavailable},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := PageTexts(context.Background(), pop, c.tr, ts, c.data, c.max)
			if !fault.Is(err, c.code) {
				t.Errorf("error %v, want %s", err, c.code)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := PageTexts(ctx, pop, pop, ts, good, 10); err == nil {
		t.Error("a cancelled request read pages")
	}
}

// TestPageTextsDespiteObjectDefects: a PDF the strict reader refuses for a defect of its
// object graph alone (a date written "+00:00") has its pages read, as poppler reads them.
func TestPageTextsDespiteObjectDefects(t *testing.T) {
	pop, _ := engines(t)
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "corpus", "zugferd/2.3-examples/3. EN16931/EN16931_Einfach/EN16931_Einfach.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.ReplaceAll(data, []byte(`\05300\04700\047`), []byte(`\05300\07200\047`)) // same length
	if bytes.Equal(bad, data) {
		t.Fatal("the example's dates are not where the test expects them")
	}
	got, err := PageTexts(context.Background(), pop, pop, nil, bad, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 || !strings.Contains(got[0], "Lieferant GmbH") {
		t.Errorf("pages %q", got)
	}
}
