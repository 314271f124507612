package receipt

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"slices"
	"testing"

	"golang.org/x/image/tiff"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testtool"
)

func corpusImage(t testing.TB) (*image.Gray, []byte) {
	data, err := os.ReadFile(scans + "/aldi_02032020_19_02423.jpg")
	if err != nil {
		t.Fatal(err)
	}
	g, err := decodeImage(data)
	if err != nil {
		t.Fatal(err)
	}
	return g, data
}

// TestSkew: a scan turned by a few degrees is measured back to that angle.
func TestSkew(t *testing.T) {
	g, _ := corpusImage(t)
	base := skew(g)
	for _, deg := range []float64{-3, 2.5} {
		if got := skew(rotate(g, -deg)); math.Abs(got-base-deg) > 0.4 {
			t.Errorf("turned by %v°: skew %v (upright %v)", deg, got, base)
		}
	}
}

// TestQualityHints: a darkened, a blurred and a tiny copy of a good scan each get their
// hint; the scan itself gets none of them.
func TestQualityHints(t *testing.T) {
	g, _ := corpusImage(t)
	if q := assess(g); slices.Contains(q.Hints, HintDark) || slices.Contains(q.Hints, HintBlurred) || q.Width != 896 {
		t.Errorf("good scan: %+v", q)
	}
	dark := image.NewGray(g.Rect)
	for i, p := range g.Pix {
		dark.Pix[i] = p / 5
	}
	if q := assess(dark); !slices.Contains(q.Hints, HintDark) {
		t.Errorf("dark: %+v", q)
	}
	blurred := scale(scale(g, 0.15), 1/0.15)
	if q := assess(blurred); !slices.Contains(q.Hints, HintBlurred) {
		t.Errorf("blurred: %+v", q)
	}
	if q := assess(scale(g, 0.3)); !slices.Contains(q.Hints, HintLowResolution) {
		t.Errorf("small: %+v", q)
	}
}

// TestTurn: four quarter turns are the identity; one swaps width and height.
func TestTurn(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 3, 2))
	g.Pix = []uint8{1, 2, 3, 4, 5, 6}
	r := turn(g, 90)
	if r.Rect.Dx() != 2 || r.Rect.Dy() != 3 || r.Pix[0] != 4 || r.Pix[1] != 1 {
		t.Errorf("90: %v %v", r.Rect, r.Pix)
	}
	if back := turn(turn(turn(r, 90), 90), 90); !bytes.Equal(back.Pix, g.Pix) {
		t.Errorf("360: %v", back.Pix)
	}
}

