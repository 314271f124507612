package receipt

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/papierkram/papierkram/engine/tesseract"
)

// sureConfidence is the confidence from which a word counts as read for sure.
const sureConfidence = 85

// blocksBetter: reading a, in Tesseract's blocks, is sure of more of the page's text than
// reading b, in rows: more letters and digits in words of confidence sureConfidence and
// over.
func blocksBetter(a, b *tesseract.Page) bool {
	return sureChars(a) > sureChars(b)
}

func sureChars(p *tesseract.Page) int {
	n := 0
	for _, w := range p.Boxes {
		if w.Confidence >= sureConfidence {
			for _, r := range w.Text {
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					n++
				}
			}
		}
	}
	return n
}

// rowsText sets a page's words out as pdftotext -layout sets a text PDF's: the words of
// one row (their middles within 0.4 of a word's height) on one line in the order of their
// X, each at the column its X gives in the page's character width, so wide gaps stay
// wide. Tesseract, reading a page in its own blocks, gives the text block by block: the
// rules read labels and their values on one line.
func rowsText(boxes []tesseract.WordBox) string {
	if len(boxes) == 0 {
		return ""
	}
	hs := make([]int, 0, len(boxes))
	ws := make([]float64, 0, len(boxes))
	for _, b := range boxes {
		hs = append(hs, b.Height)
		if n := len([]rune(b.Text)); n > 0 {
			ws = append(ws, float64(b.Width)/float64(n))
		}
	}
	sort.Ints(hs)
	sort.Float64s(ws)
	h := float64(max(1, hs[len(hs)/2]))
	cw := 1.0
	if len(ws) > 0 {
		cw = max(1, ws[len(ws)/2])
	}
	mid := func(b tesseract.WordBox) float64 { return float64(b.Top) + float64(b.Height)/2 }
	sorted := slices.Clone(boxes)
	slices.SortStableFunc(sorted, func(a, b tesseract.WordBox) int { return cmp.Compare(mid(a), mid(b)) })
	var rows [][]tesseract.WordBox
	var rowMid float64
	for _, b := range sorted {
		if n := len(rows); n > 0 && mid(b)-rowMid <= 0.4*h {
			rows[n-1] = append(rows[n-1], b)
			rowMid += (mid(b) - rowMid) / float64(len(rows[n-1]))
			continue
		}
		rows = append(rows, []tesseract.WordBox{b})
		rowMid = mid(b)
	}
	var out strings.Builder
	for _, r := range rows {
		slices.SortStableFunc(r, func(a, b tesseract.WordBox) int { return cmp.Compare(a.Left, b.Left) })
		var line strings.Builder
		n := 0 // runes on the line
		for i, b := range r {
			col := int(float64(b.Left) / cw)
			pad := col - n
			if i > 0 {
				gap := float64(b.Left - (r[i-1].Left + r[i-1].Width))
				if gap < 2*cw {
					pad = 1 // one space between the words of a phrase
				} else {
					pad = max(pad, 2)
				}
			}
			pad = max(pad, 0)
			line.WriteString(strings.Repeat(" ", pad))
			line.WriteString(b.Text)
			n += pad + len([]rune(b.Text))
		}
		out.WriteString(line.String())
		out.WriteByte('\n')
	}
	return out.String()
}
