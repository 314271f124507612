package office

import (
	"archive/zip"
	"bytes"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/fault"
)

// entries unpacks a zip (and the packages inside) into name → content.
func entries(t testing.TB, doc []byte) map[string][]byte {
	t.Helper()
	z, err := zip.NewReader(bytes.NewReader(doc), int64(len(doc)))
	if err != nil {
		t.Fatalf("not a zip: %v", err)
	}
	m := map[string][]byte{}
	for _, f := range z.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		m[f.Name] = b
		if bytes.HasPrefix(b, []byte("PK\x03\x04")) {
			for n, c := range entries(t, b) {
				m[f.Name+"/"+n] = c
			}
		}
	}
	return m
}

// TestSanitizeDocuments: no document of the integration tests keeps a reference to the
// listener or to the files (formulas and HTML are not the sanitiser's part), and each keeps its
// own text. The dead ones (which LibreOffice 7.4 would not follow) count here too.
func TestSanitizeDocuments(t *testing.T) {
	b := &bait{url: "http://127.0.0.1:9", dir: "/tmp/papierkram-bait-dir", marker: "GEHEIM0000"}
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(b.url, "http://"))
	for _, c := range reachCases(b) {
		t.Run(c.name, func(t *testing.T) {
			out, err := sanitize(c.doc, c.ext)
			if err != nil {
				t.Fatal(err)
			}
			if c.ext == "html" {
				if !bytes.Equal(out, c.doc) {
					t.Errorf("HTML changed: %s", out)
				}
				return
			}
			own := false
			for name, content := range entries(t, out) {
				own = own || bytes.Contains(content, []byte(c.own))
				if c.unsanitized {
					continue
				}
				for _, ref := range []string{"127.0.0.1:" + port, b.dir} {
					if bytes.Contains(content, []byte(ref)) {
						t.Errorf("%s still holds %q:\n%s", name, ref, content)
					}
				}
			}
			if !own {
				t.Error("the document's own text is gone")
			}
		})
	}
}

// clean runs the rules over one XML document.
func clean(t *testing.T, in string) string {
	t.Helper()
	out, _, err := sanitizeXML([]byte(in))
	if err != nil {
		t.Fatalf("%v\n%s", err, in)
	}
	return string(out)
}