// TestDecodeImage: bombs and garbage are the caller's fault.
func TestDecodeImage(t *testing.T) {
	// A JPEG header claiming 30000×30000 pixels.
	var buf bytes.Buffer
	small := image.NewGray(image.Rect(0, 0, 20, 20))
	for i := range small.Pix {
		small.Pix[i] = 200
	}
	_ = jpeg.Encode(&buf, small, nil)
	b := buf.Bytes()
	for i := 0; i+8 < len(b); i++ {
		if b[i] == 0xFF && b[i+1] == 0xC0 { // SOF0: height and width follow the precision
			b[i+5], b[i+6], b[i+7], b[i+8] = 0x75, 0x30, 0x75, 0x30
		}
	}
	for name, data := range map[string][]byte{"bomb": b, "garbage": []byte("\xff\xd8\xff\xe0garbage"), "tiny": tinyPNG()} {
		if _, err := decodeImage(data); fault.CodeOf(err) != fault.InvalidInput {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func tinyPNG() []byte {
	img := image.NewGray(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.Black)
	g, _ := encodePNG(img)
	return g
}

// FuzzImage: any bytes sniff and decode without panic, and what decodes is assessable.
func FuzzImage(f *testing.F) {
	_, data := corpusImage(f)
	f.Add(data[:2000])
	f.Add(tinyPNG())
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8 "))
	f.Add([]byte("II*\x00\x08\x00\x00\x00"))
	f.Add(testtool.TIFF([]testtool.TIFFPage{{W: 64, H: 64, DPI: 200}, {W: 70, H: 50, DPI: 200}}, false))
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := Sniff(b); err != nil {
			return
		}
		g, err := decodeImage(b)
		if err != nil {
			if fault.CodeOf(err) != fault.InvalidInput {
				t.Errorf("code %s: %v", fault.CodeOf(err), err)
			}
			return
		}
		// The further pages of a TIFF decode or fail as the caller's fault.
		pages, err := tiffPages(b)
		if err != nil && fault.CodeOf(err) != fault.InvalidInput {
			t.Errorf("pages: code %s: %v", fault.CodeOf(err), err)
		}
		for _, d := range pages {
			if cfg, err := tiff.DecodeConfig(d.Page()); err != nil || cfg.Width*cfg.Height > 1_000_000 {
				continue // large pages cost the fuzzer's time, not a different path
			}
			if _, err := decodeTIFFPage(d); err != nil && fault.CodeOf(err) != fault.InvalidInput {
				t.Errorf("page: code %s: %v", fault.CodeOf(err), err)
			}
		}
		if g.Rect.Dx()*g.Rect.Dy() < 5_000_000 {
			assess(g)
			skew(g)
			if p, ok := findPaper(g); ok {
				if !p.box.In(g.Rect) || p.box.Empty() {
					t.Errorf("paper %v outside the image %v", p.box, g.Rect)
				}
				p.cut(g)
			}
		}
	})
}

// TestToGrayYCbCr: the fast path for JPEG's YCbCr gives color.GrayModel's grey, pixel for
// pixel, for every subsampling.
func TestToGrayYCbCr(t *testing.T) {
	for _, ratio := range []image.YCbCrSubsampleRatio{image.YCbCrSubsampleRatio444, image.YCbCrSubsampleRatio422, image.YCbCrSubsampleRatio420, image.YCbCrSubsampleRatio440, image.YCbCrSubsampleRatio411, image.YCbCrSubsampleRatio410} {
		yc := image.NewYCbCr(image.Rect(3, 5, 40, 31), ratio)
		for i := range yc.Y {
			yc.Y[i] = uint8(i * 7)
		}
		for i := range yc.Cb {
			yc.Cb[i], yc.Cr[i] = uint8(i*13), uint8(255-i*5)
		}
		g := toGray(yc)
		b := yc.Bounds()
		for y := 0; y < b.Dy(); y++ {
			for x := 0; x < b.Dx(); x++ {
				want := color.GrayModel.Convert(yc.At(b.Min.X+x, b.Min.Y+y)).(color.Gray).Y
				if got := g.GrayAt(x, y).Y; got != want {
					t.Fatalf("%v (%d,%d): %d, want %d", ratio, x, y, got, want)
				}
			}
		}
	}
}

// TestCompactPNG: the engines' uncompressed PNG is compacted, pixel for pixel the same, to
// leave the process; what is no PNG passes as it is.
func TestCompactPNG(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 300, 200))
	for i := range g.Pix {
		g.Pix[i] = uint8(200 + i%7)
	}
	raw, err := encodePNG(g)
	if err != nil {
		t.Fatal(err)
	}
	small := compactPNG(raw)
	if len(small) >= len(raw)/2 {
		t.Fatalf("compacted %d bytes of %d", len(small), len(raw))
	}
	back, err := png.Decode(bytes.NewReader(small))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(toGray(back).Pix, g.Pix) {
		t.Fatal("the compacted image differs")
	}
	if jpeg := []byte("\xff\xd8\xff\xe0 not a png"); !bytes.Equal(compactPNG(jpeg), jpeg) {
		t.Fatal("a JPEG was changed")
	}
}

