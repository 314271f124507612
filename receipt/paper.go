package receipt

import (
	"cmp"
	"image"
	"math"
	"slices"
)

// A paper is where a receipt lies on a larger scan or photo, in the image's pixels.
type paper struct {
	box image.Rectangle
	// outline is the paper's convex outline, a millimetre inside its edge, when the paper
	// lies turned (more than maxTilt); nil when the box is the paper (it lies straight, or
	// no rectangle's outline was found, or the paper ran on past a dark band: extendPaper).
	outline outline
	level   uint8   // the paper's grey, which the background around the outline is painted
	tilt    float64 // degrees the paper lies turned counter-clockwise (rotate's sense)
}

// findPaper finds the receipt on a larger scan: a flatbed page or a photo shows the paper
// brighter than what it lies on. It answers where the paper lies, and false when the paper
// fills the image already (a cropped scan, a page) or no paper stands out.
//
// The image is shrunk until a pixel covers about a millimetre, so text on the paper averages
// into its brightness. Otsu's threshold splits it into bright and dark; the largest bright
// region is the candidate. The split repeats inside that region's box, because a scan may
// show the paper on cardboard on a dark lid: each round peels one background away, until
// what turns dark lies inside the region (the paper itself, whose text is all that is left
// dark) rather than around it.
//
// Around means outside the region's convex outline, not its box, when the outline is a
// rectangle's lying turned: a photo of a receipt lying askew on a table has the table's
// wood in the corners of the receipt's box, and counted inside, the box kept the whole
// photo (#20: an ALDI receipt turned 14° on wood, read as noise).
func findPaper(g *image.Gray) (paper, bool) {
	const side = 300
	s := shrink(g, side)
	w, h := s.Rect.Dx(), s.Rect.Dy()
	if w < 20 || h < 20 {
		return paper{}, false
	}
	box := image.Rect(0, 0, w, h)
	var paperT uint8 // the threshold the paper's box was split at
	var line outline
	for round := range 4 {
		t, sep := otsu(s, box)
		// Paper and what it lies on differ by 43 grey levels and more on the scans measured;
		// a receipt's own shading (a grey print, a fold) stays under 37. Below 40 the box is
		// kept as it is: reading a little background costs less than cutting the paper.
		if sep < 40 {
			break
		}
		region, area, rows := largestBright(s, box, t)
		if region == box {
			// Everything bright in the box is one region: the paper may lie beside a
			// bright background that touches it (a shop's shiny bag, a grey cloth), both
			// above the threshold that split them from the table. The bright levels are
			// split again; their brighter part is the paper when it is a rectangle (#20: a
			// Shell receipt beside a cloth, read with the cloth as noise).
			if t2, sep2 := otsuAbove(s, box, t); sep2 >= brightSep {
				if r2, a2, rows2 := largestBright(s, box, t2); r2 != box {
					if _, fill := hullOf(rows2, brightErode-1).tilt(); fill >= minRectFill {
						t, region, area, rows = t2, r2, a2, rows2
					}
				}
			}
		}
		if area < w*h/40 || region == box {
			break // a speck, or nothing left to peel
		}
		// The eroded region widened again by the erosion, less a pixel: the paper's edge,
		// shaded, is no background to leave beside it (Sauvola's threshold makes it a black
		// frame that deskewing took for a line of text), and no receipt prints that close
		// to it.
		o, around := hullOf(rows, brightErode-1), outline(nil)
		tilt, fill := o.tilt()
		if round > 0 && fill < minRectFill {
			// Inside a paper's box, a bright part that is no rectangle is the paper's own
			// light and shade, or a bright table beside it joined to part of the paper
			// (#20: a crumpled Esselunga receipt on light wood lost its figures' column,
			// a Merkur receipt its header and date, a pub's bill its total).
			break
		}
		if fill >= minRectFill && math.Abs(tilt) > maxTilt {
			around = o
		} else {
			// No rectangle's outline (paper and a bright background in one region, a
			// paper held by fingers), or a paper lying straight: around means outside the
			// region's box, the box is cut out as it is and deskewed. Painting around the
			// outline of straight papers too was measured: the receipts tuned on gained, the
			// European receipts held out lost two totals and two breakdowns of 26.
			o, around = nil, outline{{float64(region.Min.X), float64(region.Min.Y)}, {float64(region.Max.X), float64(region.Min.Y)}, {float64(region.Max.X), float64(region.Max.Y)}, {float64(region.Min.X), float64(region.Max.Y)}}
		}
		// What was dark around the region is background; dark inside it is the paper's
		// print (text, a logo), and then the region is the paper already.
		inside, outside := 0, 0
		for y := box.Min.Y; y < box.Max.Y; y++ {
			x0, x1 := around.span(float64(y) + 0.5)
			for x := box.Min.X; x < box.Max.X; x++ {
				if s.Pix[y*s.Stride+x] < t {
					if fx := float64(x) + 0.5; fx >= x0 && fx <= x1 {
						inside++
					} else {
						outside++
					}
				}
			}
		}
		if outside <= inside {
			break
		}
		box, paperT, line = region, t, o
	}
	if paperT > 0 {
		if b := extendShaded(s, extendPaper(s, box, paperT)); b != box {
			box, line = b, nil
		}
	}
	// A paper that fills most of the image is left as it is.
	if covered := float64(box.Dx() * box.Dy()); line != nil && line.area() > float64(w*h)*0.85 || line == nil && covered > float64(w*h)*0.85 {
		return paper{}, false
	}
	// Back to g's pixels, a little wider than the region so that no text at its edge is cut.
	fx, fy := float64(g.Rect.Dx())/float64(w), float64(g.Rect.Dy())/float64(h)
	r := image.Rect(int(float64(box.Min.X-1)*fx), int(float64(box.Min.Y-1)*fy), int(float64(box.Max.X+1)*fx), int(float64(box.Max.Y+1)*fy))
	p := paper{box: r.Intersect(image.Rect(0, 0, g.Rect.Dx(), g.Rect.Dy()))}
	if line != nil {
		p.level = line.mean(s, paperT)
		p.tilt, _ = line.tilt()
		p.outline = line.scale(fx, fy)
	}
	return p, true
}

