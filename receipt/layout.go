package receipt

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/internal/lazyre"
	"github.com/papierkram/papierkram/pdf"
)

// layoutReader is a PDFReader that also reads word boxes (engine/poppler). It is asked
// for separately so that a PDFReader without it still works: the invoice is then read
// from the text lines alone.
type layoutReader interface {
	Layout(ctx context.Context, pdf []byte, first, last int) ([]poppler.LayoutPage, error)
}

// segment is a run of words on one row with no wide gap between them: a label, a value, a
// table cell, a line of an address. The text lines of pdftotext -layout join a row's
// segments, so a two-column letterhead puts the sender's and the recipient's names on one
// line; segments keep them apart and keep where each stands.
type segment struct {
	poppler.Box
	page  int
	text  string
	words []poppler.Word // a table's cells set close together may share a segment
}

func (s segment) h() float64 { return s.Y1 - s.Y0 }

// layout is a document's segments, page by page, each page's in reading order (top to
// bottom, then left to right).
type layout struct {
	pages  [][]segment
	width  []float64
	height []float64
}

// maxLayoutSegments bounds the segments read (a row-by-row pass looks at its neighbours).
const maxLayoutSegments = 20_000

// currencyRestRE is the end of a label that names the currency of its value.
var currencyRestRE = lazyre.New(`^(?:in\b\s*)?\(?(?:EUR|€|USD|\$|GBP|£|CHF)?\)?\s*:?$`)

// maxLabelTries bounds the segments a label is looked for beside: a document repeats a
// label a few times, not hundreds.
const maxLabelTries = 200

// maxStackSegments bounds the segments of a page grouped into address stacks and tables
// (a quadratic pass); an invoice page has a few hundred.
const maxStackSegments = 5000

// wordGap is the gap between two words, in their height, that parts two segments: words of
// one phrase stand a space apart (about a fifth of the height; a spaced bullet between the
// parts of an address about one height), columns further.
const wordGap = 1.5

// columnGap is the gap, in the words' height, past which two words that poppler put on
// lines of their own part two segments all the same: a table's narrow columns (Typst sets
// "2   C62   8 500,00" about 1.3 heights apart) that poppler keeps apart as cells. Words of
// one phrase stand a fifth of a height apart, a bullet between an address's parts about
// one (separator); OCR's words come as one line and are parted by wordGap alone.
const columnGap = 0.6

// touchGap is the widest gap, in the words' height, between two boxes of one word: a
// generator that draws each glyph on its own makes poppler give each as a word, their
// boxes touching; a space is about a fifth of the height.
const touchGap = 0.05

// plainChars are the typographic forms of the hyphen and the space that generators write
// ("IOPOLE‐jdz7fEbj4Va", "18‐08‐2026" with U+2010; "2 166,40" with a no-break space), read
// as the plain characters the rules expect. One rune for one rune: a text keeps its shape
// (lengths differ in bytes only, and nothing indexes the text across this step).
var plainChars = strings.NewReplacer("\u2010", "-", "\u2011", "-", "\u2012", "-", "\u2212", "-", "\u00a0", " ", "\u202f", " ", "\u2009", " ")

// plainText is s with plainChars replaced.
func plainText(s string) string { return plainChars.Replace(s) }