const (
	relImage = `Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image"`
	relLink  = `Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/hyperlink"`
	relsHead = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`
	wHead    = `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`
)

func TestSanitizeRemoves(t *testing.T) {
	for name, in := range map[string]string{
		"external relationship":     relsHead + `<Relationship Id="a" ` + relImage + ` Target="http://evil/x.png" TargetMode="External"/></Relationships>`,
		"mode in lower case":        relsHead + `<Relationship Id="a" ` + relImage + ` Target="//evil/x.png" TargetMode="external"/></Relationships>`,
		"another prefix":            `<p:Relationships xmlns:p="http://schemas.openxmlformats.org/package/2006/relationships"><p:Relationship Id="a" ` + relImage + ` Target="file:///evil" TargetMode="External"/></p:Relationships>`,
		"references":                relsHead + `<Relationship Id="a" ` + relImage + ` Target="&#104;ttp://evil/x" TargetMode="&#69;xternal"/></Relationships>`,
		"unknown entity":            relsHead + `<Relationship Id="a" ` + relImage + ` Target="&evil;" TargetMode="External"/></Relationships>`,
		"absolute internal target":  relsHead + `<Relationship Id="a" ` + relImage + ` Target="file:///evil/x.png"/></Relationships>`,
		"windows path":              relsHead + `<Relationship Id="a" ` + relImage + ` Target="..\evil\x.png"/></Relationships>`,
		"with content":              relsHead + `<Relationship Id="a" ` + relImage + ` Target="http://evil/x" TargetMode="External"></Relationship></Relationships>`,
		"hyperlink type, no mode":   relsHead + `<Relationship Id="a" Type="x/hyperlink/image" Target="http://evil/x" TargetMode="External"/></Relationships>`,
		"joined after removal":      relsHead + `<Relation<Relationship Id="a" ` + relImage + ` Target="http://evil/1" TargetMode="External"/>ship Id="b" ` + relImage + ` Target="http://evil/2" TargetMode="External"/></Relationships>`,
		"odf picture":               `<draw:image xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xlink:href="http://evil/x.png"/>`,
		"odf other prefixes":        `<d:image xmlns:d="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:l="http://www.w3.org/1999/xlink" l:href="file:///evil/x.png"/>`,
		"odf climbing out":          `<draw:image xlink:href="../../evil/x.png"/>`,
		"odf climbing, encoded":     `<draw:image xlink:href="Pictures/%2e%2e/%2E%2E/evil/x.png"/>`,
		"odf absolute path":         `<draw:image xlink:href="/evil/x.png"/>`,
		"odf drive":                 `<draw:image xlink:href="C:\evil\x.png"/>`,
		"odf unc":                   `<draw:image xlink:href="\\evil\share\x.png"/>`,
		"odf space before":          `<draw:image xlink:href=" &#9;HTTP://evil/x.png"/>`,
		"odf section":               `<text:section-source xlink:href="file:///evil/secret.txt" text:filter-name="Text"/>`,
		"odf sheet link":            `<table:table-source xlink:href="file:///evil/secret.csv" table:mode="copy-all"/>`,
		"odf floating frame":        `<draw:floating-frame xlink:href="http://evil/"/>`,
		"odf dde":                   `<office:dde-source office:dde-application="soffice" office:dde-topic="file:///evil/x.ods" office:dde-item="A1"/>`,
		"odf data source":           `<text:database-display text:database-name="file:///evil/x.odb" text:table-name="t" text:column-name="c"/>`,
		"odf form image":            `<form:button form:image-data="http://evil/x.png"/>`,
		"svg image":                 `<svg xmlns="http://www.w3.org/2000/svg"><image href="file:///evil/x.png"/></svg>`,
		"vml bare value":            `<v:imagedata src=http://evil/x.png o:title="">`,
		"web query":                 `<connections><connection id="1" type="4"><webPr url="http://evil/q.html"/></connection></connections>`,
		"text import":               `<connection id="1" type="6" sourceFile="C:\evil\x.txt" odcFile="\\evil\x.odc"><textPr sourceFile="/evil/x.txt"/></connection>`,
		"excel dde":                 `<externalLink><ddeLink ddeService="soffice" ddeTopic="file:///evil/x.ods"/></externalLink>`,
		"includepicture":            wHead + wField(`INCLUDEPICTURE "http://evil/x.png" \d`, "alt") + `</w:body></w:document>`,
		"field in lower case":       wHead + wField(` includetext "file:///evil/x.txt"`, "alt") + `</w:body></w:document>`,
		"field split over runs":     wHead + `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>INCLUDE</w:instrText></w:r><w:r><w:instrText>PICTURE "http://evil/x.png"</w:instrText></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p></w:body></w:document>`,
		"field with references":     wHead + `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>&#73;NCLUDEPICTURE "http://evil/x.png"</w:instrText></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p></w:body></w:document>`,
		"field with an entity":      wHead + `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>&x;PICTURE "http://evil/x.png"</w:instrText></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p></w:body></w:document>`,
		"field in CDATA":            wHead + `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText><![CDATA[LINK Excel.Sheet "file:///evil/x.xlsx" ""]]></w:instrText></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p></w:body></w:document>`,
		"field inside a field":      wHead + `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>IF 1 = 1 "</w:instrText></w:r><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>INCLUDEPICTURE "http://evil/x.png"</w:instrText></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r><w:r><w:instrText>"</w:instrText></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p></w:body></w:document>`,
		"field never ended":         wHead + `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>DDEAUTO soffice "file:///evil/x.ods" A1</w:instrText></w:r></w:p></w:body></w:document>`,
		"instruction without field": wHead + `<w:p><w:r><w:instrText>INCLUDETEXT "http://evil/x"</w:instrText></w:r></w:p></w:body></w:document>`,
		"simple field":              wHead + `<w:p><w:fldSimple w:instr=" INCLUDEPICTURE &quot;http://evil/x.png&quot;"><w:r><w:t>alt</w:t></w:r></w:fldSimple></w:p></w:body></w:document>`,
		"deleted instruction":       wHead + `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:delInstrText>INCLUDETEXT "http://evil/x"</w:delInstrText></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p></w:body></w:document>`,
		"after a comment and PI":    `<?xml version="1.0"?><!-- <a href="x"> --><?pi <x?><draw:image xlink:href="http://evil/x.png"/>`,
		"doctype without subset":    `<!DOCTYPE office:document-content PUBLIC "-//x//y" "a>b.dtd"><draw:image xlink:href="http://evil/x.png"/>`,
		"padded with white space":   strings.Repeat(" \n", 400) + relsHead + `<Relationship Id="a" ` + relImage + ` Target="http://evil/x.png" TargetMode="External"/></Relationships>`,
	} {
		t.Run(name, func(t *testing.T) {
			out := clean(t, in)
			if strings.Contains(strings.ToLower(out), "evil") {
				t.Errorf("still reaches out:\n%s", out)
			}
			if again := clean(t, out); again != out {
				t.Errorf("a second pass changes it again:\n%s\n%s", out, again)
			}
		})
	}
}

