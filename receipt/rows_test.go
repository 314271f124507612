package receipt

import (
	"strings"
	"testing"

	"github.com/papierkram/papierkram/engine/tesseract"
)

// TestRowsText: two address blocks side by side whose lines stand at different heights
// come out row by row, the right block's words at their column; a phrase's words one
// space apart, a label and its value far apart two spaces or more.
func TestRowsText(t *testing.T) {
	box := func(x, y int, s string) tesseract.WordBox {
		return tesseract.WordBox{Left: x, Top: y, Width: 20 * len(s), Height: 30, Text: s}
	}
	boxes := []tesseract.WordBox{
		// Tesseract's blocks: the left column first, then the right one.
		box(100, 100, "Ma"), box(160, 100, "jolie"), box(280, 100, "boutique"),
		box(100, 140, "69001"), box(220, 140, "Lyon"),
		box(900, 80, "Ma"), box(960, 80, "jolie"), box(1080, 80, "boutique"),
		box(900, 122, "Alexandre"), box(1100, 122, "Payet"),
		box(100, 300, "Total"), box(210, 302, "TTC"), box(900, 298, "671,15"),
	}
	lines := strings.Split(strings.TrimRight(rowsText(boxes), "\n"), "\n")
	want := []string{"Ma jolie boutique", "Ma jolie boutique", "Alexandre Payet", "69001 Lyon", "Total TTC 671,15"}
	if len(lines) != len(want) {
		t.Fatalf("rows %q", lines)
	}
	for i, l := range lines {
		if strings.Join(strings.Fields(l), " ") != want[i] {
			t.Errorf("row %d %q, want %q", i, l, want[i])
		}
	}
	if !strings.HasPrefix(lines[0], "     ") || !strings.Contains(lines[4], "TTC   ") || !strings.Contains(lines[3], "69001 Lyon") {
		t.Errorf("columns %q", lines)
	}
	if rowsText(nil) != "" {
		t.Error("no words")
	}
}

// TestBlocksBetter: the reading sure of more letters and digits wins; unsure words (noise
// read across two columns) count for nothing.
func TestBlocksBetter(t *testing.T) {
	page := func(words ...tesseract.WordBox) *tesseract.Page { return &tesseract.Page{Boxes: words} }
	rows := page(tesseract.WordBox{Text: "Ma", Confidence: 96}, tesseract.WordBox{Text: "Nr", Confidence: 40}, tesseract.WordBox{Text: "Boulaue", Confidence: 31})
	blocks := page(tesseract.WordBox{Text: "Ma", Confidence: 96}, tesseract.WordBox{Text: "jolie", Confidence: 93}, tesseract.WordBox{Text: "boutique", Confidence: 95})
	if !blocksBetter(blocks, rows) || blocksBetter(rows, blocks) {
		t.Error("the sure reading")
	}
	lost := page(tesseract.WordBox{Text: "Total", Confidence: 95}, tesseract.WordBox{Text: "00", Confidence: 90})
	kept := page(tesseract.WordBox{Text: "Total", Confidence: 95}, tesseract.WordBox{Text: "198.00", Confidence: 91})
	if blocksBetter(lost, kept) {
		t.Error("a reading that lost digits")
	}
}
