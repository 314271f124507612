package ops

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/compress"
	"github.com/papierkram/papierkram/pdf/conform"
	"github.com/papierkram/papierkram/pdf/ocr"
	"github.com/papierkram/papierkram/pdf/pdfa"
)

// Engine interfaces of the operations, named here so that Engines lists them in one place.
type (
	Distiller  = compress.Distiller
	Recognizer = ocr.Recognizer
)

const pdfType = "application/pdf"

var pdfOnly = []string{pdfType}

var (
	pdfPart    = Part{Name: "file", Doc: "The PDF.", File: true, Required: true, Types: []string{pdfType}}
	imageTypes = []string{"image/jpeg", "image/png", "image/tiff", "image/webp"}
)

// pdfResult names a PDF result after its input: invoice.pdf -> invoice-<suffix>.pdf.
func pdfResult(in *Input, suffix string, data []byte) *Output {
	name := "document"
	if f := in.File("file"); f != nil && f.Name != "" {
		name = strings.TrimSuffix(f.Name, ".pdf")
	}
	return &Output{Name: name + "-" + suffix + ".pdf", ContentType: pdfType, Data: data}
}

// PageSelection is the page option of operations that act on some pages.
type PageSelection struct {
	Pages string `query:"pages" default:"all" maxLength:"1000" doc:"Pages to act on: all, 1, 1-3, 1,3,5, 5- (page specification)."`
}

// OutputProfile makes a result PDF/A-3b on request, as word-to-pdf's outputProfile does.
type OutputProfile struct {
	OutputProfile string `query:"outputProfile" enum:"PDF/A-3b" doc:"PDF/A-3b for an archivable result (Ghostscript); empty for plain PDF."`
}

func (o OutputProfile) apply(ctx context.Context, e *Engines, data []byte) ([]byte, error) {
	if o.OutputProfile == "" {
		return data, nil
	}
	if e.PDFA == nil {
		return nil, need("PDF/A conversion (Ghostscript)")
	}
	return pdfa.Convert(ctx, e.PDFA, data, pdfa.Options{})
}

// CompressOptions are compress's options.
type CompressOptions struct {
	Level   string `query:"level" enum:"lossless,medium,high" default:"lossless" doc:"lossless: object streams, identical images and fonts shared, unused objects dropped; medium and high also downsample images and re-encode them as JPEG (Ghostscript)."`
	DPI     int    `query:"dpi" minimum:"0" maximum:"1200" doc:"Target image resolution of the lossy levels; 0 keeps the level's."`
	Quality int    `query:"quality" minimum:"0" maximum:"100" doc:"JPEG quality of the lossy levels (1-100); 0 keeps the level's."`
	// A rewrite breaks signatures: a signed PDF is refused unless the caller accepts that.
	AllowSigned bool `query:"allowSigned" doc:"true: compress a signed PDF too; its signatures are removed (a rewrite would break them). false: a signed PDF is 422 unprocessable."`
}

// Compress makes a PDF smaller.
var Compress = &Operation[CompressOptions]{
	Group: "pdf-tools", Name: "compress", Summary: "Compress a PDF",
	Parts: []Part{pdfPart}, Produces: pdfOnly,
	Run: func(ctx context.Context, e *Engines, in *Input, p *CompressOptions) (*Output, error) {
		if p.Level != "lossless" && p.Level != "" && e.Distiller == nil {
			return nil, need("lossy compression (Ghostscript)")
		}
		r, err := compress.Compress(ctx, e.Distiller, in.File("file").Data, compress.Options{Level: compress.Level(p.Level), DPI: p.DPI, Quality: p.Quality, AllowSigned: p.AllowSigned})
		if err != nil {
			return nil, err
		}
		out := pdfResult(in, "compressed", r.PDF)
		out.Facts = [][2]string{{"Size-Before", strconv.FormatInt(r.Before, 10)}, {"Size-After", strconv.FormatInt(r.After, 10)}, {"Level", string(r.Level)}}
		if r.PDFA != "" {
			out.Facts = append(out.Facts, [2]string{"PDFA", r.PDFA})
		}
		if r.Note != "" {
			out.Facts = append(out.Facts, [2]string{"Note", r.Note})
		}
		return out, nil
	},
}

