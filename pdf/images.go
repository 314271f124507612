package pdf

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"strings"

	pdfcpu "github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
	"golang.org/x/image/webp"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/tiffdir"
)

// ImagesOptions steer ImagesToPDF.
type ImagesOptions struct {
	// PageSize is A3, A4, A5, Letter or Legal (in any case): each image is fitted into
	// the page within the margin, centred, keeping its aspect ratio, on a page turned to
	// landscape for a landscape image. Empty, each page has the size of its image at the
	// image's resolution (150 dpi when it declares none).
	PageSize string
	// Margin is the space around the image in points, with PageSize only.
	Margin float64
}

// Limits of ImagesToPDF. A page per image: a 500-page scan is one request, and a 100
// megapixel image, a 12,000 x 8,000 scan, takes about a GB to decode and re-encode.
const (
	MaxImages      = 500
	MaxImagePixels = 100_000_000
	// defaultDPI is the resolution of an image that declares none: that of a typical
	// document scan, so that such a scan comes out at its paper size.
	defaultDPI = 150
	// Pages are kept within ISO 32000's implementation limits (annex C): readers such
	// as Acrobat refuse larger ones.
	maxPagePoints = 14400
	minPagePoints = 3
)

// imagePageSizes in points, portrait.
var imagePageSizes = map[string][2]float64{
	"A3":     {mmToPoints(297), mmToPoints(420)},
	"A4":     {mmToPoints(210), mmToPoints(297)},
	"A5":     {mmToPoints(148), mmToPoints(210)},
	"LETTER": {612, 792},
	"LEGAL":  {612, 1008},
}

func mmToPoints(v float64) float64 { return v / 25.4 * 72 }

// picture is one page's image as the sniffing saw it.
type picture struct {
	index      int    // of the image among the inputs, from 0
	format     string // jpeg, png, tiff, webp
	w, h       int    // pixels as stored
	xdpi, ydpi float64
	orient     int   // EXIF orientation, 1 to 8
	decoded    int64 // bytes the image stream decodes to (0 for a JPEG, kept as it is)
}

// ImagesToPDF makes a PDF with a page per image (per page of a multi-page TIFF). JPEG,
// PNG, TIFF and WebP are taken, known by their bytes; JPEGs are embedded as they are and
// turned as their EXIF orientation says. Another type is fault.UnsupportedMediaType, a
// damaged or truncated image fault.InvalidInput, more than MaxImages pages or an image over
// MaxImagePixels fault.PayloadTooLarge; each names the image (from 1).
func ImagesToPDF(ctx context.Context, images [][]byte, o ImagesOptions) (out []byte, err error) {
	if ctx.Err() != nil {
		return nil, fault.FromContext(ctx, "the PDF was not made")
	}
	if len(images) == 0 {
		return nil, fault.New(fault.InvalidInput, "no images given")
	}
	if len(images) > MaxImages {
		return nil, fault.New(fault.PayloadTooLarge, "%d images; at most %d are accepted", len(images), MaxImages)
	}
	page, err := pageOption(o)
	if err != nil {
		return nil, err
	}
	var pics []picture
	var total int64
	for i, data := range images {
		pp, err := sniffImage(i, data)
		if err != nil {
			return nil, err
		}
		for _, p := range pp {
			if len(pics) >= MaxImages {
				return nil, imageFault(fault.PayloadTooLarge, i, "the images have more than %d pages together; at most %d are accepted", MaxImages, MaxImages)
			}
			// What the result's streams decode to must pass Check, or no other
			// operation could read it.
			if p.decoded > MaxStreamBytes {
				return nil, imageFault(fault.PayloadTooLarge, i, "decodes to %d MiB in the PDF; at most %d MiB per image are accepted", p.decoded/mib, MaxStreamBytes/mib)
			}
			if total += p.decoded; total > MaxDecodedBytes {
				return nil, imageFault(fault.PayloadTooLarge, i, "the images decode to more than %d MiB in the PDF together; JPEGs count nothing, other images their pixels", MaxDecodedBytes/mib)
			}
			pics = append(pics, p)
		}
	}
	defer recoverInto(&err, "images to PDF")
	conf := config()
	conf.Limits.MaxImagePixels = MaxImagePixels
	c, err := pdfcpu.CreateContextWithXRefTable(conf, &types.Dim{Width: imagePageSizes["A4"][0], Height: imagePageSizes["A4"][1]})
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "the PDF cannot be made")
	}
	pagesRef, err := c.Pages()
	if err != nil || pagesRef == nil {
		return nil, fault.Wrap(fault.Internal, err, "the PDF cannot be made")
	}
	pages, err := c.DereferenceDict(*pagesRef)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "the PDF cannot be made")
	}
	for i := 0; i < len(pics); {
		if ctx.Err() != nil {
			return nil, fault.FromContext(ctx, "the PDF was not made")
		}
		p := pics[i]
		res, err := imageResources(c.XRefTable, images[p.index])
		if err != nil {
			e := imageFault(fault.InvalidInput, p.index, "cannot be read: %s", trimPdfcpu(err.Error()))
			e.Err = err
			return nil, e
		}
		// A TIFF gives a resource per page, the sniffing a picture per page.
		for _, r := range res {
			if i >= len(pics) || pics[i].index != p.index || r.Width != pics[i].w || r.Height != pics[i].h {
				return nil, imageFault(fault.InvalidInput, p.index, "has pages other than its directory says")
			}
			if err := addImagePage(c, *pagesRef, pages, r.Res, pics[i], page, o.Margin); err != nil {
				return nil, err
			}
			i++
		}
		if i < len(pics) && pics[i].index == p.index {
			return nil, imageFault(fault.InvalidInput, p.index, "has pages other than its directory says")
		}
	}
	if out, err = write(c); err != nil {
		return nil, err
	}
	if err := Check(out); err != nil {
		return nil, err
	}
	return out, nil
}

