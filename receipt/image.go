package receipt

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // decoders of the accepted formats
	_ "image/jpeg"
	"image/png"
	"math"

	_ "golang.org/x/image/tiff"
	_ "golang.org/x/image/webp"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf"
)

// Bounds on images: a decompression bomb is refused before it is decoded.
const (
	maxImagePixels = 60_000_000
	minSide        = 16
)

// Quality hint names.
const (
	HintDark          = "TOO_DARK"
	HintBright        = "TOO_BRIGHT"
	HintLowContrast   = "LOW_CONTRAST"
	HintBlurred       = "BLURRED"
	HintLowResolution = "LOW_RESOLUTION"
	HintCutOff        = "CUT_OFF"
	HintLowOCR        = "LOW_OCR_CONFIDENCE"
	HintPagesNotRead  = "PAGES_NOT_READ" // a long scan's pages the time limit left unread
)

// decodeImage reads a JPEG, PNG, GIF, WebP or TIFF image as grey levels.
func decodeImage(data []byte) (*image.Gray, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "the image cannot be read: %v", err)
	}
	if err := checkSize(cfg, format); err != nil {
		return nil, err
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "the %s image is damaged: %v", format, err)
	}
	return upright(toGray(img), pdf.Orientation(data)), nil
}

// upright turns g as EXIF orientation o says it is shown. A phone stores its photo as the
// sensor saw it: a receipt photographed upright is stored on its side, with orientation 6
// (#20: 25 of 30 Swiss receipt photos), and Tesseract read it sideways or not at all.
func upright(g *image.Gray, o int) *image.Gray {
	switch o {
	case 2:
		return mirror(g)
	case 3:
		return turn(g, 180)
	case 4:
		return mirror(turn(g, 180))
	case 5:
		return turn(mirror(g), 270)
	case 6:
		return turn(g, 90)
	case 7:
		return turn(mirror(g), 90)
	case 8:
		return turn(g, 270)
	}
	return g
}

// mirror flips g left to right.
func mirror(g *image.Gray) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	out := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		src, dst := g.Pix[y*g.Stride:y*g.Stride+w], out.Pix[y*out.Stride:y*out.Stride+w]
		for x := range w {
			dst[w-1-x] = src[x]
		}
	}
	return out
}

// checkSize refuses an image too small to read or too large to decode.
func checkSize(cfg image.Config, format string) error {
	if cfg.Width < minSide || cfg.Height < minSide {
		return fault.New(fault.InvalidInput, "the %s image is %d×%d pixels, too small to read", format, cfg.Width, cfg.Height)
	}
	if int64(cfg.Width)*int64(cfg.Height) > maxImagePixels {
		return fault.New(fault.InvalidInput, "the %s image is %d×%d pixels; at most %d million pixels are read", format, cfg.Width, cfg.Height, maxImagePixels/1_000_000)
	}
	return nil
}

func toGray(img image.Image) *image.Gray {
	if g, ok := img.(*image.Gray); ok {
		return g
	}
	b := img.Bounds()
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	// A JPEG decodes to YCbCr: each pixel converted as color.GrayModel does, without its
	// interface calls per pixel, which were a tenth of a receipt's reading time (#20: one
	// receipt within 1.5 × a bare tesseract run).
	if yc, ok := img.(*image.YCbCr); ok {
		for y := 0; y < b.Dy(); y++ {
			row := g.Pix[y*g.Stride : y*g.Stride+b.Dx()]
			for x := range row {
				yi, ci := yc.YOffset(b.Min.X+x, b.Min.Y+y), yc.COffset(b.Min.X+x, b.Min.Y+y)
				r, gr, bl, _ := color.YCbCr{Y: yc.Y[yi], Cb: yc.Cb[ci], Cr: yc.Cr[ci]}.RGBA()
				row[x] = uint8((19595*r + 38470*gr + 7471*bl + 1<<15) >> 24)
			}
		}
		return g
	}
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			g.Set(x, y, color.GrayModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)))
		}
	}
	return g
}

