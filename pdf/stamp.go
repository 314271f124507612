package pdf

import (
	"bytes"
	"context"
	"fmt"
	"github.com/papierkram/papierkram/internal/lazyre"
	"image/jpeg"
	"image/png"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/font"
	pdfcpu "github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
	"golang.org/x/text/encoding/charmap"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf/pagerange"
)

// Stamps are drawn by this package rather than by pdfcpu's watermarks, which take a text's
// % and \n for placeholders and line breaks, remove a page's /Rotate and turn its content
// instead (moving its annotations off their places), and patch a page's content streams in
// place (stamping every page that shares one). Here a stamp is a form XObject (or an image)
// drawn by a content stream added before or after the page's own; the page keeps its
// rotation, and the stamp is placed on the page as it is shown. Positions are pdfcpu's
// anchors.

// StampOptions describe a stamp: a text, or an image, put on pages.
type StampOptions struct {
	// Text is printed in Helvetica, exactly as given (line breaks start new lines). Only
	// characters of Windows-1252 can be printed (Latin letters with umlauts and accents,
	// €, ß...); others are fault.InvalidInput.
	Text string
	// Image is a PNG, a JPEG or a PDF (its first page), told apart by their bytes; at most
	// MaxStampPixels pixels.
	Image []byte
	// Pages is a page specification; empty means every page.
	Pages string
	// Position is where the stamp goes on the page as it is shown: tl, tc, tr, l, c, r,
	// bl, bc, br (top left to bottom right); default c.
	Position string
	// OffsetX and OffsetY move the stamp from its position, to the right and upwards, in
	// points (at most 10,000 either way).
	OffsetX, OffsetY float64
	// Opacity is 0 < opacity <= 1; 0 means the default, 1, or 0.3 for a stamp Under the
	// content.
	Opacity float64
	// Rotation turns the stamp counter-clockwise about its centre by -360 to 360 degrees;
	// the turned stamp is kept at its position (a corner stays in the corner).
	Rotation float64
	// FontSize is the text's size in points, 0 < size <= 500; 0 means 24.
	FontSize float64
	// Color is the text's colour as #RRGGBB; empty means black.
	Color string
	// Scale sizes an image: it fits, keeping its proportions, in Scale times the page's
	// width and height (0 < scale <= 1); 0 means 0.5.
	Scale float64
	// Under draws the stamp before the page's content, as a watermark that the content
	// covers where it is opaque.
	Under bool
}

// MaxStampPixels bounds an image stamp: it is decoded whole to be embedded.
const MaxStampPixels = 50_000_000

// Limits of the options, beyond which a value is surely a mistake.
const (
	maxStampText  = 1000 // characters
	maxStampLines = 50
	maxOffset     = 10000 // points
	maxFontSize   = 500   // points
	maxPattern    = 200   // characters
	maxStartPage  = 1_000_000
)

// positions are pdfcpu's anchors by the names the options take.
var positions = map[string]types.Anchor{
	"tl": types.TopLeft, "tc": types.TopCenter, "tr": types.TopRight,
	"l": types.Left, "c": types.Center, "r": types.Right,
	"bl": types.BottomLeft, "bc": types.BottomCenter, "br": types.BottomRight,
}

var colorRE = lazyre.New(`^#[0-9A-Fa-f]{6}$`)

// stampPlacement is where and how a mark is drawn on each page.
type stampPlacement struct {
	anchor     types.Anchor
	dx, dy     float64
	rotation   float64
	scale      float64 // of a mark that is not text: the part of the page it fits in
	opacity    float64
	under      bool
	properties string // of the artifact the drawing is marked as
}

// stampArtifact marks a stamp as a watermark artifact, which tagged PDF readers skip.
const stampArtifact = "<</Type /Pagination /Subtype /Watermark>>"

func invalidOption(field, format string, args ...any) error {
	return fault.New(fault.InvalidInput, field+": "+format, args...).With("field", field)
}

// checkNumber refuses a value that is not a finite number between lo and hi.
func checkNumber(field string, v, lo, hi float64) error {
	if math.IsNaN(v) || v < lo || v > hi {
		return invalidOption(field, "%v is not between %v and %v", v, lo, hi)
	}
	return nil
}

func parsePosition(field, s, def string) (types.Anchor, error) {
	if s == "" {
		s = def
	}
	a, ok := positions[s]
	if !ok {
		return 0, invalidOption(field, "%q is not one of tl, tc, tr, l, c, r, bl, bc, br", s)
	}
	return a, nil
}

