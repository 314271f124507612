package conform

import (
	"fmt"
	"math"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// inherited are the page attributes a page takes from its ancestors.
type inherited struct {
	resources         types.Object
	mediaBox, cropBox types.Object
	fromTree          bool // the resources were inherited, not the page's own
}

// pages walks the page tree.
func (w *walker) pages(o types.Object, inh *inherited, depth int) {
	d := w.dict(o)
	if d == nil || depth > maxDepth || !w.first("pagetree", o) {
		return
	}
	in := inherited{}
	if inh != nil {
		in = *inh
	}
	if r, ok := d["Resources"]; ok {
		in.resources, in.fromTree = r, false
		if w.name(d["Type"]) == "Pages" {
			in.fromTree = true
		}
	}
	if b, ok := d["MediaBox"]; ok {
		in.mediaBox = b
	}
	if b, ok := d["CropBox"]; ok {
		in.cropBox = b
	}
	if w.name(d["Type"]) == "Pages" || d["Kids"] != nil && w.name(d["Type"]) != "Page" {
		for _, k := range w.array(d["Kids"]) {
			w.pages(k, &in, depth+1)
		}
		return
	}
	w.pageNo++
	w.page(o, d, in)
}

// page checks one page and queues its content.
func (w *walker) page(o types.Object, d types.Dict, in inherited) {
	c := w.c
	n := w.pageNo
	loc := fmt.Sprintf("page %d", n)
	_, aa := d["AA"]
	c.check(!aa, "6.5.2-2", loc)
	_, ps := d["PresSteps"]
	c.check(!ps, "6.10-2", loc)
	boxes := map[string]types.Object{"MediaBox": in.mediaBox, "CropBox": in.cropBox}
	for _, box := range []string{"MediaBox", "CropBox", "BleedBox", "TrimBox", "ArtBox"} {
		o, ok := d[box]
		if !ok {
			o = boxes[box]
		}
		if b := w.array(o); len(b) == 4 {
			var v [4]float64
			for i := range v {
				v[i], _ = w.number(b[i])
			}
			wd, ht := math.Abs(v[2]-v[0]), math.Abs(v[3]-v[1])
			c.check(wd >= 3 && wd <= 14400 && ht >= 3 && ht <= 14400, "6.1.13-11", loc+" "+box)
		}
	}
	res := w.dict(in.resources)
	for _, s := range w.contentStreams(d["Contents"]) {
		w.contents = append(w.contents, content{data: s, resources: res, loc: loc + " content", page: n, inherited: in.fromTree})
	}
	if g := w.dict(d["Group"]); g != nil {
		w.group(g, loc)
		if w.name(g["S"]) == "Transparency" {
			w.pageGroupCS[n] = g["CS"] != nil
		}
	}
	if _, ok := w.pageGroupCS[n]; !ok {
		w.pageGroupCS[n] = false
	}
	for _, a := range w.array(d["Annots"]) {
		w.annotation(a, loc)
	}
	if len(w.array(d["Annots"])) > 0 {
		w.pagesWithAnnots[n] = d
	}
	if t := d["Thumb"]; t != nil {
		w.image(t, res, loc+" thumbnail", n, false)
	}
}

// contentStreams are the decoded streams of a page's Contents (a stream or an array).
func (w *walker) contentStreams(o types.Object) [][]byte {
	var out [][]byte
	if s := w.stream(o); s != nil {
		if b := decoded(s); b != nil {
			out = append(out, b)
		}
		return out
	}
	for _, x := range w.array(o) {
		if b := decoded(w.stream(x)); b != nil {
			out = append(out, b)
		}
	}
	return out
}

// blendModes are those of ISO 32000-1, 11.3.5.
var blendModes = map[string]bool{"Normal": true, "Compatible": true, "Multiply": true, "Screen": true, "Overlay": true, "Darken": true,
	"Lighten": true, "ColorDodge": true, "ColorBurn": true, "HardLight": true, "SoftLight": true, "Difference": true, "Exclusion": true,
	"Hue": true, "Saturation": true, "Color": true, "Luminosity": true}

// renderingIntents are those of ISO 32000-1, Table 70.
var renderingIntents = map[string]bool{"RelativeColorimetric": true, "AbsoluteColorimetric": true, "Perceptual": true, "Saturation": true}

// extGState: 6.2.5, 6.2.6, 6.2.10-1; transparency for 6.2.10-2.
func (w *walker) extGState(o types.Object, path string, page int) {
	d := w.dict(o)
	if d == nil {
		return
	}
	first := w.first("extgstate", o)
	loc := where(o, path)
	if first {
		_, tr := d["TR"]
		w.c.check(!tr, "6.2.5-1", loc)
		if tr2, ok := d["TR2"]; ok {
			w.c.check(w.name(tr2) == "Default", "6.2.5-2", loc)
		}
		_, htp := d["HTP"]
		w.c.check(!htp, "6.2.5-3", loc)
		if ht := d["HT"]; ht != nil {
			w.halftone(ht, loc+" HT", 0)
		}
		if ri := d["RI"]; ri != nil {
			w.c.check(renderingIntents[w.name(ri)], "6.2.6-1", loc)
		}
		for _, bm := range w.blendModeNames(d["BM"]) {
			w.c.check(blendModes[bm], "6.2.10-1", loc+" BM "+bm)
		}
	}
	if w.gsTransparent(d) && page > 0 {
		w.transparent[page] = true
	}
	if sm := w.dict(d["SMask"]); sm != nil {
		if g := sm["G"]; g != nil {
			w.xobject(g, loc+" SMask", page)
		}
	}
}

// blendModeNames are the names of a BM entry (a name or an array of names).
func (w *walker) blendModeNames(o types.Object) []string {
	if o == nil {
		return nil
	}
	if n := w.name(o); n != "" {
		return []string{n}
	}
	var out []string
	for _, x := range w.array(o) {
		out = append(out, w.name(x))
	}
	return out
}

// gsTransparent tells whether a graphics state introduces transparency.
func (w *walker) gsTransparent(d types.Dict) bool {
	if sm := d["SMask"]; sm != nil && w.name(sm) != "None" {
		return true
	}
	for _, k := range []string{"CA", "ca"} {
		if v, ok := w.number(d[k]); ok && v < 1 {
			return true
		}
	}
	for _, bm := range w.blendModeNames(d["BM"]) {
		if bm != "Normal" && bm != "Compatible" {
			return true
		}
	}
	return false
}

// halftone: 6.2.5-4 and -5.
func (w *walker) halftone(o types.Object, loc string, depth int) {
	d := w.dict(o)
	if d == nil || depth > 4 {
		return
	}
	if w.name(o) == "Default" {
		return
	}
	t, _ := w.number(d["HalftoneType"])
	w.c.check(t == 1 || t == 5, "6.2.5-4", loc)
	_, hn := d["HalftoneName"]
	w.c.check(!hn, "6.2.5-5", loc)
	if t == 5 {
		for k, v := range d {
			if k == "Type" || k == "HalftoneType" || k == "HalftoneName" {
				continue
			}
			sub := w.dict(v)
			if sub == nil {
				continue
			}
			w.halftone(v, loc+" "+k, depth+1)
			if k == "Default" {
				continue
			}
			_, tf := sub["TransferFunction"]
			primary := k == "Cyan" || k == "Magenta" || k == "Yellow" || k == "Black"
			w.c.check(tf != primary, "6.2.5-6", loc+" "+k)
		}
	}
}

// xobject: images, forms, PostScript (6.2.8, 6.2.9); forms queue their content.
func (w *walker) xobject(o types.Object, path string, page int) { w.xobjectIn(o, nil, path, page) }

// xobjectIn is xobject for an XObject of the resources res (whose Default colour spaces
// its image's colours take).
func (w *walker) xobjectIn(o types.Object, res types.Dict, path string, page int) {
	s := w.stream(o)
	if s == nil {
		return
	}
	loc := where(o, path)
	switch w.name(s.Dict["Subtype"]) {
	case "Image":
		w.image(o, res, path, page, false)
	case "Form":
		if !w.first(fmt.Sprintf("form p%d", page), o) {
			return
		}
		d := s.Dict
		_, opi := d["OPI"]
		_, ps := d["PS"]
		w.c.check(!opi && !ps && w.name(d["Subtype2"]) != "PS", "6.2.9-1", loc)
		_, ref := d["Ref"]
		w.c.check(!ref, "6.2.9-2", loc)
		if g := w.dict(d["Group"]); g != nil {
			w.group(g, loc)
			if w.name(g["S"]) == "Transparency" && page > 0 {
				w.transparent[page] = true
			}
		}
		if b := decoded(s); b != nil {
			w.contents = append(w.contents, content{data: b, resources: w.dict(d["Resources"]), loc: loc, page: page, own: true})
		}
	case "PS":
		w.c.fail("6.2.9-3", loc)
	}
}

// group checks a transparency group's colour space.
func (w *walker) group(g types.Dict, loc string) {
	if cs := g["CS"]; cs != nil {
		w.colorSpace(cs, loc+" Group CS", 0)
		w.useColorSpace(cs, nil, loc+" Group CS")
	}
}

// image: 6.2.8 and the image's colour space; soft masks make the page transparent. A soft
// mask's colour space (DeviceGray, by definition) holds no colour and is not checked.
func (w *walker) image(o types.Object, res types.Dict, path string, page int, smask bool) {
	s := w.stream(o)
	if s == nil {
		return
	}
	d := s.Dict
	if (d["SMask"] != nil || func() bool { v, _ := w.number(d["SMaskInData"]); return v > 0 }()) && page > 0 {
		w.transparent[page] = true
	}
	if !w.first(fmt.Sprintf("image %p", res), o) {
		return
	}
	loc := where(o, path)
	_, alt := d["Alternates"]
	w.c.check(!alt, "6.2.8-1", loc)
	_, opi := d["OPI"]
	w.c.check(!opi, "6.2.8-2", loc)
	if v, ok := w.boolean(d["Interpolate"]); ok {
		w.c.check(!v, "6.2.8-3", loc)
	}
	mask, _ := w.boolean(d["ImageMask"])
	if bpc, ok := w.number(d["BitsPerComponent"]); ok {
		if mask {
			w.c.check(bpc == 1, "6.2.8-5", loc)
		} else {
			w.c.check(bpc == 1 || bpc == 2 || bpc == 4 || bpc == 8 || bpc == 16, "6.2.8-4", loc)
		}
	}
	if ri := d["Intent"]; ri != nil {
		w.c.check(renderingIntents[w.name(ri)], "6.2.6-1", loc)
	}
	if w.name(d["Filter"]) == "JPXDecode" {
		_, hasCS := d["ColorSpace"]
		w.jpx(s.Raw, hasCS, loc)
	}
	if !mask && !smask {
		if cs := d["ColorSpace"]; cs != nil {
			w.colorSpace(cs, loc+" ColorSpace", 0)
			w.useColorSpace(cs, res, loc)
		}
	}
	if sm := d["SMask"]; sm != nil {
		w.image(sm, res, loc+" SMask", page, true)
	}
}

// pattern: tiling patterns queue their content; shading patterns check their shading.
func (w *walker) pattern(o types.Object, path string, page int) {
	d := w.dict(o)
	if d == nil || !w.first(fmt.Sprintf("pattern p%d", page), o) {
		return
	}
	loc := where(o, path)
	if t, _ := w.number(d["PatternType"]); t == 2 {
		w.shading(d["Shading"], nil, loc+" Shading")
		if gs := d["ExtGState"]; gs != nil {
			w.extGState(gs, loc+" ExtGState", page)
		}
		return
	}
	if b := decoded(w.stream(o)); b != nil {
		w.contents = append(w.contents, content{data: b, resources: w.dict(d["Resources"]), loc: loc, page: page, own: true})
	}
}

// shading: its colour space is used.
func (w *walker) shading(o types.Object, res types.Dict, path string) {
	d := w.dict(o)
	if d == nil || !w.first("shading", o) {
		return
	}
	if cs := d["ColorSpace"]; cs != nil {
		w.colorSpace(cs, where(o, path)+" ColorSpace", 0)
		w.useColorSpace(cs, res, where(o, path))
	}
}
