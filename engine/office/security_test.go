package office

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testtool"
)

// The documents below reach for things outside themselves: images, text and workbooks on a
// listener on 127.0.0.1 (which counts every connection) and in files of a temporary
// directory. None may be fetched: no connection, no image of those sizes and no marker in
// the PDF, while the document's own text is there.

// Sizes of the distinctive images: the one served over HTTP and the one in a file.
const (
	httpW, httpH = 41, 29
	fileW, fileH = 37, 23
)

func distinctPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.NRGBA{R: uint8(7 * x), G: 200, B: uint8(11 * y), A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// bait is what a document may reach for: a listener and files, all carrying markers.
type bait struct {
	url    string // http://127.0.0.1:port
	dir    string // the files' directory
	marker string // text in every file and every answer; never in a PDF
	pngs   [2][]byte

	mu    sync.Mutex
	conns int
	paths []string
}

// fileURL is the file:// URL of a bait file.
func (b *bait) fileURL(name string) string { return "file://" + filepath.Join(b.dir, name) }

func (b *bait) hits() (int, []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.conns, append([]string(nil), b.paths...)
}

type countingListener struct {
	net.Listener
	b *bait
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.b.mu.Lock()
		l.b.conns++
		l.b.mu.Unlock()
	}
	return c, err
}

func newBait(t *testing.T) *bait {
	t.Helper()
	var rnd [6]byte
	rand.Read(rnd[:])
	b := &bait{dir: t.TempDir(), marker: "GEHEIM" + strings.ToUpper(hex.EncodeToString(rnd[:]))}
	httpPNG, filePNG := distinctPNG(t, httpW, httpH), distinctPNG(t, fileW, fileH)
	b.pngs = [2][]byte{httpPNG, filePNG}
	table := fmt.Sprintf("<html><body><table><tr><td>%s</td><td>1</td></tr></table></body></html>", b.marker)
	files := map[string][]byte{
		"secret.png":  filePNG,
		"secret.txt":  []byte(b.marker + "\n"),
		"secret.html": []byte(table),
		"secret.csv":  []byte(b.marker + ",1\n"),
		"secret.xlsx": xlsxPackage(xlsxParts{sheet: `<row r="1"><c r="A1" t="inlineStr"><is><t>` + b.marker + `</t></is></c></row>`}),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(b.dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b.url = "http://" + ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.mu.Lock()
		b.paths = append(b.paths, r.URL.Path)
		b.mu.Unlock()
		name := filepath.Base(r.URL.Path)
		switch {
		case strings.HasSuffix(name, ".png"):
			w.Header().Set("Content-Type", "image/png")
			w.Write(httpPNG)
		case strings.HasSuffix(name, ".xlsx"):
			w.Write(files["secret.xlsx"])
		case strings.HasSuffix(name, ".html"):
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte(table))
		default:
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte(b.marker))
		}
	})}
	go srv.Serve(countingListener{ln, b})
	t.Cleanup(func() { srv.Close() })
	return b
}

// pkg writes a zip of parts (name, content) in order; an ODF mimetype is stored.
func pkg(parts ...[2]string) []byte {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, p := range parts {
		m := zip.Deflate
		if p[0] == "mimetype" {
			m = zip.Store
		}
		w, _ := z.CreateHeader(&zip.FileHeader{Name: p[0], Method: m})
		w.Write([]byte(p[1]))
	}
	z.Close()
	return buf.Bytes()
}

const (
	xmlHead  = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"
	nsPkgRel = "http://schemas.openxmlformats.org/package/2006/relationships"
	relBase  = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
)

func rels(rs ...string) string {
	return xmlHead + `<Relationships xmlns="` + nsPkgRel + `">` + strings.Join(rs, "") + `</Relationships>`
}

func rel(id, typ, target string, external bool) string {
	mode := ""
	if external {
		mode = ` TargetMode="External"`
	}
	return fmt.Sprintf(`<Relationship Id="%s" Type="%s%s" Target="%s"%s/>`, id, relBase, typ, html.EscapeString(target), mode)
}