// EncryptOptions are encrypt's permissions.
type EncryptOptions struct {
	AllowPrint     bool `query:"allowPrint" default:"true" doc:"Printing is allowed."`
	AllowCopy      bool `query:"allowCopy" default:"true" doc:"Copying text and images is allowed."`
	AllowModify    bool `query:"allowModify" default:"true" doc:"Changing the document (and assembling pages) is allowed."`
	AllowAnnotate  bool `query:"allowAnnotate" default:"true" doc:"Adding comments is allowed."`
	AllowFillForms bool `query:"allowFillForms" default:"true" doc:"Filling form fields is allowed."`
}

var passwordParts = []Part{
	pdfPart,
	{Name: "userPassword", Doc: "Password needed to open the PDF; empty: it opens without one.", Secret: true},
	{Name: "ownerPassword", Doc: "Password that lifts the permissions; defaults to the user password.", Secret: true},
}

// Encrypt protects a PDF with AES-256.
var Encrypt = &Operation[EncryptOptions]{
	Group: "pdf-tools", Name: "encrypt", Summary: "Encrypt a PDF (AES-256)",
	Parts: passwordParts, Produces: pdfOnly,
	Run: func(ctx context.Context, e *Engines, in *Input, p *EncryptOptions) (*Output, error) {
		b, err := pdf.Encrypt(ctx, in.File("file").Data, pdf.EncryptOptions{
			UserPassword: in.Fields["userPassword"], OwnerPassword: in.Fields["ownerPassword"],
			Permissions: pdf.Permissions{Print: p.AllowPrint, Copy: p.AllowCopy, Modify: p.AllowModify, Annotate: p.AllowAnnotate, FillForms: p.AllowFillForms},
		})
		if err != nil {
			return nil, err
		}
		return pdfResult(in, "encrypted", b), nil
	},
}

// Decrypt removes a PDF's encryption with its password.
var Decrypt = &Operation[struct{}]{
	Group: "pdf-tools", Name: "decrypt", Summary: "Decrypt a PDF with its password",
	Parts: []Part{pdfPart, {Name: "password", Doc: "The user or the owner password.", Required: true, Secret: true}}, Produces: pdfOnly,
	Run: func(ctx context.Context, e *Engines, in *Input, _ *struct{}) (*Output, error) {
		b, err := pdf.Decrypt(ctx, in.File("file").Data, in.Fields["password"])
		if err != nil {
			return nil, err
		}
		return pdfResult(in, "decrypted", b), nil
	},
}

// Unlock lifts the restrictions of a PDF that opens without a password.
var Unlock = &Operation[struct{}]{
	Group: "pdf-tools", Name: "unlock", Summary: "Remove owner restrictions",
	Parts: []Part{pdfPart}, Produces: pdfOnly,
	Run: func(ctx context.Context, e *Engines, in *Input, _ *struct{}) (*Output, error) {
		b, err := pdf.Unlock(ctx, in.File("file").Data)
		if err != nil {
			return nil, err
		}
		return pdfResult(in, "unlocked", b), nil
	},
}

// BookmarkList is the bookmarks answer.
type BookmarkList struct {
	Count     int            `json:"count" doc:"Number of bookmarks at all levels."`
	Bookmarks []pdf.Bookmark `json:"bookmarks" doc:"The outline tree, in order."`
}

func countBookmarks(bs []pdf.Bookmark) int {
	n := len(bs)
	for _, b := range bs {
		n += countBookmarks(b.Children)
	}
	return n
}

// Bookmarks reads a PDF's outline.
var Bookmarks = &Operation[struct{}]{
	Group: "pdf-tools", Name: "bookmarks", Summary: "Read bookmarks",
	Parts: []Part{pdfPart}, Result: BookmarkList{},
	Run: func(ctx context.Context, e *Engines, in *Input, _ *struct{}) (*Output, error) {
		bs, err := pdf.Bookmarks(ctx, in.File("file").Data)
		if err != nil {
			return nil, err
		}
		return &Output{Value: BookmarkList{Count: countBookmarks(bs), Bookmarks: bs}}, nil
	},
}