func parseColor(s string) ([3]float64, error) {
	if s == "" {
		return [3]float64{}, nil
	}
	if !colorRE.MatchString(s) {
		return [3]float64{}, invalidOption("color", "%q is not a colour written #RRGGBB", s)
	}
	var rgb [3]float64
	for i := range rgb {
		v, _ := strconv.ParseUint(s[1+2*i:3+2*i], 16, 8)
		rgb[i] = float64(v) / 255
	}
	return rgb, nil
}

// stampText checks a text for the stamp font and returns its lines in Windows-1252, the
// encoding of the font; with lenient, a character the font cannot print becomes "?".
func stampText(field, s string, maxLen int, lenient bool) ([][]byte, error) {
	if !utf8.ValidString(s) {
		return nil, invalidOption(field, "the text is not valid UTF-8")
	}
	s = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\t", " ").Replace(s)
	if strings.TrimSpace(s) == "" {
		return nil, invalidOption(field, "the text is empty")
	}
	if n := utf8.RuneCountInString(s); n > maxLen {
		return nil, invalidOption(field, "the text has %d characters; at most %d are printed", n, maxLen)
	}
	lines := strings.Split(s, "\n")
	if len(lines) > maxStampLines {
		return nil, invalidOption(field, "the text has %d lines; at most %d are printed", len(lines), maxStampLines)
	}
	var bad []string
	out := make([][]byte, len(lines))
	for i, line := range lines {
		for _, r := range line {
			b, ok := charmap.Windows1252.EncodeRune(r)
			if !ok || unicode.IsControl(r) {
				if lenient {
					b, ok = '?', true
				} else {
					if q := strconv.QuoteRune(r); !slices.Contains(bad, q) {
						bad = append(bad, q)
					}
					continue
				}
			}
			out[i] = append(out[i], b)
		}
	}
	if len(bad) > 0 {
		return nil, invalidOption(field, "%s cannot be printed: the stamp font (Helvetica) has the characters of Windows-1252 only", strings.Join(bad, ", "))
	}
	return out, nil
}

// stampSpec is a checked StampOptions.
type stampSpec struct {
	lines  [][]byte
	size   float64
	rgb    [3]float64
	image  []byte
	kind   string // "text", "png", "jpeg", "pdf"
	width  int    // of an image, in pixels
	height int
	place  stampPlacement
}

func (o StampOptions) check() (*stampSpec, error) {
	s := &stampSpec{size: 24, kind: "text"}
	var err error
	if s.place.anchor, err = parsePosition("position", o.Position, "c"); err != nil {
		return nil, err
	}
	for _, c := range []struct {
		field  string
		v      float64
		lo, hi float64
	}{
		{"offsetX", o.OffsetX, -maxOffset, maxOffset},
		{"offsetY", o.OffsetY, -maxOffset, maxOffset},
		{"opacity", o.Opacity, 0, 1},
		{"rotation", o.Rotation, -360, 360},
		{"fontSize", o.FontSize, 0, maxFontSize},
		{"scale", o.Scale, 0, 1},
	} {
		if err := checkNumber(c.field, c.v, c.lo, c.hi); err != nil {
			return nil, err
		}
	}
	if s.rgb, err = parseColor(o.Color); err != nil {
		return nil, err
	}
	p := &s.place
	p.dx, p.dy, p.rotation, p.under, p.properties = o.OffsetX, o.OffsetY, o.Rotation, o.Under, stampArtifact
	p.opacity, p.scale = o.Opacity, o.Scale
	if p.opacity == 0 {
		p.opacity = 1
		if o.Under {
			p.opacity = 0.3
		}
	}
	if p.scale == 0 {
		p.scale = 0.5
	}
	if o.FontSize > 0 {
		s.size = o.FontSize
	}
	switch {
	case o.Text != "" && len(o.Image) > 0:
		return nil, invalidOption("image", "give a text or an image, not both")
	case o.Text != "":
		if s.lines, err = stampText("text", o.Text, maxStampText, false); err != nil {
			return nil, err
		}
		return s, nil
	case len(o.Image) == 0:
		return nil, invalidOption("text", "give a text or an image to stamp")
	}
	s.image = o.Image
	switch {
	case bytes.HasPrefix(o.Image, []byte("\x89PNG\r\n\x1a\n")):
		s.kind = "png"
		c, err := png.DecodeConfig(bytes.NewReader(o.Image))
		if err != nil {
			return nil, invalidOption("image", "the PNG cannot be read: %v", err)
		}
		s.width, s.height = c.Width, c.Height
	case bytes.HasPrefix(o.Image, []byte{0xff, 0xd8, 0xff}):
		s.kind = "jpeg"
		c, err := jpeg.DecodeConfig(bytes.NewReader(o.Image))
		if err != nil {
			return nil, invalidOption("image", "the JPEG cannot be read: %v", err)
		}
		s.width, s.height = c.Width, c.Height
	case bytes.Contains(o.Image[:min(len(o.Image), 1024)], []byte("%PDF-")):
		s.kind = "pdf"
		return s, nil
	default:
		return nil, invalidOption("image", "the image is not a PNG, a JPEG or a PDF")
	}
	if s.width < 1 || s.height < 1 {
		return nil, invalidOption("image", "the image has no pixels (%dx%d)", s.width, s.height)
	}
	if int64(s.width)*int64(s.height) > MaxStampPixels {
		return nil, fault.New(fault.PayloadTooLarge, "image: %dx%d pixels are more than the %d megapixels an image stamp may have", s.width, s.height, MaxStampPixels/1_000_000).With("field", "image")
	}
	return s, nil
}

