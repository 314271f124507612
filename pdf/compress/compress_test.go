package compress

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/ghostscript"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testpki"
	"github.com/papierkram/papierkram/internal/testtool"
	"github.com/papierkram/papierkram/pdf/pdfa"
	"github.com/papierkram/papierkram/signature"
)

var corpus = filepath.Join("..", "..", "..", "shared", "corpus")

func gs(t testing.TB) *ghostscript.Ghostscript {
	g := ghostscript.New(engine.Config{Concurrency: 2, JobTimeout: 120 * time.Second, TempRoot: t.TempDir()})
	t.Cleanup(func() { g.Supervisor().Stop(context.Background()) })
	return g
}

func readCorpus(t testing.TB, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(corpus, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// photo is a w×h JPEG (quality 92) that compresses like a photograph: smooth shading
// under sensor noise, seeded so that every run makes the same bytes.
func photo(w, h int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 7))
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			fx, fy := float64(x)/float64(w), float64(y)/float64(h)
			base := 0.5 + 0.25*math.Sin(fx*9+fy*4+float64(seed)) + 0.2*math.Cos(fy*13-fx*3)
			n := r.NormFloat64() * 0.04
			c := func(off float64) uint8 { return uint8(max(0, min(255, (base+off+n)*255))) }
			img.SetRGBA(x, y, color.RGBA{c(0.1 * math.Sin(fx*20)), c(-0.1), c(0.15 * math.Cos(fy*17)), 255})
		}
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 92}); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// strokes is a w×h 1-bit image of black bars, like scanned text, packed as PDF wants it
// (rows padded to bytes, 1 = white).
func strokes(w, h int) []byte {
	row := (w + 7) / 8
	b := bytes.Repeat([]byte{0xff}, row*h)
	for y := range h {
		if y%24 >= 16 {
			continue
		}
		for x := range w {
			if (x/6)%5 != 4 && (x*7+y/24*13)%97 < 80 {
				b[y*row+x/8] &^= 0x80 >> (x % 8)
			}
		}
	}
	return b
}

// pdfImage is an image XObject: the stream's dictionary entries and its (encoded) data.
type pdfImage struct {
	w, h int
	dict string // /ColorSpace, /BitsPerComponent, /Filter ...
	data []byte
}

func jpegImage(w, h int, seed uint64) pdfImage {
	return pdfImage{w, h, "/ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode", photo(w, h, seed)}
}

// page is a page of w×h points; its images are stacked from the top, each drawn at the
// page's width and its share of the height.
type page struct {
	w, h   float64
	images []pdfImage
}