// TestBinarize: print on paper shaded from white to dark grey (a faded, unevenly lit
// receipt) comes out black on white across the shade, where one global threshold would
// take the dark end's paper for ink.
func TestBinarize(t *testing.T) {
	const w, h = 600, 200
	g := image.NewGray(image.Rect(0, 0, w, h))
	ink := func(x, y int) bool { return y%20 >= 8 && y%20 < 12 && x%10 < 6 } // text-like rows of dashes
	for y := range h {
		for x := range w {
			paper := 250 - 130*x/w // 250 at the left, 120 at the right
			v := paper
			if ink(x, y) {
				v = paper - 70
			}
			g.Pix[y*g.Stride+x] = uint8(v)
		}
	}
	b := binarize(g, binRadius, binK)
	wrong := 0
	for y := range h {
		for x := range w {
			if v := b.Pix[y*b.Stride+x]; v != 0 && v != 255 || (v == 0) != ink(x, y) {
				wrong++
			}
		}
	}
	if wrong > w*h/100 {
		t.Errorf("%d of %d pixels wrong", wrong, w*h)
	}
	// The dark end's paper (120) is darker than the light end's ink (180): a global
	// threshold (Otsu's, as Tesseract's) gets many wrong.
	t1, _ := otsu(g, g.Rect)
	global := 0
	for y := range h {
		for x := range w {
			if (g.Pix[y*g.Stride+x] < t1) != ink(x, y) {
				global++
			}
		}
	}
	if global < w*h/10 {
		t.Errorf("a global threshold gets only %d of %d pixels wrong: the test image is too easy", global, w*h)
	}
}

// TestBinarizeIsSauvola: the sliding sums give Sauvola's threshold exactly as its
// definition does, window by window, at the image's edges and corners too (windows cut
// short), on images narrower and shorter than the window and on noise, where any slip
// in adding or dropping a row or column shows.
func TestBinarizeIsSauvola(t *testing.T) {
	naive := func(g *image.Gray, r int, k float64, x, y int) uint8 {
		var s, q, n float64
		for yy := max(0, y-r); yy < min(g.Rect.Dy(), y+r+1); yy++ {
			for xx := max(0, x-r); xx < min(g.Rect.Dx(), x+r+1); xx++ {
				v := float64(g.Pix[yy*g.Stride+xx])
				s, q, n = s+v, q+v*v, n+1
			}
		}
		m := s / n
		if float64(g.Pix[y*g.Stride+x]) > m*(1+k*(math.Sqrt(math.Max(0, q/n-m*m))/128-1)) {
			return 255
		}
		return 0
	}
	seed := uint32(7)
	for _, c := range []struct{ w, h, r int }{{60, 40, 5}, {60, 40, 25}, {7, 3, 25}, {1, 90, 4}, {90, 1, 4}, {33, 51, 0}} {
		g := image.NewGray(image.Rect(0, 0, c.w, c.h))
		for i := range g.Pix {
			seed = seed*1664525 + 1013904223
			g.Pix[i] = uint8(seed >> 24)
			if i%7 < 3 {
				g.Pix[i] /= 3 // darker runs, so both sides of the threshold occur
			}
		}
		b := binarize(g, c.r, binK)
		wrong, ink := 0, 0
		for y := range c.h {
			for x := range c.w {
				if b.Pix[y*b.Stride+x] != naive(g, c.r, binK, x, y) {
					wrong++
				}
				if b.Pix[y*b.Stride+x] == 0 {
					ink++
				}
			}
		}
		if wrong > 0 || ink == 0 || ink == c.w*c.h {
			t.Errorf("%d×%d, radius %d: %d pixels differ from the definition (%d ink)", c.w, c.h, c.r, wrong, ink)
		}
	}
}

