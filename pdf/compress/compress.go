package compress

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/papierkram/papierkram/engine/ghostscript"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf"
)

// Level is how much a PDF may lose to get smaller.
type Level string

// The levels. The lossy ones were chosen on receipt scans at 300 dpi, by the share of the
// original's words Tesseract still reads (BenchmarkLevelsOCR): 150 dpi at JPEG quality 75
// reads 0.81 of them at 17 % of the size, about what 200 dpi reads (0.82, 28 %) and
// Ghostscript's /ebook preset (0.80, 19 %); 100 dpi at quality 60 halves the size again
// (8 %) and reads 0.73; at 72 dpi OCR fails (0.36). Lower JPEG quality hardly shrinks
// scans further.
const (
	// Lossless rewrites the file's structure only; every page stays as it was.
	Lossless Level = "lossless"
	// Medium: colour and grey images above 150 dpi downsampled to 150 dpi, JPEG quality 75;
	// colours as they were.
	Medium Level = "medium"
	// High: images above 100 dpi downsampled to 100 dpi, JPEG quality 60, and colours made
	// RGB (a CMYK image loses a quarter of its data): for the screen, not for print.
	High Level = "high"
)

type lossy struct {
	dpi, quality int
	rgb          bool
}

var levels = map[Level]lossy{Medium: {150, 75, false}, High: {100, 60, true}}

// Bounds of Options.DPI: below 50 dpi scanned text is illegible, above 1200 nothing shrinks.
const (
	MinDPI = 50
	MaxDPI = 1200
)

// Options steer Compress.
type Options struct {
	// Level is lossless (also when empty), medium or high.
	Level Level
	// DPI overrides the lossy level's target image resolution (MinDPI to MaxDPI).
	DPI int
	// Quality overrides the lossy level's JPEG quality (1 to 100).
	Quality int
	// AllowSigned lets a signed PDF be compressed: the result carries no signatures (a
	// rewrite would break them). Without it a signed PDF is fault.Unprocessable.
	AllowSigned bool
}

// Result is a compressed PDF and what happened to it.
type Result struct {
	PDF    []byte
	Before int64 // bytes of the input
	After  int64 // bytes of PDF
	// Level is the level the result was made with: Lossless when a lossy level fell back.
	Level Level
	// DPI and Quality are the image settings applied by a lossy level, else 0.
	DPI, Quality int
	// PDFA is the PDF/A identification the input had and the result keeps, checked
	// ("3B", "2U", ...), or "" for input that is not PDF/A.
	PDFA string
	// Note says why the result is not what the level asked for (the lossy rewrite fell
	// back to lossless, or nothing got smaller); "" when it is.
	Note string
}

// Distiller rewrites a PDF with Ghostscript's pdfwrite (engine/ghostscript does).
type Distiller interface {
	Distill(ctx context.Context, pdf []byte, s ghostscript.DistillSettings) ([]byte, error)
}

// Compress makes data smaller as o says. d is needed for the lossy levels only. Input
// faults are those of pdf.Read (fault.InvalidPDF, EncryptedPDF, PayloadTooLarge); bad
// options are fault.InvalidInput; a signed PDF without o.AllowSigned is
// fault.Unprocessable.
func Compress(ctx context.Context, d Distiller, data []byte, o Options) (*Result, error) {
	lv, err := o.settings()
	if err != nil {
		return nil, err
	}
	if lv != (lossy{}) && d == nil {
		return nil, fault.New(fault.EngineUnavailable, "lossy compression needs Ghostscript, which is not configured")
	}
	src, err := pdf.Read(data)
	if err != nil {
		return nil, err
	}
	part, conf := src.PDFA()
	res := &Result{Before: int64(len(data)), Level: Lossless}
	if part > 0 {
		res.PDFA = fmt.Sprintf("%d%s", part, strings.ToUpper(conf))
	}
	lossless, err := pdf.OptimizeWith(ctx, data, pdf.OptimizeOptions{AllowSigned: o.AllowSigned})
	switch {
	case fault.Is(err, fault.Internal):
		// The rewrite did not keep what it must: the input as it is beats a broken file.
		lossless, res.Note = data, "the lossless rewrite was not used: "+message(err)
	case err != nil:
		return nil, err
	}
	if len(lossless) < len(data) {
		if err := keptPDFA(src, lossless); err != nil {
			lossless, res.Note = data, "the lossless rewrite was not used: "+err.Error()
		}
	}
	res.PDF = lossless
	if lv != (lossy{}) {
		note, err := lossyPass(ctx, d, src, data, o.Level, lv, res)
		if err != nil {
			return nil, err
		}
		if note != "" {
			res.Note = note
		}
	}
	if len(res.PDF) >= len(data) {
		res.PDF = data
		if res.Note == "" {
			res.Note = "the PDF cannot be made smaller at this level; it is returned as it was"
		}
	}
	res.After = int64(len(res.PDF))
	return res, nil
}

