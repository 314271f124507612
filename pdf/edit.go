package pdf

import (
	"context"
	"fmt"
	"strings"

	pdfcpu "github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf/pagerange"
)

// The page editing operations rewrite the page tree of the document in place rather than
// copying pages into a new one (as Extract does): whatever hangs off the catalog (document
// information, XMP, attachments such as an e-invoice's XML, output intents, outline, form,
// structure tree) stays as it was.

// DeletePages removes the pages of a page specification. Deleting every page is
// fault.InvalidPageSpec. What pointed at a deleted page (bookmarks, links, named
// destinations, the open action) no longer leads anywhere; form fields whose widgets were
// all on deleted pages are removed, and nothing of a deleted page (its content, its
// annotations) stays in the file.
func DeletePages(ctx context.Context, data []byte, pages string) (out []byte, err error) {
	d, err := readFor(ctx, data, "no pages were deleted")
	if err != nil {
		return nil, err
	}
	defer recoverInto(&err, "delete pages")
	spec, err := pagerange.Parse(pages, d.PageCount())
	if err != nil {
		return nil, err
	}
	drop := spec.Set()
	if len(drop) == d.PageCount() {
		return nil, fault.New(fault.InvalidPageSpec, "deleting pages %s would delete every page; at least one page must stay", spec).With("field", "pages")
	}
	leaves, err := d.pageLeaves()
	if err != nil {
		return nil, err
	}
	var keep, gone []pageLeaf
	for i, l := range leaves {
		if drop[i+1] {
			gone = append(gone, l)
		} else {
			keep = append(keep, l)
		}
	}
	d.setPages(keep)
	if err := d.forget(gone, keep); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, fault.FromContext(ctx, "no pages were deleted")
	}
	return d.writePruned()
}

// Reorder puts the pages in the order of a page specification that names every page
// exactly once, such as "3,1,2" or "2-5,1" (ranges run upwards only, as everywhere; to
// reverse three pages write "3,2,1"). A page missing or named twice is
// fault.InvalidPageSpec naming them.
func Reorder(ctx context.Context, data []byte, order string) (out []byte, err error) {
	d, err := readFor(ctx, data, "the pages were not reordered")
	if err != nil {
		return nil, err
	}
	defer recoverInto(&err, "reorder")
	n := d.PageCount()
	spec, err := pagerange.Parse(order, n)
	if err != nil {
		return nil, err
	}
	seen := make([]int, n+1)
	for _, r := range spec {
		for p := r.From; p <= r.To; p++ {
			seen[p]++
		}
	}
	var missing, twice []int
	for p := 1; p <= n; p++ {
		switch {
		case seen[p] == 0:
			missing = append(missing, p)
		case seen[p] > 1:
			twice = append(twice, p)
		}
	}
	if len(missing) > 0 || len(twice) > 0 {
		var problems []string
		if len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("missing: %s", pageRuns(missing)))
		}
		if len(twice) > 0 {
			problems = append(problems, fmt.Sprintf("named more than once: %s", pageRuns(twice)))
		}
		return nil, fault.New(fault.InvalidPageSpec, "the new order must name each of the %d pages exactly once (%s)", n, strings.Join(problems, "; ")).
			With("field", "order").With("missing", pageRuns(missing)).With("duplicates", pageRuns(twice))
	}
	leaves, err := d.pageLeaves()
	if err != nil {
		return nil, err
	}
	ordered := make([]pageLeaf, 0, n)
	for _, p := range spec.Pages() {
		ordered = append(ordered, leaves[p-1])
	}
	d.setPages(ordered)
	return d.writePruned()
}

// pageRuns writes sorted page numbers as a page specification: 1-3,7.
func pageRuns(pages []int) string {
	var s pagerange.Spec
	for _, p := range pages {
		if len(s) > 0 && s[len(s)-1].To == p-1 {
			s[len(s)-1].To = p
			continue
		}
		s = append(s, pagerange.Range{From: p, To: p})
	}
	return s.String()
}

// InsertOptions say what Insert puts where: the pages of PDF, or Blank blank pages.
type InsertOptions struct {
	// After is the page the new pages follow; 0 puts them before the first page.
	After int
	// PDF is a document whose pages are inserted, all of them in their order; its outline
	// is added after the document's own.
	PDF []byte
	// Blank is a number of blank pages to insert instead, each the size (and rotation) of
	// the page before them, or of the first page when they go first.
	Blank int
}

