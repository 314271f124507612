package archive

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"

	"github.com/papierkram/papierkram/fault"
)

// Limits bound what one package may unpack to, and name it in messages.
type Limits struct {
	Noun    string // "the document", "the workbook", "the template": the subject of messages
	Kind    string // what it should be: ".docx", ".xlsx or .ods file"; empty: a zip package
	Entries int    // entries in the zip directory
	Part    int64  // bytes one entry unpacks to
	Total   int64  // bytes all entries read unpack to
}

// ErrNotZip is the cause of the error Open returns for data that is no zip package.
var ErrNotZip = errors.New("not a zip package")

// Reader is an opened package: its entries in the zip's order, and what was unpacked so far.
type Reader struct {
	Files []*zip.File
	l     Limits
	used  int64
}

// Open reads the zip directory of data: fault.InvalidInput (wrapping ErrNotZip) for data
// that is no zip, and for more entries than the limits allow.
func Open(data []byte, l Limits) (*Reader, error) {
	z, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		what := "a zip package"
		if l.Kind != "" {
			what = "a valid " + l.Kind + " (not a zip package)"
		}
		return nil, fault.Wrap(fault.InvalidInput, errors.Join(ErrNotZip, err), "%s is damaged or not %s: %v", l.Noun, what, err)
	}
	if len(z.File) > l.Entries {
		return nil, fault.New(fault.InvalidInput, "%s has %d parts; at most %d are accepted", l.Noun, len(z.File), l.Entries)
	}
	return &Reader{Files: z.File, l: l}, nil
}

// Read unpacks one entry within the limits: the entry's own, and what is left of the total.
// An entry over them is fault.InvalidInput naming it (a zip bomb, or a package too large to
// be meant); a damaged one is fault.InvalidInput too.
func (r *Reader) Read(f *zip.File) ([]byte, error) {
	limit := min(r.l.Part, r.l.Total-r.used)
	if f.UncompressedSize64 > uint64(r.l.Part) {
		return nil, fault.New(fault.InvalidInput, "%s's part %s unpacks to %d bytes; at most %d are accepted (zip bomb?)", r.l.Noun, f.Name, f.UncompressedSize64, r.l.Part)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "%s's part %s cannot be read: %v", r.l.Noun, f.Name, err)
	}
	defer rc.Close()
	// The declared size may lie: read at most one byte past the limit.
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "%s's part %s is damaged: %v", r.l.Noun, f.Name, err)
	}
	if int64(len(b)) > limit {
		if limit < r.l.Part {
			return nil, fault.New(fault.InvalidInput, "%s unpacks to more than %d bytes (zip bomb?)", r.l.Noun, r.l.Total)
		}
		return nil, fault.New(fault.InvalidInput, "%s's part %s unpacks to more than %d bytes (zip bomb?)", r.l.Noun, f.Name, r.l.Part)
	}
	r.used += int64(len(b))
	return b, nil
}

// ReadAll unpacks every entry: contents by name and the names in the zip's order (a name
// that comes twice keeps its first place and its last content).
func (r *Reader) ReadAll() (map[string][]byte, []string, error) {
	parts, order := make(map[string][]byte, len(r.Files)), make([]string, 0, len(r.Files))
	for _, f := range r.Files {
		b, err := r.Read(f)
		if err != nil {
			return nil, nil, err
		}
		if _, dup := parts[f.Name]; !dup {
			order = append(order, f.Name)
		}
		parts[f.Name] = b
	}
	return parts, order, nil
}
