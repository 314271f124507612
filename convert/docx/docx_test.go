package docx

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/office"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testoffice"
	"github.com/papierkram/papierkram/internal/testtool"
)

const (
	relHeader = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/header"
	relFooter = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer"
)

func part(xml string) []byte {
	return []byte(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + xml)
}

// template is an invoice-like template with split tags, a repeated table row, block and
// inline conditions, an image, a header with a value and a footer with the page number.
func template() []byte {
	cell := func(s string) string { return `<w:tc><w:p><w:r><w:t>` + s + `</w:t></w:r></w:p></w:tc>` }
	body := `<w:p><w:r><w:t xml:space="preserve">Rechnung für {{ku</w:t></w:r><w:r><w:rPr><w:b/></w:rPr><w:t>nde}}</w:t></w:r></w:p>` +
		`<w:p><w:r><w:t>Logo: {{logo}} Ende</w:t></w:r></w:p>` +
		`<w:tbl><w:tblPr><w:tblBorders><w:top w:val="single" w:sz="4"/><w:bottom w:val="single" w:sz="4"/><w:insideH w:val="single" w:sz="4"/></w:tblBorders></w:tblPr>` +
		`<w:tr>` + cell("Artikel") + cell("Preis") + `</w:tr>` +
		`<w:tr>` + cell("{#items}{{name}}") + cell("{{price}}{/items}") + `</w:tr>` +
		`<w:tr>` + cell("Summe") + cell("{{total}}") + `</w:tr></w:tbl>` +
		testoffice.Paragraphs("{#vip}", "Sie sind Stammkunde {{kunde}}.", "{/vip}", "{#kein}", "Versteckter Absatz", "{/kein}") +
		`<w:p><w:r><w:t xml:space="preserve">Status: {^vip}Neukunde{/vip}{#vip}Stammkunde{/vip}, Hinweis: {{hinweis}}</w:t></w:r></w:p>` +
		`<w:sectPr><w:headerReference w:type="default" r:id="rIdH"/><w:footerReference w:type="default" r:id="rIdF"/><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1417" w:right="1417" w:bottom="1134" w:left="1417" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr>`
	ns := `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`
	return testoffice.Docx(body, map[string][]byte{
		"word/header1.xml": part(`<w:hdr ` + ns + `><w:p><w:r><w:t>Kopf {{firma}}</w:t></w:r></w:p></w:hdr>`),
		"word/footer1.xml": part(`<w:ftr ` + ns + `><w:p><w:r><w:t xml:space="preserve">Seite </w:t></w:r><w:fldSimple w:instr="PAGE"><w:r><w:t>1</w:t></w:r></w:fldSimple></w:p></w:ftr>`),
	}, map[string][2]string{"rIdH": {relHeader, "header1.xml"}, "rIdF": {relFooter, "footer1.xml"}})
}

func pngDataURL(t *testing.T) string {
	img := image.NewRGBA(image.Rect(0, 0, 60, 30))
	for x := range 60 {
		for y := range 30 {
			img.Set(x, y, color.RGBA{200, 30, 30, 255})
		}
	}
	var buf bytes.Buffer
	png.Encode(&buf, img)
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes())
}

func vars(t *testing.T) map[string]any {
	var v map[string]any
	js := `{"kunde":"Müller GmbH","firma":"Papierkram AG","vip":true,"kein":false,"total":"3,50 €","hinweis":"A & B <C>",
		"items":[{"name":"Apfel","price":"1,00 €"},{"name":"Birne","price":"2,50 €"}]}`
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatal(err)
	}
	v["logo"] = map[string]any{"image": pngDataURL(t), "width": "30mm"}
	return v
}

