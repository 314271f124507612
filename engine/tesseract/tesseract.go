package tesseract

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
)

// Tesseract runs the tesseract program.
type Tesseract struct{ sup *engine.Supervisor }

// New returns a Tesseract whose jobs run under a supervisor built from cfg (Name and Binary
// are set here).
func New(cfg engine.Config) *Tesseract {
	cfg.Name, cfg.Binary = "tesseract", "tesseract"
	return &Tesseract{sup: engine.New(cfg)}
}

// Supervisor is the engine behind t, for readiness, metrics and shutdown.
func (t *Tesseract) Supervisor() *engine.Supervisor { return t.sup }

// Name is the engine's name.
func (t *Tesseract) Name() string { return t.sup.Name() }

// Ready reports whether the engine can take work.
func (t *Tesseract) Ready(ctx context.Context) error { return t.sup.Ready(ctx) }

// Stop refuses new jobs, waits for running ones as long as ctx allows, and stops the processes.
func (t *Tesseract) Stop(ctx context.Context) error { return t.sup.Stop(ctx) }

var _ engine.Engine = (*Tesseract)(nil)

// Options shape a recognition.
type Options struct {
	Languages string // Tesseract language codes joined by +; default "deu+eng"
	// PSM is Tesseract's page segmentation mode; default 6, one uniform block of text: on
	// the scanned receipt corpus it reads more totals and dates right than 4 (one column)
	// or 3 (automatic).
	PSM int
}

// Page is the text read from one image.
type Page struct {
	Text       string
	Confidence float64 // mean word confidence, 0–100
	Words      int
	// Boxes are the words with their places in the image (pixels, origin top left), from
	// Tesseract's TSV: a reader of the page's layout pairs labels with values by them.
	Boxes []WordBox
}

// WordBox is one recognised word and its box in pixels.
type WordBox struct {
	Left, Top, Width, Height int
	Text                     string
	Confidence               float64
	// Line numbers the text lines of the page from 0 in reading order (Tesseract's block,
	// paragraph and line): the words of one line of Text share it, so a reader can find
	// where a line of the text stands in the image.
	Line int
}

// MaxBoxes bounds the word boxes kept of a page: a page of text holds a few thousand words.
const MaxBoxes = 20_000

// singleThread keeps each process to one core; parallelism is the supervisor's business.
var singleThread = []string{"OMP_THREAD_LIMIT=1"}

// Read recognises the text of an image (PNG, JPEG or TIFF bytes).
func (t *Tesseract) Read(ctx context.Context, img []byte, o Options) (*Page, error) {
	if o.Languages == "" {
		o.Languages = "deu+eng"
	}
	if o.PSM == 0 {
		o.PSM = 6
	}
	var page *Page
	err := t.sup.Run(ctx, func(ctx context.Context, w *engine.Worker) error {
		in := filepath.Join(w.TempDir(), "in.img")
		if err := os.WriteFile(in, img, 0o600); err != nil {
			return err
		}
		base := filepath.Join(w.TempDir(), "out")
		args := []string{in, base, "-l", o.Languages, "--psm", strconv.Itoa(o.PSM), "txt", "tsv"}
		if _, _, err := w.Exec(ctx, engine.Command{Name: "tesseract", Args: args, Env: singleThread}); err != nil {
			return mapErr(err)
		}
		text, err := os.ReadFile(base + ".txt")
		if err != nil {
			return err
		}
		tsv, err := os.ReadFile(base + ".tsv")
		if err != nil {
			return err
		}
		page = &Page{Text: string(text)}
		page.Confidence, page.Words, page.Boxes = parseTSV(tsv)
		return nil
	})
	return page, err
}

// parseTSV reads Tesseract's TSV output: the mean confidence of its words (level 5 rows),
// their number, and the first MaxBoxes of them with their boxes. Malformed rows are
// skipped.
func parseTSV(tsv []byte) (mean float64, words int, boxes []WordBox) {
	var sum float64
	line, lastKey := -1, ""
	sc := bufio.NewScanner(bytes.NewReader(tsv))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 12 || f[0] != "5" || strings.TrimSpace(f[11]) == "" {
			continue
		}
		c, err := strconv.ParseFloat(f[10], 64)
		if err != nil || c < 0 || math.IsNaN(c) || c > 100 {
			continue
		}
		sum += c
		words++
		if key := f[1] + "/" + f[2] + "/" + f[3] + "/" + f[4]; key != lastKey {
			line, lastKey = line+1, key
		}
		if len(boxes) == MaxBoxes {
			continue
		}
		var n [4]int
		ok := true
		for i := range n {
			v, err := strconv.Atoi(f[6+i])
			if err != nil || v < 0 || v > 1_000_000 {
				ok = false
				break
			}
			n[i] = v
		}
		if ok && n[2] > 0 && n[3] > 0 {
			boxes = append(boxes, WordBox{Left: n[0], Top: n[1], Width: n[2], Height: n[3], Text: strings.TrimSpace(f[11]), Confidence: c, Line: line})
		}
	}
	if words == 0 {
		return 0, 0, boxes
	}
	return sum / float64(words), words, boxes
}

