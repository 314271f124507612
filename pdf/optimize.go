package pdf

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"

	pdfcpu "github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/fault"
)

// OptimizeOptions steer OptimizeWith.
type OptimizeOptions struct {
	// AllowSigned lets a signed PDF be rewritten. A rewrite breaks every signature's byte
	// range, so the signatures are removed rather than left to fail verification. Without
	// it a signed PDF is fault.Unprocessable.
	AllowSigned bool
	// Original, when set, is the document the input was made from by a tool that rebuilt
	// the file (Ghostscript): the result carries the original's Info dictionary and XMP
	// packet, and the catalog entries such a rebuild drops (/AF, /PageMode, /PageLayout,
	// /Lang), and it must hold the original's attachments, byte for byte.
	Original []byte
}

// Optimize rewrites data losslessly to make it smaller: object streams and a
// cross-reference stream, identical fonts and images stored once, objects nothing refers
// to dropped, unfiltered streams Flate-compressed, earlier revisions of an incrementally
// updated file left out. The Info dictionary, the XMP packet (and with it PDF/A
// identification), attachments and every page stay as they were. The input comes back
// unchanged when the rewrite is not smaller (with OptimizeOptions.Original, the rewrite
// comes back whatever its size). A signed PDF is refused (see OptimizeOptions).
func Optimize(ctx context.Context, data []byte) ([]byte, error) {
	return OptimizeWith(ctx, data, OptimizeOptions{})
}

// OptimizeWith is Optimize with options.
func OptimizeWith(ctx context.Context, data []byte, o OptimizeOptions) (out []byte, err error) {
	if ctx.Err() != nil {
		return nil, fault.FromContext(ctx, "the PDF was not optimised")
	}
	d, err := Read(data)
	if err != nil {
		return nil, err
	}
	defer recoverInto(&err, "optimize")
	signed := d.signed()
	if signed && !o.AllowSigned {
		return nil, fault.New(fault.Unprocessable, "the PDF is signed; rewriting it to make it smaller would invalidate its signatures (allow it explicitly to get an unsigned, smaller copy)")
	}
	// keep is what the result must show as it was: the original's when data was rebuilt
	// from one, else data's own.
	keep := d
	if o.Original != nil {
		if keep, err = Read(o.Original); err != nil {
			return nil, err
		}
	}
	want, err := snapshot(keep)
	if err != nil {
		return nil, err
	}
	if o.Original != nil {
		want.ligatures = keep.ligatures()
		if err := d.restoreCatalog(keep); err != nil {
			return nil, err
		}
		if err := d.repairLigatures(want.ligatures); err != nil {
			return nil, err
		}
	}
	if ctx.Err() != nil {
		return nil, fault.FromContext(ctx, "the PDF was not optimised")
	}
	c := d.ctx
	if signed {
		if err := c.RemoveAllSignatures(); err != nil {
			return nil, fault.Wrap(fault.InvalidPDF, err, "the signatures cannot be removed: %s", trimPdfcpu(err.Error()))
		}
	}
	c.Cmd = model.OPTIMIZE
	// pdfcpu would also prune page resources the content does not name, and with them the
	// Default colour spaces (DefaultCMYK...) that recolour device colours without being
	// named: not lossless.
	c.OptimizeResourceDicts = false
	if err := pdfcpu.OptimizeXRefTable(c); err != nil {
		return nil, fault.Wrap(fault.InvalidPDF, err, "the PDF cannot be optimised: %s", trimPdfcpu(err.Error()))
	}
	if err := flateUnfiltered(ctx, c.XRefTable); err != nil {
		return nil, err
	}
	// PDF/A-1 is PDF 1.4: no object or cross-reference streams.
	part, _ := keep.PDFA()
	c.WriteObjectStream, c.WriteXRefStream = part != 1, part != 1
	// pdfcpu stamps the Info dictionary with its name and the time (CreationDate too); the
	// entries as they were go back in an update below.
	rewritten, err := write(c)
	if err != nil {
		return nil, err
	}
	if out, err = appendMissing(rewritten, c, dangling(c), want.info, part != 1); err != nil {
		return nil, err
	}
	if err := verify(out, want); err != nil {
		return nil, err
	}
	// Not smaller: the input as it was is the better result, signatures and all; unless
	// it lacks what the original had.
	if len(out) >= len(data) && o.Original == nil {
		return data, nil
	}
	return out, nil
}