// imagePDF writes pages with their images and the text "Page N" in Helvetica (not
// embedded, as many producers leave it).
func imagePDF(pages ...page) []byte {
	w := testpdf.NewWriter()
	// 1 catalog, 2 page tree, 3 font; then per page: page, content, images.
	kids, next := "", 4
	for _, p := range pages {
		kids += fmt.Sprintf("%d 0 R ", next)
		next += 2 + len(p.images)
	}
	w.Obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.Obj(2, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", kids, len(pages)))
	w.Obj(3, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	n := 4
	for i, p := range pages {
		xobj, content := "", ""
		share := p.h / float64(max(1, len(p.images)))
		for k := range p.images {
			xobj += fmt.Sprintf("/Im%d %d 0 R ", k, n+2+k)
			content += fmt.Sprintf("q %.2f 0 0 %.2f 0 %.2f cm /Im%d Do Q\n", p.w, share, p.h-share*float64(k+1), k)
		}
		content += fmt.Sprintf("BT /F1 24 Tf 36 %.2f Td (Page %d) Tj ET", p.h-40, i+1)
		w.Obj(n, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.2f %.2f] /Resources << /Font << /F1 3 0 R >> /XObject << %s>> >> /Contents %d 0 R >>",
			p.w, p.h, xobj, n+1))
		w.Obj(n+1, testpdf.StreamBody("", content))
		for k, im := range p.images {
			w.Stream(n+2+k, fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d %s", im.w, im.h, im.dict), im.data)
		}
		n += 2 + len(p.images)
	}
	return w.Finish("")
}

// a5 at 300 dpi: a photo page of about 1 MB.
const a5W, a5H = 420, 595

func photoPage(dpi int, seed uint64) page {
	return page{a5W, a5H, []pdfImage{jpegImage(a5W*dpi/72, a5H*dpi/72, seed)}}
}

// imageRow is a line of pdfimages -list.
type imageRow struct {
	page, width, height, bpc, object int
	typ, color, enc                  string
	xppi, yppi                       int
}

func listImages(t testing.TB, data []byte) []imageRow {
	t.Helper()
	var rows []imageRow
	lines := strings.Split(testtool.Run(t, "pdfimages", "-list", testtool.File(t, "i.pdf", data)), "\n")
	for _, l := range lines[2:] {
		f := strings.Fields(l)
		if len(f) < 14 {
			continue
		}
		n := func(s string) int { v, _ := strconv.Atoi(s); return v }
		rows = append(rows, imageRow{page: n(f[0]), typ: f[2], width: n(f[3]), height: n(f[4]), color: f[5], bpc: n(f[7]), enc: f[8], object: n(f[10]), xppi: n(f[12]), yppi: n(f[13])})
	}
	return rows
}

// attachments are pdfdetach's files of data: name -> content.
func attachments(t testing.TB, data []byte) map[string][]byte {
	t.Helper()
	dir := t.TempDir()
	p := testtool.File(t, "a.pdf", data)
	cmd := exec.Command("pdfdetach", "-saveall", p)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pdfdetach: %v %s", err, out)
	}
	m := map[string][]byte{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		m[e.Name()], _ = os.ReadFile(filepath.Join(dir, e.Name()))
	}
	return m
}

func mustCompress(t *testing.T, d Distiller, data []byte, o Options) *Result {
	t.Helper()
	r, err := Compress(context.Background(), d, data, o)
	if err != nil {
		t.Fatalf("%+v: %v", o, err)
	}
	if r.Before != int64(len(data)) || r.After != int64(len(r.PDF)) || r.After > r.Before {
		t.Fatalf("sizes: before %d (input %d), after %d (output %d)", r.Before, len(data), r.After, len(r.PDF))
	}
	testtool.QPDFCheck(t, r.PDF)
	return r
}

// Two copies of a photo page concatenated by a tool that copies objects per file (qpdf;
// pdf.Merge shares identical images itself): the lossless level stores the image once,
// and every page shows the same pixels.
func TestLosslessSharesDuplicateImages(t *testing.T) {
	one := imagePDF(photoPage(150, 1))
	dir := t.TempDir()
	a, b, ab := filepath.Join(dir, "a.pdf"), filepath.Join(dir, "b.pdf"), filepath.Join(dir, "ab.pdf")
	os.WriteFile(a, one, 0o600)
	os.WriteFile(b, one, 0o600)
	testtool.Run(t, "qpdf", "--empty", "--pages", a, b, "--", ab)
	in, _ := os.ReadFile(ab)
	if rows := listImages(t, in); len(rows) != 2 || rows[0].object == rows[1].object {
		t.Fatalf("the input should hold two image objects: %+v", rows)
	}

	r := mustCompress(t, nil, in, Options{Level: Lossless})
	if r.Level != Lossless || r.Note != "" || r.After > r.Before*6/10 {
		t.Fatalf("level %s, note %q, %d -> %d bytes", r.Level, r.Note, r.Before, r.After)
	}
	rows := listImages(t, r.PDF)
	if len(rows) != 2 || rows[0].object != rows[1].object {
		t.Fatalf("the pages should share one image: %+v", rows)
	}
	before, after := testtool.Images(t, in), testtool.Images(t, r.PDF)
	if len(before) != 2 || len(after) != 2 || !bytes.Equal(before[0], after[0]) || !bytes.Equal(before[1], after[1]) {
		t.Fatal("the images' pixels changed")
	}
	if got := testtool.PageTexts(t, r.PDF); !slices.Equal(got, []string{"Page 1", "Page 1"}) {
		t.Fatalf("text %q", got)
	}
}

