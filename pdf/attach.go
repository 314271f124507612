package pdf

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/fault"
)

// Attachment is a file embedded in a PDF.
type Attachment struct {
	Name string // the file specification's /UF, else /F
	// Relationship is /AFRelationship (Data, Source, Alternative, Supplement, Unspecified),
	// "" when absent.
	Relationship string
	MIME         string // the embedded stream's /Subtype, e.g. text/xml
	// Associated tells whether the catalog's /AF lists the file (PDF/A-3 associated file).
	Associated bool
	// ModDate is the embedded stream's /Params /ModDate, "" when absent (Factur-X asks for
	// it).
	ModDate string
	Data    []byte
}

// maxAttachmentsBytes bounds the decoded embedded files Attachments returns together: it
// keeps them all in memory.
const maxAttachmentsBytes = 256 << 20

// Attachments lists the embedded files of the EmbeddedFiles name tree and of the catalog's
// /AF, each once. A file larger than maxSize decoded, or files larger than 256 MiB
// together, are fault.PayloadTooLarge: a small PDF can carry a compressed bomb.
func (d *Doc) Attachments(maxSize int64) (aa []Attachment, err error) {
	defer recoverInto(&err, "attachments")
	cat, err := d.ctx.Catalog()
	if err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "the PDF has no readable catalog")
	}
	type spec struct {
		dict       types.Dict
		associated bool
	}
	var specs []*spec
	byRef := map[int]*spec{}
	add := func(o types.Object, associated bool) {
		key := -1
		if r, ok := o.(types.IndirectRef); ok {
			key = r.ObjectNumber.Value()
			if s, seen := byRef[key]; seen {
				s.associated = s.associated || associated
				return
			}
		}
		dict, err := d.ctx.DereferenceDict(o)
		if err != nil || dict == nil {
			return
		}
		s := &spec{dict, associated}
		specs = append(specs, s)
		if key >= 0 {
			byRef[key] = s
		}
	}
	for _, e := range d.embeddedFiles(cat) {
		add(e.spec, false)
	}
	if af, err := d.ctx.DereferenceArray(cat["AF"]); err == nil {
		for _, o := range af {
			add(o, true)
		}
	}
	var total int64
	for _, s := range specs {
		a := Attachment{Associated: s.associated}
		for _, key := range []string{"UF", "F"} {
			if v, ok := s.dict[key]; ok && a.Name == "" {
				a.Name = d.text(v)
			}
		}
		if n, ok := s.dict["AFRelationship"].(types.Name); ok {
			a.Relationship = n.Value()
		}
		ef, err := d.ctx.DereferenceDict(s.dict["EF"])
		if err != nil || ef == nil {
			continue
		}
		o, ok := ef.Find("F")
		if !ok {
			o, ok = ef.Find("UF")
		}
		if !ok {
			continue
		}
		sd, _, err := d.ctx.DereferenceStreamDict(o)
		if err != nil || sd == nil {
			continue
		}
		if st := sd.Subtype(); st != nil {
			a.MIME = *st
		}
		if params, err := d.ctx.DereferenceDict(sd.Dict["Params"]); err == nil && params != nil {
			if m, ok := params.Find("ModDate"); ok {
				a.ModDate = d.text(m)
			}
		}
		if err := sd.DecodeWithLimit(maxSize + 1); err != nil {
			return nil, fault.Wrap(fault.InvalidPDF, err, "the embedded file %q cannot be decoded", a.Name)
		}
		if int64(len(sd.Content)) > maxSize {
			return nil, fault.New(fault.PayloadTooLarge, "the embedded file %q is larger than %d MB", a.Name, maxSize>>20)
		}
		if total += int64(len(sd.Content)); total > maxAttachmentsBytes {
			return nil, fault.New(fault.PayloadTooLarge, "the embedded files are larger than %d MiB together, the limit", maxAttachmentsBytes/mib)
		}
		a.Data = bytes.Clone(sd.Content)
		aa = append(aa, a)
	}
	return aa, nil
}

// nameEntry is a leaf pair of a name tree: the key as written, and its value.
type nameEntry struct{ key, spec types.Object }

// leaf is the place of a value in a name tree's leaf array: arr[i].
type leaf struct {
	arr types.Array
	i   int
}

// nameTreeLeaves lists the places of the values of the catalog's EmbeddedFiles name tree,
// so that they can be replaced, guarding against cycles and absurd depth.
func (d *Doc) nameTreeLeaves(cat types.Dict) []leaf {
	names, err := d.ctx.DereferenceDict(cat["Names"])
	if err != nil || names == nil {
		return nil
	}
	var out []leaf
	seen := map[int]bool{}
	var walk func(o types.Object, depth int)
	walk = func(o types.Object, depth int) {
		if depth > 32 {
			return
		}
		if r, ok := o.(types.IndirectRef); ok {
			if seen[r.ObjectNumber.Value()] {
				return
			}
			seen[r.ObjectNumber.Value()] = true
		}
		node, err := d.ctx.DereferenceDict(o)
		if err != nil || node == nil {
			return
		}
		if arr, err := d.ctx.DereferenceArray(node["Names"]); err == nil {
			for i := 1; i < len(arr); i += 2 {
				out = append(out, leaf{arr, i})
			}
		}
		if kids, err := d.ctx.DereferenceArray(node["Kids"]); err == nil {
			for _, k := range kids {
				walk(k, depth+1)
			}
		}
	}
	walk(names["EmbeddedFiles"], 0)
	return out
}

