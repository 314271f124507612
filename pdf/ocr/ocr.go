package ocr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/papierkram/papierkram/internal/lazyre"
	"image"
	"image/color"
	_ "image/jpeg" // what a Renderer may return besides PNG
	_ "image/png"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/engine/tesseract"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/pagerange"
)

// Renderer renders PDF pages to images (engine/poppler).
type Renderer interface {
	Render(ctx context.Context, pdf []byte, pages []int, o poppler.RenderOptions) ([][]byte, error)
}

// TextReader extracts the text of pages (engine/poppler). When the Renderer given to
// Searchable is one too, pages that have text already are left alone; otherwise every
// selected page is read.
type TextReader interface {
	Text(ctx context.Context, pdf []byte, first, last int, layout bool) ([]string, error)
}

// Recognizer reads images (engine/tesseract).
type Recognizer interface {
	TextLayer(ctx context.Context, img []byte, dpi int, languages string) (*tesseract.Layer, error)
	Orientation(ctx context.Context, img []byte) (rotate int, confidence float64, err error)
}

// Defaults and bounds of Options.
const (
	DefaultLanguages = "deu+eng"
	DefaultDPI       = 300
	MinDPI, MaxDPI   = 100, 600
)

// Options shape Searchable.
type Options struct {
	Languages string // Tesseract codes joined by +, at most five; default DefaultLanguages
	Pages     string // page specification (package pagerange); default all
	DPI       int    // resolution the pages are read at, MinDPI to MaxDPI; default DefaultDPI
	// Force reads pages that have text already too: their text stays and the layer is laid
	// over it (for a scan whose earlier text layer is poor).
	Force bool
}

// PageResult is what became of one selected page.
type PageResult struct {
	Page       int     `json:"page"`
	Skipped    bool    `json:"skipped,omitempty"` // it had text already and was left as it was
	Rotated    int     `json:"rotated,omitempty"` // degrees clockwise added to its /Rotate so that it reads upright
	Words      int     `json:"words"`
	Confidence float64 `json:"confidence"`    // Tesseract's mean word confidence, 0–100
	DPI        int     `json:"dpi,omitempty"` // the resolution it was read at: below the one asked for on a very large page
}

// Result is the searchable PDF and, in page order, what became of each selected page.
type Result struct {
	PDF   []byte
	Pages []PageResult
}

const (
	// maxPixels bounds a rendered page (A4 at 600 dpi is 35 million): a poster is read at a
	// lower resolution rather than handed to Tesseract as a billion pixels.
	maxPixels = 50_000_000
	// minTextLetters letters make a page one that has text: a scanner's imprint or a page
	// number has fewer, a page of a born-digital document more. receipt draws the line at
	// the same place.
	minTextLetters = 30
	// A page read worse than this, or with fewer words, may lie upside down: Tesseract's
	// orientation detection is asked then, as the receipt pipeline does. It costs about as
	// much as reading the page, so upright pages that read well are spared it.
	lowConfidence = 55
	fewWords      = 10
	// minOrientation is the orientation confidence worth a second reading; the reading
	// that is more confident wins, so a wrong guess costs time, not text.
	minOrientation = 1
	// A page whose lines mostly run up or down it (two thirds of the letters, at least
	// minTurnLetters) lies on its side: Tesseract reads such lines as they are and writes
	// them turned, so the page's /Rotate alone makes it upright.
	minTurnLetters = 10
	// maxWorkers pages are in hand at once: rendering one page overlaps reading another,
	// and a few Tesseract jobs run side by side when the engine has the slots.
	maxWorkers = 4
)

var languagesRE = lazyre.New(`^[a-z_]{3,16}(\+[a-z_]{3,16}){0,4}$`)

func (o *Options) validate() error {
	if o.Languages == "" {
		o.Languages = DefaultLanguages
	}
	if !languagesRE.MatchString(o.Languages) {
		return fault.New(fault.InvalidInput, "languages must be up to five Tesseract codes joined by +, such as deu+eng, not %q", o.Languages)
	}
	for code := range strings.SplitSeq(o.Languages, "+") {
		if code == "osd" {
			return fault.New(fault.InvalidInput, "osd is Tesseract's orientation model, not a language")
		}
	}
	if o.DPI == 0 {
		o.DPI = DefaultDPI
	}
	if o.DPI < MinDPI || o.DPI > MaxDPI {
		return fault.New(fault.InvalidInput, "the resolution must be %d to %d dpi, not %d", MinDPI, MaxDPI, o.DPI)
	}
	return nil
}