// imageResources has pdfcpu make the image XObjects of data; a panic in a decoder is a
// damaged image.
func imageResources(x *model.XRefTable, data []byte) (res []model.ImageResource, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("the decoder failed: %v", v)
		}
	}()
	return model.CreateImageResources(x, bytes.NewReader(data), false, false)
}

// imageFault is a fault about image i (from 0), named from 1 in the message and the
// details.
func imageFault(code fault.Code, i int, format string, args ...any) *fault.Error {
	return fault.New(code, "image %d %s", i+1, fmt.Sprintf(format, args...)).With("image", i+1)
}

// pageOption checks the options and returns the page size, or nil for pages the size of
// their images.
func pageOption(o ImagesOptions) (*[2]float64, error) {
	if math.IsNaN(o.Margin) || math.IsInf(o.Margin, 0) || o.Margin < 0 {
		return nil, fault.New(fault.InvalidInput, "the margin must be 0 or more points").With("field", "margin")
	}
	if o.PageSize == "" {
		if o.Margin != 0 {
			return nil, fault.New(fault.InvalidInput, "a margin needs a page size; without one each page is the size of its image").With("field", "margin")
		}
		return nil, nil
	}
	size, ok := imagePageSizes[strings.ToUpper(o.PageSize)]
	if !ok {
		return nil, fault.New(fault.InvalidInput, "unknown page size %q; A3, A4, A5, Letter and Legal are known", o.PageSize).With("field", "pageSize")
	}
	// An inch each way at least is left for the image.
	if min(size[0], size[1])-2*o.Margin < 72 {
		return nil, fault.New(fault.InvalidInput, "a margin of %g points leaves less than an inch of the page for the image", o.Margin).With("field", "margin")
	}
	return &size, nil
}