// docxPackage is a .docx of body (inside w:body) with the document part's relationships.
func docxPackage(body string, docRels ...string) []byte {
	return pkg(
		[2]string{"[Content_Types].xml", xmlHead + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Default Extension="png" ContentType="image/png"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`},
		[2]string{"_rels/.rels", rels(rel("rId1", "officeDocument", "word/document.xml", false))},
		[2]string{"word/document.xml", xmlHead + `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body>` + body + `</w:body></w:document>`},
		[2]string{"word/_rels/document.xml.rels", rels(docRels...)},
	)
}

func wPara(text string) string {
	return `<w:p><w:r><w:t xml:space="preserve">` + html.EscapeString(text) + `</w:t></w:r></w:p>`
}

// wPicture is an inline picture whose blip is the relationship id, embedded (r:embed) or
// linked (r:link).
func wPicture(attr, id string) string {
	return `<w:p><w:r><w:drawing><wp:inline distT="0" distB="0" distL="0" distR="0"><wp:extent cx="952500" cy="952500"/><wp:docPr id="1" name="Bild 1"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" name="x.png"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip ` + attr + `="` + id + `"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="952500" cy="952500"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`
}

// wField is a complex field with instruction instr and result text.
func wField(instr, result string) string {
	return `<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText xml:space="preserve">` + html.EscapeString(instr) + `</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>` + html.EscapeString(result) + `</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>`
}

type xlsxParts struct {
	sheet      string   // the rows of sheetData
	sheetTail  string   // after sheetData (drawing)
	workbook   string   // after sheets (externalReferences, definedNames)
	wbRels     []string // more relationships of the workbook
	sheetRels  []string
	extra      [][2]string
	extraTypes string
}

const nsMain = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"

func xlsxPackage(p xlsxParts) []byte {
	parts := [][2]string{
		{"[Content_Types].xml", xmlHead + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>` + p.extraTypes + `</Types>`},
		{"_rels/.rels", rels(rel("rId1", "officeDocument", "xl/workbook.xml", false))},
		{"xl/workbook.xml", xmlHead + `<workbook xmlns="` + nsMain + `" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Tabelle1" sheetId="1" r:id="rId1"/></sheets>` + p.workbook + `</workbook>`},
		{"xl/_rels/workbook.xml.rels", rels(append([]string{rel("rId1", "worksheet", "worksheets/sheet1.xml", false)}, p.wbRels...)...)},
		{"xl/worksheets/sheet1.xml", xmlHead + `<worksheet xmlns="` + nsMain + `" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheetData>` + p.sheet + `</sheetData>` + p.sheetTail + `</worksheet>`},
	}
	if len(p.sheetRels) > 0 {
		parts = append(parts, [2]string{"xl/worksheets/_rels/sheet1.xml.rels", rels(p.sheetRels...)})
	}
	return pkg(append(parts, p.extra...)...)
}

func xlsxRow(r int, cells string) string { return fmt.Sprintf(`<row r="%d">%s</row>`, r, cells) }

func xlsxText(ref, text string) string {
	return `<c r="` + ref + `" t="inlineStr"><is><t>` + html.EscapeString(text) + `</t></is></c>`
}

func xlsxFormula(ref, f string) string {
	return `<c r="` + ref + `" t="str"><f>` + html.EscapeString(f) + `</f></c>`
}

// odfPackage is an OpenDocument package of mimetype with content.xml's office:body content.
func odfPackage(kind, body string, extra ...[2]string) []byte {
	mime := "application/vnd.oasis.opendocument." + kind
	manifest := ""
	for _, e := range extra {
		manifest += `<manifest:file-entry manifest:full-path="` + e[0] + `" manifest:media-type="text/xml"/>`
	}
	return pkg(append([][2]string{
		{"mimetype", mime},
		{"META-INF/manifest.xml", `<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="` + mime + `"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>` + manifest + `</manifest:manifest>`},
		{"content.xml", `<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:of="urn:oasis:names:tc:opendocument:xmlns:of:1.2" xmlns:office2="urn:oasis:names:tc:opendocument:xmlns:office:1.0" office:version="1.2"><office:body>` + body + `</office:body></office:document-content>`},
	}, extra...)...)
}

func odfImage(href string) string {
	return `<text:p>Bild: <draw:frame draw:name="B` + hex.EncodeToString([]byte(href))[:8] + `" text:anchor-type="as-char" svg:width="2.5cm" svg:height="2.5cm"><draw:image xlink:href="` + html.EscapeString(href) + `" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>`
}

// reachCase is one document that reaches out, and the text of its own it must keep.
type reachCase struct {
	name string
	ext  string
	doc  []byte
	own  string
	// dead: LibreOffice 7.4 loads nothing of it even undefended (it imports a field's
	// result, ignores an embedded picture's external target): only the sanitiser's tests
	// use it, a conversion could not fail.
	dead bool
	// unsanitized: not the sanitiser's part, left to the settings and the isolation: a
	// spreadsheet function reaches out (WEBSERVICE, DDE, INDIRECT of another file; formulas
	// can build their URLs at run time), or the format has no package (HTML).
	unsanitized bool
}

// ownText is in every document; its conversion must keep it.
const ownText = "Eigener Inhalt bleibt"

func reachCases(b *bait) []reachCase {
	own := ownText
	var cs []reachCase
	add := func(name, ext string, doc []byte) {
		cs = append(cs, reachCase{name: name, ext: ext, doc: doc, own: own})
	}
	dead := func(name, ext string, doc []byte) {
		cs = append(cs, reachCase{name: name, ext: ext, doc: doc, own: own, dead: true})
	}
	unsanitized := func(name, ext string, doc []byte) {
		cs = append(cs, reachCase{name: name, ext: ext, doc: doc, own: own, unsanitized: true})
	}

	// Word: pictures in relationships outside the package, embedded and linked.
	dead("docx image http", "docx", docxPackage(wPara(own)+wPicture("r:embed", "rId7"),
		rel("rId7", "image", b.url+"/docx-embed.png", true)))
	dead("docx image file", "docx", docxPackage(wPara(own)+wPicture("r:embed", "rId7"),
		rel("rId7", "image", b.fileURL("secret.png"), true)))
	add("docx linked image http", "docx", docxPackage(wPara(own)+wPicture("r:link", "rId7"),
		rel("rId7", "image", b.url+"/docx-link.png", true)))
	add("docx linked image file", "docx", docxPackage(wPara(own)+wPicture("r:link", "rId7"),
		rel("rId7", "image", b.fileURL("secret.png"), true)))
	// LibreOffice does not check a relationship's type: a "hyperlink" serves a picture.
	add("docx linked image, typed hyperlink", "docx", docxPackage(wPara(own)+wPicture("r:link", "rId7"),
		rel("rId7", "hyperlink", b.fileURL("secret.png"), true)))
	// Fields that include a picture or a text from elsewhere.
	dead("docx INCLUDEPICTURE http", "docx", docxPackage(wPara(own)+wField(`INCLUDEPICTURE "`+b.url+`/includepicture.png" \d`, "Bild")))
	dead("docx INCLUDEPICTURE file", "docx", docxPackage(wPara(own)+wField(`INCLUDEPICTURE "`+filepath.Join(b.dir, "secret.png")+`" \d`, "Bild")))
	dead("docx INCLUDETEXT file", "docx", docxPackage(wPara(own)+wField(`INCLUDETEXT "`+filepath.Join(b.dir, "secret.txt")+`"`, "Text")))
	dead("docx INCLUDETEXT http", "docx", docxPackage(wPara(own)+wField(`INCLUDETEXT "`+b.url+`/includetext.txt"`, "Text")))
	dead("docx INCLUDETEXT file url", "docx", docxPackage(wPara(own)+wField(`INCLUDETEXT "`+b.fileURL("secret.txt")+`"`, "Text")))
	dead("docx fldSimple INCLUDEPICTURE", "docx", docxPackage(wPara(own)+`<w:p><w:fldSimple w:instr=' INCLUDEPICTURE "`+b.url+`/fldsimple.png" \d'><w:r><w:t>Bild</w:t></w:r></w:fldSimple></w:p>`))
	// A template attached from elsewhere.
	dead("docx attachedTemplate http", "docx", pkg(
		[2]string{"[Content_Types].xml", xmlHead + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/></Types>`},
		[2]string{"_rels/.rels", rels(rel("rId1", "officeDocument", "word/document.xml", false))},
		[2]string{"word/document.xml", xmlHead + `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>` + wPara(own) + `</w:body></w:document>`},
		[2]string{"word/_rels/document.xml.rels", rels(rel("rId1", "settings", "settings.xml", false))},
		[2]string{"word/settings.xml", xmlHead + `<w:settings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><w:attachedTemplate r:id="rId1"/></w:settings>`},
		[2]string{"word/_rels/settings.xml.rels", rels(rel("rId1", "attachedTemplate", b.url+"/template.dotx", true))},
	))

	// Excel: WEBSERVICE (in a cell, a name, an array, with a URL built at run time), which
	// the bridge's calculateAll would run.
	unsanitized("xlsx WEBSERVICE", "xlsx", xlsxPackage(xlsxParts{sheet: xlsxRow(1, xlsxText("A1", own)) +
		xlsxRow(2, xlsxFormula("A2", `_xlfn.WEBSERVICE("`+b.url+`/webservice")`)) +
		xlsxRow(3, xlsxFormula("A3", `_xlfn.WEBSERVICE("`+b.fileURL("secret.txt")+`")`))}))
	unsanitized("xlsx WEBSERVICE in a name", "xlsx", xlsxPackage(xlsxParts{sheet: xlsxRow(1, xlsxText("A1", own)) +
		xlsxRow(2, xlsxFormula("A2", `ws`)),
		workbook: `<definedNames><definedName name="ws">_xlfn.WEBSERVICE("` + b.url + `/named")</definedName></definedNames>`}))
	unsanitized("xlsx WEBSERVICE array", "xlsx", xlsxPackage(xlsxParts{sheet: xlsxRow(1, xlsxText("A1", own)) +
		xlsxRow(2, `<c r="A2" t="str"><f t="array" ref="A2">_xlfn.WEBSERVICE("`+b.url+`/array")</f></c>`)}))
	unsanitized("xlsx FILTERXML WEBSERVICE concat", "xlsx", xlsxPackage(xlsxParts{sheet: xlsxRow(1, xlsxText("A1", own)) +
		xlsxRow(2, xlsxFormula("A2", `_xlfn.WEBSERVICE(A3&"/concat")`)) + xlsxRow(3, xlsxText("A3", b.url))}))
	// Excel: references into other workbooks, without cached values.
	external := func(target string) []byte {
		return xlsxPackage(xlsxParts{
			sheet:    xlsxRow(1, xlsxText("A1", own)) + xlsxRow(2, xlsxFormula("A2", "[1]Tabelle1!A1")),
			workbook: `<externalReferences><externalReference r:id="rId2"/></externalReferences>`,
			wbRels:   []string{rel("rId2", "externalLink", "externalLinks/externalLink1.xml", false)},
			extra: [][2]string{
				{"xl/externalLinks/externalLink1.xml", xmlHead + `<externalLink xmlns="` + nsMain + `" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><externalBook r:id="rId1"><sheetNames><sheetName val="Tabelle1"/></sheetNames></externalBook></externalLink>`},
				{"xl/externalLinks/_rels/externalLink1.xml.rels", rels(rel("rId1", "externalLinkPath", target, true))},
			},
			extraTypes: `<Override PartName="/xl/externalLinks/externalLink1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml"/>`,
		})
	}
	add("xlsx external link file", "xlsx", external(b.fileURL("secret.xlsx")))
	add("xlsx external link http", "xlsx", external(b.url+"/external.xlsx"))
	// Excel: DDE into LibreOffice itself, which opens the topic as a document.
	dead("xlsx dde link", "xlsx", xlsxPackage(xlsxParts{
		sheet:    xlsxRow(1, xlsxText("A1", own)) + xlsxRow(2, xlsxFormula("A2", "[1]!'Tabelle1.A1'")),
		workbook: `<externalReferences><externalReference r:id="rId2"/></externalReferences>`,
		wbRels:   []string{rel("rId2", "externalLink", "externalLinks/externalLink1.xml", false)},
		extra: [][2]string{
			{"xl/externalLinks/externalLink1.xml", xmlHead + `<externalLink xmlns="` + nsMain + `"><ddeLink ddeService="soffice" ddeTopic="` + html.EscapeString(b.fileURL("secret.xlsx")) + `"><ddeItems><ddeItem name="Tabelle1.A1" advise="1"/></ddeItems></ddeLink></externalLink>`},
		},
		extraTypes: `<Override PartName="/xl/externalLinks/externalLink1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml"/>`,
	}))
	// Excel: linked pictures in a drawing.
	pic := func(id, col string) string {
		return `<xdr:oneCellAnchor><xdr:from><xdr:col>` + col + `</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>0</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:from><xdr:ext cx="952500" cy="952500"/><xdr:pic><xdr:nvPicPr><xdr:cNvPr id="` + col + `2" name="Bild ` + col + `"/><xdr:cNvPicPr/></xdr:nvPicPr><xdr:blipFill><a:blip r:link="` + id + `"/><a:stretch><a:fillRect/></a:stretch></xdr:blipFill><xdr:spPr><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></xdr:spPr></xdr:pic><xdr:clientData/></xdr:oneCellAnchor>`
	}
	add("xlsx linked image", "xlsx", xlsxPackage(xlsxParts{
		sheet:     xlsxRow(1, xlsxText("A1", own)),
		sheetTail: `<drawing r:id="rId1"/>`,
		sheetRels: []string{rel("rId1", "drawing", "../drawings/drawing1.xml", false)},
		extra: [][2]string{
			{"xl/drawings/drawing1.xml", xmlHead + `<xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">` + pic("rId1", "3") + pic("rId2", "6") + `</xdr:wsDr>`},
			{"xl/drawings/_rels/drawing1.xml.rels", rels(rel("rId1", "image", b.url+"/xlsx-link.png", true), rel("rId2", "image", b.fileURL("secret.png"), true))},
		},
		extraTypes: `<Override PartName="/xl/drawings/drawing1.xml" ContentType="application/vnd.openxmlformats-officedocument.drawing+xml"/>`,
	}))
	// Excel: web queries (a connection and its query table), loaded into cells on import.
	query := func(name string) string {
		return xmlHead + `<queryTable xmlns="` + nsMain + `" name="` + name + `" connectionId="` + name[len(name)-1:] + `" autoFormatId="16" applyNumberFormats="0" applyBorderFormats="0" applyFontFormats="1" applyPatternFormats="1" applyAlignmentFormats="0" applyWidthHeightFormats="0"/>`
	}
	conn := func(id, url string) string {
		return `<connection id="` + id + `" name="Web` + id + `" type="4" refreshedVersion="3" background="1" saveData="1"><webPr sourceData="1" parsePre="1" consecutive="1" xl2000="1" url="` + html.EscapeString(url) + `"><tables count="1"><x v="1"/></tables></webPr></connection>`
	}
	add("xlsx web query", "xlsx", xlsxPackage(xlsxParts{
		sheet:     xlsxRow(1, xlsxText("A1", own)),
		workbook:  `<definedNames><definedName name="Abfrage1" localSheetId="0">Tabelle1!$A$5:$B$6</definedName><definedName name="Abfrage2" localSheetId="0">Tabelle1!$A$10:$B$11</definedName></definedNames>`,
		wbRels:    []string{rel("rId9", "connections", "connections.xml", false)},
		sheetRels: []string{rel("rId1", "queryTable", "../queryTables/queryTable1.xml", false), rel("rId2", "queryTable", "../queryTables/queryTable2.xml", false)},
		extra: [][2]string{
			{"xl/connections.xml", xmlHead + `<connections xmlns="` + nsMain + `">` + conn("1", b.url+"/webquery.html") + conn("2", b.fileURL("secret.html")) + `</connections>`},
			{"xl/queryTables/queryTable1.xml", query("Abfrage1")},
			{"xl/queryTables/queryTable2.xml", query("Abfrage2")},
		},
		extraTypes: `<Override PartName="/xl/connections.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.connections+xml"/><Override PartName="/xl/queryTables/queryTable1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.queryTable+xml"/><Override PartName="/xl/queryTables/queryTable2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.queryTable+xml"/>`,
	}))

	// OpenDocument text: pictures (also next to the document's file), linked sections.
	para := `<text:p>` + own + `</text:p>`
	add("odt image http", "odt", odfPackage("text", `<office:text>`+para+odfImage(b.url+"/odt.png")+`</office:text>`))
	add("odt image file", "odt", odfPackage("text", `<office:text>`+para+odfImage(b.fileURL("secret.png"))+`</office:text>`))
	add("odt image relative", "odt", odfPackage("text", `<office:text>`+para+odfImage("../../../../../../.."+filepath.Join(b.dir, "secret.png"))+`</office:text>`))
	add("odt section file", "odt", odfPackage("text", `<office:text>`+para+`<text:section text:name="Bereich1"><text:section-source xlink:href="`+b.fileURL("secret.txt")+`" xlink:type="simple" text:filter-name="Text"/><text:p>alt</text:p></text:section></office:text>`))
	add("odt section file, the document asks for updates", "odt", odfPackage("text", `<office:text>`+para+`<text:section text:name="Bereich1"><text:section-source xlink:href="`+b.fileURL("secret.txt")+`" xlink:type="simple" text:filter-name="Text"/><text:p>alt</text:p></text:section></office:text>`,
		[2]string{"settings.xml", `<?xml version="1.0" encoding="UTF-8"?><office:document-settings xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:config="urn:oasis:names:tc:opendocument:xmlns:config:1.0" office:version="1.2"><office:settings><config:config-item-set config:name="ooo:configuration-settings"><config:config-item config:name="LinkUpdateMode" config:type="short">2</config:config-item></config:config-item-set></office:settings></office:document-settings>`}))
	add("odt section http", "odt", odfPackage("text", `<office:text>`+para+`<text:section text:name="Bereich1"><text:section-source xlink:href="`+b.url+`/section.txt" xlink:type="simple" text:filter-name="Text"/><text:p>alt</text:p></text:section></office:text>`))
	// HTML (documents generated as ODT or DOCX go through Writer/Web): no package, nothing
	// for the sanitiser. (A file's picture stays a link in the ODT, unseen: not tested.)
	unsanitized("html image http", "html", []byte(`<html><body><p>`+own+`</p><p><img src="`+b.url+`/html.png" width="40" height="30"></p></body></html>`))

	// OpenDocument spreadsheet: a sheet and a cell range linked from elsewhere; formulas
	// that fetch (WEBSERVICE), open a document (DDE into LibreOffice itself) or read
	// another file (external references, also through INDIRECT).
	add("ods sheet link", "ods", odfPackage("spreadsheet", `<office:spreadsheet><table:table table:name="Tabelle1"><table:table-source xlink:type="simple" xlink:href="`+b.fileURL("secret.csv")+`" table:filter-name="Text - txt - csv (StarCalc)" table:filter-options="44,34,76,1" table:table-name="" table:mode="copy-all"/><table:table-row><table:table-cell office:value-type="string"><text:p>`+own+`</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet>`))
	add("ods range link", "ods", odfPackage("spreadsheet", `<office:spreadsheet><table:table table:name="Tabelle1"><table:table-row><table:table-cell office:value-type="string"><text:p>`+own+`</text:p></table:table-cell></table:table-row><table:table-row><table:table-cell><table:cell-range-source table:name="HTML_1" xlink:type="simple" xlink:href="`+b.fileURL("secret.html")+`" table:filter-name="calc_HTML_WebQuery" table:filter-options="" table:last-column-spanned="2" table:last-row-spanned="1"/></table:table-cell></table:table-row></table:table></office:spreadsheet>`))
	odsFormula := func(f string) []byte {
		return odfPackage("spreadsheet", `<office:spreadsheet><table:table table:name="Tabelle1"><table:table-row><table:table-cell office:value-type="string"><text:p>`+own+`</text:p></table:table-cell></table:table-row><table:table-row><table:table-cell table:formula="`+html.EscapeString(f)+`" office:value-type="string" office:string-value=""><text:p></text:p></table:table-cell></table:table-row></table:table></office:spreadsheet>`)
	}
	unsanitized("ods INDIRECT external file", "ods", odsFormula(`of:=INDIRECT("'`+b.fileURL("secret.xlsx")+`'#$Tabelle1.A1")`))
	unsanitized("ods INDIRECT external http", "ods", odsFormula(`of:=INDIRECT("'`+b.url+`/indirect.xlsx'#$Tabelle1.A1")`))
	unsanitized("ods external reference file", "ods", odsFormula(`of:=['`+b.fileURL("secret.xlsx")+`'#$Tabelle1.A1]`))
	unsanitized("ods WEBSERVICE", "ods", odsFormula(`of:=COM.MICROSOFT.WEBSERVICE("`+b.url+`/ods-webservice")`))
	unsanitized("ods DDE", "ods", odsFormula(`of:=DDE("soffice";"`+b.fileURL("secret.xlsx")+`";"A1")`))
	return cs
}

// leak is what a conversion let through: connections to the listener, a marker in the
// text, fetched pictures.
type leak struct {
	conns    int
	requests []string
	marker   bool
	pictures []string
}

func (l leak) any() bool { return l.conns > 0 || l.marker || len(l.pictures) > 0 }

func (l leak) String() string {
	var s []string
	if l.conns > 0 {
		s = append(s, fmt.Sprintf("%d connection(s) to the listener (requests %v)", l.conns, l.requests))
	}
	if l.marker {
		s = append(s, "the marker of a file or of the listener in the PDF's text")
	}
	for _, p := range l.pictures {
		s = append(s, "a fetched picture in the PDF: "+p)
	}
	return strings.Join(s, "; ")
}

// convert converts c and reports what leaked; with own, the document's own text must be
// in the PDF (a sheet link that was followed replaces it).
func (b *bait) convert(t *testing.T, o *Office, c reachCase, w weakening, own bool) leak {
	t.Helper()
	before, seen := b.hits()
	if c.ext == "html" {
		// HTML is converted to ODT only (PDF comes from Chromium): its text and pictures.
		odt, err := o.Convert(context.Background(), Job{Document: c.doc, Ext: c.ext, weaken: w}, "odt")
		if err != nil {
			t.Fatal(err)
		}
		var l leak
		n, paths := b.hits()
		l.conns, l.requests = n-before, paths[len(seen):]
		for name, content := range entries(t, odt) {
			if own && name == "content.xml" && !bytes.Contains(content, []byte(c.own)) {
				t.Errorf("the document's own text is missing: %s", content)
			}
			l.marker = l.marker || bytes.Contains(content, []byte(b.marker[:8]))
			if bytes.Equal(content, b.pngs[0]) || bytes.Equal(content, b.pngs[1]) {
				l.pictures = append(l.pictures, name)
			}
		}
		return l
	}
	pdf, err := o.ToPDF(context.Background(), Job{Document: c.doc, Ext: c.ext, weaken: w})
	for try := 0; try < 3 && fault.CodeOf(err) == fault.EngineUnavailable && w.updateLinks; try++ {
		// LibreOffice 7.4 now and then crashes updating links (to another workbook, DDE),
		// which only these tests let it do; the pool replaces it: again.
		pdf, err = o.ToPDF(context.Background(), Job{Document: c.doc, Ext: c.ext, weaken: w})
	}
	if err != nil {
		t.Fatal(err)
	}
	var l leak
	n, paths := b.hits()
	l.conns, l.requests = n-before, paths[len(seen):]
	text := testtool.Text(t, pdf)
	if own && !strings.Contains(text, c.own) {
		t.Errorf("the document's own text is missing: %q", text)
	}
	// Narrow cells cut the marker short; its start is enough.
	l.marker = strings.Contains(text, b.marker[:8])
	for _, line := range strings.Split(testtool.Run(t, "pdfimages", "-list", testtool.File(t, "x.pdf", pdf)), "\n")[2:] {
		if f := strings.Fields(line); len(f) > 4 && (f[3] == fmt.Sprint(httpW) && f[4] == fmt.Sprint(httpH) || f[3] == fmt.Sprint(fileW) && f[4] == fmt.Sprint(fileH)) {
			l.pictures = append(l.pictures, strings.Join(f, " "))
		}
	}
	return l
}

// permissive is LibreOffice's configuration without the hardening, as a user who trusts
// every place would have it: links updated always.
var permissive = []setting{
	{"/org.openoffice.Office.Writer/Content/Update", "Link", "2"},
	{"/org.openoffice.Office.Calc/Content/Update", "Link", "0"},
	// Links update on their own only for documents from a trusted location.
	{"/org.openoffice.Office.Common/Security/Scripting", "SecureURL", "file:///"},
	{"/org.openoffice.Office.Common/Security/Scripting", "MacroSecurityLevel", "0"},
}

// poolWith is pool with some defences only.
func poolWith(t *testing.T, def defences) *Office {
	t.Helper()
	o, err := newOffice(engine.Config{Concurrency: 1}, def)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close(context.Background()) })
	return o
}

