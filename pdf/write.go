package pdf

import (
	"bytes"
	"fmt"
	"maps"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/fault"
)

// WriteContext is write for the packages that edit a pdfcpu context of their own (pdf/ocr):
// one writer, so every output keeps its metadata the same way.
func WriteContext(ctx *model.Context) ([]byte, error) { return write(ctx) }

// write serialises ctx. pdfcpu's writer stamps the Info dictionary on the way out (Producer
// "pdfcpu", CreationDate and ModDate now): a rotated or split document would lose its real
// creation date and producer, and its Info would no longer match its XMP packet (PDF/A-1
// requires they agree, ISO 19005-1 6.7.3; viewers show both). The Info dictionary as it was before the write
// is put back by a small incremental update, so an edit changes the pages it was asked to
// change and nothing else; metadata changes go through SetMetadata, which keeps Info and
// XMP in step.
func write(ctx *model.Context) ([]byte, error) {
	before := infoSnapshot(ctx)
	var buf bytes.Buffer
	if err := api.WriteContext(ctx, &buf); err != nil {
		return nil, fault.Wrap(fault.Internal, err, "the PDF cannot be written")
	}
	out := buf.Bytes()
	// An encrypted output's strings are encrypted: the restored dictionary would have to be
	// too, so an encrypted document keeps what the writer made of its Info.
	if ctx.Info == nil || ctx.Root == nil || ctx.Size == nil || ctx.Encrypt != nil || ctx.Cmd == model.ENCRYPT {
		return out, nil
	}
	prev, ok := lastStartXRef(out)
	if !ok {
		return nil, fault.New(fault.Internal, "the written PDF has no startxref")
	}
	if entry, found := ctx.FindTableEntryForIndRef(ctx.Info); found && entry != nil {
		if written, ok := entry.Object.(types.Dict); ok && maps.EqualFunc(written, before, sameObject) {
			return out, nil
		}
		entry.Object = before // the context describes the file as it now reads
	}
	u := &update{buf: bytes.NewBuffer(append(out, '\n')), size: *ctx.Size}
	u.object(u.ref(ctx.Info), []byte(before.PDFString()))
	trailer := fmt.Sprintf("/Root %d %d R /Info %d %d R /Prev %d", ctx.Root.ObjectNumber.Value(), ctx.Root.GenerationNumber.Value(), ctx.Info.ObjectNumber.Value(), ctx.Info.GenerationNumber.Value(), prev)
	if len(ctx.ID) > 0 {
		trailer += " /ID " + ctx.ID.PDFString()
	}
	xrefStream := !bytes.HasPrefix(out[prev:], []byte("xref"))
	u.finish(trailer, xrefStream)
	// The context now describes this output (an increment on it needs its size and
	// cross-reference form), not the file it was parsed from.
	*ctx.Size = u.size
	if ctx.Read != nil {
		ctx.Read.RepairOffset, ctx.Read.UsingXRefStreams = 0, xrefStream
	}
	return u.buf.Bytes(), nil
}

// infoSnapshot copies the Info dictionary's entries; a document without one gets an empty
// dictionary (pdfcpu's writer makes one, and it should say nothing the XMP does not).
func infoSnapshot(ctx *model.Context) types.Dict {
	if ctx.Info == nil {
		return types.Dict{}
	}
	d, err := ctx.DereferenceDict(*ctx.Info)
	if err != nil || d == nil {
		return types.Dict{}
	}
	return maps.Clone(d)
}

func sameObject(a, b types.Object) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.PDFString() == b.PDFString()
}
