package conform

import "encoding/binary"

// What 6.2.8.3 asks of JPEG 2000 image data: read from the JP2 boxes (ISO/IEC 15444-1,
// Annex I) of a JPXDecode stream.
type jp2Info struct {
	boxes      bool // the data is a JP2 file, not a bare codestream
	channels   int  // ihdr NC
	bpc        byte // ihdr BPC: 255 when the channels differ (a bpcc box says how)
	colr       []jp2Colr
	bpccBox    bool
	hasHeaders bool
}

type jp2Colr struct {
	meth, approx byte
	enumCS       uint32
}

// readJP2 walks the boxes of b; what it cannot read stays zero.
func readJP2(b []byte) jp2Info {
	var info jp2Info
	var walk func(b []byte, depth int)
	walk = func(b []byte, depth int) {
		for len(b) >= 8 && depth < 4 {
			n := int(binary.BigEndian.Uint32(b))
			typ := string(b[4:8])
			head := 8
			if n == 1 {
				if len(b) < 16 {
					return
				}
				n = int(binary.BigEndian.Uint64(b[8:16]))
				head = 16
			} else if n == 0 {
				n = len(b)
			}
			if n < head || n > len(b) {
				return
			}
			body := b[head:n]
			switch typ {
			case "jP  ":
				info.boxes = true
			case "jp2h":
				info.hasHeaders = true
				walk(body, depth+1)
			case "ihdr":
				if len(body) >= 12 {
					info.channels = int(binary.BigEndian.Uint16(body[8:10]))
					info.bpc = body[10]
				}
			case "bpcc":
				info.bpccBox = true
			case "colr":
				if len(body) >= 3 {
					c := jp2Colr{meth: body[0], approx: body[2]}
					if c.meth == 1 && len(body) >= 7 {
						c.enumCS = binary.BigEndian.Uint32(body[3:7])
					}
					info.colr = append(info.colr, c)
				}
			}
			b = b[n:]
		}
	}
	walk(b, 0)
	return info
}

// jpx checks a JPXDecode image's data; hasCS: the image dictionary names its colour space,
// which then overrides the data's.
func (w *walker) jpx(data []byte, hasCS bool, loc string) {
	info := readJP2(data)
	if !info.boxes || !info.hasHeaders {
		return
	}
	c := w.c
	c.check(info.channels == 1 || info.channels == 3 || info.channels == 4, "6.2.8.3-1", loc)
	if !hasCS {
		approx := 0
		for _, col := range info.colr {
			if col.approx == 1 {
				approx++
			}
		}
		c.check(len(info.colr) <= 1 || approx == 1, "6.2.8.3-2", loc)
		if len(info.colr) > 0 {
			col := info.colr[0]
			for _, x := range info.colr {
				if x.approx == 1 {
					col = x
				}
			}
			c.check(col.meth == 1 || col.meth == 2 || col.meth == 3, "6.2.8.3-3", loc)
			c.check(col.meth != 1 || col.enumCS != 19, "6.2.8.3-4", loc)
		}
	}
	depth := int(info.bpc&0x7f) + 1
	c.check(!info.bpccBox && info.bpc != 255 && depth >= 1 && depth <= 38, "6.2.8.3-5", loc)
}