// kept is what a rewrite must not change.
type kept struct {
	pages       int
	info        types.Dict // direct values only
	xmp         []byte
	part        int
	conformance string
	files       []attachmentSum
	// ligatures are the multi-character strings of the fonts' ToUnicode maps; set for a
	// rebuilt file's original only.
	ligatures map[string]bool
}

type attachmentSum struct {
	name, relationship, mime string
	associated               bool
	sum                      [sha256.Size]byte
}

func snapshot(d *Doc) (kept, error) {
	k := kept{pages: d.PageCount(), info: types.Dict{}, xmp: d.XMP()}
	k.part, k.conformance = d.PDFA()
	for key, v := range d.infoDict() {
		if o, err := d.ctx.Dereference(v); err == nil && o != nil {
			if direct, ok := directCopy(o, 0); ok {
				k.info[key] = direct
			}
		}
	}
	files, err := d.Attachments(maxAttachmentsBytes)
	if err != nil {
		return k, err
	}
	k.files = sums(files)
	return k, nil
}

func sums(files []Attachment) []attachmentSum {
	out := make([]attachmentSum, 0, len(files))
	for _, f := range files {
		out = append(out, attachmentSum{f.Name, f.Relationship, f.MIME, f.Associated, sha256.Sum256(f.Data)})
	}
	slices.SortFunc(out, func(a, b attachmentSum) int {
		if a.name != b.name {
			return cmpString(a.name, b.name)
		}
		return bytes.Compare(a.sum[:], b.sum[:])
	})
	return out
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// directCopy copies an Info value that holds no references (strings, names, numbers, and
// arrays or dictionaries of them); anything else is left out.
func directCopy(o types.Object, depth int) (types.Object, bool) {
	if depth > 8 {
		return nil, false
	}
	switch v := o.(type) {
	case types.StringLiteral, types.HexLiteral, types.Name, types.Integer, types.Float, types.Boolean:
		return v, true
	case types.Array:
		a := make(types.Array, 0, len(v))
		for _, e := range v {
			c, ok := directCopy(e, depth+1)
			if !ok {
				return nil, false
			}
			a = append(a, c)
		}
		return a, true
	case types.Dict:
		m := types.Dict{}
		for k, e := range v {
			c, ok := directCopy(e, depth+1)
			if !ok {
				return nil, false
			}
			m[k] = c
		}
		return m, true
	}
	return nil, false
}

// restoreCatalog puts back into d's catalog what a rebuild of the original dropped: the
// XMP packet, the associated files (/AF, matched to d's file specifications by name), and
// how the document opens.
func (d *Doc) restoreCatalog(orig *Doc) error {
	cat, err := d.ctx.Catalog()
	if err != nil {
		return fault.Wrap(fault.InvalidPDF, err, "the rewritten PDF has no readable catalog")
	}
	ocat, err := orig.ctx.Catalog()
	if err != nil {
		return fault.Wrap(fault.InvalidPDF, err, "the PDF has no readable catalog")
	}
	if x := orig.XMP(); x != nil {
		// Unfiltered, as PDF/A wants the packet readable by tools that know no PDF filters.
		n := int64(len(x))
		sd := types.NewStreamDict(types.Dict{"Type": types.Name("Metadata"), "Subtype": types.Name("XML"), "Length": types.Integer(n)}, 0, &n, nil, nil)
		sd.Raw = x
		ref, err := d.ctx.IndRefForNewObject(sd)
		if err != nil {
			return fault.Wrap(fault.Internal, err, "the XMP packet cannot be carried over")
		}
		cat["Metadata"] = *ref
	} else {
		delete(cat, "Metadata")
	}
	for _, key := range []string{"PageMode", "PageLayout", "Lang"} {
		if v, ok := ocat[key]; ok {
			if o, err := orig.ctx.Dereference(v); err == nil {
				if c, ok := directCopy(o, 0); ok {
					cat[key] = c
				}
			}
		}
	}
	oaf, err := orig.ctx.DereferenceArray(ocat["AF"])
	if err != nil || len(oaf) == 0 {
		return nil
	}
	// Ghostscript writes file specifications inline in the name tree; /AF needs them as
	// objects it can share with the tree. pdfcpu writes the tree from its own model of it
	// when it has one, so the change goes there, else into the tree's arrays.
	byName := map[string]types.Object{}
	share := func(spec *types.Object) error {
		if dict, ok := (*spec).(types.Dict); ok {
			ref, err := d.ctx.IndRefForNewObject(dict)
			if err != nil {
				return fault.Wrap(fault.Internal, err, "the associated files cannot be carried over")
			}
			*spec = *ref
		}
		if dict, err := d.ctx.DereferenceDict(*spec); err == nil && dict != nil {
			byName[d.specName(dict)] = *spec
		}
		return nil
	}
	if tree := d.ctx.Names["EmbeddedFiles"]; tree != nil {
		if err := tree.Process(d.ctx.XRefTable, func(_ *model.XRefTable, _ string, v *types.Object) error { return share(v) }); err != nil {
			return err
		}
	} else {
		for _, l := range d.nameTreeLeaves(cat) {
			if err := share(&l.arr[l.i]); err != nil {
				return err
			}
		}
	}
	af := types.Array{}
	for _, o := range oaf {
		spec, err := orig.ctx.DereferenceDict(o)
		if err != nil || spec == nil {
			continue
		}
		name := orig.specName(spec)
		ref, ok := byName[name]
		if !ok {
			return fault.New(fault.Internal, "the rewrite lost the associated file %q", name)
		}
		af = append(af, ref)
	}
	cat["AF"] = af
	return nil
}

// specName is a file specification's /UF, else /F.
func (d *Doc) specName(spec types.Dict) string {
	for _, k := range []string{"UF", "F"} {
		if v, ok := spec[k]; ok {
			if s := d.text(v); s != "" {
				return s
			}
		}
	}
	return ""
}

// signed tells whether a signature field holds a signature, or the catalog carries a
// DocMDP or usage-rights signature: a rewrite would break either.
func (d *Doc) signed() bool {
	cat, err := d.ctx.Catalog()
	if err != nil {
		return false
	}
	if perms, err := d.ctx.DereferenceDict(cat["Perms"]); err == nil && len(perms) > 0 {
		return true
	}
	form, err := d.ctx.DereferenceDict(cat["AcroForm"])
	if err != nil || form == nil {
		return false
	}
	fields, err := d.ctx.DereferenceArray(form["Fields"])
	if err != nil {
		return false
	}
	seen := map[int]bool{}
	var walk func(o types.Object, ft string, depth int) bool
	walk = func(o types.Object, ft string, depth int) bool {
		if depth > 32 {
			return false
		}
		if r, ok := o.(types.IndirectRef); ok {
			if seen[r.ObjectNumber.Value()] {
				return false
			}
			seen[r.ObjectNumber.Value()] = true
		}
		f, err := d.ctx.DereferenceDict(o)
		if err != nil || f == nil {
			return false
		}
		if n, ok := f["FT"].(types.Name); ok {
			ft = n.Value()
		}
		if ft == "Sig" {
			if v, err := d.ctx.DereferenceDict(f["V"]); err == nil && v != nil {
				return true
			}
		}
		kids, err := d.ctx.DereferenceArray(f["Kids"])
		if err != nil {
			return false
		}
		return slices.ContainsFunc(kids, func(k types.Object) bool { return walk(k, ft, depth+1) })
	}
	return slices.ContainsFunc(fields, func(f types.Object) bool { return walk(f, "", 0) })
}

// minFlateGain is the smallest unfiltered stream worth compressing: below it the filter
// entry costs about what deflate saves.
const minFlateGain = 64

// flateUnfiltered compresses the streams that carry no filter (content, images, fonts,
// embedded files written raw) with Flate, where that makes them smaller. XMP packets stay
// raw: PDF/A tools read them without decoding.
func flateUnfiltered(ctx context.Context, x *model.XRefTable) error {
	var buf bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&buf, zlib.BestCompression)
	for _, n := range slices.Sorted(maps.Keys(x.Table)) {
		if ctx.Err() != nil {
			return fault.FromContext(ctx, "the PDF was not optimised")
		}
		e := x.Table[n]
		if e == nil || e.Free || e.Object == nil {
			continue
		}
		sd, ok := e.Object.(types.StreamDict)
		if !ok || len(sd.Raw) < minFlateGain || sd.FilterPipeline != nil {
			continue
		}
		if _, has := sd.Find("Filter"); has {
			continue
		}
		if _, has := sd.Find("DecodeParms"); has {
			continue
		}
		if t := sd.Type(); t != nil && (*t == "Metadata" || *t == "XRef" || *t == "ObjStm") {
			continue
		}
		buf.Reset()
		zw.Reset(&buf)
		if _, err := zw.Write(sd.Raw); err != nil {
			return fault.Wrap(fault.Internal, err, "a stream cannot be compressed")
		}
		if err := zw.Close(); err != nil {
			return fault.Wrap(fault.Internal, err, "a stream cannot be compressed")
		}
		if buf.Len()+len(" /Filter /FlateDecode") >= len(sd.Raw) {
			continue
		}
		sd.Dict = sd.Dict.Clone().(types.Dict)
		sd.Raw = bytes.Clone(buf.Bytes())
		sd.Content = nil
		sd.FilterPipeline = []types.PDFFilter{{Name: "FlateDecode"}}
		sd.InsertName("Filter", "FlateDecode")
		l := int64(len(sd.Raw))
		sd.StreamLength, sd.StreamLengthObjNr = &l, nil
		sd.Update("Length", types.Integer(l))
		e.Object = sd
	}
	return nil
}

