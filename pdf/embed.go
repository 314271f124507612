package pdf

import (
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// File is a file to embed as an associated file of the document (PDF/A-3; ISO 32000-2,
// 14.13).
type File struct {
	Name        string // /F and /UF
	Description string // /Desc
	MIME        string // the stream's /Subtype, e.g. text/xml
	// Relationship is /AFRelationship: Source, Data, Alternative, Supplement or Unspecified.
	Relationship string
	Data         []byte
}

// EmbedOptions steer Embed.
type EmbedOptions struct {
	// Replace names embedded files to drop (compared without case), besides any of the new
	// file's own name: a PDF carries one invoice, whatever an earlier tool called it.
	Replace []string
	// Schema, when set, writes its properties into the XMP and declares them.
	Schema *XMPSchema
	// Changes are metadata changes made in the same update.
	Changes Changes

	file *File
}

// Embed returns the document with f embedded, listed in the catalog's /AF and in the
// EmbeddedFiles name tree, as an incremental update with ModDate now (Info and XMP alike).
// The original bytes stay as they were, so a PDF/A file keeps its conformance.
func (d *Doc) Embed(f File, o EmbedOptions, now time.Time) ([]byte, error) {
	o.Replace = append(slices.Clone(o.Replace), f.Name)
	o.file = &f
	return d.appendUpdate(o.Changes, now, &o)
}

// embed writes the file's stream and specification and sets the catalog's /AF and /Names.
func (d *Doc) embed(u *update, cat types.Dict, o *EmbedOptions, now time.Time) {
	f := o.file
	drop := func(spec types.Object) bool {
		dict, err := d.ctx.DereferenceDict(spec)
		if err != nil || dict == nil {
			return false
		}
		for _, k := range []string{"UF", "F"} {
			if v, ok := dict[k]; ok {
				name := d.text(v)
				for _, r := range o.Replace {
					if strings.EqualFold(name, r) {
						return true
					}
				}
			}
		}
		return false
	}

	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(f.Data)
	w.Close()
	sum := md5.Sum(f.Data)
	stream := u.ref(nil)
	u.mark(stream)
	fmt.Fprintf(u.buf, "%d %d obj\n<</Type/EmbeddedFile/Subtype/%s/Filter/FlateDecode/Length %d/Params<</Size %d/ModDate(%s)/CheckSum<%x>>>>>\nstream\n",
		stream.num, stream.gen, types.EncodeName(f.MIME), z.Len(), len(f.Data), pdfDate(now), sum)
	u.buf.Write(z.Bytes())
	u.buf.WriteString("\nendstream\nendobj\n")

	sref := *types.NewIndirectRef(stream.num, stream.gen)
	spec := types.Dict{
		"Type": types.Name("Filespec"), "F": pdfText(f.Name), "UF": pdfText(f.Name),
		"AFRelationship": types.Name(f.Relationship),
		"EF":             types.Dict{"F": sref, "UF": sref},
	}
	if f.Description != "" {
		spec["Desc"] = pdfText(f.Description)
	}
	specRef := u.ref(nil)
	u.object(specRef, []byte(spec.PDFString()))
	specObj := *types.NewIndirectRef(specRef.num, specRef.gen)

	af := types.Array{}
	if old, err := d.ctx.DereferenceArray(cat["AF"]); err == nil {
		for _, o := range old {
			if !drop(o) {
				af = append(af, o)
			}
		}
	}
	cat["AF"] = append(af, specObj)

	type leaf struct {
		name string
		nameEntry
	}
	var leaves []leaf
	for _, e := range d.embeddedFiles(cat) {
		if !drop(e.spec) {
			leaves = append(leaves, leaf{d.text(e.key), e})
		}
	}
	leaves = append(leaves, leaf{f.Name, nameEntry{pdfText(f.Name), specObj}})
	// Name tree keys sort by their bytes (ISO 32000-1, 7.9.6).
	slices.SortStableFunc(leaves, func(a, b leaf) int { return strings.Compare(a.name, b.name) })
	arr := types.Array{}
	for _, l := range leaves {
		arr = append(arr, l.key, l.spec)
	}
	names := types.Dict{}
	if old, err := d.ctx.DereferenceDict(cat["Names"]); err == nil && old != nil {
		for k, v := range old {
			names[k] = v
		}
	}
	names["EmbeddedFiles"] = types.Dict{"Names": arr}
	cat["Names"] = names
	// Associated files are a PDF 2.0 feature that PDF/A-3 takes into PDF 1.7.
	if v := d.ctx.XRefTable.Version(); v < model.V17 {
		cat["Version"] = types.Name("1.7")
	}
}