// Orientation asks Tesseract's orientation detection how far an image must be turned
// clockwise (0, 90, 180 or 270) to be upright, and how sure it is. An image with too little
// text to tell answers 0.
func (t *Tesseract) Orientation(ctx context.Context, img []byte) (rotate int, confidence float64, err error) {
	err = t.sup.Run(ctx, func(ctx context.Context, w *engine.Worker) error {
		in := filepath.Join(w.TempDir(), "in.img")
		if err := os.WriteFile(in, img, 0o600); err != nil {
			return err
		}
		out, _, err := w.Exec(ctx, engine.Command{Name: "tesseract", Args: []string{in, "-", "--psm", "0"}, Env: singleThread})
		if err != nil {
			var ee *engine.ExitError
			if errors.As(err, &ee) && strings.Contains(ee.Stderr, "Too few characters") {
				return nil
			}
			return mapErr(err)
		}
		rotate, confidence = parseOSD(string(out))
		return nil
	})
	return rotate, confidence, err
}

func parseOSD(s string) (rotate int, confidence float64) {
	for line := range strings.SplitSeq(s, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		switch strings.TrimSpace(k) {
		case "Rotate":
			rotate, _ = strconv.Atoi(v)
		case "Orientation confidence":
			confidence, _ = strconv.ParseFloat(v, 64)
		}
	}
	return rotate, confidence
}

// mapErr names Tesseract's failures: an image it cannot read is the input's fault.
func mapErr(err error) error {
	var ee *engine.ExitError
	if !errors.As(err, &ee) {
		return err
	}
	msg := strings.TrimSpace(ee.Stderr)
	if strings.Contains(msg, "Error in pixRead") || strings.Contains(msg, "Unsupported image type") || strings.Contains(msg, "Image file") {
		line, _, _ := strings.Cut(msg, "\n")
		return fault.Wrap(fault.InvalidInput, err, "the image cannot be read: %s", line)
	}
	return err
}

// Layer is the text of one image as an invisible PDF layer.
type Layer struct {
	// PDF has one page the size of the image at the resolution given and no image: the
	// words in text render mode 3 (invisible), in Tesseract's GlyphLessFont, each over its
	// place on the image.
	PDF        []byte
	Words      int
	Confidence float64 // mean word confidence, 0–100
}

// TextLayer reads an image scanned at dpi (PNG, JPEG, TIFF or PNM bytes) in languages
// (Tesseract codes joined by +, such as "deu+eng") and returns its words as a text-only PDF
// page, the layer that makes a scan searchable. A language that is not installed is the
// caller's fault, even beside one that is: Tesseract would read on without it.
func (t *Tesseract) TextLayer(ctx context.Context, img []byte, dpi int, languages string) (*Layer, error) {
	if dpi < 10 || dpi > 2400 {
		return nil, fault.New(fault.InvalidInput, "the resolution must be 10 to 2400 dpi, not %d", dpi)
	}
	// The codes become one argument of tesseract and name files in its data directory.
	for code := range strings.SplitSeq(languages, "+") {
		if code == "" || len(code) > 32 || strings.Trim(code, "abcdefghijklmnopqrstuvwxyz_") != "" {
			return nil, fault.New(fault.InvalidInput, "languages must be Tesseract codes joined by +, such as deu+eng, not %q", languages)
		}
	}
	var layer *Layer
	err := t.sup.Run(ctx, func(ctx context.Context, w *engine.Worker) error {
		in := filepath.Join(w.TempDir(), "in.img")
		if err := os.WriteFile(in, img, 0o600); err != nil {
			return err
		}
		base := filepath.Join(w.TempDir(), "out")
		// textonly_pdf leaves the image out: the caller lays the text over a page that has it.
		args := []string{in, base, "-l", languages, "--dpi", strconv.Itoa(dpi), "-c", "textonly_pdf=1", "pdf", "tsv"}
		_, stderr, err := w.Exec(ctx, engine.Command{Name: "tesseract", Args: args, Env: singleThread})
		if _, after, ok := strings.Cut(string(stderr), "Failed loading language '"); ok {
			name, _, _ := strings.Cut(after, "'")
			return fault.New(fault.InvalidInput, "the OCR language %q is not installed", name)
		}
		if err != nil {
			return mapErr(err)
		}
		pdf, err := os.ReadFile(base + ".pdf")
		if err != nil {
			return err
		}
		tsv, err := os.ReadFile(base + ".tsv")
		if err != nil {
			return err
		}
		layer = &Layer{PDF: pdf}
		layer.Confidence, layer.Words, _ = parseTSV(tsv)
		return nil
	})
	return layer, err
}
