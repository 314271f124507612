package pdf

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
	"golang.org/x/text/encoding/charmap"

	"github.com/papierkram/papierkram/fault"
)

// FlattenOptions steer Flatten.
type FlattenOptions struct {
	// Annotations also draws every annotation that has a normal appearance (comments,
	// stamps, free text, ink...) into its page and removes it. Links and pop-ups stay
	// interactive; an annotation without an appearance stays as it is. Form fields are
	// always flattened.
	Annotations bool
}

// Flatten turns the form fields, and with FlattenOptions.Annotations the annotations, into
// page content no viewer can edit: each visible one's normal appearance is drawn where it
// was, and it is removed, the form with it. Hidden annotations and fields are removed
// without being drawn. A text or choice field with a value but no appearance gets one
// first. A document with nothing to flatten comes back unchanged.
func Flatten(ctx context.Context, data []byte, o FlattenOptions) (out []byte, err error) {
	if ctx.Err() != nil {
		return nil, fault.FromContext(ctx, "the PDF was not flattened")
	}
	d, err := Read(data)
	if err != nil {
		return nil, err
	}
	defer recoverInto(&err, "flatten")
	if err := d.appearances(); err != nil {
		return nil, fault.Wrap(fault.Unprocessable, err, "the form's appearances cannot be written")
	}
	changed, err := d.flattenAnnots(ctx, o.Annotations)
	if err != nil {
		return nil, err
	}
	if !changed {
		return data, nil
	}
	return d.writePruned()
}

// Annotation flags (ISO 32000-1, table 165).
const (
	annotHidden = 1 << 1
	annotNoView = 1 << 5
)

// flatten draws every visible widget's normal appearance into its page's content and
// removes the widgets and the AcroForm, so the values are page content no viewer can edit.
func (d *Doc) flatten() error {
	_, err := d.flattenAnnots(context.Background(), false)
	return err
}

// flattenAnnots flattens the widgets and, with all, every other annotation with a normal
// appearance except links and pop-ups; it reports whether it changed anything.
func (d *Doc) flattenAnnots(ctx context.Context, all bool) (changed bool, err error) {
	c := d.ctx
	leaves, err := d.pageLeaves()
	if err != nil {
		return false, err
	}
	for i, leaf := range leaves {
		if i%64 == 0 && ctx.Err() != nil {
			return false, fault.FromContext(ctx, "the PDF was not flattened")
		}
		page := leaf.dict
		annots, _ := c.DereferenceArray(page["Annots"])
		if len(annots) == 0 {
			continue
		}
		var draw strings.Builder
		var res *pageResources // the page's own, made on the first drawing
		flat := map[int]bool{}
		keep := make(types.Array, 0, len(annots))
		for _, a := range annots {
			ad, err := c.DereferenceDict(a)
			if err != nil || ad == nil {
				continue // not an annotation: dropped
			}
			st, _ := ad["Subtype"].(types.Name)
			if st != "Widget" && (!all || st == "Link" || st == "Popup") {
				keep = append(keep, a)
				continue
			}
			ap, hasAP := d.appearance(ad)
			if st != "Widget" && !hasAP {
				keep = append(keep, a) // nothing to draw it with: it stays an annotation
				continue
			}
			if r, ok := a.(types.IndirectRef); ok {
				flat[r.ObjectNumber.Value()] = true
			}
			changed = true
			if f, ok := ad["F"].(types.Integer); ok && f.Value()&(annotHidden|annotNoView) != 0 {
				continue // hidden or no-view: nothing to draw
			}
			if !hasAP {
				continue
			}
			m, ok := d.placeAppearance(ad, ap)
			if !ok {
				continue
			}
			if res == nil {
				if res, err = d.ownResources(leaf); err != nil {
					return false, err
				}
			}
			name := res.add(d, "XObject", "PkFlat", ap)
			fmt.Fprintf(&draw, "q %s cm /%s Do Q\n", m, name)
		}
		// A pop-up belongs to the annotation it opens from; with that one gone it goes too.
		if len(flat) > 0 {
			kept := keep[:0]
			for _, a := range keep {
				ad, _ := c.DereferenceDict(a)
				if st, _ := ad["Subtype"].(types.Name); st == "Popup" {
					if p, ok := ad["Parent"].(types.IndirectRef); ok && flat[p.ObjectNumber.Value()] {
						continue
					}
				}
				kept = append(kept, a)
			}
			keep = kept
		}
		if len(keep) == len(annots) {
			continue
		}
		if len(keep) > 0 {
			page["Annots"] = keep
		} else {
			delete(page, "Annots")
		}
		if draw.Len() == 0 {
			continue
		}
		// The page's own content is wrapped in q…Q so that a state it leaves behind does not
		// move the appearances.
		if err := d.addContent(page, []byte("q\n"), []byte("Q\n"+draw.String())); err != nil {
			return false, err
		}
	}
	cat, err := c.Catalog()
	if err != nil {
		return false, fault.Wrap(fault.InvalidPDF, err, "the PDF has no readable catalog")
	}
	if _, ok := cat["AcroForm"]; ok {
		delete(cat, "AcroForm")
		changed = true
	}
	return changed, nil
}