// TestUpright: each EXIF orientation turns the stored pixels as a viewer shows them
// (displayed(x, y) as the orientation's definition reads the stored image).
func TestUpright(t *testing.T) {
	const w, h = 3, 2
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = uint8(10 + i)
	}
	at := func(x, y int) uint8 { return g.Pix[y*g.Stride+x] }
	for o, shown := range map[int]func(x, y int) uint8{
		1: func(x, y int) uint8 { return at(x, y) },
		2: func(x, y int) uint8 { return at(w-1-x, y) },
		3: func(x, y int) uint8 { return at(w-1-x, h-1-y) },
		4: func(x, y int) uint8 { return at(x, h-1-y) },
		5: func(x, y int) uint8 { return at(y, x) },
		6: func(x, y int) uint8 { return at(y, h-1-x) },
		7: func(x, y int) uint8 { return at(w-1-y, h-1-x) },
		8: func(x, y int) uint8 { return at(w-1-y, x) },
	} {
		u := upright(g, o)
		dw, dh := w, h
		if o >= 5 {
			dw, dh = h, w
		}
		if u.Rect.Dx() != dw || u.Rect.Dy() != dh {
			t.Fatalf("orientation %d: %v", o, u.Rect)
		}
		for y := range dh {
			for x := range dw {
				if got, want := u.Pix[y*u.Stride+x], shown(x, y); got != want {
					t.Errorf("orientation %d: (%d, %d) is %d, want %d", o, x, y, got, want)
				}
			}
		}
	}
}

// TestPhotoOnItsSide: a receipt photo stored on its side with EXIF orientation 6, as a
// phone stores it, is read upright: its total as the upright scan's, with no turn of
// Tesseract's orientation detection needed.
func TestPhotoOnItsSide(t *testing.T) {
	g, _ := corpusImage(t)
	var b bytes.Buffer
	if err := jpeg.Encode(&b, turn(g, 270), &jpeg.Options{Quality: 92}); err != nil {
		t.Fatal(err)
	}
	p := testtool.File(t, "side.jpg", b.Bytes())
	testtool.Run(t, "exiftool", "-q", "-overwrite_original", "-Orientation#=6", p)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newExtractor(t).Extract(t.Context(), data, "side.jpg")
	if err != nil {
		t.Fatal(err)
	}
	if r.Data.Gross.String() != "24.23" || r.Quality.Rotated != 0 {
		t.Errorf("total %s, turned %d°; want 24.23, read upright", r.Data.Gross, r.Quality.Rotated)
	}
}

// TestHalveLarge: an image over largePixels is halved, each pixel the mean of its four,
// also when it is a part of a larger one (a receipt cut out of a page); a phone's photo is
// read as it is.
func TestHalveLarge(t *testing.T) {
	photo := image.NewGray(image.Rect(0, 0, 4032, 3024))
	if halveLarge(photo) != photo {
		t.Error("a 12 megapixel photo was resized")
	}
	page := image.NewGray(image.Rect(0, 0, 4962, 7018))
	for y := range 7018 {
		for x := range 4962 {
			page.Pix[y*page.Stride+x] = uint8((x%2)*100 + (y%2)*50) // 0, 100, 50, 150 → 75
		}
	}
	page.Pix[0] = 255
	part := page.SubImage(image.Rect(2, 2, 4962, 7018)).(*image.Gray)
	for _, c := range []struct {
		g    *image.Gray
		w, h int
	}{{page, 2481, 3509}, {part, 2480, 3508}} {
		got := halveLarge(c.g)
		if got.Rect.Dx() != c.w || got.Rect.Dy() != c.h {
			t.Fatalf("%v halved to %v", c.g.Rect, got.Rect)
		}
		if v := got.Pix[got.Stride+1]; v != 75 {
			t.Errorf("%v: a pixel the mean of 0, 100, 50 and 150 is %d", c.g.Rect, v)
		}
	}
	if v := halveLarge(page).Pix[0]; v != (255+100+50+150+2)/4 {
		t.Errorf("the corner: %d", v)
	}
}