func documentXML(t *testing.T, docx []byte) string {
	z, err := zip.NewReader(bytes.NewReader(docx), int64(len(docx)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range z.File {
		if f.Name == "word/document.xml" {
			r, _ := f.Open()
			b, _ := io.ReadAll(r)
			return string(b)
		}
	}
	t.Fatal("no document.xml")
	return ""
}

func TestFillXML(t *testing.T) {
	out, err := Fill(template(), vars(t))
	if err != nil {
		t.Fatal(err)
	}
	x := documentXML(t, out)
	for _, want := range []string{"Rechnung für Müller GmbH", "A &amp; B &lt;C&gt;", "Sie sind Stammkunde Müller GmbH.", "Status: Stammkunde,", "r:embed=\"rIdPapierkram1\""} {
		if !strings.Contains(x, want) {
			t.Errorf("document.xml lacks %q", want)
		}
	}
	for _, gone := range []string{"{{", "{#", "{/", "{^", "Versteckter Absatz", "Neukunde"} {
		if strings.Contains(x, gone) {
			t.Errorf("document.xml still has %q", gone)
		}
	}
	if a, b := strings.Index(x, "Apfel"), strings.Index(x, "Birne"); a < 0 || b < a {
		t.Errorf("rows not repeated in order: %d %d", a, b)
	}
	if n := strings.Count(x, "<w:tr>"); n != 4 {
		t.Errorf("%d table rows, want 4 (header, 2 items, total)", n)
	}
}

func TestTemplateToPDF(t *testing.T) {
	o, err := office.New(engine.Config{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close(context.Background()) })
	pdf, err := ToPDF(context.Background(), o, Request{Document: template(), Filename: "rechnung.docx", Variables: vars(t)})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, pdf)
	text := testtool.Text(t, pdf)
	for _, want := range []string{"Rechnung für Müller GmbH", "Kopf Papierkram AG", "Seite 1", "Apfel", "Birne", "3,50 €", "Sie sind Stammkunde", "A & B <C>", "Logo:", "Ende"} {
		if !strings.Contains(text, want) {
			t.Errorf("PDF text lacks %q:\n%s", want, text)
		}
	}
	if strings.Index(text, "Apfel") > strings.Index(text, "Birne") {
		t.Error("items out of order")
	}
	if strings.Contains(text, "Versteckter") || strings.Contains(text, "{{") {
		t.Errorf("hidden or unfilled text in the PDF:\n%s", text)
	}
	imgs := testtool.Run(t, "pdfimages", "-list", testtool.File(t, "x.pdf", pdf))
	if strings.Count(imgs, "\n") < 3 { // two header lines and at least one image
		t.Errorf("no image in the PDF:\n%s", imgs)
	}

	// PDF/A-3b from LibreOffice's own export.
	pdfa, err := ToPDF(context.Background(), o, Request{Document: template(), Variables: vars(t), PDFA: true})
	if err != nil {
		t.Fatal(err)
	}
	if xmp := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "a.pdf", pdfa)); !strings.Contains(xmp, "<pdfaid:part>3</pdfaid:part>") {
		t.Error("no PDF/A-3 identification")
	}
}

func TestBadTemplates(t *testing.T) {
	for name, c := range map[string]struct {
		doc  []byte
		vars map[string]any
		want string
	}{
		"not a zip":      {[]byte("hello"), map[string]any{"a": "b"}, "not a valid .docx"},
		"unclosed":       {testoffice.Simple("{#a}", "x"), map[string]any{"a": true}, "no closing"},
		"stray close":    {testoffice.Simple("x {/a}"), map[string]any{"a": true}, "without an opening"},
		"inline list":    {testoffice.Simple("{#a}x{/a}"), map[string]any{"a": []any{map[string]any{}}}, "own paragraphs"},
		"bad image":      {testoffice.Simple("{{i}}"), map[string]any{"i": "data:image/png;base64,AAAA"}, "PNG or JPEG"},
		"encrypted":      {append([]byte{0xD0, 0xCF, 0x11, 0xE0}, []byte("E\x00n\x00c\x00r\x00y\x00p\x00t\x00i\x00o\x00n\x00I\x00n\x00f\x00o")...), map[string]any{"a": "b"}, "password-protected"},
		"no document":    {zipOf(map[string]string{"a.txt": "x"}), map[string]any{"a": "b"}, "word/document.xml"},
		"malformed part": {zipOf(map[string]string{"word/document.xml": "<w:document"}), map[string]any{"a": "b"}, "not well-formed"},
	} {
		_, err := Fill(c.doc, c.vars)
		if fault.CodeOf(err) != fault.InvalidInput || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want invalid_input saying %q", name, err, c.want)
		}
	}
}

func zipOf(files map[string]string) []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for n, c := range files {
		w, _ := z.Create(n)
		w.Write([]byte(c))
	}
	z.Close()
	return buf.Bytes()
}

func TestZipBombRefused(t *testing.T) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create("word/document.xml")
	chunk := bytes.Repeat([]byte{' '}, 1<<20)
	for range MaxPartBytes>>20 + 2 {
		w.Write(chunk)
	}
	z.Close()
	if buf.Len() > 2<<20 {
		t.Fatalf("bomb is %d bytes", buf.Len())
	}
	_, err := Fill(buf.Bytes(), map[string]any{"a": "b"})
	if fault.CodeOf(err) != fault.InvalidInput || !strings.Contains(err.Error(), "zip bomb") {
		t.Fatalf("%v", err)
	}
	_ = exec.ErrNotFound
}

func FuzzFill(f *testing.F) {
	f.Add(template())
	f.Add(testoffice.Simple("{#items}", "{{name}}", "{/items}", "{^x}a{/x}"))
	f.Add(testoffice.Docx(`<w:p><w:r><w:t>{{a</w:t></w:r><w:r><w:t>}}{#b}</w:t></w:r></w:p><w:p><w:r><w:t>{/b}</w:t></w:r></w:p>`, nil, nil))
	v := map[string]any{"name": "x", "a": "1", "b": true, "items": []any{map[string]any{"name": "y"}}, "kunde": "k"}
	f.Fuzz(func(t *testing.T, data []byte) {
		watch := time.AfterFunc(10*time.Second, func() { panic("Fill took more than 10 s") })
		defer watch.Stop()
		out, err := Fill(data, v)
		if err != nil {
			if fault.CodeOf(err) != fault.InvalidInput {
				t.Fatalf("error of code %s: %v", fault.CodeOf(err), err)
			}
			return
		}
		if _, err := Open(out); err != nil {
			t.Fatalf("output does not open: %v", err)
		}
	})
}