// assess measures brightness, contrast, sharpness, resolution and whether text runs into
// the edge, and names the problems.
func assess(g *image.Gray) Quality {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	q := Quality{Width: w, Height: h, Hints: []string{}}
	s := shrink(g, 1000)
	var sum, sq float64
	n := float64(len(s.Pix))
	for _, p := range s.Pix {
		sum += float64(p)
		sq += float64(p) * float64(p)
	}
	mean := sum / n
	std := math.Sqrt(math.Max(0, sq/n-mean*mean))
	q.Brightness = math.Round(mean*10) / 10
	q.Sharpness = math.Round(laplaceVar(shrink(g, 2400))*10) / 10
	switch {
	case mean < 70:
		q.Hints = append(q.Hints, HintDark)
	case mean > 245:
		q.Hints = append(q.Hints, HintBright)
	}
	if std < 25 {
		q.Hints = append(q.Hints, HintLowContrast)
	}
	if q.Sharpness < 100 {
		q.Hints = append(q.Hints, HintBlurred)
	}
	if min(w, h) < 500 || w*h < 400_000 {
		q.Hints = append(q.Hints, HintLowResolution)
	}
	if cutOff(s) {
		q.Hints = append(q.Hints, HintCutOff)
	}
	return q
}

// laplaceVar is the variance of the 4-neighbour Laplacian: edges of sharp text give high
// values, blur flattens them.
func laplaceVar(g *image.Gray) float64 {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	var sum, sq float64
	var n float64
	for y := 1; y < h-1; y++ {
		for x := 1; x < w-1; x++ {
			c := 4*int(g.Pix[y*g.Stride+x]) - int(g.Pix[(y-1)*g.Stride+x]) - int(g.Pix[(y+1)*g.Stride+x]) - int(g.Pix[y*g.Stride+x-1]) - int(g.Pix[y*g.Stride+x+1])
			sum += float64(c)
			sq += float64(c) * float64(c)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	m := sum / n
	return sq/n - m*m
}

// cutOff: dark ink along the top or bottom edge means the receipt runs beyond the picture.
func cutOff(g *image.Gray) bool {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	band := max(1, h/100)
	dark := func(y0 int) float64 {
		c := 0
		for y := y0; y < y0+band; y++ {
			for x := 0; x < w; x++ {
				if g.Pix[y*g.Stride+x] < 100 {
					c++
				}
			}
		}
		return float64(c) / float64(w*band)
	}
	return dark(0) > 0.08 && dark(0) < 0.6 || dark(h-band) > 0.08 && dark(h-band) < 0.6
}

// shrink scales g down (box filter) so that its longer side is at most size.
func shrink(g *image.Gray, size int) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	f := max(1, (max(w, h)+size-1)/size)
	if f == 1 {
		return g
	}
	out := image.NewGray(image.Rect(0, 0, w/f, h/f))
	for y := 0; y < h/f; y++ {
		for x := 0; x < w/f; x++ {
			s := 0
			for dy := 0; dy < f; dy++ {
				row := (y*f+dy)*g.Stride + x*f
				for dx := 0; dx < f; dx++ {
					s += int(g.Pix[row+dx])
				}
			}
			out.Pix[y*out.Stride+x] = uint8(s / (f * f))
		}
	}
	return out
}

// scale resizes g by factor f with bilinear interpolation.
func scale(g *image.Gray, f float64) *image.Gray {
	w, h := int(float64(g.Rect.Dx())*f), int(float64(g.Rect.Dy())*f)
	out := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			out.Pix[y*out.Stride+x] = sample(g, (float64(x)+0.5)/f-0.5, (float64(y)+0.5)/f-0.5, 255)
		}
	}
	return out
}

// sample reads g at a fractional position, fill outside.
func sample(g *image.Gray, fx, fy float64, fill uint8) uint8 {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	x0, y0 := int(math.Floor(fx)), int(math.Floor(fy))
	ax, ay := fx-float64(x0), fy-float64(y0)
	at := func(x, y int) float64 {
		if x < 0 || y < 0 || x >= w || y >= h {
			return float64(fill)
		}
		return float64(g.Pix[y*g.Stride+x])
	}
	v := (at(x0, y0)*(1-ax)+at(x0+1, y0)*ax)*(1-ay) + (at(x0, y0+1)*(1-ax)+at(x0+1, y0+1)*ax)*ay
	return uint8(math.Round(v))
}

