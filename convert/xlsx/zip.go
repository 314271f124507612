package xlsx

import (
	"archive/zip"
	"bytes"

	"github.com/papierkram/papierkram/internal/archive"
)

// workbookLimits bound a workbook package read for font embedding (the same spirit as Word's).
var workbookLimits = archive.Limits{Noun: "the workbook", Kind: ".xlsx or .ods file", Entries: 5000, Part: 128 << 20, Total: 512 << 20}

// unpack reads a zip package (an .xlsx or .ods) with limits against zip bombs, keeping the
// entry order.
func unpack(doc []byte) (map[string][]byte, []string, error) {
	z, err := archive.Open(doc, workbookLimits)
	if err != nil {
		return nil, nil, err
	}
	return z.ReadAll()
}

// repack writes parts as a zip in their order; an ODF "mimetype" entry is stored
// uncompressed, as the format asks of its first entry.
func repack(parts map[string][]byte, order []string) ([]byte, error) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, name := range order {
		method := zip.Deflate
		if name == "mimetype" {
			method = zip.Store // ODF: first, uncompressed
		}
		w, err := z.CreateHeader(&zip.FileHeader{Name: name, Method: method})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(parts[name]); err != nil {
			return nil, err
		}
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
