package pdf

import (
	"bufio"
	"compress/flate"
	"compress/lzw"
	"compress/zlib"
	"errors"
	"io"

	tifflzw "golang.org/x/image/tiff/lzw"
)

// Streaming decoders for the bounds check: each turns a reader of encoded bytes into a
// reader of decoded bytes without holding the output, so a stream can be measured however
// far it inflates. Every one stops at its filter's end-of-data marker, as PDF readers do,
// so bytes after a stream's end are never decoded.

// errNotDecoded marks a filter the check does not decode (images: DCT, JPX, JBIG2,
// CCITTFax; Crypt; unknown names): its input is where measuring stops.
var errNotDecoded = errors.New("filter not decoded")

// decoder returns a reader of r decoded by the filter name; early0 is LZW's /EarlyChange 0.
func (s *inflaters) decoder(name string, early0 bool, r io.Reader) (io.Reader, error) {
	switch name {
	case "FlateDecode", "Fl":
		return s.inflater(r)
	case "LZWDecode", "LZW":
		// EarlyChange 1, the default, is TIFF's variant of LZW; 0 is the classic one.
		if early0 {
			return lzw.NewReader(r, lzw.MSB, 8), nil
		}
		return tifflzw.NewReader(r, tifflzw.MSB, 8), nil
	case "ASCIIHexDecode", "AHx":
		return &hexReader{r: bufio.NewReader(r)}, nil
	case "ASCII85Decode", "A85":
		return &a85Reader{r: bufio.NewReader(r)}, nil
	case "RunLengthDecode", "RL":
		return &rlReader{r: bufio.NewReader(r)}, nil
	}
	return nil, errNotDecoded
}

// inflater reads a zlib stream, or raw deflate data when the zlib header is missing (some
// writers leave it out and some readers accept that, so it is measured too). Decompressors
// are reused across the streams of a document: allocating one per stream was most of the
// check's cost on files with thousands of small streams.
func (s *inflaters) inflater(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	h, err := br.Peek(2)
	if err != nil {
		return nil, err
	}
	if h[0]&0x0f == 8 && h[0]>>4 <= 7 && (uint16(h[0])<<8|uint16(h[1]))%31 == 0 && h[1]&0x20 == 0 {
		if s.zr != nil && !s.zrBusy {
			if err := s.zr.(zlib.Resetter).Reset(br, nil); err != nil {
				return nil, err
			}
			s.zrBusy = true
			return s.zr, nil
		}
		zr, err := zlib.NewReader(br)
		if err != nil {
			return nil, err
		}
		if s.zr == nil {
			s.zr, s.zrBusy = zr, true
		}
		return zr, nil
	}
	return flate.NewReader(br), nil
}

// hexReader decodes ASCIIHexDecode: pairs of hex digits, white space ignored, > ends the
// data; an odd last digit is followed by 0.
type hexReader struct {
	r    *bufio.Reader
	done bool
}

func (h *hexReader) Read(p []byte) (int, error) {
	n := 0
	var hi byte
	half := false
	for n < len(p) && !h.done {
		c, err := h.r.ReadByte()
		if err != nil {
			h.done = true
			break
		}
		if isWhite(c) {
			continue
		}
		if c == '>' {
			h.done = true
			break
		}
		d, ok := unhex(c)
		if !ok {
			return n, errors.New("ASCIIHexDecode: invalid character")
		}
		if half {
			p[n] = hi<<4 | d
			n++
		} else {
			hi = d
		}
		half = !half
	}
	if half {
		// The pair continues in the next call unless the data ended.
		if h.done {
			p[n] = hi << 4
			n++
		} else {
			_ = h.r.UnreadByte()
		}
	}
	if n == 0 && h.done {
		return 0, io.EOF
	}
	return n, nil
}

// a85Reader decodes ASCII85Decode: groups of five characters ! to u, z for four zero
// bytes, white space ignored, ~> ends the data.
type a85Reader struct {
	r    *bufio.Reader
	out  [4]byte
	nout int
	pos  int
	done bool
}

func (a *a85Reader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if a.pos < a.nout {
			c := copy(p[n:], a.out[a.pos:a.nout])
			a.pos += c
			n += c
			continue
		}
		if a.done {
			break
		}
		if err := a.group(); err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
	}
	if n == 0 && a.done && a.pos >= a.nout {
		return 0, io.EOF
	}
	return n, nil
}

// group decodes the next group into out.
func (a *a85Reader) group() error {
	var g [5]byte
	k := 0
	a.pos, a.nout = 0, 0
	for k < 5 {
		c, err := a.r.ReadByte()
		if err != nil || c == '~' {
			a.done = true
			break
		}
		switch {
		case isWhite(c):
			continue
		case c == 'z' && k == 0:
			a.out = [4]byte{}
			a.nout = 4
			return nil
		case c < '!' || c > 'u':
			return errors.New("ASCII85Decode: invalid character")
		}
		g[k] = c - '!'
		k++
	}
	if k == 0 {
		if a.done {
			return io.EOF
		}
		return nil
	}
	if k == 1 {
		// A single character cannot encode a byte.
		return io.EOF
	}
	for i := k; i < 5; i++ {
		g[i] = 'u' - '!'
	}
	var v uint32
	for _, d := range g {
		v = v*85 + uint32(d)
	}
	a.out = [4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
	a.nout = k - 1
	return nil
}

// rlReader decodes RunLengthDecode: a length byte 0-127 copies the next n+1 bytes,
// 129-255 repeats the next byte 257-n times, 128 ends the data.
type rlReader struct {
	r      *bufio.Reader
	lit    int  // literal bytes still to copy
	rep    int  // repeats still to write
	repB   byte // the repeated byte
	done   bool
	failed error
}

func (rl *rlReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		switch {
		case rl.rep > 0:
			k := min(rl.rep, len(p)-n)
			for i := range k {
				p[n+i] = rl.repB
			}
			n += k
			rl.rep -= k
		case rl.lit > 0:
			k, err := rl.r.Read(p[n : n+min(rl.lit, len(p)-n)])
			n += k
			rl.lit -= k
			if err != nil {
				rl.done, rl.lit = true, 0
			}
		case rl.done:
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		default:
			c, err := rl.r.ReadByte()
			switch {
			case err != nil || c == 128:
				rl.done = true
			case c < 128:
				rl.lit = int(c) + 1
			default:
				b, err := rl.r.ReadByte()
				if err != nil {
					rl.done = true
					continue
				}
				rl.rep, rl.repB = 257-int(c), b
			}
		}
	}
	return n, nil
}
