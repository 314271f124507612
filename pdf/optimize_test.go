package pdf

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

// duplicates is a two-page PDF whose pages draw identical images stored twice, with
// unfiltered content and an object nothing refers to.
func duplicates(t testing.TB) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	px := make([]byte, 200*200*3)
	for i := range px {
		px[i] = byte(i/600*3) + byte(r.IntN(8)) // shading and noise: compresses, but not to nothing
	}
	img := testpdf.StreamBody("/Type /XObject /Subtype /Image /Width 200 /Height 200 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode", zlibOf(t, px))
	content := func(n int) []byte {
		return []byte(fmt.Sprintf("q 400 0 0 400 100 300 cm /Im0 Do Q\n%sBT /F1 24 Tf 72 760 Td (Page %d) Tj ET",
			strings.Repeat("% a comment line that a content stream of a careless producer might carry\n", 40), n))
	}
	return testpdf.Raw(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R 6 0 R] /Count 2 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 9 0 R >> /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>",
		testpdf.StreamBody("", content(1)),
		img,
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 9 0 R >> /XObject << /Im0 8 0 R >> >> /Contents 7 0 R >>",
		testpdf.StreamBody("", content(2)),
		img,
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		// Hex-encoded, so that the lossless pass leaves it readable were it kept.
		testpdf.StreamBody("/Filter /ASCIIHexDecode", fmt.Sprintf("%X>", "UNUSED-OBJECT "+strings.Repeat("x", 5000))),
	)
}

// qdf is data as qpdf writes it uncompressed: every object readable as text.
func qdf(t *testing.T, data []byte) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "q.pdf")
	testtool.Run(t, "qpdf", "--qdf", "--object-streams=disable", testtool.File(t, "in.pdf", data), out)
	b, _ := os.ReadFile(out)
	return string(b)
}

func TestOptimizeSharesImagesAndDropsUnused(t *testing.T) {
	in := duplicates(t)
	out, err := Optimize(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	if len(out) > len(in)*6/10 {
		t.Fatalf("%d -> %d bytes", len(in), len(out))
	}
	list := testtool.Run(t, "pdfimages", "-list", testtool.File(t, "l.pdf", out))
	var ids []string
	for _, l := range strings.Split(list, "\n")[2:] {
		if f := strings.Fields(l); len(f) > 11 {
			ids = append(ids, f[10])
		}
	}
	if len(ids) != 2 || ids[0] != ids[1] {
		t.Fatalf("the pages should share one image:\n%s", list)
	}
	a, b := testtool.Images(t, in), testtool.Images(t, out)
	if len(a) != 2 || len(b) != 2 || !bytes.Equal(a[0], b[0]) || !bytes.Equal(a[1], b[1]) {
		t.Fatal("the images' pixels changed")
	}
	if got := testtool.PageTexts(t, out); !slices.Equal(got, []string{"Page 1", "Page 2"}) {
		t.Fatalf("text %q", got)
	}
	if marker := []byte(fmt.Sprintf("%X", "UNUSED-OBJECT")); !bytes.Contains(in, marker) || bytes.Contains(out, marker) {
		t.Fatal("the unreferenced object is still there")
	}
	// Object streams and a cross-reference stream.
	if xref := testtool.Run(t, "qpdf", "--show-xref", testtool.File(t, "x.pdf", out)); !strings.Contains(xref, "compressed; stream =") {
		t.Fatalf("no object streams:\n%s", xref)
	}
}

// A ZUGFeRD PDF/A-3: document information (dates and producer too), XMP, the XML and the
// fonts are as they were.
func TestOptimizeKeepsInfoXMPAttachments(t *testing.T) {
	in := readCorpus(t, "zugferd/zugferd10/ZUGFeRD_1p0_BASIC_Einfach.pdf")
	out, err := Optimize(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	if len(out) >= len(in) {
		t.Fatalf("%d -> %d bytes", len(in), len(out))
	}
	a, b := testtool.Info(t, in), testtool.Info(t, out)
	for _, k := range []string{"Title", "Author", "Subject", "Keywords", "Creator", "Producer", "CreationDate", "ModDate", "Pages"} {
		if a[k] != b[k] {
			t.Errorf("%s: %q, was %q", k, b[k], a[k])
		}
	}
	if m1, m2 := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "a.pdf", in)), testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "b.pdf", out)); m1 != m2 || !strings.Contains(m2, "pdfaid") {
		t.Fatal("the XMP packet changed")
	}
	if f1, f2 := testtool.Run(t, "pdffonts", testtool.File(t, "a.pdf", in)), testtool.Run(t, "pdffonts", testtool.File(t, "b.pdf", out)); fontsWithoutIDs(f1) != fontsWithoutIDs(f2) {
		t.Fatalf("fonts changed:\n%s\n%s", f1, f2)
	}
	save := func(data []byte) map[string]string {
		dir := t.TempDir()
		testtool.Run(t, "pdfdetach", "-saveall", "-o", dir, testtool.File(t, "d.pdf", data))
		m := map[string]string{}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
			m[e.Name()] = string(b)
		}
		return m
	}
	if x, y := save(in), save(out); len(x) == 0 || fmt.Sprint(x) != fmt.Sprint(y) {
		t.Fatalf("attachments changed: %d -> %d files", len(x), len(y))
	}
	if got, want := mustRead(t, out).OutputIntents(), mustRead(t, in).OutputIntents(); !slices.Equal(got, want) {
		t.Fatalf("output intents %v, want %v", got, want)
	}
	// Optimised once, it does not shrink again: the same bytes come back.
	again, err := Optimize(context.Background(), out)
	if err != nil || !bytes.Equal(again, out) {
		t.Fatalf("a second pass: %d -> %d bytes, %v", len(out), len(again), err)
	}
}

