package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	pdfcpu "github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"

	"github.com/papierkram/papierkram/fault"
)

func init() {
	// pdfcpu would otherwise read and write a configuration directory in $HOME.
	api.DisableConfigDir()
}

// MaxPages bounds the documents we take apart; a 10,000-page upload is refused rather than
// allowed to hold a worker for minutes.
const MaxPages = 5000

func config() *model.Configuration {
	c := model.NewDefaultConfiguration()
	c.ValidationMode = model.ValidationRelaxed
	c.Optimize = false // keep the reader fast; we rewrite only what an operation touches
	// Object and cross-reference streams are compressed with a new flate writer each; for a
	// split into 100 parts that state allocation was most of the time. Outputs keep their
	// content streams as they were and use a classic cross-reference table instead.
	c.WriteObjectStream = false
	c.WriteXRefStream = false
	// pdfcpu's own limits, behind Check's: what it inflates while reading (object and
	// cross-reference streams) and the tables it sizes by declared counts.
	c.Limits.MaxDecodeBytes = maxObjStmBytes
	c.Limits.MaxObjectCount = MaxObjectNumber
	c.Limits.MaxXRefEntries = MaxObjectNumber
	return c
}

// Doc is a parsed PDF.
type Doc struct {
	ctx      *model.Context
	src      []byte
	inflated int64   // what Check inflated of it
	content  []int64 // decoded content size of each page
	unlocked bool    // read from an owner-only encrypted file, decrypted
}

// Read checks data against the limits of Check and parses it. A file that is not a PDF, is
// damaged, or has more than MaxPages pages is fault.InvalidPDF; one over the other limits
// fault.PayloadTooLarge; an encrypted one fault.EncryptedPDF.
//
// A file encrypted with an owner password only (restrictions on printing or copying; it
// opens in every viewer without a password, as many supplier invoices do) is read: it is
// decrypted, Bytes is the decrypted document to hand on, and Unlocked says so. Only a file
// that needs a password to open is fault.EncryptedPDF.
func Read(data []byte) (*Doc, error) {
	d, err := read(data, false)
	if fault.CodeOf(err) != fault.EncryptedPDF {
		return d, err
	}
	plain, uerr := Unlock(context.Background(), data)
	if uerr != nil {
		return nil, uerr
	}
	if d, err = read(plain, false); err != nil {
		return nil, err
	}
	d.unlocked = true
	return d, nil
}

// Unlocked tells whether the document was read from a file encrypted with an owner password
// only; Bytes is then its decrypted copy, not the bytes given to Read.
func (d *Doc) Unlocked() bool { return d.unlocked }

// read parses data; with allowEncrypted, a file that opens without a user password (owner
// restrictions only) is read too.
func read(data []byte, allowEncrypted bool) (d *Doc, err error) {
	return readWith(data, allowEncrypted, true)
}

// ReadToRead is Read for the operations that only read a document, never write it: its
// pages' text, word boxes and images, its attachments. A file that Read refuses for a
// defect of its object graph alone (a date written "+00:00", a structure tree root without
// /Type: real generators write both, and viewers and poppler read such files) is read
// leniently (ReadLenient). Anything Read refuses for another reason (not a PDF, over a
// limit, a password to open) stays refused.
func ReadToRead(data []byte) (*Doc, error) {
	d, err := Read(data)
	return orLenient(data, d, err)
}

// orLenient is a strict read's result, or, when that read refused data as fault.InvalidPDF,
// data read leniently within Read's page limits; the strict read's error when that fails too.
func orLenient(data []byte, d *Doc, err error) (*Doc, error) {
	if fault.CodeOf(err) != fault.InvalidPDF {
		return d, err
	}
	ld, lerr := ReadLenient(data)
	if lerr != nil {
		return nil, err
	}
	// Unvalidated, pdfcpu has not counted the pages; Read's page limits hold all the same.
	if perr := ld.ctx.EnsurePageCount(); perr != nil || ld.ctx.PageCount < 1 || ld.ctx.PageCount > MaxPages {
		return nil, err
	}
	return ld, nil
}

// ReadLenient reads data with Read's limits but without pdfcpu's judgement of the object
// graph (wrong entries, values out of range, an unknown header version): for the PDF/A
// validator, pdf/conform, which must report such defects by clause instead of refusing
// the file, and for ReadToRead. Nothing else should use it: what it accepts, the
// operations that write may not.
func ReadLenient(data []byte) (*Doc, error) {
	d, err := readWith(data, false, false)
	if err != nil && strings.Contains(err.Error(), "unknown PDF header version") && len(data) > 8 {
		// The header is the validator's to judge (6.1.2); read the rest as PDF 1.7.
		fixed := bytes.Clone(data)
		copy(fixed[5:8], "1.7")
		if d, err = readWith(fixed, false, false); err == nil {
			d.src = data
		}
	}
	return d, err
}

