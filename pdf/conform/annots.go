package conform

import (
	"fmt"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// annotationTypes are the annotation types of ISO 32000-1 that PDF/A-2 and -3 permit
// (6.3.1: not 3D, Sound, Screen or Movie).
var annotationTypes = map[string]bool{"Text": true, "Link": true, "FreeText": true, "Line": true, "Square": true, "Circle": true,
	"Polygon": true, "PolyLine": true, "Highlight": true, "Underline": true, "Squiggly": true, "StrikeOut": true, "Stamp": true,
	"Caret": true, "Ink": true, "Popup": true, "FileAttachment": true, "Widget": true, "PrinterMark": true, "TrapNet": true,
	"Watermark": true, "Redact": true}

// Annotation flags (ISO 32000-1, 12.5.3).
const (
	flagInvisible    = 1
	flagHidden       = 2
	flagPrint        = 4
	flagNoView       = 32
	flagToggleNoView = 256
)

// annotation: 6.3, 6.4.1-1, and its actions and appearances.
func (w *walker) annotation(o types.Object, path string) {
	d := w.dict(o)
	if d == nil || !w.first("annot", o) {
		return
	}
	c := w.c
	sub := w.name(d["Subtype"])
	loc := where(o, fmt.Sprintf("%s annotation %s", path, sub))
	c.check(annotationTypes[sub], "6.3.1-1", loc)
	f, hasF := w.number(d["F"])
	c.check(sub == "Popup" || hasF, "6.3.2-1", loc)
	if hasF {
		flags := int(f)
		c.check(flags&flagPrint != 0 && flags&(flagInvisible|flagHidden|flagNoView|flagToggleNoView) == 0, "6.3.2-2", loc)
	}
	var wd, ht float64
	if r := w.array(d["Rect"]); len(r) == 4 {
		var v [4]float64
		for i := range v {
			v[i], _ = w.number(r[i])
		}
		wd, ht = v[2]-v[0], v[3]-v[1]
	}
	ap := w.dict(d["AP"])
	c.check(wd == 0 && ht == 0 || sub == "Popup" || sub == "Link" || ap != nil, "6.3.3-1", loc)
	if ap != nil {
		only := len(ap) == 1
		_, hasN := ap["N"]
		c.check(only && hasN, "6.3.3-2", loc)
		if only && hasN {
			ft := w.fieldType(d)
			n := ap["N"]
			isStream := w.stream(n) != nil
			if sub == "Widget" && ft == "Btn" {
				c.check(!isStream && w.dict(n) != nil, "6.3.3-3", loc)
			} else {
				c.check(isStream, "6.3.3-4", loc)
			}
		}
		for _, k := range []string{"N", "R", "D"} {
			w.appearance(ap[k], loc+" AP "+k, w.pageNo)
		}
	}
	if sub == "Widget" {
		_, a := d["A"]
		_, aa := d["AA"]
		c.check(!a && !aa, "6.4.1-1", loc)
	}
	if a := d["A"]; a != nil {
		w.action(a, loc)
	}
	if sub != "Widget" {
		for _, a := range w.dict(d["AA"]) {
			w.action(a, loc+" AA")
		}
	}
	if sub == "FileAttachment" {
		w.fileSpec(d["FS"])
	}
	if p := d["Popup"]; p != nil {
		w.annotation(p, path)
	}
}

// fieldType is a widget's field type, inherited from its parents.
func (w *walker) fieldType(d types.Dict) string {
	for i := 0; d != nil && i < maxDepth; i++ {
		if ft := w.name(d["FT"]); ft != "" {
			return ft
		}
		d = w.dict(d["Parent"])
	}
	return ""
}

// appearance queues an appearance stream (or each of a subdictionary's) as a form drawn
// on page.
func (w *walker) appearance(o types.Object, loc string, page int) {
	if o == nil {
		return
	}
	if w.stream(o) != nil {
		w.xobject(o, loc, page)
		return
	}
	for state, s := range w.dict(o) {
		if w.stream(s) != nil {
			w.xobject(s, loc+" "+state, page)
		}
	}
}