func TestSanitizeKeeps(t *testing.T) {
	for name, in := range map[string]string{
		"hyperlink":           relsHead + `<Relationship Id="a" ` + relLink + ` Target="https://example.com/" TargetMode="External"/></Relationships>`,
		"internal picture":    relsHead + `<Relationship Id="a" ` + relImage + ` Target="media/image1.png"/><Relationship Id="b" ` + relImage + ` Target="/word/media/image2.png"/><Relationship Id="c" ` + relImage + ` Target="../media/image3.png"/></Relationships>`,
		"internal mode":       relsHead + `<Relationship Id="a" ` + relImage + ` Target="media/image1.png" TargetMode="Internal"/></Relationships>`,
		"odf hyperlink":       `<text:p><text:a xlink:type="simple" xlink:href="https://example.com/">Link</text:a><draw:a xlink:href="file:///x.pdf"><draw:frame/></draw:a></text:p>`,
		"odf package picture": `<draw:image xlink:href="Pictures/1000.png"/><draw:image xlink:href="./Pictures/1001.png"/><draw:object xlink:href="./Object 1"/><draw:image xlink:href="Pictures/a%20b.png"/>`,
		"fragment":            `<text:bookmark-ref xlink:href="#Kapitel"/><table:cell-range-source xlink:href="#Tabelle1.A1"/>`,
		"data url":            `<svg><image href="data:image/png;base64,iVBORw0KGgo="/></svg>`,
		"other fields":        wHead + wField(`PAGE \* MERGEFORMAT`, "1") + wField(`HYPERLINK "https://example.com/"`, "Link") + `<w:p><w:fldSimple w:instr=" DATE "/></w:p></w:body></w:document>`,
		"registered source":   `<text:database-display text:database-name="Bibliography" text:table-name="biblio"/>`,
		"html-ish text":       `<div>a < b && c > d <br> e</div>`,
	} {
		t.Run(name, func(t *testing.T) {
			if out := clean(t, in); out != in {
				t.Errorf("changed:\n%s\n%s", in, out)
			}
		})
	}
}

func TestSanitizeRefuses(t *testing.T) {
	zipOf := func(parts ...[2]string) []byte { return pkg(parts...) }
	many := make([][2]string, 30)
	for i := range many {
		many[i] = [2]string{"part" + strings.Repeat("x", i), "<a/>"}
	}
	nest := func(doc []byte) []byte { return zipOf([2]string{"inner.zip", string(doc)}) }
	defer func(e, d int, p int64) { sanMaxEntries, sanMaxDepth, sanMaxPart = e, d, p }(sanMaxEntries, sanMaxDepth, sanMaxPart)
	sanMaxEntries, sanMaxPart = 20, 4096
	for name, doc := range map[string][]byte{
		"internal subset":   zipOf([2]string{"content.xml", `<!DOCTYPE x [<!ENTITY e "http://evil/">]><draw:image xlink:href="&e;"/>`}),
		"utf-16":            zipOf([2]string{"content.xml", "\xFF\xFE<\x00a\x00/\x00>\x00"}),
		"utf-16 bare":       zipOf([2]string{"content.xml", "<\x00a\x00/\x00>\x00"}),
		"utf-7":             zipOf([2]string{"content.xml", `<?xml version="1.0" encoding="UTF-7"?>+ADw-a/+AD4-`}),
		"twice one name":    zipOf([2]string{"content.xml", "<a/>"}, [2]string{"content.xml", "<b/>"}),
		"damaged":           []byte("PK\x03\x04" + strings.Repeat("\x00", 100)),
		"too many parts":    zipOf(many...),
		"too large a part":  zipOf([2]string{"content.xml", "<a>" + strings.Repeat("x", 5000) + "</a>"}),
		"nested too deeply": nest(nest(nest(zipOf([2]string{"content.xml", "<a/>"})))),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := sanitize(doc, "odt")
			if c := fault.CodeOf(err); c != fault.InvalidInput && c != fault.PayloadTooLarge {
				t.Errorf("err %v (%s), want a 4xx", err, c)
			}
		})
	}
}

