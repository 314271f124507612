package xlsx

import (
	"archive/zip"
	"bytes"
	"io"

	"github.com/papierkram/papierkram/fault"
)

// Limits of a workbook package read for font embedding (the same spirit as Word's).
const (
	maxEntries = 5000
	maxPart    = 128 << 20
	maxTotal   = 512 << 20
)

// unpack reads a zip package (an .xlsx or .ods) with limits against zip bombs, keeping the
// entry order.
func unpack(doc []byte) (map[string][]byte, []string, error) {
	z, err := zip.NewReader(bytes.NewReader(doc), int64(len(doc)))
	if err != nil {
		return nil, nil, fault.Wrap(fault.InvalidInput, err, "the workbook cannot be read: it is damaged or not an .xlsx or .ods file")
	}
	if len(z.File) > maxEntries {
		return nil, nil, fault.New(fault.InvalidInput, "the workbook has %d parts; at most %d are accepted", len(z.File), maxEntries)
	}
	parts, order := map[string][]byte{}, []string{}
	var total int
	for _, f := range z.File {
		rc, err := f.Open()
		if err != nil {
			return nil, nil, fault.Wrap(fault.InvalidInput, err, "the workbook's part %s cannot be read", f.Name)
		}
		b, err := io.ReadAll(io.LimitReader(rc, maxPart+1))
		rc.Close()
		if total += len(b); err != nil || len(b) > maxPart || total > maxTotal {
			return nil, nil, fault.New(fault.InvalidInput, "the workbook's part %s is damaged or unpacks too large", f.Name)
		}
		if _, dup := parts[f.Name]; !dup {
			order = append(order, f.Name)
		}
		parts[f.Name] = b
	}
	return parts, order, nil
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
