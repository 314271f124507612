package conform

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// PDF/UA-1 (ISO 14289-1): the machine-checkable rules for the documents this service
// makes, numbered by clause and test as veraPDF numbers them. What needs a person (is
// the alternate text right, is the reading order the visual one) is not checked here.

// PDFUA1 is PDF/UA-1.
const PDFUA1 Profile = "PDF/UA-1"

func init() {
	for _, r := range []rule{
		{"5", 1, "The XMP identifies the file as PDF/UA (pdfuaid)."},
		{"5", 2, "pdfuaid:part is 1."},
		{"5", 3, "pdfuaid:part uses the prefix pdfuaid."},
		{"5", 4, "pdfuaid:amd uses the prefix pdfuaid."},
		{"5", 5, "pdfuaid:corr uses the prefix pdfuaid."},
		{"6.2", 1, "The catalog's MarkInfo has Marked true."},
		{"7.1", 4, "The catalog's MarkInfo does not say Suspects true."},
		{"7.1", 5, "Every non-standard structure type is role-mapped to a standard one."},
		{"7.1", 7, "Standard structure types are not remapped."},
		{"7.1", 8, "The catalog has a Metadata stream."},
		{"7.1", 9, "The XMP has a dc:title."},
		{"7.1", 10, "The catalog's ViewerPreferences has DisplayDocTitle true."},
		{"7.1", 11, "The document has a structure tree (StructTreeRoot)."},
		{"7.2", 3, "A Table holds only TR, THead, TBody, TFoot and Caption."},
		{"7.2", 34, "The natural language of the text is given (the catalog's Lang)."},
		{"7.3", 1, "Every Figure has alternate text (Alt) or ActualText."},
		{"7.4.2", 1, "Numbered headings start with H1 and do not skip a level going deeper."},
		{"7.4.4", 1, "A structure element has at most one H child."},
		{"7.4.4", 2, "The document does not mix H with H1–H6."},
		{"7.18.3", 1, "A page with annotations has Tabs S (structure order)."},
		{"7.21.4.1", 1, "Every font used for rendering is embedded."},
	} {
		rules[r.clause+"-"+itoa(r.test)] = r
	}
	Profiles = append(Profiles, PDFUA1)
}

// isUA tells whether rule id belongs to PDF/UA-1 (clauses 5 to 7 of ISO 14289-1; PDF/A's
// are 6.1 and later of ISO 19005).
func isUA(id string) bool {
	return strings.HasPrefix(id, "5-") || strings.HasPrefix(id, "7.") || id == "6.2-1"
}

// checkUA runs the PDF/UA-1 rules on the walked document.
func (c *checker) checkUA() {
	ctx := c.doc.Context()
	w := c.walk
	cat, err := ctx.Catalog()
	if err != nil {
		return
	}
	loc := "catalog"
	mark := w.dict(cat["MarkInfo"])
	marked, _ := w.boolean(mark["Marked"])
	c.check(marked, "6.2-1", loc+" MarkInfo")
	suspects, _ := w.boolean(mark["Suspects"])
	c.check(!suspects, "7.1-4", loc+" MarkInfo")
	c.check(c.meta.present && c.meta.stream != nil, "7.1-8", loc)
	prefix, part, title := "", "", false
	if c.meta.packet != nil {
		for _, p := range c.meta.packet.props {
			switch {
			case p.ns == "http://www.aiim.org/pdfua/ns/id/":
				if p.name == "part" {
					prefix, part = p.prefix, strings.TrimSpace(p.value)
				}
				for name, rule := range map[string]string{"amd": "5-4", "corr": "5-5"} {
					if p.name == name {
						c.check(p.prefix == "pdfuaid", rule, p.qname())
					}
				}
			case p.ns == "http://purl.org/dc/elements/1.1/" && p.name == "title":
				title = len(p.children) > 0 && strings.TrimSpace(p.children[0].value) != "" || strings.TrimSpace(p.value) != ""
			}
		}
	}
	if part == "" {
		c.fail("5-1", "XMP")
	} else {
		c.check(part == "1", "5-2", "pdfuaid:part "+part)
		c.check(prefix == "pdfuaid", "5-3", prefix+":part")
	}
	c.check(title, "7.1-9", "XMP dc:title")
	display, _ := w.boolean(w.dict(cat["ViewerPreferences"])["DisplayDocTitle"])
	c.check(display, "7.1-10", loc+" ViewerPreferences")
	lang := textOf(w.deref(cat["Lang"]))
	c.check(strings.TrimSpace(lang) != "", "7.2-34", loc+" Lang")
	root := w.dict(cat["StructTreeRoot"])
	c.check(root != nil, "7.1-11", loc)
	if root != nil {
		c.structure(root)
	}
	for n, p := range w.pagesWithAnnots {
		c.check(w.name(p["Tabs"]) == "S", "7.18.3-1", fmt.Sprintf("page %d", n))
	}
}