// addImagePage adds a page that shows the image resource of p.
func addImagePage(c *model.Context, pagesRef types.IndirectRef, pages types.Dict, img model.Resource, p picture, size *[2]float64, margin float64) error {
	// The image as shown: turned as its orientation says.
	dw, dh := float64(p.w), float64(p.h)
	xdpi, ydpi := p.xdpi, p.ydpi
	if p.orient >= 5 {
		dw, dh, xdpi, ydpi = dh, dw, ydpi, xdpi
	}
	var pw, ph, x, y, w, h float64
	if size == nil {
		pw, ph = dw/xdpi*72, dh/ydpi*72
		if m := max(pw, ph); m > maxPagePoints {
			pw, ph = pw*maxPagePoints/m, ph*maxPagePoints/m
		}
		if m := min(pw, ph); m < minPagePoints && max(pw, ph)*minPagePoints/m <= maxPagePoints {
			pw, ph = pw*minPagePoints/m, ph*minPagePoints/m
		}
		w, h = pw, ph
	} else {
		pw, ph = size[0], size[1]
		if dw > dh {
			pw, ph = ph, pw
		}
		s := min((pw-2*margin)/dw, (ph-2*margin)/dh)
		w, h = dw*s, dh*s
		x, y = (pw-w)/2, (ph-h)/2
	}
	m := imageMatrix(p.orient, x, y, w, h)
	content := fmt.Sprintf("q %s cm /Im0 Do Q", strings.Join(m, " "))
	sd, err := c.XRefTable.NewStreamDictForBuf([]byte(content))
	if err != nil {
		return fault.Wrap(fault.Internal, err, "the page cannot be made")
	}
	if err := sd.Encode(); err != nil {
		return fault.Wrap(fault.Internal, err, "the page cannot be made")
	}
	contentRef, err := c.IndRefForNewObject(*sd)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "the page cannot be made")
	}
	page := types.Dict{
		"Type":      types.Name("Page"),
		"Parent":    pagesRef,
		"MediaBox":  types.Array{types.Integer(0), types.Integer(0), pdfPoints(pw), pdfPoints(ph)},
		"Resources": types.Dict{"XObject": types.Dict{"Im0": *img.IndRef}},
		"Contents":  *contentRef,
	}
	ref, err := c.IndRefForNewObject(page)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "the page cannot be made")
	}
	if err := model.AppendPageTree(ref, 1, pages); err != nil {
		return fault.Wrap(fault.Internal, err, "the page cannot be added")
	}
	c.PageCount++
	return nil
}

func pdfPoints(v float64) types.Float { return types.Float(math.Round(v*1000) / 1000) }

// imageMatrix is the matrix that draws the image (the unit square, its first row at the
// top) into the box x, y, w, h as EXIF orientation o shows it. Each orientation says
// where the stored image's top-left, top-right and bottom-left corners go.
func imageMatrix(o int, x, y, w, h float64) []string {
	tl, tr, bl, br := [2]float64{x, y + h}, [2]float64{x + w, y + h}, [2]float64{x, y}, [2]float64{x + w, y}
	corners := map[int][3][2]float64{
		1: {tl, tr, bl},
		2: {tr, tl, br}, // mirrored
		3: {br, bl, tr}, // turned 180°
		4: {bl, br, tl}, // flipped
		5: {tl, bl, tr}, // mirrored, turned 90° anticlockwise (transposed)
		6: {tr, br, tl}, // turned 90° clockwise
		7: {br, tr, bl}, // mirrored, turned 90° clockwise (transversed)
		8: {bl, tl, br}, // turned 90° anticlockwise
	}
	c, ok := corners[o]
	if !ok {
		c = corners[1]
	}
	a, b := c[1][0]-c[0][0], c[1][1]-c[0][1]
	cc, d := c[0][0]-c[2][0], c[0][1]-c[2][1]
	var out []string
	for _, v := range []float64{a, b, cc, d, c[2][0], c[2][1]} {
		out = append(out, types.Float(math.Round(v*10000)/10000).PDFString())
	}
	return out
}

// Orientation is a JPEG's EXIF orientation, 1 to 8 (1, upright as stored, for another
// image, a JPEG without one or one that cannot be read): a phone stores its photo as the
// sensor saw it and says in the orientation how it is to be shown.
func Orientation(data []byte) int {
	p := picture{orient: 1}
	if !bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}) || jpegInfo(data, &p) != nil {
		return 1
	}
	return p.orient
}

