package receipt

import (
	"strings"
	"testing"

	"github.com/papierkram/papierkram/engine/poppler"
)

// tallPage is a page whose words' boxes are 23 points high on lines 13 to 17 points apart,
// with spaces of 2.5 points: a font whose boxes are twice its size.
func tallPage(lines ...[3]any) poppler.LayoutPage {
	p := poppler.LayoutPage{Width: 595, Height: 842}
	for _, l := range lines {
		x, y, text := l[0].(float64), l[1].(float64), l[2].(string)
		var ws []poppler.Word
		for _, w := range strings.Fields(text) {
			width := 5 * float64(len([]rune(w)))
			ws = append(ws, poppler.Word{Box: poppler.Box{X0: x, Y0: y, X1: x + width, Y1: y + 23}, Text: w})
			x += width + 2.5
		}
		p.Blocks = append(p.Blocks, poppler.Block{Lines: []poppler.Line{{Words: ws}}})
	}
	return p
}

// TestTallBoxes: on a page whose words' boxes reach into the next line, the sender's and
// the recipient's blocks under "Emetteur" and "Destinataire" are read line by line, and
// the spaces between their words stay spaces.
func TestTallBoxes(t *testing.T) {
	l := newLayout([]poppler.LayoutPage{tallPage(
		[3]any{50.0, 90.0, "Emetteur"}, [3]any{313.0, 90.0, "Destinataire"},
		[3]any{50.0, 109.0, "Dr. Martin Dupont, EI"}, [3]any{313.0, 109.0, "Jean Martin"},
		[3]any{50.0, 126.0, "123 Rue de la Santé"}, [3]any{313.0, 126.0, "45 Avenue des Lilas"},
		[3]any{50.0, 139.0, "75013 Paris"}, [3]any{313.0, 139.0, "69003 Lyon"},
		[3]any{50.0, 152.0, "SIRET: 12345678900006"},
	)})
	text := l.mendSplitWords("Emetteur Destinataire\nDr. Martin Dupont, EI Jean Martin\n")
	if !strings.Contains(text, "Martin Dupont") || !strings.Contains(text, "Jean Martin") {
		t.Errorf("spaces mended away: %q", text)
	}
	g := layoutParties(l, text)
	if g.seller == nil || g.seller.name != "Dr. Martin Dupont, EI" || g.seller.address.PostCode != "75013" {
		t.Errorf("seller %+v", g.seller)
	}
	if g.buyer == nil || g.buyer.name != "Jean Martin" || g.buyer.address.City != "Lyon" {
		t.Errorf("buyer %+v", g.buyer)
	}
}
