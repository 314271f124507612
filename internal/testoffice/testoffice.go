// Package testoffice writes small Word documents for tests: real OOXML packages built with
// archive/zip, so tests need no binary fixtures.
package testoffice

import (
	"archive/zip"
	"bytes"
	"fmt"
	"html"
	"strings"
)

const (
	nsW = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	nsR = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
)

// Paragraphs is the body XML of plain paragraphs, one run each.
func Paragraphs(texts ...string) string {
	var b strings.Builder
	for _, t := range texts {
		fmt.Fprintf(&b, `<w:p><w:r><w:t xml:space="preserve">%s</w:t></w:r></w:p>`, html.EscapeString(t))
	}
	return b.String()
}

// PageBreak is a paragraph holding a page break.
const PageBreak = `<w:p><w:r><w:br w:type="page"/></w:r></w:p>`

// Docx is a .docx whose body is bodyXML (WordprocessingML inside w:body). Extra parts
// (name → content, e.g. "word/header1.xml", "docProps/core.xml") and relationships of the document part
// (id → [type, target]) may be added; sectPr, if any, belongs in bodyXML.
func Docx(bodyXML string, parts map[string][]byte, rels map[string][2]string) []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	add := func(name, content string) {
		w, _ := z.Create(name)
		w.Write([]byte(content))
	}
	var overrides strings.Builder
	for name := range parts {
		switch {
		case strings.HasPrefix(name, "word/header"):
			fmt.Fprintf(&overrides, `<Override PartName="/%s" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml"/>`, name)
		case strings.HasPrefix(name, "word/footer"):
			fmt.Fprintf(&overrides, `<Override PartName="/%s" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml"/>`, name)
		case name == "docProps/core.xml":
			fmt.Fprintf(&overrides, `<Override PartName="/%s" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>`, name)
		}
	}
	core := ""
	if _, ok := parts["docProps/core.xml"]; ok {
		core = `<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>`
	}
	add("[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>`+overrides.String()+`</Types>`)
	add("_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>`+core+`</Relationships>`)
	var r strings.Builder
	for id, t := range rels {
		fmt.Fprintf(&r, `<Relationship Id="%s" Type="%s" Target="%s"/>`, id, t[0], t[1])
	}
	add("word/_rels/document.xml.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`+r.String()+`</Relationships>`)
	add("word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="`+nsW+`" xmlns:r="`+nsR+`" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body>`+bodyXML+`</w:body></w:document>`)
	for name, content := range parts {
		w, _ := z.Create(name)
		w.Write(content)
	}
	z.Close()
	return buf.Bytes()
}

// Simple is a .docx of plain paragraphs.
func Simple(texts ...string) []byte { return Docx(Paragraphs(texts...), nil, nil) }
