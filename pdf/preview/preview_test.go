package preview

import (
	"context"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
)

func renderer(t *testing.T) *poppler.Poppler {
	p := poppler.New(engine.Config{Concurrency: 2, TempRoot: t.TempDir(), JobTimeout: time.Minute})
	t.Cleanup(func() { p.Supervisor().Stop(context.Background()) })
	return p
}

// TestRender: sizes follow dpi and maxWidth (which never scales up), pages of mixed sizes
// render in order, JPEG is JPEG, and the limits hold.
func TestRender(t *testing.T) {
	r := renderer(t)
	ctx := t.Context()
	a4 := testpdf.New(3)
	imgs, err := Render(ctx, r, a4, Options{Pages: "1-3", DPI: 36})
	if err != nil || len(imgs) != 3 {
		t.Fatalf("%d images, %v", len(imgs), err)
	}
	for i, img := range imgs {
		if img.Page != i+1 || img.Width < 297 || img.Width > 298 || img.ContentType != "image/png" || string(img.Data[1:4]) != "PNG" {
			t.Errorf("image %d: page %d %dx%d %s", i, img.Page, img.Width, img.Height, img.ContentType)
		}
	}
	imgs, err = Render(ctx, r, a4, Options{Pages: "2", Format: "jpeg", DPI: 150, MaxWidth: 400})
	if err != nil || len(imgs) != 1 || imgs[0].Width != 400 || imgs[0].Height < 565 || imgs[0].Height > 567 || imgs[0].ContentType != "image/jpeg" || imgs[0].Data[0] != 0xFF {
		t.Fatalf("maxWidth 400: %+v %v", imgs, err)
	}
	if imgs, err = Render(ctx, r, a4, Options{DPI: 72, MaxWidth: 5000}); err != nil || imgs[0].Width != 595 || imgs[0].Page != 1 {
		t.Fatalf("no upscaling, page 1 by default: %v", err)
	}
	// A landscape page between portrait ones: each keeps its own size.
	mixed := testpdf.Make(testpdf.Options{Pages: 1, Width: 842, Height: 595})
	if imgs, err = Render(ctx, r, mixed, Options{DPI: 72}); err != nil || imgs[0].Width != 842 || imgs[0].Height != 595 {
		t.Fatalf("landscape: %+v %v", imgs, err)
	}

	for name, c := range map[string]struct {
		data []byte
		o    Options
		code fault.Code
	}{
		"beyond the last page": {a4, Options{Pages: "4"}, fault.InvalidPageSpec},
		"over 50 pages":        {testpdf.New(60), Options{Pages: "all"}, fault.InvalidPageSpec},
		"dpi 301":              {a4, Options{DPI: 301}, fault.InvalidInput},
		"negative maxWidth":    {a4, Options{MaxWidth: -1}, fault.InvalidInput},
		"GIF":                  {a4, Options{Format: "GIF"}, fault.InvalidInput},
		"not a PDF":            {[]byte("GIF89a"), Options{}, fault.InvalidPDF},
		"truncated":            {a4[:len(a4)/2], Options{}, fault.InvalidPDF},
		"poster at 300 dpi":    {testpdf.Make(testpdf.Options{Pages: 1, Width: 2384 * 2, Height: 3370 * 2}), Options{DPI: 300}, fault.InvalidInput},
	} {
		if _, err := Render(ctx, r, c.data, c.o); fault.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
}
