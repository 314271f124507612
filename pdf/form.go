package pdf

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/form"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/fault"
)

// Field types of FormField.
const (
	FieldText      = "text"
	FieldCheckbox  = "checkbox"
	FieldRadio     = "radio"
	FieldChoice    = "choice"
	FieldSignature = "signature"
	FieldButton    = "button" // a push button: no value
)

// FormField is one terminal field of the AcroForm.
type FormField struct {
	Name string `json:"name" doc:"Fully qualified name: the partial names from the root, joined by dots." example:"address.city"`
	Type string `json:"type" enum:"text,checkbox,radio,choice,signature,button"`
	// Value is the current value: a string, true/false for a check box, a list of strings
	// for a multi-select list box; null when unset.
	Value    any      `json:"value"`
	Options  []string `json:"options,omitempty" doc:"Allowed values of a radio group or choice field."`
	Multi    bool     `json:"multiSelect,omitempty" doc:"A list box that takes several values."`
	Editable bool     `json:"editable,omitempty" doc:"A combo box that also takes text of its own."`
	Required bool     `json:"required"`
	ReadOnly bool     `json:"readOnly"`
	MaxLen   int      `json:"maxLength,omitempty"`
	Widgets  []Widget `json:"widgets" doc:"Where the field appears."`

	combo bool // a combo box rather than a list box
}

// Widget is one appearance of a field on a page.
type Widget struct {
	Page int        `json:"page"`
	Rect [4]float64 `json:"rect" doc:"Lower-left x, lower-left y, upper-right x, upper-right y, in points."`
}

// Field flags (ISO 32000-1, tables 221, 226, 228, 230).
const (
	ffReadOnly    = 1 << 0
	ffRequired    = 1 << 1
	ffRadio       = 1 << 15
	ffPushButton  = 1 << 16
	ffCombo       = 1 << 17
	ffEdit        = 1 << 18
	ffMultiSelect = 1 << 21
)

// formNode is a field dictionary with what it inherits.
type formNode struct {
	dict   types.Dict
	ref    *types.IndirectRef
	name   string
	ft     string
	ff     int
	widget []types.Dict
}

// FormFields lists the document's form fields in the order of the AcroForm tree; a
// document without a form has none.
func (d *Doc) FormFields() (out []FormField, err error) {
	defer recoverInto(&err, "form fields")
	nodes, err := d.formNodes()
	if err != nil {
		return nil, err
	}
	pages := d.pageNumbers()
	for _, n := range nodes {
		f := FormField{Name: n.name, Required: n.ff&ffRequired != 0, ReadOnly: n.ff&ffReadOnly != 0}
		switch n.ft {
		case "Tx":
			f.Type = FieldText
			if v, ok := d.inherited(n.dict, "MaxLen").(types.Integer); ok {
				f.MaxLen = v.Value()
			}
		case "Btn":
			switch {
			case n.ff&ffPushButton != 0:
				f.Type = FieldButton
			case n.ff&ffRadio != 0:
				f.Type = FieldRadio
				f.Options = d.onStates(n)
			default:
				f.Type = FieldCheckbox
			}
		case "Ch":
			f.Type, f.Multi, f.Editable, f.combo = FieldChoice, n.ff&ffMultiSelect != 0, n.ff&ffCombo != 0 && n.ff&ffEdit != 0, n.ff&ffCombo != 0
			f.Options = d.choiceOptions(n.dict)
		case "Sig":
			f.Type = FieldSignature
		default:
			continue // not a field we can describe
		}
		f.Value = d.fieldValue(n, f.Type)
		for _, w := range n.widget {
			wd := Widget{Page: pages[d.widgetPage(w)]}
			if r, err := d.ctx.DereferenceArray(w["Rect"]); err == nil && len(r) == 4 {
				for i := range r {
					wd.Rect[i] = d.number(r[i])
				}
			}
			f.Widgets = append(f.Widgets, wd)
		}
		out = append(out, f)
	}
	return out, nil
}

