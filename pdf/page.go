package pdf

import (
	"github.com/beevik/etree"
)

// Size is a page's visible size in points, after its rotation.
type Size struct{ Width, Height float64 }

// PageSizes returns every page's crop box size (what viewers and renderers show), turned by
// the page's rotation.
func (d *Doc) PageSizes() (sizes []Size, err error) {
	defer recoverInto(&err, "page sizes")
	pbs, err := d.ctx.PageBoundaries(nil)
	if err != nil {
		return nil, readErr(err)
	}
	for _, pb := range pbs {
		r := pb.CropBox()
		if r == nil {
			r = pb.MediaBox()
		}
		s := Size{r.Width(), r.Height()}
		if pb.Rot%180 != 0 {
			s.Width, s.Height = s.Height, s.Width
		}
		sizes = append(sizes, s)
	}
	return sizes, nil
}

// PDFA returns the PDF/A identification in the XMP metadata (pdfaid:part and
// pdfaid:conformance, as elements or attributes), or 0 and "" when there is none.
func (d *Doc) PDFA() (part int, conformance string) {
	x := d.XMP()
	if x == nil {
		return 0, ""
	}
	doc := etree.NewDocument()
	if doc.ReadFromBytes(x) != nil {
		return 0, ""
	}
	const ns = "http://www.aiim.org/pdfa/ns/id/"
	get := func(desc *etree.Element, name string) string {
		if a := attrNS(desc, ns, name); a != nil {
			return a.Value
		}
		if el := childNS(desc, ns, name); el != nil {
			return el.Text()
		}
		return ""
	}
	for _, desc := range descriptions(doc) {
		if p := get(desc, "part"); p != "" {
			if len(p) == 1 && p[0] >= '1' && p[0] <= '4' {
				part = int(p[0] - '0')
			}
			conformance = get(desc, "conformance")
		}
	}
	return part, conformance
}