// A 300 dpi photo: the lossy levels bring it to their resolution and make the file much
// smaller; the page's text stays text.
func TestLossyDownsamples(t *testing.T) {
	g := gs(t)
	in := imagePDF(photoPage(300, 2), photoPage(300, 3))
	lossless := mustCompress(t, g, in, Options{})
	for _, c := range []struct {
		o       Options
		level   Level
		dpi     int
		maxPart float64 // of the lossless size
	}{
		{Options{Level: Medium}, Medium, 150, 0.35},
		{Options{Level: High}, High, 100, 0.2},
		{Options{Level: High, DPI: 200, Quality: 85}, High, 200, 0.7},
	} {
		t.Run(fmt.Sprintf("%s-%d", c.o.Level, c.o.DPI), func(t *testing.T) {
			r := mustCompress(t, g, in, c.o)
			if r.Note != "" || r.Level != c.level || r.DPI != c.dpi {
				t.Fatalf("level %s dpi %d, note %q", r.Level, r.DPI, r.Note)
			}
			if float64(r.After) > c.maxPart*float64(lossless.After) {
				t.Fatalf("%d bytes, lossless %d: not much smaller", r.After, lossless.After)
			}
			rows := listImages(t, r.PDF)
			if len(rows) != 2 {
				t.Fatalf("images %+v", rows)
			}
			for _, row := range rows {
				if row.enc != "jpeg" || row.xppi < c.dpi-3 || row.xppi > c.dpi+3 || row.yppi < c.dpi-3 || row.yppi > c.dpi+3 {
					t.Fatalf("image %+v, want JPEG at %d dpi", row, c.dpi)
				}
			}
			if got := testtool.PageTexts(t, r.PDF); !slices.Equal(got, []string{"Page 1", "Page 2"}) {
				t.Fatalf("text %q", got)
			}
			if fonts := testtool.Run(t, "pdffonts", testtool.File(t, "f.pdf", r.PDF)); !strings.Contains(fonts, "Helvetica") {
				t.Fatalf("the text is no longer set in a font:\n%s", fonts)
			}
		})
	}
	// Quality is the JPEG quality: lower is smaller, at the same resolution.
	q30 := mustCompress(t, g, in, Options{Level: Medium, Quality: 30})
	q90 := mustCompress(t, g, in, Options{Level: Medium, Quality: 90})
	if q30.Quality != 30 || q90.Quality != 90 || q30.After >= q90.After*7/10 {
		t.Fatalf("quality 30: %d bytes, quality 90: %d bytes", q30.After, q90.After)
	}
}

// Images already at or below the target keep their resolution; monochrome images keep
// their pixels whatever their resolution.
func TestLossyKeepsMonoAndSmallImages(t *testing.T) {
	g := gs(t)
	mono := pdfImage{a5W * 300 / 72, a5H * 300 / 72 / 2, "/ColorSpace /DeviceGray /BitsPerComponent 1", strokes(a5W*300/72, a5H*300/72/2)}
	in := imagePDF(page{a5W, a5H, []pdfImage{jpegImage(a5W*300/72, a5H*300/72/2, 4), mono}}, page{a5W, a5H, []pdfImage{jpegImage(a5W*100/72, a5H*100/72, 5)}})
	r := mustCompress(t, g, in, Options{Level: Medium})
	if r.Note != "" || r.Level != Medium {
		t.Fatalf("level %s, note %q", r.Level, r.Note)
	}
	rows := listImages(t, r.PDF)
	if len(rows) != 3 {
		t.Fatalf("images %+v", rows)
	}
	for _, row := range rows {
		switch {
		case row.bpc == 1:
			if row.width != mono.w || row.height != mono.h {
				t.Fatalf("the mono image was resampled: %+v", row)
			}
		case row.page == 1:
			if row.xppi < 147 || row.xppi > 153 {
				t.Fatalf("photo %+v, want 150 dpi", row)
			}
		case row.xppi < 98 || row.xppi > 102:
			t.Fatalf("the 100 dpi photo was resampled: %+v", row)
		}
	}
	var monoBefore, monoAfter []byte
	for _, p := range testtool.Images(t, in) {
		if bytes.HasPrefix(p, []byte("P4")) {
			monoBefore = p
		}
	}
	for _, p := range testtool.Images(t, r.PDF) {
		if bytes.HasPrefix(p, []byte("P4")) {
			monoAfter = p
		}
	}
	if monoBefore == nil || !bytes.Equal(pbmPixels(t, monoBefore), pbmPixels(t, monoAfter)) {
		t.Fatal("the mono image's pixels changed")
	}
}