// formNodes walks the AcroForm field tree, bounded against cycles and depth.
func (d *Doc) formNodes() ([]formNode, error) {
	cat, err := d.ctx.Catalog()
	if err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "the PDF has no readable catalog")
	}
	af, err := d.ctx.DereferenceDict(cat["AcroForm"])
	if err != nil || af == nil {
		return nil, nil
	}
	fields, err := d.ctx.DereferenceArray(af["Fields"])
	if err != nil {
		return nil, nil
	}
	var out []formNode
	seen := map[int]bool{}
	var walk func(o types.Object, parent formNode, depth int)
	walk = func(o types.Object, parent formNode, depth int) {
		if depth > 32 || len(out) > 10000 {
			return
		}
		var ref *types.IndirectRef
		if r, ok := o.(types.IndirectRef); ok {
			if seen[r.ObjectNumber.Value()] {
				return
			}
			seen[r.ObjectNumber.Value()] = true
			ref = &r
		}
		dict, err := d.ctx.DereferenceDict(o)
		if err != nil || dict == nil {
			return
		}
		n := formNode{dict: dict, ref: ref, name: parent.name, ft: parent.ft, ff: parent.ff}
		if t, ok := dict["T"]; ok {
			if n.name != "" {
				n.name += "."
			}
			n.name += d.text(t)
		}
		if ft, ok := dict["FT"].(types.Name); ok {
			n.ft = ft.Value()
		}
		if ff, ok := dict["Ff"].(types.Integer); ok {
			n.ff = ff.Value()
		}
		kids, _ := d.ctx.DereferenceArray(dict["Kids"])
		var fieldKids []types.Object
		for _, k := range kids {
			kd, err := d.ctx.DereferenceDict(k)
			if err != nil || kd == nil {
				continue
			}
			if _, named := kd["T"]; named {
				fieldKids = append(fieldKids, k)
			} else {
				n.widget = append(n.widget, kd) // a widget of this field
			}
		}
		if len(fieldKids) > 0 {
			for _, k := range fieldKids {
				walk(k, n, depth+1)
			}
			return
		}
		if st, ok := dict["Subtype"].(types.Name); ok && st.Value() == "Widget" {
			n.widget = append([]types.Dict{dict}, n.widget...) // field and widget merged
		}
		out = append(out, n)
	}
	for _, f := range fields {
		walk(f, formNode{}, 0)
	}
	return out, nil
}

// inherited is an inheritable field entry: the field's own, else its ancestors'.
func (d *Doc) inherited(dict types.Dict, key string) types.Object {
	for i := 0; dict != nil && i < 32; i++ {
		if v, ok := dict[key]; ok {
			if o, err := d.ctx.Dereference(v); err == nil {
				return o
			}
			return nil
		}
		dict, _ = d.ctx.DereferenceDict(dict["Parent"])
	}
	return nil
}

