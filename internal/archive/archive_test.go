package archive

import (
	"archive/zip"
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/fault"
)

func pack(t testing.TB, entries ...[2]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := z.Create(e[0])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(e[1]))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var small = Limits{Noun: "the test", Entries: 3, Part: 100, Total: 150}

func TestReadAll(t *testing.T) {
	z, err := Open(pack(t, [2]string{"b.xml", "<b/>"}, [2]string{"a.xml", "<a/>"}, [2]string{"b.xml", "<b2/>"}), small)
	if err != nil {
		t.Fatal(err)
	}
	parts, order, err := z.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(order, ",") != "b.xml,a.xml" || string(parts["b.xml"]) != "<b2/>" || string(parts["a.xml"]) != "<a/>" {
		t.Errorf("%q %q", order, parts)
	}
}

func TestLimits(t *testing.T) {
	big := strings.Repeat("x", 101)
	for name, c := range map[string]struct {
		data []byte
		want string
	}{
		"not a zip":     {[]byte("PK\x03\x04 but no directory"), "damaged or not a zip package"},
		"too many":      {pack(t, [2]string{"1", ""}, [2]string{"2", ""}, [2]string{"3", ""}, [2]string{"4", ""}), "has 4 parts; at most 3"},
		"part too big":  {pack(t, [2]string{"big", big}), "part big unpacks to"},
		"total too big": {pack(t, [2]string{"a", big[:80]}, [2]string{"b", big[:80]}), "the test unpacks to more than 150 bytes"},
	} {
		z, err := Open(c.data, small)
		if err == nil {
			_, _, err = z.ReadAll()
		}
		if fault.CodeOf(err) != fault.InvalidInput || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Open([]byte("plain text"), small); !errors.Is(err, ErrNotZip) {
		t.Errorf("not a zip: %v", err)
	}
}

// TestDeclaredSizeLies: an entry whose directory claims a small size is still cut at the limit.
func TestDeclaredSizeLies(t *testing.T) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.CreateHeader(&zip.FileHeader{Name: "liar", Method: zip.Deflate})
	w.Write(bytes.Repeat([]byte("a"), 10_000))
	z.Close()
	data := buf.Bytes()
	// Rewrite the uncompressed size (central directory) to 10 bytes.
	r, _ := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	r.File[0].UncompressedSize64 = 10
	a := &Reader{Files: r.File, l: small}
	if _, err := a.Read(r.File[0]); fault.CodeOf(err) != fault.InvalidInput {
		t.Errorf("a lying entry: %v", err)
	}
}

func FuzzOpen(f *testing.F) {
	f.Add(pack(f, [2]string{"a", "b"}))
	f.Add(pack(f, [2]string{"word/document.xml", "<w/>"}, [2]string{"x", strings.Repeat("z", 200)}))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		z, err := Open(data, small)
		if err != nil {
			if fault.CodeOf(err) != fault.InvalidInput {
				t.Fatalf("code %v", err)
			}
			return
		}
		parts, _, err := z.ReadAll()
		if err != nil && fault.CodeOf(err) != fault.InvalidInput {
			t.Fatalf("code %v", err)
		}
		total := 0
		for _, p := range parts {
			if len(p) > int(small.Part) {
				t.Fatalf("part of %d bytes", len(p))
			}
			total += len(p)
		}
		if total > int(small.Total) {
			t.Fatalf("%d bytes in all", total)
		}
	})
}
