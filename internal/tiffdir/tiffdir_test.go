package tiffdir

import (
	"errors"
	"image"
	"io"
	"testing"

	"golang.org/x/image/tiff"

	"github.com/papierkram/papierkram/internal/testtool"
)

// gray is a w x h image of one level.
func gray(w, h int, level byte) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = level
	}
	return g
}

// TestPagesDecode: each page of a three-page file decodes, through Page, to its own size
// and pixels, with its own resolution; the file's bytes are not changed.
func TestPagesDecode(t *testing.T) {
	pages := []testtool.TIFFPage{{Image: gray(30, 20, 10), DPI: 200}, {Image: gray(25, 40, 120), DPI: 300}, {Image: gray(12, 12, 250), DPI: 150}}
	b := testtool.TIFF(pages, false)
	before := string(b)
	f, ok := Open(b)
	if !ok {
		t.Fatal("not a TIFF")
	}
	dirs, err := f.Pages(10)
	if err != nil || len(dirs) != 3 {
		t.Fatalf("pages: %d, %v", len(dirs), err)
	}
	for i, d := range dirs {
		img, err := tiff.Decode(d.Page())
		if err != nil {
			t.Fatalf("page %d: %v", i+1, err)
		}
		want := pages[i].Image
		if img.Bounds() != want.Bounds() {
			t.Errorf("page %d is %v, want %v", i+1, img.Bounds(), want.Bounds())
			continue
		}
		if g, ok := img.(*image.Gray); !ok || g.Pix[0] != want.Pix[0] {
			t.Errorf("page %d has other pixels", i+1)
		}
		if r := d.Resolution(); r[0] != float64(pages[i].DPI) {
			t.Errorf("page %d: %v dpi", i+1, r)
		}
	}
	if string(b) != before {
		t.Error("reading the pages changed the file")
	}
}

// TestPagesBounded: a chain in a circle, more pages than allowed, a directory past the end.
func TestPagesBounded(t *testing.T) {
	two := []testtool.TIFFPage{{W: 4, H: 4, DPI: 100}, {W: 4, H: 4, DPI: 100}}
	f, _ := Open(testtool.TIFF(two, true))
	if _, err := f.Pages(10); !errors.Is(err, ErrCircle) {
		t.Errorf("circle: %v", err)
	}
	f, _ = Open(testtool.TIFF(two, false))
	var many *TooManyError
	if _, err := f.Pages(1); !errors.As(err, &many) || many.Max != 1 {
		t.Errorf("too many: %v", err)
	}
	b := testtool.TIFF(two, false)
	f, _ = Open(b[:len(b)-20])
	if _, err := f.Pages(10); err == nil {
		t.Error("a truncated directory was read")
	}
	if _, ok := Open([]byte("%PDF-1.7")); ok {
		t.Error("a PDF opened as a TIFF")
	}
}

// TestPageReader: the replaced header is read at offsets 0 to 7, the file after it, and
// reads at and past the end say io.EOF.
func TestPageReader(t *testing.T) {
	b := testtool.TIFF([]testtool.TIFFPage{{W: 4, H: 4, DPI: 100}, {W: 2, H: 2, DPI: 100}}, false)
	f, _ := Open(b)
	dirs, _ := f.Pages(2)
	r := dirs[1].Page()
	all, err := io.ReadAll(r)
	if err != nil || len(all) != len(b) {
		t.Fatalf("read %d of %d: %v", len(all), len(b), err)
	}
	g, _ := Open(all)
	if g.First() != dirs[1].Offset || string(all[8:]) != string(b[8:]) {
		t.Errorf("first directory %d, want %d", g.First(), dirs[1].Offset)
	}
	p := make([]byte, 4)
	if n, err := r.ReadAt(p, 6); n != 4 || string(p[:2]) != string(all[6:8]) || err != nil {
		t.Errorf("read across the header: %d %v", n, err)
	}
	if _, err := r.ReadAt(p, int64(len(b))); err != io.EOF {
		t.Errorf("at the end: %v", err)
	}
}

// FuzzPages: any bytes are walked in bounded time without a panic, and every page found
// reads back through Page with the file's length.
func FuzzPages(f *testing.F) {
	f.Add(testtool.TIFF([]testtool.TIFFPage{{W: 4, H: 2, DPI: 100}, {W: 2, H: 4, DPI: 50}}, false))
	f.Add(testtool.TIFF([]testtool.TIFFPage{{W: 4, H: 4, DPI: 100}, {W: 4, H: 4, DPI: 100}}, true))
	f.Add([]byte("MM\x00*\x00\x00\x00\x08\x00\x01"))
	f.Fuzz(func(t *testing.T, b []byte) {
		file, ok := Open(b)
		if !ok {
			return
		}
		dirs, err := file.Pages(50)
		if err != nil {
			return
		}
		for _, d := range dirs {
			d.Resolution()
			d.Uint(256)
			all, err := io.ReadAll(d.Page())
			if err != nil || len(all) != len(b) {
				t.Fatalf("page reads %d of %d bytes: %v", len(all), len(b), err)
			}
		}
	})
}
