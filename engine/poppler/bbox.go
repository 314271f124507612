package poppler

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
)

// Box is a rectangle on a page in PDF points, origin top left (pdftotext's orientation):
// X0 < X1 left to right, Y0 < Y1 top to bottom.
type Box struct{ X0, Y0, X1, Y1 float64 }

// Word is one word as pdftotext places it.
type Word struct {
	Box
	Text string
}

// Line is a run of words on one baseline within a block.
type Line struct {
	Box
	Words []Word
}

// Block is a paragraph-like group of lines that poppler's layout analysis keeps together:
// one column of a two-column letterhead is a block of its own. Flow numbers the text flow
// (poppler's reading-order column) the block belongs to.
type Block struct {
	Box
	Flow  int
	Lines []Line
}

// LayoutPage is one page's word boxes.
type LayoutPage struct {
	Width, Height float64
	Blocks        []Block
}

// Limits of ParseBBox: a page of an invoice holds a few thousand words; anything beyond
// these is not a document worth reading word by word, and the parse stays bounded.
const (
	MaxLayoutPages = 100
	MaxLayoutWords = 100_000
	maxWordBytes   = 256
)

// Layout reads the word boxes of pages first..last (pdftotext -bbox-layout): words grouped
// into lines and blocks, with their positions. Extraction uses them where the text lines of
// -layout mix columns (a two-column letterhead) or put a value under its label.
func (p *Poppler) Layout(ctx context.Context, pdf []byte, first, last int) ([]LayoutPage, error) {
	var pages []LayoutPage
	err := p.sup.Run(ctx, func(ctx context.Context, w *engine.Worker) error {
		in, err := input(w, pdf)
		if err != nil {
			return err
		}
		args := []string{"-enc", "UTF-8", "-bbox-layout", "-f", strconv.Itoa(first), "-l", strconv.Itoa(last), in, "-"}
		out, _, err := w.Exec(ctx, engine.Command{Name: "pdftotext", Args: args})
		if err != nil {
			return mapErr(err)
		}
		pages, err = ParseBBox(bytes.NewReader(out))
		if err != nil {
			return fault.Wrap(fault.InvalidPDF, err, "the PDF's word boxes cannot be read")
		}
		return nil
	})
	return pages, err
}

// errLayoutLimit ends a parse that reached a limit; what was read until then is kept.
var errLayoutLimit = errors.New("layout limit reached")

// ParseBBox reads pdftotext's -bbox-layout XHTML (doc > page > flow > block > line > word).
// It reads at most MaxLayoutPages pages and MaxLayoutWords words and keeps what it read
// when the input ends early or breaks off; only input with no page at all is an error.
// Elements out of place (a word outside a line) are skipped.
func ParseBBox(r io.Reader) ([]LayoutPage, error) {
	d := xml.NewDecoder(r)
	d.Strict = false // pdftotext writes XHTML; a damaged file should still give its pages
	d.AutoClose = xml.HTMLAutoClose
	d.Entity = xml.HTMLEntity
	var (
		pages []LayoutPage
		page  *LayoutPage
		block *Block
		line  *Line
		word  *Word
		text  strings.Builder
		flow  = -1
		words int
	)
	err := func() error {
		for {
			tok, err := d.Token()
			if err != nil {
				if err == io.EOF {
					return nil
				}
				return err
			}
			switch t := tok.(type) {
			case xml.StartElement:
				switch t.Name.Local {
				case "page":
					if len(pages) == MaxLayoutPages {
						return errLayoutLimit
					}
					pages = append(pages, LayoutPage{Width: attrFloat(t, "width"), Height: attrFloat(t, "height")})
					page, block, line, word = &pages[len(pages)-1], nil, nil, nil
				case "flow":
					flow++
				case "block":
					if page != nil {
						page.Blocks = append(page.Blocks, Block{Box: attrBox(t), Flow: flow})
						block, line, word = &page.Blocks[len(page.Blocks)-1], nil, nil
					}
				case "line":
					if block != nil {
						block.Lines = append(block.Lines, Line{Box: attrBox(t)})
						line, word = &block.Lines[len(block.Lines)-1], nil
					}
				case "word":
					if line != nil {
						if words == MaxLayoutWords {
							return errLayoutLimit
						}
						words++
						line.Words = append(line.Words, Word{Box: attrBox(t)})
						word = &line.Words[len(line.Words)-1]
						text.Reset()
					}
				}
			case xml.CharData:
				if word != nil && text.Len() < maxWordBytes {
					text.Write(t[:min(len(t), maxWordBytes-text.Len())])
				}
			case xml.EndElement:
				switch t.Name.Local {
				case "word":
					if word != nil {
						word.Text = strings.TrimSpace(text.String())
						word = nil
					}
				case "line":
					line, word = nil, nil
				case "block":
					block, line, word = nil, nil, nil
				case "page":
					page, block, line, word = nil, nil, nil, nil
				}
			}
		}
	}()
	if err != nil && !errors.Is(err, errLayoutLimit) && len(pages) == 0 {
		return nil, err
	}
	for i := range pages {
		dropEmpty(&pages[i])
	}
	return pages, nil
}

// dropEmpty removes words without text and the lines and blocks left without words.
func dropEmpty(p *LayoutPage) {
	blocks := p.Blocks[:0]
	for _, b := range p.Blocks {
		lines := b.Lines[:0]
		for _, l := range b.Lines {
			ws := l.Words[:0]
			for _, w := range l.Words {
				if w.Text != "" {
					ws = append(ws, w)
				}
			}
			if l.Words = ws; len(ws) > 0 {
				lines = append(lines, l)
			}
		}
		if b.Lines = lines; len(lines) > 0 {
			blocks = append(blocks, b)
		}
	}
	p.Blocks = blocks
}

func attrBox(t xml.StartElement) Box {
	return Box{X0: attrFloat(t, "xMin"), Y0: attrFloat(t, "yMin"), X1: attrFloat(t, "xMax"), Y1: attrFloat(t, "yMax")}
}

// attrFloat is a coordinate attribute; a missing, malformed or absurd one is 0.
func attrFloat(t xml.StartElement, name string) float64 {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			f, err := strconv.ParseFloat(a.Value, 64)
			if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e6 {
				return 0
			}
			return f
		}
	}
	return 0
}