// fontsWithoutIDs is pdffonts' listing without the object numbers, which a rewrite may
// change.
func fontsWithoutIDs(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n")[2:] {
		if f := strings.Fields(l); len(f) > 2 {
			out = append(out, strings.Join(f[:len(f)-2], " "))
		}
	}
	slices.Sort(out)
	return strings.Join(out, "\n")
}

// PDF/A-1 is PDF 1.4: the optimised file keeps a classic cross-reference table and no
// object streams.
func TestOptimizePDFA1(t *testing.T) {
	in := readCorpus(t, "pdf/invoice-blanks/MustangGnuaccountingBeispielRE-20170509_505blanko.pdf")
	if p, _ := mustRead(t, in).PDFA(); p != 1 {
		t.Fatalf("the corpus file is PDF/A-%d", p)
	}
	out, err := Optimize(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	if len(out) >= len(in) {
		t.Fatalf("%d -> %d bytes", len(in), len(out))
	}
	xref := testtool.Run(t, "qpdf", "--show-xref", testtool.File(t, "x.pdf", out))
	if strings.Contains(xref, "compressed; stream") || bytes.Contains(out, []byte("/ObjStm")) || bytes.Contains(out, []byte("/XRef")) {
		t.Fatal("a PDF/A-1 file got object or cross-reference streams")
	}
	if p, c := mustRead(t, out).PDFA(); p != 1 || c != "A" {
		t.Fatalf("PDF/A-%d%s, want 1A", p, c)
	}
}

// Earlier revisions of an updated file are left out; the latest metadata stays.
func TestOptimizeDropsEarlierRevisions(t *testing.T) {
	in := testpdf.Make(testpdf.Options{Pages: 3, Title: "Erster Titel"})
	for _, title := range []string{"Zweiter Titel", "Dritter Titel – endgültig"} {
		var err error
		if in, err = mustRead(t, in).SetMetadata(Changes{Title: &title}, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
	}
	out, err := Optimize(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	if len(out) >= len(in)*8/10 {
		t.Fatalf("%d -> %d bytes", len(in), len(out))
	}
	if got := testtool.Info(t, out)["Title"]; got != "Dritter Titel – endgültig" {
		t.Fatalf("title %q", got)
	}
	if strings.Contains(qdf(t, out), "Zweiter Titel") {
		t.Fatal("an earlier revision's metadata is still in the file")
	}
	if got := testtool.PageTexts(t, out); !slices.Equal(got, []string{"Page 1", "Page 2", "Page 3"}) {
		t.Fatalf("text %q", got)
	}
}

// signedPDF has a signature field with a value (a rewrite breaks its byte range) and
// padding nothing refers to, so that a rewrite is smaller.
func signedPDF() []byte {
	return testpdf.Raw(
		"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R] /SigFlags 3 >> >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 7 0 R >> >> /Contents 4 0 R /Annots [5 0 R] >>",
		testpdf.StreamBody("", "BT /F1 24 Tf 72 760 Td (Signed) Tj ET"),
		"<< /FT /Sig /T (Signature1) /V 6 0 R /Type /Annot /Subtype /Widget /Rect [0 0 0 0] /P 3 0 R /F 132 >>",
		"<< /Type /Sig /Filter /Adobe.PPKLite /SubFilter /adbe.pkcs7.detached /ByteRange [0 100 200 300] /Contents <"+strings.Repeat("00", 4096)+"> /M (D:20260101000000Z) >>",
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
		testpdf.StreamBody("", strings.Repeat("padding ", 2000)),
	)
}

func TestOptimizeSigned(t *testing.T) {
	in := signedPDF()
	if _, err := Optimize(context.Background(), in); fault.CodeOf(err) != fault.Unprocessable {
		t.Fatalf("signed: %v", err)
	}
	out, err := OptimizeWith(context.Background(), in, OptimizeOptions{AllowSigned: true})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	if len(out) >= len(in) || strings.Contains(qdf(t, out), "/Sig") {
		t.Fatalf("%d -> %d bytes; the signature should be gone", len(in), len(out))
	}
	if got := testtool.PageTexts(t, out); !slices.Equal(got, []string{"Signed"}) {
		t.Fatalf("text %q", got)
	}
}

// ligatureFont is a one-page PDF drawing glyph 1 of a font whose ToUnicode map gives it
// value (hex), as "ft" is <00660074>.
func ligatureFont(value string) []byte {
	cmap := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /X def\n1 begincodespacerange <00> <FF> endcodespacerange\n" +
		"2 beginbfchar <01> <" + value + "> <02> <0041> endbfchar\n1 beginbfrange <03> <04> [<0042> <00660069>] endbfrange\nendcmap CMapName currentdict /CMap defineresource pop end end"
	return testpdf.Raw(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		testpdf.StreamBody("", "BT /F1 24 Tf 72 760 Td <0102> Tj ET"),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /ToUnicode 6 0 R >>",
		testpdf.StreamBody("", cmap),
	)
}

func TestCMapValues(t *testing.T) {
	d := mustRead(t, ligatureFont("00660074"))
	got := d.ligatures()
	if len(got) != 2 || !got["\x00f\x00t"] || !got["\x00f\x00i"] {
		t.Fatalf("ligatures %v", got)
	}
}

// Ghostscript 10.00 swaps the bytes of multi-character ToUnicode values; the original's
// value comes back, and a value the original never had fails the check.
func TestOptimizeRepairsSwappedLigatures(t *testing.T) {
	orig := ligatureFont("00660074")
	out, err := OptimizeWith(context.Background(), ligatureFont("66007400"), OptimizeOptions{Original: orig})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	if got := testtool.PageTexts(t, out); !slices.Equal(got, []string{"ftA"}) {
		t.Fatalf("text %q", got)
	}
	if _, err := OptimizeWith(context.Background(), ligatureFont("4E004E00"), OptimizeOptions{Original: orig}); fault.CodeOf(err) != fault.Internal || !strings.Contains(err.Error(), "text") {
		t.Fatalf("a changed ligature: %v", err)
	}
}

func TestOptimizeBadInput(t *testing.T) {
	full := testpdf.New(2)
	enc := filepath.Join(t.TempDir(), "enc.pdf")
	testtool.Run(t, "qpdf", "--encrypt", "user", "owner", "256", "--", testtool.File(t, "plain.pdf", full), enc)
	encrypted, _ := os.ReadFile(enc)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		data []byte
		o    OptimizeOptions
		want fault.Code
	}{
		{"text", context.Background(), []byte("hello"), OptimizeOptions{}, fault.InvalidPDF},
		{"truncated", context.Background(), full[:len(full)/2], OptimizeOptions{}, fault.InvalidPDF},
		{"encrypted with a user password", context.Background(), encrypted, OptimizeOptions{}, fault.EncryptedPDF},
		{"original not a PDF", context.Background(), full, OptimizeOptions{Original: []byte("nope")}, fault.InvalidPDF},
		{"canceled", canceled, full, OptimizeOptions{}, fault.Canceled},
	} {
		if _, err := OptimizeWith(c.ctx, c.data, c.o); fault.CodeOf(err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
}

func FuzzOptimize(f *testing.F) {
	f.Add(testpdf.New(1))
	f.Add(testpdf.Form())
	f.Add(signedPDF())
	f.Add(ligatureFont("66007400"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := OptimizeWith(context.Background(), data, OptimizeOptions{AllowSigned: true})
		if err != nil {
			return
		}
		if len(out) > len(data) {
			t.Fatalf("%d -> %d bytes", len(data), len(out))
		}
		if _, err := Read(out); err != nil {
			t.Fatalf("the result does not read: %v", err)
		}
	})
}

func FuzzCMapValues(f *testing.F) {
	f.Add([]byte("2 beginbfchar <01> <00660074> <02> <0041> endbfchar 1 beginbfrange <03> <04> [<0042> <00660069>] endbfrange"))
	f.Add([]byte("beginbfrange <0> <ff> <0020> endbfrange <<>> [ ] <"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n := 0
		for _, v := range cmapValues(b) {
			n += len(v)
		}
		if n > len(b) {
			t.Fatalf("%d bytes of values from %d bytes", n, len(b))
		}
	})
}