func TestSanitizePackages(t *testing.T) {
	bad := relsHead + `<Relationship Id="a" ` + relImage + ` Target="http://evil/x.png" TargetMode="External"/></Relationships>`
	inner := pkg([2]string{"[Content_Types].xml", "<Types/>"}, [2]string{"xl/_rels/workbook.xml.rels", bad})
	doc := pkg(
		[2]string{"mimetype", "application/vnd.oasis.opendocument.text"},
		[2]string{"word/_rels/document.xml.rels", bad},
		[2]string{"word/media/image1.png", "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 600)},
		[2]string{"word/embeddings/Workbook.xlsx", string(inner)},
		[2]string{"word/document.bin", wHead + wField(`INCLUDEPICTURE "http://evil/x.png"`, "alt") + `</w:body></w:document>`},
	)
	out, err := sanitize(doc, "docx")
	if err != nil {
		t.Fatal(err)
	}
	got := entries(t, out)
	for name, content := range got {
		if bytes.Contains(content, []byte("evil")) {
			t.Errorf("%s still reaches out: %s", name, content)
		}
	}
	if len(got) != 7 || !bytes.HasPrefix(got["word/media/image1.png"], []byte("\x89PNG")) {
		t.Errorf("entries %d, picture %q", len(got), got["word/media/image1.png"])
	}
	z, _ := zip.NewReader(bytes.NewReader(out), int64(len(out)))
	if z.File[0].Name != "mimetype" || z.File[0].Method != zip.Store {
		t.Errorf("ODF's mimetype is no longer first and stored: %s %d", z.File[0].Name, z.File[0].Method)
	}
	// A hyperlink's relationship stays while its part uses it as a hyperlink only.
	hyper := func(id, target string) string {
		return `<Relationship Id="` + id + `" ` + relLink + ` Target="` + target + `" TargetMode="External"/>`
	}
	doc = pkg(
		[2]string{"word/document.xml", wHead + `<w:p><w:hyperlink r:id="rId1"><w:r><w:t>Link</w:t></w:r></w:hyperlink></w:p>` + wPicture("r:link", "rId2") + `</w:body></w:document>`},
		[2]string{"word/_rels/document.xml.rels", relsHead + hyper("rId1", "https://example.com/") + hyper("rId2", "file:///evil/x.png") + `</Relationships>`},
		[2]string{"word/header1.xml", `<w:hdr>` + wPicture("r:embed", "rId1") + `</w:hdr>`},
		[2]string{"word/_rels/header1.xml.rels", relsHead + `<Relationship Id="rId1" ` + relImage + ` Target="media/image1.png"/></Relationships>`},
	)
	if out, err = sanitize(doc, "docx"); err != nil {
		t.Fatal(err)
	}
	got = entries(t, out)
	if r := string(got["word/_rels/document.xml.rels"]); strings.Contains(r, "evil") || !strings.Contains(r, "https://example.com/") {
		t.Errorf("relationships: %s", r)
	}
	// Formats without a package pass unchanged; flat OpenDocument is cleaned.
	for _, ext := range []string{"doc", "rtf", "html"} {
		in := []byte(`{\rtf1 <draw:image xlink:href="http://evil/x.png"/>}`)
		if out, err := sanitize(in, ext); err != nil || !bytes.Equal(out, in) {
			t.Errorf("%s: %v %q", ext, err, out)
		}
	}
	out, err = sanitize([]byte(`<office:document><draw:image xlink:href="http://evil/x.png"/></office:document>`), "fodt")
	if err != nil || bytes.Contains(out, []byte("evil")) {
		t.Errorf("fodt: %v %s", err, out)
	}
}

// FuzzSanitizeXML: any input, no panic, and the result is settled (the rules find nothing
// more to take out of it).
func FuzzSanitizeXML(f *testing.F) {
	f.Add([]byte(relsHead + `<Relationship Id="a" ` + relImage + ` Target="http://evil/x.png" TargetMode="External"/></Relationships>`))
	f.Add([]byte(wHead + wField(`INCLUDEPICTURE "http://evil/x.png" \d`, "alt") + `</w:body></w:document>`))
	f.Add([]byte(`<draw:image xlink:href="../x.png"/><text:a xlink:href="http://x/">a</text:a><![CDATA[<b>]]><!-- c -->`))
	f.Add([]byte(`<a b=c d='e' f="&#104;&amp;&x;"><w:instrText>DDE</w:instrText></a>`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, _, err := sanitizeXML(in)
		if err != nil {
			return
		}
		if again, changed, err := sanitizeOnce(out, &cleaner{}); err != nil || changed {
			t.Fatalf("not settled (%v):\n%q\n%q", err, out, again)
		}
	})
}

// FuzzSanitize: packages; what is accepted is a readable zip that stays accepted.
func FuzzSanitize(f *testing.F) {
	// Small seeds: the fuzzer minimises every new input, which takes long on big ones.
	f.Add(pkg([2]string{"_rels/.rels", `<Relationship Type="i" Target="http://e/" TargetMode="External"/>`}))
	f.Add(pkg([2]string{"mimetype", "x"}, [2]string{"c.xml", `<draw:image xlink:href="../x"/>`}))
	f.Add(pkg([2]string{"a.xml", "<a/>"}, [2]string{"b.zip", string(pkg([2]string{"c.xml", `<x href="http://e"/>`}))}))
	f.Fuzz(func(t *testing.T, doc []byte) {
		out, err := sanitize(doc, "docx")
		if err != nil || !bytes.HasPrefix(doc, []byte("PK")) {
			return
		}
		if _, err := sanitize(out, "docx"); err != nil {
			t.Fatalf("its own output is refused: %v", err)
		}
	})
}