// sniffImage tells the type of data by its bytes and reads what the pages need, checking
// sizes before anything decodes the pixels.
func sniffImage(i int, data []byte) ([]picture, error) {
	p := picture{index: i, orient: 1}
	var cfg image.Config
	var err error
	switch {
	case bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}):
		p.format = "jpeg"
		if cfg, err = jpeg.DecodeConfig(bytes.NewReader(data)); err != nil {
			return nil, decodeFault(i, "JPEG", err)
		}
		if err := jpegInfo(data, &p); err != nil {
			return nil, imageFault(fault.InvalidInput, i, "is a damaged JPEG: %s", err.Error())
		}
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		p.format = "png"
		if cfg, err = png.DecodeConfig(bytes.NewReader(data)); err != nil {
			return nil, decodeFault(i, "PNG", err)
		}
		pngInfo(data, &p)
	case bytes.HasPrefix(data, []byte("II*\x00")) || bytes.HasPrefix(data, []byte("MM\x00*")):
		return tiffPictures(i, data)
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		p.format = "webp"
		if cfg, err = webp.DecodeConfig(bytes.NewReader(data)); err != nil {
			return nil, decodeFault(i, "WebP", err)
		}
	default:
		return nil, imageFault(fault.UnsupportedMediaType, i, "is %s; JPEG, PNG, TIFF and WebP images are taken", otherType(data))
	}
	p.w, p.h = cfg.Width, cfg.Height
	if err := checkPixels(i, p.w, p.h); err != nil {
		return nil, err
	}
	if p.format != "jpeg" {
		p.decoded = decodedSize(cfg.ColorModel, p.w, p.h)
	}
	if p.xdpi == 0 || p.ydpi == 0 {
		p.xdpi, p.ydpi = defaultDPI, defaultDPI
	}
	return []picture{p}, nil
}

func checkPixels(i, w, h int) error {
	if w <= 0 || h <= 0 {
		return imageFault(fault.InvalidInput, i, "has no pixels (%d x %d)", w, h)
	}
	if int64(w)*int64(h) > MaxImagePixels {
		return imageFault(fault.PayloadTooLarge, i, "has %d x %d pixels; at most %d megapixels are accepted", w, h, MaxImagePixels/1_000_000)
	}
	return nil
}

// decodeFault sorts a decoder's refusal: a feature it lacks, or a damaged file.
func decodeFault(i int, typ string, err error) error {
	var ju jpeg.UnsupportedError
	var pu png.UnsupportedError
	if errors.As(err, &ju) || errors.As(err, &pu) || strings.Contains(err.Error(), "unsupported") {
		return imageFault(fault.UnsupportedMediaType, i, "is a %s this service cannot read: %s", typ, err.Error())
	}
	return imageFault(fault.InvalidInput, i, "is a damaged %s: %s", typ, err.Error())
}

// otherType names a few types people upload instead of images, for the message.
func otherType(b []byte) string {
	switch {
	case len(b) == 0:
		return "empty"
	case bytes.HasPrefix(b, []byte("GIF8")):
		return "a GIF"
	case bytes.HasPrefix(b, []byte("BM")):
		return "a BMP"
	case bytes.HasPrefix(b, []byte("%PDF-")):
		return "a PDF"
	case len(b) >= 12 && string(b[4:8]) == "ftyp" && (string(b[8:12]) == "heic" || string(b[8:12]) == "heix" || string(b[8:12]) == "mif1"):
		return "a HEIC image"
	case len(b) >= 12 && string(b[4:8]) == "ftyp" && string(b[8:12]) == "avif":
		return "an AVIF image"
	case bytes.HasPrefix(b, []byte("<svg")) || bytes.HasPrefix(b, []byte("<?xml")):
		return "XML or SVG"
	}
	return "of an unknown type"
}

// decodedSize is what pdfcpu's image stream of an image with colour model m decodes to
// (an alpha channel goes to a soft mask of its own, counted too).
func decodedSize(m color.Model, w, h int) int64 {
	px := int64(w) * int64(h)
	switch m {
	case color.GrayModel:
		return px
	case color.Gray16Model:
		return 2 * px
	case color.CMYKModel:
		return 4 * px
	case color.RGBA64Model, color.NRGBA64Model:
		return 6 * px
	}
	if _, ok := m.(color.Palette); ok {
		return px
	}
	return 3 * px
}

