package poppler

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/internal/testpdf"
)

const bboxSample = `<!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head><title>x</title></head><body><doc>
<page width="595.35" height="841.95">
<flow><block xMin="56.7" yMin="110" xMax="148.8" yMax="152.4">
<line xMin="56.7" yMin="110" xMax="148.8" yMax="123.4"><word xMin="56.7" yMin="110" xMax="92.3" yMax="123.4">Adatum</word><word xMin="94.8" yMin="110" xMax="148.8" yMax="123.4">Corp &amp; Co</word></line>
</block></flow>
<flow><block xMin="508" yMin="110" xMax="567" yMax="123">
<line xMin="514" yMin="110" xMax="567" yMax="123"><word xMin="514" yMin="110" xMax="552" yMax="123">CRONUS</word><word xMin="554" yMin="110" xMax="567" yMax="123">DE</word></line>
</block></flow>
</page></doc></body></html>`

// TestParseBBox: words keep their boxes, lines, blocks and flows; entities are decoded.
func TestParseBBox(t *testing.T) {
	pages, err := ParseBBox(strings.NewReader(bboxSample))
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 1 || pages[0].Width != 595.35 || len(pages[0].Blocks) != 2 {
		t.Fatalf("pages %+v", pages)
	}
	b0, b1 := pages[0].Blocks[0], pages[0].Blocks[1]
	if b0.Flow != 0 || b1.Flow != 1 || len(b0.Lines) != 1 || len(b0.Lines[0].Words) != 2 {
		t.Fatalf("blocks %+v", pages[0].Blocks)
	}
	if w := b0.Lines[0].Words[1]; w.Text != "Corp & Co" || w.X0 != 94.8 || w.Y1 != 123.4 {
		t.Errorf("word %+v", w)
	}
	if w := b1.Lines[0].Words[0]; w.Text != "CRONUS" || w.X0 != 514 {
		t.Errorf("word %+v", w)
	}
}

// TestParseBBoxBroken: input cut off keeps the words read whole so far (the second column
// is cut inside its first word, so only the first is left); input without a page is
// an error or nothing, never a panic.
func TestParseBBoxBroken(t *testing.T) {
	pages, err := ParseBBox(strings.NewReader(bboxSample[:strings.Index(bboxSample, "CRONUS")]))
	if err != nil || len(pages) != 1 || len(pages[0].Blocks) != 1 || pages[0].Blocks[0].Lines[0].Words[0].Text != "Adatum" {
		t.Errorf("cut off: %+v, %v", pages, err)
	}
	if pages, _ := ParseBBox(strings.NewReader("<<<&&&")); len(pages) != 0 {
		t.Errorf("garbage gave %+v", pages)
	}
}

// TestParseBBoxLimits: a page count over the limit is cut at the limit.
func TestParseBBoxLimits(t *testing.T) {
	doc := "<doc>" + strings.Repeat(`<page width="1" height="1"><flow><block><line><word>x</word></line></block></flow></page>`, MaxLayoutPages+5) + "</doc>"
	pages, err := ParseBBox(strings.NewReader(doc))
	if err != nil || len(pages) != MaxLayoutPages {
		t.Errorf("%d pages, %v", len(pages), err)
	}
}

// TestLayout runs pdftotext on a two-column page: the columns are blocks of their own, in
// the places the PDF sets them.
func TestLayout(t *testing.T) {
	p := New(engine.Config{Concurrency: 1, TempRoot: t.TempDir(), JobTimeout: time.Minute})
	t.Cleanup(func() { p.Stop(context.Background()) })
	doc := testpdf.TextAt("Helvetica", 10, []testpdf.At{{X: 60, Y: 100, Text: "Links GmbH"}, {X: 60, Y: 112, Text: "Hauptstr. 1"}, {X: 400, Y: 100, Text: "Rechts AG"}, {X: 400, Y: 112, Text: "Nebenweg 2"}})
	pages, err := p.Layout(t.Context(), doc, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) != 1 {
		t.Fatalf("%d pages", len(pages))
	}
	var left, right []string
	for _, b := range pages[0].Blocks {
		for _, l := range b.Lines {
			s := ""
			for _, w := range l.Words {
				s += w.Text + " "
			}
			if b.X0 < 300 {
				left = append(left, strings.TrimSpace(s))
			} else {
				right = append(right, strings.TrimSpace(s))
			}
		}
	}
	if strings.Join(left, "|") != "Links GmbH|Hauptstr. 1" || strings.Join(right, "|") != "Rechts AG|Nebenweg 2" {
		t.Errorf("left %q, right %q", left, right)
	}
}

// FuzzParseBBox: any input parses without a panic, within the limits.
func FuzzParseBBox(f *testing.F) {
	f.Add(bboxSample)
	f.Add(`<page width="NaN" height="1e400"><block xMin="-1"><line><word>a`)
	f.Add(`<word>x</word><line><word>y</word></line>`)
	f.Fuzz(func(t *testing.T, s string) {
		pages, _ := ParseBBox(strings.NewReader(s))
		if len(pages) > MaxLayoutPages {
			t.Fatalf("%d pages", len(pages))
		}
		words := 0
		for _, p := range pages {
			for _, b := range p.Blocks {
				for _, l := range b.Lines {
					for _, w := range l.Words {
						words++
						if w.Text == "" || len(w.Text) > maxWordBytes {
							t.Fatalf("word %q", w.Text)
						}
					}
				}
			}
		}
		if words > MaxLayoutWords {
			t.Fatalf("%d words", words)
		}
	})
}
