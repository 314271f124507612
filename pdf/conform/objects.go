package conform

import (
	"bytes"
	"fmt"
	"github.com/papierkram/papierkram/internal/lazyre"
	"slices"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// checkObjects walks the document from the catalog and checks each object by its role.
func (c *checker) checkObjects() {
	ctx := c.doc.Context()
	w := c.walk
	c.checkTrailer()
	c.checkStreams(w)
	cat, err := ctx.Catalog()
	if err != nil {
		return
	}
	w.catalog(cat)
}

// checkTrailer: 6.1.3-1 and -2.
func (c *checker) checkTrailer() {
	ctx := c.doc.Context()
	c.check(len(ctx.ID) == 2 && isString(ctx.ID[0]) && isString(ctx.ID[1]) && textOf(ctx.ID[0]) != "" && textOf(ctx.ID[1]) != "", "6.1.3-1", "trailer")
	c.checkFirstPageTrailer()
	c.check(ctx.Encrypt == nil && !c.doc.Unlocked(), "6.1.3-2", "trailer")
}

func isString(o types.Object) bool {
	switch o.(type) {
	case types.StringLiteral, types.HexLiteral:
		return true
	}
	return false
}

// checkFirstPageTrailer: a linearised file's first-page trailer (its first trailer or
// cross-reference stream) has an ID too.
func (c *checker) checkFirstPageTrailer() {
	head := c.raw[:min(len(c.raw), 2048)]
	if !bytes.Contains(head, []byte("/Linearized")) {
		return
	}
	var dict []byte
	if i := bytes.Index(c.raw, []byte("trailer")); i >= 0 {
		dict = c.raw[i:min(len(c.raw), i+2048)]
		if j := bytes.Index(dict, []byte("startxref")); j >= 0 {
			dict = dict[:j]
		}
	} else if m := reXRefStream.FindIndex(c.raw); m != nil {
		dict = c.raw[max(0, m[0]-2048):m[1]]
		if j := bytes.LastIndex(dict, []byte("obj")); j >= 0 {
			dict = dict[j:]
		}
	}
	c.check(dict == nil || bytes.Contains(dict, []byte("/ID")), "6.1.3-1", "first-page trailer")
}

var reXRefStream = lazyre.New(`/Type\s*/XRef\b`)

// standardFilters are ISO 32000-1, Table 6, without LZWDecode.
var standardFilters = map[string]bool{"ASCIIHexDecode": true, "ASCII85Decode": true, "FlateDecode": true, "RunLengthDecode": true,
	"CCITTFaxDecode": true, "JBIG2Decode": true, "DCTDecode": true, "JPXDecode": true}

// checkStreams checks every stream object (6.1.7.1-3, 6.1.7.2-1).
func (c *checker) checkStreams(w *walker) {
	for n, e := range w.xref.Table {
		if e == nil || e.Free {
			continue
		}
		sd, ok := e.Object.(types.StreamDict)
		if !ok {
			continue
		}
		loc := fmt.Sprintf("obj %d", n)
		_, f := sd.Dict["F"]
		_, ff := sd.Dict["FFilter"]
		_, fd := sd.Dict["FDecodeParms"]
		c.check(!f && !ff && !fd, "6.1.7.1-3", loc)
		filters := []types.Object{sd.Dict["Filter"]}
		if a := w.array(sd.Dict["Filter"]); a != nil {
			filters = a
		}
		parms := w.array(sd.Dict["DecodeParms"])
		for i, fo := range filters {
			name := w.name(fo)
			if name == "" {
				continue
			}
			if name == "Crypt" {
				var p types.Dict
				if i < len(parms) {
					p = w.dict(parms[i])
				} else if len(filters) == 1 {
					p = w.dict(sd.Dict["DecodeParms"])
				}
				c.check(p != nil && w.name(p["Name"]) == "Identity", "6.1.7.2-1", loc)
				continue
			}
			c.check(standardFilters[name], "6.1.7.2-1", loc+" /"+name)
		}
	}
}

func (w *walker) catalog(cat types.Dict) {
	c := w.c
	_, aa := cat["AA"]
	c.check(!aa, "6.5.2-1", "catalog")
	_, nr := cat["NeedsRendering"]
	c.check(!nr, "6.4.2-2", "catalog")
	_, req := cat["Requirements"]
	c.check(!req, "6.11-1", "catalog")
	if names := w.dict(cat["Names"]); names != nil {
		_, ap := names["AlternatePresentations"]
		c.check(!ap, "6.10-1", "catalog Names")
	}
	w.outputIntents(cat["OutputIntents"])
	if oa := cat["OpenAction"]; oa != nil {
		if d := w.dict(oa); d != nil {
			w.action(oa, "OpenAction")
		}
	}
	if perms := w.dict(cat["Perms"]); perms != nil {
		for k := range perms {
			c.check(k == "UR3" || k == "DocMDP", "6.1.12-1", "catalog Perms /"+k)
		}
		if _, ok := perms["DocMDP"]; ok {
			w.docMDP(perms["DocMDP"])
		}
	}
	if form := w.dict(cat["AcroForm"]); form != nil {
		if v, ok := w.boolean(form["NeedAppearances"]); ok {
			c.check(!v, "6.4.1-3", "AcroForm")
		}
		_, xfa := form["XFA"]
		c.check(!xfa, "6.4.2-1", "AcroForm")
		for _, f := range w.array(form["Fields"]) {
			w.field(f, 0)
		}
	}
	w.outlines(cat["Outlines"])
	w.optionalContent(cat["OCProperties"])
	w.embeddedFiles(cat)
	w.pages(cat["Pages"], nil, 0)
}

// outputIntents: 6.2.3; and the output colour space the colour rules need.
func (w *walker) outputIntents(o types.Object) {
	c := w.c
	var profiles []types.IndirectRef
	var direct int
	for i, it := range w.array(o) {
		d := w.dict(it)
		if d == nil {
			continue
		}
		loc := fmt.Sprintf("OutputIntents[%d]", i)
		s := w.name(d["S"])
		if s == "GTS_PDFX" {
			_, ref := d["DestOutputProfileRef"]
			c.check(!ref, "6.2.3-3", loc)
		}
		dop, ok := d["DestOutputProfile"]
		if !ok {
			continue
		}
		if r, ok := dop.(types.IndirectRef); ok {
			if !slices.ContainsFunc(profiles, func(x types.IndirectRef) bool { return x.ObjectNumber == r.ObjectNumber }) {
				profiles = append(profiles, r)
			}
		} else {
			direct++
		}
		if s != "GTS_PDFA1" {
			continue
		}
		w.hasIntent = true
		h, ok := iccHeader(decoded(w.stream(dop)))
		c.check(ok && (h.class == "prtr" || h.class == "mntr") && (h.space == "RGB " || h.space == "CMYK" || h.space == "GRAY") && h.major < 5, "6.2.3-1", loc)
		if ok {
			w.outputCS = h.space
		}
	}
	c.check(len(profiles)+direct <= 1, "6.2.3-2", "OutputIntents")
}

// icc is what the validator reads of an ICC profile's header (ICC.1, 7.2).
type icc struct {
	class, space string
	major        int
}

func iccHeader(b []byte) (icc, bool) {
	if len(b) < 128 || string(b[36:40]) != "acsp" {
		return icc{}, false
	}
	return icc{class: string(b[12:16]), space: string(b[16:20]), major: int(b[8])}, true
}

// docMDP: 6.1.12-2.
func (w *walker) docMDP(o types.Object) {
	sig := w.dict(o)
	for _, r := range w.array(sig["Reference"]) {
		ref := w.dict(r)
		for _, k := range []string{"DigestLocation", "DigestMethod", "DigestValue"} {
			_, has := ref[k]
			w.c.check(!has, "6.1.12-2", "signature reference /"+k)
		}
	}
}

// field walks the form field tree: 6.4.1-2 (and widgets, which are annotations of pages).
func (w *walker) field(o types.Object, depth int) {
	d := w.dict(o)
	if d == nil || depth > maxDepth || !w.first("field", o) {
		return
	}
	_, aa := d["AA"]
	w.c.check(!aa, "6.4.1-2", where(o, "form field"))
	for _, k := range w.array(d["Kids"]) {
		w.field(k, depth+1)
	}
}

// outlines walks the outline tree for actions.
func (w *walker) outlines(o types.Object) {
	root := w.dict(o)
	if root == nil {
		return
	}
	var visit func(types.Object, int)
	visit = func(item types.Object, depth int) {
		for i := 0; item != nil && i < 100000 && depth < maxDepth; i++ {
			d := w.dict(item)
			if d == nil || !w.first("outline", item) {
				return
			}
			if a := d["A"]; a != nil {
				w.action(a, "outline item")
			}
			visit(d["First"], depth+1)
			item = d["Next"]
		}
	}
	visit(root["First"], 0)
}

// allowedActions are the action types PDF/A-2 and -3 permit (6.5.1).
var allowedActions = map[string]bool{"GoTo": true, "GoToR": true, "GoToE": true, "Thread": true, "URI": true, "Named": true, "SubmitForm": true}

// action: 6.5.1, following Next.
func (w *walker) action(o types.Object, path string) {
	for i := 0; o != nil && i < 1000; i++ {
		d := w.dict(o)
		if d == nil || !w.first("action", o) {
			return
		}
		s := w.name(d["S"])
		loc := where(o, path+" action "+s)
		w.c.check(allowedActions[s], "6.5.1-1", loc)
		if s == "Named" {
			n := w.name(d["N"])
			w.c.check(n == "NextPage" || n == "PrevPage" || n == "FirstPage" || n == "LastPage", "6.5.1-2", loc+" "+n)
		}
		next := d["Next"]
		if a := w.array(next); a != nil {
			for _, x := range a {
				w.action(x, path)
			}
			return
		}
		o = next
	}
}

// optionalContent: 6.9.
func (w *walker) optionalContent(o types.Object) {
	oc := w.dict(o)
	if oc == nil {
		return
	}
	var ocgs []int
	for _, g := range w.array(oc["OCGs"]) {
		if r, ok := g.(types.IndirectRef); ok {
			ocgs = append(ocgs, r.ObjectNumber.Value())
		}
	}
	configs := []types.Object{}
	if d := oc["D"]; d != nil {
		configs = append(configs, d)
	}
	configs = append(configs, w.array(oc["Configs"])...)
	names := map[string]int{}
	for i, cfg := range configs {
		d := w.dict(cfg)
		if d == nil {
			continue
		}
		loc := fmt.Sprintf("OCProperties configuration %d", i)
		name := textOf(w.deref(d["Name"]))
		w.c.check(name != "", "6.9-1", loc)
		if name != "" {
			names[name]++
			w.c.check(names[name] == 1, "6.9-2", loc+" "+name)
		}
		_, as := d["AS"]
		w.c.check(!as, "6.9-4", loc)
		if order, ok := d["Order"]; ok {
			listed := map[int]bool{}
			var collect func(types.Object, int)
			collect = func(o types.Object, depth int) {
				if depth > maxDepth {
					return
				}
				if r, ok := o.(types.IndirectRef); ok {
					if a := w.array(r); a == nil {
						listed[r.ObjectNumber.Value()] = true
						return
					}
				}
				for _, x := range w.array(o) {
					collect(x, depth+1)
				}
			}
			collect(order, 0)
			for _, g := range ocgs {
				if !listed[g] {
					w.c.fail("6.9-3", fmt.Sprintf("%s: OCG obj %d not in Order", loc, g))
				}
			}
		}
	}
}

// textOf is a string object's text (bytes as given), or "".
func textOf(o types.Object) string {
	switch v := o.(type) {
	case types.StringLiteral:
		return v.Value()
	case types.HexLiteral:
		return v.Value()
	}
	return ""
}

// reMIMEType is the shape of an embedded file's Subtype (6.8-1).
var reMIMEType = lazyre.New(`^[-\w+.]+/[-\w+.]+$`)

// embeddedFiles: 6.8, for the file specifications of the EmbeddedFiles name tree and the
// associated files (AF) of the catalog.
func (w *walker) embeddedFiles(cat types.Dict) {
	names := w.dict(cat["Names"])
	var specs []types.Object
	if names != nil {
		w.nameTree(names["EmbeddedFiles"], 0, func(v types.Object) { specs = append(specs, v) })
	}
	specs = append(specs, w.array(cat["AF"])...)
	for _, s := range specs {
		w.fileSpec(s)
	}
}

// associatedFiles are the file specifications some object lists in its AF array (the
// catalog, pages, annotations, XObjects, structure elements …).
func (w *walker) associatedFiles() map[int]bool {
	if w.af != nil {
		return w.af
	}
	w.af = map[int]bool{}
	var visit func(o types.Object, depth int)
	visit = func(o types.Object, depth int) {
		if depth > 8 {
			return
		}
		var d types.Dict
		switch v := o.(type) {
		case types.Dict:
			d = v
		case types.StreamDict:
			d = v.Dict
		case types.Array:
			for _, x := range v {
				visit(x, depth+1)
			}
			return
		default:
			return
		}
		for k, v := range d {
			if k == "AF" {
				for _, x := range w.array(v) {
					if r, ok := x.(types.IndirectRef); ok {
						w.af[r.ObjectNumber.Value()] = true
					}
				}
				continue
			}
			visit(v, depth+1)
		}
	}
	for _, e := range w.xref.Table {
		if e != nil && !e.Free {
			visit(e.Object, 0)
		}
	}
	return w.af
}

// nameTree calls fn for every value of a name tree.
func (w *walker) nameTree(o types.Object, depth int, fn func(types.Object)) {
	d := w.dict(o)
	if d == nil || depth > maxDepth || !w.first("nametree", o) {
		return
	}
	a := w.array(d["Names"])
	for i := 1; i < len(a); i += 2 {
		fn(a[i])
	}
	for _, k := range w.array(d["Kids"]) {
		w.nameTree(k, depth+1, fn)
	}
}

// fileSpec checks a file specification with an embedded file.
func (w *walker) fileSpec(o types.Object) {
	d := w.dict(o)
	if d == nil || !w.first("filespec", o) {
		return
	}
	loc := where(o, "file specification")
	ef := w.dict(d["EF"])
	if ef == nil {
		return
	}
	_, f := d["F"]
	_, uf := d["UF"]
	w.c.check(f && uf, "6.8-2", loc)
	if w.c.profile.part() == 2 {
		// PDF/A-2 allows only PDF/A files inside; this package does not check them
		// recursively, so any embedded file that is not a PDF fails.
		for _, k := range []string{"F", "UF"} {
			if s := w.stream(ef[k]); s != nil {
				data := decoded(s)
				w.c.check(len(data) > 5 && string(data[:5]) == "%PDF-", "6.8-5", loc)
				break
			}
		}
		return
	}
	_, rel := d["AFRelationship"]
	w.c.check(rel, "6.8-3", loc)
	r, indirect := o.(types.IndirectRef)
	w.c.check(indirect && w.associatedFiles()[r.ObjectNumber.Value()], "6.8-4", loc)
	for _, k := range []string{"F", "UF"} {
		s := w.stream(ef[k])
		if s == nil {
			continue
		}
		w.c.check(reMIMEType.MatchString(w.name(s.Dict["Subtype"])), "6.8-1", loc)
		break
	}
}