// SetBookmarksOptions are bookmarks/set's options.
type SetBookmarksOptions struct {
	Replace bool `query:"replace" default:"true" doc:"true: the given bookmarks replace the outline; false: they are added after it."`
}

// SetBookmarks writes a PDF's outline.
var SetBookmarks = &Operation[SetBookmarksOptions]{
	Group: "pdf-tools", Name: "bookmarks/set", Command: "set-bookmarks", Summary: "Write bookmarks",
	Parts:    []Part{pdfPart, {Name: "bookmarks", Doc: "The bookmarks as JSON: an array of {title, page, bold, italic, color, children}, or the answer of /api/pdf-tools/bookmarks.", Required: true}},
	Produces: pdfOnly,
	Run: func(ctx context.Context, e *Engines, in *Input, p *SetBookmarksOptions) (*Output, error) {
		bs, err := parseBookmarks(in.Fields["bookmarks"])
		if err != nil {
			return nil, err
		}
		b, err := pdf.SetBookmarks(ctx, in.File("file").Data, bs, p.Replace)
		if err != nil {
			return nil, err
		}
		return pdfResult(in, "bookmarked", b), nil
	},
}

// parseBookmarks takes the bare array, or what the bookmarks operation answers, so that a
// read outline can be edited and written back as it is.
func parseBookmarks(s string) ([]pdf.Bookmark, error) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "{") {
		return pdf.ParseBookmarks([]byte(t))
	}
	var list struct {
		Count     int             `json:"count"`
		Bookmarks json.RawMessage `json:"bookmarks"`
	}
	d := json.NewDecoder(strings.NewReader(t))
	d.DisallowUnknownFields()
	if err := d.Decode(&list); err != nil || list.Bookmarks == nil {
		return nil, fault.New(fault.InvalidInput, "bookmarks must be a JSON array of {title, page, children}, or an object {count, bookmarks} as /api/pdf-tools/bookmarks answers").With("field", "bookmarks")
	}
	return pdf.ParseBookmarks(list.Bookmarks)
}

// DeletePagesOptions are delete-pages's options.
type DeletePagesOptions struct {
	Pages string `query:"pages" required:"true" maxLength:"1000" doc:"Pages to delete: 1, 1-3, 1,3,5, 5- (page specification); at least one page must stay."`
}

// DeletePages removes pages.
var DeletePages = &Operation[DeletePagesOptions]{
	Group: "pdf-tools", Name: "delete-pages", Summary: "Delete pages",
	Parts: []Part{pdfPart}, Produces: pdfOnly,
	Run: func(ctx context.Context, e *Engines, in *Input, p *DeletePagesOptions) (*Output, error) {
		b, err := pdf.DeletePages(ctx, in.File("file").Data, p.Pages)
		if err != nil {
			return nil, err
		}
		return pdfResult(in, "edited", b), nil
	},
}

// ReorderOptions are reorder's options.
type ReorderOptions struct {
	Order string `query:"order" required:"true" maxLength:"10000" doc:"The new order: every page exactly once, e.g. 3,1,2 or 2-5,1."`
}

// Reorder puts the pages in a new order.
var Reorder = &Operation[ReorderOptions]{
	Group: "pdf-tools", Name: "reorder", Summary: "Reorder pages",
	Parts: []Part{pdfPart}, Produces: pdfOnly,
	Run: func(ctx context.Context, e *Engines, in *Input, p *ReorderOptions) (*Output, error) {
		b, err := pdf.Reorder(ctx, in.File("file").Data, p.Order)
		if err != nil {
			return nil, err
		}
		return pdfResult(in, "reordered", b), nil
	},
}

// InsertOptions are insert's options.
type InsertOptions struct {
	After int `query:"after" minimum:"0" doc:"Insert after this page; 0 inserts before the first."`
	Blank int `query:"blank" minimum:"0" maximum:"1000" doc:"Insert this many blank pages (the size of the page before them) instead of the pages of insert."`
}

