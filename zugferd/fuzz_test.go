package zugferd

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzValidate: a damaged or hostile PDF gets an error or a report, never a panic or a hang.
func FuzzValidate(f *testing.F) {
	data, err := os.ReadFile(filepath.Join(corpusDir(f), "zugferd", "2.3-examples", "0. MINIMUM", "MINIMUM_Rechnung", "MINIMUM_Rechnung.pdf"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("%PDF-1.7\n%%EOF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Validate(data)
		if err == nil && r.Valid && (!r.XML.Valid || !r.PDF.Valid) {
			t.Fatal("valid although a part is not")
		}
	})
}