// rotate turns g by deg degrees counter-clockwise about its centre, keeping its size and
// filling with white.
func rotate(g *image.Gray, deg float64) *image.Gray { return rotateFill(g, deg, 255) }

// rotateFill is rotate filling with grey fill.
func rotateFill(g *image.Gray, deg float64, fill uint8) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	out := image.NewGray(image.Rect(0, 0, w, h))
	sin, cos := math.Sincos(deg * math.Pi / 180)
	cx, cy := float64(w)/2, float64(h)/2
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			dx, dy := float64(x)-cx, float64(y)-cy
			out.Pix[y*out.Stride+x] = sample(g, cos*dx-sin*dy+cx, sin*dx+cos*dy+cy, fill)
		}
	}
	return out
}

// turn rotates g clockwise by a multiple of 90 degrees.
func turn(g *image.Gray, deg int) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	switch ((deg % 360) + 360) % 360 {
	case 90:
		out := image.NewGray(image.Rect(0, 0, h, w))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				out.Pix[x*out.Stride+(h-1-y)] = g.Pix[y*g.Stride+x]
			}
		}
		return out
	case 180:
		out := image.NewGray(image.Rect(0, 0, w, h))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				out.Pix[(h-1-y)*out.Stride+(w-1-x)] = g.Pix[y*g.Stride+x]
			}
		}
		return out
	case 270:
		out := image.NewGray(image.Rect(0, 0, h, w))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				out.Pix[(w-1-x)*out.Stride+y] = g.Pix[y*g.Stride+x]
			}
		}
		return out
	}
	return g
}

// skew finds the small angle (±6°) that lines of text lie at: the angle at which the
// rows of a binarised thumbnail are most unequal (text rows dark, gaps white).
func skew(g *image.Gray) float64 { return skewWithin(g, maxSkew) }

// maxSkew is the largest angle skew looks for.
const maxSkew = 6.0

// skewWithin is skew looking within ±limit degrees.
func skewWithin(g *image.Gray, limit float64) float64 {
	s := shrink(g, 600)
	w, h := s.Rect.Dx(), s.Rect.Dy()
	type pt struct{ x, y float64 }
	var ink []pt
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if s.Pix[y*s.Stride+x] < 128 {
				ink = append(ink, pt{float64(x), float64(y)})
			}
		}
	}
	if len(ink) < 200 {
		return 0
	}
	score := func(deg float64) float64 {
		t := math.Tan(deg * math.Pi / 180)
		rows := make([]float64, h+w)
		off := float64(w)
		for _, p := range ink {
			r := int(p.y - p.x*t + off/2)
			if r >= 0 && r < len(rows) {
				rows[r]++
			}
		}
		var sum float64
		for i := 1; i < len(rows); i++ {
			d := rows[i] - rows[i-1]
			sum += d * d
		}
		return sum
	}
	best, bestScore := 0.0, score(0)
	for deg := -limit; deg <= limit; deg += 0.5 {
		if sc := score(deg); sc > bestScore*1.02 {
			best, bestScore = deg, sc
		}
	}
	for deg := best - 0.4; deg <= best+0.4; deg += 0.1 {
		if sc := score(deg); sc > bestScore {
			best, bestScore = deg, sc
		}
	}
	return math.Round(best*10) / 10
}

// largePixels is the size above which a receipt's image is halved before it is read: a
// receipt scanned at 600 dpi on an A4 page (4961 × 7016, 35 million pixels; 3 of the 27
// Malaysian receipts measured) prints lines of 60 to 80 pixels, twice what Tesseract
// reads best, and every step after (deskew, threshold, Tesseract, PaddleOCR) costs by the
// pixel. A phone's photo (12 million) is read as it is.
const largePixels = 20_000_000

// halveLarge halves g, each pixel the mean of four, until it holds at most largePixels.
func halveLarge(g *image.Gray) *image.Gray {
	for g.Rect.Dx()*g.Rect.Dy() > largePixels {
		w, h := g.Rect.Dx()/2, g.Rect.Dy()/2
		out := image.NewGray(image.Rect(0, 0, w, h))
		for y := range h {
			a := g.Pix[2*y*g.Stride:]
			b := g.Pix[(2*y+1)*g.Stride:]
			row := out.Pix[y*out.Stride : y*out.Stride+w]
			for x := range row {
				row[x] = uint8((int(a[2*x]) + int(a[2*x+1]) + int(b[2*x]) + int(b[2*x+1]) + 2) / 4)
			}
		}
		g = out
	}
	return g
}

