package pdf

import (
	"bytes"
	"fmt"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	pdfcpu "github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf/pagerange"
)

// Editor applies a chain of edits to one parse of a document and writes it once. A
// conversion that sets its title, lays stationery under its pages and a stamp over them
// used to parse and write the whole file at each step; with an Editor it parses once,
// changes the parsed document in place, and Bytes writes it once (metadata as one
// incremental update after the pages, so Info and XMP stay in step).
//
// The document is parsed when an edit first needs it. A chain of metadata changes alone
// on a file as Chromium writes it (see quickMetadata) is not parsed at all: retitling a
// 20-page report took 25 ms of parsing for a 0.1 ms change.
//
// After an error the Editor's document may be half changed: start again from the bytes.
type Editor struct {
	src    []byte
	doc    *Doc // owned: its context is changed in place; nil until an edit needs it
	edited bool // pages were changed: Bytes writes the context
	meta   *Changes
	schema *XMPSchema
}

// Edit takes data for a chain of edits. It is read (with Read's limits and errors) by the
// first edit that needs the document, or by Bytes.
func Edit(data []byte) *Editor { return &Editor{src: data} }

// load parses the document on first use.
func (e *Editor) load() (*Doc, error) {
	if e.doc == nil {
		d, err := Read(e.src)
		if err != nil {
			return nil, err
		}
		e.doc = d
	}
	return e.doc, nil
}

// editOnce runs one edit on a fresh parse of d (d itself may serve other calls) and
// writes the result.
func (d *Doc) editOnce(edit func(*Editor) error) ([]byte, error) {
	e := Edit(d.src)
	if err := edit(e); err != nil {
		return nil, err
	}
	return e.Bytes(time.Now())
}

// SetMetadata records metadata changes; later calls override the fields they set.
func (e *Editor) SetMetadata(ch Changes) {
	if e.meta == nil {
		e.meta = &Changes{}
	}
	for _, f := range []struct{ to, from **string }{
		{&e.meta.Title, &ch.Title}, {&e.meta.Author, &ch.Author}, {&e.meta.Subject, &ch.Subject},
		{&e.meta.Keywords, &ch.Keywords}, {&e.meta.Creator, &ch.Creator}, {&e.meta.Producer, &ch.Producer},
	} {
		if *f.from != nil {
			*f.to = *f.from
		}
	}
	if ch.CreationDate != nil {
		e.meta.CreationDate = ch.CreationDate
	}
}

// SetXMPSchema records XMP properties to write with their PDF/A extension schema (the
// PDF/UA identification, pdfuaid:part); Bytes writes them with the metadata.
func (e *Editor) SetXMPSchema(s *XMPSchema) {
	e.schema = s
	if e.meta == nil {
		e.meta = &Changes{}
	}
}

// Rotate turns the pages of spec clockwise by degrees (90, 180 or 270), adding to each
// page's own /Rotate.
func (e *Editor) Rotate(degrees int, spec pagerange.Spec) (err error) {
	if degrees != 90 && degrees != 180 && degrees != 270 {
		return fault.New(fault.InvalidInput, "degrees must be 90, 180 or 270, not %d", degrees)
	}
	defer recoverInto(&err, "rotate")
	d, err := e.load()
	if err != nil {
		return err
	}
	set := types.IntSet{}
	for p := range spec.Set() {
		set[p] = true
	}
	if err := pdfcpu.RotatePages(d.ctx, set, degrees); err != nil {
		return fault.Wrap(fault.InvalidPDF, err, "the pages cannot be rotated: %s", trimPdfcpu(err.Error()))
	}
	e.edited = true
	return nil
}

// Underlay lays a page of stationery under the content: first under page 1, rest under
// pages 2 and on (either may be nil). Each stationery PDF's first page is placed at its
// own size, centred.
func (e *Editor) Underlay(first, rest []byte) (err error) {
	defer recoverInto(&err, "stationery")
	d, err := e.load()
	if err != nil {
		return err
	}
	m := map[int]*model.Watermark{}
	for i, st := range [][]byte{first, rest} {
		if st == nil {
			continue
		}
		// The stationery goes to pdfcpu without Read: Check holds it to Read's limits.
		if err := Check(st); err != nil {
			return err
		}
		wm, err := api.PDFWatermarkForReadSeeker(bytes.NewReader(st), 1, "scalefactor:1 abs, rotation:0, position:c", false, false, types.POINTS)
		if err != nil {
			return fault.Wrap(fault.InvalidInput, err, "the stationery cannot be used: %s", trimPdfcpu(err.Error()))
		}
		if i == 0 {
			m[1] = wm
			continue
		}
		for p := 2; p <= d.PageCount(); p++ {
			m[p] = wm
		}
	}
	if len(m) == 0 {
		return nil
	}
	if err := pdfcpu.AddWatermarksMap(d.ctx, m); err != nil {
		return fault.Wrap(fault.InvalidInput, err, "the stationery cannot be laid under the pages: %s", trimPdfcpu(err.Error()))
	}
	e.edited = true
	return nil
}

// Overlay lays the first page of stamp over every page, centred at its own size, with the
// opacity (0 < opacity <= 1, else 1): a watermark from a PDF.
func (e *Editor) Overlay(stamp []byte, opacity float64) (err error) {
	defer recoverInto(&err, "stamp")
	if opacity <= 0 || opacity > 1 {
		opacity = 1
	}
	d, err := e.load()
	if err != nil {
		return err
	}
	if err := Check(stamp); err != nil {
		return err
	}
	wm, err := api.PDFWatermarkForReadSeeker(bytes.NewReader(stamp), 1, fmt.Sprintf("scalefactor:1 abs, rotation:0, position:c, opacity:%.2f", opacity), true, false, types.POINTS)
	if err != nil {
		return fault.Wrap(fault.InvalidInput, err, "the stamp cannot be used: %s", trimPdfcpu(err.Error()))
	}
	m := map[int]*model.Watermark{}
	for p := 1; p <= d.PageCount(); p++ {
		m[p] = wm
	}
	if err := pdfcpu.AddWatermarksMap(d.ctx, m); err != nil {
		return fault.Wrap(fault.InvalidInput, err, "the stamp cannot be laid over the pages: %s", trimPdfcpu(err.Error()))
	}
	e.edited = true
	return nil
}

// Bytes writes the edited document: the pages once if they were changed, then the
// metadata changes as an incremental update with ModDate now. Without any edit it is the
// document as read.
func (e *Editor) Bytes(now time.Time) (out []byte, err error) {
	defer recoverInto(&err, "write")
	if e.doc == nil && e.schema == nil && e.meta != nil {
		if out, ok := quickMetadata(e.src, *e.meta, now); ok {
			return out, nil
		}
	}
	d, err := e.load()
	if err != nil {
		return nil, err
	}
	if e.edited {
		if out, err = write(d.ctx); err != nil {
			return nil, err
		}
		// d's context now describes out (write keeps it so): the metadata increment goes
		// on top without parsing the output again.
		d = &Doc{ctx: d.ctx, src: out, unlocked: d.unlocked}
	}
	if e.meta == nil {
		return d.src, nil
	}
	var add *EmbedOptions
	if e.schema != nil {
		add = &EmbedOptions{Schema: e.schema}
	}
	return d.appendUpdate(*e.meta, now, add)
}