func readWith(data []byte, allowEncrypted, validated bool) (d *Doc, err error) {
	if !IsPDF(data) {
		return nil, fault.New(fault.InvalidPDF, "the file is not a PDF (no %%PDF- header)")
	}
	defer recoverInto(&err, "read")
	// Before pdfcpu: it inflates object streams while reading and page content when it
	// copies pages, and the engines the document goes to next inflate everything.
	inflated, err := check(data)
	if err != nil {
		return nil, err
	}
	ctx, err := api.ReadContext(bytes.NewReader(data), config())
	if err != nil {
		return nil, readErr(err)
	}
	if (ctx.Encrypt != nil || ctx.E != nil) && !allowEncrypted {
		return nil, fault.New(fault.EncryptedPDF, "the PDF is encrypted; remove its password protection and upload it again")
	}
	if !validated {
		content, err := contentSizes(ctx.XRefTable)
		if err != nil {
			return nil, err
		}
		return &Doc{ctx: ctx, src: data, inflated: inflated, content: content}, nil
	}
	if ctx, err = validate(ctx, data); err != nil {
		return nil, readErr(err)
	}
	if ctx.PageCount < 1 {
		return nil, fault.New(fault.InvalidPDF, "the PDF has no pages")
	}
	if ctx.PageCount > MaxPages {
		return nil, fault.New(fault.InvalidPDF, "the PDF has %d pages; at most %d are accepted", ctx.PageCount, MaxPages)
	}
	// pdfcpu numbers objects as its table says, and has taken a few the check could not
	// number: page content is measured as pdfcpu holds it, and its table's size checked
	// again (a table it repaired comes from headers the check read leniently).
	if n := ctx.XRefTable.Size; n != nil && *n > MaxObjectNumber || len(ctx.Table) > MaxObjects {
		return nil, fault.New(fault.PayloadTooLarge, "the PDF has more than %d objects or object numbers beyond %d", MaxObjects, MaxObjectNumber)
	}
	content, err := contentSizes(ctx.XRefTable)
	if err != nil {
		return nil, err
	}
	return &Doc{ctx: ctx, src: data, inflated: inflated, content: content}, nil
}

// validate runs pdfcpu's validation of ctx, read from data. Many producers (ZUGFeRD 2.0
// files among them) declare an old version and use later features, which every reader
// accepts: such a file is judged as PDF 1.7. pdfcpu refuses the catalog's /AF and
// /DPartRoot of a PDF 2.0 file (PDF/A-4 invoices carry their XML that way), which it reads
// as a PDF 1.7 would: such a file is validated as 1.7 and stays 2.0 for what is written
// of it.
func validate(ctx *model.Context, data []byte) (*model.Context, error) {
	err := api.ValidateContext(ctx)
	if err == nil {
		return ctx, nil
	}
	older := strings.Contains(err.Error(), "unsupported in version") && ctx.XRefTable.Version() < model.V17
	v20 := strings.Contains(err.Error(), "PDF 2.0") && strings.Contains(err.Error(), "not supported") && ctx.XRefTable.Version() >= model.V20
	if !older && !v20 {
		return nil, err
	}
	// Validation changes the context as it goes: judge a fresh one.
	if ctx, err = api.ReadContext(bytes.NewReader(data), config()); err != nil {
		return nil, err
	}
	own, v := ctx.RootVersion, model.V17
	ctx.RootVersion = &v
	if err := api.ValidateContext(ctx); err != nil {
		return nil, err
	}
	if v20 {
		ctx.RootVersion = own
	}
	return ctx, nil
}

// IsPDF tells whether data looks like a PDF: a %PDF- header within its first KiB, where
// readers look for it.
func IsPDF(data []byte) bool { return bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")) }

func readErr(err error) error {
	msg := err.Error()
	switch {
	case errors.Is(err, pdfcpu.ErrWrongPassword) || strings.Contains(msg, "password") || strings.Contains(msg, "encrypt"):
		return fault.Wrap(fault.EncryptedPDF, err, "the PDF is encrypted; remove its password protection and upload it again")
	default:
		return fault.Wrap(fault.InvalidPDF, err, "the PDF cannot be read: %s", trimPdfcpu(msg))
	}
}

// trimPdfcpu keeps pdfcpu's message useful to a caller without its package prefixes.
func trimPdfcpu(s string) string {
	s = strings.ReplaceAll(s, "pdfcpu: ", "")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// recoverInto turns a parser panic into an InvalidPDF error: hostile input must not take
// down a worker.
func recoverInto(err *error, op string) {
	if v := recover(); v != nil {
		*err = fault.Wrap(fault.InvalidPDF, fmt.Errorf("panic in %s: %v", op, v), "the PDF is damaged and cannot be processed")
	}
}

// Info is what Inspect reports.
type Info struct {
	Metadata
	Pages      int    `json:"pages"`
	PDFVersion string `json:"pdfVersion"`
	Encrypted  bool   `json:"encrypted"`
}

// Inspect reads the metadata, page count, version and encryption status. Unlike Read it
// accepts an encrypted file that opens without a password, and, as ReadToRead, one with a
// defect of its object graph that viewers read past.
func Inspect(data []byte) (*Info, error) {
	d, err := read(data, true)
	d, err = orLenient(data, d, err)
	if err != nil {
		return nil, err
	}
	m, err := d.Metadata()
	if err != nil {
		return nil, err
	}
	return &Info{Metadata: m, Pages: d.PageCount(), PDFVersion: d.Version(), Encrypted: d.ctx.Encrypt != nil}, nil
}

// PageCount is the number of pages.
// Context is the parsed document for the packages under pdf/ that read more of it than Doc
// exposes (the PDF/A validator, pdf/conform). It is shared: treat it as read-only.
func (d *Doc) Context() *model.Context { return d.ctx }

func (d *Doc) PageCount() int { return d.ctx.PageCount }

// Version is the PDF version, e.g. "1.7".
func (d *Doc) Version() string { return d.ctx.XRefTable.Version().String() }

// Bytes is the document as it was read.
func (d *Doc) Bytes() []byte { return d.src }