// prepare makes an image ready for OCR: small images are enlarged (Tesseract needs about
// 20 px per line of text; enlarging larger scans measured no better on the corpus), skewed
// ones straightened, by at most limit degrees.
func prepare(g *image.Gray, limit float64) (*image.Gray, float64) {
	if w := g.Rect.Dx(); w < 600 {
		g = scale(g, math.Min(3, 1200/float64(w)))
	}
	a := skewWithin(g, limit)
	if math.Abs(a) >= 0.5 {
		g = rotate(g, a)
	}
	return g, a
}

// encodePNG writes the prepared image for the OCR engines uncompressed: Go's encoder spent
// 0.1 to 0.6 s per receipt choosing row filters and deflating for a file that only goes to
// a local engine (#20: one receipt within 1.5 × a bare tesseract run). What leaves the
// process (a language model's request, an expense report) is compacted first (compactPNG).
func encodePNG(g *image.Gray) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.NoCompression}
	if err := enc.Encode(&buf, g); err != nil {
		return nil, fmt.Errorf("encoding the image: %w", err)
	}
	return buf.Bytes(), nil
}

// compactPNG is a PNG compressed (about half the size of encodePNG's), or b as it is when
// it is no PNG or does not get smaller.
func compactPNG(b []byte) []byte {
	if !bytes.HasPrefix(b, []byte("\x89PNG")) {
		return b
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return b
	}
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil || buf.Len() >= len(b) {
		return b
	}
	return buf.Bytes()
}

// clone copies g into a new image whose origin is (0, 0).
func clone(g *image.Gray) *image.Gray { return crop(g, image.Rect(0, 0, g.Rect.Dx(), g.Rect.Dy())) }

// crop copies r out of g.
func crop(g *image.Gray, r image.Rectangle) *image.Gray {
	out := image.NewGray(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := 0; y < r.Dy(); y++ {
		copy(out.Pix[y*out.Stride:y*out.Stride+r.Dx()], g.Pix[(r.Min.Y+y)*g.Stride+r.Min.X:])
	}
	return out
}

// Sauvola's threshold as Tesseract reads receipts: a window of 51 pixels (a few text lines
// of a 200 to 300 dpi scan) and k = 0.2, measured on the corpus and flatbed receipts.
const (
	binRadius = 25
	binK      = 0.2
)

// binarize is Sauvola's adaptive threshold of g, black ink on white: a pixel is ink when it
// is darker than m·(1 + k·(s/128 − 1)), m and s the mean and standard deviation of the
// window (side 2·radius+1) around it. Thermal paper fades, greys and shades unevenly;
// Tesseract's own global threshold (Otsu) then loses a faded VAT table's digits or reads a
// grey band as ink, a local threshold keeps them (#20: "binarise adaptively").
//
// The window's sums slide: each column's sum over the window's rows is updated as the
// window moves down a row, and a row's window sums slide across those. Integer sums are
// exact, so the threshold is the one integral images give, without their two tables of
// the image's size: on a 600 dpi A4 scan (35 megapixels) those took 560 MB and 2.2 s, most
// of it waiting for memory.
func binarize(g *image.Gray, radius int, k float64) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	out := image.NewGray(image.Rect(0, 0, w, h))
	if w == 0 || h == 0 {
		return out
	}
	col := make([]int64, w)   // Σ v over the window's rows, per column
	colSq := make([]int64, w) // Σ v²
	add := func(y int, sign int64) {
		row := g.Pix[y*g.Stride : y*g.Stride+w]
		for x, v := range row {
			col[x] += sign * int64(v)
			colSq[x] += sign * int64(v) * int64(v)
		}
	}
	for y := range min(h, radius+1) {
		add(y, 1)
	}
	for y := range h {
		if y > 0 {
			if y+radius < h {
				add(y+radius, 1)
			}
			if y-radius-1 >= 0 {
				add(y-radius-1, -1)
			}
		}
		rows := int64(min(h, y+radius+1) - max(0, y-radius))
		var s, q int64
		for x := range min(w, radius+1) {
			s, q = s+col[x], q+colSq[x]
		}
		in := g.Pix[y*g.Stride : y*g.Stride+w]
		dst := out.Pix[y*out.Stride : y*out.Stride+w]
		for x := range w {
			if x > 0 {
				if x+radius < w {
					s, q = s+col[x+radius], q+colSq[x+radius]
				}
				if x-radius-1 >= 0 {
					s, q = s-col[x-radius-1], q-colSq[x-radius-1]
				}
			}
			n := float64(rows * int64(min(w, x+radius+1)-max(0, x-radius)))
			m := float64(s) / n
			sd := math.Sqrt(math.Max(0, float64(q)/n-m*m))
			if float64(in[x]) > m*(1+k*(sd/128-1)) {
				dst[x] = 255
			}
		}
	}
	return out
}

