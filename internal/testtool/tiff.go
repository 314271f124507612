package testtool

import (
	"encoding/binary"
	"image"
)

// TIFFPage is a page of TIFF: 8-bit grey, uncompressed. Its pixels are Image's, or a
// pattern of W x H when Image is nil. With Claim set, its directory says it has Claim[0] x
// Claim[1] pixels (a damaged or hostile file).
type TIFFPage struct {
	W, H, DPI int
	Image     *image.Gray
	Claim     [2]int
}

// TIFF writes a TIFF with a page each, written byte by byte (golang.org/x/image/tiff
// writes one page only); loop makes the last directory point back to the first.
func TIFF(pages []TIFFPage, loop bool) []byte {
	bo := binary.LittleEndian
	b := []byte("II*\x00\x00\x00\x00\x00")
	var dirs []int
	for _, p := range pages {
		pix := len(b)
		if p.Image != nil {
			p.W, p.H = p.Image.Rect.Dx(), p.Image.Rect.Dy()
			for y := range p.H {
				o := p.Image.PixOffset(p.Image.Rect.Min.X, p.Image.Rect.Min.Y+y)
				b = append(b, p.Image.Pix[o:o+p.W]...)
			}
		} else {
			for y := range p.H {
				for x := range p.W {
					b = append(b, byte((x+y)%256))
				}
			}
		}
		if len(b)%2 == 1 {
			b = append(b, 0)
		}
		res := len(b)
		b = bo.AppendUint32(bo.AppendUint32(b, uint32(p.DPI)), 1)
		if p.Claim[0] > 0 {
			p.W, p.H = p.Claim[0], p.Claim[1]
		}
		entries := [][3]uint32{
			{256, 4, uint32(p.W)}, {257, 4, uint32(p.H)}, {258, 3, 8}, {259, 3, 1}, {262, 3, 1},
			{273, 4, uint32(pix)}, {277, 3, 1}, {278, 4, uint32(p.H)}, {279, 4, uint32(p.W * p.H)},
			{282, 5, uint32(res)}, {283, 5, uint32(res)}, {296, 3, 2},
		}
		dirs = append(dirs, len(b))
		b = bo.AppendUint16(b, uint16(len(entries)))
		for _, e := range entries {
			b = bo.AppendUint16(b, uint16(e[0]))
			b = bo.AppendUint16(b, uint16(e[1]))
			b = bo.AppendUint32(b, 1)
			if e[1] == 3 {
				b = bo.AppendUint16(bo.AppendUint16(b, uint16(e[2])), 0)
			} else {
				b = bo.AppendUint32(b, e[2])
			}
		}
		b = bo.AppendUint32(b, 0) // next, set below
	}
	bo.PutUint32(b[4:], uint32(dirs[0]))
	for i, d := range dirs {
		next := 0
		if i+1 < len(dirs) {
			next = dirs[i+1]
		} else if loop {
			next = dirs[0]
		}
		bo.PutUint32(b[d+2+12*12:], uint32(next))
	}
	return b
}
