package conform

import (
	"fmt"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// walker visits the document's objects by what they are (pages, annotations, actions,
// resources …), from the catalog down, as veraPDF's document model does: an object no page
// or catalog entry reaches is not checked.
type walker struct {
	c    *checker
	xref *model.XRefTable
	seen map[string]bool // role + object number, against cycles and repeats
	// contents are the content streams with the resources they use, for the content pass.
	contents []content
	// Facts the rules of other passes need.
	outputCS    string       // the PDF/A output intent's ICC colour space ("RGB ", "CMYK", "GRAY"), "" if none
	hasIntent   bool         // a PDF/A output intent is present
	transparent map[int]bool // pages whose content uses transparency
	pageGroupCS map[int]bool // pages with a transparency group that names a colour space
	pageNo      int
	separations map[string]string // Separation name -> its alternate space and tint transform
	fonts       map[string]*fontUse
	af          map[int]bool // file specifications listed in some AF array
	// pagesWithAnnots are the pages that have annotations (PDF/UA: tab order).
	pagesWithAnnots map[int]types.Dict
}

// content is one content stream to read, with its resources.
type content struct {
	data      []byte
	resources types.Dict
	loc       string
	page      int  // 1-based page it draws on (0: not a page's own stream)
	own       bool // a form, pattern or glyph: it must carry its own resources (6.2.2-2)
	inherited bool // a page's content whose resources come from the page tree (6.2.2-2)
}

// maxDepth bounds reference chains and nesting the walker follows.
const maxDepth = 64

// deref resolves references; nil when o cannot be resolved.
func (w *walker) deref(o types.Object) types.Object {
	for i := 0; i < maxDepth; i++ {
		r, ok := o.(types.IndirectRef)
		if !ok {
			return o
		}
		e, found := w.xref.FindTableEntryForIndRef(&r)
		if !found || e == nil || e.Free {
			return nil
		}
		o = e.Object
	}
	return nil
}

// dict is o's dictionary: a dictionary, or a stream's.
func (w *walker) dict(o types.Object) types.Dict {
	switch v := w.deref(o).(type) {
	case types.Dict:
		return v
	case types.StreamDict:
		return v.Dict
	case *types.StreamDict:
		return v.Dict
	}
	return nil
}

func (w *walker) stream(o types.Object) *types.StreamDict {
	switch v := w.deref(o).(type) {
	case types.StreamDict:
		return &v
	case *types.StreamDict:
		return v
	}
	return nil
}

func (w *walker) array(o types.Object) types.Array {
	a, _ := w.deref(o).(types.Array)
	return a
}

func (w *walker) name(o types.Object) string {
	n, _ := w.deref(o).(types.Name)
	return n.Value()
}

func (w *walker) number(o types.Object) (float64, bool) {
	switch v := w.deref(o).(type) {
	case types.Integer:
		return float64(v.Value()), true
	case types.Float:
		return v.Value(), true
	}
	return 0, false
}

func (w *walker) boolean(o types.Object) (val, ok bool) {
	b, ok := w.deref(o).(types.Boolean)
	return b.Value(), ok
}

// first tells whether o (by its object number, if indirect) is visited for role the first
// time; direct objects are always visited.
func (w *walker) first(role string, o types.Object) bool {
	r, ok := o.(types.IndirectRef)
	if !ok {
		return true
	}
	k := fmt.Sprintf("%s %d", role, r.ObjectNumber.Value())
	if w.seen[k] {
		return false
	}
	w.seen[k] = true
	return true
}

// where names o for a report: its object number when indirect, else the path given.
func where(o types.Object, path string) string {
	if r, ok := o.(types.IndirectRef); ok {
		return fmt.Sprintf("%s (obj %d)", path, r.ObjectNumber.Value())
	}
	return path
}

// decoded is a stream's decoded data, nil when it cannot be decoded (limits of pdf.Read
// already hold: this is within what Check accepted).
func decoded(sd *types.StreamDict) []byte {
	if sd == nil {
		return nil
	}
	if sd.Content != nil {
		return sd.Content
	}
	cp := *sd
	if err := cp.DecodeWithLimit(maxDecoded); err != nil {
		return nil
	}
	return cp.Content
}

// maxDecoded bounds one decoded stream the validator reads.
const maxDecoded = 256 << 20
