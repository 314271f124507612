package pdf

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

// TestEmbed: files embed into classic and stream cross-reference files alike; other
// attachments stay, one of the same name (any case) or a listed name is replaced, and
// qpdf, pdfdetach and pdfinfo agree with our reading.
func TestEmbed(t *testing.T) {
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	for name, src := range map[string][]byte{
		"classic xref": testpdf.New(2),
		"xref stream":  xrefStream(t, testpdf.New(2)),
	} {
		t.Run(name, func(t *testing.T) {
			step := func(b []byte, f File, o EmbedOptions) []byte {
				t.Helper()
				out, err := mustRead(t, b).Embed(f, o, now)
				if err != nil {
					t.Fatal(err)
				}
				testtool.QPDFCheck(t, out)
				if !bytes.HasPrefix(out, b) {
					t.Error("the update rewrote the original bytes")
				}
				return out
			}
			out := step(src, File{Name: "notes.txt", MIME: "text/plain", Relationship: "Supplement", Data: []byte("hello")}, EmbedOptions{})
			out = step(out, File{Name: "zugferd-invoice.xml", MIME: "text/xml", Relationship: "Alternative", Data: []byte("<old/>")}, EmbedOptions{})
			title := "Rechnung Ä"
			out = step(out, File{Name: "factur-x.xml", MIME: "text/xml", Relationship: "Alternative", Description: "invoice", Data: []byte("<new/>")},
				EmbedOptions{Replace: []string{"ZUGFERD-invoice.xml"}, Changes: Changes{Title: &title},
					Schema: &XMPSchema{Name: "Test", NamespaceURI: "urn:test#", Prefix: "tst", Properties: []XMPProperty{{Name: "Kind", Value: "K1", Description: "d"}}}})
			out = step(out, File{Name: "NOTES.TXT", MIME: "text/plain", Relationship: "Supplement", Data: []byte("second")}, EmbedOptions{})

			list := testtool.Run(t, "pdfdetach", "-list", testtool.File(t, "e.pdf", out))
			if !strings.Contains(list, "2 embedded files") || !strings.Contains(list, "NOTES.TXT") || !strings.Contains(list, "factur-x.xml") || strings.Contains(list, "zugferd") {
				t.Errorf("pdfdetach -list:\n%s", list)
			}
			atts, err := mustRead(t, out).Attachments(1 << 20)
			if err != nil || len(atts) != 2 {
				t.Fatalf("%d attachments, %v", len(atts), err)
			}
			for _, a := range atts {
				if !a.Associated || (a.Name == "factur-x.xml") != (string(a.Data) == "<new/>") || (a.Name == "NOTES.TXT") != (string(a.Data) == "second") {
					t.Errorf("%+v", a)
				}
			}
			d := mustRead(t, out)
			if p := d.XMPProperties("urn:test#"); p["Kind"] != "K1" {
				t.Errorf("XMP property: %v", p)
			}
			if !strings.Contains(string(d.XMP()), "<pdfaSchema:namespaceURI>urn:test#</pdfaSchema:namespaceURI>") {
				t.Error("no extension schema declaration")
			}
			if info := testtool.Info(t, out); info["Title"] != title {
				t.Errorf("title %q", info["Title"])
			}
		})
	}
}