// page is one selected page as poppler renders it.
type page struct {
	nr     int
	box    types.Rectangle // the media box: pdftoppm renders it, not the crop box
	rotate int             // its /Rotate: 0, 90, 180 or 270
	dpi    int
	text   bool // it has text already
}

// size is the page's size in points as rendered, turned by its rotation.
func (p page) size() (w, h float64) {
	w, h = p.box.Width(), p.box.Height()
	if p.rotate%180 != 0 {
		w, h = h, w
	}
	return w, h
}

// reading is a worker's result for one page.
type reading struct {
	i       int // index of the page in the selection
	skipped bool
	layer   *tesseract.Layer
	turn    int // degrees clockwise the image was turned before the layer was read from it
	err     error
}

// Searchable gives the selected pages of a scanned PDF an invisible text layer read by
// Tesseract. Pages that have text already are left as they are (unless o.Force), and so
// are pages on which nothing was read; a page that lies on its side or upside down gets a
// /Rotate that makes it read upright. When no page changes, the input is returned as it
// was.
func Searchable(ctx context.Context, r Renderer, t Recognizer, data []byte, o Options) (*Result, error) {
	if r == nil || t == nil {
		return nil, fault.New(fault.EngineUnavailable, "OCR needs poppler and Tesseract")
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	doc, err := pdf.Read(data)
	if err != nil {
		return nil, err
	}
	spec, err := pagerange.Parse(o.Pages, doc.PageCount())
	if err != nil {
		return nil, err
	}
	pctx, err := readContext(data)
	if err != nil {
		return nil, err
	}
	pages, err := selectPages(pctx, spec, o.DPI)
	if err != nil {
		return nil, err
	}

	if tr, ok := r.(TextReader); ok && !o.Force {
		if err := markText(ctx, tr, data, pages); err != nil {
			return nil, err
		}
	}
	s := &session{r: r, t: t, data: data, langs: o.Languages}
	ov := newOverlay(pctx)
	res := &Result{Pages: make([]PageResult, len(pages))}
	changed := false
	err = s.run(ctx, pages, func(rd reading) error {
		p := pages[rd.i]
		pr := &res.Pages[rd.i]
		pr.Page, pr.Skipped = p.nr, rd.skipped
		if rd.skipped {
			return nil
		}
		pr.DPI, pr.Words, pr.Confidence = p.dpi, rd.layer.Words, math.Round(rd.layer.Confidence*10)/10
		if rd.layer.Words == 0 {
			return nil
		}
		turned, err := ov.add(p, rd.layer, rd.turn)
		if err != nil {
			return err
		}
		pr.Rotated, changed = turned, true
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !changed {
		res.PDF = data
		return res, nil
	}
	if res.PDF, err = write(pctx); err != nil {
		return nil, err
	}
	return res, nil
}

// readContext parses data with pdfcpu again, for changing it: pdf.Read has checked it
// against the limits and keeps its parse to itself.
func readContext(data []byte) (c *model.Context, err error) {
	defer recoverInto(&err, "read")
	c, err = api.ReadContext(bytes.NewReader(data), config())
	if err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "the PDF cannot be read: %s", trim(err.Error()))
	}
	if err := c.EnsurePageCount(); err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "the PDF's pages cannot be counted: %s", trim(err.Error()))
	}
	return c, nil
}

func config() *model.Configuration {
	c := model.NewDefaultConfiguration()
	c.ValidationMode = model.ValidationRelaxed
	c.Optimize = false
	// As package pdf writes: a classic cross-reference table, content streams as they were.
	c.WriteObjectStream = false
	c.WriteXRefStream = false
	c.Limits.MaxDecodeBytes = 64 << 20
	c.Limits.MaxObjectCount = pdf.MaxObjectNumber
	c.Limits.MaxXRefEntries = pdf.MaxObjectNumber
	return c
}

func write(c *model.Context) (b []byte, err error) {
	defer recoverInto(&err, "write")
	return pdf.WriteContext(c)
}