// cut copies the paper out of g: its box, the background inside the box around the outline
// painted in the paper's grey (Tesseract read a table's grain in the corners of an askew
// receipt's box as rows of noise, and Sauvola's threshold makes a white surround a black
// frame), and the paper turned upright as its outline lies (an ALDI receipt lay turned 14°,
// further than deskewing looks).
func (p paper) cut(g *image.Gray) *image.Gray {
	c := crop(g, p.box)
	if p.outline == nil {
		return c
	}
	o := p.outline.shift(-p.box.Min.X, -p.box.Min.Y)
	w := c.Rect.Dx()
	for y := range c.Rect.Dy() {
		x0, x1 := o.span(float64(y) + 0.5)
		row := c.Pix[y*c.Stride : y*c.Stride+w]
		for x := range row {
			if fx := float64(x) + 0.5; fx < x0 || fx > x1 {
				row[x] = p.level
			}
		}
	}
	return rotateFill(c, p.tilt, p.level)
}

// skewLimit is how far deskewing looks on the cut paper: one turned upright by its outline
// has its text along it, within maxSkewOnPaper; without an outline, as far as skew looks.
func (p paper) skewLimit() float64 {
	if p.outline == nil {
		return maxSkew
	}
	return maxSkewOnPaper
}

// Angles of a paper, in degrees. One lying turned further than maxTilt is cut out by its
// outline and turned upright by it; less is left to deskewing (skew), which measures the
// text lines themselves. A paper turned upright by its outline has its text within
// maxSkewOnPaper of level: deskewing looking further took a curled end's shadow for a line
// of text (a receipt lying 1° askew deskewed by 4.8°).
const (
	maxTilt        = 3.0
	maxSkewOnPaper = 1.5
)

// brightSep: the bright levels of a box whose classes lie this far apart are paper and a
// bright background (a grey cloth 35 levels under the receipt's white; the paper's own
// shading measured under 30 inside the tuning photos' paper boxes).
const brightSep = 30

// minRectFill: the share of its smallest enclosing rectangle an outline fills when it is a
// paper's rectangle.
const minRectFill = 0.93

// Bounds of extendPaper, in pixels of the shrunken image (about a millimetre each).
const (
	// paperRowShare: a row across the paper's columns this bright is paper (its print
	// averages out at a millimetre a pixel).
	paperRowShare = 0.5
	// bandRowShare: a row this bright is no background (which has none), but may be a dark
	// band across the paper (a barcode, a black bar) with the paper's margins beside it.
	bandRowShare = 0.1
	// maxBand: the widest dark band bridged; a receipt's barcode is 1 to 2 cm high.
	maxBand = 30
)

