package pdf

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/papierkram/papierkram/fault"
)

// TestReadToRead: a file Read refuses for a defect of its object graph alone (a date with
// "+00:00") is read for its pages and attachments; what Read refuses for other reasons
// stays refused.
func TestReadToRead(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpus, "zugferd/2.3-examples/3. EN16931/EN16931_Einfach/EN16931_Einfach.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.ReplaceAll(data, []byte(`\05300\04700\047`), []byte(`\05300\07200\047`)) // same length
	if _, err := Read(bad); fault.CodeOf(err) != fault.InvalidPDF {
		t.Fatalf("Read: %v; the test needs a file it refuses", err)
	}
	d, err := ReadToRead(bad)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := Read(data)
	if d.PageCount() != want.PageCount() || d.PageCount() < 1 {
		t.Errorf("%d pages, want %d", d.PageCount(), want.PageCount())
	}
	atts, err := d.Attachments(1 << 20)
	if err != nil || len(atts) != 1 || atts[0].Name != "factur-x.xml" {
		t.Errorf("attachments %v: %v", atts, err)
	}
	for name, in := range map[string][]byte{"not a PDF": []byte("hello"), "truncated": bad[:len(bad)/3]} {
		if _, err := ReadToRead(in); fault.CodeOf(err) != fault.InvalidPDF {
			t.Errorf("%s: %v", name, err)
		}
	}
}
