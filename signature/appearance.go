package signature

import (
	"bytes"
	"image"
	"image/color"
	_ "image/jpeg" // signature images may be JPEG
	"image/png"
	"os"
	"sync"

	"golang.org/x/image/draw"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/papierkram/papierkram/fault"
)

// appearanceScale is pixels per point of the rendered appearance (about 216 dpi): sharp in
// print, small in the file.
const appearanceScale = 3

// fontFile is the face text lines are drawn with; Liberation Sans is installed by setup.
const fontFile = "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"

var (
	fontOnce sync.Once
	fontData *opentype.Font
)

func face(size float64) font.Face {
	fontOnce.Do(func() {
		if b, err := os.ReadFile(fontFile); err == nil {
			fontData, _ = opentype.Parse(b)
		}
	})
	if fontData != nil {
		if f, err := opentype.NewFace(fontData, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull}); err == nil {
			return f
		}
	}
	return basicfont.Face7x13
}

// appearance renders the visible signature: the optional image at the left, the text lines
// at the right, a thin frame.
func appearance(lines []string, img []byte, wPt, hPt float64) ([]byte, error) {
	w, h := int(wPt*appearanceScale), int(hPt*appearanceScale)
	canvas := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(canvas, canvas.Bounds(), image.White, image.Point{}, draw.Src)
	textLeft := 4 * appearanceScale
	if len(img) > 0 {
		src, _, err := image.Decode(bytes.NewReader(img))
		if err != nil {
			return nil, fault.Wrap(fault.InvalidInput, err, "the signature image is not a PNG or JPEG")
		}
		b := src.Bounds()
		if b.Dx() > 8000 || b.Dy() > 8000 {
			return nil, fault.New(fault.InvalidInput, "the signature image is larger than 8000 pixels")
		}
		// Fit the image into the left part of the box, keeping its aspect ratio.
		boxW, boxH := w/3, h-8
		if len(lines) == 0 {
			boxW = w - 8
		}
		scale := min(float64(boxW)/float64(b.Dx()), float64(boxH)/float64(b.Dy()))
		dw, dh := int(float64(b.Dx())*scale), int(float64(b.Dy())*scale)
		dst := image.Rect(4, (h-dh)/2, 4+dw, (h-dh)/2+dh)
		draw.CatmullRom.Scale(canvas, dst, src, b, draw.Over, nil)
		textLeft = dst.Max.X + 4*appearanceScale
	}
	if len(lines) > 0 {
		size := min(float64(h)/float64(len(lines))*0.7, 14*appearanceScale)
		f := face(size)
		defer f.Close()
		d := font.Drawer{Dst: canvas, Src: image.NewUniform(color.RGBA{0x11, 0x22, 0x55, 0xff}), Face: f}
		lineH := float64(h) / float64(len(lines))
		for i, line := range lines {
			d.Dot = fixed.P(textLeft, int(lineH*float64(i)+lineH*0.72))
			d.DrawString(line)
		}
	}
	frame := color.RGBA{0x99, 0x99, 0x99, 0xff}
	for x := 0; x < w; x++ {
		canvas.Set(x, 0, frame)
		canvas.Set(x, h-1, frame)
	}
	for y := 0; y < h; y++ {
		canvas.Set(0, y, frame)
		canvas.Set(w-1, y, frame)
	}
	var out bytes.Buffer
	if err := png.Encode(&out, canvas); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
