package receipt

import (
	"image"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/papierkram/papierkram/internal/flatbed"
)

// TestFindPaper: a corpus receipt placed on an A4 page (internal/flatbed) is found on every
// background that differs from paper, with its whole box and little more; on a light lid it
// may stay unfound, but is never cut. A cropped scan and a text page are left whole.
func TestFindPaper(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(scans, "*.jpg"))
	if err != nil || len(files) < 20 {
		t.Fatalf("corpus: %d files, %v", len(files), err)
	}
	placed := 0
	for _, f := range files[:12] {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := decodeImage(data)
		if err != nil {
			t.Fatal(err)
		}
		if p, ok := findPaper(g); ok {
			t.Errorf("%s: a cropped scan is cut to %v of %v", filepath.Base(f), p.box, g.Rect)
		}
		for _, seed := range []string{f, f + "/2"} {
			page, at, err := flatbed.Place(data, seed)
			if err != nil {
				t.Fatal(err)
			}
			pg, err := decodeImage(page)
			if err != nil {
				t.Fatal(err)
			}
			p, ok := findPaper(pg)
			r := p.box
			bg := flatbed.Background(seed)
			switch {
			case !ok && bg < 200:
				t.Errorf("%s on background %d: the receipt at %v is not found", filepath.Base(f), bg, at)
			case !ok:
				// A receipt on a light lid: read on the page as it is.
			case area(r.Intersect(at)) < area(at)*97/100:
				t.Errorf("%s on background %d: box %v cuts the receipt at %v", filepath.Base(f), bg, r, at)
			case area(r) > area(at)*120/100:
				t.Errorf("%s on background %d: box %v is much larger than the receipt at %v", filepath.Base(f), bg, r, at)
			default:
				placed++
			}
		}
	}
	if placed < 12 {
		t.Errorf("only %d of 24 placed receipts cut out", placed)
	}
	// A white page with text (an invoice's scan) is paper all over.
	page := image.NewGray(image.Rect(0, 0, 1240, 1754))
	for i := range page.Pix {
		page.Pix[i] = 250
	}
	for y := 200; y < 1500; y += 40 {
		for x := 150; x < 1100; x++ {
			for dy := range 12 {
				if (x/9)%3 != 0 {
					page.Pix[(y+dy)*page.Stride+x] = 30
				}
			}
		}
	}
	if p, ok := findPaper(page); ok {
		t.Errorf("a text page is cut to %v", p.box)
	}
}

func area(r image.Rectangle) int { return r.Dx() * r.Dy() }

// plain is a grey image of w × h pixels, all of level v.
func plain(w, h int, v uint8) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = v
	}
	return g
}

// fillRect paints the pixels from x0, y0 up to x1, y1 (excluded) of g at level v.
func fillRect(g *image.Gray, x0, y0, x1, y1 int, v uint8) {
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			g.Pix[y*g.Stride+x] = v
		}
	}
}

// TestPaperPastBarcode: a receipt whose barcode runs across the paper above its last lines
// (Lidl's: the date and time under the barcode), on a grey lid, is found down to its bottom
// edge: the dark band splits the bright region, and the part under it is paper too.
func TestPaperPastBarcode(t *testing.T) {
	const name = "lidl_02032020_02_00716.jpg"
	data, err := os.ReadFile(filepath.Join(scans, name))
	if err != nil {
		t.Fatal(err)
	}
	page, at, err := flatbed.Place(data, name)
	if err != nil {
		t.Fatal(err)
	}
	if bg := flatbed.Background(name); bg >= 200 {
		t.Fatalf("background %d: the test wants a receipt on a grey lid", bg)
	}
	g, err := decodeImage(page)
	if err != nil {
		t.Fatal(err)
	}
	p, ok := findPaper(g)
	r := p.box
	switch {
	case !ok:
		t.Errorf("the receipt at %v is not found", at)
	case area(r.Intersect(at)) < area(at)*97/100:
		t.Errorf("box %v cuts the receipt at %v", r, at)
	case area(r) > area(at)*120/100:
		t.Errorf("box %v is much larger than the receipt at %v", r, at)
	}
	// A synthetic band: paper, a black band with the paper's margins beside it, paper again,
	// on a dark background; and the same band at the paper's end, with nothing after it.
	s := plain(100, 200, 60)
	fill := func(x0, y0, x1, y1 int, v uint8) { fillRect(s, x0, y0, x1, y1, v) }
	fill(20, 20, 80, 150, 240)
	fill(25, 100, 75, 115, 20) // the barcode
	if got := extendPaper(s, image.Rect(20, 20, 80, 100), 150); got != image.Rect(20, 20, 80, 150) {
		t.Errorf("paper under a band: box %v, want (20,20)-(80,150)", got)
	}
	fill(20, 115, 80, 150, 60) // no paper under the band
	if got := extendPaper(s, image.Rect(20, 20, 80, 100), 150); got != image.Rect(20, 20, 80, 100) {
		t.Errorf("a band at the paper's end: box %v, want (20,20)-(80,100)", got)
	}
}

