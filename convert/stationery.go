package convert

import (
	"fmt"
	"strings"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/b64"
	"github.com/papierkram/papierkram/pdf"
)

// Stationery is letterhead laid under the content.
type Stationery struct {
	FirstPage       string `json:"firstPage,omitempty" doc:"The prefix base64: followed by a Base64 PDF whose first page lies under page 1." example:"base64:JVBERi0xLjcK..."`
	SubsequentPages string `json:"subsequentPages,omitempty" doc:"The same for pages 2 and on."`
}

// ContentArea is where the text flows on the page, in millimetres from the top-left corner.
type ContentArea struct {
	X      float64 `json:"x" minimum:"0" example:"25"`
	Y      float64 `json:"y" minimum:"0" example:"50"`
	Width  float64 `json:"width" exclusiveMinimum:"0" example:"165"`
	Height float64 `json:"height" exclusiveMinimum:"0" example:"210"`
}

func stationeryPDF(field, v string) ([]byte, error) {
	if v == "" {
		return nil, nil
	}
	data, ok := strings.CutPrefix(v, "base64:")
	if !ok {
		return nil, fault.New(fault.InvalidInput, "stationery.%s must start with base64:", field)
	}
	b, err := b64.Decode("stationery."+field, data)
	if err != nil {
		return nil, err
	}
	if _, err := pdf.Read(b); err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "stationery.%s is not a usable PDF: %s", field, fault.As(err).Message)
	}
	return b, nil
}

// apply lays the stationery under the pages being edited.
func (s *Stationery) apply(e *pdf.Editor) error {
	first, err := stationeryPDF("firstPage", s.FirstPage)
	if err != nil {
		return err
	}
	rest, err := stationeryPDF("subsequentPages", s.SubsequentPages)
	if err != nil {
		return err
	}
	return e.Underlay(first, rest)
}

// margins turns the content area into page margins for a page of w × h inches.
func (c *ContentArea) margins(w, h float64) (*Margins, error) {
	W, H := w*25.4, h*25.4
	right, bottom := W-c.X-c.Width, H-c.Y-c.Height
	if right < 0 || bottom < 0 {
		return nil, fault.New(fault.InvalidInput, "contentArea runs off the %.0f × %.0f mm page", W, H)
	}
	mm := func(v float64) string { return fmt.Sprintf("%.3fmm", v) }
	return &Margins{Top: mm(c.Y), Bottom: mm(bottom), Left: mm(c.X), Right: mm(right)}, nil
}
