package xlsx

import (
	"fmt"
	"github.com/papierkram/papierkram/internal/lazyre"
	"strings"

	"github.com/beevik/etree"

	"github.com/papierkram/papierkram/convert"
	"github.com/papierkram/papierkram/fault"
)

// Families the workbook names: xlsx cell fonts and rich-text runs, ODF font declarations.
var workbookFont = lazyre.New(`<(?:name|rFont) val="([^"]{1,200})"|svg:font-family="'?([^"']{1,200})'?"|style:font-name="([^"]{1,200})"`)

// usedFaces are the faces whose family the workbook names.
func usedFaces(doc []byte, faces []convert.FontFace) ([]convert.FontFace, error) {
	if len(faces) == 0 {
		return nil, nil
	}
	parts, _, err := unpack(doc)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for name, b := range parts {
		if strings.HasSuffix(name, ".xml") {
			for _, m := range workbookFont.FindAllSubmatch(b, -1) {
				used[string(m[1])+string(m[2])+string(m[3])] = true
			}
		}
	}
	var out []convert.FontFace
	for _, f := range faces {
		if used[f.Family] {
			out = append(out, f)
		}
	}
	return out, nil
}

// embedODS puts faces into an OpenDocument spreadsheet the way LibreOffice embeds fonts:
// the files under Fonts/, listed in the manifest, and named by svg:font-face-uri in the
// font declarations of styles.xml, which LibreOffice loads for the document.
func embedODS(ods []byte, faces []convert.FontFace) ([]byte, error) {
	parts, order, err := unpack(ods)
	if err != nil {
		return nil, err
	}
	styles := etree.NewDocument()
	if err := styles.ReadFromBytes(parts["styles.xml"]); err != nil || styles.Root() == nil {
		return nil, fault.New(fault.InvalidInput, "the spreadsheet has no readable styles.xml")
	}
	manifest := etree.NewDocument()
	if err := manifest.ReadFromBytes(parts["META-INF/manifest.xml"]); err != nil || manifest.Root() == nil {
		return nil, fault.New(fault.InvalidInput, "the spreadsheet has no readable manifest")
	}
	decls := styles.Root().SelectElement("office:font-face-decls")
	if decls == nil {
		decls = etree.NewElement("office:font-face-decls")
		styles.Root().InsertChildAt(0, decls)
	}
	for _, ns := range [][2]string{{"xmlns:svg", "urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"}, {"xmlns:xlink", "http://www.w3.org/1999/xlink"}} {
		if styles.Root().SelectAttr(ns[0]) == nil {
			styles.Root().CreateAttr(ns[0], ns[1])
		}
	}
	srcs := map[string]*etree.Element{}
	for i, f := range faces {
		src, ok := srcs[f.Family]
		if !ok {
			face := decls.CreateElement("style:font-face")
			face.CreateAttr("style:name", f.Family+" (embedded)")
			face.CreateAttr("svg:font-family", f.Family)
			src = face.CreateElement("svg:font-face-src")
			srcs[f.Family] = src
		}
		format, media := "truetype", "application/x-font-ttf"
		if f.Format == "opentype" {
			format, media = "opentype", "application/x-font-otf"
		}
		name := fmt.Sprintf("Fonts/papierkram-font%d.%s", i+1, map[string]string{"truetype": "ttf", "opentype": "otf"}[format])
		uri := src.CreateElement("svg:font-face-uri")
		uri.CreateAttr("xlink:href", name)
		uri.CreateAttr("xlink:type", "simple")
		uri.CreateElement("svg:font-face-format").CreateAttr("svg:string", format)
		entry := manifest.Root().CreateElement("manifest:file-entry")
		entry.CreateAttr("manifest:full-path", name)
		entry.CreateAttr("manifest:media-type", media)
		parts[name] = f.Data
		order = append(order, name)
	}
	for name, d := range map[string]*etree.Document{"styles.xml": styles, "META-INF/manifest.xml": manifest} {
		b, err := d.WriteToBytes()
		if err != nil {
			return nil, err
		}
		parts[name] = b
	}
	return repack(parts, order)
}
