package receipt

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
	"github.com/papierkram/papierkram/pdf"
)

// fakePages reads page p as "page p" with one layout page of width p, failing on bad.
func fakePages(order *[]int, bad int) pageRead {
	return func(ctx context.Context, p int) (string, []poppler.LayoutPage, error) {
		*order = append(*order, p)
		if p == bad {
			return "", nil, errors.New("unreadable")
		}
		return fmt.Sprintf("page %d", p), []poppler.LayoutPage{{Width: float64(p)}}, nil
	}
}

// TestMorePages: the last page is read right after the first, then the others in order;
// text and words come back in page order; an unreadable page is left out; with no time
// for another page, the pages are named, not read; an ended context is an error.
func TestMorePages(t *testing.T) {
	var order []int
	text, words, unread, err := morePages(t.Context(), 5, 0, fakePages(&order, 3))
	if err != nil || len(unread) != 0 {
		t.Fatalf("%v, unread %v", err, unread)
	}
	if !slices.Equal(order, []int{5, 2, 3, 4}) {
		t.Errorf("read in the order %v", order)
	}
	if text != "\npage 2\npage 4\npage 5" {
		t.Errorf("text %q", text)
	}
	if len(words) != 3 || words[0].Width != 2 || words[2].Width != 5 {
		t.Errorf("words %+v", words)
	}

	// The slowest page took 10 s and 5 s are left: no page is tried.
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	order = nil
	text, _, unread, err = morePages(ctx, 4, 10*time.Second, fakePages(&order, 0))
	if err != nil || text != "" || len(order) != 0 || !slices.Equal(unread, []int{2, 3, 4}) {
		t.Errorf("no time: %v, text %q, read %v, unread %v", err, text, order, unread)
	}

	ended, stop := context.WithCancel(t.Context())
	stop()
	if _, _, _, err := morePages(ended, 3, 0, fakePages(&order, 0)); err == nil {
		t.Error("an ended context read on")
	}
	if text, _, unread, err := morePages(t.Context(), 1, 0, fakePages(&order, 0)); text != "" || unread != nil || err != nil {
		t.Error("a one-page scan has further pages")
	}
}

// TestScanEveryPageRead: an invoice of four pages, scanned as a multi-page TIFF and as a
// PDF of images, is read on every page: the number from the first, a line item from the
// third, the totals and the IBAN from the last.
func TestScanEveryPageRead(t *testing.T) {
	text := testpdf.Text("Helvetica", 14,
		"Muster Software GmbH\nHauptstraße 5\n50667 Köln\nRechnungsnummer: RE-2026-0417\nRechnungsdatum: 02.11.2026",
		"Fortsetzung der Leistungsbeschreibung\nBeratung vor Ort",
		"Wartungsvertrag Zebrafisch 600,00 EUR",
		"Nettobetrag 600,00 EUR\nUSt 19% 114,00 EUR\nGesamtbetrag 714,00 EUR\nIBAN DE02 1203 0000 0000 2020 51")
	var pages []testtool.TIFFPage
	var pngs [][]byte
	for p := range 4 {
		g := toGray(testtool.Render(t, text, p+1, 150))
		pages = append(pages, testtool.TIFFPage{Image: g, DPI: 150})
		var b bytes.Buffer
		if err := png.Encode(&b, g); err != nil {
			t.Fatal(err)
		}
		pngs = append(pngs, b.Bytes())
	}
	scan, err := pdf.ImagesToPDF(t.Context(), pngs, pdf.ImagesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e := newExtractor(t)
	for name, file := range map[string][]byte{"TIFF": testtool.TIFF(pages, false), "PDF": scan} {
		r, err := e.Invoice(t.Context(), file)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Source != "OCR" || len(r.PagesNotRead) != 0 {
			t.Errorf("%s: source %s, pages not read %v", name, r.Source, r.PagesNotRead)
		}
		if !strings.Contains(r.Text, "Zebrafisch") || !strings.Contains(r.Text, "Beratung") {
			t.Errorf("%s: the middle pages were not read:\n%s", name, r.Text)
		}
		inv := r.Invoice
		if inv.Number != "RE-2026-0417" || inv.Totals.GrossTotal.String() != "714.00" || len(inv.Payment.CreditTransfers) != 1 {
			t.Errorf("%s: number %q, gross %s\n%s", name, inv.Number, inv.Totals.GrossTotal, r.Text)
		}
	}
}
