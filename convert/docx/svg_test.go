package docx

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/office"
	"github.com/papierkram/papierkram/internal/testoffice"
	"github.com/papierkram/papierkram/internal/testtool"
)

// svgDocx is a picture as Word stores an SVG: a PNG fallback in a:blip, the SVG in its
// asvg:svgBlip extension.
func svgDocx() []byte {
	const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" viewBox="0 0 200 100"><rect x="10" y="10" width="180" height="80" fill="#c00"/><text x="20" y="60" font-size="30" fill="#fff">VEKTOR</text></svg>`
	var fallback bytes.Buffer
	png.Encode(&fallback, image.NewGray(image.Rect(0, 0, 20, 10)))
	body := `<w:p><w:r><w:drawing><wp:inline><wp:extent cx="1905000" cy="952500"/><wp:docPr id="1" name="Bild"/><a:graphic><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" name="Bild"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip r:embed="rIdPng"><a:extLst><a:ext uri="{96DAC541-7B7A-43D3-8B79-37D633B846F1}"><asvg:svgBlip xmlns:asvg="http://schemas.microsoft.com/office/drawing/2016/SVG/main" r:embed="rIdSvg"/></a:ext></a:extLst></a:blip><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="1905000" cy="952500"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`
	img := "http://schemas.openxmlformats.org/officeDocument/2006/relationships/image"
	return testoffice.Docx(body, map[string][]byte{"word/media/image1.png": fallback.Bytes(), "word/media/image2.svg": []byte(svg)},
		map[string][2]string{"rIdPng": {img, "media/image1.png"}, "rIdSvg": {img, "media/image2.svg"}})
}

// TestSVGPrintedAsVectors: the SVG's text is in the PDF as text and no raster image is,
// where the fallback alone gives one image and no text.
func TestSVGPrintedAsVectors(t *testing.T) {
	o, err := office.New(engine.Config{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close(context.Background())
	doc := svgDocx()
	fallback, err := o.Convert(t.Context(), office.Job{Document: doc, Ext: "docx"}, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	if len(testtool.Images(t, fallback)) == 0 || strings.Contains(testtool.Text(t, fallback), "VEKTOR") {
		t.Fatal("LibreOffice printed the SVG without help: the test shows nothing")
	}
	pdf, err := ToPDF(t.Context(), o, Request{Document: doc, Filename: "bild.docx"})
	if err != nil {
		t.Fatal(err)
	}
	if imgs := testtool.Images(t, pdf); len(imgs) != 0 || !strings.Contains(testtool.Text(t, pdf), "VEKTOR") {
		t.Errorf("%d raster images, text %q", len(imgs), testtool.Text(t, pdf))
	}
	plain := testoffice.Simple("ohne Bild")
	if same, err := PreferVector(plain); err != nil || !bytes.Equal(same, plain) {
		t.Errorf("a document without SVG changed: %v", err)
	}
}
