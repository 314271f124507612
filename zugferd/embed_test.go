package zugferd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/cii"
	"github.com/papierkram/papierkram/einvoice/rules"
	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/ghostscript"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testtool"
)

func gs(t testing.TB) *ghostscript.Ghostscript {
	g := ghostscript.New(engine.Config{Concurrency: 2, JobTimeout: 60 * time.Second, TempRoot: t.TempDir()})
	t.Cleanup(func() { g.Supervisor().Stop(context.Background()) })
	return g
}

func exampleXML(t testing.TB, p einvoice.Profile) []byte {
	t.Helper()
	x, err := cii.Write(einvoice.Example(), cii.Options{Profile: p})
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestEmbedBlanks: every invoice blank of the corpus, with an invoice of every profile,
// becomes a file that qpdf, pdfdetach, exiftool, pdffonts and our own validation accept,
// with the page text as it was and the XML given back byte for byte. A blank that is
// already PDF/A-3 is not converted; the others are, once, and the later embeds replace the
// earlier invoice in the converted file.
func TestEmbedBlanks(t *testing.T) {
	blanks, _ := filepath.Glob(filepath.Join(corpusDir(t), "pdf", "invoice-blanks", "*.pdf"))
	if len(blanks) < 4 {
		t.Fatalf("only %d blanks", len(blanks))
	}
	g := gs(t)
	now := time.Date(2026, 11, 22, 10, 30, 0, 0, time.UTC)
	for _, f := range blanks {
		t.Run(filepath.Base(f), func(t *testing.T) {
			blank, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			wantText := words(testtool.Text(t, blank))
			alreadyA3 := strings.HasSuffix(f, "A3.pdf")
			first, err := Embed(context.Background(), g, blank, exampleXML(t, einvoice.EN16931), Options{Now: now})
			if err != nil {
				t.Fatal(err)
			}
			if first.Converted == alreadyA3 {
				t.Errorf("converted %v, want %v", first.Converted, !alreadyA3)
			}
			base := first.PDF
			if alreadyA3 {
				base = blank
			}
			for _, p := range einvoice.Profiles {
				t.Run(string(p), func(t *testing.T) {
					xml := exampleXML(t, p)
					res, err := Embed(context.Background(), g, base, xml, Options{Now: now})
					if err != nil {
						t.Fatal(err)
					}
					if res.Converted {
						t.Error("a PDF/A-3 input was converted again")
					}
					checkEmbedded(t, res.PDF, xml, p)
					if got := words(testtool.Text(t, res.PDF)); got != wantText {
						t.Errorf("page text changed:\n%s\nwant\n%s", got, wantText)
					}
				})
			}
		})
	}
}

// checkEmbedded asserts a Factur-X file as tools we did not write see it.
func checkEmbedded(t *testing.T, out, xml []byte, p einvoice.Profile) {
	t.Helper()
	testtool.QPDFCheck(t, out)
	path := testtool.File(t, "embedded.pdf", out)
	name := FileName(p)
	list := testtool.Run(t, "pdfdetach", "-list", path)
	if !strings.Contains(list, "1 embedded files") || !strings.Contains(list, "1: "+name+"\n") {
		t.Errorf("pdfdetach -list:\n%s", list)
	}
	saved := filepath.Join(t.TempDir(), "x.xml")
	testtool.Run(t, "pdfdetach", "-save", "1", "-o", saved, path)
	if b, _ := os.ReadFile(saved); !bytes.Equal(b, xml) {
		t.Error("pdfdetach saves other bytes than were embedded")
	}
	var meta []map[string]any
	dec := json.NewDecoder(strings.NewReader(testtool.Run(t, "exiftool", "-json", "-XMP:all", "-PDF:Title", "-PDF:ModifyDate", "-G1", path)))
	dec.UseNumber() // keep fx:Version "1.0" as written
	if err := dec.Decode(&meta); err != nil || len(meta) != 1 {
		t.Fatalf("exiftool: %v", err)
	}
	m := meta[0]
	if s, ok := m["XMP-xmp:ModifyDate"].(string); ok { // XMP writes UTC as Z, Info as +00'00'
		m["XMP-xmp:ModifyDate"] = strings.TrimSuffix(s, "Z") + "+00:00"
	}
	for k, want := range map[string]any{
		"XMP-pdfaid:Part": json.Number("3"), "XMP-pdfaid:Conformance": "B",
		"XMP-fx:DocumentType": "INVOICE", "XMP-fx:DocumentFileName": name, "XMP-fx:Version": json.Number("1.0"),
		"XMP-fx:ConformanceLevel": conformanceLevel[p][0],
		"XMP-dc:Title":            m["PDF:Title"], "XMP-xmp:ModifyDate": m["PDF:ModifyDate"],
	} {
		if m[k] != want || want == nil {
			t.Errorf("%s = %v, want %v", k, m[k], want)
		}
	}
	if s, _ := m["XMP-pdfaExtension:SchemasNamespaceURI"].(string); !strings.Contains(s, nsFacturX) {
		// exiftool flattens the extension schema list; a single schema is a string.
		if arr, ok := m["XMP-pdfaExtension:SchemasNamespaceURI"].([]any); !ok || !containsAny(arr, nsFacturX) {
			t.Errorf("no extension schema declares %s: %v", nsFacturX, m["XMP-pdfaExtension:SchemasNamespaceURI"])
		}
	}
	for _, line := range strings.Split(testtool.Run(t, "pdffonts", path), "\n")[2:] {
		if f := strings.Fields(line); len(f) >= 5 && f[len(f)-5] != "yes" {
			t.Errorf("font not embedded: %s", line)
		}
	}
	r, err := Validate(context.Background(), out, ValidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Valid || r.Profile != string(p) || r.FileName != name {
		b, _ := json.MarshalIndent(r.PDF, "", " ")
		t.Errorf("own validation: valid %v, profile %s, file %s\n%s", r.Valid, r.Profile, r.FileName, b)
	}
	for _, x := range r.PDF.Results {
		if !x.Passed {
			t.Errorf("%s: %s", x.ID, x.Message)
		}
	}
	doc, _, err := Extract(context.Background(), out)
	if err != nil || !bytes.Equal(doc.XML, xml) || doc.Relationship != Relationship(p) || doc.MIME != "text/xml" || !doc.Associated {
		t.Errorf("extract(embed(x)): err %v, relationship %s, mime %s, associated %v", err, doc.Relationship, doc.MIME, doc.Associated)
	}
}

// words is a text's words in sorted order: the PDF/A conversion may move a line by a
// fraction of a point, which changes pdftotext's line order, not what is on the page.
func words(s string) string {
	w := strings.Fields(s)
	slices.Sort(w)
	return strings.Join(w, " ")
}

func containsAny(arr []any, s string) bool {
	for _, v := range arr {
		if v == s {
			return true
		}
	}
	return false
}

// TestEmbedRefuses: an invalid invoice is refused with its report before anything is
// embedded; UBL, broken XML and broken PDFs are refused with 400-class codes.
func TestEmbedRefuses(t *testing.T) {
	blank, err := os.ReadFile(filepath.Join(corpusDir(t), "pdf", "invoice-blanks", "MustangGnuaccountingBeispielRE-20201121_508blankoA3.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	inv := einvoice.Example()
	inv.Totals.AmountDue = einvoice.MustDecimal("999.99") // BR-CO-16 no longer holds
	bad, err := cii.Write(inv, cii.Options{Profile: einvoice.EN16931})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Embed(context.Background(), nil, blank, bad, Options{})
	e := fault.As(err)
	if e == nil || e.Code != fault.InvalidInput || !strings.Contains(e.Message, "BR-CO-16") {
		t.Fatalf("invalid invoice: %v", err)
	}
	if r, ok := e.Details["report"].(*rules.Report); !ok || r.Valid || r.Summary.Errors == 0 {
		t.Errorf("no report in the details: %#v", e.Details)
	}

	ubl, err := os.ReadFile(filepath.Join(corpusDir(t), "xrechnung", "ubl", "01.01a-INVOICE_ubl.xml"))
	if err != nil {
		ubl = []byte(`<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2"/>`)
	}
	good := exampleXML(t, einvoice.EN16931)
	for name, c := range map[string]struct {
		pdf, xml []byte
		code     fault.Code
	}{
		"ubl":           {blank, ubl, fault.InvalidInput},
		"not xml":       {blank, []byte("{}"), fault.InvalidInput},
		"truncated pdf": {blank[:len(blank)/3], good, fault.InvalidPDF},
		"not a pdf":     {[]byte("hello"), good, fault.InvalidPDF},
	} {
		_, err := Embed(context.Background(), nil, c.pdf, c.xml, Options{})
		if got := fault.CodeOf(err); got != c.code {
			t.Errorf("%s: %v (%s), want %s", name, err, got, c.code)
		}
	}
}
