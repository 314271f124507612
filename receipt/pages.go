package receipt

import (
	"context"
	"image"
	"slices"
	"time"

	"golang.org/x/image/tiff"

	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/tiffdir"
)

// Every page of a scan is read (#20): an invoice's line items run over its middle pages, its
// totals and bank details stand on its last. A scan of many pages may not fit in the
// request's time, so the pages after the first are read last first, then in order, for
// as long as the time left allows another page after the slowest so far; the pages left
// out are named (Quality.PagesNotRead), and what they held is missing, not made up.

// pageRead reads one page (from 1) of a scan: its text and its word boxes.
type pageRead func(ctx context.Context, page int) (string, []poppler.LayoutPage, error)

// pageReserve is the time kept for what follows the reading (parsing, the answer).
const pageReserve = time.Second

// morePages reads pages 2 to n with read, and answers their texts joined in page order,
// their words in page order, and the pages there was no time for. slowest is how long
// page 1 took. A page that cannot be read is left out (its text is missing); a context
// that ended is the error.
func morePages(ctx context.Context, n int, slowest time.Duration, read pageRead) (string, []poppler.LayoutPage, []int, error) {
	if n < 2 {
		return "", nil, nil, nil
	}
	order := []int{n}
	for p := 2; p < n; p++ {
		order = append(order, p)
	}
	texts := map[int]string{}
	words := map[int][]poppler.LayoutPage{}
	var unread []int
	for i, p := range order {
		if !timeFor(ctx, slowest) {
			unread = append(unread, order[i:]...)
			break
		}
		start := time.Now()
		t, w, err := read(ctx, p)
		if ctx.Err() != nil {
			return "", nil, nil, fault.FromContext(ctx, "the scan's pages were not read")
		}
		slowest = max(slowest, time.Since(start))
		if err != nil {
			continue // an unreadable page leaves what the others gave
		}
		texts[p], words[p] = t, w
	}
	var text string
	var all []poppler.LayoutPage
	for p := 2; p <= n; p++ {
		if t, ok := texts[p]; ok {
			text += "\n" + t
			all = append(all, words[p]...)
		}
	}
	slices.Sort(unread)
	return text, all, unread, nil
}

// timeFor: another page fits before ctx's deadline, judged by the slowest page so far
// with room to spare: twice its time and pageReserve.
func timeFor(ctx context.Context, slowest time.Duration) bool {
	d, ok := ctx.Deadline()
	return !ok || time.Until(d) > 2*slowest+pageReserve
}

// maxTIFFPages is the most pages of a TIFF that are read: as many as of a PDF.
const maxTIFFPages = MaxPages

// tiffPages answers the directories of a TIFF's pages when data is a TIFF of more than
// one page, and nil for any other image. A damaged chain of pages is the caller's
// fault, as a damaged image is.
func tiffPages(data []byte) ([]tiffdir.Dir, error) {
	f, ok := tiffdir.Open(data)
	if !ok {
		return nil, nil
	}
	dirs, err := f.Pages(maxTIFFPages)
	if err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "the TIFF image is damaged: %v", err)
	}
	if len(dirs) < 2 {
		return nil, nil
	}
	return dirs, nil
}

// decodeTIFFPage decodes a further page of a TIFF as grey levels, within the limits of
// decodeImage.
func decodeTIFFPage(d tiffdir.Dir) (*image.Gray, error) {
	cfg, err := tiff.DecodeConfig(d.Page())
	if err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "a page of the TIFF image cannot be read: %v", err)
	}
	if err := checkSize(cfg, "TIFF"); err != nil {
		return nil, err
	}
	img, err := tiff.Decode(d.Page())
	if err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "a page of the TIFF image is damaged: %v", err)
	}
	return toGray(img), nil
}