// TestPaperAskewOnWood: a receipt photographed turned 14° on a table whose grain is as dark
// as print is found by its outline (its box holds as much wood as paper), cut out with the
// wood around it painted in the paper's grey, and turned upright: its text rows lie level.
// One lying straight is cut out by its box, as it lies.
func TestPaperAskewOnWood(t *testing.T) {
	for _, deg := range []float64{14, -12, 0} {
		const w, h, pw, ph = 900, 1200, 380, 700
		g := image.NewGray(image.Rect(0, 0, w, h))
		sin, cos := math.Sincos(deg * math.Pi / 180)
		for y := range h {
			for x := range w {
				// The paper's own coordinates: turned back about the image's centre.
				dx, dy := float64(x-w/2), float64(y-h/2)
				u, v := cos*dx-sin*dy+pw/2, sin*dx+cos*dy+ph/2
				switch {
				case u < 0 || v < 0 || u >= pw || v >= ph:
					// Wood: grain along the image's x axis, dark streaks and light ones.
					g.Pix[y*g.Stride+x] = uint8(95 + 40*math.Sin(float64(y)/3+math.Sin(float64(x)/40)))
				case u >= 30 && u < pw-30 && int(v)%28 < 9 && v >= 40 && v < ph-40 && int(u)%23 < 17:
					g.Pix[y*g.Stride+x] = 40 // a row of print, glyphs with gaps
				default:
					g.Pix[y*g.Stride+x] = 225
				}
			}
		}
		p, ok := findPaper(g)
		if !ok {
			t.Errorf("%v°: the paper is not found", deg)
			continue
		}
		if deg == 0 {
			if p.outline != nil || p.box.Dx() > 400 || p.box.Dy() > 740 {
				t.Errorf("a straight paper: box %v, outline %v", p.box, p.outline)
			}
			continue
		}
		if math.Abs(math.Abs(p.tilt)-math.Abs(deg)) > 1.5 {
			t.Errorf("%v°: tilt %.1f", deg, p.tilt)
		}
		c := p.cut(g)
		if a := skew(c); math.Abs(a) > 1 {
			t.Errorf("%v°: the cut paper's rows lie at %.1f°", deg, a)
		}
		// No wood is left in the corners of the paper's box: they are painted in its grey.
		cw, ch := c.Rect.Dx()/12, c.Rect.Dy()/12
		for _, at := range []image.Point{{0, 0}, {c.Rect.Dx() - cw, 0}, {0, c.Rect.Dy() - ch}, {c.Rect.Dx() - cw, c.Rect.Dy() - ch}} {
			dark := 0
			for y := at.Y; y < at.Y+ch; y++ {
				for x := at.X; x < at.X+cw; x++ {
					if c.Pix[y*c.Stride+x] < 150 {
						dark++
					}
				}
			}
			if dark > cw*ch/20 {
				t.Errorf("%v°: the corner at %v is %d of %d pixels dark (wood left)", deg, at, dark, cw*ch)
			}
		}
	}
}

// TestPaperInShade: a receipt photographed lit from one end, its far half darker than the
// threshold that parts the bright paper from the table, is found to its end: its columns
// stand well above the table beside them all along; a second, dim paper beyond its end,
// barely above the table, is left out. findPaper on the whole photo keeps the shaded half.
func TestPaperInShade(t *testing.T) {
	s := plain(120, 300, 60)
	fillRect(s, 20, 0, 100, 150, 220) // the lit half of the receipt
	for y := 150; y < 260; y++ {
		fillRect(s, 0, y, 120, y+1, uint8(60-(y-150)/5))     // the table, darker away from the light
		fillRect(s, 20, y, 100, y+1, uint8(200-(y-150)*3/4)) // the paper in shade: 200 down to 118
	}
	fillRect(s, 20, 260, 100, 300, 55) // beyond its end: a dim paper, barely above the table
	if got, want := extendShaded(s, image.Rect(20, 0, 100, 150)), image.Rect(20, 0, 100, 260); got != want {
		t.Errorf("box %v, want %v", got, want)
	}
	g := plain(1200, 3000, 60)
	for y := range 3000 {
		sy := y / 10
		for x := range 1200 {
			g.Pix[y*g.Stride+x] = s.Pix[sy*s.Stride+x/10]
		}
	}
	p, ok := findPaper(g)
	if want := image.Rect(200, 0, 1000, 2600); !ok || area(p.box.Intersect(want)) < area(want)*97/100 || area(p.box) > area(want)*110/100 {
		t.Errorf("findPaper: %v (%v), want about %v", p.box, ok, want)
	}
}

// TestPaperBesideCloth: a receipt on a table, a grey cloth brighter than the table touching
// its side (rc13, #20: a Shell receipt beside a cloth): both lie above the threshold that
// splits them from the table, and the paper is the brighter part, a rectangle.
func TestPaperBesideCloth(t *testing.T) {
	s := plain(216, 288, 110)
	fillRect(s, 150, 0, 216, 150, 165) // the cloth, beside the paper's upper half
	fillRect(s, 60, 20, 150, 270, 215) // the paper
	for y := 30; y < 260; y += 6 {
		fillRect(s, 70, y, 140, y+2, 120) // its lines of text
	}
	g := plain(2160, 2880, 60)
	for y := range 2880 {
		for x := range 2160 {
			g.Pix[y*g.Stride+x] = s.Pix[(y/10)*s.Stride+x/10]
		}
	}
	p, ok := findPaper(g)
	if want := image.Rect(600, 200, 1500, 2700); !ok || area(p.box.Intersect(want)) < area(want)*97/100 || area(p.box) > area(want)*110/100 {
		t.Errorf("findPaper: %v (%v), want about %v", p.box, ok, want)
	}
}
