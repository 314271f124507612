package tmpl

import (
	"strings"
	"testing"
)

// TestBarcode: an SVG of bars with the value as its label; bad symbologies and contents fail.
func TestBarcode(t *testing.T) {
	svg, err := RenderHTML(`{{barcode n}}`, map[string]any{"n": "A-1 <x>"}, "")
	if err != nil || !strings.HasPrefix(svg, `<svg class="barcode"`) || !strings.Contains(svg, `aria-label="A-1 &lt;x&gt;"`) || strings.Count(svg, "<rect") < 10 {
		t.Errorf("%.200s %v", svg, err)
	}
	for tpl, want := range map[string]string{`{{barcode n "qr"}}`: "not code128", `{{barcode n "code128" 5}}`: "10 to 1000", `{{barcode n "ean13"}}`: "barcode of n"} {
		if _, err := RenderHTML(tpl, map[string]any{"n": "abc"}, ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", tpl, err)
		}
	}
}
