package pdf

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
	"golang.org/x/text/encoding/charmap"
)

// flatten draws every visible widget's normal appearance into its page's content and
// removes the widgets and the AcroForm, so the values are page content no viewer can edit.
func (d *Doc) flatten() error {
	ctx := d.ctx
	for i := 1; i <= ctx.PageCount; i++ {
		page, _, _, err := ctx.PageDict(i, false)
		if err != nil || page == nil {
			continue
		}
		annots, _ := ctx.DereferenceArray(page["Annots"])
		if len(annots) == 0 {
			continue
		}
		var keep types.Array
		var draw strings.Builder
		xobjects := types.Dict{}
		for _, a := range annots {
			ad, err := ctx.DereferenceDict(a)
			if err != nil || ad == nil {
				continue
			}
			if st, ok := ad["Subtype"].(types.Name); !ok || st.Value() != "Widget" {
				keep = append(keep, a)
				continue
			}
			if f, ok := ad["F"].(types.Integer); ok && f.Value()&(1<<1|1<<5) != 0 {
				continue // hidden or no-view: nothing to draw
			}
			ap, ok := d.appearance(ad)
			if !ok {
				continue
			}
			sd, _, err := ctx.DereferenceStreamDict(ap)
			if err != nil || sd == nil {
				continue
			}
			rect, err := ctx.DereferenceArray(ad["Rect"])
			bbox, err2 := ctx.DereferenceArray(sd.Dict["BBox"])
			if err != nil || err2 != nil || len(rect) != 4 || len(bbox) != 4 {
				continue
			}
			r := [4]float64{d.number(rect[0]), d.number(rect[1]), d.number(rect[2]), d.number(rect[3])}
			b := [4]float64{d.number(bbox[0]), d.number(bbox[1]), d.number(bbox[2]), d.number(bbox[3])}
			if b[2] == b[0] || b[3] == b[1] {
				continue
			}
			// Map the appearance box onto the widget rectangle (ISO 32000-1, 12.5.5; the
			// appearance matrix is taken as the identity, which form producers write).
			sx, sy := (r[2]-r[0])/(b[2]-b[0]), (r[3]-r[1])/(b[3]-b[1])
			name := fmt.Sprintf("PkFlat%d", len(xobjects)+1)
			xobjects[name] = ap
			fmt.Fprintf(&draw, "q %.4f 0 0 %.4f %.4f %.4f cm /%s Do Q\n", sx, sy, r[0]-b[0]*sx, r[1]-b[1]*sy, name)
		}
		if len(keep) > 0 {
			page["Annots"] = keep
		} else {
			delete(page, "Annots")
		}
		if draw.Len() == 0 {
			continue
		}
		res, _ := ctx.DereferenceDict(page["Resources"])
		newRes := types.Dict{}
		for k, v := range res {
			newRes[k] = v
		}
		xo := types.Dict{}
		if old, _ := ctx.DereferenceDict(newRes["XObject"]); old != nil {
			for k, v := range old {
				xo[k] = v
			}
		}
		for k, v := range xobjects {
			xo[k] = v
		}
		newRes["XObject"] = xo
		page["Resources"] = newRes
		// The page's own content is wrapped in q…Q so that a state it leaves behind does not
		// move the fields.
		pre, err := ctx.NewStreamDictForBuf([]byte("q\n"))
		if err != nil {
			return err
		}
		post, err := ctx.NewStreamDictForBuf([]byte("Q\n" + draw.String()))
		if err != nil {
			return err
		}
		var refs types.Array
		for _, sd := range []*types.StreamDict{pre, post} {
			if err := sd.Encode(); err != nil {
				return err
			}
			ref, err := ctx.IndRefForNewObject(*sd)
			if err != nil {
				return err
			}
			refs = append(refs, *ref)
		}
		contents := types.Array{refs[0]}
		switch c := page["Contents"].(type) {
		case types.IndirectRef:
			if arr, err := ctx.DereferenceArray(c); err == nil && arr != nil {
				contents = append(contents, arr...)
			} else {
				contents = append(contents, c)
			}
		case types.Array:
			contents = append(contents, c...)
		}
		page["Contents"] = append(contents, refs[1])
	}
	cat, err := ctx.Catalog()
	if err != nil {
		return err
	}
	delete(cat, "AcroForm")
	return nil
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
