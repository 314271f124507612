package receipt

import (
	"bytes"
	"context"
	"image"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/shopspring/decimal"

	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/engine/tesseract"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/lazyre"
	"github.com/papierkram/papierkram/llm"
	"github.com/papierkram/papierkram/pdf"
)

// OCR reads text from images (engine/tesseract).
type OCR interface {
	Read(ctx context.Context, img []byte, o tesseract.Options) (*tesseract.Page, error)
	Orientation(ctx context.Context, img []byte) (rotate int, confidence float64, err error)
}

// PDFReader extracts text from and renders pages of PDFs (engine/poppler).
type PDFReader interface {
	Render(ctx context.Context, pdf []byte, pages []int, o poppler.RenderOptions) ([][]byte, error)
	Text(ctx context.Context, pdf []byte, first, last int, layout bool) ([]string, error)
}

// Reader reads the text of an image: the second OCR engine (engine/paddle).
type Reader interface {
	Read(ctx context.Context, img []byte) (string, error)
}

// Extractor runs the extraction pipeline. OCR and PDF are required; Second and Model are
// optional.
type Extractor struct {
	OCR OCR
	PDF PDFReader
	// Second reads a scanned receipt again when Tesseract's text leaves its total, date or
	// VAT table unsettled, and its header when only a name-like line names the issuer (see
	// unsettled and secondReading).
	Second Reader
	Model  *llm.Client
	Now    func() time.Time
	Log    *slog.Logger
}

// MaxPages is the longest PDF extraction reads: receipts and invoices, not books.
const MaxPages = 100

// Limits of the pipeline.
const (
	renderDPI     = 300  // scanned PDFs are rendered at Tesseract's preferred resolution
	maxRenderSide = 3600 // pixels on a rendered page's longer side
	minPDFLetters = 30   // fewer letters in a PDF's text layer means it is a scan
	lowConfidence = 55   // below this mean word confidence the orientation is checked
)

// Kind is a file's kind as the pipeline sees it.
type Kind string

const (
	KindPDF   Kind = "pdf"
	KindImage Kind = "image"
)

// Sniff tells a PDF from a supported image by its bytes; anything else is refused (400).
func Sniff(data []byte) (Kind, error) {
	if len(data) == 0 {
		return "", fault.New(fault.InvalidInput, "the file is empty")
	}
	if bytes.HasPrefix(data, []byte("%PDF-")) || bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")) {
		return KindPDF, nil
	}
	switch {
	case bytes.HasPrefix(data, []byte("II*\x00")), bytes.HasPrefix(data, []byte("MM\x00*")):
		return KindImage, nil // TIFF
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return KindImage, nil
	}
	switch http.DetectContentType(data) {
	case "image/jpeg", "image/png", "image/gif":
		return KindImage, nil
	}
	return "", fault.New(fault.InvalidInput, "unsupported file type %s: send a JPEG, PNG, WebP, GIF or TIFF image or a PDF", http.DetectContentType(data))
}

// Extract reads one receipt. Errors with the codes invalid_input or invalid_pdf are the
// file's fault (400); any other error means the extraction failed (500).
func (e *Extractor) Extract(ctx context.Context, data []byte, filename string) (*Result, error) {
	start := time.Now()
	kind, err := Sniff(data)
	if err != nil {
		return nil, err
	}
	var (
		text  string
		q     = Quality{Hints: []string{}}
		ocrC  float64
		src   = "OCR"
		image []byte    // what a vision model sees
		scan  *scanRead // an image's OCR, for the second reading
	)
	if kind == KindPDF {
		text, image, q, ocrC, src, err = e.readPDF(ctx, data)
	} else {
		text, image, q, ocrC, scan, err = e.readImageScan(ctx, data, 0, nil, asReceipt)
	}
	if err != nil {
		return nil, err
	}
	r, p := parse(text, e.now(), asReceipt, scan.lines())
	r.OCREngine = ocrEngine(src)
	if src == "OCR" && e.Second != nil {
		switch {
		case unsettled(r, p, e.now()):
			e.secondReading(ctx, r, p, secondImage(image, scan, r, e.now(), false))
		case r.Confidence.Issuer < legalIssuer:
			// Only a line that reads like a name names the issuer, or none does: the second
			// engine reads the header's rows alone (a logo's letters, a legal form that
			// Tesseract misread).
			if img := secondImage(image, scan, r, e.now(), true); img != nil {
				e.secondReading(ctx, r, p, img)
			}
		}
	}
	r.Image = image
	if kind == KindImage && viewable(data) {
		r.Image = data
	}
	r.Filename, r.Quality, r.OCR, r.Source = filename, q, round1(ocrC), src
	if src == "OCR" && ocrC > 0 && ocrC < lowConfidence {
		r.Quality.Hints = append(r.Quality.Hints, HintLowOCR)
	}
	var before map[string]string
	if e.Model != nil {
		before = values(receiptFields(r))
		e.ask(ctx, r, image)
	}
	finish(r, e.now())
	if !r.LLM.Used {
		before = nil
	}
	finishReadings(r, src, before)
	r.Success = r.Data.Gross.Valid() || r.Data.Date != "" || r.Data.Issuer != ""
	if !r.Success {
		r.Error = "no receipt data found in the file"
	}
	r.DurationMs = time.Since(start).Milliseconds()
	return r, nil
}

