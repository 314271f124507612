package testpdf

import (
	"bytes"
	"fmt"
)

// header starts every PDF written here; the binary comment marks the file as binary for
// tools that guess.
const header = "%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"

// Writer assembles a PDF by hand from numbered objects, with a classic cross-reference
// table, so that tests can build exactly the structure they mean to feed the code under
// test (which must not write its own inputs). Object 1 is the catalog. Objects may come
// in any order; numbers left out become free entries.
type Writer struct {
	b       bytes.Buffer
	offsets map[int]int
	size    int
}

// NewWriter returns a Writer that has written the PDF header.
func NewWriter() *Writer {
	w := &Writer{offsets: map[int]int{}}
	w.b.WriteString(header)
	return w
}

// Obj writes object n (generation 0) with body as given: a dictionary, a number, or a
// whole stream (see StreamBody).
func (w *Writer) Obj(n int, body string) {
	w.begin(n)
	fmt.Fprintf(&w.b, "%d 0 obj\n%s\nendobj\n", n, body)
}

// Stream writes object n as a stream with the dictionary entries dict (a /Length is
// added) and data as given (already encoded as dict's /Filter says).
func (w *Writer) Stream(n int, dict string, data []byte) {
	w.begin(n)
	fmt.Fprintf(&w.b, "%d 0 obj\n%s", n, streamHead(dict, len(data)))
	w.b.Write(data)
	w.b.WriteString("\nendstream\nendobj\n")
}

func (w *Writer) begin(n int) {
	w.offsets[n] = w.b.Len()
	w.size = max(w.size, n+1)
}

// Finish writes the cross-reference table and the trailer (/Size, /Root 1 0 R, then the
// entries extra, e.g. "/Info 4 0 R") and returns the PDF.
func (w *Writer) Finish(extra string) []byte {
	x := w.b.Len()
	fmt.Fprintf(&w.b, "xref\n0 %d\n0000000000 65535 f \n", w.size)
	for i := 1; i < w.size; i++ {
		if off, ok := w.offsets[i]; ok {
			fmt.Fprintf(&w.b, "%010d 00000 n \n", off)
		} else {
			w.b.WriteString("0000000000 65535 f \n")
		}
	}
	if extra != "" {
		extra += " "
	}
	fmt.Fprintf(&w.b, "trailer\n<< /Size %d /Root 1 0 R %s>>\nstartxref\n%d\n%%%%EOF\n", w.size, extra, x)
	return w.b.Bytes()
}

// Raw returns a PDF of objects numbered 1, 2, ... in the order given (the first is the
// catalog), with a trailer of /Size and /Root only.
func Raw(objects ...string) []byte {
	w := NewWriter()
	for i, o := range objects {
		w.Obj(i+1, o)
	}
	return w.Finish("")
}

// StreamBody returns the body of a stream object, for Raw or Writer.Obj: the dictionary
// entries dict with the /Length of data, then data as given.
func StreamBody[D string | []byte](dict string, data D) string {
	return streamHead(dict, len(data)) + string(data) + "\nendstream"
}

func streamHead(dict string, n int) string {
	if dict != "" {
		dict += " "
	}
	return fmt.Sprintf("<< %s/Length %d >>\nstream\n", dict, n)
}