// pbmPixels are a PBM's rows without the padding bits at the end of each, which carry no
// pixel and which writers fill as they please.
func pbmPixels(t *testing.T, pbm []byte) []byte {
	t.Helper()
	var w, h int
	var rest []byte
	if f := bytes.Fields(pbm[:min(len(pbm), 64)]); len(f) < 3 || string(f[0]) != "P4" {
		t.Fatalf("not a PBM: %q", pbm[:min(len(pbm), 16)])
	}
	if _, err := fmt.Sscanf(string(pbm), "P4\n%d %d\n", &w, &h); err != nil {
		t.Fatal(err)
	}
	rest = pbm[bytes.IndexByte(pbm[3:], '\n')+4:]
	row := (w + 7) / 8
	if len(rest) != row*h {
		t.Fatalf("PBM of %dx%d has %d bytes", w, h, len(rest))
	}
	out := bytes.Clone(rest)
	if w%8 != 0 {
		for y := range h {
			out[y*row+row-1] &= 0xff << (8 - w%8)
		}
	}
	return out
}

// checkPDFA asserts PDF/A of the part and conformance as tools we did not write see it,
// with the PDF/A OutputIntent when intent says so (some corpus files lack it).
func checkPDFA(t *testing.T, out []byte, part, conformance string, intent bool) {
	t.Helper()
	testtool.QPDFCheck(t, out)
	p := testtool.File(t, "a.pdf", out)
	meta := testtool.Run(t, "pdfinfo", "-meta", p)
	has := func(name, v string) bool {
		return strings.Contains(meta, "pdfaid:"+name+"='"+v+"'") || strings.Contains(meta, `pdfaid:`+name+`="`+v+`"`) || strings.Contains(meta, "<pdfaid:"+name+">"+v+"</pdfaid:"+name+">")
	}
	if !has("part", part) || !has("conformance", conformance) {
		t.Fatalf("no PDF/A-%s%s identification in XMP:\n%s", part, conformance, meta)
	}
	fonts := testtool.Run(t, "pdffonts", p)
	for _, line := range strings.Split(fonts, "\n")[2:] {
		if f := strings.Fields(line); len(f) >= 5 && f[len(f)-5] != "yes" {
			t.Fatalf("font not embedded:\n%s", fonts)
		}
	}
	js := testtool.Run(t, "qpdf", "--json", p)
	for _, want := range []string{`"/OutputIntents"`, `"/GTS_PDFA1"`, `"/DestOutputProfile"`} {
		if intent && !strings.Contains(js, want) {
			t.Fatalf("no %s in the result", want)
		}
	}
}

// A PDF/A-3B photo document stays PDF/A-3B at every level.
func TestKeepsPDFA(t *testing.T) {
	g := gs(t)
	in, err := pdfa.Convert(context.Background(), g, imagePDF(photoPage(300, 6)), pdfa.Options{Title: "Foto – Prüfung"})
	if err != nil {
		t.Fatal(err)
	}
	checkPDFA(t, in, "3", "B", true)
	for _, level := range []Level{Lossless, Medium, High} {
		r := mustCompress(t, g, in, Options{Level: level})
		if r.PDFA != "3B" || (level != Lossless && (r.Level != level || r.Note != "" || r.After > r.Before/2)) {
			t.Fatalf("%s: level %s, PDF/A %q, note %q, %d -> %d", level, r.Level, r.PDFA, r.Note, r.Before, r.After)
		}
		checkPDFA(t, r.PDF, "3", "B", true)
		if ti := testtool.Info(t, r.PDF)["Title"]; ti != "Foto – Prüfung" {
			t.Fatalf("%s: title %q", level, ti)
		}
		if got := testtool.PageTexts(t, r.PDF); !slices.Equal(got, []string{"Page 1"}) {
			t.Fatalf("%s: text %q", level, got)
		}
	}
}

