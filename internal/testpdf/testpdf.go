// Package testpdf writes valid PDFs for tests and benchmarks: each page carries the text "Page N" so
// that pdftotext can tell which pages went where.
package testpdf

import (
	"bytes"
	"fmt"
	"strings"
)

// Options shape a generated PDF.
type Options struct {
	Pages  int
	Width  int // points; default 595 (A4)
	Height int // points; default 842
	Title  string
	Rotate int // /Rotate of every page
	Filler int // bytes of PDF comments added to every page's content, to make big files
}

// New returns a PDF with n pages of A4.
func New(n int) []byte { return Make(Options{Pages: n}) }

// Make returns a PDF built from o, with a classic cross-reference table.
func Make(o Options) []byte {
	if o.Width == 0 {
		o.Width, o.Height = 595, 842
	}
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	// 1 catalog, 2 pages, 3 font, 4 info, then per page: page, content.
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	kids := ""
	for i := range o.Pages {
		kids += fmt.Sprintf("%d 0 R ", 5+2*i)
	}
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, o.Pages))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	title := ""
	if o.Title != "" {
		title = fmt.Sprintf("/Title (%s) ", o.Title)
	}
	obj(fmt.Sprintf("<< %s/Producer (testpdf) /CreationDate (D:20250101120000Z) >>", title))
	for i := range o.Pages {
		rot := ""
		if o.Rotate != 0 {
			rot = fmt.Sprintf("/Rotate %d ", o.Rotate)
		}
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] %s/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", o.Width, o.Height, rot, 6+2*i))
		content := fmt.Sprintf("BT /F1 24 Tf 72 %d Td (Page %d) Tj ET", o.Height-100, i+1)
		if o.Filler > 0 {
			line := "% " + strings.Repeat("x", 77) + "\n"
			content = strings.Repeat(line, o.Filler/len(line)+1) + content
		}
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}