// Stamp puts a text or an image on the pages of StampOptions.Pages: on top of their
// content, or under it (a watermark). Options out of range are fault.InvalidInput naming
// the option; an image over MaxStampPixels fault.PayloadTooLarge.
func Stamp(ctx context.Context, data []byte, o StampOptions) (out []byte, err error) {
	s, err := o.check()
	if err != nil {
		return nil, err
	}
	d, err := readFor(ctx, data, "nothing was stamped")
	if err != nil {
		return nil, err
	}
	defer recoverInto(&err, "stamp")
	spec, err := pagerange.Parse(o.Pages, d.PageCount())
	if err != nil {
		return nil, err
	}
	leaves, err := d.pageLeaves()
	if err != nil {
		return nil, err
	}
	var m stampMark
	switch s.kind {
	case "text":
		f, err := d.helvetica()
		if err != nil {
			return nil, err
		}
		m, err = d.textMark(s.lines, s.size, s.rgb, s.place.anchor, f)
		if err != nil {
			return nil, err
		}
	case "pdf":
		if m, err = d.pdfMark(s.image); err != nil {
			return nil, err
		}
	default:
		ref, w, h, err := model.CreateImageResource(d.ctx.XRefTable, bytes.NewReader(s.image))
		if err != nil {
			return nil, fault.Wrap(fault.InvalidInput, err, "image: the %s cannot be used: %s", strings.ToUpper(s.kind), trimPdfcpu(err.Error())).With("field", "image")
		}
		m = stampMark{obj: *ref, image: true, w: float64(w), h: float64(h)}
	}
	pages := spec.Set()
	// A PDF stamp's content is drawn again on every page: it counts against the limits of
	// content as if each page had its own copy.
	if m.content > 0 {
		var total int64
		for i, c := range d.content {
			if pages[i+1] {
				c += m.content
			}
			if c > MaxPageContentBytes {
				return nil, fault.New(fault.PayloadTooLarge, "image: page %d with the stamp would draw more than %d MiB of content, the limit per page", i+1, MaxPageContentBytes/mib).With("field", "image")
			}
			total += c
		}
		if total > MaxContentBytes {
			return nil, fault.New(fault.PayloadTooLarge, "image: the pages with the stamp would draw more than %d MiB of content, the limit", MaxContentBytes/mib).With("field", "image")
		}
	}
	gs, err := d.opacity(s.place.opacity)
	if err != nil {
		return nil, err
	}
	for i, leaf := range leaves {
		if i%64 == 0 && ctx.Err() != nil {
			return nil, fault.FromContext(ctx, "nothing was stamped")
		}
		if pages[i+1] {
			if err := d.stampPage(leaf, m, s.place, gs); err != nil {
				return nil, err
			}
		}
	}
	return d.writePruned()
}

