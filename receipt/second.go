package receipt

import (
	"image"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/papierkram/papierkram/engine/tesseract"
	"github.com/papierkram/papierkram/internal/lazyre"
)

// scanRead is what the OCR of a scan leaves for a second reading: the image Tesseract read
// (prepared, turned when it was) and its words on it.
type scanRead struct {
	gray *image.Gray
	page *tesseract.Page
	// paper: gray is a paper cut out of a larger image (findPaper), its width the receipt's.
	paper bool
}

// textRow is one of Tesseract's text lines and where it stands in the image.
type textRow struct {
	text                     string
	top, bottom, left, right int
}

// rows groups the words by their text line, in reading order.
func (s *scanRead) rows() []textRow {
	var out []textRow
	for _, b := range s.page.Boxes {
		if b.Line < 0 {
			continue
		}
		for len(out) <= b.Line {
			out = append(out, textRow{top: -1})
		}
		r := &out[b.Line]
		if r.top < 0 {
			r.text, r.top, r.bottom, r.left, r.right = b.Text, b.Top, b.Top+b.Height, b.Left, b.Left+b.Width
			continue
		}
		r.text += " " + b.Text
		r.top, r.bottom = min(r.top, b.Top), max(r.bottom, b.Top+b.Height)
		r.left, r.right = min(r.left, b.Left), max(r.right, b.Left+b.Width)
	}
	return slices.DeleteFunc(out, func(r textRow) bool { return r.top < 0 })
}

// lines is what Tesseract's words say of its text lines, keyed by their text: how sure it
// was of each, and the line without the noise at its ends. Nil without word boxes.
func (s *scanRead) lines() ocrLines {
	if s == nil || s.page == nil {
		return nil
	}
	byLine := map[int][]tesseract.WordBox{}
	var order []int
	for _, b := range s.page.Boxes {
		if b.Line < 0 {
			continue
		}
		if _, ok := byLine[b.Line]; !ok {
			order = append(order, b.Line)
		}
		byLine[b.Line] = append(byLine[b.Line], b)
	}
	out := ocrLines{}
	for _, n := range order {
		ws := byLine[n]
		text := make([]string, len(ws))
		for i, w := range ws {
			text[i] = w.Text
		}
		from, to := 0, len(ws)
		for from < to && edgeNoise(ws[from]) {
			from++
		}
		for to > from && edgeNoise(ws[to-1]) {
			to--
		}
		// How sure Tesseract was of the line: its words' confidences weighed by their
		// letters and digits. The bars and marks an edge leaves read at 80 and above and
		// would lift a logo's noise over doubtfulLine; a name's long words weigh more than
		// the short ones beside them ("Hexenalm" at 91 beside "u" at 32, where a logo's
		// "Biedre" at 49 stands among "ee", "Dr", "Be" at 19–37).
		sum, n := 0.0, 0
		for _, w := range ws {
			c := 0
			for _, r := range w.Text {
				if unicode.IsLetter(r) || unicode.IsDigit(r) {
					c++
				}
			}
			sum, n = sum+w.Confidence*float64(c), n+c
		}
		conf := 0.0
		if n > 0 {
			conf = sum / float64(n)
		}
		out[strings.Join(text, " ")] = ocrLine{conf: conf, clean: strings.Join(text[from:to], " ")}
	}
	return out
}

// ocrLines: Tesseract's text lines by their text (see scanRead.lines).
type ocrLines map[string]ocrLine

type ocrLine struct {
	conf  float64 // the mean of its words' confidences, 0–100
	clean string  // the line without edgeNoise
}

// doubtful: Tesseract read the line with a mean word confidence under doubtfulLine: what
// it makes of a logo, a stamp or a crease ("aa EEE", "ar Pere") reads like a name to the
// rules but not to Tesseract.
func (o ocrLines) doubtful(l string) bool {
	x, ok := o[strings.TrimSpace(l)]
	return ok && x.conf < doubtfulLine
}

// clean is the line without the noise at its ends ("i a Rio Getränkemarkt AG Me" is "Rio
// Getränkemarkt AG"); a line the words do not know is only trimmed.
func (o ocrLines) clean(l string) string {
	l = strings.TrimSpace(l)
	if x, ok := o[l]; ok && x.clean != "" {
		return x.clean
	}
	return l
}

