package pdf

import (
	"bytes"
	"fmt"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	pdfcpu "github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf/pagerange"
)

// Part is one output of Split: the pages it holds and the PDF.
type Part struct {
	Range pagerange.Range
	PDF   []byte
}

// Split makes one PDF per range of spec, in order.
func (d *Doc) Split(spec pagerange.Spec) (parts []Part, err error) {
	defer recoverInto(&err, "split")
	if err := d.contentOf(spec.Pages()); err != nil {
		return nil, err
	}
	for _, r := range spec {
		b, err := d.extract(pagesOf(r))
		if err != nil {
			return nil, err
		}
		parts = append(parts, Part{Range: r, PDF: b})
	}
	return parts, nil
}

// Extract makes one PDF of the pages of spec, in the order and with the repeats written.
func (d *Doc) Extract(spec pagerange.Spec) (b []byte, err error) {
	defer recoverInto(&err, "extract")
	if err := d.contentOf(spec.Pages()); err != nil {
		return nil, err
	}
	return d.extract(spec.Pages())
}

func (d *Doc) extract(pages []int) ([]byte, error) {
	out, err := pdfcpu.ExtractPages(d.ctx, pages, false)
	if err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "pages %v cannot be extracted: %s", pages, trimPdfcpu(err.Error()))
	}
	return write(out)
}

// Rotate turns the pages of spec clockwise by degrees (90, 180 or 270) and returns the PDF.
// The rotation adds to a page's own /Rotate.
func (d *Doc) Rotate(degrees int, spec pagerange.Spec) (b []byte, err error) {
	if degrees != 90 && degrees != 180 && degrees != 270 {
		return nil, fault.New(fault.InvalidInput, "degrees must be 90, 180 or 270, not %d", degrees)
	}
	defer recoverInto(&err, "rotate")
	// Work on a fresh parse: rotation changes page dictionaries, and d may serve other calls.
	fresh, err := Read(d.src)
	if err != nil {
		return nil, err
	}
	c := fresh.ctx
	set := types.IntSet{}
	for p := range spec.Set() {
		set[p] = true
	}
	if err := pdfcpu.RotatePages(c, set, degrees); err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "the pages cannot be rotated: %s", trimPdfcpu(err.Error()))
	}
	return write(c)
}

// Merge joins docs, in order, into one PDF.
func Merge(docs ...[]byte) (b []byte, err error) {
	if len(docs) < 2 {
		return nil, fault.New(fault.InvalidInput, "merging needs at least two PDFs, got %d", len(docs))
	}
	defer recoverInto(&err, "merge")
	var dest *model.Context
	total := 0
	var inflated, content int64
	for i, data := range docs {
		d, err := Read(data)
		if err != nil {
			return nil, fault.Wrap(fault.CodeOf(err), err, "file %d: %s", i+1, fault.As(err).Message)
		}
		total += d.PageCount()
		if total > MaxPages {
			return nil, fault.New(fault.InvalidInput, "the merged PDF would have more than %d pages", MaxPages)
		}
		// The limits of one document hold for the request: the checks of all files
		// together inflate no more than one may, and the pages' content, which pdfcpu
		// decodes again to optimise the result, stays within one document's.
		inflated += d.inflated
		if inflated > MaxDecodedBytes {
			return nil, fault.New(fault.PayloadTooLarge, "the PDFs' streams inflate to more than %d MiB together, the limit per request", MaxDecodedBytes/mib)
		}
		for _, n := range d.content {
			content += n
		}
		if content > MaxContentBytes {
			return nil, fault.New(fault.PayloadTooLarge, "the PDFs' pages draw more than %d MiB of content together, the limit per request", MaxContentBytes/mib)
		}
		if dest == nil {
			dest = d.ctx
			// pdfcpu's default wraps each file's outline under a new entry named after it
			// and files that entry as a named destination, which panics on a first file
			// with an outline and no /Dests: keep each file's outline as it is, in order.
			dest.Configuration.MergeBookmarkMode = model.MergeBookmarkModePreserve
			continue
		}
		if err := pdfcpu.MergeXRefTables(fmt.Sprintf("file%d.pdf", i+1), d.ctx, dest, false, false); err != nil {
			return nil, fault.Wrap(fault.InvalidPDF, err, "file %d cannot be merged: %s", i+1, trimPdfcpu(err.Error()))
		}
	}
	if err := pdfcpu.OptimizeXRefTable(dest); err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "the merged PDF cannot be optimised: %s", trimPdfcpu(err.Error()))
	}
	// Merging leaves objects behind that nothing reaches (the sources' catalogs and page
	// trees); written as they are, they made /Size disagree with the table now and then.
	return (&Doc{ctx: dest}).writePruned()
}