// Insert puts the pages of another PDF, or blank pages, into a document after a page.
// Exactly one of InsertOptions.PDF and InsertOptions.Blank must be given (else
// fault.InvalidInput); After beyond the last page is fault.InvalidPageSpec, a result of
// more than MaxPages pages fault.InvalidInput.
func Insert(ctx context.Context, data []byte, o InsertOptions) (out []byte, err error) {
	switch {
	case o.Blank < 0:
		return nil, fault.New(fault.InvalidInput, "blank: the number of blank pages cannot be negative (%d)", o.Blank).With("field", "blank")
	case o.PDF != nil && o.Blank > 0:
		return nil, fault.New(fault.InvalidInput, "blank: give either a PDF whose pages are inserted or a number of blank pages, not both").With("field", "blank")
	case o.PDF == nil && o.Blank == 0:
		return nil, fault.New(fault.InvalidInput, "insert: give a PDF whose pages are inserted, or a number of blank pages").With("field", "insert")
	}
	d, err := readFor(ctx, data, "no pages were inserted")
	if err != nil {
		return nil, err
	}
	defer recoverInto(&err, "insert")
	n := d.PageCount()
	if o.After < 0 || o.After > n {
		return nil, fault.New(fault.InvalidPageSpec, "after: page %d does not exist; the PDF has %d pages (0 inserts before the first)", o.After, n).With("field", "after")
	}
	if o.Blank > 0 {
		if n+o.Blank > MaxPages {
			return nil, fault.New(fault.InvalidInput, "the PDF would have more than %d pages", MaxPages).With("field", "blank")
		}
		if err := d.insertBlank(o.After, o.Blank); err != nil {
			return nil, err
		}
		return d.writePruned()
	}
	other, err := Read(o.PDF)
	if err != nil {
		return nil, fault.Wrap(fault.CodeOf(err), err, "the PDF to insert: %s", fault.As(err).Message).With("field", "insert")
	}
	m := other.PageCount()
	if n+m > MaxPages {
		return nil, fault.New(fault.InvalidInput, "the PDF would have more than %d pages", MaxPages)
	}
	// As for Merge: the limits of one document hold for the two together.
	if d.inflated+other.inflated > MaxDecodedBytes {
		return nil, fault.New(fault.PayloadTooLarge, "the PDFs' streams inflate to more than %d MiB together, the limit per request", MaxDecodedBytes/mib)
	}
	var content int64
	for _, c := range append(append([]int64{}, d.content...), other.content...) {
		content += c
	}
	if content > MaxContentBytes {
		return nil, fault.New(fault.PayloadTooLarge, "the PDFs' pages draw more than %d MiB of content together, the limit per request", MaxContentBytes/mib)
	}
	// The inserted document's bookmarks join the document's own, without a bookmark for
	// the file around them.
	d.ctx.Configuration.MergeBookmarkMode = model.MergeBookmarkModePreserve
	if err := pdfcpu.MergeXRefTables("insert.pdf", other.ctx, d.ctx, false, false); err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "the PDF to insert cannot be merged in: %s", trimPdfcpu(err.Error())).With("field", "insert")
	}
	if ctx.Err() != nil {
		return nil, fault.FromContext(ctx, "no pages were inserted")
	}
	leaves, err := d.pageLeaves()
	if err != nil {
		return nil, err
	}
	if len(leaves) != n+m {
		return nil, fault.New(fault.Internal, "the merged page tree holds %d pages, not %d", len(leaves), n+m)
	}
	ordered := make([]pageLeaf, 0, n+m)
	ordered = append(ordered, leaves[:o.After]...)
	ordered = append(ordered, leaves[n:]...)
	ordered = append(ordered, leaves[o.After:n]...)
	d.setPages(ordered)
	return d.writePruned()
}