func ocrEngine(src string) string {
	if src == "OCR" {
		return "tesseract"
	}
	return ""
}

// confirmed: the receipt's VAT breakdown adds up to its total, two readings of the figures
// agree. Lines at 0 % confirm nothing: their gross is the one figure they print, or the
// total they were completed from (on the SROIE tuning receipts a second reading's
// "0 % 127.37" took the place of Tesseract's right 127.35).
func confirmed(r *Result) bool {
	return r.Data.Gross.Valid() && confirms(r.VAT, r.Data.Gross.Value())
}

// confirms: the breakdown adds up to v, and taxes some of it (lines of 0 % alone are often
// a misread table's).
func confirms(vat []VATLine, v decimal.Decimal) bool {
	return sums(vat, v) && slices.ContainsFunc(vat, func(l VATLine) bool { return !l.Rate.Valid() || !l.Rate.Value().IsZero() })
}

// unsettled: Tesseract's text left something open that a second reading may settle: no
// total, no date or one its figures rule out (datePlausible), or a VAT table the text shows
// (a rate, a table header, a Polish tax summary's line) whose lines do not add up to the
// total. A receipt that prints no VAT table (a DIY store's, a furniture store's) is not
// read twice for it: the second reading would cost its time and find none.
func unsettled(r *Result, p *parser, now time.Time) bool {
	if !r.Data.Gross.Valid() || !datePlausible(r.Data.Date, r.VAT, r.Country, now) {
		return true
	}
	if confirmed(r) {
		return false
	}
	for _, l := range p.lower {
		if rateRE.MatchString(l) || vatHeaderTaxRE.MatchString(l) && vatHeaderColsRE.MatchString(l) || taxSummaryRE.MatchString(l) || taxIncludedRE.MatchString(l) && !tableSumRE.MatchString(l) || ptuSummaryRE.MatchString(l) {
			return true
		}
	}
	return false
}

// taxSummaryRE is the header of a tax table in English words ("GST Summary Amount Tax",
// "VAT analysis"): its rows below may have lost their per cent sign to OCR ("SR € 6X
// 29.24 1.76"), so a table the text shows without a rate is read again.
var taxSummaryRE = lazyre.New(`\b(?:gst|vat|tax)\b.*\b(?:summary|analysis)\b`)

// taxIncludedRE is a line that says what tax the total includes ("inkl. 2.50% MWST von
// 61.40 = 1.50", "TVA 7.7% incluse"), whose rate OCR may have misread ("2.508 Must"); not
// the total's own line ("Total Sales Incl GST 31.00").
var taxIncludedRE = lazyre.New(`(?:inkl|incl|enth[äa]lt|inclus|includ)\S*\s.*\b(?:mw\.?st|must|ust|tva|vat|iva|btw|gst)\b|\b(?:mw\.?st|must|tva|vat|iva|btw|gst)\b.*\b(?:inkl|incl|inclus|includ)`)

