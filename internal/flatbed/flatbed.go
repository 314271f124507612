// Package flatbed makes test scans as people make them: a receipt scan placed on an A4 page
// at 300 dpi, as it comes out of a flatbed scanner with the lid open or closed — a dark,
// grey or light background, the receipt off-centre and a little askew, cut off where it is
// longer than the page. Background and placement follow from a seed, so that a test or a
// benchmark sees the same page every run. Tests and bench/receiptcheck use it; the product
// does not.
package flatbed

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"

	_ "image/png" // receipts given as PNG
)

// Page size at 300 dpi.
const (
	Width  = 2480
	Height = 3508
)

// Backgrounds are the grey levels the receipt is put on: an open lid, a dark lid,
// cardboard, a light lid.
var Backgrounds = []uint8{45, 95, 165, 215}

// Place puts the receipt image on an A4 page and answers the page as a JPEG and the
// rectangle the receipt's unrotated box covers on it (clipped to the page).
func Place(receipt []byte, seed string) ([]byte, image.Rectangle, error) {
	src, _, err := image.Decode(bytes.NewReader(receipt))
	if err != nil {
		return nil, image.Rectangle{}, fmt.Errorf("flatbed: %w", err)
	}
	h := fnv.New64a()
	h.Write([]byte(seed))
	rng := rand.New(rand.NewPCG(h.Sum64(), 7))
	bg := Backgrounds[rng.IntN(len(Backgrounds))]
	page := image.NewGray(image.Rect(0, 0, Width, Height))
	for i := range page.Pix {
		page.Pix[i] = uint8(max(0, min(255, int(bg)+rng.IntN(17)-8)))
	}
	b := src.Bounds()
	angle := (rng.Float64()*4 - 2) * math.Pi / 180 // ±2°
	x0 := rng.IntN(max(1, Width-b.Dx()-40)) + 20
	y0 := rng.IntN(max(1, min(300, Height-b.Dy()))) + 10
	if b.Dy() > Height-20 {
		y0 = -rng.IntN(b.Dy() - Height + 40) // longer than the page: cut off
	}
	sin, cos := math.Sincos(angle)
	cx, cy := float64(b.Dx())/2, float64(b.Dy())/2
	for y := range Height {
		for x := range Width {
			// Where (x, y) falls in the receipt, turned about its centre.
			dx, dy := float64(x-x0)-cx, float64(y-y0)-cy
			sx, sy := cos*dx+sin*dy+cx, -sin*dx+cos*dy+cy
			if sx < 0 || sy < 0 || sx >= float64(b.Dx()) || sy >= float64(b.Dy()) {
				continue
			}
			g := color.GrayModel.Convert(src.At(b.Min.X+int(sx), b.Min.Y+int(sy))).(color.Gray)
			page.Pix[y*page.Stride+x] = g.Y
		}
	}
	var out bytes.Buffer
	if err := jpeg.Encode(&out, page, &jpeg.Options{Quality: 85}); err != nil {
		return nil, image.Rectangle{}, fmt.Errorf("flatbed: %w", err)
	}
	at := image.Rect(x0, y0, x0+b.Dx(), y0+b.Dy()).Intersect(page.Rect)
	return out.Bytes(), at, nil
}

// Background is the grey level Place chooses for seed.
func Background(seed string) uint8 {
	h := fnv.New64a()
	h.Write([]byte(seed))
	return Backgrounds[rand.New(rand.NewPCG(h.Sum64(), 7)).IntN(len(Backgrounds))]
}