// settings validates o and returns the lossy settings, zero for lossless.
func (o Options) settings() (lossy, error) {
	lvl := o.Level
	if lvl == "" {
		lvl = Lossless
	}
	if o.DPI != 0 && (o.DPI < MinDPI || o.DPI > MaxDPI) {
		return lossy{}, fault.New(fault.InvalidInput, "dpi must be between %d and %d, not %d", MinDPI, MaxDPI, o.DPI)
	}
	if o.Quality < 0 || o.Quality > 100 {
		return lossy{}, fault.New(fault.InvalidInput, "quality must be between 1 and 100, not %d", o.Quality)
	}
	if lvl == Lossless {
		if o.DPI != 0 || o.Quality != 0 {
			return lossy{}, fault.New(fault.InvalidInput, "dpi and quality apply to the lossy levels (medium, high), not to lossless")
		}
		return lossy{}, nil
	}
	lv, ok := levels[lvl]
	if !ok {
		return lossy{}, fault.New(fault.InvalidInput, "level must be lossless, medium or high, not %q", o.Level)
	}
	if o.DPI != 0 {
		lv.dpi = o.DPI
	}
	if o.Quality != 0 {
		lv.quality = o.Quality
	}
	return lv, nil
}

// lossyPass has Ghostscript rewrite the images, runs the lossless pass on its output with
// what Ghostscript dropped restored, and takes the result when it is checked and smaller.
// It returns why it did not, or "". Errors are those that say nothing about the document
// (the request ended, Ghostscript busy or gone): the caller retries rather than get a
// lossless result it did not ask for.
func lossyPass(ctx context.Context, d Distiller, src *pdf.Doc, data []byte, level Level, lv lossy, res *Result) (string, error) {
	part, conf := src.PDFA()
	if part > 0 && (part > 3 || !strings.EqualFold(conf, "B")) {
		// Ghostscript writes conformance B of parts 1 to 3 only: no structure tree for
		// level A, no guaranteed Unicode mapping for level U.
		return fmt.Sprintf("kept lossless: PDF/A-%s cannot be rewritten by Ghostscript without losing its conformance level", res.PDFA), nil
	}
	// Ghostscript reads the lossless result: the same pages, and for a signed input the
	// copy without signatures.
	distilled, err := d.Distill(ctx, res.PDF, ghostscript.DistillSettings{DPI: lv.dpi, Quality: lv.quality, PDFA: part, RGB: lv.rgb})
	if err != nil {
		if c := fault.CodeOf(err); c == fault.InvalidPDF || c == fault.Internal {
			return "kept lossless: Ghostscript could not rewrite the PDF: " + message(err), nil
		}
		return "", err
	}
	out, err := pdf.OptimizeWith(ctx, distilled, pdf.OptimizeOptions{AllowSigned: true, Original: data})
	if err != nil {
		if c := fault.CodeOf(err); c == fault.Canceled || c == fault.Timeout {
			return "", err
		}
		return "kept lossless: the rewritten PDF failed its checks: " + message(err), nil
	}
	if err := keptPDFA(src, out); err != nil {
		return "kept lossless: " + err.Error(), nil
	}
	if len(out) >= len(res.PDF) {
		return "kept lossless: the lossy rewrite was not smaller", nil
	}
	res.PDF, res.Level, res.DPI, res.Quality = out, level, lv.dpi, lv.quality
	return "", nil
}

// keptPDFA checks that out is still what src's PDF/A identification promises: the same
// part and conformance, the PDF/A OutputIntent, every font embedded.
func keptPDFA(src *pdf.Doc, out []byte) error {
	part, conf := src.PDFA()
	if part == 0 {
		return nil
	}
	d, err := pdf.Read(out)
	if err != nil {
		return fmt.Errorf("the result cannot be read: %w", err)
	}
	if p, c := d.PDFA(); p != part || !strings.EqualFold(c, conf) {
		return fmt.Errorf("the result lost its PDF/A-%d%s identification", part, conf)
	}
	if slices.Contains(src.OutputIntents(), "GTS_PDFA1") && !slices.Contains(d.OutputIntents(), "GTS_PDFA1") {
		return fmt.Errorf("the result lost its PDF/A OutputIntent")
	}
	if u := d.UnembeddedFonts(); len(u) > len(src.UnembeddedFonts()) {
		return fmt.Errorf("the result does not embed the fonts %s", strings.Join(u, ", "))
	}
	return nil
}

// message is err's message for a note, without its cause's technical detail.
func message(err error) string {
	if fe := fault.As(err); fe != nil {
		return fe.Message
	}
	return err.Error()
}