// newLayout groups each page's words into rows (their boxes overlap vertically by at least
// half the smaller height) and splits the rows into segments at wide gaps.
func newLayout(pages []poppler.LayoutPage) *layout {
	l := &layout{}
	total := 0
	for pi, p := range pages {
		var words []poppler.Word
		lineOf := map[poppler.Box]int{} // the poppler line each word stands in
		nline := 0
		for _, b := range p.Blocks {
			for _, ln := range b.Lines {
				nline++
				for _, w := range ln.Words {
					if w.X1 > w.X0 && w.Y1 > w.Y0 {
						w.Text = plainText(w.Text)
						words = append(words, w)
						lineOf[w.Box] = nline
					}
				}
			}
		}
		slices.SortStableFunc(words, func(a, b poppler.Word) int { return cmp.Compare(a.Y0, b.Y0) })
		type row struct {
			box   poppler.Box
			words []poppler.Word
		}
		var rows []row
		for _, w := range words {
			placed := false
			// Rows are made top to bottom: a word can only join one of the last few.
			for r := len(rows) - 1; r >= max(0, len(rows)-6); r-- {
				b := rows[r].box
				ov := min(b.Y1, w.Y1) - max(b.Y0, w.Y0)
				if ov >= 0.5*min(b.Y1-b.Y0, w.Y1-w.Y0) {
					rows[r].words = append(rows[r].words, w)
					rows[r].box.Y0, rows[r].box.Y1 = min(b.Y0, w.Y0), max(b.Y1, w.Y1)
					placed = true
					break
				}
			}
			if !placed {
				rows = append(rows, row{box: w.Box, words: []poppler.Word{w}})
			}
		}
		var segs []segment
		for _, r := range rows {
			slices.SortStableFunc(r.words, func(a, b poppler.Word) int { return cmp.Compare(a.X0, b.X0) })
			var cur *segment
			var prev poppler.Word
			prevLine := 0      // the poppler line of prev (whose box a merge may have widened)
			prevGlyph := false // prev was a word of one glyph (before any merge)
			for _, w := range r.words {
				h := (w.Y1 - w.Y0 + prev.Y1 - prev.Y0) / 2
				if ocrBullet(w, prev) || ocrBullet(prev, w) {
					// OCR's box of a bullet hugs its dot: the word beside it measures the gap.
					h = 2 * max(w.Y1-w.Y0, prev.Y1-prev.Y0)
				}
				gap := w.X0 - prev.X1
				glyph := len([]rune(w.Text)) == 1
				if cur != nil && gap <= touchGap*h && lineOf[w.Box] == prevLine && glyph && prevGlyph {
					// Letter-spaced text drawn glyph by glyph ("1 . 0 0 0 , 0 0" for
					// 1.000,00): touching boxes of single glyphs are one word. Words of
					// several letters stay apart (OCR's boxes of two lines that it read
					// as one may touch).
					last := &cur.words[len(cur.words)-1]
					last.Text += w.Text
					last.X1, last.Y0, last.Y1 = max(last.X1, w.X1), min(last.Y0, w.Y0), max(last.Y1, w.Y1)
					cur.text += w.Text
					cur.X1, cur.Y0, cur.Y1 = max(cur.X1, w.X1), min(cur.Y0, w.Y0), max(cur.Y1, w.Y1)
					prev, prevLine = *last, lineOf[w.Box]
					continue // prevGlyph stays: w was one glyph
				}
				if cur != nil && gap <= wordGap*h && (gap <= columnGap*h || lineOf[w.Box] == prevLine || separator(w) || separator(prev)) {
					cur.text += " " + w.Text
					cur.words = append(cur.words, w)
					cur.X1, cur.Y0, cur.Y1 = max(cur.X1, w.X1), min(cur.Y0, w.Y0), max(cur.Y1, w.Y1)
				} else {
					if total++; total > maxLayoutSegments {
						break
					}
					segs = append(segs, segment{Box: w.Box, page: pi, text: w.Text, words: []poppler.Word{w}})
					cur = &segs[len(segs)-1]
				}
				prev, prevLine, prevGlyph = w, lineOf[w.Box], glyph
			}
		}
		// Rows were made top to bottom and each row's segments left to right: segs are in
		// reading order.
		l.pages = append(l.pages, segs)
		l.width = append(l.width, p.Width)
		l.height = append(l.height, p.Height)
		if total > maxLayoutSegments {
			break
		}
	}
	return l
}

// separator: w is a mark between the parts of a one-line address ("Bei Spiel GmbH ● Ecke
// 12 ● 12345 Stadthausen"), which poppler may set as lines of their own: the parts stay one
// segment, as the sender's line over the recipient.
func separator(w poppler.Word) bool {
	r := []rune(w.Text)
	return len(r) == 1 && strings.ContainsRune("●•·|–—-/*»«°", r[0])
}