// structure walks the structure tree: role mapping, tables, figures, headings.
func (c *checker) structure(root types.Dict) {
	w := c.walk
	roles := w.dict(root["RoleMap"])
	// A type's standard meaning: itself if standard, else what RoleMap maps it to (in
	// up to a few steps).
	standard := func(t string) (string, bool) {
		for i := 0; i < 8; i++ {
			if structTypes[t] {
				return t, true
			}
			m := w.name(roles[t])
			if m == "" {
				return t, false
			}
			t = m
		}
		return t, false
	}
	for from, to := range roles {
		if structTypes[from] {
			c.fail("7.1-7", "RoleMap /"+from+" -> /"+w.name(to))
		}
	}
	usesH, usesHn := false, false
	lastLevel := 0
	type item struct {
		o     types.Object
		depth int
	}
	stack := []item{{root["K"], 0}}
	seen := map[int]bool{}
	for n := 0; len(stack) > 0 && n < 200_000; n++ {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if r, ok := it.o.(types.IndirectRef); ok {
			if seen[r.ObjectNumber.Value()] {
				continue
			}
			seen[r.ObjectNumber.Value()] = true
		}
		if a := w.array(it.o); a != nil {
			for i := len(a) - 1; i >= 0; i-- {
				stack = append(stack, item{a[i], it.depth})
			}
			continue
		}
		d := w.dict(it.o)
		if d == nil || it.depth > maxDepth {
			continue
		}
		raw := w.name(d["S"])
		if raw == "" {
			continue // a marked-content reference or an object reference
		}
		loc := where(it.o, "structure element "+raw)
		t, ok := standard(raw)
		c.check(ok, "7.1-5", loc)
		switch {
		case t == "Figure":
			alt := textOf(w.deref(d["Alt"]))
			_, actual := d["ActualText"]
			c.check(alt != "" || actual, "7.3-1", loc)
		case t == "H":
			usesH = true
		case len(t) == 2 && t[0] == 'H' && t[1] >= '1' && t[1] <= '6':
			usesHn = true
			level, _ := strconv.Atoi(t[1:])
			c.check(level <= lastLevel+1, "7.4.2-1", fmt.Sprintf("%s after H%d", loc, lastLevel))
			lastLevel = level
		}
		var kids []types.Object
		if a := w.array(d["K"]); a != nil {
			kids = a
		} else if k, ok := d["K"]; ok {
			kids = []types.Object{k}
		}
		hKids := 0
		for _, k := range kids {
			kd := w.dict(k)
			if kd == nil {
				continue
			}
			kt, _ := standard(w.name(kd["S"]))
			if kt == "H" {
				hKids++
			}
			if t == "Table" && kt != "" {
				c.check(kt == "TR" || kt == "THead" || kt == "TBody" || kt == "TFoot" || kt == "Caption", "7.2-3", loc+" holds "+kt)
			}
		}
		c.check(hKids <= 1, "7.4.4-1", loc)
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, item{kids[i], it.depth + 1})
		}
	}
	c.check(!(usesH && usesHn), "7.4.4-2", "structure tree")
}

// structTypes are the standard structure types of ISO 32000-1, 14.8.4.
var structTypes = map[string]bool{}

func init() {
	for _, t := range strings.Fields(`Document Part Art Sect Div BlockQuote Caption TOC TOCI Index NonStruct Private P H H1 H2
		H3 H4 H5 H6 L LI Lbl LBody Table TR TH TD THead TBody TFoot Span Quote Note Reference BibEntry Code Link Annot Ruby
		RB RT RP Warichu WT WP Figure Formula Form`) {
		structTypes[t] = true
	}
}