// ZUGFeRD invoices keep their XML (and their other attachments) byte for byte, listed as
// associated files, with the Factur-X/ZUGFeRD XMP schema and PDF/A-3B, lossless and lossy;
// Ghostscript drops /AF and the XMP extension schema, which come back from the input.
func TestKeepsZUGFeRD(t *testing.T) {
	g := gs(t)
	for _, c := range []struct {
		file     string
		xmpProps []string
	}{
		{"zugferd/zugferd20/zugferd_2p0_EN16931_Einfach.pdf", []string{"DocumentFileName", "zugferd-invoice.xml", "urn:zugferd:pdfa:CrossIndustryDocument:invoice:2p0#"}},
		{"zugferd/2.3-examples/3. EN16931/EN16931_Elektron/EN16931_Elektron.pdf", []string{"DocumentFileName", "factur-x.xml", "urn:factur-x:pdfa:CrossIndustryDocument:invoice:1p0#"}},
	} {
		in := readCorpus(t, c.file)
		intent := strings.Contains(testtool.Run(t, "qpdf", "--json", testtool.File(t, "in.pdf", in)), `"/GTS_PDFA1"`)
		want := attachments(t, in)
		if len(want) == 0 {
			t.Fatalf("%s: no attachments", c.file)
		}
		for _, level := range []Level{Lossless, Medium} {
			r := mustCompress(t, g, in, Options{Level: level})
			if r.PDFA != "3B" || r.Level != level || r.Note != "" {
				t.Fatalf("%s %s: level %s, PDF/A %q, note %q", c.file, level, r.Level, r.PDFA, r.Note)
			}
			// Ghostscript adds the OutputIntent a sample lacks.
			checkPDFA(t, r.PDF, "3", "B", intent || level != Lossless)
			got := attachments(t, r.PDF)
			if len(got) != len(want) {
				t.Fatalf("%s %s: attachments %d, want %d", c.file, level, len(got), len(want))
			}
			for name, data := range want {
				if !bytes.Equal(got[name], data) {
					t.Fatalf("%s %s: attachment %s changed", c.file, level, name)
				}
			}
			meta := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "m.pdf", r.PDF))
			for _, p := range c.xmpProps {
				if !strings.Contains(meta, p) {
					t.Fatalf("%s %s: XMP lacks %q", c.file, level, p)
				}
			}
			// Every embedded file is an associated file of the document (PDF/A-3, 6.8).
			if n := associatedFiles(t, r.PDF); n != len(want) {
				t.Fatalf("%s %s: the catalog's /AF lists %d files, not %d", c.file, level, n, len(want))
			}
			a, b := strings.Fields(testtool.Text(t, in)), strings.Fields(testtool.Text(t, r.PDF))
			slices.Sort(a)
			slices.Sort(b)
			if !slices.Equal(a, b) {
				t.Fatalf("%s %s: text changed", c.file, level)
			}
		}
	}
}

// associatedFiles counts the entries of the catalog's /AF, as qpdf reads it.
func associatedFiles(t *testing.T, data []byte) int {
	t.Helper()
	var doc struct {
		QPDF []json.RawMessage `json:"qpdf"`
	}
	var objs map[string]struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal([]byte(testtool.Run(t, "qpdf", "--json", testtool.File(t, "j.pdf", data))), &doc); err != nil || len(doc.QPDF) < 2 {
		t.Fatalf("qpdf --json: %v", err)
	}
	if err := json.Unmarshal(doc.QPDF[1], &objs); err != nil {
		t.Fatalf("qpdf --json: %v", err)
	}
	deref := func(v json.RawMessage) json.RawMessage {
		var ref string
		if json.Unmarshal(v, &ref) == nil && strings.HasSuffix(ref, " R") {
			return objs["obj:"+ref].Value
		}
		return v
	}
	var trailer, root map[string]json.RawMessage
	json.Unmarshal(objs["trailer"].Value, &trailer)
	json.Unmarshal(deref(trailer["/Root"]), &root)
	var af []json.RawMessage
	if v, ok := root["/AF"]; ok {
		json.Unmarshal(deref(v), &af)
	}
	return len(af)
}

