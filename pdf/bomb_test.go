package pdf

import (
	"bytes"
	"compress/lzw"
	"compress/zlib"
	"crypto/aes"
	"crypto/cipher"
	"encoding/ascii85"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/filter"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
	"github.com/papierkram/papierkram/pdf/pagerange"
)

// mangle replaces each old with a new of the same length, so that offsets stay right.
func mangle(b []byte, pairs ...string) []byte {
	for i := 0; i+1 < len(pairs); i += 2 {
		if len(pairs[i]) != len(pairs[i+1]) || !bytes.Contains(b, []byte(pairs[i])) {
			panic("mangle " + pairs[i])
		}
		b = bytes.ReplaceAll(b, []byte(pairs[i]), []byte(pairs[i+1]))
	}
	return b
}

func zlibOf(t testing.TB, b []byte) []byte {
	var out bytes.Buffer
	w, _ := zlib.NewWriterLevel(&out, zlib.BestCompression)
	w.Write(b)
	w.Close()
	return out.Bytes()
}

// runLengthZeros is RunLengthDecode data for n zero bytes (n a multiple of 128).
func runLengthZeros(n int) []byte {
	return bytes.Repeat([]byte{129, 0}, n/128)
}

func lzwZeros(n int) []byte {
	var out bytes.Buffer
	w := lzw.NewWriter(&out, lzw.MSB, 8)
	zeros := make([]byte, 1<<20)
	for ; n > 0; n -= len(zeros) {
		w.Write(zeros[:min(n, len(zeros))])
	}
	w.Close()
	return out.Bytes()
}

// rc4Encryption encrypts with RC4, 128 bits, revision 3, empty user password.
func rc4Encryption() *testpdf.Encryption { return userRC4("") }

// aes256Encryption encrypts with AES-256, revision 6, empty user password.
func aes256Encryption() *testpdf.Encryption {
	fileKey := bytes.Repeat([]byte{0x33}, 32)
	vsalt, ksalt := []byte("vsaltvsa"), []byte("ksaltksa")
	u := append(append(hash2B(6, nil, vsalt, nil), vsalt...), ksalt...)
	blk, _ := aes.NewCipher(hash2B(6, nil, ksalt, nil))
	ue := make([]byte, 32)
	cipher.NewCBCEncrypter(blk, make([]byte, 16)).CryptBlocks(ue, fileKey)
	fk, _ := aes.NewCipher(fileKey)
	perms := make([]byte, 16)
	fk.Encrypt(perms, []byte{0xfc, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 'T', 'a', 'd', 'b', 0, 0, 0, 0})
	return &testpdf.Encryption{
		Dict: fmt.Sprintf("<</Filter/Standard/V 5/R 6/Length 256/CF<</StdCF<</CFM/AESV3/AuthEvent/DocOpen/Length 32>>>>/StmF/StdCF/StrF/StdCF/O<%x>/U<%x>/OE<%x>/UE<%x>/P -4/Perms<%x>>>",
			bytes.Repeat([]byte{0x44}, 48), u, bytes.Repeat([]byte{0x55}, 32), ue, perms),
		ID: hex.EncodeToString(bytes.Repeat([]byte{0x66}, 16)),
		Stream: func(_ int, data []byte) []byte {
			pad := 16 - len(data)%16
			plain := append(append([]byte(nil), data...), bytes.Repeat([]byte{byte(pad)}, pad)...)
			iv := bytes.Repeat([]byte{0x77}, 16)
			out := append([]byte(nil), iv...)
			ct := make([]byte, len(plain))
			cipher.NewCBCEncrypter(fk, iv).CryptBlocks(ct, plain)
			return append(out, ct...)
		},
	}
}