// Insert puts the pages of another PDF, or blank pages, into a PDF.
var Insert = &Operation[InsertOptions]{
	Group: "pdf-tools", Name: "insert", Summary: "Insert pages",
	Parts:    []Part{pdfPart, {Name: "insert", Doc: "The PDF whose pages are inserted (or use blank).", File: true, Types: []string{pdfType}}},
	Produces: pdfOnly,
	Run: func(ctx context.Context, e *Engines, in *Input, p *InsertOptions) (*Output, error) {
		o := pdf.InsertOptions{After: p.After, Blank: p.Blank}
		if f := in.File("insert"); f != nil {
			o.PDF = f.Data
		}
		b, err := pdf.Insert(ctx, in.File("file").Data, o)
		if err != nil {
			return nil, err
		}
		return pdfResult(in, "edited", b), nil
	},
}

// StampOptions are stamp's and watermark's options.
type StampOptions struct {
	PageSelection
	Text     string  `query:"text" maxLength:"1000" doc:"The text of the stamp (or upload image)."`
	Position string  `query:"position" enum:"tl,tc,tr,l,c,r,bl,bc,br" doc:"Where on the page: top left (tl) to bottom right (br), c the centre."`
	OffsetX  float64 `query:"offsetX" minimum:"-10000" maximum:"10000" doc:"Shift to the right, in points."`
	OffsetY  float64 `query:"offsetY" minimum:"-10000" maximum:"10000" doc:"Shift upwards, in points."`
	Opacity  float64 `query:"opacity" minimum:"0" maximum:"1" doc:"Up to 1 (opaque); 0 keeps the default: 1 for a stamp, 0.3 for a watermark."`
	Rotation float64 `query:"rotation" minimum:"-360" maximum:"360" doc:"Degrees, counter-clockwise about the stamp's centre."`
	FontSize float64 `query:"fontSize" minimum:"0" maximum:"500" doc:"Text size in points; 0 keeps 24."`
	Color    string  `query:"color" pattern:"^(#[0-9A-Fa-f]{6})?$" doc:"Text colour as #RRGGBB."`
	Scale    float64 `query:"scale" minimum:"0" maximum:"1" doc:"The image fits, keeping its proportions, in this share of the page's width and height; 0 keeps 0.5."`
}

func (p *StampOptions) domain(in *Input, under bool) pdf.StampOptions {
	o := pdf.StampOptions{Text: p.Text, Pages: p.Pages, Position: p.Position, OffsetX: p.OffsetX, OffsetY: p.OffsetY,
		Opacity: p.Opacity, Rotation: p.Rotation, FontSize: p.FontSize, Color: p.Color, Scale: p.Scale, Under: under}
	if f := in.File("image"); f != nil {
		o.Image = f.Data
	}
	return o
}

var stampParts = []Part{pdfPart, {Name: "image", Doc: "A PNG, JPEG or PDF (its first page) to stamp instead of text.", File: true, Types: []string{"image/png", "image/jpeg", pdfType}}}

// Stamp puts text or an image on top of pages.
var Stamp = &Operation[StampOptions]{
	Group: "pdf-tools", Name: "stamp", Summary: "Stamp text or an image on pages",
	Parts: stampParts, Produces: pdfOnly,
	Run: func(ctx context.Context, e *Engines, in *Input, p *StampOptions) (*Output, error) {
		b, err := pdf.Stamp(ctx, in.File("file").Data, p.domain(in, false))
		if err != nil {
			return nil, err
		}
		return pdfResult(in, "stamped", b), nil
	},
}

// Watermark puts text or an image under the content of pages.
var Watermark = &Operation[StampOptions]{
	Group: "pdf-tools", Name: "watermark", Summary: "Put a watermark under the page content",
	Parts: stampParts, Produces: pdfOnly,
	Run: func(ctx context.Context, e *Engines, in *Input, p *StampOptions) (*Output, error) {
		b, err := pdf.Stamp(ctx, in.File("file").Data, p.domain(in, true))
		if err != nil {
			return nil, err
		}
		return pdfResult(in, "watermarked", b), nil
	},
}

