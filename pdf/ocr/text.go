package ocr

import (
	"context"
	"strconv"
	"strings"

	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/pagerange"
)

// PageTexts reads the text of the first maxPages pages of a PDF, one string per page:
// what poppler finds in the page, or, for a page with (almost) no letters, a scan, what
// Tesseract reads on it at DefaultDPI in DefaultLanguages. Without a Renderer or a
// Recognizer scanned pages stay as poppler read them. The lines keep the page's layout,
// so that a label and its value stand on one line.
func PageTexts(ctx context.Context, r Renderer, tr TextReader, rec Recognizer, data []byte, maxPages int) ([]string, error) {
	if tr == nil {
		return nil, fault.New(fault.EngineUnavailable, "reading the pages' text needs poppler")
	}
	if maxPages < 1 {
		return nil, fault.New(fault.InvalidInput, "at least one page must be read, not %d", maxPages)
	}
	doc, err := pdf.ReadToRead(data) // the pages are only read: a defect poppler reads past is no reason to refuse
	if err != nil {
		return nil, err
	}
	n := min(doc.PageCount(), maxPages)
	if n == 0 {
		return nil, nil
	}
	texts, err := tr.Text(ctx, data, 1, n, true)
	if err != nil {
		return nil, err
	}
	texts = append(texts, make([]string, max(0, n-len(texts)))...)[:n]
	var scans []string
	for i, t := range texts {
		if letters(t) < minTextLetters {
			scans = append(scans, strconv.Itoa(i+1))
		}
	}
	if r == nil || rec == nil || len(scans) == 0 {
		return texts, nil
	}
	spec, err := pagerange.Parse(strings.Join(scans, ","), doc.PageCount())
	if err != nil {
		return nil, fault.Wrap(fault.Internal, err, "the scanned pages cannot be selected")
	}
	pctx, err := readContext(data)
	if err != nil {
		return nil, err
	}
	pages, err := selectPages(pctx, spec, DefaultDPI)
	if err != nil {
		return nil, err
	}
	for _, p := range pages {
		// Between pages, a request that has ended stops the work.
		if ctx.Err() != nil {
			return nil, fault.FromContext(ctx, "the pages were being read")
		}
		read, err := scanText(ctx, r, tr, rec, data, p)
		if err != nil {
			return nil, err
		}
		if letters(read) > letters(texts[p.nr-1]) {
			texts[p.nr-1] = read
		}
	}
	return texts, nil
}

// scanText renders a page and reads it with Tesseract. The layer Tesseract returns is a
// text-only PDF page with its words where they stand, so poppler reads it back as lines.
func scanText(ctx context.Context, r Renderer, tr TextReader, rec Recognizer, data []byte, p page) (string, error) {
	imgs, err := r.Render(ctx, data, []int{p.nr}, poppler.RenderOptions{DPI: p.dpi, Format: poppler.PNG})
	if err != nil {
		return "", err
	}
	if len(imgs) != 1 {
		return "", fault.New(fault.Internal, "page %d rendered as %d images", p.nr, len(imgs))
	}
	layer, err := rec.TextLayer(ctx, imgs[0], p.dpi, DefaultLanguages)
	if err != nil {
		return "", err
	}
	if layer.Words == 0 || len(layer.PDF) == 0 {
		return "", nil
	}
	lines, err := tr.Text(ctx, layer.PDF, 1, 1, true)
	if err != nil {
		return "", fault.Wrap(fault.Internal, err, "the text Tesseract read on page %d cannot be read back", p.nr)
	}
	return strings.Join(lines, "\n"), nil
}