// The bombs: each must be refused with its code and a message naming the limit, quickly
// and without the memory it would inflate to. The time bound is generous (a busy machine);
// the allocation bound is what tells the check from pdfcpu noticing late: pdfcpu
// allocates GBs on the inflating bombs and about 1 GB parsing the 100,000 pages.
func TestReadRefusesBombs(t *testing.T) {
	const gib = int64(1) << 30
	cases := []struct {
		name string
		make func() []byte
		code fault.Code
		msg  string
	}{
		{"one stream of 2 GiB", func() []byte { return testpdf.ContentBomb(2*gib, 1) }, fault.PayloadTooLarge, "inflates to more than 256 MiB, the limit per stream"},
		{"16 streams of 128 MiB", func() []byte { return testpdf.ContentBomb(2*gib, 16) }, fault.PayloadTooLarge, "inflate to more than 1024 MiB, the limit per document"},
		{"object streams of 512 MiB", func() []byte { return testpdf.ObjectStreamBomb(512<<20, nil) }, fault.PayloadTooLarge, "the limit per object stream"},
		{"object streams, RC4", func() []byte { return testpdf.ObjectStreamBomb(512<<20, rc4Encryption()) }, fault.PayloadTooLarge, "the limit per object stream"},
		{"object streams, AES-256", func() []byte { return testpdf.ObjectStreamBomb(512<<20, aes256Encryption()) }, fault.PayloadTooLarge, "the limit per object stream"},
		// pdfcpu takes an object at its table's offset whatever number its header says,
		// and decrypts it with the table's.
		{"header with another number", func() []byte { return mangle(testpdf.ContentBomb(2*gib, 1), "4 0 obj", "9 9 obj") }, fault.PayloadTooLarge, "the limit per stream"},
		{"object streams, RC4, headers with other numbers", func() []byte {
			return mangle(testpdf.ObjectStreamBomb(512<<20, rc4Encryption()), "5 0 obj", "2 7 obj", "6 0 obj", "2 8 obj", "7 0 obj", "2 9 obj")
		}, fault.PayloadTooLarge, "the limit per object stream"},
		{"100,000 pages", func() []byte { return testpdf.ManyPages(100_000, 0) }, fault.InvalidPDF, "the PDF has 100000 pages; at most 5000"},
		{"100,000 pages, /Count 1", func() []byte { return testpdf.ManyPages(100_000, 1) }, fault.InvalidPDF, "more than 10000 page objects"},
		{"300,000 objects", func() []byte { return testpdf.ManyObjects(300_000) }, fault.PayloadTooLarge, "more than 250000 objects"},
		{"object number", func() []byte {
			return []byte("%PDF-1.7\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n99999999 0 obj 1 endobj\ntrailer<</Root 1 0 R>>")
		}, fault.PayloadTooLarge, "object number 99999999"},
		{"cross-reference stream /Size", func() []byte {
			return []byte("%PDF-1.7\n1 0 obj<</Type/XRef/Size 50000000/W[1 4 2]/Root 2 0 R/Length 0>>stream\n\nendstream endobj")
		}, fault.PayloadTooLarge, "declares 50000000 objects"},
		{"cross-reference table", func() []byte {
			return []byte("%PDF-1.7\n1 0 obj<</Type/Catalog>>endobj\nxref\n0 5000000\n0000000000 65535 f \ntrailer<</Root 1 0 R>>")
		}, fault.PayloadTooLarge, "declares objects up to 5000000"},
		{"a page drawing 65 MiB", func() []byte { return testpdf.ContentBomb(65<<20, 1) }, fault.PayloadTooLarge, "page 1 of the PDF draws more than 64 MiB"},
		{"3000 pages sharing 100 KiB", func() []byte { return testpdf.SharedContent(3000, 100<<10) }, fault.PayloadTooLarge, "draw more than 256 MiB of content"},
		{"/Filter twice", func() []byte {
			return testpdf.Page("/Filter/ASCIIHexDecode/Filter/FlateDecode", testpdf.Zeros(300<<20))
		}, fault.InvalidPDF, "has /Filter twice"},
		{"name with escapes", func() []byte { return testpdf.Page("/Filter/Fl#61teDecode", testpdf.Zeros(300<<20)) }, fault.PayloadTooLarge, "the limit per stream"},
		{"run length in flate", func() []byte {
			return testpdf.Page("/Filter[/FlateDecode/RunLengthDecode]", zlibOf(t, runLengthZeros(300<<20)))
		}, fault.PayloadTooLarge, "the limit per stream"},
		{"hex of flate", func() []byte {
			return testpdf.Page("/Filter[/AHx/FlateDecode]", []byte(hex.EncodeToString(testpdf.Zeros(300<<20))+">"))
		}, fault.PayloadTooLarge, "the limit per stream"},
		{"ASCII85 of flate", func() []byte {
			z := testpdf.Zeros(300 << 20)
			a := make([]byte, ascii85.MaxEncodedLen(len(z)))
			return testpdf.Page("/Filter[/ASCII85Decode/FlateDecode]", append(a[:ascii85.Encode(a, z)], "~>"...))
		}, fault.PayloadTooLarge, "the limit per stream"},
		{"LZW", func() []byte {
			return testpdf.Page("/Filter/LZWDecode/DecodeParms<</EarlyChange 0>>", lzwZeros(300<<20))
		}, fault.PayloadTooLarge, "the limit per stream"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := c.make()
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			// Inspect reads encrypted files too (Read refuses them before anything else).
			_, err := Inspect(data)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := (after.TotalAlloc - before.TotalAlloc) >> 20
			t.Logf("%d KB file: %v in %v, %d MiB allocated", len(data)>>10, err, took.Round(time.Millisecond), alloc)
			if fault.CodeOf(err) != c.code || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("got %v, want %s with %q", err, c.code, c.msg)
			}
			if took > 20*time.Second*raceSlowdown {
				t.Errorf("refused after %v", took)
			}
			if alloc > 200 {
				t.Errorf("%d MiB allocated before the refusal", alloc)
			}
		})
	}
}