// A signed PDF is refused unless allowed; allowed, the result carries no signature that
// would fail verification.
func TestSigned(t *testing.T) {
	pki := testpki.Valid(t)
	src := imagePDF(photoPage(150, 7), photoPage(150, 7))
	signed, err := signature.Sign(context.Background(), src, &signature.Credentials{Key: pki.LeafKey, Cert: pki.Leaf}, signature.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Compress(context.Background(), nil, signed, Options{}); fault.CodeOf(err) != fault.Unprocessable {
		t.Fatalf("signed: %v", err)
	}
	r := mustCompress(t, gs(t), signed, Options{Level: Medium, AllowSigned: true})
	if r.Level != Medium || r.After > r.Before/2 {
		t.Fatalf("level %s, note %q, %d -> %d", r.Level, r.Note, r.Before, r.After)
	}
	out, _ := exec.Command("pdfsig", testtool.File(t, "s.pdf", r.PDF)).CombinedOutput()
	if !strings.Contains(string(out), "does not contain any signatures") {
		t.Fatalf("pdfsig:\n%s", out)
	}
}

// A PDF that cannot get smaller comes back as it was, with a note saying so.
func TestNeverLarger(t *testing.T) {
	g := gs(t)
	for _, rel := range []string{
		"pdf/invoice-blanks/MustangGnuaccountingBeispielRE-20170509_505PDF14.pdf",
		"zugferd/2.3-examples/3. EN16931/EN16931_Reisekostenabrechnung/attachments/EN16931_Reisekostenabrechnung_Taxi-Nue-und-Berlin.pdf",
	} {
		in := readCorpus(t, rel)
		for _, level := range []Level{Lossless, Medium, High} {
			r := mustCompress(t, g, in, Options{Level: level})
			if r.After == r.Before && (r.Note == "" || !bytes.Equal(r.PDF, in)) {
				t.Fatalf("%s %s: unchanged size without a note, or changed bytes", rel, level)
			}
		}
	}
	// An optimised file does not shrink again.
	in := mustCompress(t, nil, testpdf.New(3), Options{}).PDF
	r := mustCompress(t, nil, in, Options{})
	if !bytes.Equal(r.PDF, in) || r.Note == "" {
		t.Fatalf("a second pass changed %d bytes to %d (note %q)", r.Before, r.After, r.Note)
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	g := gs(t)
	good, two := testpdf.New(1), testpdf.New(2)
	enc := filepath.Join(t.TempDir(), "enc.pdf")
	testtool.Run(t, "qpdf", "--encrypt", "user", "owner", "256", "--", testtool.File(t, "plain.pdf", good), enc)
	encrypted, _ := os.ReadFile(enc)
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	for _, c := range []struct {
		name string
		ctx  context.Context
		d    Distiller
		data []byte
		o    Options
		want fault.Code
	}{
		{"not a PDF", ctx, g, []byte("hello"), Options{}, fault.InvalidPDF},
		{"truncated", ctx, g, two[:len(two)/2], Options{Level: Medium}, fault.InvalidPDF},
		{"encrypted", ctx, g, encrypted, Options{Level: Medium}, fault.EncryptedPDF},
		{"bad level", ctx, g, good, Options{Level: "extreme"}, fault.InvalidInput},
		{"dpi too low", ctx, g, good, Options{Level: Medium, DPI: 10}, fault.InvalidInput},
		{"dpi too high", ctx, g, good, Options{Level: High, DPI: 5000}, fault.InvalidInput},
		{"quality", ctx, g, good, Options{Level: Medium, Quality: 101}, fault.InvalidInput},
		{"negative quality", ctx, g, good, Options{Level: Medium, Quality: -1}, fault.InvalidInput},
		{"dpi for lossless", ctx, g, good, Options{DPI: 150}, fault.InvalidInput},
		{"no Ghostscript", ctx, nil, good, Options{Level: High}, fault.EngineUnavailable},
		{"canceled", canceled, g, good, Options{Level: Medium}, fault.Canceled},
	} {
		if _, err := Compress(c.ctx, c.d, c.data, c.o); fault.CodeOf(err) != c.want {
			t.Errorf("%s: %v, want %s", c.name, err, c.want)
		}
	}
}
