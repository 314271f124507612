package zugferd

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testinvoice"
	"github.com/papierkram/papierkram/internal/testtool"
)

// TestViewPDF: the printed view of invoices of both syntaxes, credit notes, EXTENDED with
// sub-lines, MINIMUM and a ZUGFeRD 2.0 PDF shows every value of the model in pdftotext's
// text (wrapped lines joined), in each of the three languages in turn; it is a PDF/A-3b (exiftool) that qpdf
// accepts, and pdfdetach gives back the invoice XML byte for byte.
func TestViewPDF(t *testing.T) {
	p := printers(t)
	langs := []string{"de", "en", "fr"}
	for i, rel := range []string{
		"xrechnung-testsuite/technical-cases/cius/01.01_comprehensive_test_uncefact.xml",
		"xrechnung-testsuite/technical-cases/cius/01.03_comprehensive_test_ubl.xml",
		"en16931/examples-ubl/ubl-tc434-creditnote1.xml",
		"zugferd/2.3-examples/4. EXTENDED/EXTENDED_Warenrechnung/factur-x.xml",
		"zugferd/2.3-examples/0. MINIMUM/MINIMUM_Rechnung/factur-x.xml",
		"zugferd/zugferd20/zugferd_2p0_EN16931_Gutschrift.pdf",
	} {
		lang := langs[i%len(langs)]
		t.Run(filepath.Base(rel)+"/"+lang, func(t *testing.T) {
			src := corpusFile(t, rel)
			r, err := View(context.Background(), p, src, ViewOptions{Format: "pdf", Language: lang, Name: filepath.Base(rel)})
			if err != nil {
				t.Fatal(err)
			}
			testtool.QPDFCheck(t, r.Data)
			path := testtool.File(t, "view.pdf", r.Data)
			// -raw: the text in the order it is drawn, so the cells of a table row are not
			// interleaved line by line as the layout mode does.
			text := testtool.Run(t, "pdftotext", "-raw", "-enc", "UTF-8", path, "-")
			if missing := testinvoice.MissingInPDF(r.Invoice.Model, text, lang); len(missing) > 0 {
				t.Fatalf("%d values not on the printed page, e.g. %s", len(missing), strings.Join(missing[:min(5, len(missing))], "; "))
			}
			if x := strings.Fields(testtool.Run(t, "exiftool", "-s3", "-XMP-pdfaid:Part", "-XMP-pdfaid:Conformance", path)); len(x) != 2 || x[0] != "3" || x[1] != "B" {
				t.Fatalf("exiftool pdfaid: %q", x)
			}
			out := filepath.Join(t.TempDir(), "x.xml")
			testtool.Run(t, "pdfdetach", "-save", "1", "-o", out, path)
			got, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(r.Invoice.XML) || len(got) == 0 {
				t.Fatal("the attached XML is not the invoice's")
			}
			if !strings.HasSuffix(rel, ".pdf") && string(got) != string(src) {
				t.Fatal("the attached XML is not the uploaded one")
			}
		})
	}
}

// TestViewHTML: the HTML of a hybrid PDF is its XML's view; the verdict banner is there for
// an invoice that breaks a rule, which is shown rather than refused; bad options are refused
// before any work, and a PDF view without engines says what is missing.
func TestViewHTML(t *testing.T) {
	ctx := context.Background()
	hybrid := corpusFile(t, "zugferd/2.3-examples/3. EN16931/EN16931_Einfach/EN16931_Einfach.pdf")
	r, err := View(ctx, Printers{}, hybrid, ViewOptions{Language: "en"})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Invoice.FromPDF || r.Invoice.Name != "factur-x.xml" || !strings.HasPrefix(r.ContentType, "text/html") || !strings.Contains(string(r.Data), r.Invoice.Model.Number) {
		t.Fatalf("%v %q %q", r.Invoice.FromPDF, r.Invoice.Name, r.ContentType)
	}
	valid := corpusFile(t, "en16931/examples-cii/CII_example1.xml")
	broken := []byte(strings.Replace(string(valid), "<ram:GrandTotalAmount>", "<ram:GrandTotalAmount>9", 1))
	r, err = View(ctx, Printers{}, broken, ViewOptions{})
	if err != nil || r.Invoice.Report.Valid || !strings.Contains(string(r.Data), `href="#validation"`) {
		t.Fatalf("an invalid invoice is not shown with its verdict: %v", err)
	}
	for name, c := range map[string]struct {
		data []byte
		o    ViewOptions
		code string
	}{
		"format":     {valid, ViewOptions{Format: "docx"}, "invalid_input"},
		"language":   {valid, ViewOptions{Language: "it"}, "invalid_input"},
		"no printer": {valid, ViewOptions{Format: "pdf"}, "engine_unavailable"},
		"no invoice": {[]byte("<a/>"), ViewOptions{}, "invalid_input"},
		"truncated":  {valid[:len(valid)/2], ViewOptions{}, "invalid_input"},
		"bad pdf":    {[]byte("%PDF-1.7\n1 0 obj"), ViewOptions{}, "invalid_pdf"},
	} {
		if _, err := View(ctx, Printers{}, c.data, c.o); err == nil || string(fault.As(err).Code) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
}
