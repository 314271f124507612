package document

import (
	"strings"
	"testing"
)

// TestWatermarkHTML: the default watermark is diagonal and faint; the text is escaped.
func TestWatermarkHTML(t *testing.T) {
	h := (&Watermark{Text: "<Entwurf>"}).html()
	for _, want := range []string{"rotate(-45.0deg)", "rgba(0,0,0,0.15)", "96.0pt", "&lt;Entwurf&gt;", "position:fixed"} {
		if !strings.Contains(h, want) {
			t.Errorf("watermark lacks %q: %s", want, h)
		}
	}
	flat := 0.0
	if h := (&Watermark{Text: "x", Angle: &flat, Opacity: 0.5}).html(); !strings.Contains(h, "rotate(0.0deg)") || !strings.Contains(h, "0.50)") {
		t.Errorf("explicit angle and opacity: %s", h)
	}
}