// ocrBullet: b is a bullet between the parts of a one-line address as OCR reads it ("e",
// "o", "»"), a box less than two thirds the height of the word a beside it.
func ocrBullet(b, a poppler.Word) bool {
	return len([]rune(b.Text)) == 1 && strings.ContainsRune("eo°*»«+•●·", []rune(b.Text)[0]) && b.Y1-b.Y0 < 0.67*(a.Y1-a.Y0)
}

// readLayout reads the word boxes of a text PDF; nil when the reader has none or they
// cannot be read (the text lines then decide alone).
func (e *Extractor) readLayout(ctx context.Context, data []byte) *layout {
	lr, ok := e.PDF.(layoutReader)
	if !ok {
		return nil
	}
	d, err := pdf.ReadToRead(data) // text and word boxes only: a defect poppler reads past is no reason to refuse
	if err != nil {
		return nil
	}
	n := d.PageCount()
	if n < 1 || n > MaxPages {
		return nil
	}
	pages, err := lr.Layout(ctx, d.Bytes(), 1, n)
	if err != nil {
		if e.Log != nil && ctx.Err() == nil {
			e.Log.Warn("reading the PDF's word boxes failed", "error", err)
		}
		return nil
	}
	return newLayout(pages)
}

// splitGap is the widest gap, in the words' height, between two parts of one word that
// pdftotext reports as two words: a font whose glyph widths do not match its advances
// ("Zahlbetr ag", "Br uttosumme", "Ver käufer") leaves about an eighth of the height
// between them, where a space is a quarter of it or more.
const splitGap = 0.15

// maxMends bounds the split words mended in a document's text.
const maxMends = 2000