// extendPaper widens the paper's box up and down over a dark band across the paper (a
// barcode), when paper follows beyond it: the band splits the bright region, and the part
// beyond it (a Lidl receipt's date line under its barcode) is too small to join it in
// largestBright. Rows are judged across the box's columns at threshold t, not eroded: the
// background has no bright pixel there, a band still shows the paper's margins.
func extendPaper(g *image.Gray, box image.Rectangle, t uint8) image.Rectangle {
	share := func(y int) float64 {
		n := 0
		for x := box.Min.X; x < box.Max.X; x++ {
			if g.Pix[y*g.Stride+x] >= t {
				n++
			}
		}
		return float64(n) / float64(max(1, box.Dx()))
	}
	// edge walks from row y in step dir and answers the last paper row it reaches through
	// bands, or -1 when none lies beyond the box.
	edge := func(y, dir int) int {
		last, band := -1, 0
		for ; y >= g.Rect.Min.Y && y < g.Rect.Max.Y; y += dir {
			switch v := share(y); {
			case v >= paperRowShare:
				last, band = y, 0
			case v >= bandRowShare && band < maxBand:
				band++
			default:
				return last
			}
		}
		return last
	}
	if y := edge(box.Max.Y, 1); y >= 0 {
		box.Max.Y = y + 1
	}
	if y := edge(box.Min.Y-1, -1); y >= 0 {
		box.Min.Y = y
	}
	return box
}

// Bounds of extendShaded, in grey levels and pixels of the shrunken image.
const (
	// shadeSep: a row of the paper's columns this much brighter than the background beside
	// them is paper still, however dark (the paper stands 50 levels and more above the
	// table along the whole receipt measured; the rows of a table or a second paper beyond
	// the receipt's end do not).
	shadeSep = 35
	// shadeSide: how wide a strip beside the paper's columns is the background compared.
	shadeSide = 15
)

// extendShaded widens the paper's box up and down over paper in shade: a photo lit from
// one end shows the far end of the receipt darker than the threshold that split the paper
// from the table (#20: a pizzeria's receipt whose lower half, total and date included, fell
// under a shadow and was cut off). A row beyond the box is paper while its columns inside
// the box stand shadeSep above the background beside them (the mean of both sides: a
// table's grain lightens one side here and there).
func extendShaded(g *image.Gray, box image.Rectangle) image.Rectangle {
	mean := func(y, x0, x1 int) (int, bool) {
		x0, x1 = max(x0, g.Rect.Min.X), min(x1, g.Rect.Max.X)
		if x1 <= x0 {
			return 0, false
		}
		sum := 0
		for x := x0; x < x1; x++ {
			sum += int(g.Pix[y*g.Stride+x])
		}
		return sum / (x1 - x0), true
	}
	paperRow := func(y int) bool {
		in, _ := mean(y, box.Min.X, box.Max.X)
		left, okL := mean(y, box.Min.X-shadeSide, box.Min.X)
		right, okR := mean(y, box.Max.X, box.Max.X+shadeSide)
		return okL && okR && in-(left+right)/2 >= shadeSep
	}
	for box.Max.Y < g.Rect.Max.Y && paperRow(box.Max.Y) {
		box.Max.Y++
	}
	for box.Min.Y > g.Rect.Min.Y && paperRow(box.Min.Y-1) {
		box.Min.Y--
	}
	return box
}

// otsu is the threshold that best splits the grey levels inside box into two classes, and
// how far apart the two classes' means are.
func otsu(g *image.Gray, box image.Rectangle) (uint8, float64) {
	return otsuAbove(g, box, 0)
}

// otsuAbove is otsu over the grey levels at or above lo only.
func otsuAbove(g *image.Gray, box image.Rectangle, lo uint8) (uint8, float64) {
	var hist [256]int
	n := 0
	for y := box.Min.Y; y < box.Max.Y; y++ {
		for x := box.Min.X; x < box.Max.X; x++ {
			if v := g.Pix[y*g.Stride+x]; v >= lo {
				hist[v]++
				n++
			}
		}
	}
	var total float64
	for i, c := range hist {
		total += float64(i * c)
	}
	var best float64
	var t uint8
	var sep float64
	var wb, sumB float64
	for i, c := range hist {
		wb += float64(c)
		if wb == 0 {
			continue
		}
		wf := float64(n) - wb
		if wf == 0 {
			break
		}
		sumB += float64(i * c)
		mb, mf := sumB/wb, (total-sumB)/wf
		if v := wb * wf * (mb - mf) * (mb - mf); v > best {
			best, t, sep = v, uint8(i), mf-mb
		}
	}
	return t + 1, sep
}