func pagesOf(r pagerange.Range) []int {
	p := make([]int, 0, r.Len())
	for i := r.From; i <= r.To; i++ {
		p = append(p, i)
	}
	return p
}

func write(ctx *model.Context) ([]byte, error) {
	var buf bytes.Buffer
	if err := api.WriteContext(ctx, &buf); err != nil {
		return nil, fault.Wrap(fault.Internal, err, "the PDF cannot be written")
	}
	return buf.Bytes(), nil
}

// Underlay lays a page of stationery under the content: first under page 1, rest under
// pages 2 and on (either may be nil). Each stationery PDF's first page is placed at its
// own size, centred.
func (d *Doc) Underlay(first, rest []byte) (b []byte, err error) {
	defer recoverInto(&err, "stationery")
	fresh, err := Read(d.src)
	if err != nil {
		return nil, err
	}
	m := map[int]*model.Watermark{}
	for i, st := range [][]byte{first, rest} {
		if st == nil {
			continue
		}
		if err := Check(st); err != nil {
			return nil, err
		}
		wm, err := api.PDFWatermarkForReadSeeker(bytes.NewReader(st), 1, "scalefactor:1 abs, rotation:0, position:c", false, false, types.POINTS)
		if err != nil {
			return nil, fault.Wrap(fault.InvalidInput, err, "the stationery cannot be used: %s", trimPdfcpu(err.Error()))
		}
		if i == 0 {
			m[1] = wm
			continue
		}
		for p := 2; p <= fresh.PageCount(); p++ {
			m[p] = wm
		}
	}
	if len(m) == 0 {
		return d.src, nil
	}
	if err := pdfcpu.AddWatermarksMap(fresh.ctx, m); err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "the stationery cannot be laid under the pages: %s", trimPdfcpu(err.Error()))
	}
	return write(fresh.ctx)
}

// Overlay lays the first page of stamp over every page, centred at its own size, with the
// opacity (0 < opacity <= 1): a watermark from a PDF.
func (d *Doc) Overlay(stamp []byte, opacity float64) (b []byte, err error) {
	defer recoverInto(&err, "stamp")
	if opacity <= 0 || opacity > 1 {
		opacity = 1
	}
	fresh, err := Read(d.src)
	if err != nil {
		return nil, err
	}
	// The stamp goes to pdfcpu without Read.
	if err := Check(stamp); err != nil {
		return nil, err
	}
	wm, err := api.PDFWatermarkForReadSeeker(bytes.NewReader(stamp), 1, fmt.Sprintf("scalefactor:1 abs, rotation:0, position:c, opacity:%.2f", opacity), true, false, types.POINTS)
	if err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "the stamp cannot be used: %s", trimPdfcpu(err.Error()))
	}
	m := map[int]*model.Watermark{}
	for p := 1; p <= fresh.PageCount(); p++ {
		m[p] = wm
	}
	if err := pdfcpu.AddWatermarksMap(fresh.ctx, m); err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "the stamp cannot be laid over the pages: %s", trimPdfcpu(err.Error()))
	}
	return write(fresh.ctx)
}
