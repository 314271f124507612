package preview

import (
	"bytes"
	"context"
	"image"
	_ "image/jpeg" // image.DecodeConfig of rendered pages
	_ "image/png"
	"math"
	"strings"

	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/pagerange"
)

// Renderer renders pages (engine/poppler).
type Renderer interface {
	Render(ctx context.Context, pdf []byte, pages []int, o poppler.RenderOptions) ([][]byte, error)
}

// Limits: the spec's 50 pages per request, and the pixels of one image.
const (
	MaxPages  = 50
	MaxPixels = 40_000_000
)

// Options say what to render.
type Options struct {
	Pages    string // a page specification (pagerange); empty: page 1
	Format   string // PNG (default) or JPEG, any case
	DPI      int    // 1–300; 0: 96
	MaxWidth int    // scale down to at most this width in pixels; 0: no scaling
}

// Image is one rendered page.
type Image struct {
	Page          int
	Width, Height int
	ContentType   string
	Data          []byte
}

func (o *Options) validate() (poppler.Format, string, error) {
	if o.Pages == "" {
		o.Pages = "1"
	}
	if o.DPI == 0 {
		o.DPI = 96
	}
	if o.DPI < 1 || o.DPI > 300 {
		return "", "", fault.New(fault.InvalidInput, "dpi must be 1 to 300, not %d", o.DPI).With("field", "dpi")
	}
	if o.MaxWidth < 0 {
		return "", "", fault.New(fault.InvalidInput, "maxWidth must not be negative").With("field", "maxWidth")
	}
	switch strings.ToUpper(o.Format) {
	case "", "PNG":
		return poppler.PNG, "image/png", nil
	case "JPEG", "JPG":
		return poppler.JPEG, "image/jpeg", nil
	}
	return "", "", fault.New(fault.InvalidInput, "format must be PNG or JPEG, not %q", o.Format).With("field", "format")
}

// Render renders the chosen pages of a PDF: validate the options, read the PDF (with its
// limits; a file with owner restrictions only is decrypted), plan the pages within the
// pixel budget, render.
func Render(ctx context.Context, r Renderer, data []byte, o Options) ([]Image, error) {
	format, ct, err := o.validate()
	if err != nil {
		return nil, err
	}
	d, err := pdf.ReadToRead(data) // only rendered: a defect poppler reads past is no reason to refuse
	if err != nil {
		return nil, err
	}
	sp, err := pagerange.Parse(o.Pages, d.PageCount())
	if err != nil {
		return nil, err
	}
	if sp.Count() > MaxPages {
		return nil, fault.New(fault.InvalidPageSpec, "%d pages requested; at most %d per request", sp.Count(), MaxPages)
	}
	sizes, err := d.PageSizes()
	if err != nil {
		return nil, err
	}
	var out []Image
	// Pages of one size share options, so consecutive runs go to the renderer together.
	pages := sp.Pages()
	for i := 0; i < len(pages); {
		ro := renderOptions(sizes[pages[i]-1], format, o.DPI, o.MaxWidth)
		if w, h := pixels(sizes[pages[i]-1], o.DPI, ro.ScaleToWidth); w*h > MaxPixels {
			return nil, fault.New(fault.InvalidInput, "page %d would render to %d×%d pixels at %d dpi; lower dpi or set maxWidth", pages[i], w, h, o.DPI)
		}
		j := i + 1
		for j < len(pages) && renderOptions(sizes[pages[j]-1], format, o.DPI, o.MaxWidth) == ro {
			j++
		}
		imgs, err := r.Render(ctx, d.Bytes(), pages[i:j], ro)
		if err != nil {
			return nil, err
		}
		for k, img := range imgs {
			cfg, _, err := image.DecodeConfig(bytes.NewReader(img))
			if err != nil {
				return nil, fault.Wrap(fault.Internal, err, "the renderer returned an unreadable image of page %d", pages[i+k])
			}
			out = append(out, Image{Page: pages[i+k], Width: cfg.Width, Height: cfg.Height, ContentType: ct, Data: img})
		}
		i = j
	}
	return out, nil
}

// renderOptions decides scaling per page from its size, so maxWidth only ever scales down.
func renderOptions(sz pdf.Size, f poppler.Format, dpi, maxWidth int) poppler.RenderOptions {
	o := poppler.RenderOptions{DPI: dpi, Format: f}
	if w, _ := pixels(sz, dpi, 0); maxWidth > 0 && w > maxWidth {
		o.ScaleToWidth = maxWidth
	}
	return o
}

func pixels(sz pdf.Size, dpi, scaleTo int) (w, h int) {
	w, h = int(math.Ceil(sz.Width*float64(dpi)/72)), int(math.Ceil(sz.Height*float64(dpi)/72))
	if scaleTo > 0 && w > 0 {
		h, w = int(math.Ceil(float64(h)*float64(scaleTo)/float64(w))), scaleTo
	}
	return w, h
}
