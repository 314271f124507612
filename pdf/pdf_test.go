package pdf

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/api"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
	"github.com/papierkram/papierkram/pdf/pagerange"
)

var corpus = filepath.Join("..", "..", "shared", "corpus")

func mustRead(t *testing.T, b []byte) *Doc {
	t.Helper()
	d, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func spec(t *testing.T, s string, n int) pagerange.Spec {
	t.Helper()
	sp, err := pagerange.Parse(s, n)
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func TestSplit(t *testing.T) {
	d := mustRead(t, testpdf.New(6))
	for _, c := range []struct {
		spec string
		want [][]string
	}{
		{"all", [][]string{{"Page 1"}, {"Page 2"}, {"Page 3"}, {"Page 4"}, {"Page 5"}, {"Page 6"}}},
		{"1-3,4-6", [][]string{{"Page 1", "Page 2", "Page 3"}, {"Page 4", "Page 5", "Page 6"}}},
		{"1,3,5", [][]string{{"Page 1"}, {"Page 3"}, {"Page 5"}}},
		{"2-3,6", [][]string{{"Page 2", "Page 3"}, {"Page 6"}}},
	} {
		parts, err := d.Split(spec(t, c.spec, 6))
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		if len(parts) != len(c.want) {
			t.Fatalf("%s: %d parts", c.spec, len(parts))
		}
		for i, p := range parts {
			testtool.QPDFCheck(t, p.PDF)
			if got := testtool.PageTexts(t, p.PDF); !reflect.DeepEqual(got, c.want[i]) {
				t.Fatalf("%s part %d (%v): pages %q, want %q", c.spec, i, p.Range, got, c.want[i])
			}
			if n := testtool.Info(t, p.PDF)["Pages"]; n != strconv.Itoa(len(c.want[i])) {
				t.Fatalf("pdfinfo Pages %s", n)
			}
		}
	}
}

func TestExtractKeepsOrderAndRepeats(t *testing.T) {
	d := mustRead(t, testpdf.New(5))
	out, err := d.Extract(spec(t, "5,1-2,5", 5))
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	if got := testtool.PageTexts(t, out); !reflect.DeepEqual(got, []string{"Page 5", "Page 1", "Page 2", "Page 5"}) {
		t.Fatalf("pages %q", got)
	}
}

func TestRotate(t *testing.T) {
	d := mustRead(t, testpdf.Make(testpdf.Options{Pages: 3, Rotate: 90}))
	out, err := d.Rotate(90, spec(t, "1,3", 3))
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	info := testtool.Info(t, out, "-f", "1", "-l", "3")
	// The rotation adds to what the page had.
	for page, want := range map[string]string{"1": "180", "2": "90", "3": "180"} {
		if got := info["Page    "+page+" rot"]; got != want {
			t.Fatalf("page %s rot %q, want %s (%v)", page, got, want, info)
		}
	}
	if _, err := d.Rotate(45, spec(t, "all", 3)); fault.CodeOf(err) != fault.InvalidInput {
		t.Fatalf("45 degrees: %v", err)
	}
}

func TestMerge(t *testing.T) {
	a, b := testpdf.New(2), testpdf.New(3)
	out, err := Merge(a, b, a)
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	want := []string{"Page 1", "Page 2", "Page 1", "Page 2", "Page 3", "Page 1", "Page 2"}
	if got := testtool.PageTexts(t, out); !reflect.DeepEqual(got, want) {
		t.Fatalf("pages %q", got)
	}
	if _, err := Merge(a); fault.CodeOf(err) != fault.InvalidInput {
		t.Fatalf("one file: %v", err)
	}
	_, err = Merge(a, []byte("nope"))
	if fault.CodeOf(err) != fault.InvalidPDF || !strings.Contains(err.Error(), "file 2") {
		t.Fatalf("bad second file: %v", err)
	}
}

func TestBadInput(t *testing.T) {
	full := testpdf.New(2)
	enc := filepath.Join(t.TempDir(), "enc.pdf")
	plain := testtool.File(t, "plain.pdf", full)
	testtool.Run(t, "qpdf", "--encrypt", "user", "owner", "256", "--", plain, enc)
	encrypted, _ := os.ReadFile(enc)
	for name, c := range map[string]struct {
		data []byte
		code fault.Code
	}{
		"empty":     {nil, fault.InvalidPDF},
		"text":      {[]byte("hello world"), fault.InvalidPDF},
		"truncated": {full[:len(full)/2], fault.InvalidPDF},
		"header":    {[]byte("%PDF-1.7\n"), fault.InvalidPDF},
		"encrypted": {encrypted, fault.EncryptedPDF},
	} {
		if _, err := Read(c.data); fault.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
	if _, err := Read(testpdf.New(MaxPages + 1)); fault.CodeOf(err) != fault.InvalidPDF || !strings.Contains(err.Error(), "at most") {
		t.Errorf("too many pages: %v", err)
	}
}

func TestSetMetadata(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	title, author, subject, keywords, creator, producer := "Rechnung 2026-001 (Entwurf)", "Jürgen Müller", "Büromaterial", "invoice, 2026", "Papierkram tests", "ACME PDF"
	for name, src := range map[string][]byte{
		"classic xref":     testpdf.Make(testpdf.Options{Pages: 2, Title: "Old"}),
		"xref stream":      xrefStream(t, testpdf.New(2)),
		"corpus blank":     readCorpus(t, "pdf/invoice-blanks/MustangGnuaccountingBeispielRE-20170509_505blanko.pdf"),
		"corpus zugferd23": readCorpus(t, "zugferd/2.3-examples/3. EN16931/EN16931_Einfach/EN16931_Einfach.pdf"),
	} {
		t.Run(name, func(t *testing.T) {
			d := mustRead(t, src)
			out, err := d.SetMetadata(Changes{Title: &title, Author: &author, Subject: &subject, Keywords: &keywords, Creator: &creator, Producer: &producer}, now)
			if err != nil {
				t.Fatal(err)
			}
			testtool.QPDFCheck(t, out)
			info := testtool.Info(t, out)
			for k, want := range map[string]string{"Title": title, "Author": author, "Subject": subject, "Keywords": keywords, "Creator": creator, "Producer": producer} {
				if info[k] != want {
					t.Errorf("pdfinfo %s = %q, want %q", k, info[k], want)
				}
			}
			// Info and XMP agree, as read by a tool we did not write.
			meta := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "m.pdf", out))
			for _, want := range []string{title, author, subject, keywords, creator, producer, "2026-11-22T10:00:00Z"} {
				if !strings.Contains(meta, want) {
					t.Errorf("XMP lacks %q:\n%s", want, meta)
				}
			}
			exif := testtool.Run(t, "exiftool", "-s", "-XMP:all", "-PDF:all", testtool.File(t, "e.pdf", out))
			for _, want := range []string{"Title", "Creator", "Producer", "ModifyDate"} {
				if !strings.Contains(exif, want) {
					t.Errorf("exiftool lacks %s:\n%s", want, exif)
				}
			}
			// The original bytes are untouched: the update is appended.
			if !strings.HasPrefix(string(out), string(src)) && name != "corpus blank" {
				t.Error("the original revision was rewritten")
			}
			// Reading back gives the same values; the page count is unchanged.
			back := mustRead(t, out)
			m, _ := back.Metadata()
			if m.Title != title || m.Author != author || m.Producer != producer || m.ModDate == nil || !m.ModDate.Equal(now) {
				t.Errorf("read back %+v", m)
			}
			if back.PageCount() != d.PageCount() {
				t.Errorf("pages %d, was %d", back.PageCount(), d.PageCount())
			}
			if strings.Contains(name, "zugferd") && !strings.Contains(meta, "pdfaid:part") {
				t.Error("PDF/A identification lost from XMP")
			}
		})
	}
}

// xrefStream rewrites a PDF with object streams and a cross-reference stream (qpdf).
func xrefStream(t *testing.T, b []byte) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "xs.pdf")
	testtool.Run(t, "qpdf", "--object-streams=generate", testtool.File(t, "in.pdf", b), out)
	data, _ := os.ReadFile(out)
	if !strings.Contains(string(data), "/XRef") {
		t.Fatal("qpdf wrote no cross-reference stream")
	}
	return data
}