// PageNumberOptions are page-numbers's options.
type PageNumberOptions struct {
	PageSelection
	Pattern  string  `query:"pattern" maxLength:"200" doc:"The label; {page} is the page number, {pages} the number of the last numbered page: \"Seite {page} von {pages}\". Default \"{page} / {pages}\"."`
	Position string  `query:"position" enum:"tl,tc,tr,bl,bc,br" doc:"Where on the page; default bottom centre."`
	FontSize float64 `query:"fontSize" minimum:"0" maximum:"100" doc:"Points; 0 keeps 10."`
	Start    int     `query:"start" minimum:"0" maximum:"100000" doc:"The number of the first numbered page; 0 keeps 1."`
}

// PageNumbers numbers pages.
var PageNumbers = &Operation[PageNumberOptions]{
	Group: "pdf-tools", Name: "page-numbers", Summary: "Number pages",
	Parts: []Part{pdfPart}, Produces: pdfOnly,
	Run: func(ctx context.Context, e *Engines, in *Input, p *PageNumberOptions) (*Output, error) {
		b, err := pdf.NumberPages(ctx, in.File("file").Data, pdf.PageNumberOptions{Pattern: p.Pattern, Pages: p.Pages, Position: p.Position, FontSize: p.FontSize, Start: p.Start})
		if err != nil {
			return nil, err
		}
		return pdfResult(in, "numbered", b), nil
	},
}

// FlattenOptions are flatten's options.
type FlattenOptions struct {
	Annotations bool `query:"annotations" default:"true" doc:"Also draw comments, stamps and other annotations into the page; links stay links. Form fields are always flattened."`
}

// Flatten turns form fields and annotations into page content.
var Flatten = &Operation[FlattenOptions]{
	Group: "pdf-tools", Name: "flatten", Summary: "Flatten forms and annotations",
	Parts: []Part{pdfPart}, Produces: pdfOnly,
	Run: func(ctx context.Context, e *Engines, in *Input, p *FlattenOptions) (*Output, error) {
		b, err := pdf.Flatten(ctx, in.File("file").Data, pdf.FlattenOptions{Annotations: p.Annotations})
		if err != nil {
			return nil, err
		}
		return pdfResult(in, "flattened", b), nil
	},
}

// ImagesOptions are images-to-pdf's options.
type ImagesOptions struct {
	OutputProfile
	PageSize string  `query:"pageSize" enum:"A3,A4,A5,Letter,Legal" doc:"Fit each image on a page of this size (turned to the image's orientation); empty: each page is its image's size."`
	Margin   float64 `query:"margin" minimum:"0" maximum:"200" doc:"Margin around the image in points, with pageSize."`
}

// maxImages is the most images one request takes: the upload reader's 64 parts, less room.
const maxImages = 60

// ImagesToPDF makes one PDF page of each image.
var ImagesToPDF = &Operation[ImagesOptions]{
	Group: "pdf-tools", Name: "images-to-pdf", Summary: "Images to PDF",
	Parts:    []Part{{Name: "images", Doc: "The images (JPEG, PNG, TIFF, WebP), one page each, in order.", File: true, Required: true, Max: maxImages, Types: imageTypes}},
	Produces: pdfOnly,
	Run: func(ctx context.Context, e *Engines, in *Input, p *ImagesOptions) (*Output, error) {
		b, err := imagesToPDF(ctx, in.Files["images"], pdf.ImagesOptions{PageSize: p.PageSize, Margin: p.Margin})
		if err != nil {
			return nil, err
		}
		if b, err = p.apply(ctx, e, b); err != nil {
			return nil, err
		}
		return &Output{Name: "images.pdf", ContentType: pdfType, Data: b}, nil
	},
}

func imagesToPDF(ctx context.Context, files []File, o pdf.ImagesOptions) ([]byte, error) {
	imgs := make([][]byte, len(files))
	for i, f := range files {
		imgs[i] = f.Data
	}
	return pdf.ImagesToPDF(ctx, imgs, o)
}