// unrule whitens the rules of an invoice's tables: Tesseract, reading a page as one block
// of text, loses rows whose words stand between a table's lines (GnuAccounting's ruled
// tables: their header, rates and VAT rows). A rule is a run of dark pixels longer than any
// stroke of a letter, a sixteenth of the page's width across or a twenty-fifth down, and no
// thicker than a twohundredth of it; thicker dark areas (a filled band) are kept.
func unrule(g *image.Gray) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	const dark = 160
	across, down, thick := w/16, w/25, max(2, w/200)
	ruleH := make([]bool, w*h) // pixels of long runs across
	ruleV := make([]bool, w*h) // pixels of long runs down
	isDark := func(x, y int) bool { return g.Pix[y*g.Stride+x] < dark }
	for y := 0; y < h; y++ {
		runs(w, func(x int) bool { return isDark(x, y) }, func(s, e int) {
			for x := s; x < e && e-s >= across; x++ {
				ruleH[y*w+x] = true
			}
		})
	}
	for x := 0; x < w; x++ {
		runs(h, func(y int) bool { return isDark(x, y) }, func(s, e int) {
			for y := s; y < e && e-s >= down; y++ {
				ruleV[y*w+x] = true
			}
		})
	}
	out := clone(g)
	// A run across is a rule where the runs across stacked on it are few (its thickness
	// down), its antialiased edge with it; likewise a run down by its thickness across.
	for x := 0; x < w; x++ {
		runs(h, func(y int) bool { return ruleH[y*w+x] }, func(s, e int) {
			for y := max(0, s-1); y < min(h, e+1) && e-s <= thick; y++ {
				out.Pix[y*out.Stride+x] = 255
			}
		})
	}
	for y := 0; y < h; y++ {
		runs(w, func(x int) bool { return ruleV[y*w+x] }, func(s, e int) {
			for x := max(0, s-1); x < min(w, e+1) && e-s <= thick; x++ {
				out.Pix[y*out.Stride+x] = 255
			}
		})
	}
	return out
}

// runs calls each with the start and end (excluded) of every run of positions 0 to n-1
// at which in holds.
func runs(n int, in func(int) bool, each func(s, e int)) {
	for i := 0; i < n; {
		if !in(i) {
			i++
			continue
		}
		s := i
		for i < n && in(i) {
			i++
		}
		each(s, i)
	}
}

// invertBands turns the filled dark bands of a page into light ones with dark text: table
// headers and total rows printed white on a dark colour, which Tesseract reads as nothing
// (the header "Description Quantity Unit Price" on navy lost a whole line table). A band is
// a connected area of dark pixels (under 100) at least a sixteenth of the page wide, a
// hundredth to a tenth of it high, that fills at least 60 % of its box (its letters are the
// holes); its box is inverted. A larger dark area (the table a photo was taken on) is no
// band. Run after unrule, whose whitened rules no longer join a band to its table's grid.
func invertBands(g *image.Gray) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	const dark = 100
	minW, minH, maxH := w/16, max(4, w/100), w/10
	var boxes []image.Rectangle
	components(w, h, false, func(i int) bool { return g.Pix[(i/w)*g.Stride+i%w] < dark }, func(n int, b image.Rectangle) {
		if b.Dx() >= minW && b.Dy() >= minH && b.Dy() <= maxH && float64(n) >= 0.6*float64(b.Dx()*b.Dy()) {
			boxes = append(boxes, b)
		}
	})
	if len(boxes) == 0 {
		return g
	}
	out := clone(g)
	for _, b := range boxes {
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				out.Pix[y*out.Stride+x] = 255 - out.Pix[y*out.Stride+x]
			}
		}
	}
	return out
}