// insertBlank puts count empty pages after page after (0: before the first), each with
// the media box, crop box and rotation of its neighbour.
func (d *Doc) insertBlank(after, count int) error {
	leaves, err := d.pageLeaves()
	if err != nil {
		return err
	}
	like := leaves[max(after, 1)-1]
	blank := make([]pageLeaf, 0, count)
	for range count {
		page := types.Dict{"Type": types.Name("Page"), "Resources": types.Dict{}}
		for _, k := range []string{"MediaBox", "CropBox", "Rotate"} {
			if v := like.attr(k); v != nil {
				page[k] = v.Clone()
			}
		}
		ref, err := d.ctx.IndRefForNewObject(page)
		if err != nil {
			return fault.Wrap(fault.Internal, err, "a blank page cannot be made")
		}
		blank = append(blank, pageLeaf{ref: *ref, dict: page, inherited: types.Dict{}})
	}
	ordered := make([]pageLeaf, 0, len(leaves)+count)
	ordered = append(ordered, leaves[:after]...)
	ordered = append(ordered, blank...)
	ordered = append(ordered, leaves[after:]...)
	d.setPages(ordered)
	return nil
}

// writePruned writes the document without the objects nothing reaches any more. pdfcpu
// writes only what the trailer reaches but counts the rest in /Size, which qpdf takes for
// a damaged cross-reference table when they are the last objects.
func (d *Doc) writePruned() ([]byte, error) {
	c := d.ctx
	var roots []types.Object
	for _, r := range []*types.IndirectRef{c.Root, c.Info} {
		if r != nil {
			roots = append(roots, *r)
		}
	}
	if c.AdditionalStreams != nil {
		roots = append(roots, *c.AdditionalStreams)
	}
	// pdfcpu writes the name trees from its model of them.
	for _, tree := range c.Names {
		if tree != nil {
			tree.Process(c.XRefTable, func(_ *model.XRefTable, _ string, v *types.Object) error {
				if *v != nil {
					roots = append(roots, *v)
				}
				return nil
			})
		}
	}
	reach := make(map[int]bool, len(c.Table))
	walkReachable(c, roots, func(n int, _ *model.XRefTableEntry) { reach[n] = true })
	for n, e := range c.Table {
		if n > 0 && e != nil && !e.Free && !reach[n] {
			if err := c.FreeObject(n); err != nil {
				return nil, fault.Wrap(fault.Internal, err, "an object cannot be dropped")
			}
		}
	}
	return write(c)
}

// walkReachable calls visit once for every live object reachable from roots, following
// references through dictionaries, arrays and stream dictionaries.
func walkReachable(c *model.Context, roots []types.Object, visit func(n int, e *model.XRefTableEntry)) {
	seen := map[int]bool{}
	stack := append([]types.Object(nil), roots...)
	for len(stack) > 0 {
		o := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v := o.(type) {
		case types.IndirectRef:
			n := v.ObjectNumber.Value()
			if seen[n] {
				continue
			}
			seen[n] = true
			e, ok := c.FindTableEntryLight(n)
			if !ok || e == nil || e.Free || e.Object == nil {
				continue
			}
			visit(n, e)
			stack = append(stack, e.Object)
		case types.Dict:
			for _, x := range v {
				stack = append(stack, x)
			}
		case types.StreamDict:
			stack = append(stack, v.Dict)
		case types.Array:
			stack = append(stack, v...)
		}
	}
}

// readFor reads data for an operation that has not started if ctx has ended.
func readFor(ctx context.Context, data []byte, notDone string) (*Doc, error) {
	if ctx.Err() != nil {
		return nil, fault.FromContext(ctx, notDone)
	}
	return Read(data)
}

// pageLeaf is a page of the page tree with the attributes it inherits from its ancestors.
type pageLeaf struct {
	ref       types.IndirectRef
	dict      types.Dict
	inherited types.Dict // of the nearest ancestor that has each of inheritable
}

// attr is an inheritable page attribute: the page's own, else the inherited one, or nil.
func (l pageLeaf) attr(key string) types.Object {
	if v, ok := l.dict[key]; ok {
		return v
	}
	return l.inherited[key]
}

// inheritable are the page attributes a page may take from its ancestors (ISO 32000-1,
// table 30).
var inheritable = []string{"Resources", "MediaBox", "CropBox", "Rotate"}