// PageNumberOptions describe page numbers.
type PageNumberOptions struct {
	// Pattern is the label; {page} stands for the page's number, {pages} for the number of
	// the last numbered page. Default "{page} / {pages}". Windows-1252 characters only, as
	// for a stamp's text.
	Pattern string
	// Pages is a page specification of the pages numbered; empty means every page.
	Pages string
	// Position is one of tl, tc, tr, l, c, r, bl, bc, br; default bc. The label keeps 20
	// points from the edges it is next to.
	Position string
	// FontSize in points, 0 < size <= 500; 0 means 10.
	FontSize float64
	// Start is the number of the first numbered page, the others counting on from it in
	// page order; 0 means 1.
	Start int
}

// NumberPages writes page numbers on the pages of PageNumberOptions.Pages, in Helvetica,
// black. Options out of range are fault.InvalidInput naming the option.
func NumberPages(ctx context.Context, data []byte, o PageNumberOptions) (out []byte, err error) {
	pattern := o.Pattern
	if pattern == "" {
		pattern = "{page} / {pages}"
	}
	anchor, err := parsePosition("position", o.Position, "bc")
	if err != nil {
		return nil, err
	}
	if err := checkNumber("fontSize", o.FontSize, 0, maxFontSize); err != nil {
		return nil, err
	}
	size := o.FontSize
	if size == 0 {
		size = 10
	}
	if o.Start < 0 || o.Start > maxStartPage {
		return nil, invalidOption("start", "%d is not between 0 and %d", o.Start, maxStartPage)
	}
	start := max(o.Start, 1)
	// The numbers are digits, which the font has: the pattern decides.
	if _, err := stampText("pattern", pattern, maxPattern, false); err != nil {
		return nil, err
	}
	d, err := readFor(ctx, data, "no page numbers were written")
	if err != nil {
		return nil, err
	}
	defer recoverInto(&err, "page numbers")
	spec, err := pagerange.Parse(o.Pages, d.PageCount())
	if err != nil {
		return nil, err
	}
	pages := spec.Set()
	if err := d.numberPages(ctx, pages, pageLabels{pattern: pattern, size: size, anchor: anchor, start: start}); err != nil {
		return nil, err
	}
	return d.writePruned()
}

// pageLabels are page numbers to write.
type pageLabels struct {
	pattern string
	size    float64
	rgb     [3]float64
	anchor  types.Anchor
	start   int
	lenient bool // a character the font lacks prints as "?"
	// physical numbers every labelled page by its place in the document and counts all
	// pages, labelled or not (a composition whose parts skip numbers); otherwise the
	// labelled pages are numbered among themselves from start.
	physical bool
}

// labelMargin is the distance of a page number from the edges it is next to, in points.
const labelMargin = 20

func (d *Doc) numberPages(ctx context.Context, pages map[int]bool, l pageLabels) error {
	leaves, err := d.pageLeaves()
	if err != nil {
		return err
	}
	f, err := d.helvetica()
	if err != nil {
		return err
	}
	x, y := anchorSides(l.anchor)
	p := stampPlacement{anchor: l.anchor, dx: -x * labelMargin, dy: -y * labelMargin, opacity: 1, properties: "<</Type /Pagination>>"}
	total := strconv.Itoa(l.start + len(pages) - 1)
	if l.physical {
		total = strconv.Itoa(len(leaves))
	}
	n := l.start
	for i, leaf := range leaves {
		if i%64 == 0 && ctx.Err() != nil {
			return fault.FromContext(ctx, "no page numbers were written")
		}
		if !pages[i+1] {
			continue
		}
		if l.physical {
			n = i + 1
		}
		label := strings.NewReplacer("{page}", strconv.Itoa(n), "{pages}", total).Replace(l.pattern)
		n++
		// The pattern was checked; its placeholders make it longer.
		lines, err := stampText("pattern", label, 8*maxPattern, l.lenient)
		if err != nil {
			return err
		}
		m, err := d.textMark(lines, l.size, l.rgb, l.anchor, f)
		if err != nil {
			return err
		}
		if err := d.stampPage(leaf, m, p, nil); err != nil {
			return err
		}
	}
	return nil
}

// anchorSides says where an anchor lies: x -1 left, 0 centre, 1 right; y -1 bottom, 0
// middle, 1 top.
func anchorSides(a types.Anchor) (x, y float64) {
	switch a {
	case types.TopLeft, types.Left, types.BottomLeft:
		x = -1
	case types.TopRight, types.Right, types.BottomRight:
		x = 1
	}
	switch a {
	case types.TopLeft, types.TopCenter, types.TopRight:
		y = 1
	case types.BottomLeft, types.BottomCenter, types.BottomRight:
		y = -1
	}
	return x, y
}

