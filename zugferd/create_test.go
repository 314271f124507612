package zugferd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/convert"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/einvoice/view"
	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/chromium"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testtool"
	"github.com/papierkram/papierkram/netguard"
)

// printers are a real Chromium and Ghostscript for the view and create tests.
func printers(t testing.TB) Printers {
	cr := chromium.New(engine.Config{Concurrency: 1, TempRoot: t.TempDir(), JobTimeout: 60 * time.Second})
	t.Cleanup(func() { cr.Supervisor().Stop(context.Background()) })
	return Printers{Printer: cr, PDFA: gs(t)}
}

func corpusFile(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpusDir(t), rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCreate: a received UBL XRechnung, a UBL credit note and a CII invoice each become a
// hybrid PDF that our own validator accepts (the visible page agreeing with the XML), that qpdf, pdfdetach and exiftool read as a
// PDF/A-3 with the invoice attached, and whose page shows the invoice's number, seller and
// grand total. A CII invoice of its own profile is embedded byte for byte.
func TestCreate(t *testing.T) {
	p := printers(t)
	_, _, withPages := engines(t)
	for _, c := range []struct {
		file, lang, profile, name string
		same                      bool
	}{
		{"xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_ubl.xml", "de", "XRECHNUNG", "xrechnung.xml", false},
		{"en16931/examples-ubl/ubl-tc434-creditnote1.xml", "en", "EN16931", "factur-x.xml", false},
		{"en16931/examples-cii/CII_example1.xml", "fr", "EN16931", "factur-x.xml", true},
	} {
		t.Run(filepath.Base(c.file), func(t *testing.T) {
			src := corpusFile(t, c.file)
			if strings.HasSuffix(c.file, "creditnote1.xml") {
				// The CEN example names neither a due date nor payment terms, which Factur-X
				// 1.08 asks of a positive amount due (BR-CO-25; CEN's UBL rules no longer
				// do): as is it cannot become a Factur-X EN 16931 credit note.
				_, err := Create(context.Background(), p, src, CreateOptions{Language: c.lang, Name: filepath.Base(c.file)})
				if fault.CodeOf(err) != fault.Unprocessable || !strings.Contains(err.Error(), "BR-CO-25") {
					t.Fatalf("without payment terms: %v", err)
				}
				src = bytes.Replace(src, []byte("\t<cac:TaxTotal>"), []byte("\t<cac:PaymentTerms><cbc:Note>Zahlbar sofort</cbc:Note></cac:PaymentTerms>\n\t<cac:TaxTotal>"), 1)
			}
			res, err := Create(context.Background(), p, src, CreateOptions{Language: c.lang, Name: filepath.Base(c.file)})
			if err != nil {
				t.Fatal(err)
			}
			if string(res.Profile) != c.profile || res.FileName != c.name || res.Rewritten == c.same {
				t.Fatalf("profile %s, file %s, rewritten %v", res.Profile, res.FileName, res.Rewritten)
			}
			testtool.QPDFCheck(t, res.PDF)
			got, err := Validate(context.Background(), res.PDF, withPages)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Valid {
				t.Fatalf("our own validator refuses the hybrid: %+v %+v", got.XML.Failed(), got.PDF.Results)
			}
			// The page is drawn from the embedded XML, so the consistency check finds every
			// field it looks for.
			visible := 0
			for _, r := range got.PDF.Results {
				if strings.HasPrefix(r.ID, "FX-VISIBLE") {
					visible++
					if !r.Passed {
						t.Errorf("%s: %s", r.ID, r.Message)
					}
				}
			}
			if visible < 6 {
				t.Fatalf("only %d consistency results", visible)
			}
			path := testtool.File(t, "hybrid.pdf", res.PDF)
			if l := testtool.Run(t, "pdfdetach", "-list", path); !strings.Contains(l, c.name) {
				t.Fatalf("pdfdetach -list: %s", l)
			}
			out := filepath.Join(t.TempDir(), "x.xml")
			testtool.Run(t, "pdfdetach", "-save", "1", "-o", out, path)
			embedded, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if c.same && string(embedded) != string(src) {
				t.Fatal("a CII invoice of its own profile was not embedded byte for byte")
			}
			srcInv, _, err := syntax.Read(context.Background(), src)
			if err != nil {
				t.Fatal(err)
			}
			embInv, in, err := syntax.Read(context.Background(), embedded)
			if err != nil || in.Syntax != syntax.CII {
				t.Fatalf("embedded XML: %v %s", err, in.Syntax)
			}
			if embInv.Number != srcInv.Number || !embInv.Totals.GrossTotal.Equal(srcInv.Totals.GrossTotal) || embInv.Seller.Name != srcInv.Seller.Name {
				t.Fatalf("embedded invoice %s %s %s, source %s %s %s", embInv.Number, embInv.Totals.GrossTotal, embInv.Seller.Name, srcInv.Number, srcInv.Totals.GrossTotal, srcInv.Seller.Name)
			}
			if x := testtool.Run(t, "exiftool", "-s3", "-XMP-pdfaid:Part", "-XMP-pdfaid:Conformance", path); strings.Fields(x)[0] != "3" || strings.ToUpper(strings.Fields(x)[1]) != "B" {
				t.Fatalf("exiftool pdfaid: %q", x)
			}
			text := strings.Join(strings.Fields(testtool.Text(t, res.PDF)), " ")
			for _, want := range []string{srcInv.Number, strings.Join(strings.Fields(srcInv.Seller.Name), " ")} {
				if !strings.Contains(text, want) {
					t.Errorf("the page does not show %q", want)
				}
			}
		})
	}
}

// TestCreateRefuses: an invoice with fatal errors is refused with its report, a PDF and a
// file that is no invoice are refused, bad options are refused before any work, and without
// the engines the answer says what is missing.
func TestCreateRefuses(t *testing.T) {
	ctx := context.Background()
	valid := corpusFile(t, "en16931/examples-cii/CII_example1.xml")
	broken := []byte(strings.Replace(string(valid), "<ram:GrandTotalAmount>", "<ram:GrandTotalAmount>9", 1))
	none := Printers{}
	p := printers(t)
	for _, c := range []struct {
		name string
		p    Printers
		data []byte
		o    CreateOptions
		code fault.Code
	}{
		{"fatal errors", p, broken, CreateOptions{}, fault.InvalidInput},
		{"not xml", p, []byte("hello"), CreateOptions{}, fault.InvalidInput},
		{"pdf", p, corpusFile(t, "zugferd/2.3-examples/3. EN16931/EN16931_Einfach/EN16931_Einfach.pdf"), CreateOptions{}, fault.InvalidInput},
		{"language", p, valid, CreateOptions{Language: "it"}, fault.InvalidInput},
		{"profile", p, valid, CreateOptions{Profile: "GOLD"}, fault.InvalidInput},
		{"no engines", none, valid, CreateOptions{}, fault.EngineUnavailable},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Create(ctx, c.p, c.data, c.o)
			if fault.As(err).Code != c.code {
				t.Fatalf("%v, want %s", err, c.code)
			}
			if c.name == "fatal errors" {
				if _, ok := fault.As(err).Details["report"]; !ok {
					t.Fatal("the refusal carries no report")
				}
			}
		})
	}
}

