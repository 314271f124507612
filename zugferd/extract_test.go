package zugferd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/papierkram/papierkram/pdf"
)

// TestExtractDespiteObjectDefects: an invoice PDF whose object graph breaks a rule of the
// PDF specification that does not touch the attachment (the embedded file's /ModDate
// written "+00:00", as some generators write it) still gives its XML: a strict read
// refuses the file, extraction takes the attachment out of a lenient one.
func TestExtractDespiteObjectDefects(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpusDir(t), "zugferd/2.3-examples/3. EN16931/EN16931_Einfach/EN16931_Einfach.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	// "D:20241111141904+00'00'" as "D:20241111141904+00:00'": same length, offsets stay.
	bad := bytes.ReplaceAll(data, []byte(`\05300\04700\047`), []byte(`\05300\07200\047`))
	if bytes.Equal(bad, data) {
		t.Fatal("the example's ModDate is not where the test expects it")
	}
	if _, err := pdf.Read(bad); err == nil {
		t.Fatal("a strict read accepts the defect; the test proves nothing")
	}
	want, _, err := Extract(context.Background(), data)
	if err != nil {
		t.Fatal(err)
	}
	doc, _, err := Extract(context.Background(), bad)
	if err != nil {
		t.Fatalf("extract: %v", err)
	}
	if !bytes.Equal(doc.XML, want.XML) || doc.FileName != "factur-x.xml" {
		t.Errorf("got %s (%d bytes), want the example's factur-x.xml (%d bytes)", doc.FileName, len(doc.XML), len(want.XML))
	}
}