// recoverInto turns a pdfcpu panic into an InvalidPDF error: hostile input must not take
// down a worker.
func recoverInto(err *error, op string) {
	if v := recover(); v != nil {
		*err = fault.Wrap(fault.InvalidPDF, fmt.Errorf("panic in %s: %v", op, v), "the PDF is damaged and cannot be made searchable")
	}
}

func trim(s string) string {
	s = strings.ReplaceAll(s, "pdfcpu: ", "")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// selectPages lists the distinct pages of spec in order with their geometry and the
// resolution each is read at.
func selectPages(c *model.Context, spec pagerange.Spec, dpi int) (pages []page, err error) {
	defer recoverInto(&err, "page boxes")
	set := spec.Set()
	for nr := 1; nr <= c.PageCount; nr++ {
		if !set[nr] {
			continue
		}
		_, _, attrs, err := c.PageDict(nr, false)
		if err != nil || attrs == nil || attrs.MediaBox == nil {
			return nil, fault.New(fault.InvalidPDF, "page %d has no media box", nr)
		}
		m := attrs.MediaBox
		box := types.Rectangle{LL: types.Point{X: min(m.LL.X, m.UR.X), Y: min(m.LL.Y, m.UR.Y)}, UR: types.Point{X: max(m.LL.X, m.UR.X), Y: max(m.LL.Y, m.UR.Y)}}
		if box.Width() < 1 || box.Height() < 1 {
			return nil, fault.New(fault.InvalidPDF, "page %d has an empty media box", nr)
		}
		p := page{nr: nr, box: box, rotate: rotation(attrs.Rotate), dpi: dpi}
		// pdftoppm rounds each side up to whole pixels.
		w, h := p.size()
		for p.dpi > 1 && math.Ceil(w*float64(p.dpi)/72)*math.Ceil(h*float64(p.dpi)/72) > maxPixels {
			p.dpi = min(p.dpi-1, int(72*math.Sqrt(maxPixels/(w*h))))
		}
		pages = append(pages, p)
	}
	return pages, nil
}

// rotation normalises a /Rotate as poppler does: a multiple of 90 within 0–270; others
// count as 0.
func rotation(r int) int {
	r = (r%360 + 360) % 360
	if r%90 != 0 {
		return 0
	}
	return r
}

// textSpan pages at most are looked at by one pdftotext job, which writes the whole input
// to disk as every poppler job does.
const textSpan = 50

// markText marks the pages that have text already.
func markText(ctx context.Context, tr TextReader, data []byte, pages []page) error {
	for i := 0; i < len(pages); {
		first, j := pages[i].nr, i
		for j < len(pages) && pages[j].nr < first+textSpan {
			j++
		}
		texts, err := tr.Text(ctx, data, first, pages[j-1].nr, false)
		if err != nil {
			return err
		}
		for ; i < j; i++ {
			if k := pages[i].nr - first; k < len(texts) && letters(texts[k]) >= minTextLetters {
				pages[i].text = true
			}
		}
	}
	return nil
}

// session is one Searchable call's engines and input.
type session struct {
	r     Renderer
	t     Recognizer
	data  []byte
	langs string
}

// run reads the pages on a few workers and hands each reading to apply on the calling
// goroutine (pdfcpu's context is not safe for concurrent use), in the order they finish.
// The first error stops the rest.
func (s *session) run(ctx context.Context, pages []page, apply func(reading) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	done := make(chan reading)
	workers := min(max(runtime.NumCPU(), 2), maxWorkers, len(pages))
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				rd := s.read(ctx, pages[i])
				rd.i = i
				done <- rd
			}
		})
	}
	go func() {
		defer close(next)
		for i := range pages {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(done) }()
	var first error
	for rd := range done {
		if first != nil {
			continue
		}
		if rd.err == nil {
			rd.err = apply(rd)
		}
		if rd.err != nil {
			first = rd.err
			cancel()
		}
	}
	if first == nil && ctx.Err() != nil {
		first = fault.FromContext(ctx, "the pages were being read")
	}
	return first
}

