package pdf

import (
	"bytes"
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/internal/testpdf"
)

// TestExtractWithoutDests: the fallback of extract when pdfcpu cannot migrate the named
// destinations (a Dests tree of two leaves, as our composed documents have): the part has
// the pages asked for and no named destinations.
func TestExtractWithoutDests(t *testing.T) {
	d, err := Read(testpdf.New(3))
	if err != nil {
		t.Fatal(err)
	}
	pages := make([]types.Object, 3)
	for i := range pages {
		_, ref, _, err := d.ctx.PageDict(i+1, false)
		if err != nil {
			t.Fatal(err)
		}
		pages[i] = types.Array{*ref, types.Name("Fit")}
	}
	var kids types.Array
	for _, leaf := range []types.Dict{
		{"Limits": types.Array{types.StringLiteral("A"), types.StringLiteral("B")}, "Names": types.Array{types.StringLiteral("A"), pages[0], types.StringLiteral("B"), pages[1]}},
		{"Limits": types.Array{types.StringLiteral("C"), types.StringLiteral("C")}, "Names": types.Array{types.StringLiteral("C"), pages[2]}},
	} {
		ref, err := d.ctx.IndRefForNewObject(leaf)
		if err != nil {
			t.Fatal(err)
		}
		kids = append(kids, *ref)
	}
	cat, _ := d.ctx.Catalog()
	cat["Names"] = types.Dict{"Dests": types.Dict{"Kids": kids}}
	withDests, err := write(d.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(withDests, []byte("/Dests")) {
		t.Fatal("the test document has no named destinations")
	}
	d, err = Read(withDests)
	if err != nil {
		t.Fatal(err)
	}
	out, err := d.extractWithoutDests([]int{3, 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := write(out)
	if err != nil {
		t.Fatal(err)
	}
	part, err := Read(b)
	if err != nil {
		t.Fatal(err)
	}
	if part.PageCount() != 2 || bytes.Contains(b, []byte("/Dests")) {
		t.Errorf("part: %d pages, named destinations kept: %v", part.PageCount(), bytes.Contains(b, []byte("/Dests")))
	}
}