// placeAppearance is the matrix that draws an annotation's appearance stream in its
// rectangle (ISO 32000-1, 12.5.5): the appearance's bounding box, transformed by its own
// /Matrix, is mapped onto /Rect. It makes sure the stream is a form XObject, which some
// producers leave unsaid.
func (d *Doc) placeAppearance(ad types.Dict, ap types.Object) (string, bool) {
	c := d.ctx
	sd, _, err := c.DereferenceStreamDict(ap)
	if err != nil || sd == nil {
		return "", false
	}
	r, ok := d.rect(ad["Rect"])
	b, ok2 := d.rect(sd.Dict["BBox"])
	if !ok || !ok2 {
		return "", false
	}
	am := identity
	if arr, err := c.DereferenceArray(sd.Dict["Matrix"]); err == nil && len(arr) == 6 {
		for i := range am {
			am[i] = d.number(arr[i])
		}
	}
	tb := am.box(b)
	if tb[2]-tb[0] < 1e-6 || tb[3]-tb[1] < 1e-6 || !allFinite(am[:]...) {
		return "", false
	}
	if _, ok := sd.Dict["Subtype"]; !ok {
		sd.Dict["Type"], sd.Dict["Subtype"] = types.Name("XObject"), types.Name("Form")
	}
	sx, sy := (r[2]-r[0])/(tb[2]-tb[0]), (r[3]-r[1])/(tb[3]-tb[1])
	return matrix{sx, 0, 0, sy, r[0] - tb[0]*sx, r[1] - tb[1]*sy}.String(), true
}

// rect reads a rectangle, normalised so that the first corner is the lower left.
func (d *Doc) rect(o types.Object) ([4]float64, bool) {
	arr, err := d.ctx.DereferenceArray(o)
	if err != nil || len(arr) != 4 {
		return [4]float64{}, false
	}
	r := [4]float64{d.number(arr[0]), d.number(arr[1]), d.number(arr[2]), d.number(arr[3])}
	if r[0] > r[2] {
		r[0], r[2] = r[2], r[0]
	}
	if r[1] > r[3] {
		r[1], r[3] = r[3], r[1]
	}
	return r, allFinite(r[:]...)
}

func allFinite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// matrix is a PDF transformation [a b c d e f]: (x, y) -> (ax + cy + e, bx + dy + f).
type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

// then is m followed by n.
func (m matrix) then(n matrix) matrix {
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return m[0]*x + m[2]*y + m[4], m[1]*x + m[3]*y + m[5]
}