// dangling lists the objects reachable from the catalog that the write left out: pdfcpu
// writes only the catalog and page entries it knows, so the values of others (a PDF/A-3
// catalog's /AF, a page's /AF) would point nowhere.
func dangling(c *model.Context) []int {
	var missing []int
	walkReachable(c, []types.Object{*c.Root}, func(n int, _ *model.XRefTableEntry) {
		if !c.Write.HasWriteOffset(n) {
			missing = append(missing, n)
		}
	})
	slices.Sort(missing)
	return missing
}

// appendMissing adds to b, the file pdfcpu wrote from c, an update with the objects the
// write left out and the Info dictionary as it was before pdfcpu stamped it.
func appendMissing(b []byte, c *model.Context, missing []int, info types.Dict, xrefStream bool) (out []byte, err error) {
	d, err := Read(b)
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "the optimised PDF cannot be read back")
	}
	defer recoverInto(&err, "optimize")
	prev, ok := lastStartXRef(b)
	if !ok || d.ctx.Size == nil || d.ctx.Root == nil {
		return nil, fault.New(fault.Internal, "the optimised PDF has no usable cross-reference section")
	}
	u := &update{buf: bytes.NewBuffer(append(bytes.Clone(b), '\n')), size: *d.ctx.Size}
	for _, n := range missing {
		e, _ := c.FindTableEntryLight(n)
		r := objRef{n, 0}
		if e.Generation != nil {
			r.gen = *e.Generation
		}
		u.size = max(u.size, n+1)
		switch v := e.Object.(type) {
		case types.StreamDict:
			if v.Raw == nil {
				if err := v.Encode(); err != nil {
					return nil, fault.Wrap(fault.Internal, err, "object %d cannot be written", n)
				}
			}
			dict := v.Dict.Clone().(types.Dict)
			dict.Update("Length", types.Integer(len(v.Raw)))
			u.mark(r)
			fmt.Fprintf(u.buf, "%d %d obj\n%s\nstream\n", r.num, r.gen, dict.PDFString())
			u.buf.Write(v.Raw)
			u.buf.WriteString("\nendstream\nendobj\n")
		case types.Dict, types.Array, types.StringLiteral, types.HexLiteral, types.Name, types.Integer, types.Float, types.Boolean, types.IndirectRef:
			u.object(r, []byte(v.PDFString()))
		default:
			return nil, fault.New(fault.Internal, "object %d (%T) cannot be written", n, e.Object)
		}
	}
	ref := u.ref(d.ctx.Info)
	u.object(ref, []byte(info.PDFString()))
	trailer := fmt.Sprintf("/Root %d %d R /Info %d %d R /Prev %d", d.ctx.Root.ObjectNumber.Value(), d.ctx.Root.GenerationNumber.Value(), ref.num, ref.gen, prev)
	if len(d.ctx.ID) > 0 {
		trailer += " /ID " + d.ctx.ID.PDFString()
	}
	u.finish(trailer, xrefStream)
	return u.buf.Bytes(), nil
}

