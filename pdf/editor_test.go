package pdf

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
	"github.com/papierkram/papierkram/pdf/pagerange"
)

// xmpPDF is a veraPDF sample that must pass PDF/A-2b: Info and an XMP packet that agree,
// and a cross-reference stream (the other form of the increments write appends).
const xmpPDF = "../../shared/corpus/verapdf/PDF_A-2b/6.1 File structure/6.1.12 Permissions/veraPDF test suite 6-1-12-t02-pass-a.pdf"

// noInfoPDF has an XMP packet and no Info dictionary: pdfcpu's writer made one up.
const noInfoPDF = "../../shared/corpus/verapdf/PDF_A-2b/6.2 Graphics/6.2.11 Fonts/6.2.11.6 Character encodings/veraPDF test suite 6-2-11-6-t02-pass-c.pdf"

// TestEditsKeepMetadata: an edit of the pages leaves the metadata as it was. pdfcpu's
// writer stamped its own Producer and the time of the edit as CreationDate, and Info no
// longer matched the XMP packet.
func TestEditsKeepMetadata(t *testing.T) {
	withXMP, err := os.ReadFile(filepath.FromSlash(xmpPDF))
	if err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string][]byte{
		"classic": testpdf.Make(testpdf.Options{Pages: 3, Title: "Quarterly report"}),
		"xmp":     withXMP,
		"no-info": must(os.ReadFile(filepath.FromSlash(noInfoPDF))),
	} {
		d, err := Read(src)
		if err != nil {
			t.Fatal(err)
		}
		all, err := pagerange.Parse("1-", d.PageCount())
		if err != nil {
			t.Fatal(err)
		}
		stamp := testpdf.Text("Helvetica", 40, "DRAFT")
		edits := map[string]func() ([]byte, error){
			"rotate":  func() ([]byte, error) { return d.Rotate(90, all) },
			"overlay": func() ([]byte, error) { return d.Overlay(stamp, 0.5) },
			"extract": func() ([]byte, error) { return d.Extract(all) },
		}
		want := testtool.Info(t, src, "-isodates")
		wantMeta := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "src.pdf", src))
		for edit, do := range edits {
			out, err := do()
			if err != nil {
				t.Fatalf("%s %s: %v", name, edit, err)
			}
			testtool.QPDFCheck(t, out)
			got := testtool.Info(t, out, "-isodates")
			for _, k := range []string{"Title", "Producer", "Creator", "CreationDate", "ModDate"} {
				if got[k] != want[k] {
					t.Errorf("%s %s: %s %q, was %q", name, edit, k, got[k], want[k])
				}
			}
			if edit != "extract" { // a part has a catalog of its own, without the XMP
				if meta := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "out.pdf", out)); meta != wantMeta {
					t.Errorf("%s %s: the XMP packet changed", name, edit)
				}
			}
		}
		if want["Producer"] == "" && name != "no-info" {
			t.Fatalf("%s: the sample has no Producer: the test sees nothing", name)
		}
	}
}