// NumberPages writes label at the bottom centre of every page (Helvetica 9 pt, 20 pt above
// the edge, dark grey), {page} and {pages} standing for the page number and count: page
// numbers that run through documents put together from several sources. A character
// Helvetica lacks prints as "?". Pages listed in skip (from 1) get no label but are counted.
func (d *Doc) NumberPages(label string, skip ...int) (out []byte, err error) {
	defer recoverInto(&err, "number pages")
	if strings.TrimSpace(label) == "" {
		return nil, invalidOption("pageNumbers", "the label is empty")
	}
	fresh, err := Read(d.src)
	if err != nil {
		return nil, err
	}
	all := make(map[int]bool, fresh.PageCount())
	for p := 1; p <= fresh.PageCount(); p++ {
		all[p] = true
	}
	for _, p := range skip {
		delete(all, p)
	}
	grey := 0x40 / 255.0
	l := pageLabels{pattern: label, size: 9, rgb: [3]float64{grey, grey, grey}, anchor: types.BottomCenter, start: 1, lenient: true, physical: true}
	if err := fresh.numberPages(context.Background(), all, l); err != nil {
		return nil, err
	}
	return fresh.writePruned()
}

// stampMark is what a stamp draws: a form XObject or an image.
type stampMark struct {
	obj   types.Object
	image bool    // an image, drawn into the unit square
	w, h  float64 // the size of its box: pixels of an image, points of a form (from 0, 0)
	text  bool    // drawn at its own size rather than fitted to the page
	// content is the size of the content a PDF stamp draws, on every page it is on.
	content int64
}

// helvetica is a new Helvetica font object, WinAnsi-encoded.
func (d *Doc) helvetica() (types.IndirectRef, error) {
	ref, err := d.ctx.IndRefForNewObject(types.Dict{"Type": types.Name("Font"), "Subtype": types.Name("Type1"),
		"BaseFont": types.Name("Helvetica"), "Encoding": types.Name("WinAnsiEncoding")})
	if err != nil {
		return types.IndirectRef{}, fault.Wrap(fault.Internal, err, "the stamp font cannot be added")
	}
	return *ref, nil
}

// textMark sets lines (Windows-1252) in a form XObject, aligned to the side of the page
// the anchor is on.
func (d *Doc) textMark(lines [][]byte, size float64, rgb [3]float64, anchor types.Anchor, f types.IndirectRef) (stampMark, error) {
	const fontName = "Helvetica"
	asc, desc := 0.931, 0.225 // Helvetica's font box, per unit of size
	if bb, err := font.BoundingBox(fontName); err == nil {
		asc, desc = bb.UR.Y/1000, -bb.LL.Y/1000
	}
	lead := 1.2 * size
	widths := make([]float64, len(lines))
	w := 0.0
	for i, l := range lines {
		lw, err := font.TextWidthFloat(string(l), fontName, size)
		if err != nil {
			return stampMark{}, fault.Wrap(fault.Internal, err, "the text cannot be measured")
		}
		widths[i], w = lw, max(w, lw)
	}
	h := (asc+desc)*size + float64(len(lines)-1)*lead
	align, _ := anchorSides(anchor)
	var b strings.Builder
	fmt.Fprintf(&b, "BT /F1 %s Tf %s %s %s rg\n", pdfNum(size), pdfNum(rgb[0]), pdfNum(rgb[1]), pdfNum(rgb[2]))
	for i, l := range lines {
		x := (w - widths[i]) * (align + 1) / 2
		fmt.Fprintf(&b, "1 0 0 1 %s %s Tm (%s) Tj\n", pdfNum(x), pdfNum(h-asc*size-float64(i)*lead), pdfString(l))
	}
	b.WriteString("ET\n")
	// The box clips: a glyph reaching past its advance keeps some room.
	pad := 0.25 * size
	ref, err := d.form([]byte(b.String()), [4]float64{-pad, 0, w + pad, h}, types.Dict{"Font": types.Dict{"F1": f}}, nil)
	if err != nil {
		return stampMark{}, err
	}
	return stampMark{obj: ref, w: w, h: h, text: true}, nil
}

