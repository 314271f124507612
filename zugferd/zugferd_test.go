package zugferd

import (
	"bytes"
	"context"
	"errors"
	"github.com/papierkram/papierkram/einvoice/rules"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/fault"
)

func corpusDir(t testing.TB) string {
	d := filepath.Join("..", "..", "shared", "corpus")
	if _, err := os.Stat(d); err != nil {
		t.Fatalf("corpus not found: %v", err)
	}
	return d
}

// profileOfDir maps the example folders to profiles.
var profileOfDir = map[string]einvoice.Profile{
	"0. MINIMUM": einvoice.Minimum, "1. BASIC WL": einvoice.BasicWL, "2. BASIC": einvoice.Basic,
	"3. EN16931": einvoice.EN16931, "4. EXTENDED": einvoice.Extended, "5. XRECHNUNG": einvoice.XRechnung,
}

// TestExamples: every ZUGFeRD 2.3 example PDF gives back its XML byte for byte, with the
// right profile, and is valid in both parts.
func TestExamples(t *testing.T) {
	pdfs, _ := filepath.Glob(filepath.Join(corpusDir(t), "zugferd", "2.3-examples", "*", "*", "*.pdf"))
	if len(pdfs) < 30 {
		t.Fatalf("only %d example PDFs", len(pdfs))
	}
	for _, f := range pdfs {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		doc, _, err := Extract(context.Background(), data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		xmls, _ := filepath.Glob(filepath.Join(filepath.Dir(f), "*.xml"))
		if len(xmls) != 1 {
			t.Fatalf("%s: %d XML files beside it", name, len(xmls))
		}
		// Byte for byte what poppler's pdfdetach saves; the corpus copy beside the PDF has
		// had its CRLF line ends turned into LF, so it is equal up to that.
		tmp := t.TempDir()
		if out, err := exec.Command("pdfdetach", "-saveall", "-o", tmp, f).CombinedOutput(); err != nil {
			t.Fatalf("pdfdetach: %v %s", err, out)
		}
		detached, err := os.ReadFile(filepath.Join(tmp, doc.FileName))
		if err != nil || !bytes.Equal(doc.XML, detached) {
			t.Errorf("%s: extracted %s (%d bytes) is not what pdfdetach saves (%v)", name, doc.FileName, len(doc.XML), err)
		}
		want, _ := os.ReadFile(xmls[0])
		if !bytes.Equal(bytes.ReplaceAll(doc.XML, []byte("\r\n"), []byte("\n")), bytes.ReplaceAll(want, []byte("\r\n"), []byte("\n"))) || doc.FileName != filepath.Base(xmls[0]) {
			t.Errorf("%s: extracted %s differs from %s", name, doc.FileName, filepath.Base(xmls[0]))
		}
		dir := filepath.Base(filepath.Dir(filepath.Dir(f)))
		if doc.Info.Profile != profileOfDir[dir] {
			t.Errorf("%s: profile %q, want %q", name, doc.Info.Profile, profileOfDir[dir])
		}
		r, err := Validate(context.Background(), data, ValidateOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !r.Valid && !(name == "EN16931_Physiotherapeut.pdf" && onlyFails(r.XML, "BR-FX-EN-04")) {
			t.Errorf("%s: invalid; PDF %+v; XML failures %v", name, r.PDF.Results, r.XML.Failed())
		}
	}
}

// onlyFails tells whether exactly these fatal rules fail in a report. The ZUGFeRD 2.3
// example EN16931_Physiotherapeut names no delivery date, period or delivery country, which
// Factur-X 1.08 requires between German parties (BR-FX-EN-04); the official 1.08
// Schematron rejects it alike.
func onlyFails(r *rules.Report, ids ...string) bool {
	var got []string
	for _, f := range r.Failed() {
		if f.Severity == rules.Fatal {
			got = append(got, f.ID)
		}
	}
	return slices.Equal(got, ids)
}

// TestOlderVersions: ZUGFeRD 2.0 files extract (zugferd-invoice.xml, declared PDF 1.3 yet
// with PDF/A-3 associated files); ZUGFeRD 1.0 files are refused, naming the version.
func TestOlderVersions(t *testing.T) {
	v20, _ := filepath.Glob(filepath.Join(corpusDir(t), "zugferd", "zugferd20", "*.pdf"))
	v10, _ := filepath.Glob(filepath.Join(corpusDir(t), "zugferd", "zugferd10", "*.pdf"))
	if len(v20) == 0 || len(v10) == 0 {
		t.Fatal("ZUGFeRD 2.0 and 1.0 samples missing")
	}
	for _, f := range v20 {
		data, _ := os.ReadFile(f)
		doc, _, err := Extract(context.Background(), data)
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		if !strings.EqualFold(doc.FileName, "zugferd-invoice.xml") || doc.Info.Profile == "" {
			t.Errorf("%s: %s, profile %q", filepath.Base(f), doc.FileName, doc.Info.Profile)
		}
	}
	for _, f := range v10 {
		data, _ := os.ReadFile(f)
		_, _, err := Extract(context.Background(), data)
		var fe *fault.Error
		if !errors.As(err, &fe) || fe.Code != fault.InvalidInput || !strings.Contains(fe.Message, "ZUGFeRD 1.0") {
			t.Errorf("%s: %v, want the ZUGFeRD 1.0 refusal", filepath.Base(f), err)
		}
	}
}

// TestPlainAttachment: an invoice merely attached to an ordinary PDF is found, its XML is
// valid, but the container fails the checks a ZUGFeRD file must pass.
func TestPlainAttachment(t *testing.T) {
	c := corpusDir(t)
	blanks, _ := filepath.Glob(filepath.Join(c, "pdf", "invoice-blanks", "*.pdf"))
	if len(blanks) == 0 {
		t.Fatal("no blank invoices")
	}
	dir := t.TempDir()
	xml := filepath.Join(dir, "factur-x.xml")
	src, _ := os.ReadFile(filepath.Join(c, "zugferd", "2.3-examples", "3. EN16931", "EN16931_Einfach", "factur-x.xml"))
	os.WriteFile(xml, src, 0o600)
	out := filepath.Join(dir, "attached.pdf")
	if err := api.AddAttachmentsFile(blanks[0], out, []string{xml}, false, nil); err != nil {
		t.Fatal(err)
	}
	if list, err := exec.Command("pdfdetach", "-list", out).CombinedOutput(); err != nil || !strings.Contains(string(list), "factur-x.xml") {
		t.Fatalf("pdfdetach: %v %s", err, list)
	}
	data, _ := os.ReadFile(out)
	r, err := Validate(context.Background(), data, ValidateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.XML.Valid || r.PDF.Valid || r.Valid {
		t.Fatalf("xml valid %v, pdf valid %v, valid %v", r.XML.Valid, r.PDF.Valid, r.Valid)
	}
	failed := map[string]bool{}
	for _, x := range r.PDF.Results {
		if !x.Passed {
			failed[x.ID] = true
		}
	}
	for _, id := range []string{"PDFA-ID", "FX-AF", "FX-XMP", "FX-XMP-PROFILE"} {
		if !failed[id] {
			t.Errorf("%s did not fail; results %+v", id, r.PDF.Results)
		}
	}
}

// TestBadInput: no PDF, no attachment, a damaged file: clear errors.
func TestBadInput(t *testing.T) {
	blank, _ := filepath.Glob(filepath.Join(corpusDir(t), "pdf", "invoice-blanks", "*.pdf"))
	data, _ := os.ReadFile(blank[0])
	for name, in := range map[string][]byte{"not a PDF": []byte("hello"), "no attachment": data, "truncated": data[:len(data)/3]} {
		_, err := Validate(context.Background(), in, ValidateOptions{})
		var fe *fault.Error
		if !errors.As(err, &fe) || (fe.Code != fault.InvalidInput && fe.Code != fault.InvalidPDF) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestModDateOfTheXML: FX-MODDATE passes when the embedded XML's stream gives its
// modification date (/Params /ModDate, as the official examples do) and warns when not.
func TestModDateOfTheXML(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpusDir(t), "zugferd/2.3-examples/3. EN16931/EN16931_Einfach/EN16931_Einfach.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	without := bytes.ReplaceAll(data, []byte("/ModDate"), []byte("/XodDate")) // same length: offsets stay
	for name, c := range map[string]struct {
		pdf  []byte
		pass bool
	}{"official": {data, true}, "without /ModDate": {without, false}} {
		r, err := Validate(context.Background(), c.pdf, ValidateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, x := range r.PDF.Results {
			if x.ID == "FX-MODDATE" {
				found = true
				if x.Passed != c.pass || x.Severity != rules.Warning {
					t.Errorf("%s: FX-MODDATE passed %v (%s)", name, x.Passed, x.Severity)
				}
			}
		}
		if !found {
			t.Errorf("%s: no FX-MODDATE result", name)
		}
	}
}
