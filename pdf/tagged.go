package pdf

import (
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/fault"
)

// standardTypes are the standard structure types of ISO 32000-1, 14.8.4: PDF/UA-1 (ISO
// 14289-1, 7.1) wants every other type role-mapped to one of them.
var standardTypes = map[string]bool{}

func init() {
	for _, t := range []string{"Document", "Part", "Art", "Sect", "Div", "BlockQuote", "Caption", "TOC", "TOCI", "Index",
		"NonStruct", "Private", "P", "H", "H1", "H2", "H3", "H4", "H5", "H6", "L", "LI", "Lbl", "LBody", "Table", "TR", "TH",
		"TD", "THead", "TBody", "TFoot", "Span", "Quote", "Note", "Reference", "BibEntry", "Code", "Link", "Annot", "Ruby",
		"RB", "RT", "RP", "Warichu", "WT", "WP", "Figure", "Formula", "Form"} {
		standardTypes[t] = true
	}
}

// Structure is what MapRoles learnt of the structure tree.
type Structure struct {
	Mapped            []string // non-standard types given a role map entry
	FiguresWithoutAlt int      // Figure elements with neither Alt nor ActualText
}

// maxStructElems bounds the structure tree walked.
const maxStructElems = 200_000

// MapRoles maps every non-standard structure type the tree uses to Span (Chromium writes
// Strong and Em, standard only from PDF 2.0 on), and counts the figures without alternate
// text, for PDF/UA-1 output.
func (e *Editor) MapRoles() (s Structure, err error) {
	defer recoverInto(&err, "structure tree")
	d, err := e.load()
	if err != nil {
		return s, err
	}
	ctx := d.ctx
	cat, err := ctx.Catalog()
	if err != nil {
		return s, fault.Wrap(fault.InvalidPDF, err, "the PDF has no readable catalog")
	}
	root, err := ctx.DereferenceDict(cat["StructTreeRoot"])
	if err != nil || root == nil {
		return s, nil
	}
	roles, _ := ctx.DereferenceDict(root["RoleMap"])
	used := map[string]bool{}
	seen := map[int]bool{}
	stack := []types.Object{root["K"]}
	for n := 0; len(stack) > 0 && n < maxStructElems; n++ {
		o := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if r, ok := o.(types.IndirectRef); ok {
			if seen[r.ObjectNumber.Value()] {
				continue
			}
			seen[r.ObjectNumber.Value()] = true
		}
		v, err := ctx.Dereference(o)
		if err != nil {
			continue
		}
		switch x := v.(type) {
		case types.Array:
			stack = append(stack, x...)
		case types.Dict:
			if t := x.NameEntry("S"); t != nil {
				used[*t] = true
				if *t == "Figure" && x["Alt"] == nil && x["ActualText"] == nil {
					s.FiguresWithoutAlt++
				}
			}
			if k, ok := x["K"]; ok {
				stack = append(stack, k)
			}
		}
	}
	for t := range used {
		if standardTypes[t] {
			continue
		}
		if roles != nil {
			if _, ok := roles[t]; ok {
				continue
			}
		}
		if roles == nil {
			roles = types.Dict{}
			root["RoleMap"] = roles
		}
		roles[t] = types.Name("Span")
		s.Mapped = append(s.Mapped, t)
	}
	if len(s.Mapped) > 0 {
		e.edited = true
	}
	return s, nil
}