// edgeNoise: a word at a line's end that a photo's border, the paper's edge or a crease
// leaves: no letter or digit ("|", "\\", "‘"), a lone letter, or two characters Tesseract was
// unsure of ("Hf", "Ki", "Me" beside a shop's name read at 28–46; "AG" reads at 97).
func edgeNoise(w tesseract.WordBox) bool {
	n, alnum, letters := 0, 0, 0
	for _, r := range w.Text {
		n++
		if unicode.IsLetter(r) {
			letters++
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			alnum++
		}
	}
	return alnum == 0 || n == 1 && letters == 1 || n <= 2 && w.Confidence < edgeNoiseConf
}

// edgeNoiseConf: on the receipts photographed in Switzerland and Austria (rc5, tuning),
// the short words a photo's edge left beside a name read at 9–54, the legal forms beside
// them at 92 and above.
const edgeNoiseConf = 60

// doubtfulLine: on the SROIE tuning receipts, the lines a logo left read at 6–48, the
// shops' names at 57 and above (bench/receiptcheck).
const doubtfulLine = 50

// Bounds of the partial second reading.
const (
	// maxPartShare: when the rows a second reading needs cover more of the text's height,
	// the engine reads it all (stacking bands saves little then).
	maxPartShare = 0.6
	// headerRows bounds the rows above the first amount that are read for the issuer.
	headerRows = 8
	// vatTableRows are the rows under a VAT table's header that belong to it (as
	// vatBreakdown reads them).
	vatTableRows = 6
)

// secondImage is the image the second engine reads: only the rows of Tesseract's text that
// can settle what it left open, stacked, when Tesseract's words say where they stand. The
// rows that vote for the total or belong to the VAT table when the figures are unconfirmed
// (with a decimal figure, or the figure under them), the rows with a date or a time and their
// neighbours when the date is missing or implausible on the day now, the header when no
// known brand names the issuer.
// PaddleOCR's time grows with the lines it recognises (one model run each) and the pixels
// it searches for them, and a supermarket receipt is mostly item lines: on the flatbed
// receipts its reading took more time than Tesseract's whole run (#20: one receipt within
// 1.5 × a bare tesseract run). When no row names what is open, the engine reads the whole
// text area (the paper, not a flatbed page's empty background). full is the image
// Tesseract read, answered when no smaller image can be made. issuerOnly asks for the
// header alone (figures and date settled): nil when there is none to cut out or it is most
// of the text.
func secondImage(full []byte, s *scanRead, r *Result, now time.Time, issuerOnly bool) []byte {
	if s == nil || s.gray == nil || s.page == nil {
		return orNone(full, issuerOnly)
	}
	rows := s.rows()
	if len(rows) == 0 {
		return orNone(full, issuerOnly)
	}
	area := textArea(rows, s.gray.Rect)
	if s.paper {
		// The paper cut out is the receipt's width: its text may reach an edge where
		// Tesseract read no word (a crumpled receipt's column of figures, whose labels
		// alone Tesseract read), and the text area of Tesseract's words would leave it
		// out. The text area keeps out a page's empty background where no paper was found.
		area.Min.X, area.Max.X = s.gray.Rect.Min.X, s.gray.Rect.Max.X
	}
	want := make([]bool, len(rows))
	mark := func(i, spread int) {
		for j := max(0, i-spread); j <= min(len(rows)-1, i+spread); j++ {
			want[j] = true
		}
	}
	needFigures, needDate, needIssuer := !confirmed(r), !datePlausible(r.Data.Date, r.VAT, r.Country, now), r.Confidence.Issuer < brandIssuer
	if issuerOnly {
		needFigures, needDate = false, false
	}
	foundFigures, foundDate := false, false
	header := -vatTableRows - 1
	firstAmount := -1
	digits := func(i int) bool { return i < len(rows) && strings.ContainsAny(rows[i].text, "0123456789") }
	amount := func(i int) bool { return i < len(rows) && figureRE.MatchString(rows[i].text) }
	for i, row := range rows {
		low := strings.ToLower(row.text)
		if firstAmount < 0 && len(amounts(row.text)) > 0 {
			firstAmount = i
		}
		if needFigures {
			// A figure's row counts when it shows a decimal figure (an amount, or one
			// Tesseract misread: "19,416"), or its next row does (the amount under its
			// label); the VAT table's rows follow its header while they show digits. Rows
			// without one (a card slip's "Debit MasterCard" and terminal number, the VAT
			// number's line) settle no figure.
			switch {
			case vatHeaderTaxRE.MatchString(low) && vatHeaderColsRE.MatchString(low):
				header = i
				want[i] = true
			case i-header <= vatTableRows:
				if !digits(i) {
					header = -vatTableRows - 1 // the table ended
					break
				}
				want[i] = true
				foundFigures = true
			case figureRow(low) && amount(i):
				want[i] = true
				foundFigures = true
			case figureRow(low) && amount(i+1):
				want[i], want[i+1] = true, true
				foundFigures = true
			}
		}
		if needDate && (dateRE.MatchString(row.text) || isoDateRE.MatchString(row.text) || timeRE.MatchString(low)) {
			mark(i, 1)
			foundDate = true
		}
	}
	// Without a total Tesseract may have lost its row altogether (REWE's "SUMME EUR 7,42"
	// between two dashed rules): the rows it read cannot say where it stands.
	if needFigures && (!foundFigures || !r.Data.Gross.Valid()) || needDate && !foundDate {
		return cropPNG(full, s.gray, []image.Rectangle{area})
	}
	if needIssuer {
		end := firstAmount
		if end < 0 {
			end = len(rows)
		}
		for i := range min(end, headerRows) {
			want[i] = true
		}
	}
	var bands []image.Rectangle
	height := 0
	for i, row := range rows {
		if !want[i] {
			continue
		}
		pad := max(4, (row.bottom-row.top)/2)
		b := image.Rect(area.Min.X, row.top-pad, area.Max.X, row.bottom+pad).Intersect(area)
		if n := len(bands); n > 0 && b.Min.Y <= bands[n-1].Max.Y {
			height -= bands[n-1].Dy()
			bands[n-1] = bands[n-1].Union(b)
			height += bands[n-1].Dy()
			continue
		}
		bands = append(bands, b)
		height += b.Dy()
	}
	if issuerOnly && (len(bands) == 0 || float64(height) > maxPartShare*float64(area.Dy())) {
		return nil // the header is most of the text (or none): not worth a reading for a name
	}
	if float64(height) > maxPartShare*float64(area.Dy()) {
		bands = []image.Rectangle{area}
	}
	return cropPNG(full, s.gray, bands)
}