// read renders a page and reads it, turned upright when it reads badly and Tesseract's
// orientation detection says another way up.
func (s *session) read(ctx context.Context, p page) (rd reading) {
	// Between pages, a request that has ended stops the work.
	if ctx.Err() != nil {
		rd.err = fault.FromContext(ctx, fmt.Sprintf("page %d was about to be read", p.nr))
		return rd
	}
	if p.text {
		rd.skipped = true
		return rd
	}
	imgs, err := s.r.Render(ctx, s.data, []int{p.nr}, poppler.RenderOptions{DPI: p.dpi, Format: poppler.PNG})
	if err != nil {
		rd.err = err
		return rd
	}
	if len(imgs) != 1 {
		rd.err = fault.New(fault.Internal, "page %d rendered as %d images", p.nr, len(imgs))
		return rd
	}
	img := imgs[0]
	if rd.layer, rd.err = s.t.TextLayer(ctx, img, p.dpi, s.langs); rd.err != nil {
		return rd
	}
	if rd.layer.Confidence >= lowConfidence && rd.layer.Words >= fewWords {
		return rd
	}
	rot, conf, err := s.t.Orientation(ctx, img)
	if err != nil {
		rd.err = err
		return rd
	}
	if rot = rotation(rot); rot == 0 || conf < minOrientation {
		return rd
	}
	turned, err := turn(img, rot)
	if err != nil {
		rd.err = fault.Wrap(fault.Internal, err, "the image of page %d cannot be turned", p.nr)
		return rd
	}
	again, err := s.t.TextLayer(ctx, turned, p.dpi, s.langs)
	if err != nil {
		rd.err = err
		return rd
	}
	if again.Confidence > rd.layer.Confidence {
		rd.layer, rd.turn = again, rot
	}
	return rd
}

