package pdf

import (
	"context"
	"testing"

	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

// TestMergeKeepsOutlines: merging a file that has bookmarks first once panicked in pdfcpu
// (its default wraps outlines under named destinations the file lacked); each file's
// bookmarks now stay, pointing at their pages in the merged file.
func TestMergeKeepsOutlines(t *testing.T) {
	ctx := context.Background()
	bs, err := ParseBookmarks([]byte(`[{"title":"Rechnung","page":1,"children":[{"title":"Positionen","page":2}]}]`))
	if err != nil {
		t.Fatal(err)
	}
	marked, err := SetBookmarks(ctx, testpdf.New(2), bs, true)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Merge(marked, marked, testpdf.New(1))
	if err != nil {
		t.Fatalf("merge: %v", err)
	}
	testtool.QPDFCheck(t, out)
	got, err := Bookmarks(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Title != "Rechnung" || got[0].Page != 1 || got[1].Page != 3 || len(got[1].Children) != 1 || got[1].Children[0].Page != 4 {
		t.Fatalf("bookmarks after merge: %+v", got)
	}
}
