package docx

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/papierkram/papierkram/convert"
	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/office"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testoffice"
	"github.com/papierkram/papierkram/internal/testtool"
)

// TestEmbedFonts: the Go fonts, installed nowhere, are embedded into a .docx that names
// them; LibreOffice then draws and embeds them in the PDF (pdffonts shows them). A font the
// document does not name is not embedded.
func TestEmbedFonts(t *testing.T) {
	body := `<w:p><w:r><w:rPr><w:rFonts w:ascii="Go" w:hAnsi="Go"/></w:rPr><w:t>Hallo in Go</w:t></w:r></w:p>` +
		`<w:p><w:r><w:rPr><w:rFonts w:ascii="Go" w:hAnsi="Go"/><w:b/></w:rPr><w:t>fett</w:t></w:r></w:p>`
	doc := testoffice.Docx(body, nil, nil)
	faces := []convert.FontFace{
		{Family: "Go", Weight: 400, Format: "truetype", Data: goregular.TTF},
		{Family: "Go", Weight: 700, Format: "truetype", Data: gobold.TTF},
		{Family: "Unused Sans", Weight: 400, Format: "truetype", Data: goregular.TTF},
	}
	out, err := EmbedFonts(doc, faces)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Open(out)
	if err != nil {
		t.Fatal(err)
	}
	table := string(p.parts["word/fontTable.xml"])
	if !strings.Contains(table, `w:name="Go"`) || !strings.Contains(table, "w:embedRegular") || !strings.Contains(table, "w:embedBold") || strings.Contains(table, "Unused") {
		t.Errorf("font table:\n%s", table)
	}
	odttf := p.parts["word/fonts/papierkram-font1.odttf"]
	if len(odttf) != len(goregular.TTF) || bytes.Equal(odttf[:32], goregular.TTF[:32]) || !bytes.Equal(odttf[32:], goregular.TTF[32:]) {
		t.Error("the font part is not the obfuscated font")
	}
	if unchanged, _ := EmbedFonts(doc, faces[2:]); !bytes.Equal(unchanged, doc) {
		t.Error("a document naming none of the fonts changed")
	}

	o, err := office.New(engine.Config{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close(context.Background()) })
	pdf, err := ToPDF(t.Context(), o, Request{Document: doc, Filename: "go.docx", Fonts: faces})
	if err != nil {
		t.Fatal(err)
	}
	fonts := testtool.Run(t, "pdffonts", testtool.File(t, "go.pdf", pdf))
	if !strings.Contains(fonts, "Go-Regular") && !strings.Contains(fonts, "+Go") || !strings.Contains(fonts, "Go-Bold") && !strings.Contains(fonts, "Go Bold") {
		t.Errorf("LibreOffice did not draw with the embedded fonts:\n%s", fonts)
	}
	if text := testtool.Text(t, pdf); !strings.Contains(text, "Hallo in Go") {
		t.Errorf("text %q", text)
	}
	// The next document, on the same (one) process slot, does not see them: the process that
	// loaded embedded fonts was replaced.
	plain, err := ToPDF(t.Context(), o, Request{Document: doc, Filename: "go.docx"})
	if err != nil {
		t.Fatal(err)
	}
	if f := testtool.Run(t, "pdffonts", testtool.File(t, "plain.pdf", plain)); strings.Contains(f, "Go-") || strings.Contains(f, "+Go") {
		t.Errorf("Go fonts without embedding?\n%s", f)
	}
	if st := o.Supervisor().Stats(); st.Restarts < 1 {
		t.Errorf("restarts %d", st.Restarts)
	}
}

// FuzzEmbedFonts: any package either gets the font or is refused as the caller's fault.
func FuzzEmbedFonts(f *testing.F) {
	f.Add(testoffice.Docx(`<w:p><w:r><w:rPr><w:rFonts w:ascii="Go"/></w:rPr><w:t>x</w:t></w:r></w:p>`, nil, nil))
	f.Add(testoffice.Docx(`<w:p/>`, map[string][]byte{"word/fontTable.xml": []byte(`<w:fonts xmlns:w="` + nsW + `"><w:font w:name="Go"><w:embedBold/></w:font></w:fonts>`)}, nil))
	faces := []convert.FontFace{{Family: "Go", Weight: 400, Data: goregular.TTF[:64]}}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := EmbedFonts(data, faces)
		if err != nil {
			if fault.CodeOf(err) != fault.InvalidInput {
				t.Fatalf("code %s: %v", fault.CodeOf(err), err)
			}
			return
		}
		if _, err := Open(out); err != nil && !bytes.Equal(out, data) {
			t.Fatalf("the result does not open: %v", err)
		}
	})
}