// TestReviewAndFonts: tracked changes accepted or shown, comments kept as annotations or
// left out (a document with comments once crashed LibreOffice when loaded off its main
// thread), Calibri falls back to metric-compatible Carlito, and RTF converts.
func TestReviewAndFonts(t *testing.T) {
	o, err := office.New(engine.Config{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close(context.Background()) })
	const relComments = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/comments"
	const relLink = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink"
	body := `<w:p><w:r><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri"/></w:rPr><w:t xml:space="preserve">Alt und </w:t></w:r>` +
		`<w:ins w:id="1" w:author="Prüfer" w:date="2026-11-01T10:00:00Z"><w:r><w:t xml:space="preserve">eingefügt </w:t></w:r></w:ins>` +
		`<w:del w:id="2" w:author="Prüfer" w:date="2026-11-01T10:00:00Z"><w:r><w:delText xml:space="preserve">gestrichen </w:delText></w:r></w:del>` +
		`<w:commentRangeStart w:id="0"/><w:r><w:t>kommentiert</w:t></w:r><w:commentRangeEnd w:id="0"/><w:r><w:commentReference w:id="0"/></w:r></w:p>` +
		`<w:p><w:hyperlink r:id="rIdL"><w:r><w:t>Papierkram Startseite</w:t></w:r></w:hyperlink></w:p>`
	comments := part(`<w:comments xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:comment w:id="0" w:author="Prüfer" w:date="2026-11-01T10:00:00Z" w:initials="P"><w:p><w:r><w:t>Bitte prüfen</w:t></w:r></w:p></w:comment></w:comments>`)
	doc := testoffice.Docx(body, map[string][]byte{"word/comments.xml": comments},
		map[string][2]string{"rIdC": {relComments, "comments.xml"}, "rIdL": {relLink, "https://papierkram.example/"}})
	// The comments part needs its content type.
	doc = withOverride(t, doc, "/word/comments.xml", "application/vnd.openxmlformats-officedocument.wordprocessingml.comments+xml")
	// The hyperlink relationship is external.
	doc = withExternalLink(t, doc)

	accepted, err := ToPDF(context.Background(), o, Request{Document: doc})
	if err != nil {
		t.Fatal(err)
	}
	text := testtool.Text(t, accepted)
	if !strings.Contains(text, "eingefügt") || strings.Contains(text, "gestrichen") {
		t.Errorf("changes not accepted:\n%s", text)
	}
	qdf := testtool.Run(t, "qpdf", "--qdf", "--object-streams=disable", testtool.File(t, "a.pdf", accepted), "-")
	// The comment's text, "Bitte " in UTF-16BE, in a text annotation.
	if !strings.Contains(qdf, "/Subtype /Text") || !strings.Contains(qdf, "<feff004200690074007400650020") {
		t.Error("the comment is not a PDF annotation")
	}
	if fonts := testtool.Run(t, "pdffonts", testtool.File(t, "f.pdf", accepted)); !strings.Contains(fonts, "Carlito") {
		t.Errorf("Calibri did not fall back to Carlito:\n%s", fonts)
	}

	shown, err := ToPDF(context.Background(), o, Request{Document: doc, TrackChanges: "visualize", HideComments: true})
	if err != nil {
		t.Fatal(err)
	}
	if text := testtool.Text(t, shown); !strings.Contains(text, "eingefügt") || !strings.Contains(text, "gestrichen") {
		t.Errorf("changes not shown:\n%s", text)
	}
	if qdf := testtool.Run(t, "qpdf", "--qdf", "--object-streams=disable", testtool.File(t, "b.pdf", shown), "-"); strings.Contains(qdf, "/Subtype /Text") {
		t.Error("hideComments kept the comment")
	}

	rtf := []byte(`{\rtf1\ansi\deff0{\fonttbl{\f0 Liberation Serif;}}\f0\fs24 Ein RTF-Dokument\par}`)
	pdf, err := ToPDF(context.Background(), o, Request{Document: rtf, Filename: "brief.rtf"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(testtool.Text(t, pdf), "Ein RTF-Dokument") {
		t.Error("RTF not converted")
	}
}

// withOverride adds a content-type override to a package.
func withOverride(t *testing.T, doc []byte, partName, ct string) []byte {
	p, err := Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := string(p.parts["[Content_Types].xml"])
	p.put("[Content_Types].xml", []byte(strings.Replace(ctx, "</Types>", `<Override PartName="`+partName+`" ContentType="`+ct+`"/></Types>`, 1)))
	out, err := p.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func withExternalLink(t *testing.T, doc []byte) []byte {
	p, err := Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	rels := string(p.parts["word/_rels/document.xml.rels"])
	p.put("word/_rels/document.xml.rels", []byte(strings.Replace(rels, `Target="https://papierkram.example/"`, `Target="https://papierkram.example/" TargetMode="External"`, 1)))
	out, err := p.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return out
}