// TestEditorChain: title, stamp and rotation in one edit come out together, with Info and
// XMP agreeing on the new title, from one parse of the input.
func TestEditorChain(t *testing.T) {
	for name, src := range map[string][]byte{
		"classic": testpdf.Make(testpdf.Options{Pages: 2, Title: "Old"}),
		"xmp":     must(os.ReadFile(filepath.FromSlash(xmpPDF))),
	} {
		e := Edit(src)
		title := "Angebot Nr. 4711 – geprüft"
		e.SetMetadata(Changes{Title: &title})
		// A small stamp whose text, "Page 1", lands on a page of any size.
		stamp := testpdf.Make(testpdf.Options{Pages: 1, Width: 200, Height: 150})
		if err := e.Overlay(stamp, 0.4); err != nil {
			t.Fatal(err)
		}
		if err := e.Rotate(90, pagerange.Spec{{From: 1, To: 1}}); err != nil {
			t.Fatal(err)
		}
		out, err := e.Bytes(time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		testtool.QPDFCheck(t, out)
		info := testtool.Info(t, out, "-isodates", "-f", "1", "-l", "1")
		if info["Title"] != title || info["Page    1 rot"] != "90" || info["ModDate"] != "2026-11-26T10:00:00Z" {
			t.Errorf("%s: title %q, page 1 rot %q, ModDate %q", name, info["Title"], info["Page    1 rot"], info["ModDate"])
		}
		if meta := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "out.pdf", out)); !strings.Contains(meta, title) {
			t.Errorf("%s: the XMP packet lacks the title:\n%s", name, meta)
		}
		if was, text := testtool.Text(t, src), testtool.Text(t, out); strings.Count(text, "Page 1") <= strings.Count(was, "Page 1") {
			t.Errorf("%s: the stamp is not on the pages: %q", name, text)
		}
		// The pages were written once: one full write and at most two increments on it
		// (the Info kept, the metadata set).
		if n := bytes.Count(out, []byte("startxref")); n > 3 {
			t.Errorf("%s: %d cross-reference sections", name, n)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestQuickMetadata: metadata alone on a file as Chromium writes it (one classic xref
// section, no XMP) is written without reading the document, and comes out as the full
// path writes it: the same Info (pdfinfo), an XMP packet with the title, a file qpdf and
// our own reader accept. Files of other kinds take the full path.
func TestQuickMetadata(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	title := "Quartalsbericht (Q3) – geprüft"
	src := testpdf.Make(testpdf.Options{Pages: 3, Title: "about:blank"})
	quick, ok := quickMetadata(src, Changes{Title: &title}, now)
	if !ok {
		t.Fatal("a plain classic file did not take the quick path")
	}
	d, err := Read(src)
	if err != nil {
		t.Fatal(err)
	}
	full, err := d.SetMetadata(Changes{Title: &title}, now)
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, quick)
	got, want := testtool.Info(t, quick, "-isodates"), testtool.Info(t, full, "-isodates")
	for _, k := range []string{"Title", "Producer", "Creator", "CreationDate", "ModDate", "Pages", "Metadata Stream"} {
		if got[k] != want[k] {
			t.Errorf("%s: quick %q, full %q", k, got[k], want[k])
		}
	}
	if got["Title"] != title {
		t.Errorf("Title %q", got["Title"])
	}
	if meta := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "q.pdf", quick)); !strings.Contains(meta, "Quartalsbericht (Q3)") {
		t.Errorf("the XMP packet has no title:\n%s", meta)
	}
	back, err := Read(quick)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := back.Metadata(); err != nil || m.Title != title {
		t.Errorf("read back %q, %v", m.Title, err)
	}
	// Through the Editor, metadata alone takes the quick path: the result is the same.
	e := Edit(src)
	e.SetMetadata(Changes{Title: &title})
	if viaEditor, err := e.Bytes(now); err != nil || !bytes.Equal(viaEditor, quick) || e.doc != nil {
		t.Errorf("the editor did not write metadata alone without reading (err %v, parsed %v)", err, e.doc != nil)
	}

	// Not for the quick path: an XMP packet to keep in step, an earlier increment, a
	// cross-reference stream, something that is no PDF.
	for name, b := range map[string][]byte{
		"xmp":       must(os.ReadFile(filepath.FromSlash(xmpPDF))),
		"increment": full,
		"truncated": src[:len(src)/2],
		"garbage":   []byte("%PDF-1.7\nxref\n0 99999999\ntrailer\n<<>>\nstartxref\n9\n%%EOF"),
	} {
		if _, ok := quickMetadata(b, Changes{Title: &title}, now); ok {
			t.Errorf("%s took the quick path", name)
		}
	}
}

// FuzzQuickMetadata: whatever the bytes, the quick path never fails loudly, and what it
// writes our own reader reads, with the title set.
func FuzzQuickMetadata(f *testing.F) {
	f.Add(testpdf.Make(testpdf.Options{Pages: 1, Title: "x"}))
	f.Add([]byte("%PDF-1.4\nxref\n0 1\n0000000000 65535 f \ntrailer\n<</Size 1>>\nstartxref\n9\n%%EOF"))
	title := "Neu"
	f.Fuzz(func(t *testing.T, b []byte) {
		out, ok := quickMetadata(b, Changes{Title: &title}, time.Now())
		if !ok {
			return
		}
		if _, err := Read(b); err != nil {
			return // the input was no PDF our reader takes; the increment cannot mend that
		}
		d, err := Read(out)
		if err != nil {
			t.Fatalf("the quick path wrote what the reader refuses: %v", err)
		}
		if m, _ := d.Metadata(); m.Title != title {
			t.Fatalf("title %q", m.Title)
		}
	})
}