// BenchmarkView prints the view of a 10-line invoice (the EN 16931 example 8) as PDF/A-3b with its XML attached; the
// baseline in the same run is html-to-pdf's path (Chromium, then the PDF/A step) on the very
// same HTML, so the ratio is what reading, validating, rendering and attaching add.
func BenchmarkView(b *testing.B) {
	p := printers(b)
	src := corpusFile(b, "en16931/examples-cii/CII_example8.xml")
	inv, _, err := syntax.Read(context.Background(), src)
	if err != nil {
		b.Fatal(err)
	}
	page, err := view.HTML(inv, view.Options{Language: "de", Print: true})
	if err != nil {
		b.Fatal(err)
	}
	// The browser's start belongs to neither side.
	if _, err := View(context.Background(), p, src, ViewOptions{Format: "pdf"}); err != nil {
		b.Fatal(err)
	}
	b.Run("html-to-pdf", func(b *testing.B) {
		for b.Loop() {
			if _, err := convert.HTML(context.Background(), p.Printer, p.PDFA, netguard.Policy{}, &convert.HTMLRequest{HTML: string(page), OutputProfile: "PDF/A-3b"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("view-pdf", func(b *testing.B) {
		for b.Loop() {
			if _, err := View(context.Background(), p, src, ViewOptions{Format: "pdf"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("view-html", func(b *testing.B) {
		for b.Loop() {
			if _, err := View(context.Background(), p, src, ViewOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
