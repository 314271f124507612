package pdf

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/fault"
)

// pdfaID is the PDF/A-3b identification (ISO 19005-3, 6.6.4), a predefined schema.
var pdfaID = &XMPSchema{NamespaceURI: "http://www.aiim.org/pdfa/ns/id/", Prefix: "pdfaid", Predefined: true,
	Properties: []XMPProperty{{Name: "part", Value: "3"}, {Name: "conformance", Value: "B"}}}

// MakePDFA3B makes the document PDF/A-3b without rewriting its content, in two incremental
// updates: the metadata with the PDF/A identification (Info and XMP in agreement, ModDate
// now), then an output intent with the ICC profile icc (sRGB) when there is none, a file
// identifier when the trailer has none, and print flags on annotations that lack them.
// Fonts, colours, transparency and everything else stay as the document made them:
// whether the result conforms is for the caller to check (pdf/conform), and a document
// that does not is for a converter to rewrite.
func (d *Doc) MakePDFA3B(icc []byte, ch Changes, now time.Time) (out []byte, err error) {
	defer recoverInto(&err, "PDF/A identification")
	step, err := d.appendUpdate(ch, now, &EmbedOptions{Schema: pdfaID})
	if err != nil {
		return nil, err
	}
	doc, err := Read(step)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "the PDF/A metadata update cannot be read back")
	}
	return doc.pdfaStructure(icc)
}

// pdfaStructure writes the output intent, identifier and annotation flags.
func (d *Doc) pdfaStructure(icc []byte) ([]byte, error) {
	prev, ok := lastStartXRef(d.src)
	if !ok || d.ctx.Size == nil || d.ctx.Root == nil {
		return nil, fault.New(fault.Internal, "the PDF has no cross-reference section to update")
	}
	cat, err := d.ctx.Catalog()
	if err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "the PDF has no readable catalog")
	}
	u := &update{buf: bytes.NewBuffer(append(bytes.Clone(d.src), '\n')), size: *d.ctx.Size}
	newCat, catChanged := maps.Clone(cat), false
	hasIntent := false
	for _, s := range d.OutputIntents() {
		hasIntent = hasIntent || s == "GTS_PDFA1"
	}
	if !hasIntent {
		profile := u.ref(nil)
		u.mark(profile)
		fmt.Fprintf(u.buf, "%d %d obj\n<</N 3/Length %d>>\nstream\n", profile.num, profile.gen, len(icc))
		u.buf.Write(icc)
		u.buf.WriteString("\nendstream\nendobj\n")
		intent := u.ref(nil)
		u.object(intent, []byte(types.Dict{
			"Type": types.Name("OutputIntent"), "S": types.Name("GTS_PDFA1"),
			"OutputConditionIdentifier": types.StringLiteral("sRGB IEC61966-2.1"), "Info": types.StringLiteral("sRGB IEC61966-2.1"),
			"DestOutputProfile": *types.NewIndirectRef(profile.num, profile.gen),
		}.PDFString()))
		intents, _ := d.ctx.DereferenceArray(cat["OutputIntents"])
		newCat["OutputIntents"] = append(intents, *types.NewIndirectRef(intent.num, intent.gen))
		catChanged = true
	}
	// Annotations are printed and visible in PDF/A (6.3.2): the Print flag set, the hiding
	// ones cleared. Only annotations that are objects of their own can be rewritten here.
	for _, e := range d.ctx.Table {
		if e == nil || e.Free {
			continue
		}
		page, ok := e.Object.(types.Dict)
		if !ok || page.Type() == nil || *page.Type() != "Page" {
			continue
		}
		annots, _ := d.ctx.DereferenceArray(page["Annots"])
		for _, a := range annots {
			r, ok := a.(types.IndirectRef)
			if !ok {
				continue
			}
			ad, err := d.ctx.DereferenceDict(r)
			if err != nil || ad == nil || ad.NameEntry("Subtype") != nil && *ad.NameEntry("Subtype") == "Popup" {
				continue
			}
			f := 0
			if v := ad.IntEntry("F"); v != nil {
				f = *v
			}
			want := (f | 4) &^ (1 | 2 | 32 | 256)
			if v := ad.IntEntry("F"); v != nil && *v == want {
				continue
			}
			nd := maps.Clone(ad)
			nd["F"] = types.Integer(want)
			u.object(u.ref(&r), []byte(nd.PDFString()))
		}
	}
	if catChanged {
		u.object(u.ref(d.ctx.Root), []byte(newCat.PDFString()))
	}
	id := d.ctx.ID
	if len(id) != 2 {
		sum := sha256.Sum256(d.src)
		h := types.HexLiteral(hex.EncodeToString(sum[:16]))
		id = types.Array{h, h}
	}
	trailer := fmt.Sprintf("/Root %d %d R /Prev %d /ID %s", d.ctx.Root.ObjectNumber.Value(), d.ctx.Root.GenerationNumber.Value(), prev, id.PDFString())
	if d.ctx.Info != nil {
		trailer += fmt.Sprintf(" /Info %d %d R", d.ctx.Info.ObjectNumber.Value(), d.ctx.Info.GenerationNumber.Value())
	}
	u.finish(trailer, d.ctx.Read.UsingXRefStreams)
	return u.buf.Bytes(), nil
}