// The encrypted bombs are real encrypted files: pdfcpu opens them (at a harmless size)
// with the empty password and finds their page.
func TestEncryptedBombsOpen(t *testing.T) {
	for name, enc := range map[string]*testpdf.Encryption{"RC4": rc4Encryption(), "AES-256": aes256Encryption()} {
		info, err := Inspect(testpdf.ObjectStreamBomb(1<<20, enc))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !info.Encrypted || info.Pages != 1 {
			t.Fatalf("%s: %+v", name, info)
		}
	}
	d, err := Read(testpdf.ObjectStreamBomb(1<<20, nil))
	if err != nil || d.PageCount() != 1 {
		t.Fatalf("unencrypted: %v", err)
	}
	// Headers that lie or are mangled do not keep pdfcpu from reading the objects: it
	// numbers them (and decrypts them) as its table says.
	info, err := Inspect(mangle(testpdf.ObjectStreamBomb(1<<20, rc4Encryption()), "5 0 obj", "2 7 obj", "6 0 obj", "2 8 obj", "7 0 obj", "2 9 obj"))
	if err != nil || info.Pages != 1 {
		t.Fatalf("headers with other numbers: %v", err)
	}
	d, err = Read(mangle(testpdf.ContentBomb(1<<20, 1), "4 0 obj", "9 9 obj"))
	if err != nil || len(d.content) != 1 || d.content[0] != 1<<20 {
		t.Fatalf("header with another number: %v", err)
	}
}

// Encryption does not hide a stream's size: qpdf's RC4 and AES files measure as their
// unencrypted twin does (within the few bytes by which qpdf writes the two differently;
// undecrypted, the 500 KB of page content would measure nothing).
func TestCheckSeesThroughEncryption(t *testing.T) {
	src := testtool.File(t, "src.pdf", testpdf.Make(testpdf.Options{Pages: 5, Filler: 100 << 10}))
	measure := func(args ...string) int64 {
		out := filepath.Join(t.TempDir(), "out.pdf")
		testtool.Run(t, "qpdf", append(append([]string{"--object-streams=generate", "--compress-streams=y", "--static-id"}, args...), src, out)...)
		b, _ := os.ReadFile(out)
		if err := Check(b); err != nil {
			t.Fatal(err)
		}
		_, total, _ := exactly(t, b)
		return total
	}
	plain := measure()
	if plain < 5*100<<10 {
		t.Fatalf("plain file measured %d bytes", plain)
	}
	for _, enc := range [][]string{
		{"--allow-weak-crypto", "--encrypt", "", "owner", "128", "--use-aes=n", "--"},
		{"--encrypt", "", "owner", "128", "--use-aes=y", "--"},
		{"--encrypt", "", "owner", "256", "--"},
		{"--allow-weak-crypto", "--encrypt", "", "owner", "40", "--"},
		// An empty owner password opens the file (qpdf and Unlock take it so).
		{"--encrypt", "user", "", "256", "--allow-insecure", "--"},
	} {
		if got := measure(enc...); got < plain-1024 || got > plain+1024 {
			t.Errorf("%v: measured %d bytes, unencrypted %d", enc, got, plain)
		}
	}
}

// A /Count that understates, with fewer page objects than the slack allows, is caught by
// pdfcpu's own count.
func TestReadRefusesUnderstatedCount(t *testing.T) {
	_, err := Read(testpdf.ManyPages(8000, 1))
	if fault.CodeOf(err) != fault.InvalidPDF {
		t.Fatalf("got %v", err)
	}
}