// mendSplitWords joins the parts of words that pdftotext split inside a word (see
// splitGap) in the segments' text, where both sides of the gap are letters, and mends the
// same words in text, the PDF's text lines, which split them the same way: a label read
// there ("Zahlbetr ag" for "Zahlbetrag") is then found. A text PDF's words only: OCR
// reads a word whole or not at all.
func (l *layout) mendSplitWords(text string) string {
	var pairs []string
	seen := map[string]bool{}
	for _, segs := range l.pages {
		limit := splitLimit(segs)
		for i := range segs {
			s := &segs[i]
			if len(s.words) < 2 {
				continue
			}
			var b strings.Builder
			b.WriteString(s.words[0].Text)
			for k := 1; k < len(s.words); k++ {
				prev, w := s.words[k-1], s.words[k]
				h := min(prev.Y1-prev.Y0, w.Y1-w.Y0)
				last, _ := utf8.DecodeLastRuneInString(prev.Text)
				first, _ := utf8.DecodeRuneInString(w.Text)
				if gap := w.X0 - prev.X1; gap >= 0 && gap < limit*h && unicode.IsLetter(last) && unicode.IsLetter(first) {
					if split := prev.Text + " " + w.Text; !seen[split] && len(pairs) < 2*maxMends {
						seen[split] = true
						pairs = append(pairs, split, prev.Text+w.Text)
					}
				} else {
					b.WriteByte(' ')
				}
				b.WriteString(w.Text)
			}
			s.text = b.String()
		}
	}
	if len(pairs) == 0 {
		return text
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// splitLimit is the gap, in word heights, under which two words of a page's segments are
// one word split: splitGap, unless the page's spaces are themselves that narrow against its
// words' boxes (a font whose boxes are twice its size: "Dr. Martin Dupont" read as "Dr.
// MartinDupont"), then half its median space.
func splitLimit(segs []segment) float64 {
	var gaps []float64
	for _, s := range segs {
		for k := 1; k < len(s.words); k++ {
			prev, w := s.words[k-1], s.words[k]
			if h := min(prev.Y1-prev.Y0, w.Y1-w.Y0); h > 0 && w.X0 >= prev.X1 {
				gaps = append(gaps, (w.X0-prev.X1)/h)
			}
		}
	}
	if len(gaps) < minSpaces {
		return splitGap
	}
	slices.Sort(gaps)
	if m := gaps[len(gaps)/2]; m < 1.2*splitGap {
		return m / 2
	}
	return splitGap
}

// minSpaces: fewer spaces on a page say nothing of its font's.
const minSpaces = 8

// overlapX: the two segments share some of their width.
func overlapX(a, b poppler.Box) bool { return min(a.X1, b.X1) > max(a.X0, b.X0) }

// sameRow: the two segments stand on one row.
func sameRow(a, b poppler.Box) bool {
	return min(a.Y1, b.Y1)-max(a.Y0, b.Y0) >= 0.5*min(a.Y1-a.Y0, b.Y1-b.Y0)
}

// labelled finds the values of a label: for each segment the label matches at its start,
// the rest of the segment after the label (and a colon); else the nearest segment to its
// right on the same row; else the first segment under it (overlapping its width) within
// three line heights. parse reads a value and answers "" when it is none; a segment whose
// rest is not a value is no such label ("Date d'échéance" for "Date"). At most limit values
// are returned, in reading order.
// parenRestRE is what follows a label in brackets, and perhaps a colon.
var parenRestRE = lazyre.New(`^\([^()]{1,30}\)\s*:?$`)

func (l *layout) labelled(label *lazyre.Regexp, parse func(string) string, limit int) []string {
	var out []string
	tried := 0
	for _, segs := range l.pages {
		for i, s := range segs {
			// OCR reads the sides of a box around a label as bars ("| NET A PAYER |").
			text := strings.TrimLeft(s.text, boxSides)
			m := label.FindStringIndex(text)
			if m == nil || m[0] != 0 {
				continue
			}
			if tried++; tried > maxLabelTries {
				return out // each try looks at the page's segments: the work stays bounded
			}
			// OCR reads a table's vertical rule between a label and its value as "|".
			rest := strings.TrimSpace(strings.Trim(strings.TrimSpace(text[m[1]:]), ":#."+boxSides))
			if currencyRestRE.MatchString(rest) || parenRestRE.MatchString(rest) {
				// "Steuerbetrag in EUR", "Total (EUR):": the label names the currency;
				// "VAT (19%)", "Subtotal (lines)": a remark in brackets ends the label.
				rest = ""
			}
			if rest != "" {
				if v := parse(rest); v != "" {
					out = append(out, v)
				}
				if len(out) == limit {
					return out
				}
				continue
			}
			if v := nearValue(segs, i, parse); v != "" {
				out = append(out, v)
				if len(out) == limit {
					return out
				}
			}
		}
	}
	return out
}

// boxSides are what OCR reads a box's or a table's vertical rules as, and the space around:
// "| NET A PAYER | 100,00 EUR |".
const boxSides = "|[] "

// nearValue is the value beside segs[i] (right, same row) or under it.
func nearValue(segs []segment, i int, parse func(string) string) string {
	s := segs[i]
	var right *segment
	for j := range segs {
		t := &segs[j]
		if j == i || t.X0 < s.X1-1 || !sameRow(s.Box, t.Box) || strings.Trim(t.text, boxSides) == "" {
			continue // a bar alone is a box's side, not the value
		}
		if right == nil || t.X0 < right.X0 {
			right = t
		}
	}
	if right != nil && right.X0-s.X1 < 250 {
		if v := parse(strings.Trim(right.text, boxSides)); v != "" {
			return v
		}
	}
	for j := i + 1; j < len(segs); j++ {
		t := segs[j]
		if t.Y0 < s.Y1-0.3*s.h() {
			continue
		}
		if t.Y0-s.Y1 > 3*s.h() {
			// A row's segments stand in its order left to right: a taller one's top (an
			// OCR box around a figure in its cell) is above its left neighbour's.
			if t.Y0-s.Y1 > 6*s.h() {
				break
			}
			continue
		}
		if !overlapX(s.Box, t.Box) {
			continue
		}
		v := parse(t.text)
		if v == "" && j+1 < len(segs) {
			// A value broken over two lines of its cell (an IBAN in a narrow column).
			for k := j + 1; k < len(segs) && segs[k].Y0-t.Y1 < t.h(); k++ {
				if overlapX(t.Box, segs[k].Box) && !sameRow(t.Box, segs[k].Box) {
					v = parse(t.text + " " + segs[k].text)
					break
				}
			}
		}
		return v
	}
	return ""
}
