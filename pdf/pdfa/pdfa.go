package pdfa

import (
	"context"
	"time"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/conform"
)

// Converter turns a PDF into PDF/A-3b (engine/ghostscript does).
type Converter interface {
	ToPDFA3B(ctx context.Context, pdf []byte) ([]byte, error)
}

// Profiler gives the sRGB ICC profile of the output intent: a Converter that has one lets
// Convert make a PDF/A without it when the document allows (engine/ghostscript does).
type Profiler interface {
	SRGB() ([]byte, error)
}

// Options carries metadata to write into the result's Info dictionary and XMP alike.
type Options struct {
	Title, Author string
	Now           time.Time // ModDate of the metadata update; default time.Now
}

// Convert makes data PDF/A-3b: fonts embedded, sRGB OutputIntent, XMP pdfaid part 3,
// conformance B, Info and XMP in agreement. It refuses encrypted and unreadable input, and
// checks its own output with the PDF/A validator (pdf/conform) before returning it: a
// result that fails is fault.Internal naming the rules.
//
// A document that needs no rewriting (fonts embedded, nothing PDF/A forbids: what
// Chromium and LibreOffice write) is made PDF/A by remediation, in milliseconds: the
// output intent, identification, metadata, file identifier and annotation flags are added
// as incremental updates and the result is kept when the validator passes it. Every other
// document goes through the converter, which re-renders it.
func Convert(ctx context.Context, c Converter, data []byte, o Options) ([]byte, error) {
	src, err := pdf.Read(data)
	if err != nil {
		return nil, err
	}
	if out, ok := remediate(ctx, c, src, o); ok {
		return out, nil
	}
	orig, err := src.Metadata()
	if err != nil {
		return nil, err
	}
	// src.Bytes, not data: an owner-only encrypted file was decrypted by Read.
	out, err := c.ToPDFA3B(ctx, src.Bytes())
	if err != nil {
		return nil, err
	}
	d, err := pdf.Read(out)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "the PDF/A conversion produced an unreadable file")
	}
	// Ghostscript drops document information it cannot map to XMP; carry the source's
	// over, with the caller's title and author winning.
	if o.Title != "" {
		orig.Title = o.Title
	}
	if o.Author != "" {
		orig.Author = o.Author
	}
	ch, set := pdf.Changes{}, false
	for _, f := range []struct {
		v   string
		dst **string
	}{{orig.Title, &ch.Title}, {orig.Author, &ch.Author}, {orig.Subject, &ch.Subject}, {orig.Keywords, &ch.Keywords}, {orig.Creator, &ch.Creator}} {
		if f.v != "" {
			v := f.v
			*f.dst, set = &v, true
		}
	}
	if set {
		if o.Now.IsZero() {
			o.Now = time.Now()
		}
		if out, err = d.SetMetadata(ch, o.Now); err != nil {
			return nil, err
		}
		if d, err = pdf.Read(out); err != nil {
			return nil, fault.Wrap(fault.Internal, err, "the PDF/A metadata update produced an unreadable file")
		}
	}
	if part, conf := d.PDFA(); part != 3 || (conf != "B" && conf != "b") {
		return nil, fault.New(fault.Internal, "the PDF/A conversion did not identify as PDF/A-3B (part %d, conformance %q)", part, conf)
	}
	// Ghostscript keeps embedded files and drops the catalog's /AF: PDF/A-3 wants each
	// associated (6.8), which an incremental update restores.
	if fixed, changed, err := d.AssociateFiles(); err != nil {
		return nil, err
	} else if changed {
		out = fixed
	}
	// Conformance, not only the mark: the native validator judges the result.
	if err := conform.Require(ctx, out, conform.PDFA3B, "the PDF/A conversion"); err != nil {
		return nil, err
	}
	return out, nil
}

// remediate makes src PDF/A-3b without re-rendering it, when the converter offers its
// profile and the validator passes the result; ok false leaves the document to the
// converter.
func remediate(ctx context.Context, c Converter, src *pdf.Doc, o Options) ([]byte, bool) {
	p, isProfiler := c.(Profiler)
	if !isProfiler {
		return nil, false
	}
	icc, err := p.SRGB()
	if err != nil {
		return nil, false
	}
	var ch pdf.Changes
	if o.Title != "" {
		ch.Title = &o.Title
	}
	if o.Author != "" {
		ch.Author = &o.Author
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	out, err := src.MakePDFA3B(icc, ch, o.Now)
	if err != nil {
		return nil, false
	}
	r, err := conform.Check(ctx, out, conform.PDFA3B)
	if err != nil || !r.Compliant {
		return nil, false
	}
	return out, true
}