// largestBright is the box of the largest 4-connected region of pixels at or above t inside
// box, its size in pixels, and each of its rows' leftmost and rightmost pixel (eroded). The bright mask is eroded first, so that a thin bright seam
// (the scanner's edge, a sheet's rim) does not join the paper to what it lies on; the box is
// widened again by as much. A black band across the paper (a logo, a barcode) cuts it in
// parts: bright regions above and below that span the same columns belong to it.
func largestBright(g *image.Gray, box image.Rectangle, t uint8) (image.Rectangle, int, []rowSpan) {
	const erode = brightErode
	w, h := box.Dx(), box.Dy()
	mask := make([]bool, w*h)
	for y := range h {
		for x := range w {
			mask[y*w+x] = g.Pix[(box.Min.Y+y)*g.Stride+box.Min.X+x] >= t
		}
	}
	// A pixel stays bright when every pixel within erode of it is: rows, then columns.
	mask = erodeAlong(erodeAlong(mask, w, h, erode, 1, 0), w, h, erode, 0, 1)
	label := make([]int32, w*h) // a pixel's region, 1-based; 0 is dark or not yet seen
	type part struct {
		r image.Rectangle
		n int
	}
	var parts []part
	best := -1
	var stack []image.Point
	for y := range h {
		for x := range w {
			if label[y*w+x] != 0 || !mask[y*w+x] {
				continue
			}
			id := int32(len(parts) + 1)
			label[y*w+x] = id
			r := image.Rect(x, y, x+1, y+1)
			n := 0
			stack = append(stack[:0], image.Pt(x, y))
			for len(stack) > 0 {
				p := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				n++
				r = r.Union(image.Rect(p.X, p.Y, p.X+1, p.Y+1))
				for _, d := range [4]image.Point{{1, 0}, {-1, 0}, {0, 1}, {0, -1}} {
					q := p.Add(d)
					if q.X < 0 || q.Y < 0 || q.X >= w || q.Y >= h || label[q.Y*w+q.X] != 0 || !mask[q.Y*w+q.X] {
						continue
					}
					label[q.Y*w+q.X] = id
					stack = append(stack, q)
				}
			}
			parts = append(parts, part{r, n})
			if best < 0 || n > parts[best].n {
				best = len(parts) - 1
			}
		}
	}
	if best < 0 {
		return image.Rectangle{}, 0, nil
	}
	main := parts[best]
	bestN := main.n
	joined := make([]bool, len(parts)+1)
	for i, p := range parts {
		overlap := min(p.r.Max.X, main.r.Max.X) - max(p.r.Min.X, main.r.Min.X)
		if i == best || p.n >= main.n/50 && 10*overlap >= 8*max(p.r.Dx(), main.r.Dx()) {
			main.r = main.r.Union(p.r)
			joined[i+1] = true
		}
	}
	var rows []rowSpan
	for y := main.r.Min.Y; y < main.r.Max.Y; y++ {
		span := rowSpan{y: box.Min.Y + y, x0: -1}
		for x := main.r.Min.X; x < main.r.Max.X; x++ {
			if joined[label[y*w+x]] && label[y*w+x] != 0 {
				if span.x0 < 0 {
					span.x0 = box.Min.X + x
				}
				span.x1 = box.Min.X + x
			}
		}
		if span.x0 >= 0 {
			rows = append(rows, span)
		}
	}
	return main.r.Inset(-erode).Add(box.Min).Intersect(box), bestN, rows
}

// erodeAlong is mask (w × h) with a pixel kept set when every pixel within r of it in the
// direction (dx, dy), a row (1, 0) or a column (0, 1), is set.
func erodeAlong(mask []bool, w, h, r, dx, dy int) []bool {
	out := make([]bool, w*h)
	for y := range h {
		for x := range w {
			ok := true
			for d := -r; d <= r && ok; d++ {
				if px, py := x+d*dx, y+d*dy; px >= 0 && py >= 0 && px < w && py < h {
					ok = mask[py*w+px]
				}
			}
			out[y*w+x] = ok
		}
	}
	return out
}

// brightErode: largestBright's erosion, in pixels of the shrunken image (millimetres).
const brightErode = 2

// A rowSpan is a region's leftmost and rightmost pixel on row y.
type rowSpan struct{ y, x0, x1 int }

// An outline is a convex polygon (clockwise in image coordinates, y down).
type outline []fpoint