// OCROptions are ocr's options.
type OCROptions struct {
	OutputProfile
	PageSelection
	Languages string `query:"languages" default:"deu+eng" pattern:"^[a-z_]{3,16}(\\+[a-z_]{3,16}){0,4}$" doc:"Tesseract languages joined by +."`
	DPI       int    `query:"dpi" minimum:"0" maximum:"600" doc:"Resolution the pages are read at (100-600); 0 keeps 300."`
	Force     bool   `query:"force" doc:"Also read pages that have text already (a scan with a poor text layer); their text stays."`
}

// OCR gives scanned pages a searchable text layer.
var OCR = &Operation[OCROptions]{
	Group: "pdf-tools", Name: "ocr", Summary: "Make a scan searchable (OCR)",
	Parts:    []Part{{Name: "file", Doc: "A scanned PDF, or images (JPEG, PNG, TIFF, WebP) that become one page each.", File: true, Required: true, Max: maxImages, Types: append([]string{pdfType}, imageTypes...)}},
	Produces: pdfOnly,
	Run: func(ctx context.Context, e *Engines, in *Input, p *OCROptions) (*Output, error) {
		if e.Renderer == nil || e.OCR == nil {
			return nil, need("OCR (poppler and Tesseract)")
		}
		files := in.Files["file"]
		data := files[0].Data
		if len(files) > 1 || !pdf.IsPDF(data) {
			var err error
			if data, err = imagesToPDF(ctx, files, pdf.ImagesOptions{}); err != nil {
				return nil, err
			}
		}
		r, err := ocr.Searchable(ctx, e.Renderer, e.OCR, data, ocr.Options{Languages: p.Languages, Pages: p.Pages, DPI: p.DPI, Force: p.Force})
		if err != nil {
			return nil, err
		}
		b, err := p.apply(ctx, e, r.PDF)
		if err != nil {
			return nil, err
		}
		out := pdfResult(in, "ocr", b)
		read, skipped, words := 0, 0, 0
		for _, pg := range r.Pages {
			if pg.Skipped {
				skipped++
				continue
			}
			read++
			words += pg.Words
		}
		out.Facts = [][2]string{{"Pages-Read", strconv.Itoa(read)}, {"Pages-Skipped", strconv.Itoa(skipped)}, {"Words", strconv.Itoa(words)}}
		return out, nil
	},
}

// ValidateOptions are validate's options.
type ValidateOptions struct {
	Profile string `query:"profile" enum:"auto,PDF/A-2b,PDF/A-2u,PDF/A-3b,PDF/A-3u,PDF/UA-1" default:"auto" doc:"The conformance level to check against; auto: the PDF/A level the file claims in its XMP (PDF/A-3b when it claims none). PDF/UA-1: the machine-checkable rules of ISO 14289-1."`
	Format  string `query:"format" enum:"json,html" default:"json" doc:"json: the report as JSON; html: a report page."`
}

// Validate checks a PDF against PDF/A-2 or PDF/A-3 natively (pdf/conform).
var Validate = &Operation[ValidateOptions]{
	Group: "pdf-tools", Name: "validate", Summary: "Check PDF/A conformance",
	Parts: []Part{pdfPart}, Result: conform.ConformanceReport{}, Produces: []string{"application/json", "text/html"},
	Run: func(ctx context.Context, e *Engines, in *Input, p *ValidateOptions) (*Output, error) {
		profile, err := conform.ParseProfile(p.Profile)
		if err != nil {
			return nil, err
		}
		r, err := conform.Check(ctx, in.File("file").Data, profile)
		if err != nil {
			return nil, err
		}
		out := &Output{Value: r}
		if p.Format == "html" {
			out = pdfResult(in, "validation", r.HTML())
			out.Name = strings.TrimSuffix(out.Name, ".pdf") + ".html"
			out.ContentType = "text/html; charset=utf-8"
		}
		out.Facts = [][2]string{{"Profile", string(r.Profile)}, {"Compliant", strconv.FormatBool(r.Compliant)}}
		if !r.Compliant {
			out.Fails = fmt.Sprintf("the PDF does not conform to %s: %d of %d rules failed", r.Profile, len(r.Failed), r.Checked)
		}
		return out, nil
	},
}