// components calls each with the size and box of every connected area of the w × h grid's
// cells at which in holds (cells numbered row by row), 4-connected or, with diagonal,
// 8-connected.
func components(w, h int, diagonal bool, in func(i int) bool, each func(n int, box image.Rectangle)) {
	seen := make([]bool, w*h)
	stack := make([]int, 0, 1024)
	for start := range seen {
		if seen[start] || !in(start) {
			continue
		}
		seen[start] = true
		stack = append(stack[:0], start)
		n, x0, y0, x1, y1 := 0, w, h, 0, 0
		for len(stack) > 0 {
			p := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			x, y := p%w, p/w
			n++
			x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x+1), max(y1, y+1)
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					if dx == 0 && dy == 0 || !diagonal && dx != 0 && dy != 0 {
						continue
					}
					qx, qy := x+dx, y+dy
					if qx < 0 || qy < 0 || qx >= w || qy >= h {
						continue
					}
					if i := qy*w + qx; !seen[i] && in(i) {
						seen[i] = true
						stack = append(stack, i)
					}
				}
			}
		}
		each(n, image.Rect(x0, y0, x1, y1))
	}
}

// blankGraphics whitens the pictures of an invoice's page: a QR code for payment (GiroCode,
// "Scan to pay"), a barcode, a photo. Tesseract reads them as words ("Beten", "ae", "an
// Bis"), and words between the sender's and the recipient's blocks join the two into one
// line ("Adatum Corporation … CRONUS DE"). A picture is dense: on a grid of cells a
// hundredth of the page's width, a connected area of cells at least a quarter dark (under
// 128), at least six cells high and wide, at most three times as wide as high, filling
// half its box, whose pixels are dark enough and without the white rows between lines that
// text has (picture), and whose box covers at most a fifth of the page: what a photographed
// page lies on is larger, and its box holds the page. A heading set large enough to reach
// six cells is many times wider than high. Run after invertBands, which makes a dark band
// light.
func blankGraphics(g *image.Gray) *image.Gray {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	c := max(4, w/100)
	cw, ch := w/c, h/c
	if cw < 6 || ch < 6 {
		return g
	}
	dense := make([]bool, cw*ch)
	for cy := range ch {
		for cx := range cw {
			n := 0
			for y := cy * c; y < (cy+1)*c; y++ {
				for x := cx * c; x < (cx+1)*c; x++ {
					if g.Pix[y*g.Stride+x] < 128 {
						n++
					}
				}
			}
			dense[cy*cw+cx] = 4*n >= c*c
		}
	}
	var boxes []image.Rectangle
	components(cw, ch, true, func(i int) bool { return dense[i] }, func(n int, b image.Rectangle) {
		bw, bh := b.Dx(), b.Dy()
		if px := image.Rect(b.Min.X*c, b.Min.Y*c, b.Max.X*c, b.Max.Y*c); bw >= 6 && bh >= 6 && bw <= 3*bh && 2*n >= bw*bh && 5*bw*bh <= cw*ch && picture(g, px) {
			boxes = append(boxes, px)
		}
	})
	if len(boxes) == 0 {
		return g
	}
	out := clone(g)
	for _, b := range boxes {
		// A cell more on each side: the picture's edge may dip under a quarter in its cells.
		b = b.Inset(-c).Intersect(out.Rect)
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				out.Pix[y*out.Stride+x] = 255
			}
		}
	}
	return out
}

// picture: the box r of g is a picture and no text: at least three tenths of its pixels
// dark (text, even bold, is a tenth to a quarter), and at most one row in ten blank (the
// white between the lines of a text; a code's or a photo's rows all hold some dark).
func picture(g *image.Gray, r image.Rectangle) bool {
	dark, blank := 0, 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		n := 0
		for x := r.Min.X; x < r.Max.X; x++ {
			if g.Pix[y*g.Stride+x] < 128 {
				n++
			}
		}
		dark += n
		if 50*n < r.Dx() {
			blank++
		}
	}
	return 10*dark >= 3*r.Dx()*r.Dy() && 10*blank <= r.Dy()
}