// secondReading reads the prepared image (or the part of it secondImage chose) with the
// second OCR engine, when Tesseract's text leaves something unsettled, and takes its figures where they are confirmed and
// Tesseract's are not: its total and VAT breakdown when its breakdown adds up to its total
// (or Tesseract found no total), its date where Tesseract found none, its issuer where
// Tesseract found none or one it is less sure of (a name-like line, where the second
// reading read a legal form or a brand). Measured
// on the receipt scans (bench/receiptcheck): PaddleOCR reads totals and VAT tables better,
// dates and names worse, in twice the time, so it reads only the receipts whose figures
// are open. Its failure leaves Tesseract's reading.
func (e *Extractor) secondReading(ctx context.Context, r *Result, p *parser, img []byte) {
	text, err := e.Second.Read(ctx, img)
	if err != nil {
		if e.Log != nil && ctx.Err() == nil {
			e.Log.Warn("second OCR reading failed", "error", err)
		}
		return
	}
	s, sp := parse(text, e.now(), asReceipt, nil)
	r.OCREngine += "+paddleocr"
	r.Text += "\n" + secondTextMark + "\n" + text
	if s.Data.Gross.Valid() && (confirmed(s) || !r.Data.Gross.Valid()) {
		paid, conf := r.Data.Gross, r.Confidence.Gross
		r.Data.Gross, r.Confidence.Gross, r.VAT = s.Data.Gross, s.Confidence.Gross, s.VAT
		r.Data.Net, r.Data.VAT, r.Confidence.VAT = s.Data.Net, s.Data.VAT, s.Confidence.VAT
		if paid.Valid() && r.rounding.Sign() > 0 && fiveCents(paid.Value()) && paid.Value().Sub(s.Data.Gross.Value()).Abs().Equal(r.rounding) {
			// Tesseract read the amount paid after the cash rounding it also read; the
			// second reading confirms the figures before it (its rows may leave the
			// rounding out).
			r.Data.Gross, r.Confidence.Gross = paid, conf
		}
	} else if s.Data.Gross.Valid() && r.Data.Gross.Valid() && !confirmed(r) {
		second, first := s.Data.Gross.Value(), r.Data.Gross.Value()
		sum, items := itemsSum(r.Items)
		switch {
		case confirms(r.VAT, second):
			// Tesseract's breakdown adds up to the second's total, not to its own: a digit
			// of its total's line was misread ("Total Paysble: 3.20" for 23.20).
			r.Data.Gross, r.Confidence.Gross = s.Data.Gross, max(s.Confidence.Gross, 0.9)
		case items && len(r.Items) >= 2 && sum.Equal(second) && !sum.Equal(first):
			// Neither reading's breakdown confirms its total, the items Tesseract read add
			// up to the second's: Σ items = total settles it (a Polish "SUMA PLN 86,00"
			// for 80,00).
			r.Data.Gross, r.Confidence.Gross = s.Data.Gross, s.Confidence.Gross
		case !second.Equal(first) && !supported(r, p, first) && supported(s, sp, second) && p.prints(second):
			// Nothing in Tesseract's reading bears out its total, the second's lines bear
			// out theirs (a card paid it, subtotal and tax add up to it), and Tesseract read
			// that amount too, under a label it misread: Leroy Merlin's "TOTAL TVA 21.35"
			// read as "TobaL TUR" took the total from "CARTE BANCAIRE 128.10"; a café's
			// "Total: $17.43" read as "7.48".
			r.Data.Gross, r.Confidence.Gross = s.Data.Gross, s.Confidence.Gross
		case !second.Equal(first) && !supported(r, p, first) && sp.byTotalWord && slices.ContainsFunc(p.before, second.Equal) && !p.discounted():
			// Tesseract read the subtotal the second reading names as the total, and a total
			// of its own that nothing bears out, no discount's sum making it (a Leeds grill's
			// "Sub total 99.50" over "Order Total 7.90", read "Order Total 99.50" again).
			r.Data.Gross, r.Confidence.Gross = s.Data.Gross, s.Confidence.Gross
		case !p.byTotalWord && sp.byTotalWord && second.GreaterThan(first) && slices.ContainsFunc(sp.paid, first.Equal):
			// Tesseract's total is a card's payment alone, its total's row lost; the second
			// reading's total row names more, of which it read that card paying part
			// (Esselunga's "TOTALE EURO 47,91": 7,91 by credit card, 40,00 by meal voucher).
			r.Data.Gross, r.Confidence.Gross = s.Data.Gross, s.Confidence.Gross
		}
	}
	// The second date where Tesseract read none, or one the figures rule out that the
	// second's passes.
	if s.Data.Date != "" && (r.Data.Date == "" || !datePlausible(r.Data.Date, r.VAT, r.Country, e.now()) && datePlausible(s.Data.Date, r.VAT, r.Country, e.now())) {
		r.Data.Date, r.Data.Time, r.Confidence.Date = s.Data.Date, s.Data.Time, s.Confidence.Date
	} else if s.Data.Date != "" && s.Data.Date != r.Data.Date && r.Confidence.Date <= firstDateConf && p.printsDate(s.Data.Date) && sp.printsDate(s.Data.Date) {
		// Tesseract's text prints two dates, chosen between by their order alone; the
		// second reading's is one of them: two readings agree on it (Biedronka's
		// "2024-05-16" read "2024-05-15" on the fiscal part, right on the card slip under it).
		r.Data.Date, r.Data.Time, r.Confidence.Date = s.Data.Date, s.Data.Time, agreedDateConf
	}
	if s.Data.Issuer != "" && (r.Data.Issuer == "" || s.Confidence.Issuer > r.Confidence.Issuer) {
		r.Issuer, r.Data.Issuer, r.Confidence.Issuer = s.Issuer, s.Data.Issuer, s.Confidence.Issuer
	}
}