// Split and extraction copy a page's content once per copy: repeats count.
func TestExtractCountsRepeats(t *testing.T) {
	d, err := Read(testpdf.ContentBomb(40<<20, 1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Extract(pagerange.Spec{{From: 1, To: 1}}); err != nil {
		t.Fatal(err)
	}
	sp, _ := pagerange.Parse(strings.Repeat("1,", 6)+"1", 1)
	if _, err := d.Extract(sp); fault.CodeOf(err) != fault.PayloadTooLarge {
		t.Fatalf("7 copies of 40 MiB: %v", err)
	}
	if _, err := d.Split(sp); fault.CodeOf(err) != fault.PayloadTooLarge {
		t.Fatalf("split into 7 copies of 40 MiB: %v", err)
	}
}

// Merging adds the documents' measures up against the limits.
func TestMergeSumsLimits(t *testing.T) {
	// 255 MiB in a stream no page draws, compressed to more than 1/1032 of that: the
	// check inflates it to know it is within its limit.
	unused := testpdf.Padding(255<<20, 1)
	_, err := Merge(unused, unused, unused, unused, unused)
	if fault.CodeOf(err) != fault.PayloadTooLarge || !strings.Contains(err.Error(), "streams inflate to more than 1024 MiB together") {
		t.Fatalf("got %v", err)
	}
	shared := testpdf.SharedContent(2000, 100<<10) // 195 MiB of page content
	_, err = Merge(shared, shared)
	if fault.CodeOf(err) != fault.PayloadTooLarge || !strings.Contains(err.Error(), "pages draw more than 256 MiB of content together") {
		t.Fatalf("got %v", err)
	}
}

// Attachments keeps what it decodes: files within their own limit are refused together
// past 256 MiB.
func TestAttachmentsTotal(t *testing.T) {
	d := mustRead(t, testpdf.Attachments(4, 70<<20))
	if _, err := d.Attachments(100 << 20); fault.CodeOf(err) != fault.PayloadTooLarge || !strings.Contains(err.Error(), "256 MiB together") {
		t.Fatalf("got %v", err)
	}
	atts, err := mustRead(t, testpdf.Attachments(3, 70<<20)).Attachments(100 << 20)
	if err != nil || len(atts) != 3 || len(atts[2].Data) != 70<<20 {
		t.Fatalf("%d attachments, %v", len(atts), err)
	}
}

// The stamp of Overlay goes to pdfcpu without Read; it is checked all the same.
func TestOverlayChecksStamp(t *testing.T) {
	d := mustRead(t, testpdf.New(1))
	if _, err := d.Overlay(testpdf.ContentBomb(1<<30, 1), 0.5); fault.CodeOf(err) != fault.PayloadTooLarge {
		t.Fatalf("got %v", err)
	}
	if _, err := d.Underlay(testpdf.ContentBomb(1<<30, 1), nil); fault.CodeOf(err) != fault.PayloadTooLarge {
		t.Fatalf("got %v", err)
	}
}

// The streaming decoders decode what pdfcpu's encoders write.
func TestDecodersMatchPdfcpu(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 4, 5, 127, 128, 129, 1000, 70000} {
		data := make([]byte, n)
		for i := range data {
			// Runs and noise, so that run length and LZW do some of both.
			if r.IntN(3) == 0 {
				data[i] = byte(r.IntN(256))
			} else if i > 0 {
				data[i] = data[i-1]
			}
		}
		for _, c := range []struct {
			name  string
			parms map[string]int
			dp    string
		}{
			{filter.Flate, nil, ""}, {filter.LZW, map[string]int{"EarlyChange": 1}, ""}, {filter.LZW, map[string]int{"EarlyChange": 0}, "<</EarlyChange 0>>"},
			{filter.ASCIIHex, nil, ""}, {filter.ASCII85, nil, ""}, {filter.RunLength, nil, ""},
		} {
			f, err := filter.NewFilter(c.name, c.parms)
			if err != nil {
				t.Fatal(err)
			}
			enc, err := f.Encode(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			encoded, _ := io.ReadAll(enc)
			z := getInflaters()
			dec, err := z.decoder(c.name, c.dp != "", bytes.NewReader(encoded))
			if err != nil {
				if n == 0 {
					continue // nothing to read a header from
				}
				t.Fatalf("%s: %v", c.name, err)
			}
			got, _ := io.ReadAll(dec)
			z.put()
			if !bytes.Equal(got, data) {
				t.Fatalf("%s (%v) of %d bytes: decoded %d bytes, differing", c.name, c.parms, n, len(got))
			}
		}
	}
}

// exactly measures what a document's streams decode to, every one inflated: the largest
// stream, all together (all filter stages), and the number of objects.
func exactly(t *testing.T, data []byte) (stream, total int64, objects int) {
	t.Helper()
	s := newScanner(data)
	if err := s.run(); err != nil {
		t.Fatal(err)
	}
	for i := range s.streams {
		st := &s.streams[i]
		if !st.exact {
			if err := s.inflate(st); err != nil {
				t.Fatal(err)
			}
		}
		stream = max(stream, st.x)
		total += st.x
	}
	return stream, total, s.nObjects
}

// pdfcpuRead is what Read did before the check: pdfcpu's read and validation.
func pdfcpuRead(data []byte) (err error) {
	defer recoverInto(&err, "read")
	ctx, err := api.ReadContext(bytes.NewReader(data), config())
	if err != nil {
		return err
	}
	_, err = validate(ctx, data)
	return err
}

// Every PDF of the corpus passes, with room to spare; the log says how much.
func TestCheckPassesCorpus(t *testing.T) {
	var files, maxObjects int
	var maxStream, maxDoc, maxPage, maxContent int64
	for _, dir := range []string{"pdf", "zugferd", "verapdf"} {
		filepath.WalkDir(filepath.Join(corpus, dir), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.EqualFold(filepath.Ext(p), ".pdf") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files++
			if err := Check(data); err != nil {
				t.Errorf("%s: %v", p, err)
				return nil
			}
			// What pdfcpu reads, Inspect (Read, encrypted files too) reads.
			if _, err := Inspect(data); err != nil && pdfcpuRead(data) == nil {
				t.Errorf("%s: pdfcpu reads it, Inspect says %v", p, err)
			}
			str, doc, objs := exactly(t, data)
			maxStream, maxDoc, maxObjects = max(maxStream, str), max(maxDoc, doc), max(maxObjects, objs)
			if d, err := Read(data); err == nil {
				var sum int64
				for _, n := range d.content {
					sum += n
					maxPage = max(maxPage, n)
				}
				maxContent = max(maxContent, sum)
			}
			return nil
		})
	}
	if files < 1000 {
		t.Fatalf("only %d corpus files", files)
	}
	t.Logf("%d files; largest stream %d KiB (limit %d MiB), document %d KiB (limit %d MiB), page content %d KiB (limit %d MiB), document content %d KiB (limit %d MiB), %d objects (limit %d)",
		files, maxStream>>10, MaxStreamBytes/mib, maxDoc>>10, MaxDecodedBytes/mib, maxPage>>10, MaxPageContentBytes/mib, maxContent>>10, MaxContentBytes/mib, maxObjects, MaxObjects)
}

// Big documents of the kinds the service takes stay within the limits: 5000 text pages,
// and 20 pages of 2 MB content each.
func TestCheckPassesBigDocuments(t *testing.T) {
	for _, o := range []testpdf.Options{{Pages: MaxPages}, {Pages: 20, Filler: 2 << 20}} {
		d, err := Read(testpdf.Make(o))
		if err != nil {
			t.Fatalf("%+v: %v", o, err)
		}
		if d.PageCount() != o.Pages {
			t.Fatalf("%d pages", d.PageCount())
		}
	}
}

func FuzzCheck(f *testing.F) {
	f.Add(testpdf.New(2))
	f.Add(testpdf.ContentBomb(1<<20, 2))
	f.Add(testpdf.ObjectStreamBomb(64<<10, nil))
	f.Add(testpdf.ObjectStreamBomb(64<<10, rc4Encryption()))
	f.Add(testpdf.ObjectStreamBomb(64<<10, aes256Encryption()))
	f.Add(testpdf.ManyPages(20, 3))
	f.Add(testpdf.Page("/Filter[/AHx/A85/RL/LZW/Fl]/DecodeParms[null null null<</EarlyChange 0>>]", []byte("414243>")))
	f.Add([]byte("%PDF-1.4\n1 0 obj<</Type/Pages/Count 3 0 R>>endobj 3 0 obj 7 endobj trailer<</Root 2 0 R>> 2 0 obj<</Pages 1 0 R>>endobj xref\n0 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		// scan, not Check: a panic must fail the fuzzer, not become an error.
		inflated, err := scan(data)
		if err != nil {
			if c := fault.CodeOf(err); c != fault.PayloadTooLarge && c != fault.InvalidPDF {
				t.Fatalf("code %s: %v", c, err)
			}
			return
		}
		if inflated > MaxDecodedBytes {
			t.Fatalf("passed after inflating %d bytes", inflated)
		}
	})
}