type fpoint struct{ x, y float64 }

// hullOf is the convex outline of the pixels of rows, each pixel widened by pad on every
// side (the erosion given back, and play).
func hullOf(rows []rowSpan, pad float64) outline {
	pts := make([]fpoint, 0, 4*len(rows))
	for _, r := range rows {
		y0, y1 := float64(r.y)-pad, float64(r.y+1)+pad
		for _, x := range []float64{float64(r.x0) - pad, float64(r.x1+1) + pad} {
			pts = append(pts, fpoint{x, y0}, fpoint{x, y1})
		}
	}
	slices.SortFunc(pts, func(a, b fpoint) int {
		if c := cmp.Compare(a.x, b.x); c != 0 {
			return c
		}
		return cmp.Compare(a.y, b.y)
	})
	cross := func(o, a, b fpoint) float64 { return (a.x-o.x)*(b.y-o.y) - (a.y-o.y)*(b.x-o.x) }
	// Andrew's monotone chain: the lower and the upper chain.
	var hull []fpoint
	for pass := range 2 {
		start := len(hull)
		for i := range pts {
			p := pts[i]
			if pass == 1 {
				p = pts[len(pts)-1-i]
			}
			for len(hull)-start >= 2 && cross(hull[len(hull)-2], hull[len(hull)-1], p) <= 0 {
				hull = hull[:len(hull)-1]
			}
			hull = append(hull, p)
		}
		hull = hull[:len(hull)-1] // each chain's last point starts the other
	}
	return hull
}

// span is where the outline crosses the horizontal line at y: from x0 to x1, or x0 > x1
// when it does not.
func (o outline) span(y float64) (x0, x1 float64) {
	x0, x1 = math.Inf(1), math.Inf(-1)
	for i := range o {
		a, b := o[i], o[(i+1)%len(o)]
		if (a.y > y) == (b.y > y) {
			continue
		}
		x := a.x + (y-a.y)*(b.x-a.x)/(b.y-a.y)
		x0, x1 = math.Min(x0, x), math.Max(x1, x)
	}
	return x0, x1
}

// tilt is the angle, in degrees within ±45, of the outline's smallest enclosing rectangle
// (one of its sides lies along an edge of the hull), and how much of that rectangle the
// outline fills.
func (o outline) tilt() (float64, float64) {
	best, angle := math.Inf(1), 0.0
	for i := range o {
		a, b := o[i], o[(i+1)%len(o)]
		th := math.Atan2(b.y-a.y, b.x-a.x)
		sin, cos := math.Sincos(th)
		u0, u1, v0, v1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, p := range o {
			u, v := p.x*cos+p.y*sin, -p.x*sin+p.y*cos
			u0, u1, v0, v1 = math.Min(u0, u), math.Max(u1, u), math.Min(v0, v), math.Max(v1, v)
		}
		if area := (u1 - u0) * (v1 - v0); area < best {
			best, angle = area, th*180/math.Pi
		}
	}
	return math.Remainder(angle, 90), o.area() / best
}

// area is the outline's area (the shoelace formula).
func (o outline) area() float64 {
	var a float64
	for i := range o {
		p, q := o[i], o[(i+1)%len(o)]
		a += p.x*q.y - q.x*p.y
	}
	return math.Abs(a) / 2
}

// mean is the mean grey of s's pixels at or above t inside the outline: the paper's grey.
func (o outline) mean(s *image.Gray, t uint8) uint8 {
	sum, n := 0, 0
	for y := s.Rect.Min.Y; y < s.Rect.Max.Y; y++ {
		x0, x1 := o.span(float64(y) + 0.5)
		for x := max(s.Rect.Min.X, int(math.Ceil(x0-0.5))); x < s.Rect.Max.X && float64(x)+0.5 <= x1; x++ {
			if v := s.Pix[y*s.Stride+x]; v >= t {
				sum, n = sum+int(v), n+1
			}
		}
	}
	if n == 0 {
		return 255
	}
	return uint8(sum / n)
}

// scale multiplies the outline's coordinates.
func (o outline) scale(fx, fy float64) outline {
	out := make(outline, len(o))
	for i, p := range o {
		out[i] = fpoint{p.x * fx, p.y * fy}
	}
	return out
}

// shift moves the outline.
func (o outline) shift(dx, dy int) outline {
	out := make(outline, len(o))
	for i, p := range o {
		out[i] = fpoint{p.x + float64(dx), p.y + float64(dy)}
	}
	return out
}