func letters(text string) int {
	n := 0
	for _, r := range text {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// turn turns an image clockwise by deg (90, 180 or 270) and returns it as a grey PGM:
// Tesseract reads grey levels anyway, and PGM costs nothing to write or read.
func turn(img []byte, deg int) ([]byte, error) {
	src, _, err := image.Decode(bytes.NewReader(img))
	if err != nil {
		return nil, err
	}
	g := grey(src)
	w, h := g.Rect.Dx(), g.Rect.Dy()
	ow, oh := w, h
	if deg != 180 {
		ow, oh = h, w
	}
	head := fmt.Sprintf("P5\n%d %d\n255\n", ow, oh)
	out := make([]byte, len(head)+ow*oh)
	pix := out[copy(out, head):]
	for y := range h {
		row := g.Pix[y*g.Stride : y*g.Stride+w]
		for x, v := range row {
			switch deg {
			case 90:
				pix[x*ow+h-1-y] = v
			case 180:
				pix[(h-1-y)*ow+w-1-x] = v
			default: // 270
				pix[(w-1-x)*ow+y] = v
			}
		}
	}
	return out, nil
}

// grey converts an image to grey levels, quickly for what pdftoppm writes.
func grey(src image.Image) *image.Gray {
	if g, ok := src.(*image.Gray); ok && g.Rect.Min == (image.Point{}) {
		return g
	}
	b := src.Bounds()
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	lum := func(r, gr, bl uint8) uint8 {
		return uint8((19595*uint32(r) + 38470*uint32(gr) + 7471*uint32(bl) + 1<<15) >> 16)
	}
	for y := range b.Dy() {
		dst := g.Pix[y*g.Stride : y*g.Stride+b.Dx()]
		switch s := src.(type) {
		case *image.RGBA: // as color.GrayModel converts it
			row := s.Pix[s.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := range dst {
				dst[x] = lum(row[4*x], row[4*x+1], row[4*x+2])
			}
		default:
			for x := range dst {
				dst[x] = color.GrayModel.Convert(src.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y
			}
		}
	}
	return g
}

// overlay lays text layers over pages of one document.
type overlay struct {
	ctx   *model.Context
	fonts map[string]types.IndirectRef // GlyphLessFont, copied into the document once
	head  *types.IndirectRef           // "q", shared by every page
	tails map[string]types.IndirectRef // "Q /name Do", shared by pages whose layer has that name
	next  int                          // the object number to try next for a new object
	// avoid are numbers the document refers to but has no object for: a new object there
	// would become what those references mean.
	avoid map[int]bool
}

func newOverlay(c *model.Context) *overlay {
	ov := &overlay{ctx: c, fonts: map[string]types.IndirectRef{}, tails: map[string]types.IndirectRef{}, next: 1, avoid: map[int]bool{}}
	if c.Size != nil {
		ov.next = max(*c.Size, 1)
	}
	var stack []types.Object
	for _, e := range c.Table {
		if e != nil && e.Object != nil {
			stack = append(stack, e.Object)
		}
	}
	for len(stack) > 0 {
		o := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v := o.(type) {
		case types.IndirectRef:
			if _, ok := c.Table[v.ObjectNumber.Value()]; !ok {
				ov.avoid[v.ObjectNumber.Value()] = true
			}
		case types.Dict:
			for _, e := range v {
				stack = append(stack, e)
			}
		case types.StreamDict:
			for _, e := range v.Dict {
				stack = append(stack, e)
			}
		case types.Array:
			stack = append(stack, v...)
		}
	}
	return ov
}

// insert adds o to the document under a number no object and no reference has: pdfcpu's
// own IndRefForNewObject reuses free numbers, which a damaged file may still refer to.
func (ov *overlay) insert(o types.Object) types.IndirectRef {
	t := ov.ctx.XRefTable
	for {
		if _, taken := t.Table[ov.next]; !taken && !ov.avoid[ov.next] {
			break
		}
		ov.next++
	}
	e := model.NewXRefTableEntryGen0(o)
	e.RefCount = 1
	t.Table[ov.next] = e
	n := ov.next
	ov.next++
	if t.Size == nil {
		t.Size = new(int)
	}
	*t.Size = max(*t.Size, ov.next)
	return *types.NewIndirectRef(n, 0)
}

// add draws layer, read from page p's image turned clockwise by turn, over the page's
// content, and returns the degrees its /Rotate was turned by to make it read upright.
func (ov *overlay) add(p page, layer *tesseract.Layer, turn int) (turned int, err error) {
	defer recoverInto(&err, "text layer")
	lc, err := readContext(layer.PDF)
	if err != nil {
		return 0, fault.Wrap(fault.Internal, err, "the text layer of page %d cannot be read", p.nr)
	}
	ld, _, la, err := lc.PageDict(1, false)
	if err != nil || la == nil || la.MediaBox == nil {
		return 0, fault.New(fault.Internal, "the text layer of page %d has no page", p.nr)
	}
	content, err := lc.PageContent(ld, 1)
	if err != nil {
		return 0, fault.Wrap(fault.Internal, err, "the text layer of page %d has no content", p.nr)
	}
	fonts, err := ov.layerFonts(lc, la.Resources)
	if err != nil {
		return 0, fault.Wrap(fault.Internal, err, "the text layer of page %d cannot be copied", p.nr)
	}

	// The layer is the rendered image's size at its resolution, which is the page as
	// rendered (rounded up to whole pixels, from the top left corner), turned by turn.
	img := p
	img.rotate = (p.rotate + turn) % 360
	w, h := img.size()
	lw, lh := la.MediaBox.Width(), la.MediaBox.Height()
	if px := 72 / float64(p.dpi); math.Abs(lw-w) > 3*px || math.Abs(lh-h) > 3*px {
		return 0, fault.New(fault.Internal, "the text layer of page %d is %.1f×%.1f pt, the page %.1f×%.1f", p.nr, lw, lh, w, h)
	}
	m := placement(img, lh)

	form, err := ov.ctx.NewStreamDictForBuf(content)
	if err != nil {
		return 0, err
	}
	form.InsertName("Type", "XObject")
	form.InsertName("Subtype", "Form")
	form.Insert("BBox", types.NewNumberArray(0, 0, lw, lh))
	form.Insert("Matrix", types.NewNumberArray(m[:]...))
	form.Insert("Resources", types.Dict{"Font": fonts})
	if err := form.Encode(); err != nil {
		return 0, err
	}
	formRef := ov.insert(*form)

	d, _, attrs, err := ov.ctx.PageDict(p.nr, false)
	if err != nil {
		return 0, fault.Wrap(fault.InvalidPDF, err, "page %d cannot be read: %s", p.nr, trim(err.Error()))
	}
	name, err := ov.addResource(d, attrs.Resources, formRef)
	if err != nil {
		return 0, err
	}
	if err := ov.addContent(p.nr, d, name); err != nil {
		return 0, err
	}
	turned = turn
	if turned == 0 {
		turned = lineTurn(content)
	}
	if turned != 0 {
		d.Update("Rotate", types.Integer((p.rotate+turned)%360))
	}
	return turned, nil
}

// placement is the matrix that puts a layer of height lh, read from p as rendered, onto
// p's default user space: unscaled, its top left corner on the rendered page's.
func placement(p page, lh float64) [6]float64 {
	x0, y0, x1, y1 := p.box.LL.X, p.box.LL.Y, p.box.UR.X, p.box.UR.Y
	_, h := p.size()
	ty := h - lh // the layer is up to a pixel taller than the page
	switch p.rotate {
	case 90:
		return [6]float64{0, 1, -1, 0, x1 - ty, y0}
	case 180:
		return [6]float64{-1, 0, 0, -1, x1, y1 - ty}
	case 270:
		return [6]float64{0, -1, 1, 0, x0 + ty, y1}
	}
	return [6]float64{1, 0, 0, 1, x0, y0 + ty}
}

// layerFonts copies the fonts of a layer's resources into the document; Tesseract's
// GlyphLessFont is the same in every layer and is copied once.
func (ov *overlay) layerFonts(lc *model.Context, res types.Dict) (types.Dict, error) {
	fo, ok := res.Find("Font")
	if !ok {
		return nil, errors.New("no fonts")
	}
	fd, err := lc.DereferenceDict(fo)
	if err != nil || fd == nil {
		return nil, errors.New("no font dictionary")
	}
	out := types.NewDict()
	for name, ref := range fd {
		f, err := lc.DereferenceDict(ref)
		if err != nil || f == nil {
			return nil, fmt.Errorf("font %s: %v", name, err)
		}
		key := ""
		if base := f.NameEntry("BaseFont"); base != nil && *base == "GlyphLessFont" {
			key = *base
		}
		if r, ok := ov.fonts[key]; ok && key != "" {
			out.Insert(name, r)
			continue
		}
		c, err := ov.copyObject(lc.XRefTable, ref, map[int]types.IndirectRef{}, 0)
		if err != nil {
			return nil, err
		}
		r, ok := c.(types.IndirectRef)
		if !ok {
			r = ov.insert(c)
		}
		if key != "" {
			ov.fonts[key] = r
		}
		out.Insert(name, r)
	}
	return out, nil
}

// copyObject copies o and everything it refers to from src into the document. A layer is
// a small tree; depth bounds it all the same.
func (ov *overlay) copyObject(src *model.XRefTable, o types.Object, done map[int]types.IndirectRef, depth int) (types.Object, error) {
	if depth > 16 {
		return nil, errors.New("objects nest too deep")
	}
	switch v := o.(type) {
	case types.IndirectRef:
		n := v.ObjectNumber.Value()
		if r, ok := done[n]; ok {
			return r, nil
		}
		obj, err := src.Dereference(v)
		if err != nil {
			return nil, err
		}
		c, err := ov.copyObject(src, obj, done, depth+1)
		if err != nil {
			return nil, err
		}
		r := ov.insert(c)
		done[n] = r
		return r, nil
	case types.Dict:
		out := types.NewDict()
		for k, e := range v {
			c, err := ov.copyObject(src, e, done, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case types.Array:
		out := make(types.Array, len(v))
		for i, e := range v {
			c, err := ov.copyObject(src, e, done, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case types.StreamDict:
		if v.Raw == nil {
			return nil, errors.New("a stream without data")
		}
		d := types.NewDict()
		for k, e := range v.Dict {
			if k == "Length" { // set below: it may be a reference to a number of src
				continue
			}
			c, err := ov.copyObject(src, e, done, depth+1)
			if err != nil {
				return nil, err
			}
			d[k] = c
		}
		n := int64(len(v.Raw))
		d["Length"] = types.Integer(n)
		sd := types.StreamDict{Dict: d, StreamLength: &n, FilterPipeline: slices.Clone(v.FilterPipeline), Raw: v.Raw}
		return sd, nil
	}
	return o, nil
}

// addResource gives page d resources of its own (others may share the ones it has) with
// the form under a name not in use, and returns the name.
func (ov *overlay) addResource(d, res types.Dict, form types.IndirectRef) (string, error) {
	own := types.NewDict()
	if res != nil {
		own = res.Clone().(types.Dict)
	}
	xo := types.NewDict()
	if o, ok := own.Find("XObject"); ok {
		x, err := ov.ctx.DereferenceDict(o)
		if err != nil {
			return "", fault.Wrap(fault.InvalidPDF, err, "a page's resources cannot be read")
		}
		if x != nil {
			xo = x.Clone().(types.Dict)
		}
	}
	name := "OCR"
	for i := 1; xo[name] != nil; i++ {
		name = "OCR" + strconv.Itoa(i)
	}
	xo[name] = form
	own["XObject"] = xo
	d.Update("Resources", own)
	return name, nil
}

// addContent draws the form after the page's content, which is wrapped in q/Q so that
// whatever state it leaves cannot move the layer. The content streams stay as they were.
func (ov *overlay) addContent(nr int, d types.Dict, name string) error {
	var items types.Array
	if o, ok := d.Find("Contents"); ok {
		switch c := o.(type) {
		case types.IndirectRef:
			v, err := ov.ctx.Dereference(c)
			if err != nil {
				return fault.Wrap(fault.InvalidPDF, err, "the content of page %d cannot be read", nr)
			}
			switch v := v.(type) {
			case types.StreamDict:
				items = types.Array{c}
			case types.Array:
				items = slices.Clone(v)
			case nil:
			default:
				return fault.New(fault.InvalidPDF, "the content of page %d is a %T", nr, v)
			}
		case types.Array:
			items = slices.Clone(c)
		default:
			return fault.New(fault.InvalidPDF, "the content of page %d is a %T", nr, c)
		}
	}
	if len(items) == 0 {
		tail, err := ov.stream("\n/" + name + " Do\n")
		if err != nil {
			return err
		}
		d.Update("Contents", types.Array{tail})
		return nil
	}
	if ov.head == nil {
		h, err := ov.stream("q\n")
		if err != nil {
			return err
		}
		ov.head = &h
	}
	tail, ok := ov.tails[name]
	if !ok {
		var err error
		if tail, err = ov.stream("\nQ\n/" + name + " Do\n"); err != nil {
			return err
		}
		ov.tails[name] = tail
	}
	d.Update("Contents", append(append(types.Array{*ov.head}, items...), tail))
	return nil
}

func (ov *overlay) stream(s string) (types.IndirectRef, error) {
	sd, err := ov.ctx.NewStreamDictForBuf([]byte(s))
	if err != nil {
		return types.IndirectRef{}, err
	}
	sd.FilterPipeline = nil // a few bytes: flate would make them longer
	sd.Delete("Filter")
	if err := sd.Encode(); err != nil {
		return types.IndirectRef{}, err
	}
	return ov.insert(*sd), nil
}

// lineTurn is how far clockwise a page must turn for most of the text of its layer to run
// left to right: 0, or 90, 180 or 270 when two thirds of the letters (at least
// minTurnLetters) sit on lines that run one other way. Tesseract writes a line as
// "a b c d e f Tm" followed by its words as hex strings, the line running at atan2(b, a).
func lineTurn(content []byte) int {
	var letters [4]int
	var nums []float64
	dir := -1
	for _, f := range bytes.Fields(content) {
		switch {
		case string(f) == "Tm":
			dir = -1
			if len(nums) >= 6 {
				a, b := nums[len(nums)-6], nums[len(nums)-5]
				deg := math.Atan2(b, a) * 180 / math.Pi
				q := math.Round(deg / 90)
				if math.Abs(deg-q*90) <= 20 { // a skewed line still counts
					dir = (int(q)%4 + 4) % 4
				}
			}
			nums = nums[:0]
		case f[0] == '<' && f[len(f)-1] == '>':
			if dir >= 0 {
				letters[dir] += (len(f) - 2) / 4 // UTF-16 code units
			}
		default:
			if v, err := strconv.ParseFloat(string(f), 64); err == nil {
				if len(nums) == 6 {
					nums = append(nums[:0], nums[1:]...)
				}
				nums = append(nums, v)
			}
		}
	}
	total := letters[0] + letters[1] + letters[2] + letters[3]
	for q := 1; q < 4; q++ {
		if letters[q] >= minTurnLetters && 3*letters[q] >= 2*total {
			return q * 90
		}
	}
	return 0
}