// verify reads the result back and compares it with what it must have kept.
func verify(out []byte, want kept) error {
	d, err := Read(out)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "the optimised PDF cannot be read back")
	}
	got, err := snapshot(d)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "the optimised PDF cannot be read back")
	}
	switch {
	case got.pages != want.pages:
		return fault.New(fault.Internal, "the optimised PDF has %d pages, not %d", got.pages, want.pages)
	case !bytes.Equal(got.xmp, want.xmp):
		return fault.New(fault.Internal, "the optimised PDF lost its XMP metadata")
	case got.part != want.part || got.conformance != want.conformance:
		return fault.New(fault.Internal, "the optimised PDF lost its PDF/A identification")
	case !slices.Equal(got.files, want.files):
		return fault.New(fault.Internal, "the optimised PDF lost or changed attachments")
	case got.info.PDFString() != want.info.PDFString():
		return fault.New(fault.Internal, "the optimised PDF lost its document information")
	}
	if want.ligatures != nil {
		// Ghostscript 10.00 reads multi-character ToUnicode values with their bytes
		// swapped ("ft" becomes U+6600 U+7400): the text would no longer be searchable.
		for s := range d.ligatures() {
			if !want.ligatures[s] {
				return fault.New(fault.Internal, "the rewrite changed how the text reads: a font maps a glyph to %q", s)
			}
		}
	}
	return nil
}

