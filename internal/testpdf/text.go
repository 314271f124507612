package testpdf

import (
	"fmt"
	"strings"

	"golang.org/x/text/encoding/charmap"
)

// Text is an A4 PDF with one page per text, its lines set from the top left in a standard
// font ("Helvetica", "Courier": WinAnsi, other characters become "?") at size points, or
// smaller where the widest line would not fit (so the columns of a layout text stay where
// they were in Courier).
func Text(font string, size float64, texts ...string) []byte {
	contents := make([]string, len(texts))
	for i, t := range texts {
		lines := strings.Split(strings.TrimRight(t, "\n\f "), "\n")
		width := 1
		for _, l := range lines {
			width = max(width, len([]rune(l)))
		}
		// 0.6 em is Courier's advance; 0.5 em is about Helvetica's average.
		em := 0.5
		if font == "Courier" {
			em = 0.6
		}
		s := min(size, 500/(em*float64(width)))
		lead := min(s*1.3, 740/float64(max(len(lines), 1)))
		var c strings.Builder
		fmt.Fprintf(&c, "BT /F1 %.2f Tf %.2f TL 60 780 Td\n", s, lead)
		for _, l := range lines {
			fmt.Fprintf(&c, "(%s) '\n", winAnsi(l))
		}
		c.WriteString("ET")
		contents[i] = c.String()
	}
	return a4(font, contents)
}

// a4 is a PDF of A4 pages with these content streams, F1 the standard font.
func a4(font string, contents []string) []byte {
	w := NewWriter()
	w.Obj(3, "<< /Type /Font /Subtype /Type1 /BaseFont /"+font+" /Encoding /WinAnsiEncoding >>")
	kids := ""
	for i, c := range contents {
		w.Obj(4+2*i, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		w.Obj(5+2*i, StreamBody("", c))
		kids += fmt.Sprintf("%d 0 R ", 4+2*i)
	}
	w.Obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.Obj(2, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, len(contents)))
	return w.Finish("")
}

// winAnsi is s as the bytes of a PDF literal string in WinAnsiEncoding.
func winAnsi(s string) string {
	var b strings.Builder
	for _, r := range s {
		c, ok := charmap.Windows1252.EncodeRune(r)
		if !ok {
			c = '?'
		}
		if c == '(' || c == ')' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// At is a text placed on a page: its baseline starts X points from the left and Y points
// from the top.
type At struct {
	X, Y float64
	Text string
	Size float64 // in Drawn, the text's size in points; 0: the page's
}

// TextAt is an A4 PDF with one page per slice, each text set where it says in a standard
// font at size points: a layout with columns, as the letterheads of invoices have them.
func TextAt(font string, size float64, pages ...[]At) []byte {
	contents := make([]string, len(pages))
	for i, texts := range pages {
		var c strings.Builder
		for _, t := range texts {
			fmt.Fprintf(&c, "BT /F1 %.2f Tf %.2f %.2f Td (%s) Tj ET\n", size, t.X, 842-t.Y, winAnsi(t.Text))
		}
		contents[i] = c.String()
	}
	return a4(font, contents)
}

// Rule is a line drawn on a page, half a point wide, from X0, Y0 to X1, Y1 (points from
// the top left).
type Rule struct{ X0, Y0, X1, Y1 float64 }

// Band is a rectangle filled in near black with texts set in white on it, as invoicing programs
// print a table's header.
type Band struct {
	X0, Y0, X1, Y1 float64
	Texts          []At
}

// Drawing is what a page of Drawn holds: texts in black, rules and bands.
type Drawing struct {
	Texts []At
	Rules []Rule
	Bands []Band
}

// Drawn is a one-page A4 PDF of a drawing in a standard font at size points: a layout with
// ruled tables and coloured headers, as invoicing programs print them.
func Drawn(font string, size float64, d Drawing) []byte {
	var c strings.Builder
	for _, b := range d.Bands {
		fmt.Fprintf(&c, "0.06 g %.2f %.2f %.2f %.2f re f\n1 g\n", b.X0, 842-b.Y1, b.X1-b.X0, b.Y1-b.Y0)
		for _, t := range b.Texts {
			fmt.Fprintf(&c, "BT /F1 %.2f Tf %.2f %.2f Td (%s) Tj ET\n", size, t.X, 842-t.Y, winAnsi(t.Text))
		}
	}
	c.WriteString("0 g 0.5 w\n")
	for _, r := range d.Rules {
		fmt.Fprintf(&c, "%.2f %.2f m %.2f %.2f l S\n", r.X0, 842-r.Y0, r.X1, 842-r.Y1)
	}
	for _, t := range d.Texts {
		sz := size
		if t.Size > 0 {
			sz = t.Size
		}
		fmt.Fprintf(&c, "BT /F1 %.2f Tf %.2f %.2f Td (%s) Tj ET\n", sz, t.X, 842-t.Y, winAnsi(t.Text))
	}
	return a4(font, []string{c.String()})
}