// embeddedFiles lists the key and value of each leaf of the catalog's EmbeddedFiles name
// tree.
func (d *Doc) embeddedFiles(cat types.Dict) []nameEntry {
	var out []nameEntry
	for _, l := range d.nameTreeLeaves(cat) {
		out = append(out, nameEntry{l.arr[l.i-1], l.arr[l.i]})
	}
	return out
}

// OutputIntents lists the /S of the catalog's output intents (GTS_PDFA1 for PDF/A).
func (d *Doc) OutputIntents() []string {
	cat, err := d.ctx.Catalog()
	if err != nil {
		return nil
	}
	arr, err := d.ctx.DereferenceArray(cat["OutputIntents"])
	if err != nil {
		return nil
	}
	var out []string
	for _, o := range arr {
		if dict, err := d.ctx.DereferenceDict(o); err == nil && dict != nil {
			if s, ok := dict["S"].(types.Name); ok {
				out = append(out, s.Value())
			}
		}
	}
	return out
}

// UnembeddedFonts names the fonts (other than Type 3) that pages, their form XObjects and
// their annotations' appearances use without carrying the font program, as pdffonts
// reports them with "emb no". Fonts only listed in the interactive form's defaults are not
// drawn and do not count.
func (d *Doc) UnembeddedFonts() (names []string) {
	defer func() {
		if recover() != nil {
			names = append(names, "(unreadable font)")
		}
	}()
	seen := map[string]bool{}
	for _, font := range d.fontsInUse() {
		sub := font.Subtype()
		if sub == nil || *sub == "Type3" {
			continue
		}
		desc := font
		if *sub == "Type0" {
			kids, err := d.ctx.DereferenceArray(font["DescendantFonts"])
			if err != nil || len(kids) == 0 {
				continue
			}
			if desc, err = d.ctx.DereferenceDict(kids[0]); err != nil || desc == nil {
				continue
			}
		}
		fd, err := d.ctx.DereferenceDict(desc["FontDescriptor"])
		if err == nil && fd != nil && (fd["FontFile"] != nil || fd["FontFile2"] != nil || fd["FontFile3"] != nil) {
			continue
		}
		name := "(unnamed font)"
		if bf, ok := font["BaseFont"].(types.Name); ok {
			name = bf.Value()
		}
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return names
}

// fontsInUse collects the font dictionaries reachable from the page tree's resources, form
// XObjects and annotation appearance streams, each once.
func (d *Doc) fontsInUse() []types.Dict {
	var fonts []types.Dict
	visited := map[int]bool{}
	var visit func(o types.Object, depth int)
	deref := func(o types.Object) types.Dict {
		if r, ok := o.(types.IndirectRef); ok {
			if visited[r.ObjectNumber.Value()] {
				return nil
			}
			visited[r.ObjectNumber.Value()] = true
		}
		if dict, err := d.ctx.DereferenceDict(o); err == nil && dict != nil {
			return dict
		}
		if sd, _, err := d.ctx.DereferenceStreamDict(o); err == nil && sd != nil {
			return sd.Dict
		}
		return nil
	}
	resources := func(res types.Object, depth int) {
		rd := deref(res)
		if rd == nil {
			return
		}
		if fd := deref(rd["Font"]); fd != nil {
			for _, f := range fd {
				if font := deref(f); font != nil {
					fonts = append(fonts, font)
				}
			}
		}
		if xd := deref(rd["XObject"]); xd != nil {
			for _, x := range xd {
				visit(x, depth+1)
			}
		}
	}
	visit = func(o types.Object, depth int) {
		if depth > 64 {
			return
		}
		n := deref(o)
		if n == nil {
			return
		}
		resources(n["Resources"], depth)
		if kids, err := d.ctx.DereferenceArray(n["Kids"]); err == nil {
			for _, k := range kids {
				visit(k, depth+1)
			}
		}
		if annots, err := d.ctx.DereferenceArray(n["Annots"]); err == nil {
			for _, a := range annots {
				ad := deref(a)
				if ad == nil {
					continue
				}
				if ap := deref(ad["AP"]); ap != nil {
					for _, key := range []string{"N", "R", "D"} {
						if v, ok := ap[key]; ok {
							visit(v, depth+1)
							// An appearance may be a dictionary of states.
							if states, err := d.ctx.DereferenceDict(v); err == nil {
								for _, st := range states {
									visit(st, depth+1)
								}
							}
						}
					}
				}
			}
		}
	}
	if cat, err := d.ctx.Catalog(); err == nil {
		visit(cat["Pages"], 0)
	}
	return fonts
}

// AssociateFiles makes every file of the EmbeddedFiles name tree an associated file of the
// document, as PDF/A-3 wants (ISO 19005-3, 6.8): a specification no /AF lists is added to
// the catalog's /AF, and one without /AFRelationship gets /Unspecified. Ghostscript's
// PDF/A conversion keeps the files and drops the catalog's /AF. The change is one
// incremental update; a document that needs none comes back as it is (changed false).
func (d *Doc) AssociateFiles() (out []byte, changed bool, err error) {
	defer recoverInto(&err, "associated files")
	cat, err := d.ctx.Catalog()
	if err != nil {
		return nil, false, fault.Wrap(fault.InvalidPDF, err, "the PDF has no readable catalog")
	}
	listed := map[int]bool{}
	for _, e := range d.ctx.Table {
		if e == nil || e.Free {
			continue
		}
		var dict types.Dict
		switch v := e.Object.(type) {
		case types.Dict:
			dict = v
		case types.StreamDict:
			dict = v.Dict
		}
		if af, ok := dict["AF"].(types.Array); ok {
			for _, x := range af {
				if r, ok := x.(types.IndirectRef); ok {
					listed[r.ObjectNumber.Value()] = true
				}
			}
		} else if r, ok := dict["AF"].(types.IndirectRef); ok {
			if a, err := d.ctx.DereferenceArray(r); err == nil {
				for _, x := range a {
					if r, ok := x.(types.IndirectRef); ok {
						listed[r.ObjectNumber.Value()] = true
					}
				}
			}
		}
	}
	prev, ok := lastStartXRef(d.src)
	if !ok || d.ctx.Read.RepairOffset != 0 || d.ctx.Size == nil || d.ctx.Root == nil {
		return d.src, false, nil
	}
	u := &update{buf: bytes.NewBuffer(append(bytes.Clone(d.src), '\n')), size: *d.ctx.Size}
	newCat := maps.Clone(cat)
	af, _ := d.ctx.DereferenceArray(cat["AF"])
	af = slices.Clone(af)
	// Every file specification that embeds a file: the name tree's (Ghostscript writes
	// them inline, where no /AF can point: they become objects of their own and the tree
	// is rewritten), a FileAttachment annotation's, any other's.
	var specs []types.IndirectRef
	inTree := map[int]bool{}
	entries := d.embeddedFiles(cat)
	var names types.Array
	direct := false
	for _, e := range entries {
		r, ok := e.spec.(types.IndirectRef)
		if !ok {
			spec, _ := e.spec.(types.Dict)
			if spec == nil {
				continue
			}
			nr := u.ref(nil)
			s := maps.Clone(spec)
			if _, ok := s["AFRelationship"]; !ok {
				s["AFRelationship"] = types.Name("Unspecified")
			}
			u.object(nr, []byte(s.PDFString()))
			r = *types.NewIndirectRef(nr.num, nr.gen)
			listed[nr.num] = false
			direct = true
		}
		names = append(names, e.key, r)
		inTree[r.ObjectNumber.Value()] = true
		specs = append(specs, r)
	}
	if direct {
		tree := u.ref(nil)
		u.object(tree, []byte(types.Dict{"Names": names}.PDFString()))
		nd, _ := d.ctx.DereferenceDict(cat["Names"])
		nd = maps.Clone(nd)
		nd["EmbeddedFiles"] = *types.NewIndirectRef(tree.num, tree.gen)
		nr := u.ref(nil)
		u.object(nr, []byte(nd.PDFString()))
		newCat["Names"] = *types.NewIndirectRef(nr.num, nr.gen)
		changed = true
	}
	for n, e := range d.ctx.Table {
		if e == nil || e.Free || inTree[n] {
			continue
		}
		if dict, ok := e.Object.(types.Dict); ok && dict["EF"] != nil {
			gen := 0
			if e.Generation != nil {
				gen = *e.Generation
			}
			specs = append(specs, *types.NewIndirectRef(n, gen))
		}
	}
	for _, r := range specs {
		spec, err := d.ctx.DereferenceDict(r)
		if err == nil && spec != nil {
			if _, ok := spec["AFRelationship"]; !ok {
				s := maps.Clone(spec)
				s["AFRelationship"] = types.Name("Unspecified")
				u.object(u.ref(&r), []byte(s.PDFString()))
				changed = true
			}
		}
		if !listed[r.ObjectNumber.Value()] {
			af = append(af, r)
			listed[r.ObjectNumber.Value()] = true
			changed = true
		}
	}
	if !changed {
		return d.src, false, nil
	}
	newCat["AF"] = af
	u.object(u.ref(d.ctx.Root), []byte(newCat.PDFString()))
	trailer := fmt.Sprintf("/Root %d %d R /Prev %d", d.ctx.Root.ObjectNumber.Value(), d.ctx.Root.GenerationNumber.Value(), prev)
	if d.ctx.Info != nil {
		trailer += fmt.Sprintf(" /Info %d %d R", d.ctx.Info.ObjectNumber.Value(), d.ctx.Info.GenerationNumber.Value())
	}
	if len(d.ctx.ID) > 0 {
		trailer += " /ID " + d.ctx.ID.PDFString()
	}
	u.finish(trailer, d.ctx.Read.UsingXRefStreams)
	return u.buf.Bytes(), true, nil
}