// supported: the reading's other lines bear out v as its total: a card paid it, cash less
// the change is it, an amount before tax and a tax's sum add up to it, or the VAT
// breakdown does.
func supported(r *Result, p *parser, v decimal.Decimal) bool {
	return slices.ContainsFunc(p.paid, v.Equal) || slices.ContainsFunc(p.addsUp, v.Equal) || len(r.VAT) > 0 && sums(r.VAT, v)
}

// discounted: the text prints a discount: a negative amount or a discount's word.
func (p *parser) discounted() bool {
	for i, l := range p.lines {
		if discountWordRE.MatchString(p.lower[i]) || slices.ContainsFunc(amounts(l), func(a amount) bool { return a.v.Sign() < 0 }) {
			return true
		}
	}
	return false
}

// discountWordRE names a discount in the languages of the receipts read.
var discountWordRE = lazyre.New(`rabatt|discount|remise|r[ée]duction|sconto|descuento|korting|\brabat\b|nachlass|coupon|gutschein|savings|aktion`)

// prints: one of the text's lines shows v as an amount.
func (p *parser) prints(v decimal.Decimal) bool {
	for _, l := range p.lines {
		if slices.ContainsFunc(amounts(l), func(a amount) bool { return a.v.Abs().Equal(v) }) {
			return true
		}
	}
	return false
}

// itemsSum is what the items add up to, when there are any and each has its amount.
func itemsSum(items []Item) (decimal.Decimal, bool) {
	sum := decimal.Zero
	for _, it := range items {
		if !it.Total.Valid() {
			return decimal.Decimal{}, false
		}
		sum = sum.Add(it.Total.Value())
	}
	return sum, len(items) > 0
}

// secondTextMark separates the second engine's text from Tesseract's in Result.Text.
const secondTextMark = "--- PaddleOCR ---"

func (e *Extractor) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

// finish derives what follows from the figures: accounts, checks, overall confidence.
func finish(r *Result, now time.Time) {
	r.Accounts = Suggest(r.Data.Type, strings.ToLower(r.Data.Issuer))
	r.Data.SKR03Account, r.Data.SKR04Account, r.Data.ExpenseCategory = r.Accounts.SKR03, r.Accounts.SKR04, r.Accounts.Category
	r.Checks = Plausibility(r, now)
	c := r.Confidence
	r.Confidence.Overall = round2((2*c.Gross + c.Date + c.Issuer + c.Type + c.VAT) / 6)
}

func round1(f float64) float64 { return float64(int(f*10+0.5)) / 10 }

// readPDF takes a PDF's own text, or renders its first page and reads it like a photo
// (quality, deskew, orientation, OCR) when it is a scan.
func (e *Extractor) readPDF(ctx context.Context, data []byte) (text string, img []byte, q Quality, conf float64, src string, err error) {
	return e.readPDFWords(ctx, data, nil, asReceipt)
}