// maxCMapBytes bounds a ToUnicode map ligatures reads; larger ones are skipped.
const maxCMapBytes = 4 << 20

// ligatures collects the strings of more than one character that the ToUnicode maps of
// the fonts in use give single glyphs.
func (d *Doc) ligatures() map[string]bool {
	out := map[string]bool{}
	for _, m := range d.toUnicodeMaps() {
		for _, v := range cmapValues(m.sd.Content) {
			if len(v) > 2 {
				out[string(v)] = true
			}
		}
	}
	return out
}

// toUnicodeMap is a decoded ToUnicode stream of a font in use, and its object number.
type toUnicodeMap struct {
	n  int
	sd *types.StreamDict
}

// toUnicodeMaps lists the decoded ToUnicode maps of the fonts in use, each once; maps that
// do not decode within maxCMapBytes are left out.
func (d *Doc) toUnicodeMaps() []toUnicodeMap {
	var out []toUnicodeMap
	seen := map[int]bool{}
	for _, font := range d.fontsInUse() {
		r, ok := font["ToUnicode"].(types.IndirectRef)
		if !ok || seen[r.ObjectNumber.Value()] {
			continue
		}
		seen[r.ObjectNumber.Value()] = true
		sd, _, err := d.ctx.DereferenceStreamDict(r)
		if err != nil || sd == nil || sd.DecodeWithLimit(maxCMapBytes) != nil {
			continue
		}
		out = append(out, toUnicodeMap{r.ObjectNumber.Value(), sd})
	}
	return out
}