// box is the bounding box of r transformed by m.
func (m matrix) box(r [4]float64) [4]float64 {
	out := [4]float64{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, p := range [][2]float64{{r[0], r[1]}, {r[2], r[1]}, {r[0], r[3]}, {r[2], r[3]}} {
		x, y := m.apply(p[0], p[1])
		out[0], out[1], out[2], out[3] = min(out[0], x), min(out[1], y), max(out[2], x), max(out[3], y)
	}
	return out
}

func (m matrix) inverse() matrix {
	det := m[0]*m[3] - m[1]*m[2]
	return matrix{m[3] / det, -m[1] / det, -m[2] / det, m[0] / det, (m[2]*m[5] - m[3]*m[4]) / det, (m[1]*m[4] - m[0]*m[5]) / det}
}

func moveBy(x, y float64) matrix  { return matrix{1, 0, 0, 1, x, y} }
func scaleBy(x, y float64) matrix { return matrix{x, 0, 0, y, 0, 0} }

// turnBy turns counter-clockwise by deg degrees; quarter turns are exact.
func turnBy(deg float64) matrix {
	s, c := math.Sincos(deg * math.Pi / 180)
	switch math.Mod(math.Mod(deg, 360)+360, 360) {
	case 0:
		s, c = 0, 1
	case 90:
		s, c = 1, 0
	case 180:
		s, c = 0, -1
	case 270:
		s, c = -1, 0
	}
	return matrix{c, s, -s, c, 0, 0}
}

func (m matrix) String() string {
	f := make([]string, 6)
	for i, v := range m {
		f[i] = pdfNum(v)
	}
	return strings.Join(f, " ")
}

// pdfNum writes a number for a content stream: at most six decimals, no exponent, no -0.
func pdfNum(v float64) string {
	s := strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
	if s == "-0" {
		return "0"
	}
	return s
}

// pageResources are a page's own resource dictionary, made for adding to.
type pageResources struct {
	dict   types.Dict
	copied map[string]bool // kinds whose dictionary is the page's own already
}

// ownResources gives the page a resource dictionary of its own, a copy of the one it has
// or inherits, so that what is added to it shows on this page only.
func (d *Doc) ownResources(leaf pageLeaf) (*pageResources, error) {
	res := types.Dict{}
	old, err := d.ctx.DereferenceDict(leaf.attr("Resources"))
	if err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "a page's resources cannot be read")
	}
	for k, v := range old {
		res[k] = v
	}
	leaf.dict["Resources"] = res
	return &pageResources{dict: res, copied: map[string]bool{}}, nil
}

// add puts o into the kind dictionary (XObject, ExtGState) under a name starting with
// prefix that is not taken yet, and returns the name. The kind dictionary is copied first:
// another page may share it.
func (r *pageResources) add(d *Doc, kind, prefix string, o types.Object) string {
	if !r.copied[kind] {
		sub := types.Dict{}
		if old, err := d.ctx.DereferenceDict(r.dict[kind]); err == nil {
			for k, v := range old {
				sub[k] = v
			}
		}
		r.dict[kind], r.copied[kind] = sub, true
	}
	sub := r.dict[kind].(types.Dict)
	for i := 1; ; i++ {
		name := prefix + strconv.Itoa(i)
		if _, taken := sub[name]; !taken {
			sub[name] = o
			return name
		}
	}
}

// addContent puts before ahead of the page's content and after behind it, each as a new
// stream; the page's own streams are left as they are (another page may share them).
func (d *Doc) addContent(page types.Dict, before, after []byte) error {
	var refs [2]types.Object
	for i, b := range [][]byte{before, after} {
		if b == nil {
			continue
		}
		sd, err := d.newStream(b)
		var ref *types.IndirectRef
		if err == nil {
			ref, err = d.ctx.IndRefForNewObject(*sd)
		}
		if err != nil {
			return fault.Wrap(fault.Internal, err, "a content stream cannot be made")
		}
		refs[i] = *ref
	}
	var contents types.Array
	if refs[0] != nil {
		contents = append(contents, refs[0])
	}
	switch c := page["Contents"].(type) {
	case types.IndirectRef:
		if arr, err := d.ctx.DereferenceArray(c); err == nil && arr != nil {
			contents = append(contents, arr...)
		} else {
			contents = append(contents, c)
		}
	case types.Array:
		contents = append(contents, c...)
	}
	if refs[1] != nil {
		contents = append(contents, refs[1])
	}
	page["Contents"] = contents
	return nil
}

// newStream makes a stream of content, encoded. A short one stays unfiltered: a flate
// writer for each of the thousands of streams stamping a long document adds would cost
// more than the bytes it saves.
func (d *Doc) newStream(content []byte) (*types.StreamDict, error) {
	sd, err := d.ctx.NewStreamDictForBuf(content)
	if err != nil {
		return nil, err
	}
	if len(content) < 1024 {
		sd.FilterPipeline = nil
		delete(sd.Dict, "Filter")
	}
	return sd, sd.Encode()
}

// appearance is a widget's normal appearance stream: /AP /N itself, or the state /AS
// names in it.
func (d *Doc) appearance(w types.Dict) (types.Object, bool) {
	ap, _ := d.ctx.DereferenceDict(w["AP"])
	if ap == nil {
		return nil, false
	}
	n, ok := ap["N"]
	if !ok {
		return nil, false
	}
	if states, err := d.ctx.DereferenceDict(n); err == nil && states != nil {
		if _, isStream := n.(types.IndirectRef); isStream {
			if sd, _, err := d.ctx.DereferenceStreamDict(n); err == nil && sd != nil {
				return n, true
			}
		}
		as, ok := w["AS"].(types.Name)
		if !ok {
			return nil, false
		}
		s, ok := states[as.Value()]
		return s, ok
	}
	return n, true
}

