package docx

import (
	"crypto/rand"
	"fmt"
	"github.com/papierkram/papierkram/internal/lazyre"
	"slices"
	"strconv"
	"strings"

	"github.com/beevik/etree"

	"github.com/papierkram/papierkram/convert"
)

const (
	relFont        = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/font"
	relFontTable   = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/fontTable"
	nsR            = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
	obfuscatedFont = "application/vnd.openxmlformats-officedocument.obfuscatedFont"
	fontTablePart  = "word/fontTable.xml"
	fontTableType  = "application/vnd.openxmlformats-officedocument.wordprocessingml.fontTable+xml"
)

// fontRef finds the families a document names: run fonts and the font table.
var fontRef = lazyre.New(`w:(?:ascii|hAnsi|cs|eastAsia|name)="([^"]{1,200})"`)

// EmbedFonts embeds the faces whose family the document uses into the .docx, the way Word
// embeds fonts (ECMA-376 Part 1, 17.8: obfuscated font parts named in the font table), so
// that LibreOffice renders the document with them although they are not installed. Faces
// of families the document does not name are left out. A document that names none comes
// back as it was.
func EmbedFonts(data []byte, faces []convert.FontFace) ([]byte, error) {
	if len(faces) == 0 {
		return data, nil
	}
	p, err := Open(data)
	if err != nil {
		return nil, err
	}
	used := map[string]bool{}
	for _, n := range p.names {
		if strings.HasPrefix(n, "word/") && strings.HasSuffix(n, ".xml") {
			for _, m := range fontRef.FindAllSubmatch(p.parts[n], -1) {
				used[string(m[1])] = true
			}
		}
	}
	var embed []convert.FontFace
	for _, f := range faces {
		if used[f.Family] {
			embed = append(embed, f)
		}
	}
	if len(embed) == 0 {
		return data, nil
	}
	table, err := p.fontTable()
	if err != nil {
		return nil, err
	}
	rels, err := p.xmlPart("word/_rels/fontTable.xml.rels", newRels)
	if err != nil {
		return nil, err
	}
	slotsDone := map[string]bool{}
	for i, f := range embed {
		slot := "embedRegular"
		switch {
		case f.Weight >= 600 && f.Italic:
			slot = "embedBoldItalic"
		case f.Weight >= 600:
			slot = "embedBold"
		case f.Italic:
			slot = "embedItalic"
		}
		if slotsDone[f.Family+slot] {
			continue
		}
		slotsDone[f.Family+slot] = true
		key, err := newFontKey()
		if err != nil {
			return nil, err
		}
		part := fmt.Sprintf("fonts/papierkram-font%d.odttf", i+1)
		p.put("word/"+part, obfuscate(f.Data, key))
		id := "rIdPkFont" + strconv.Itoa(i+1)
		rel := rels.Root().CreateElement("Relationship")
		rel.CreateAttr("Id", id)
		rel.CreateAttr("Type", relFont)
		rel.CreateAttr("Target", part)
		font := fontElement(table.Root(), f.Family)
		e := font.CreateElement("w:" + slot)
		e.CreateAttr("r:id", id)
		e.CreateAttr("w:fontKey", key)
		orderEmbeds(font)
	}
	if table.Root().SelectAttr("xmlns:r") == nil {
		table.Root().CreateAttr("xmlns:r", nsR)
	}
	for name, d := range map[string]*etree.Document{fontTablePart: table, "word/_rels/fontTable.xml.rels": rels} {
		b, err := d.WriteToBytes()
		if err != nil {
			return nil, err
		}
		p.put(name, b)
	}
	if err := p.declareDefault("odttf", obfuscatedFont); err != nil {
		return nil, err
	}
	return p.Bytes()
}

// fontTable is word/fontTable.xml, created (and related from the document) when missing.
func (p *Package) fontTable() (*etree.Document, error) {
	if _, ok := p.parts[fontTablePart]; !ok {
		docRels, err := p.xmlPart("word/_rels/document.xml.rels", newRels)
		if err != nil {
			return nil, err
		}
		rel := docRels.Root().CreateElement("Relationship")
		rel.CreateAttr("Id", "rIdPkFontTable")
		rel.CreateAttr("Type", relFontTable)
		rel.CreateAttr("Target", "fontTable.xml")
		b, err := docRels.WriteToBytes()
		if err != nil {
			return nil, err
		}
		p.put("word/_rels/document.xml.rels", b)
		if err := p.declareOverride("/"+fontTablePart, fontTableType); err != nil {
			return nil, err
		}
	}
	return p.xmlPart(fontTablePart, func(d *etree.Document) {
		root := d.CreateElement("w:fonts")
		root.CreateAttr("xmlns:w", nsW)
		root.CreateAttr("xmlns:r", nsR)
	})
}

// fontElement is the font table's w:font for family, added when missing.
func fontElement(root *etree.Element, family string) *etree.Element {
	for _, f := range root.ChildElements() {
		if isW(f, "font") && f.SelectAttrValue("w:name", "") == family {
			return f
		}
	}
	f := root.CreateElement("w:font")
	f.CreateAttr("w:name", family)
	return f
}

// orderEmbeds keeps the embed elements last and in the schema's order.
func orderEmbeds(font *etree.Element) {
	order := []string{"embedRegular", "embedBold", "embedItalic", "embedBoldItalic"}
	var embeds []*etree.Element
	for _, c := range font.ChildElements() {
		if slices.Contains(order, c.Tag) {
			embeds = append(embeds, font.RemoveChild(c).(*etree.Element))
		}
	}
	slices.SortFunc(embeds, func(a, b *etree.Element) int { return slices.Index(order, a.Tag) - slices.Index(order, b.Tag) })
	for _, e := range embeds {
		font.AddChild(e)
	}
}

// newFontKey is a random GUID in Word's form, {XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX}.
func newFontKey() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return fmt.Sprintf("{%X-%X-%X-%X-%X}", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}

// keyPositions are where the key's 16 bytes stand in the GUID string, read from its end
// (ECMA-376 Part 1, 17.8.1).
var keyPositions = [16]int{35, 33, 31, 29, 27, 25, 22, 20, 17, 15, 12, 10, 7, 5, 3, 1}

// obfuscate XORs the font's first 32 bytes with the key (twice over), as Word does.
func obfuscate(font []byte, guid string) []byte {
	out := slices.Clone(font)
	for i, pos := range keyPositions {
		k, _ := strconv.ParseUint(guid[pos:pos+2], 16, 8)
		for _, at := range []int{i, i + 16} {
			if at < len(out) {
				out[at] ^= byte(k)
			}
		}
	}
	return out
}