// onStates are the appearance states other than Off of a button's widgets: a check box's
// on value, a radio group's options.
func (d *Doc) onStates(n formNode) []string {
	var out []string
	for _, w := range n.widget {
		ap, _ := d.ctx.DereferenceDict(w["AP"])
		if ap == nil {
			continue
		}
		nd, _ := d.ctx.DereferenceDict(ap["N"])
		for k := range nd {
			if k != "Off" && !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// choiceOptions are a choice field's export values (the first of a pair).
func (d *Doc) choiceOptions(dict types.Dict) []string {
	opt, ok := d.inherited(dict, "Opt").(types.Array)
	if !ok {
		return nil
	}
	var out []string
	for _, o := range opt {
		o, _ = d.ctx.Dereference(o)
		if pair, ok := o.(types.Array); ok && len(pair) > 0 {
			o = pair[0]
		}
		out = append(out, d.text(o))
	}
	return out
}

func (d *Doc) fieldValue(n formNode, typ string) any {
	v := d.inherited(n.dict, "V")
	switch typ {
	case FieldCheckbox:
		name, ok := v.(types.Name)
		return ok && name.Value() != "Off" && name.Value() != ""
	case FieldRadio:
		if name, ok := v.(types.Name); ok && name.Value() != "Off" {
			return name.Value()
		}
		return nil
	case FieldButton, FieldSignature:
		return nil
	}
	switch x := v.(type) {
	case types.StringLiteral, types.HexLiteral:
		return d.text(x)
	case types.Array:
		var out []string
		for _, o := range x {
			out = append(out, d.text(o))
		}
		return out
	}
	return nil
}

// pageNumbers maps page object numbers to page numbers from 1.
func (d *Doc) pageNumbers() map[int]int {
	out := map[int]int{}
	for i := 1; i <= d.ctx.PageCount; i++ {
		_, ref, _, err := d.ctx.PageDict(i, false)
		if err == nil && ref != nil {
			out[ref.ObjectNumber.Value()] = i
		}
	}
	return out
}

// widgetPage is the object number of a widget's page: its /P, else the page whose /Annots
// lists it.
func (d *Doc) widgetPage(w types.Dict) int {
	if p, ok := w["P"].(types.IndirectRef); ok {
		return p.ObjectNumber.Value()
	}
	for i := 1; i <= d.ctx.PageCount; i++ {
		pd, ref, _, err := d.ctx.PageDict(i, false)
		if err != nil || ref == nil {
			continue
		}
		annots, _ := d.ctx.DereferenceArray(pd["Annots"])
		for _, a := range annots {
			if ad, err := d.ctx.DereferenceDict(a); err == nil && sameDict(ad, w) {
				return ref.ObjectNumber.Value()
			}
		}
	}
	return 0
}

// sameDict tells whether two dereferenced dictionaries are the same object: pdfcpu hands
// out the one map it holds for an object.
func sameDict(a, b types.Dict) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func (d *Doc) number(o types.Object) float64 {
	o, _ = d.ctx.Dereference(o)
	switch x := o.(type) {
	case types.Integer:
		return float64(x.Value())
	case types.Float:
		return x.Value()
	}
	return 0
}

// FillForm sets form fields by full name and returns the new document with appearance
// streams for the new values (so every viewer and pdftotext shows them). Values are strings
// (numbers are accepted for text), true/false for check boxes, a list of strings for a
// multi-select list box. Unknown names, read-only fields and values a field cannot take are
// fault.InvalidInput naming them; with flatten, the fields become page content and the form
// is removed.
func (d *Doc) FillForm(values map[string]any, flatten bool) (out []byte, err error) {
	defer recoverInto(&err, "fill form")
	fields, err := d.FormFields()
	if err != nil {
		return nil, err
	}
	if len(fields) == 0 {
		return nil, fault.New(fault.InvalidInput, "the PDF has no form fields")
	}
	byName := map[string]FormField{}
	for _, f := range fields {
		byName[f.Name] = f
	}
	var problems []string
	var f form.Form
	names := make([]string, 0, len(values))
	for k := range values {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		v := values[name]
		field, ok := byName[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("%q is not a field of this form", name))
			continue
		}
		if field.ReadOnly {
			problems = append(problems, fmt.Sprintf("%q is read-only", name))
			continue
		}
		if msg := addValue(&f, field, v); msg != "" {
			problems = append(problems, fmt.Sprintf("%q: %s", name, msg))
		}
	}
	if len(problems) > 0 {
		return nil, fault.New(fault.InvalidInput, "cannot fill the form: %s", strings.Join(problems, "; ")).With("fields", problems)
	}
	out = d.src
	if len(values) > 0 {
		js, err := json.Marshal(form.FormGroup{Forms: []form.Form{f}})
		if err != nil {
			return nil, err
		}
		src := d.src
		if d.literalOptions() {
			if src, err = write(d.ctx); err != nil {
				return nil, err
			}
		}
		var buf bytes.Buffer
		if err := api.FillForm(bytes.NewReader(src), bytes.NewReader(js), &buf, config()); err != nil {
			return nil, fault.Wrap(fault.Unprocessable, err, "the form cannot be filled: %s", trimPdfcpu(err.Error()))
		}
		out = buf.Bytes()
	}
	nd, err := Read(out)
	if err != nil {
		return nil, err
	}
	if err := nd.appearances(); err != nil {
		return nil, fault.Wrap(fault.Unprocessable, err, "the form's appearances cannot be written")
	}
	if flatten {
		if err := nd.flatten(); err != nil {
			return nil, fault.Wrap(fault.Unprocessable, err, "the form cannot be flattened")
		}
	}
	return write(nd.ctx)
}

// addValue checks v against the field and adds it to the pdfcpu form; it returns what is
// wrong, or "".
func addValue(f *form.Form, field FormField, v any) string {
	str := func() (string, bool) {
		switch x := v.(type) {
		case string:
			return x, true
		case float64:
			return strconv.FormatFloat(x, 'f', -1, 64), true
		}
		return "", false
	}
	switch field.Type {
	case FieldText:
		s, ok := str()
		if !ok {
			return "a text field takes a string or a number"
		}
		if field.MaxLen > 0 && len([]rune(s)) > field.MaxLen {
			return fmt.Sprintf("longer than the field's %d characters", field.MaxLen)
		}
		f.TextFields = append(f.TextFields, &form.TextField{Name: field.Name, Value: s})
	case FieldCheckbox:
		b, ok := v.(bool)
		if !ok {
			return "a check box takes true or false"
		}
		f.CheckBoxes = append(f.CheckBoxes, &form.CheckBox{Name: field.Name, Value: b})
	case FieldRadio:
		s, ok := v.(string)
		if !ok || !slices.Contains(field.Options, s) {
			return fmt.Sprintf("one of %s", strings.Join(field.Options, ", "))
		}
		f.RadioButtonGroups = append(f.RadioButtonGroups, &form.RadioButtonGroup{Name: field.Name, Value: s})
	case FieldChoice:
		if field.Multi {
			list, ok := v.([]any)
			var vals []string
			for _, x := range list {
				s, isStr := x.(string)
				if !isStr || !slices.Contains(field.Options, s) {
					ok = false
				}
				vals = append(vals, s)
			}
			if !ok {
				return fmt.Sprintf("a list of values from %s", strings.Join(field.Options, ", "))
			}
			f.ListBoxes = append(f.ListBoxes, &form.ListBox{Name: field.Name, Values: vals})
			return ""
		}
		s, ok := v.(string)
		if !ok || (!field.Editable && !slices.Contains(field.Options, s)) {
			return fmt.Sprintf("one of %s", strings.Join(field.Options, ", "))
		}
		if field.combo {
			f.ComboBoxes = append(f.ComboBoxes, &form.ComboBox{Name: field.Name, Value: s})
		} else {
			f.ListBoxes = append(f.ListBoxes, &form.ListBox{Name: field.Name, Values: []string{s}})
		}
	default:
		return "a " + field.Type + " field cannot be filled"
	}
	return ""
}

// literalOptions rewrites the hex strings of choice fields' /Opt arrays as literal strings
// and reports whether it changed any. LibreOffice writes options as UTF-16 hex strings
// (<FEFF004D00FC…>), which pdfcpu's form filling refuses as a "corrupt choice field" even
// when only another field is filled; the text stays the same.
func (d *Doc) literalOptions() bool {
	changed := false
	literal := func(o types.Object) (types.Object, bool) {
		hl, ok := o.(types.HexLiteral)
		if !ok {
			return o, false
		}
		s, err := types.HexLiteralToString(hl)
		if err != nil {
			return o, false
		}
		esc, err := types.EscapedUTF16String(s)
		if err != nil {
			return o, false
		}
		return types.StringLiteral(*esc), true
	}
	for _, e := range d.ctx.Table {
		if e == nil || e.Free {
			continue
		}
		dict, ok := e.Object.(types.Dict)
		if !ok {
			continue
		}
		opt, ok := dict["Opt"].(types.Array)
		if !ok {
			continue
		}
		for i, o := range opt {
			if pair, ok := o.(types.Array); ok {
				for j := range pair {
					if v, ok := literal(pair[j]); ok {
						pair[j], changed = v, true
					}
				}
				continue
			}
			if v, ok := literal(o); ok {
				opt[i], changed = v, true
			}
		}
	}
	return changed
}
