// Package docx fills Word templates: placeholders in a .docx (or .docm) are replaced in the
// OOXML itself, before LibreOffice renders it, so every other part of the document (styles,
// headers, footers, fields, tables of contents, images) is kept as Word wrote it.
//
// Syntax, in the document text (Word may split a tag over several runs; that is repaired):
//
//	{{name}}             the value of name, as text (or an image, see Image)
//	{{item.price}}       a field of an object
//	{#items} ... {/items} repeated per element of the list items; inside, the element's
//	                     fields are in scope; in a table the rows from the opening to the
//	                     closing tag repeat, elsewhere the paragraphs between them
//	{#flag} ... {/flag}  kept when flag is truthy (not empty, not "false", not 0, not an
//	                     empty list), removed otherwise
//	{^flag} ... {/flag}  the inverse
package docx

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/beevik/etree"

	"github.com/papierkram/papierkram/convert/tmpl"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/archive"
)

// Limits of a template package: Word documents are small; these stop zip bombs.
const (
	MaxEntries   = 2000
	MaxPartBytes = 64 << 20  // one unpacked part
	MaxTotal     = 256 << 20 // all parts unpacked
)

const nsW = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

// Package is an unpacked OOXML package.
type Package struct {
	names []string // in the original order
	parts map[string][]byte
}

// Open unpacks a .docx (any OOXML package), refusing what is not a zip, encrypted files and
// zip bombs.
func Open(data []byte) (*Package, error) {
	if bytes.HasPrefix(data, []byte{0xD0, 0xCF, 0x11, 0xE0}) {
		// An OLE compound file: an encrypted OOXML document, or a legacy .doc/.xls.
		if bytes.Contains(data, []byte("E\x00n\x00c\x00r\x00y\x00p\x00t\x00i\x00o\x00n\x00I\x00n\x00f\x00o")) {
			return nil, fault.New(fault.InvalidInput, "the document is password-protected; remove the password and upload it again")
		}
		return nil, fault.New(fault.InvalidInput, "the document is a legacy binary Office file; templating needs .docx")
	}
	z, err := archive.Open(data, archive.Limits{Noun: "the document", Kind: ".docx", Entries: MaxEntries, Part: MaxPartBytes, Total: MaxTotal})
	if err != nil {
		return nil, err
	}
	parts, names, err := z.ReadAll()
	if err != nil {
		return nil, err
	}
	p := &Package{parts: parts, names: names}
	if _, ok := p.parts["word/document.xml"]; !ok {
		return nil, fault.New(fault.InvalidInput, "the package has no word/document.xml: it is not a Word document")
	}
	return p, nil
}

// Bytes packs the package again.
func (p *Package) Bytes() ([]byte, error) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, name := range p.names {
		method := zip.Deflate
		if strings.HasSuffix(name, ".png") || strings.HasSuffix(name, ".jpeg") || strings.HasSuffix(name, ".jpg") {
			method = zip.Store
		}
		w, err := z.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(p.parts[name]); err != nil {
			return nil, err
		}
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (p *Package) put(name string, data []byte) {
	if _, ok := p.parts[name]; !ok {
		p.names = append(p.names, name)
	}
	p.parts[name] = data
}

// newRels makes an empty relationships part.
func newRels(d *etree.Document) { d.CreateElement("Relationships").CreateAttr("xmlns", nsRels) }

// xmlPart parses a part, or makes it with create when the package lacks it.
func (p *Package) xmlPart(name string, create func(*etree.Document)) (*etree.Document, error) {
	d := etree.NewDocument()
	if b, ok := p.parts[name]; ok {
		if err := d.ReadFromBytes(b); err != nil || d.Root() == nil {
			return nil, fault.New(fault.InvalidInput, "%s is not well-formed", name)
		}
		return d, nil
	}
	d.CreateProcInst("xml", `version="1.0" encoding="UTF-8" standalone="yes"`)
	create(d)
	return d, nil
}

func (p *Package) contentTypes() (*etree.Document, error) {
	d := etree.NewDocument()
	if err := d.ReadFromBytes(p.parts["[Content_Types].xml"]); err != nil || d.Root() == nil {
		return nil, fault.New(fault.InvalidInput, "[Content_Types].xml is missing or not well-formed")
	}
	return d, nil
}

func (p *Package) declareDefault(ext, contentType string) error {
	d, err := p.contentTypes()
	if err != nil {
		return err
	}
	for _, e := range d.Root().SelectElements("Default") {
		if strings.EqualFold(e.SelectAttrValue("Extension", ""), ext) {
			return nil
		}
	}
	e := etree.NewElement("Default")
	e.CreateAttr("Extension", ext)
	e.CreateAttr("ContentType", contentType)
	d.Root().InsertChildAt(0, e)
	b, err := d.WriteToBytes()
	if err != nil {
		return err
	}
	p.put("[Content_Types].xml", b)
	return nil
}

func (p *Package) declareOverride(part, contentType string) error {
	d, err := p.contentTypes()
	if err != nil {
		return err
	}
	e := d.Root().CreateElement("Override")
	e.CreateAttr("PartName", part)
	e.CreateAttr("ContentType", contentType)
	b, err := d.WriteToBytes()
	if err != nil {
		return err
	}
	p.put("[Content_Types].xml", b)
	return nil
}

// templated are the parts whose text is filled: the body, headers, footers, notes.
func (p *Package) templated() []string {
	var out []string
	for _, n := range p.names {
		base := path.Base(n)
		if path.Dir(n) == "word" && (base == "document.xml" || base == "footnotes.xml" || base == "endnotes.xml" ||
			strings.HasPrefix(base, "header") && strings.HasSuffix(base, ".xml") || strings.HasPrefix(base, "footer") && strings.HasSuffix(base, ".xml")) {
			out = append(out, n)
		}
	}
	return out
}

// Fill replaces the template tags of a Word document with vars and returns the new .docx.
func Fill(data []byte, vars map[string]any) ([]byte, error) {
	p, err := Open(data)
	if err != nil {
		return nil, err
	}
	if len(vars) == 0 {
		return data, nil
	}
	f := &filler{pkg: p}
	for _, name := range p.templated() {
		doc := etree.NewDocument()
		doc.ReadSettings = etree.ReadSettings{Permissive: false}
		if err := doc.ReadFromBytes(p.parts[name]); err != nil {
			return nil, fault.Wrap(fault.InvalidInput, err, "the document's part %s is not well-formed XML: %v", name, err)
		}
		root := doc.Root()
		if root == nil {
			continue
		}
		f.part = name
		f.rels = nil
		if err := f.fill(root, tmpl.New(vars)); err != nil {
			return nil, err
		}
		out, err := doc.WriteToBytes()
		if err != nil {
			return nil, err
		}
		p.put(name, out)
		if f.rels != nil {
			if err := f.saveRels(); err != nil {
				return nil, err
			}
		}
	}
	if f.images > 0 {
		f.ensureImageTypes()
	}
	return p.Bytes()
}

// errTemplate wraps template mistakes as input errors naming the part.
func (f *filler) errorf(format string, args ...any) error {
	return fault.New(fault.InvalidInput, "template %s: %s", f.part, fmt.Sprintf(format, args...))
}

var errNoClose = errors.New("no closing tag")