// readPDFWords is readPDF that, for a scan, also puts the OCR's word boxes of each page it
// reads into words (in points), for the invoice's layout readers.
func (e *Extractor) readPDFWords(ctx context.Context, data []byte, words *[]poppler.LayoutPage, as scanKind) (text string, img []byte, q Quality, conf float64, src string, err error) {
	if e.PDF == nil {
		return "", nil, q, 0, "", fault.New(fault.EngineUnavailable, "PDF reading (poppler) is not configured on this server")
	}
	d, err := pdf.ReadToRead(data) // text and word boxes only: a defect poppler reads past is no reason to refuse
	if err != nil {
		return "", nil, q, 0, "", err
	}
	data = d.Bytes() // decrypted when the file had owner restrictions only
	sizes, err := d.PageSizes()
	if err != nil || len(sizes) == 0 {
		return "", nil, q, 0, "", fault.New(fault.InvalidPDF, "the PDF has no pages")
	}
	if len(sizes) > MaxPages {
		return "", nil, q, 0, "", fault.New(fault.InvalidInput, "the PDF has %d pages; receipts and invoices are read from PDFs of at most %d pages (split a longer file with /api/pdf-tools/split first)", len(sizes), MaxPages)
	}
	// Every page's text: pdftotext is quick, and a long invoice's totals are on its last.
	pages, err := e.PDF.Text(ctx, data, 1, len(sizes), true)
	if err != nil {
		return "", nil, q, 0, "", err
	}
	text = plainText(strings.Join(pages, "\n"))
	// Render at up to 300 dpi, less for a long page (a receipt imported at its pixel size),
	// so that the image stays within what OCR reads in a second or two.
	longest := max(sizes[0].Width, sizes[0].Height)
	dpi := max(36, min(renderDPI, int(maxRenderSide*72/longest)))
	imgs, rerr := e.PDF.Render(ctx, data, []int{1}, poppler.RenderOptions{DPI: dpi, Format: poppler.PNG})
	if rerr == nil && len(imgs) > 0 {
		img = imgs[0]
	}
	if letters(text) >= minPDFLetters {
		return text, img, q, 0, "PDF_TEXT", nil
	}
	if rerr != nil {
		return "", nil, q, 0, "", rerr
	}
	start := time.Now()
	text, img, q, conf, err = e.readImageWords(ctx, img, float64(dpi), words, as)
	if err != nil {
		return text, img, q, conf, "OCR", err
	}
	// Every further page of the scan (see morePages), each rendered when it is read.
	more, w, unread, err := morePages(ctx, len(sizes), time.Since(start), func(ctx context.Context, p int) (string, []poppler.LayoutPage, error) {
		imgs, err := e.PDF.Render(ctx, data, []int{p}, poppler.RenderOptions{DPI: dpi, Format: poppler.PNG})
		if err != nil || len(imgs) == 0 {
			return "", nil, err
		}
		return e.readPage(ctx, imgs[0], float64(dpi), words != nil, as)
	})
	if err != nil {
		return "", nil, q, 0, "", err
	}
	if words != nil {
		*words = append(*words, w...)
	}
	notRead(&q, unread)
	return text + more, img, q, conf, "OCR", nil
}

// readPage reads one further page of a scan: its text, and its word boxes when asked.
func (e *Extractor) readPage(ctx context.Context, img []byte, dpi float64, boxes bool, as scanKind) (string, []poppler.LayoutPage, error) {
	g, err := decodeImage(img)
	if err != nil {
		return "", nil, err
	}
	return e.readGrayPage(ctx, g, dpi, boxes, as)
}

func (e *Extractor) readGrayPage(ctx context.Context, g *image.Gray, dpi float64, boxes bool, as scanKind) (string, []poppler.LayoutPage, error) {
	var words *[]poppler.LayoutPage
	if boxes {
		words = new([]poppler.LayoutPage)
	}
	t, _, _, _, _, err := e.readGray(ctx, g, dpi, words, as)
	if err != nil || words == nil {
		return t, nil, err
	}
	return t, *words, nil
}

// notRead names the pages of a scan there was no time for.
func notRead(q *Quality, pages []int) {
	if len(pages) > 0 {
		q.PagesNotRead = pages
		q.Hints = append(q.Hints, HintPagesNotRead)
	}
}

