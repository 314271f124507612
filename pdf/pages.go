package pdf

import (
	"fmt"
	"strings"

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
	if err != nil && strings.Contains(err.Error(), "named destination") {
		// pdfcpu's migration of named destinations fails on some name trees (a leaf it
		// empties and deletes, then looks up again; with two leaves, as our composed
		// documents have, it depends on the order it removes the names in). The part is
		// made without them: a bookmark or link that named one no longer leads anywhere.
		out, err = d.extractWithoutDests(pages)
	}
	if err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "pages %v cannot be extracted: %s", pages, trimPdfcpu(err.Error()))
	}
	// The part keeps the document's title, author and dates: its direct entries.
	info := types.Dict{}
	for k, v := range infoSnapshot(d.ctx) {
		switch v.(type) {
		case types.StringLiteral, types.HexLiteral, types.Name:
			info[k] = v
		}
	}
	if len(info) > 0 {
		if out.Info, err = out.IndRefForNewObject(info); err != nil {
			return nil, fault.Wrap(fault.Internal, err, "the part's metadata cannot be written")
		}
	}
	return write(out)
}

// extractWithoutDests extracts pages from a fresh read of the document whose named
// destinations (the catalog's /Dests and its /Names /Dests tree) are removed.
func (d *Doc) extractWithoutDests(pages []int) (*model.Context, error) {
	nd, err := read(d.src, false)
	if err != nil {
		return nil, err
	}
	cat, err := nd.ctx.Catalog()
	if err != nil {
		return nil, err
	}
	delete(cat, "Dests")
	if names, _ := nd.ctx.DereferenceDict(cat["Names"]); names != nil {
		delete(names, "Dests")
	}
	delete(nd.ctx.Names, "Dests")
	return pdfcpu.ExtractPages(nd.ctx, pages, false)
}

// Rotate turns the pages of spec clockwise by degrees (90, 180 or 270) and returns the PDF.
// The rotation adds to a page's own /Rotate.
func (d *Doc) Rotate(degrees int, spec pagerange.Spec) ([]byte, error) {
	return d.editOnce(func(e *Editor) error { return e.Rotate(degrees, spec) })
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

// Underlay lays a page of stationery under the content: first under page 1, rest under
// pages 2 and on (either may be nil). Each stationery PDF's first page is placed at its
// own size, centred.
func (d *Doc) Underlay(first, rest []byte) ([]byte, error) {
	return d.editOnce(func(e *Editor) error { return e.Underlay(first, rest) })
}

// Overlay lays the first page of stamp over every page, centred at its own size, with the
// opacity (0 < opacity <= 1): a watermark from a PDF.
func (d *Doc) Overlay(stamp []byte, opacity float64) ([]byte, error) {
	return d.editOnce(func(e *Editor) error { return e.Overlay(stamp, opacity) })
}