// pageLeaves lists the pages in order, walking the page tree once (pdfcpu's PageDict
// walks it from the root for every page).
func (d *Doc) pageLeaves() ([]pageLeaf, error) {
	root, err := d.ctx.Pages()
	if err != nil || root == nil {
		return nil, fault.New(fault.InvalidPDF, "the PDF has no page tree")
	}
	out := make([]pageLeaf, 0, d.ctx.PageCount)
	nodes := map[int]bool{}
	var walk func(ref types.IndirectRef, inh types.Dict, depth int) error
	walk = func(ref types.IndirectRef, inh types.Dict, depth int) error {
		dict, err := d.ctx.DereferenceDict(ref)
		if err != nil || dict == nil {
			return fault.New(fault.InvalidPDF, "the page tree has a node that is not a dictionary (object %d)", ref.ObjectNumber.Value())
		}
		t, _ := dict["Type"].(types.Name)
		kids, hasKids := dict["Kids"]
		if t == "Page" || t != "Pages" && !hasKids {
			if len(out) >= d.ctx.PageCount {
				return fault.New(fault.InvalidPDF, "the page tree holds more pages than its count of %d", d.ctx.PageCount)
			}
			out = append(out, pageLeaf{ref: ref, dict: dict, inherited: inh})
			return nil
		}
		if depth > 64 || nodes[ref.ObjectNumber.Value()] {
			return fault.New(fault.InvalidPDF, "the page tree is nested too deep or has a cycle")
		}
		nodes[ref.ObjectNumber.Value()] = true
		own := inh
		for _, k := range inheritable {
			if v, ok := dict[k]; ok {
				if sameDict(own, inh) {
					own = types.Dict{}
					for k2, v2 := range inh {
						own[k2] = v2
					}
				}
				own[k] = v
			}
		}
		arr, err := d.ctx.DereferenceArray(kids)
		if err != nil {
			return fault.New(fault.InvalidPDF, "the page tree has a node whose kids cannot be read (object %d)", ref.ObjectNumber.Value())
		}
		for _, k := range arr {
			kr, ok := k.(types.IndirectRef)
			if !ok {
				return fault.New(fault.InvalidPDF, "the page tree has a kid that is not a reference (object %d)", ref.ObjectNumber.Value())
			}
			if err := walk(kr, own, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(*root, types.Dict{}, 0); err != nil {
		return nil, err
	}
	if len(out) != d.ctx.PageCount {
		return nil, fault.New(fault.InvalidPDF, "the page tree holds %d pages, its count says %d", len(out), d.ctx.PageCount)
	}
	return out, nil
}

// setPages makes leaves, in order, the pages of the document: the kids of the page tree's
// root, each page carrying the attributes it inherited, as the nodes in between are gone.
func (d *Doc) setPages(leaves []pageLeaf) {
	root, _ := d.ctx.Pages()
	rootDict, _ := d.ctx.DereferenceDict(*root)
	kids := make(types.Array, len(leaves))
	for i, l := range leaves {
		for _, k := range inheritable {
			if _, own := l.dict[k]; !own {
				if v, ok := l.inherited[k]; ok && v != nil {
					l.dict[k] = v.Clone()
				}
			}
		}
		l.dict["Parent"] = *root
		kids[i] = l.ref
	}
	for _, k := range inheritable {
		delete(rootDict, k)
	}
	rootDict["Kids"] = kids
	rootDict["Count"] = types.Integer(len(kids))
	d.ctx.PageCount = len(kids)
}

// forget removes what refers to the pages gone, and to their annotations, so that none of
// them is written again (pdfcpu writes what the catalog reaches): a reference in an array
// is dropped, one in a dictionary removed with its key; a destination to a gone page is
// removed whole, and with it a GoTo action or destination dictionary that held it; an
// object reference of the structure tree to a gone annotation goes, and a form field left
// without widgets.
func (d *Doc) forget(gone, kept []pageLeaf) error {
	dead := map[int]bool{}
	for _, l := range gone {
		dead[l.ref.ObjectNumber.Value()] = true
	}
	annots := func(l pageLeaf) []int {
		var out []int
		arr, _ := d.ctx.DereferenceArray(l.dict["Annots"])
		for _, a := range arr {
			if r, ok := a.(types.IndirectRef); ok {
				out = append(out, r.ObjectNumber.Value())
			}
		}
		return out
	}
	stays := map[int]bool{}
	for _, l := range kept {
		for _, n := range annots(l) {
			stays[n] = true
		}
	}
	for _, l := range gone {
		for _, n := range annots(l) {
			if !stays[n] {
				dead[n] = true
			}
		}
	}
	f := forgetter{dead: dead}
	// Each pass may kill indirect objects (a field without widgets, an action without its
	// destination) whose references the next pass removes.
	for pass := 0; pass < 32; pass++ {
		more := false
		for nr, e := range d.ctx.Table {
			if e == nil || e.Free || e.Object == nil || dead[nr] {
				continue
			}
			switch o := e.Object.(type) {
			case types.Dict:
				if f.dict(o, 0) {
					dead[nr], more = true, true
				}
			case types.StreamDict:
				f.dict(o.Dict, 0)
			case types.Array:
				a, isDest, _ := f.array(o, "", 0)
				if isDest {
					dead[nr], more = true, true
				}
				e.Object = a
			}
		}
		if !more {
			break
		}
	}
	// pdfcpu writes the name trees from its model of them, not from the objects.
	for name, tree := range d.ctx.Names {
		if tree == nil {
			continue
		}
		var keys []string
		err := tree.Process(d.ctx.XRefTable, func(_ *model.XRefTable, k string, v *types.Object) error {
			if f.dies(v, 0) {
				keys = append(keys, k)
			}
			return nil
		})
		if err != nil {
			return fault.Wrap(fault.InvalidPDF, err, "the %s name tree cannot be read", name)
		}
		for _, k := range keys {
			if _, _, err := tree.Remove(d.ctx.XRefTable, k); err != nil {
				return fault.Wrap(fault.InvalidPDF, err, "the %s name tree cannot be changed", name)
			}
		}
	}
	return nil
}

type forgetter struct{ dead map[int]bool }

// dies cleans *v and reports whether it is to be removed.
func (f forgetter) dies(v *types.Object, depth int) bool {
	switch o := (*v).(type) {
	case types.IndirectRef:
		return f.dead[o.ObjectNumber.Value()]
	case types.Dict:
		return f.dict(o, depth)
	case types.Array:
		a, dead, _ := f.array(o, "", depth)
		*v = a
		return dead
	}
	return false
}

// dict cleans a dictionary in place and reports whether it is to be removed itself.
func (f forgetter) dict(d types.Dict, depth int) (dead bool) {
	if depth > 32 {
		return false
	}
	for k, v := range d {
		switch o := v.(type) {
		case types.IndirectRef:
			if f.dead[o.ObjectNumber.Value()] {
				delete(d, k)
				dead = dead || k == "D" || k == "Obj" && d["Type"] == types.Name("OBJR")
			}
		case types.Dict:
			if f.dict(o, depth+1) {
				delete(d, k)
				dead = dead || k == "D"
			}
		case types.Array:
			a, isDest, shrunk := f.array(o, k, depth+1)
			switch {
			case isDest:
				delete(d, k)
				dead = dead || k == "D"
			case shrunk && len(a) == 0 && k == "Kids":
				dead = true // a field whose widgets are all gone
				d[k] = a
			default:
				d[k] = a
			}
		}
	}
	return dead
}

// array cleans an array; it reports whether the array is a destination to a gone page,
// and whether elements were dropped. The Names (Nums) array of a name (number) tree leaf
// loses a key with its value.
func (f forgetter) array(a types.Array, key string, depth int) (out types.Array, isDest, shrunk bool) {
	if depth > 32 {
		return a, false, false
	}
	if len(a) >= 2 {
		if r, ok := a[0].(types.IndirectRef); ok && f.dead[r.ObjectNumber.Value()] {
			if _, ok := a[1].(types.Name); ok {
				return a, true, false
			}
		}
	}
	if (key == "Names" || key == "Nums") && len(a)%2 == 0 {
		out = a[:0:0]
		for i := 0; i < len(a); i += 2 {
			v := a[i+1]
			if f.dies(&v, depth+1) {
				shrunk = true
				continue
			}
			out = append(out, a[i], v)
		}
		return out, false, shrunk
	}
	out = a[:0:0]
	for _, v := range a {
		if f.dies(&v, depth+1) {
			shrunk = true
			continue
		}
		out = append(out, v)
	}
	return out, false, shrunk
}