// viewable: browsers show these formats (TIFF they do not).
func viewable(data []byte) bool {
	switch http.DetectContentType(data) {
	case "image/jpeg", "image/png", "image/gif", "image/webp":
		return true
	}
	return false
}

func letters(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			n++
		}
	}
	return n
}

// readImageWords decodes, assesses and prepares an image and reads it; when the text reads
// poorly, Tesseract's orientation detection may turn it upright for a second reading. It
// also appends the page's word boxes to words, when words is not nil: Tesseract's boxes in
// pixels of the prepared image, scaled to points at dpi (an image of unknown resolution is
// taken at 200 dpi, a scan's usual).
func (e *Extractor) readImageWords(ctx context.Context, data []byte, dpi float64, words *[]poppler.LayoutPage, as scanKind) (string, []byte, Quality, float64, error) {
	text, png, q, conf, _, err := e.readImageScan(ctx, data, dpi, words, as)
	return text, png, q, conf, err
}

// readImageScan is readImageWords that also answers the image read and Tesseract's words
// on it.
func (e *Extractor) readImageScan(ctx context.Context, data []byte, dpi float64, words *[]poppler.LayoutPage, as scanKind) (string, []byte, Quality, float64, *scanRead, error) {
	if e.OCR == nil {
		return "", nil, Quality{}, 0, nil, fault.New(fault.EngineUnavailable, "OCR (tesseract) is not configured on this server")
	}
	g, err := decodeImage(data)
	if err != nil {
		return "", nil, Quality{}, 0, nil, err
	}
	pages, err := tiffPages(data)
	if err != nil {
		return "", nil, Quality{}, 0, nil, err
	}
	start := time.Now()
	text, png, q, conf, scan, err := e.readGray(ctx, g, dpi, words, as)
	if err != nil || pages == nil {
		return text, png, q, conf, scan, err
	}
	// A TIFF of several pages (a scanner's): every further page, as of a scanned PDF.
	more, w, unread, err := morePages(ctx, len(pages), time.Since(start), func(ctx context.Context, p int) (string, []poppler.LayoutPage, error) {
		g, err := decodeTIFFPage(pages[p-1])
		if err != nil {
			return "", nil, err
		}
		return e.readGrayPage(ctx, g, dpi, words != nil, as)
	})
	if err != nil {
		return "", nil, q, 0, nil, err
	}
	if words != nil {
		*words = append(*words, w...)
	}
	notRead(&q, unread)
	return text + more, png, q, conf, scan, nil
}