// repairLigatures undoes Ghostscript 10.00's byte swap of multi-character ToUnicode
// values: a value that reads as one of the original's ligatures with each UTF-16 unit's
// bytes swapped gets the original's bytes back. Nothing else of the maps changes.
func (d *Doc) repairLigatures(want map[string]bool) error {
	type fix struct{ bad, good []byte }
	var fixes []fix
	for l := range want {
		u := []byte(l)
		if len(u)%2 != 0 {
			continue
		}
		sw := make([]byte, len(u))
		for i := 0; i+1 < len(u); i += 2 {
			sw[i], sw[i+1] = u[i+1], u[i]
		}
		if want[string(sw)] || bytes.Equal(sw, u) {
			continue
		}
		fixes = append(fixes, fix{[]byte(fmt.Sprintf("<%X>", sw)), []byte(fmt.Sprintf("<%X>", u))})
	}
	if len(fixes) == 0 {
		return nil
	}
	for _, m := range d.toUnicodeMaps() {
		sd := m.sd
		content := sd.Content
		for _, f := range fixes {
			content = replaceHex(content, f.bad, f.good)
		}
		if bytes.Equal(content, sd.Content) {
			continue
		}
		ns := types.NewStreamDict(types.Dict{"Length": types.Integer(0)}, 0, nil, nil, []types.PDFFilter{{Name: "FlateDecode"}})
		ns.InsertName("Filter", "FlateDecode")
		ns.Content = content
		if err := ns.Encode(); err != nil {
			return fault.Wrap(fault.Internal, err, "a ToUnicode map cannot be repaired")
		}
		e, ok := d.ctx.FindTableEntryLight(m.n)
		if !ok {
			continue
		}
		e.Object = ns
	}
	return nil
}

// replaceHex replaces every occurrence of old (a hex string token, upper case) in b,
// with hex digits compared without case, by new.
func replaceHex(b, old, new []byte) []byte {
	upper := make([]byte, len(b))
	for i, c := range b {
		if 'a' <= c && c <= 'f' {
			c -= 'a' - 'A'
		}
		upper[i] = c
	}
	if !bytes.Contains(upper, old) {
		return b
	}
	var out []byte
	for {
		i := bytes.Index(upper, old)
		if i < 0 {
			return append(out, b...)
		}
		out = append(append(out, b[:i]...), new...)
		b, upper = b[i+len(old):], upper[i+len(old):]
	}
}

// cmapValues returns the destination strings (UTF-16BE) of a ToUnicode CMap's bfchar and
// bfrange sections; of a range with one destination, the first only.
func cmapValues(b []byte) [][]byte {
	var out [][]byte
	var section string
	var hexes [][]byte
	inArray := false
	for i := 0; i < len(b); {
		switch c := b[i]; {
		case c == '<':
			end := bytes.IndexByte(b[i+1:], '>')
			if end < 0 {
				return out
			}
			h := decodeHex(b[i+1 : i+1+end])
			i += end + 2
			switch {
			case section == "bfrange" && inArray:
				out = append(out, h)
			case section != "":
				hexes = append(hexes, h)
			}
			// bfchar: <src> <dst>; bfrange: <lo> <hi> <dst>.
			if section == "bfchar" && len(hexes) == 2 || section == "bfrange" && len(hexes) == 3 {
				out = append(out, hexes[len(hexes)-1])
				hexes = hexes[:0]
			}
		case c == '[':
			inArray = true
			i++
		case c == ']':
			inArray = false
			hexes = hexes[:0]
			i++
		case isRegular(c):
			j := i
			for j < len(b) && isRegular(b[j]) {
				j++
			}
			switch w := string(b[i:j]); w {
			case "beginbfchar":
				section, hexes = "bfchar", hexes[:0]
			case "beginbfrange":
				section, hexes = "bfrange", hexes[:0]
			case "endbfchar", "endbfrange":
				section = ""
			}
			i = j
		default:
			i++
		}
	}
	return out
}