// daFont reads the font name and size of a default appearance string ("/Helv 12 Tf 0 g").
func daFont(da string) (string, float64) {
	f := strings.Fields(da)
	for i := 2; i < len(f); i++ {
		if f[i] == "Tf" && strings.HasPrefix(f[i-2], "/") {
			size, _ := strconv.ParseFloat(f[i-1], 64)
			return f[i-2][1:], size
		}
	}
	return "", 0
}

// appearances writes a normal appearance for every text and single-choice field widget that
// has a value but none (pdfcpu leaves combo boxes to the viewer's NeedAppearances, which
// PDF 2.0 deprecates and some viewers ignore), so that the value shows everywhere and
// survives flattening. The text is set in the field's DA font, WinAnsi-encoded.
func (d *Doc) appearances() error {
	ctx := d.ctx
	nodes, err := d.formNodes()
	if err != nil || len(nodes) == 0 {
		return err
	}
	cat, err := ctx.Catalog()
	if err != nil {
		return err
	}
	af, _ := ctx.DereferenceDict(cat["AcroForm"])
	dr, _ := ctx.DereferenceDict(af["DR"])
	drFonts, _ := ctx.DereferenceDict(dr["Font"])
	var helvetica *types.IndirectRef
	for _, n := range nodes {
		if n.ft != "Tx" && n.ft != "Ch" || n.ft == "Ch" && n.ff&ffMultiSelect != 0 {
			continue
		}
		value := ""
		switch v := d.inherited(n.dict, "V").(type) {
		case types.StringLiteral, types.HexLiteral:
			value = d.text(v)
		}
		if value == "" {
			continue
		}
		da := ""
		if s, ok := d.inherited(n.dict, "DA").(types.StringLiteral); ok {
			da = s.Value()
		} else if s, ok := af["DA"].(types.StringLiteral); ok {
			da = s.Value()
		}
		fontName, size := daFont(da)
		font, ok := drFonts[fontName]
		if !ok {
			if helvetica == nil {
				if helvetica, err = ctx.IndRefForNewObject(types.Dict{"Type": types.Name("Font"), "Subtype": types.Name("Type1"),
					"BaseFont": types.Name("Helvetica"), "Encoding": types.Name("WinAnsiEncoding")}); err != nil {
					return err
				}
			}
			font = *helvetica
		}
		for _, w := range n.widget {
			if ap, _ := ctx.DereferenceDict(w["AP"]); ap != nil {
				if _, has := ap["N"]; has {
					continue
				}
			}
			rect, err := ctx.DereferenceArray(w["Rect"])
			if err != nil || len(rect) != 4 {
				continue
			}
			width, height := d.number(rect[2])-d.number(rect[0]), d.number(rect[3])-d.number(rect[1])
			if width <= 0 || height <= 0 {
				continue
			}
			sz := size
			if sz <= 0 { // auto size: fit the height
				sz = min(height*0.7, 12)
			}
			text, _ := charmap.Windows1252.NewEncoder().String(strings.Map(func(r rune) rune {
				if _, ok := charmap.Windows1252.EncodeRune(r); ok {
					return r
				}
				return '?'
			}, value))
			esc := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`, "\r", ` `, "\n", ` `).Replace(text)
			content := fmt.Sprintf("/Tx BMC q 1 1 %.2f %.2f re W n BT /F0 %.2f Tf 0 g 2 %.2f Td (%s) Tj ET Q EMC", width-2, height-2, sz, (height-sz)/2+sz*0.22, esc)
			sd, err := ctx.NewStreamDictForBuf([]byte(content))
			if err != nil {
				return err
			}
			sd.Dict["Type"], sd.Dict["Subtype"] = types.Name("XObject"), types.Name("Form")
			sd.Dict["BBox"] = types.Array{types.Integer(0), types.Integer(0), types.Float(width), types.Float(height)}
			sd.Dict["Resources"] = types.Dict{"Font": types.Dict{"F0": font}}
			if err := sd.Encode(); err != nil {
				return err
			}
			ref, err := ctx.IndRefForNewObject(*sd)
			if err != nil {
				return err
			}
			w["AP"] = types.Dict{"N": *ref}
		}
	}
	return nil
}
