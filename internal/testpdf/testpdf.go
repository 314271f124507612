// Package testpdf writes valid PDFs for tests and benchmarks: each page carries the text "Page N" so
// that pdftotext can tell which pages went where.
package testpdf

import (
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
	w := NewWriter()
	// 1 catalog, 2 pages, 3 font, 4 info, then per page: page, content.
	w.Obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	kids := ""
	for i := range o.Pages {
		kids += fmt.Sprintf("%d 0 R ", 5+2*i)
	}
	w.Obj(2, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, o.Pages))
	w.Obj(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	title := ""
	if o.Title != "" {
		title = fmt.Sprintf("/Title (%s) ", o.Title)
	}
	w.Obj(4, fmt.Sprintf("<< %s/Producer (testpdf) /CreationDate (D:20250101120000Z) >>", title))
	for i := range o.Pages {
		rot := ""
		if o.Rotate != 0 {
			rot = fmt.Sprintf("/Rotate %d ", o.Rotate)
		}
		w.Obj(5+2*i, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] %s/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", o.Width, o.Height, rot, 6+2*i))
		content := fmt.Sprintf("BT /F1 24 Tf 72 %d Td (Page %d) Tj ET", o.Height-100, i+1)
		if o.Filler > 0 {
			line := "% " + strings.Repeat("x", 77) + "\n"
			content = strings.Repeat(line, o.Filler/len(line)+1) + content
		}
		w.Obj(6+2*i, StreamBody("", content))
	}
	return w.Finish("/Info 4 0 R")
}