func readCorpus(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpus, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMetadataOfCorpus(t *testing.T) {
	d := mustRead(t, readCorpus(t, "zugferd/2.3-examples/3. EN16931/EN16931_Einfach/EN16931_Einfach.pdf"))
	m, err := d.Metadata()
	if err != nil {
		t.Fatal(err)
	}
	info := testtool.Info(t, d.src)
	if m.Title != info["Title"] || m.Producer != info["Producer"] {
		t.Fatalf("metadata %+v vs pdfinfo %v", m, info)
	}
	if d.Version() != info["PDF version"] {
		t.Fatalf("version %s vs %s", d.Version(), info["PDF version"])
	}
}

func FuzzRead(f *testing.F) {
	f.Add(testpdf.New(1))
	f.Add(testpdf.New(3))
	f.Add([]byte("%PDF-1.4\n1 0 obj<<>>endobj trailer<</Root 1 0 R>>"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Read(data)
		if err != nil {
			if c := fault.CodeOf(err); c != fault.InvalidPDF && c != fault.EncryptedPDF && c != fault.PayloadTooLarge {
				t.Fatalf("code %s: %v", c, err)
			}
			return
		}
		d.Metadata()
		if _, err := d.Split(pagerange.Spec{{From: 1, To: 1}}); err != nil && fault.CodeOf(err) == fault.Internal {
			t.Fatalf("split: %v", err)
		}
	})
}

func TestInspect(t *testing.T) {
	plain := testtool.File(t, "p.pdf", testpdf.Make(testpdf.Options{Pages: 3, Title: "Hello"}))
	ownerOnly := filepath.Join(t.TempDir(), "o.pdf")
	testtool.Run(t, "qpdf", "--encrypt", "", "owner", "256", "--", plain, ownerOnly)
	b, _ := os.ReadFile(ownerOnly)
	info, err := Inspect(b)
	if err != nil {
		t.Fatal(err)
	}
	ref := testtool.Info(t, b)
	if !info.Encrypted || ref["Encrypted"][:3] != "yes" || info.Pages != 3 || info.Title != "Hello" || info.PDFVersion != ref["PDF version"] {
		t.Fatalf("inspect %+v vs pdfinfo %v", info, ref)
	}
	// Read opens it too (it opens in every viewer) and hands on the decrypted document.
	d, err := Read(b)
	if err != nil || !d.Unlocked() || d.PageCount() != 3 {
		t.Fatalf("Read of an owner-only file: %v", err)
	}
	if show := testtool.Run(t, "qpdf", "--show-encryption", testtool.File(t, "d.pdf", d.Bytes())); !strings.Contains(show, "not encrypted") {
		t.Fatalf("Bytes is still encrypted:\n%s", show)
	}
	if got := testtool.PageTexts(t, d.Bytes()); len(got) != 3 || got[2] != "Page 3" {
		t.Fatalf("pages %q", got)
	}
}

// TestReadPDF20AssociatedFiles: a PDF 2.0 file whose catalog lists associated files (as a
// PDF/A-4 e-invoice does) is read, its attachment found, and what is written of it stays
// PDF 2.0 that qpdf accepts.
func TestReadPDF20AssociatedFiles(t *testing.T) {
	fileSpec := "<< /Type /Filespec /F (factur-x.xml) /UF (factur-x.xml) /AFRelationship /Alternative /EF << /F 5 0 R >> >>"
	src := testpdf.Raw(
		"<< /Type /Catalog /Pages 2 0 R /AF [4 0 R] /Names << /EmbeddedFiles << /Names [(factur-x.xml) 4 0 R] >> >> >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >>",
		fileSpec,
		testpdf.StreamBody("/Type /EmbeddedFile /Subtype /text#2Fxml", "<x/>"),
	)
	src = []byte(strings.Replace(string(src), "%PDF-1.7", "%PDF-2.0", 1))
	ctx, err := api.ReadContext(bytes.NewReader(src), config())
	if err != nil {
		t.Fatal(err)
	}
	if err := api.ValidateContext(ctx); err == nil || !strings.Contains(err.Error(), "PDF 2.0") {
		t.Fatalf("pdfcpu's validation takes the file (%v): the test tests nothing", err)
	}
	d, err := Read(src)
	if err != nil {
		t.Fatal(err)
	}
	atts, err := d.Attachments(1 << 20)
	if err != nil || len(atts) != 1 || string(atts[0].Data) != "<x/>" || !atts[0].Associated {
		t.Fatalf("attachments %+v, %v", atts, err)
	}
	out, err := d.Rotate(90, spec(t, "all", 1))
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	if v := testtool.Info(t, out)["PDF version"]; v != "2.0" {
		t.Fatalf("written as PDF %s", v)
	}
}
