package tiffdir

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// File is a TIFF file's bytes and byte order.
type File struct {
	b  []byte
	bo binary.ByteOrder
}

// Open answers the TIFF in b, and false when b does not start as a TIFF does.
func Open(b []byte) (File, bool) {
	switch {
	case bytes.HasPrefix(b, []byte("II*\x00")):
		return File{b, binary.LittleEndian}, true
	case bytes.HasPrefix(b, []byte("MM\x00*")):
		return File{b, binary.BigEndian}, true
	}
	return File{}, false
}

// First is the offset of the first image directory (0 if there is none).
func (f File) First() uint32 {
	if len(f.b) < 8 {
		return 0
	}
	return f.bo.Uint32(f.b[4:])
}

// Dir is an image directory: tag -> type, count and value (or the value's offset).
type Dir struct {
	f      File
	Offset uint32
	m      map[uint16][3]uint32
}

// Read reads the directory at off and answers the offset of the next (0 at the last).
func (f File) Read(off uint32) (Dir, uint32, error) {
	d := Dir{f: f, Offset: off, m: map[uint16][3]uint32{}}
	o := int(off)
	if o < 8 || o+2 > len(f.b) {
		return d, 0, errors.New("a directory lies outside the file")
	}
	n := int(f.bo.Uint16(f.b[o:]))
	if o+2+12*n+4 > len(f.b) {
		return d, 0, errors.New("a directory runs past the end of the file")
	}
	for k := range n {
		e := f.b[o+2+12*k:]
		d.m[f.bo.Uint16(e)] = [3]uint32{uint32(f.bo.Uint16(e[2:])), f.bo.Uint32(e[4:]), f.bo.Uint32(e[8:])}
	}
	return d, f.bo.Uint32(f.b[o+2+12*n:]), nil
}

// ErrCircle is a chain of directories that comes back to one it passed.
var ErrCircle = errors.New("its pages run in a circle")

// TooManyError is a file with more pages than the caller allows.
type TooManyError struct{ Max int }

func (e *TooManyError) Error() string { return fmt.Sprintf("it has more than %d pages", e.Max) }

// Pages reads the directories of every page, in order, at most max of them (a
// *TooManyError beyond). A damaged directory or ErrCircle ends the walk with an error.
func (f File) Pages(max int) ([]Dir, error) {
	var out []Dir
	seen := map[uint32]bool{}
	for off := f.First(); off != 0 && int(off) < len(f.b); {
		if seen[off] {
			return nil, ErrCircle
		}
		seen[off] = true
		if len(out) >= max {
			return nil, &TooManyError{Max: max}
		}
		d, next, err := f.Read(off)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
		off = next
	}
	return out, nil
}

// Uint is the value of a SHORT or LONG entry.
func (d Dir) Uint(tag uint16) (uint32, bool) {
	v, ok := d.m[tag]
	if !ok || v[1] != 1 {
		return 0, false
	}
	switch v[0] {
	case 3: // SHORT, left-justified in the value field
		var b [4]byte
		d.f.bo.PutUint32(b[:], v[2])
		return uint32(d.f.bo.Uint16(b[:])), true
	case 4:
		return v[2], true
	}
	return 0, false
}

// Rational is the value of a RATIONAL entry, or 0.
func (d Dir) Rational(tag uint16) float64 {
	v, ok := d.m[tag]
	if !ok || v[0] != 5 || v[1] != 1 || int64(v[2])+8 > int64(len(d.f.b)) {
		return 0
	}
	num, den := d.f.bo.Uint32(d.f.b[v[2]:]), d.f.bo.Uint32(d.f.b[v[2]+4:])
	if den == 0 {
		return 0
	}
	return float64(num) / float64(den)
}

// Resolution is the directory's resolution in dots per inch, or zeros.
func (d Dir) Resolution() [2]float64 {
	x, y := d.Rational(282), d.Rational(283)
	unit, ok := d.Uint(296)
	switch {
	case !ok || unit == 2:
		return [2]float64{x, y}
	case unit == 3:
		return [2]float64{x * 2.54, y * 2.54}
	}
	return [2]float64{}
}

// Page is the file as a decoder of first pages sees it with the page of d first: its
// header points at d. The bytes are shared, not copied (a 100-page scan is not copied a
// hundred times); it reads as an io.ReaderAt, which golang.org/x/image/tiff uses as it is.
func (d Dir) Page() *PageReader {
	r := &PageReader{b: d.f.b}
	copy(r.head[:], d.f.b[:4])
	d.f.bo.PutUint32(r.head[4:], d.Offset)
	return r
}

// PageReader reads a TIFF whose header is replaced; see [Dir.Page].
type PageReader struct {
	b    []byte
	head [8]byte
	pos  int64
}

var (
	_ io.ReaderAt = (*PageReader)(nil)
	_ io.Reader   = (*PageReader)(nil)
)

// ReadAt reads as from the file, with the replaced header in its first 8 bytes.
func (r *PageReader) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("tiffdir: negative offset")
	}
	if off >= int64(len(r.b)) {
		return 0, io.EOF
	}
	n := copy(p, r.b[off:])
	if off < 8 {
		copy(p, r.head[off:])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// Read reads on from where the last Read ended.
func (r *PageReader) Read(p []byte) (int, error) {
	n, err := r.ReadAt(p, r.pos)
	r.pos += int64(n)
	return n, err
}