// readGray reads one page's grey image: the receipt cut out of a larger scan, assessed,
// deskewed, read by Tesseract (turned upright first when it reads poorly); it also answers
// the image read and Tesseract's words on it, for the second reading.
func (e *Extractor) readGray(ctx context.Context, g *image.Gray, dpi float64, words *[]poppler.LayoutPage, as scanKind) (string, []byte, Quality, float64, *scanRead, error) {
	// On a flatbed page or a photo the receipt is cut out first: around it, Tesseract reads
	// the background as a block of noise and loses the receipt's lines.
	paper, found := findPaper(g)
	if found {
		g = paper.cut(g)
	}
	q := assess(g)
	if found {
		q.Paper = &Box{X: paper.box.Min.X, Y: paper.box.Min.Y, Width: paper.box.Dx(), Height: paper.box.Dy()}
	}
	if as == asReceipt {
		g = halveLarge(g)
	}
	limit := maxSkew
	if found {
		limit = paper.skewLimit()
	}
	prepared, angle := prepare(g, limit)
	q.Deskewed = angle
	// A receipt is read by Tesseract binarised (binarize), the second engine and a vision
	// model see it in grey. An invoice's page is read in grey: on the invoice scans
	// (bench/invoicecheck -scan) the binarised reading lost totals and line rows (net 100 →
	// 96 %, VAT 98 → 94 %, line count 94 → 91 % on the corpus's tuning part).
	png, err := encodePNG(prepared)
	if err != nil {
		return "", nil, q, 0, nil, err
	}
	bin, binPNG := prepared, png
	if as == asPage {
		// An invoice's page is read with its tables' rules whitened (unrule): between the
		// rules of GnuAccounting's grid Tesseract lost the header, the rate column and the
		// whole VAT table; and with its dark bands made light (invertBands), white text on
		// a dark table header being no text to Tesseract.
		bin = blankGraphics(invertBands(unrule(prepared)))
		if binPNG, err = encodePNG(bin); err != nil {
			return "", nil, q, 0, nil, err
		}
	}
	if as == asReceipt {
		bin = binarize(prepared, binRadius, binK)
		if binPNG, err = encodePNG(bin); err != nil {
			return "", nil, q, 0, nil, err
		}
	}
	read := prepared // the image p was read from, in grey
	opts := tesseract.Options{}
	p, err := e.OCR.Read(ctx, binPNG, opts)
	if err != nil {
		return "", nil, q, 0, nil, err
	}
	if as == asPage {
		// An invoice's page is read a second time in Tesseract's own blocks (mode 3):
		// read as one block of rows, two address blocks side by side whose lines stand at
		// other heights came out as noise ("Ma jolie boutique" as "Nr vie Boulaue"); in
		// blocks, a totals box lost its figures' first digits. The reading that is sure of
		// more text is kept (blocksBetter), its words set out in rows (rowsText, below).
		if pb, err := e.OCR.Read(ctx, binPNG, tesseract.Options{PSM: 3}); err == nil && blocksBetter(pb, p) {
			p, opts = pb, tesseract.Options{PSM: 3}
		} else if ctx.Err() != nil {
			return "", nil, q, 0, nil, ctx.Err()
		}
	}
	if p.Confidence < lowConfidence || p.Words < 10 {
		rot, oc, err := e.OCR.Orientation(ctx, binPNG)
		if err == nil && (rot == 0 || oc < 1) && as == asReceipt {
			// Unsure on the binarised receipt, Tesseract's orientation detection may be
			// sure on its grey image: a receipt photographed on its side, 90° at 0.84
			// binarised, 270° at 3.98 in grey, which is right. Grey alone is no better:
			// two receipts on their side, right when binarised (1.23, 2.62), were unsure
			// in grey (0.42, 0.45).
			rot, oc, err = e.OCR.Orientation(ctx, png)
		}
		if err == nil && rot != 0 && oc >= 1 {
			tg := turn(prepared, rot)
			turned, terr := encodePNG(tg)
			turnedBin, berr := turned, error(nil)
			if as == asReceipt {
				turnedBin, berr = encodePNG(turn(bin, rot))
			}
			if terr == nil && berr == nil {
				if p2, err := e.OCR.Read(ctx, turnedBin, opts); err == nil && p2.Confidence > p.Confidence {
					p, png, q.Rotated, read = p2, turned, rot, tg
				}
			}
		} else if ctx.Err() != nil {
			return "", nil, q, 0, nil, ctx.Err()
		}
	}
	if opts.PSM == 3 {
		p.Text = rowsText(p.Boxes) // Tesseract's text goes block by block; the rules read rows
	}
	if words != nil {
		if dpi <= 0 {
			dpi = 200
		}
		*words = append(*words, ocrPage(p, prepared.Bounds().Dx(), prepared.Bounds().Dy(), q.Rotated, 72/dpi))
	}
	return p.Text, png, q, p.Confidence, &scanRead{gray: read, page: p, paper: found}, nil
}

// ocrPage is an OCR'd page as word boxes in points (scale points a pixel): one block of one
// line, since the layout readers group words into rows and segments themselves.
func ocrPage(p *tesseract.Page, w, h, rotated int, scale float64) poppler.LayoutPage {
	if rotated == 90 || rotated == 270 {
		w, h = h, w
	}
	page := poppler.LayoutPage{Width: float64(w) * scale, Height: float64(h) * scale}
	ws := make([]poppler.Word, 0, len(p.Boxes))
	for _, b := range p.Boxes {
		ws = append(ws, poppler.Word{Box: poppler.Box{X0: float64(b.Left) * scale, Y0: float64(b.Top) * scale, X1: float64(b.Left+b.Width) * scale, Y1: float64(b.Top+b.Height) * scale}, Text: b.Text})
	}
	if len(ws) > 0 {
		page.Blocks = []poppler.Block{{Lines: []poppler.Line{{Words: ws}}}}
	}
	return page
}

// scanKind is what a scan is read as: a receipt (binarised, as Tesseract reads thermal
// paper best) or an invoice's page (grey, its tables' rules whitened).
type scanKind int

const (
	asReceipt scanKind = iota
	asPage
)
