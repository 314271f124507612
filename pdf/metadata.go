package pdf

import (
	"bytes"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Metadata is the document information: the Info dictionary, completed from XMP where the
// dictionary is silent.
type Metadata struct {
	Title        string     `json:"title,omitempty"`
	Author       string     `json:"author,omitempty"`
	Subject      string     `json:"subject,omitempty"`
	Keywords     string     `json:"keywords,omitempty"`
	Creator      string     `json:"creator,omitempty"`
	Producer     string     `json:"producer,omitempty"`
	CreationDate *time.Time `json:"creationDate,omitempty"`
	ModDate      *time.Time `json:"modDate,omitempty"`
}

// infoKeys are the Info dictionary's text entries, in Metadata's order.
var infoKeys = []string{"Title", "Author", "Subject", "Keywords", "Creator", "Producer"}

func (m *Metadata) field(key string) *string {
	switch key {
	case "Title":
		return &m.Title
	case "Author":
		return &m.Author
	case "Subject":
		return &m.Subject
	case "Keywords":
		return &m.Keywords
	case "Creator":
		return &m.Creator
	case "Producer":
		return &m.Producer
	}
	return nil
}

// Metadata reads the document information.
func (d *Doc) Metadata() (m Metadata, err error) {
	defer recoverInto(&err, "metadata")
	info := d.infoDict()
	for _, k := range infoKeys {
		if o, ok := info[k]; ok {
			*m.field(k) = d.text(o)
		}
	}
	m.CreationDate = d.date(info["CreationDate"])
	m.ModDate = d.date(info["ModDate"])
	if x := d.XMP(); x != nil {
		if xm, err := readXMP(x); err == nil {
			for _, k := range infoKeys {
				if f := m.field(k); *f == "" {
					*f = *xm.field(k)
				}
			}
			if m.CreationDate == nil {
				m.CreationDate = xm.CreationDate
			}
			if m.ModDate == nil {
				m.ModDate = xm.ModDate
			}
		}
	}
	return m, nil
}

// infoDict is the trailer's Info dictionary, or an empty one.
func (d *Doc) infoDict() types.Dict {
	if d.ctx.Info == nil {
		return types.Dict{}
	}
	dict, err := d.ctx.DereferenceDict(*d.ctx.Info)
	if err != nil || dict == nil {
		return types.Dict{}
	}
	return dict
}

func (d *Doc) text(o types.Object) string {
	o, err := d.ctx.Dereference(o)
	if err != nil {
		return ""
	}
	return textOf(o)
}

// textOf decodes a direct text string (or name); anything else is "".
func textOf(o types.Object) string {
	switch v := o.(type) {
	case types.StringLiteral:
		s, err := types.StringLiteralToString(v)
		if err == nil {
			return s
		}
	case types.HexLiteral:
		s, err := types.HexLiteralToString(v)
		if err == nil {
			return s
		}
	case types.Name:
		return string(v)
	}
	return ""
}

func (d *Doc) date(o types.Object) *time.Time {
	if o == nil {
		return nil
	}
	return dateOf(d.text(o))
}

// dateOf parses a PDF date string; nil when it is none.
func dateOf(s string) *time.Time {
	if s == "" {
		return nil
	}
	t, ok := types.DateTime(s, true)
	if !ok {
		return nil
	}
	return &t
}

// XMP returns the catalog's metadata stream, decoded, or nil.
func (d *Doc) XMP() []byte {
	cat, err := d.ctx.Catalog()
	if err != nil {
		return nil
	}
	o, ok := cat.Find("Metadata")
	if !ok {
		return nil
	}
	sd, _, err := d.ctx.DereferenceStreamDict(o)
	if err != nil || sd == nil {
		return nil
	}
	if err := sd.DecodeWithLimit(8 << 20); err != nil {
		return nil
	}
	return bytes.Clone(sd.Content)
}
