package conform

import (
	"context"
	"os"
	"testing"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
)

// FuzzCheck: whatever the bytes, Check answers a report or an error of pdf.ReadLenient's
// kinds, and never panics (a panic inside is reported as fault.Internal: that is a bug,
// and a failure here).
func FuzzCheck(f *testing.F) {
	f.Add(testpdf.New(2))
	for _, tc := range corpusCases(f)[:40] {
		if b, err := os.ReadFile(tc.path); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Check(context.Background(), data, Auto)
		if fault.CodeOf(err) == fault.Internal {
			t.Fatalf("internal error: %v", err)
		}
		if err == nil && r.Compliant != (len(r.Failed) == 0) {
			t.Fatalf("compliant %v with %d failures", r.Compliant, len(r.Failed))
		}
	})
}

// FuzzParseXMP: the RDF reader returns a packet or an error, never panics.
func FuzzParseXMP(f *testing.F) {
	f.Add([]byte(`<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">T</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>`))
	f.Add([]byte(`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:a="urn:a"><a:s rdf:parseType="Resource"><a:f>1</a:f></a:s></rdf:Description></rdf:RDF>`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parseXMP(b)
		if err == nil && p == nil {
			t.Fatal("no packet and no error")
		}
	})
}

// FuzzContent: the content lexer ends on any stream, within its bounds.
func FuzzContent(f *testing.F) {
	f.Add([]byte("q 1 0 0 1 0 0 cm BT /F1 12 Tf (Hallo) Tj ET Q"))
	f.Add([]byte("BI /W 1 /H 1 /CS /RGB /BPC 8 ID \x00\x01\x02 EI [(a) -12 (b)] TJ << /A [1 2 <00ff>] >> BDC"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l := &lexer{b: b}
		for i := 0; ; i++ {
			if _, ok := l.next(0); !ok {
				break
			}
			if i > len(b)+1 {
				t.Fatalf("no progress after %d tokens on %d bytes", i, len(b))
			}
		}
	})
}

// FuzzCFF: the CFF reader returns a font or an error on any bytes, never panics.
func FuzzCFF(f *testing.F) {
	f.Add([]byte{1, 0, 4, 1, 0, 0})
	f.Add([]byte{1, 0, 4, 2, 0, 1, 1, 1, 2, 'a', 0, 1, 1, 1, 4, 139, 139, 17, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if font, err := parseCFF(b); err == nil && len(font.widths) != font.glyphs {
			t.Fatalf("%d widths for %d glyphs", len(font.widths), font.glyphs)
		}
	})
}