// TestNoExternalLoads converts documents that reach for a picture, a text, a workbook on a
// listener on 127.0.0.1 and in files: with the defences nothing is fetched. Then each layer
// alone, and none: undefended, every one of these documents does leak, so each run below
// can fail.
func TestNoExternalLoads(t *testing.T) {
	b := newBait(t)
	var cases []reachCase
	for _, c := range reachCases(b) {
		if !c.dead {
			cases = append(cases, c)
		}
	}
	holds := func(t *testing.T, o *Office, w weakening) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if l := b.convert(t, o, c, w, true); l.any() {
					t.Error(l)
				}
			})
		}
	}
	t.Run("defended", func(t *testing.T) {
		o := pool(t, engine.Config{Concurrency: 1}) // New: what the server runs
		holds(t, o, weakening{})
		// Hyperlinks are only links: they stay, in OpenDocument and in Word (as LibreOffice
		// writes it).
		odt := odfPackage("text", `<office:text><text:p>`+ownText+` <text:a xlink:type="simple" xlink:href="https://example.com/verweis">Verweis</text:a></text:p></office:text>`)
		docx, err := o.Convert(context.Background(), Job{Document: odt, Ext: "odt"}, "docx")
		if err != nil {
			t.Fatal(err)
		}
		for ext, doc := range map[string][]byte{"odt": odt, "docx": docx} {
			pdf, err := o.ToPDF(context.Background(), Job{Document: doc, Ext: ext})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(pdf, []byte("https://example.com/verweis")) {
				t.Errorf("%s: the hyperlink is gone from the PDF", ext)
			}
		}
		// soffice runs in a network namespace of its own.
		o.mu.Lock()
		pid := o.procs[0].pid.Load()
		o.mu.Unlock()
		own, err1 := os.Readlink("/proc/self/ns/net")
		its, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", pid))
		if err1 != nil || err2 != nil || own == its {
			t.Errorf("soffice %d shares the network namespace %q %q (%v %v)", pid, own, its, err1, err2)
		}
	})
	// The documents as they are, links updated as LibreOffice allows.
	raw := weakening{noSanitize: true, updateLinks: true}
	t.Run("settings alone", func(t *testing.T) {
		holds(t, poolWith(t, defences{settings: hardening}), raw)
	})
	t.Run("isolation alone", func(t *testing.T) {
		// No connection gets out; a file may still be read (the other layers' part).
		o := poolWith(t, defences{isolate: true, settings: permissive})
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if l := b.convert(t, o, c, raw, false); l.conns > 0 {
					t.Error(l)
				}
			})
		}
	})
	t.Run("sanitiser alone", func(t *testing.T) {
		o := poolWith(t, defences{settings: permissive, sanitize: true})
		for _, c := range cases {
			if c.unsanitized {
				continue // not its part
			}
			t.Run(c.name, func(t *testing.T) {
				if l := b.convert(t, o, c, weakening{updateLinks: true}, true); l.any() {
					t.Error(l)
				}
			})
		}
		t.Run("undefended", func(t *testing.T) {
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					if l := b.convert(t, o, c, raw, false); !l.any() {
						t.Error("nothing leaked: the document does not test what it should")
					}
				})
			}
		})
	})
}