// pdfString writes bytes as a PDF literal string.
func pdfString(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		switch {
		case c == '(' || c == ')' || c == '\\':
			s.WriteByte('\\')
			s.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&s, "\\%03o", c)
		default:
			s.WriteByte(c)
		}
	}
	return s.String()
}

// form makes a form XObject.
func (d *Doc) form(content []byte, bbox [4]float64, res types.Object, m *matrix) (types.IndirectRef, error) {
	sd, err := d.newStream(content)
	if err != nil {
		return types.IndirectRef{}, fault.Wrap(fault.Internal, err, "a form XObject cannot be made")
	}
	sd.Dict["Type"], sd.Dict["Subtype"] = types.Name("XObject"), types.Name("Form")
	sd.Dict["BBox"] = types.Array{types.Float(bbox[0]), types.Float(bbox[1]), types.Float(bbox[2]), types.Float(bbox[3])}
	if res != nil {
		sd.Dict["Resources"] = res
	}
	if m != nil {
		a := make(types.Array, 6)
		for i, v := range m {
			a[i] = types.Float(v)
		}
		sd.Dict["Matrix"] = a
	}
	ref, err := d.ctx.IndRefForNewObject(*sd)
	if err != nil {
		return types.IndirectRef{}, fault.Wrap(fault.Internal, err, "a form XObject cannot be made")
	}
	return *ref, nil
}

// pdfMark makes the first page of a PDF a form XObject of d, shown as the page is shown
// (turned by its /Rotate, cut to its crop box). Its annotations are left behind.
func (d *Doc) pdfMark(data []byte) (stampMark, error) {
	src, err := Read(data)
	if err != nil {
		return stampMark{}, fault.Wrap(fault.CodeOf(err), err, "image: %s", fault.As(err).Message).With("field", "image")
	}
	leaves, err := src.pageLeaves()
	if err != nil {
		return stampMark{}, err
	}
	first := leaves[0]
	box, rot, ok := src.pageBox(first)
	if !ok {
		return stampMark{}, invalidOption("image", "the PDF's first page has no usable media box")
	}
	var content bytes.Buffer
	contents := first.dict["Contents"]
	if arr, err := src.ctx.DereferenceArray(contents); err == nil && arr != nil {
		for _, c := range arr {
			if err := src.appendStream(&content, c); err != nil {
				return stampMark{}, err
			}
		}
	} else if contents != nil {
		if err := src.appendStream(&content, contents); err != nil {
			return stampMark{}, err
		}
	}
	// pdfcpu copies objects from one document to another along with a page: the page is
	// added to d and taken out of its page tree again, its resources staying behind.
	// Annotations, article beads and the form would bring objects of other pages along.
	for _, k := range []string{"Annots", "B", "StructParents"} {
		delete(first.dict, k)
	}
	src.ctx.Form = nil
	delete(src.ctx.Names, "Dests")
	src.ctx.Configuration.OptimizeResourceDicts = false
	root, err := d.ctx.Pages()
	if err != nil || root == nil {
		return stampMark{}, fault.New(fault.InvalidPDF, "the PDF has no page tree")
	}
	rootDict, err := d.ctx.DereferenceDict(*root)
	if err != nil || rootDict == nil {
		return stampMark{}, fault.New(fault.InvalidPDF, "the PDF has no page tree")
	}
	kids, count := rootDict["Kids"], rootDict["Count"]
	if err := pdfcpu.AddPages(src.ctx, d.ctx, []int{1}, false); err != nil {
		return stampMark{}, fault.Wrap(fault.InvalidInput, err, "image: the PDF's first page cannot be used: %s", trimPdfcpu(err.Error())).With("field", "image")
	}
	added, _ := d.ctx.DereferenceArray(rootDict["Kids"])
	var res types.Object
	if len(added) > 0 {
		if pd, err := d.ctx.DereferenceDict(added[len(added)-1]); err == nil && pd != nil {
			res = pd["Resources"]
		}
	}
	rootDict["Kids"], rootDict["Count"] = kids, count
	// Shown as on its page: the form's space is the page as shown, from 0, 0.
	v, w, h := shownSpace(box, rot)
	inv := v.inverse()
	ref, err := d.form(content.Bytes(), box, res, &inv)
	if err != nil {
		return stampMark{}, err
	}
	return stampMark{obj: ref, w: w, h: h, content: int64(content.Len())}, nil
}

