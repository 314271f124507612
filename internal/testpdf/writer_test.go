package testpdf

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/internal/testtool"
)

const font = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"

func page(contents int) string {
	return fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", contents)
}

// Objects out of order, a number left out and an extra trailer entry: qpdf must find every
// object at its offset (it warns, failing the check, when one is off) and the free entry.
func TestWriter(t *testing.T) {
	w := NewWriter()
	w.Stream(7, "", []byte("BT /F1 24 Tf 72 700 Td (Writer) Tj ET"))
	w.Obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.Obj(6, page(7))
	w.Obj(3, font)
	w.Obj(2, "<< /Type /Pages /Kids [6 0 R] /Count 1 >>")
	w.Obj(5, "<< /Title (Handmade) >>")
	pdf := w.Finish("/Info 5 0 R")

	testtool.QPDFCheck(t, pdf)
	if got := testtool.PageTexts(t, pdf); !slices.Equal(got, []string{"Writer"}) {
		t.Fatalf("text %q", got)
	}
	if got := testtool.Info(t, pdf)["Title"]; got != "Handmade" {
		t.Fatalf("title %q", got)
	}
	p := testtool.File(t, "w.pdf", pdf)
	trailer := strings.Join(strings.Fields(testtool.Run(t, "qpdf", "--show-object=trailer", p)), " ")
	for _, want := range []string{"/Size 8", "/Root 1 0 R", "/Info 5 0 R"} {
		if !strings.Contains(trailer, want) {
			t.Errorf("trailer %q lacks %q", trailer, want)
		}
	}
	// qpdf lists the objects in use with their offsets: each must start its object.
	var nums []int
	for _, line := range strings.Split(strings.TrimSpace(testtool.Run(t, "qpdf", "--show-xref", p)), "\n") {
		var n, off int
		if _, err := fmt.Sscanf(line, "%d/0: uncompressed; offset = %d", &n, &off); err != nil {
			t.Fatalf("xref line %q: %v", line, err)
		}
		if head := fmt.Sprintf("%d 0 obj\n", n); !strings.HasPrefix(string(pdf[off:]), head) {
			t.Errorf("object %d: offset %d holds %.12q", n, off, pdf[off:])
		}
		nums = append(nums, n)
	}
	if !slices.Equal(nums, []int{1, 2, 3, 5, 6, 7}) {
		t.Errorf("objects in use %v, want 1 2 3 5 6 7 (4 free)", nums)
	}
}

// StreamBody takes strings and bytes alike, binary ones too, and /Length counts bytes.
func TestRaw(t *testing.T) {
	bin := []byte{0, 0xff, '\n', 'e', 'n', 'd'}
	pdf := Raw(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 2 >>",
		font,
		page(5),
		StreamBody("", "BT /F1 24 Tf 72 700 Td (Eins) Tj ET"),
		page(7),
		StreamBody("", []byte("BT /F1 24 Tf 72 700 Td (Zwei) Tj ET")),
		StreamBody("/Type /EmbeddedFile", bin),
	)
	testtool.QPDFCheck(t, pdf)
	if got := testtool.PageTexts(t, pdf); !slices.Equal(got, []string{"Eins", "Zwei"}) {
		t.Fatalf("text %q", got)
	}
	p := testtool.File(t, "r.pdf", pdf)
	if got := testtool.Run(t, "qpdf", "--show-object=8", "--raw-stream-data", p); got != string(bin) {
		t.Fatalf("stream data %q, want %q", got, bin)
	}
}

func TestMakeAndForm(t *testing.T) {
	pdf := Make(Options{Pages: 3, Title: "Drei", Rotate: 90, Filler: 500})
	testtool.QPDFCheck(t, pdf)
	if got := testtool.PageTexts(t, pdf); !slices.Equal(got, []string{"Page 1", "Page 2", "Page 3"}) {
		t.Fatalf("Make: text %q", got)
	}
	if info := testtool.Info(t, pdf); info["Title"] != "Drei" || info["Page rot"] != "90" {
		t.Fatalf("Make: info %v", info)
	}
	form := Form()
	testtool.QPDFCheck(t, form)
	fields := testtool.Run(t, "qpdf", "--json=2", "--json-key=acroform", testtool.File(t, "f.pdf", form))
	for _, name := range []string{`"name"`, `"id"`, `"address.city"`, `"agree"`, `"size"`, `"country"`} {
		if !strings.Contains(fields, `"fullname": `+name) {
			t.Errorf("Form lacks field %s", name)
		}
	}
}
