package pdf

import (
	"bytes"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	pdfcpu "github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/fault"
)

// NumberPages writes label at the bottom centre of every page (Helvetica 9 pt, 20 pt above
// the edge), {page} and {pages} standing for the page number and count: page numbers that
// run through documents put together from several sources.
func (d *Doc) NumberPages(label string) (out []byte, err error) {
	defer recoverInto(&err, "number pages")
	text := strings.NewReplacer("%", "%%", "{page}", "%p", "{pages}", "%P").Replace(label)
	wm, err := api.TextWatermark(text, "font:Helvetica, points:9, pos:bc, off:0 20, scale:1 abs, rot:0, fillcolor:#404040", true, false, types.POINTS)
	if err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "page numbers: %v", err)
	}
	var buf bytes.Buffer
	if err := api.AddWatermarks(bytes.NewReader(d.src), &buf, nil, wm, config()); err != nil {
		return nil, fault.Wrap(fault.Unprocessable, err, "page numbers cannot be written: %s", trimPdfcpu(err.Error()))
	}
	return buf.Bytes(), nil
}

// OutlineItem is a bookmark to a page (from 1).
type OutlineItem struct {
	Title string
	Page  int
}

// SetOutline replaces the document outline (bookmarks) with the items.
func (d *Doc) SetOutline(items []OutlineItem) (out []byte, err error) {
	defer recoverInto(&err, "outline")
	var bms []pdfcpu.Bookmark
	for _, it := range items {
		if it.Page < 1 || it.Page > d.PageCount() {
			return nil, fault.New(fault.InvalidInput, "bookmark %q points at page %d of %d", it.Title, it.Page, d.PageCount())
		}
		bms = append(bms, pdfcpu.Bookmark{Title: it.Title, PageFrom: it.Page})
	}
	var buf bytes.Buffer
	if err := api.AddBookmarks(bytes.NewReader(d.src), &buf, bms, true, config()); err != nil {
		return nil, fault.Wrap(fault.Unprocessable, err, "the outline cannot be written: %s", trimPdfcpu(err.Error()))
	}
	return buf.Bytes(), nil
}