// jpegInfo walks the markers of a JPEG to its end (a truncated file has no EOI), reading
// the resolution (JFIF, else EXIF) and the EXIF orientation on the way.
func jpegInfo(b []byte, p *picture) error {
	var jfif, exif [2]float64
	i := 2
	for {
		for i < len(b) && b[i] == 0xff && i+1 < len(b) && b[i+1] == 0xff {
			i++ // fill bytes
		}
		if i+1 >= len(b) || b[i] != 0xff {
			return errors.New("the file ends before its end marker")
		}
		m := b[i+1]
		i += 2
		switch {
		case m == 0xd9:
			if p.xdpi, p.ydpi = jfif[0], jfif[1]; p.xdpi == 0 {
				p.xdpi, p.ydpi = exif[0], exif[1]
			}
			if !plausibleDPI(p.xdpi) || !plausibleDPI(p.ydpi) {
				p.xdpi, p.ydpi = 0, 0
			}
			return nil
		case m >= 0xd0 && m <= 0xd7 || m == 0x01:
			continue
		}
		if i+2 > len(b) {
			return errors.New("the file ends within a marker")
		}
		n := int(binary.BigEndian.Uint16(b[i:]))
		if n < 2 || i+n > len(b) {
			return errors.New("the file ends within a segment")
		}
		seg := b[i+2 : i+n]
		i += n
		switch {
		case m == 0xe0 && len(seg) >= 12 && string(seg[:5]) == "JFIF\x00":
			x, y := float64(binary.BigEndian.Uint16(seg[8:])), float64(binary.BigEndian.Uint16(seg[10:]))
			switch seg[7] {
			case 1:
				jfif = [2]float64{x, y}
			case 2:
				jfif = [2]float64{x * 2.54, y * 2.54}
			}
		case m == 0xe1 && len(seg) >= 14 && string(seg[:6]) == "Exif\x00\x00":
			if t, ok := tiffdir.Open(seg[6:]); ok {
				if e, _, err := t.Read(t.First()); err == nil {
					if o, ok := e.Uint(0x0112); ok && o >= 1 && o <= 8 {
						p.orient = int(o)
					}
					exif = e.Resolution()
				}
			}
		case m == 0xda:
			// Entropy-coded data runs to the next marker: 0xff not followed by a
			// stuffed 0x00 or a restart marker.
			for ; i+1 < len(b); i++ {
				if b[i] == 0xff && b[i+1] != 0x00 && (b[i+1] < 0xd0 || b[i+1] > 0xd7) {
					break
				}
			}
		}
	}
}

func plausibleDPI(v float64) bool { return v >= 10 && v <= 10000 }

// pngInfo reads the resolution of a PNG's pHYs chunk.
func pngInfo(b []byte, p *picture) {
	for i := 8; i+8 <= len(b); {
		n := int(binary.BigEndian.Uint32(b[i:]))
		typ := string(b[i+4 : i+8])
		if n < 0 || n > len(b)-i-12 || typ == "IDAT" {
			return
		}
		if d := b[i+8 : i+8+n]; typ == "pHYs" && n == 9 && d[8] == 1 {
			x, y := float64(binary.BigEndian.Uint32(d))*0.0254, float64(binary.BigEndian.Uint32(d[4:]))*0.0254
			if plausibleDPI(x) && plausibleDPI(y) {
				p.xdpi, p.ydpi = x, y
			}
			return
		}
		i += 12 + n
	}
}

// tiffPictures walks the image directories of a TIFF as pdfcpu will, a page each, and
// checks each page's size: pdfcpu checks the first only, and follows a chain of
// directories that runs in a circle forever.
func tiffPictures(i int, b []byte) ([]picture, error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, decodeFault(i, "TIFF", err)
	}
	t, _ := tiffdir.Open(b)
	dirs, err := t.Pages(MaxImages)
	var many *tiffdir.TooManyError
	switch {
	case errors.As(err, &many):
		return nil, imageFault(fault.PayloadTooLarge, i, "has more than %d pages; at most %d are accepted", MaxImages, MaxImages)
	case err != nil:
		return nil, imageFault(fault.InvalidInput, i, "is a damaged TIFF: %s", err.Error())
	}
	var out []picture
	for _, e := range dirs {
		w, _ := e.Uint(256)
		h, _ := e.Uint(257)
		p := picture{index: i, format: "tiff", w: int(min(w, math.MaxInt32)), h: int(min(h, math.MaxInt32)), orient: 1}
		if err := checkPixels(i, p.w, p.h); err != nil {
			return nil, err
		}
		// The first page's colour model stands for all: pdfcpu decodes each alike.
		p.decoded = decodedSize(cfg.ColorModel, p.w, p.h)
		r := e.Resolution()
		p.xdpi, p.ydpi = r[0], r[1]
		if !plausibleDPI(p.xdpi) || !plausibleDPI(p.ydpi) {
			p.xdpi, p.ydpi = defaultDPI, defaultDPI
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, imageFault(fault.InvalidInput, i, "is a damaged TIFF: it has no pages")
	}
	return out, nil
}