// orNone is the whole image for a reading of the figures, none for one of the header only:
// without Tesseract's words no header can be cut out.
func orNone(full []byte, issuerOnly bool) []byte {
	if issuerOnly {
		return nil
	}
	return full
}

// figureRE is a decimal figure, as OCR may have misread an amount.
var figureRE = lazyre.New(`\d\s?[,.]\s?\d`)

// figureRow: a text line that votes for the total (parser.total) or belongs to the VAT
// breakdown (parser.vatBreakdown).
func figureRow(low string) bool {
	if cardRE.MatchString(low) || cashRE.MatchString(low) || changeRE.MatchString(low) || taxRE.MatchString(low) ||
		rateRE.MatchString(low) || tableSumRE.MatchString(low) || netWordRE.MatchString(low) || strings.HasPrefix(low, "eur") {
		return true
	}
	for _, w := range totalWords {
		if w.re.MatchString(low) {
			return true
		}
	}
	return false
}

// textArea is the box around the rows' words, a little wider, within bounds: on a page
// whose paper was not found (a light lid) it leaves out the empty background.
func textArea(rows []textRow, bounds image.Rectangle) image.Rectangle {
	var box image.Rectangle
	hs := make([]int, 0, len(rows))
	for i, r := range rows {
		b := image.Rect(r.left, r.top, r.right, r.bottom)
		if i == 0 {
			box = b
		} else {
			box = box.Union(b)
		}
		hs = append(hs, r.bottom-r.top)
	}
	slices.Sort(hs)
	m := 2 * hs[len(hs)/2]
	return box.Inset(-m).Intersect(bounds)
}

// cropPNG stacks the bands of g, one line's height of white between them, as the PNG the
// second engine reads; full when the bands are all of g or nothing is left.
func cropPNG(full []byte, g *image.Gray, bands []image.Rectangle) []byte {
	if len(bands) == 0 || len(bands) == 1 && bands[0] == g.Rect {
		return full
	}
	const gap = 24
	w, h := 0, gap*(len(bands)-1)
	for _, b := range bands {
		w, h = max(w, b.Dx()), h+b.Dy()
	}
	if w == 0 || h == 0 {
		return full
	}
	out := image.NewGray(image.Rect(0, 0, w, h))
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	y := 0
	for _, b := range bands {
		for row := b.Min.Y; row < b.Max.Y; row++ {
			o := g.PixOffset(b.Min.X, row)
			copy(out.Pix[y*out.Stride:y*out.Stride+b.Dx()], g.Pix[o:o+b.Dx()])
			y++
		}
		y += gap
	}
	png, err := encodePNG(out)
	if err != nil {
		return full
	}
	return png
}
