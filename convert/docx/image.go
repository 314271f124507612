package docx

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	_ "image/jpeg" // registers the decoder for image sizes
	_ "image/png"
	"path"
	"strings"

	"github.com/beevik/etree"

	"github.com/papierkram/papierkram/convert"
)

// Image is an image value of a placeholder. In variables it is written either as a string,
// "data:image/png;base64,..." (or image/jpeg) or "base64:..." (PNG or JPEG by content),
// or as an object {"image": "<one of those>", "width": "40mm", "height": "2cm"}; with one
// of width and height the other follows the aspect ratio, with neither the image takes its
// pixel size at 96 dpi, at most 16 cm wide.
type Image struct {
	Data          []byte
	Ext           string  // png or jpeg
	Width, Height float64 // inches, 0 = from the image
}

const maxImage = 20 << 20

// imageValue recognises an image value; ok is false for other values.
func imageValue(v any) (img Image, ok bool, err error) {
	var src, w, h string
	switch x := v.(type) {
	case string:
		src = x
	case map[string]any:
		s, isStr := x["image"].(string)
		if !isStr {
			return img, false, nil
		}
		src = s
		w, _ = x["width"].(string)
		h, _ = x["height"].(string)
	default:
		return img, false, nil
	}
	var b64 string
	switch {
	case strings.HasPrefix(src, "data:image/"):
		head, data, found := strings.Cut(src, ",")
		if !found || !strings.HasSuffix(head, ";base64") {
			return img, false, fmt.Errorf("an image must be a Base64 data URL")
		}
		b64 = data
	case strings.HasPrefix(src, "base64:"):
		b64 = strings.TrimPrefix(src, "base64:")
	default:
		return img, false, nil
	}
	if len(b64) > maxImage*4/3+4 {
		return img, false, fmt.Errorf("the image is larger than %d MB", maxImage>>20)
	}
	data, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(b64), ""))
	if err != nil {
		return img, false, fmt.Errorf("the image is not valid Base64")
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || (format != "png" && format != "jpeg") {
		return img, false, fmt.Errorf("the image must be PNG or JPEG")
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width > 20000 || cfg.Height > 20000 {
		return img, false, fmt.Errorf("the image is %dx%d pixels; at most 20000 on a side", cfg.Width, cfg.Height)
	}
	img = Image{Data: data, Ext: format}
	ratio := float64(cfg.Height) / float64(cfg.Width)
	if w != "" {
		if img.Width, err = convert.Length(w); err != nil {
			return img, false, err
		}
	}
	if h != "" {
		if img.Height, err = convert.Length(h); err != nil {
			return img, false, err
		}
	}
	switch {
	case img.Width == 0 && img.Height == 0:
		img.Width = min(float64(cfg.Width)/96, 16/2.54)
		img.Height = img.Width * ratio
	case img.Width == 0:
		img.Width = img.Height / ratio
	case img.Height == 0:
		img.Height = img.Width * ratio
	}
	return img, true, nil
}

const (
	emuPerInch = 914400
	relImage   = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/image"
	nsRels     = "http://schemas.openxmlformats.org/package/2006/relationships"
)

// relsName is the relationships part of the current part.
func (f *filler) relsName() string {
	return path.Join(path.Dir(f.part), "_rels", path.Base(f.part)+".rels")
}

func (f *filler) loadRels() error {
	if f.rels != nil {
		return nil
	}
	d, err := f.pkg.xmlPart(f.relsName(), newRels)
	f.rels = d
	return err
}

func (f *filler) saveRels() error {
	b, err := f.rels.WriteToBytes()
	if err != nil {
		return err
	}
	f.pkg.put(f.relsName(), b)
	return nil
}

// ensureImageTypes declares the image extensions in [Content_Types].xml. Content types it
// cannot read are left as they are: LibreOffice decides about such a package.
func (f *filler) ensureImageTypes() {
	_ = f.pkg.declareDefault("png", "image/png")
	_ = f.pkg.declareDefault("jpeg", "image/jpeg")
}

// insertImage puts a picture after the run of t (whose text ends before the tag) and a new
// run with the text after the tag; it returns that run's w:t.
func (f *filler) insertImage(t *etree.Element, img Image, after string) (*etree.Element, error) {
	if err := f.loadRels(); err != nil {
		return nil, err
	}
	f.images++
	f.nextID++
	id := fmt.Sprintf("rIdPapierkram%d", f.images)
	media := fmt.Sprintf("media/papierkram-%d-%s.%s", f.images, strings.TrimSuffix(path.Base(f.part), ".xml"), img.Ext)
	rel := f.rels.Root().CreateElement("Relationship")
	rel.CreateAttr("Id", id)
	rel.CreateAttr("Type", relImage)
	rel.CreateAttr("Target", media)
	f.pkg.put(path.Join(path.Dir(f.part), media), img.Data)

	run := t.Parent()
	if run == nil || !isW(run, "r") {
		return nil, f.errorf("an image placeholder must be in ordinary text")
	}
	cx, cy := int64(img.Width*emuPerInch), int64(img.Height*emuPerInch)
	docPr := 4000 + f.images
	pic := etree.NewDocument()
	err := pic.ReadFromString(fmt.Sprintf(`<w:r xmlns:w="%s"><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" distT="0" distB="0" distL="0" distR="0"><wp:extent cx="%d" cy="%d"/><wp:docPr id="%d" name="Picture %d"/><a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:nvPicPr><pic:cNvPr id="%d" name="image%d.%s"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" r:embed="%s"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="%d" cy="%d"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r>`,
		nsW, cx, cy, docPr, docPr, docPr, docPr, img.Ext, id, cx, cy))
	if err != nil {
		return nil, err
	}
	picRun := pic.Root()
	pic.RemoveChild(picRun)
	// The text after the tag moves to a copy of the run (same formatting), after the picture.
	pos := 0
	for k, c := range run.ChildElements() {
		if c == t {
			pos = k
		}
	}
	rest := run.Copy()
	var restT *etree.Element
	for k, c := range rest.ChildElements() {
		switch {
		case isW(c, "rPr"):
		case k == pos:
			restT = c
			setText(c, after)
		case k < pos:
			rest.RemoveChild(c)
		}
	}
	// The original run keeps what came before the tag; drop what followed it.
	drop := false
	for _, c := range run.ChildElements() {
		if c == t {
			drop = true
			continue
		}
		if drop {
			run.RemoveChild(c)
		}
	}
	if restT == nil {
		restT = rest.CreateElement("w:t")
		setText(restT, after)
	}
	parent := run.Parent()
	at := run.Index() + 1
	parent.InsertChildAt(at, picRun)
	parent.InsertChildAt(at+1, rest)
	return restT, nil
}