// appendStream appends a content stream's decoded bytes and a line break.
func (d *Doc) appendStream(b *bytes.Buffer, o types.Object) error {
	sd, _, err := d.ctx.DereferenceStreamDict(o)
	if err != nil || sd == nil {
		return nil // not a stream: nothing drawn
	}
	if err := sd.Decode(); err != nil {
		return fault.Wrap(fault.InvalidInput, err, "image: the PDF's page content cannot be decoded: %s", trimPdfcpu(err.Error())).With("field", "image")
	}
	b.Write(sd.Content)
	b.WriteByte('\n')
	return nil
}

// opacity is a graphics state with the opacity, or nil for an opaque one.
func (d *Doc) opacity(o float64) (types.Object, error) {
	if o >= 1 {
		return nil, nil
	}
	ref, err := d.ctx.IndRefForNewObject(types.Dict{"Type": types.Name("ExtGState"), "ca": types.Float(o), "CA": types.Float(o)})
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "the opacity cannot be set")
	}
	return *ref, nil
}

// pageBox is the part of a page that is shown (its crop box, else its media box) and its
// rotation in quarter turns clockwise, as degrees 0, 90, 180 or 270.
func (d *Doc) pageBox(l pageLeaf) ([4]float64, int, bool) {
	box, ok := d.rect(l.attr("CropBox"))
	if media, mok := d.rect(l.attr("MediaBox")); !ok || box[2]-box[0] <= 0 || box[3]-box[1] <= 0 {
		box, ok = media, mok
	}
	if !ok || box[2]-box[0] <= 0 || box[3]-box[1] <= 0 {
		return box, 0, false
	}
	rot := 0
	if r, err := d.ctx.Dereference(l.attr("Rotate")); err == nil {
		if i, isInt := r.(types.Integer); isInt && i.Value()%90 == 0 {
			rot = (i.Value()%360 + 360) % 360
		}
	}
	return box, rot, true
}

// shownSpace is the matrix from the page as shown (origin at its lower left corner) to the
// page's own space, and the shown width and height.
func shownSpace(box [4]float64, rot int) (matrix, float64, float64) {
	w, h := box[2]-box[0], box[3]-box[1]
	switch rot {
	case 90:
		return matrix{0, 1, -1, 0, box[0] + w, box[1]}, h, w
	case 180:
		return matrix{-1, 0, 0, -1, box[0] + w, box[1] + h}, w, h
	case 270:
		return matrix{0, -1, 1, 0, box[0], box[1] + h}, h, w
	}
	return matrix{1, 0, 0, 1, box[0], box[1]}, w, h
}

// stampPage draws m on a page at its placement.
func (d *Doc) stampPage(leaf pageLeaf, m stampMark, p stampPlacement, gs types.Object) error {
	box, rot, ok := d.pageBox(leaf)
	if !ok {
		return fault.New(fault.InvalidPDF, "a page has no usable media box")
	}
	v, pw, ph := shownSpace(box, rot)
	sw, sh := m.w, m.h
	native := identity
	if !m.text {
		k := p.scale * min(pw/m.w, ph/m.h)
		sw, sh = m.w*k, m.h*k
		native = scaleBy(k, k)
		if m.image {
			native = scaleBy(sw, sh)
		}
	}
	turn := turnBy(p.rotation)
	bb := turn.box([4]float64{0, 0, sw, sh})
	bw, bh := bb[2]-bb[0], bb[3]-bb[1]
	x, y := types.AnchorPosition(p.anchor, types.RectForDim(pw, ph), bw, bh)
	at := native.then(moveBy(-sw/2, -sh/2)).then(turn).then(moveBy(x+bw/2+p.dx, y+bh/2+p.dy)).then(v)
	res, err := d.ownResources(leaf)
	if err != nil {
		return err
	}
	var draw strings.Builder
	fmt.Fprintf(&draw, "/Artifact %s BDC q ", p.properties)
	if gs != nil {
		fmt.Fprintf(&draw, "/%s gs ", res.add(d, "ExtGState", "PkGS", gs))
	}
	fmt.Fprintf(&draw, "%s cm /%s Do Q EMC\n", at, res.add(d, "XObject", "PkStamp", m.obj))
	if p.under {
		return d.addContent(leaf.dict, []byte(draw.String()), nil)
	}
	return d.addContent(leaf.dict, []byte("q\n"), []byte("Q\n"+draw.String()))
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
