package receipt

import (
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/engine/poppler"
	"github.com/papierkram/papierkram/internal/lazyre"
)

// The parties of an invoice by where they stand: an address is a stack of lines, aligned
// on their left or right edge, that ends in a post code line. A two-column letterhead has
// two such stacks side by side, which the text lines of -layout merge row by row.
var (
	// A post code line: "80333 München", "D-80333 München", "DE 80333 München", "75018 PARIS, FR",
	// "1010 Wien".
	postLineRE = lazyre.New(`^(?:[A-Z]{1,2}-|[A-Z]{2}\s+)?(\d{4,5})\s+(\pL[\pL .'()/-]*?)(?:\s*,\s*([A-Z]{2}|` + countryNames + `))?$`)
	// A British post code line: "GB SW1B 3BN London", "M1 1AA Manchester", or the city
	// first, "London EC1A 1BB".
	ukPostRE     = lazyre.New(`^(?:GB\s+)?(` + ukPostCode + `)\s+(\pL[\pL .'-]*)$`)
	ukPostLastRE = lazyre.New(`^(\pL[\pL .'-]*?)\s+(` + ukPostCode + `)$`)
	// An Irish Eircode ("D02 XA00 Dublin", OCR may read its 0 as O) and a Dutch post code
	// ("1012 AB Amsterdam").
	iePostRE = lazyre.New(`^(?:IE\s+)?([AC-FHKNPRTV-Y][\dO][\dOW]\s?[0-9AC-FHKNPRTV-Y]{4})\s+(\pL[\pL .'-]*)$`)
	nlPostRE = lazyre.New(`^(?:NL\s+|NL-)?(\d{4}\s?[A-Z]{2})\s+(\pL[\pL .'-]*)$`)
	// The city first, its post code after a comma, as English-language generators print
	// it: "Paris, 75001".
	cityPostRE = lazyre.New(`^(\pL[\pL .'-]*),\s*(\d{4,5})$`)
	// A street with its post code and city: "Lilienthalallee 26, 80786 München", "12 rue des
	// Lices, 49100 Angers".
	streetPostRE = lazyre.New(`^((?:\pL[^,]*\d|\d{1,4}[a-zA-Z]?\s+\pL)[^,]*),\s+(\d{4,5})\s+(\pL[\pL .'()/-]*?)(?:\s*,\s*([A-Z]{2}))?$`)
	// A whole address on one line, its parts parted by bullets, dashes or commas: the
	// sender's line over the recipient's window ("Bei Spiel GmbH ● Ecke 12 ● 12345 Stadthausen")
	// or a letterhead ("Au bon moulin SARL - 1242 chemin de l'olive - 84340 Malaucène - France").
	addrSepRE      = lazyre.New(`\s*(?:[●•·|–—]|\s-\s|,)\s*`)
	ocrBulletRE    = lazyre.New(`\s+[eo°*»«+]\s+`)
	inlinePostRE   = lazyre.New(`\b\d{4,5}\s+\pL`)
	sixDigitPostRE = lazyre.New(`^\s*\d{6}\s+\pL`)
	// Headings over a party's address, beyond those of the party blocks (parties.go).
	buyerHeadGeoRE    = lazyre.New(`(?i)^(?:` + buyerGeoWords + `)\s*:?$`)
	sellerHeadGeoRE   = lazyre.New(`(?i)^(?:absender|from|[ée]metteur|vendu\s+par|sold\s+by)\s*:?$`)
	deliveryHeadGeoRE = lazyre.New(`(?i)^(?:liefer(?:adresse|anschrift)|leistungs(?:adresse|anschrift|ort|empf(?:ä|a|ae)nger)|abweichende[rs]?\s+\pL+|(?:waren|lieferungs?)empf(?:ä|a|ae)nger|ship(?:ping)?\s+(?:to|address)|deliver(?:y)?\s+(?:to|address)|adresse\s+de\s+livraison|lieu\s+(?:de\s+)?livraison|livraison\b.*|livr[ée]\s+[àa])\s*:?$`)
	// Lines of an address that name no party: "z. Hd. Herr Mustermann", "Firma".
	attnRE = lazyre.New(`(?i)^(?:z\.?\s?hd\.?|zu\s+händen|attn\.?|c/o|herrn?|frau|firma|an)\b`)
)

// buyerGeoWords head a recipient's address block read by its place on the page (beyond
// buyerWords), or label the recipient's name on its line (buyerInlineRE).
const buyerGeoWords = `adresse\s+(?:du\s+client|de\s+facturation)|factur[ée]\s+[àa]|destinataire|rechnungs(?:adresse|anschrift)|empf(?:ä|a|ae)nger|rechnung\s+an|an|to|sold\s+to|billing\s+address`

const ukPostCode = `[A-Z]{1,2}\d[A-Z\d]?\s\d[A-Z]{2}`

// countryNames are the countries a post code line may end with after a comma, in the
// languages of our invoices; countryCodes their ISO 3166 codes.
const countryNames = `(?i:france|deutschland|germany|allemagne|österreich|austria|autriche|schweiz|switzerland|suisse|belgique|belgium|belgië|nederland|netherlands|pays-bas|luxembourg|italia|italy|italie|españa|spain|espagne)`

var countryCodes = map[string]string{
	"france": "FR", "deutschland": "DE", "germany": "DE", "allemagne": "DE", "österreich": "AT", "austria": "AT", "autriche": "AT",
	"schweiz": "CH", "switzerland": "CH", "suisse": "CH", "belgique": "BE", "belgium": "BE", "belgië": "BE",
	"nederland": "NL", "netherlands": "NL", "pays-bas": "NL", "luxembourg": "LU", "italia": "IT", "italy": "IT", "italie": "IT",
	"españa": "ES", "spain": "ES", "espagne": "ES",
}

// foreignPost reads a post code line of the countries whose codes are not four or five
// digits: the code, the city and the country.
func foreignPost(s string) (code, city, country string, ok bool) {
	if m := ukPostRE.FindStringSubmatch(s); m != nil {
		return m[1], m[2], "GB", true
	}
	if m := ukPostLastRE.FindStringSubmatch(s); m != nil {
		return m[2], m[1], "GB", true
	}
	if m := iePostRE.FindStringSubmatch(s); m != nil && strings.ContainsAny(m[1][1:], "0123456789") {
		return m[1], m[2], "IE", true
	}
	if m := nlPostRE.FindStringSubmatch(s); m != nil {
		return m[1], m[2], "NL", true
	}
	return "", "", "", false
}

// addrBlock is an address found by its lines' positions.
type addrBlock struct {
	page    int
	box     poppler.Box
	name    string
	lines   []string // the name lines: the name, a contact person, a trade name
	address einvoice.Address
	role    string // "seller", "buyer", "delivery" or "" (unknown)
	strong  bool   // the role comes from a heading or the sender's line above it
}

// geoParties are the parties the layout shows, and how sure the reading is of each.
type geoParties struct {
	seller, buyer             *addrBlock
	sellerName                string // from a one-line address (sender's line, letterhead)
	sellerStrong, buyerStrong bool
	lowerText                 string // the page's text, lower case: what a name recurs in
}

// stacks groups a page's segments into stacks: each segment joins the first segment under
// the stack's last one that overlaps it, when the two are aligned left or right and no more
// than 3 line heights apart (a blank line between a name and its street is common); a
// party's heading starts a stack of its own.
func stacks(segs []segment) [][]int {
	used := make([]bool, len(segs))
	var out [][]int
	for i := range segs {
		if used[i] {
			continue
		}
		used[i] = true
		st := []int{i}
		cur := i
		for len(st) < 12 {
			c := segs[cur]
			next, best := -1, math.Inf(1)
			for j := cur + 1; j < len(segs); j++ {
				t := segs[j]
				// Under c when it starts no higher than a third into c's bottom, or below
				// c's middle (a font's boxes taller than its line pitch overlap: belowOf).
				if !belowOf(c, t) || !overlapX(c.Box, t.Box) {
					continue
				}
				// The taller of the two lines measures the gap: OCR's boxes hug the glyphs,
				// so a line without descenders ("Bahnstr. 42") is short.
				lh := max(c.h(), t.h())
				if t.Y0-c.Y1 > 3*lh {
					if t.Y0-c.Y1 > 6*lh {
						break
					}
					continue
				}
				if t.Y0 < best {
					next, best = j, t.Y0
				}
			}
			if next < 0 || used[next] {
				break
			}
			t := segs[next]
			if math.Abs(t.X0-c.X0) > 4 && math.Abs(t.X1-c.X1) > 4 || partyHeading(t.text) != "" {
				break // not aligned, or the next party's heading
			}
			used[next] = true
			st = append(st, next)
			cur = next
		}
		out = append(out, st)
	}
	return out
}

// layoutParties finds the address blocks of the first page that has any and tells the
// seller's from the buyer's: by a heading over the block ("Rechnungsempfänger", "Adresse
// du Client", "Seller"), by the sender's one-line address over the recipient's window;
// else, of two blocks, the one on the left under the letterhead is the recipient's (the
// window of a DIN 5008 letter) when the other stands to its right.
func layoutParties(l *layout, text string) geoParties {
	lowerText := strings.ToLower(text)
	g := geoParties{lowerText: lowerText}
	for pi, segs := range l.pages {
		if pi > 1 {
			break
		}
		if len(segs) > maxStackSegments {
			continue
		}
		var blocks []*addrBlock
		for _, st := range stacks(segs) {
			if b := readAddrBlock(segs, st, lowerText); b != nil {
				b.page = pi
				blocks = append(blocks, b)
			}
		}
		if g.sellerName == "" {
			g.sellerName = letterheadName(segs, l.height[pi])
		}
		if len(blocks) == 0 {
			continue
		}
		var rest []*addrBlock
		for _, b := range blocks {
			switch {
			case b.role == "delivery":
			case b.role == "buyer" && g.buyer == nil:
				g.buyer, g.buyerStrong = b, true
			case b.role == "seller" && g.seller == nil:
				g.seller, g.sellerStrong = b, true
			default:
				rest = append(rest, b)
			}
		}
		// The sender's one-line address names the seller: its block, where the page has one.
		for _, b := range rest {
			if g.seller == nil && g.sellerName != "" && b.role == "" && sameName(b.name, g.sellerName) && b != g.buyer {
				g.seller, g.sellerStrong = b, true
			}
		}
		for _, b := range rest {
			if b.role != "" || b == g.seller || b == g.buyer {
				continue
			}
			if g.buyer != nil && g.seller == nil {
				g.seller = b
			} else if g.buyer == nil && (g.seller != nil || g.sellerName != "" && !sameName(b.name, g.sellerName)) {
				g.buyer = b
			}
		}
		if g.seller == nil && g.buyer == nil && g.sellerName == "" && len(rest) == 1 && inWindow(rest[0], l.width[pi], l.height[pi]) {
			// The one address of the page, where an envelope's window shows it: the
			// recipient's, the sender being a logo or a letterhead without a post code.
			g.buyer = rest[0]
		}
		if g.seller == nil && g.buyer == nil && g.sellerName == "" && len(rest) == 1 && rest[0].page == 0 && rest[0].box.Y1 < 0.2*l.height[pi] {
			// The one address of the page, above where an envelope's window is: the
			// letterhead's, the sender's (Odoo's, over a recipient printed without a post
			// code), unless it is the address just over the title, where Odoo prints the
			// customer's; the role is a guess.
			if ot := addressOverTitle(l, lowerText, nil, ""); ot == nil || !overlapX(ot.box, rest[0].box) || ot.box.Y1 < rest[0].box.Y0 || rest[0].box.Y1 < ot.box.Y0 {
				g.seller = rest[0]
			}
		}
		if g.seller == nil && g.buyer == nil && g.sellerName == "" && len(rest) >= 2 {
			a, b := rest[0], rest[1]
			if b.box.X0 < a.box.X0 {
				a, b = b, a
			}
			switch {
			case a.box.X1 < b.box.X0 && math.Abs(a.box.Y0-b.box.Y0) < 60 && a.box.Y0 > 0.1*l.height[pi]:
				// Side by side, the left one in the window of a letter.
				g.buyer, g.seller = a, b
			case a.box.X1 < b.box.X0 && math.Abs(a.box.Y0-b.box.Y0) >= 60:
				// One well over the other: the sender's at the top (a letterhead), the
				// recipient's lower, where the envelope's window is (on the left in a DIN
				// 5008 letter, on the right in a French one).
				if a.box.Y0 < b.box.Y0 {
					g.seller, g.buyer = a, b
				} else {
					g.seller, g.buyer = b, a
				}
			}
		}
		break
	}
	if g.buyer == nil {
		g.buyer = addressOverTitle(l, lowerText, g.seller, g.sellerName)
	}
	return g
}

// addressOverTitle is the recipient's address that no post code marks (a country's that
// has none, or an overseas one), where Odoo and the programs like it print it: a stack of
// two to eight lines (one on the right) just over the document's title with its number ("Invoice
// INV/2024/00001", "Factura …"), most often on the page's right: a stack on the right half
// comes before one on the left, then the one nearest the title. Its first line names the
// buyer; nil when the first page has no such title or no such stack, or the stack is the
// seller's: its block, its sender's line, or a name the page prints again (in its footer,
// its bank details, a mail address), as a seller's is and a buyer's seldom.
func addressOverTitle(l *layout, lowerText string, seller *addrBlock, sellerName string) *addrBlock {
	if len(l.pages) == 0 || len(l.pages[0]) > maxStackSegments {
		return nil
	}
	segs := l.pages[0]
	title := slices.IndexFunc(segs, func(s segment) bool { return numberInTitle(strings.TrimSpace(s.text)) != "" })
	if title < 0 {
		return nil
	}
	t := segs[title]
	var best []int
	bestRight := false
	for _, st := range stacks(segs) {
		// A title set in line with the address joins its stack: the address ends over it.
		if k := slices.IndexFunc(st, func(i int) bool { return segs[i].Y1 > t.Y0 }); k >= 0 {
			st = st[:k]
		}
		if len(st) == 0 {
			continue
		}
		last := segs[st[len(st)-1]]
		right := segs[st[0]].X0 > 0.4*l.width[0]
		// A name alone (a customer without an address) only on the right, close over the
		// title, where Odoo prints it.
		one := len(st) == 1 && right && t.Y0-last.Y1 <= 3*max(t.h(), last.h())
		if len(st) < 2 && !one || len(st) > 8 || last.Y1 > t.Y0 || t.Y0-last.Y1 > 6*max(t.h(), last.h()) || segs[st[0]].Y0 < 0.05*l.height[0] {
			continue
		}
		if name := strings.TrimSpace(segs[st[0]].text); len(nameKey(name)) >= 3 && strings.Count(nameKey(lowerText), nameKey(name)) >= 2 {
			continue
		}
		if best == nil || right && !bestRight || right == bestRight && last.Y1 > segs[best[len(best)-1]].Y1 {
			best, bestRight = st, right
		}
	}
	if best == nil {
		return nil
	}
	b := &addrBlock{box: segs[best[0]].Box}
	for _, i := range best {
		b.lines = append(b.lines, strings.TrimSpace(segs[i].text))
		s := segs[i].Box
		b.box = poppler.Box{X0: min(b.box.X0, s.X0), Y0: min(b.box.Y0, s.Y0), X1: max(b.box.X1, s.X1), Y1: max(b.box.Y1, s.Y1)}
	}
	b.name = b.lines[0]
	if badPartyName(b.name) || notName(b.name) || partyHeading(b.name) != "" || sellerName != "" && sameName(b.name, sellerName) ||
		seller != nil && (sameName(b.name, seller.name) || overlapX(seller.box, b.box) && seller.box.Y0 <= b.box.Y1 && b.box.Y0 <= seller.box.Y1) {
		return nil
	}
	return b
}

// inWindow: b stands where a window envelope shows the recipient's address: on the left,
// starting between a sixth and a third of the page down (DIN 5008 forms A and B, and the
// French and British windows of the same size); a letterhead stands higher.
func inWindow(b *addrBlock, width, height float64) bool {
	return width > 0 && height > 0 && b.box.X0 < 0.2*width && b.box.Y0 > 0.17*height && b.box.Y0 < 0.36*height
}

func sameName(a, b string) bool {
	ka, kb := nameKey(a), nameKey(b)
	return ka != "" && kb != "" && (strings.Contains(ka, kb) || strings.Contains(kb, ka))
}

func nameKey(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// readAddrBlock reads a stack as an address: its post code line, the street above it and
// the name lines above that; a heading as its first line or just over it says whose it is.
func readAddrBlock(segs []segment, st []int, lowerText string) *addrBlock {
	post, street := -1, ""
	var m []string
	for k, i := range st {
		if k == 0 {
			continue
		}
		if m = postLineRE.FindStringSubmatch(segs[i].text); m != nil {
			if code, ok := countryCodes[strings.ToLower(m[3])]; ok {
				m[3] = code // "75010 Paris, France"
			}
			post = k
			break
		}
		if code, city, country, ok := foreignPost(segs[i].text); ok {
			m = []string{segs[i].text, code, city, country}
			post = k
			break
		}
		if cm := cityPostRE.FindStringSubmatch(segs[i].text); cm != nil {
			m = []string{segs[i].text, cm[2], cm[1], ""} // "Paris, 75001"
			post = k
			break
		}
		if sm := streetPostRE.FindStringSubmatch(segs[i].text); sm != nil {
			post, street, m = k, sm[1], sm[1:]
			break
		}
	}
	if post < 0 {
		return nil
	}
	b := &addrBlock{}
	first := segs[st[0]]
	b.address = einvoice.Address{PostCode: m[1], City: strings.TrimSpace(m[2]), Country: m[3], Line1: street}
	// The street is the first line with a digit of the two over the post code line
	// ("Hofstraße 12" over "Benrath", "Pappelallee 15" over "Hof 3"); the name lines stand
	// above it.
	names := st[:post]
	for k := max(1, post-2); k < post && street == ""; k++ {
		if strings.ContainsAny(segs[st[k]].text, "0123456789") {
			b.address.Line1 = segs[st[k]].text
			if k+1 < post {
				b.address.Line2 = segs[st[k+1]].text
			}
			names = st[:k]
			break
		}
	}
	// A heading over the block: the first line, or the line just above.
	head := partyHeading
	if len(names) > 0 {
		if r := head(segs[names[0]].text); r != "" {
			b.role, b.strong, names = r, true, names[1:]
		}
	}
	if b.role == "" {
		if above := segmentAbove(segs, st[0], 3); above >= 0 {
			t := segs[above].text
			if r := head(t); r != "" {
				b.role, b.strong = r, true
			} else if oneLineAddress(t) && first.Y0-segs[above].Y1 < 60 {
				b.role, b.strong = "buyer", true // under the sender's line: the recipient
			}
		}
	}
	var cands []string
	top := -1
	for _, i := range names {
		t := strings.TrimSpace(segs[i].text)
		if oneLineAddress(t) && top < 0 {
			// The sender's line set close over the window, in line with it.
			if b.role == "" {
				b.role, b.strong = "buyer", true
			}
			continue
		}
		if notName(t) || labelOnRow(segs, i) {
			continue
		}
		if top < 0 {
			top = i
		}
		cands = append(cands, t)
	}
	if len(cands) == 0 {
		return nil
	}
	first = segs[top]
	b.name, b.lines = cands[0], cands
	for _, c := range cands {
		if legalRE.MatchString(c) {
			b.name = c
			break
		}
	}
	if !legalRE.MatchString(b.name) {
		// The party's name recurs on the page (the account holder, the footer); a second
		// line of the address (a contact person, a trade name) does not.
		for _, c := range cands {
			if strings.Count(lowerText, strings.ToLower(c)) >= 2 {
				b.name = c
				break
			}
		}
	}
	b.box = first.Box
	for _, i := range st[:post+1] {
		if segs[i].Y0 < first.Y0 {
			continue // the title, date and page number over the address
		}
		s := segs[i].Box
		b.box = poppler.Box{X0: min(b.box.X0, s.X0), Y0: min(b.box.Y0, s.Y0), X1: max(b.box.X1, s.X1), Y1: max(b.box.Y1, s.Y1)}
	}
	return b
}

// notName: a line over an address that names no party: "z. Hd. Herr Mustermann", "Firma",
// the document's title with its number, a date, the page number, a labelled field, a
// street ("58 rue de la mer").
func notName(t string) bool {
	return !hasLetters(t, 2) || attnRE.MatchString(t) && !legalRE.MatchString(t) || strings.Contains(t, "@") ||
		t[0] >= '0' && t[0] <= '9' || titleNumberRE.MatchString(t) || layoutDate(t) != "" || dateRE.MatchString(t) || pageRE.MatchString(t) ||
		strings.Contains(strings.TrimSuffix(t, ":"), ":")
}

var pageRE = lazyre.New(`(?i)^(?:page|seite|p\.)\s*\d`)

// labelOnRow: segs[i] is a label whose value stands right of it after a colon
// ("Nummer        : 12345676").
func labelOnRow(segs []segment, i int) bool {
	for j := max(0, i-8); j < min(len(segs), i+8); j++ {
		if t := segs[j]; j != i && t.X0 >= segs[i].X1 && sameRow(segs[i].Box, t.Box) && strings.HasPrefix(t.text, ":") {
			return true
		}
	}
	return false
}

// partyHeading is the role a heading names ("seller", "buyer", "delivery"), or "".
func partyHeading(s string) string {
	s = strings.TrimSpace(s)
	switch {
	case deliveryHeadGeoRE.MatchString(s):
		return "delivery"
	case buyerHeadRE.MatchString(s) || buyerHeadGeoRE.MatchString(s):
		return "buyer"
	case sellerHeadRE.MatchString(s) || sellerHeadGeoRE.MatchString(s):
		return "seller"
	}
	return ""
}

// belowOf: t stands on a line under c's: it starts no higher than a third of c's height
// above c's bottom, or lower than c's middle. The second holds where a font's boxes are
// taller than its line pitch (boxes 23 points high, lines 13 apart: a French invoice's
// sender block), so that each line's box reaches into the next one's.
func belowOf(c, t segment) bool {
	return t.Y0 >= c.Y1-0.3*c.h() || t.Y0 > c.Y0+c.h()/2
}

// segmentAbove is the nearest segment over segs[i] that overlaps its width, within
// lines line heights; -1 when there is none.
func segmentAbove(segs []segment, i, lines int) int {
	s := segs[i]
	best := -1
	for j := i - 1; j >= 0; j-- {
		t := segs[j]
		if !belowOf(t, s) || !overlapX(s.Box, t.Box) {
			continue
		}
		if s.Y0-t.Y1 > float64(lines)*s.h()+40 {
			break
		}
		if best < 0 || t.Y1 > segs[best].Y1 {
			best = j
		}
	}
	return best
}

// oneLineAddress: a name, a street and a post code with their city on one line.
func oneLineAddress(s string) bool {
	parts := addressParts(s, -1)
	if len(parts) < 3 || !hasLetters(parts[0], 3) || strings.ContainsAny(parts[0], "0123456789") {
		return false
	}
	if slices.ContainsFunc(parts[1:], streetRE.MatchString) && sixDigitPostRE.MatchString(parts[len(parts)-1]) {
		return true // "Muster GmbH · Musterstraße 17 · 654321 Musterort": a street, and a six-digit code (India's, Russia's, a sample's made-up one)
	}
	return inlinePostRE.MatchString(s) || slices.ContainsFunc(parts[1:], func(p string) bool {
		_, _, _, ok := foreignPost(strings.TrimSpace(p))
		return ok
	})
}

// addressParts splits a one-line address at its separators. OCR reads a small bullet as a
// lone "e", "o", "»" or "+" ("Bei Spiel GmbH e Ecke12 e 12345 Stadthausen"): those part it too when
// there are no other separators and at least two of them (one "e" may be a name's "and").
func addressParts(s string, n int) []string {
	s = strings.TrimSpace(s)
	parts := addrSepRE.Split(s, n)
	if len(parts) < 3 {
		if commas := periodsAsCommas(s); commas != s {
			if p := addrSepRE.Split(commas, n); len(p) >= 3 {
				return p
			}
		}
		if ocr := ocrBulletRE.Split(s, -1); len(ocr) >= 3 {
			if n > 0 && len(ocr) > n {
				ocr = append(ocr[:n-1], strings.Join(ocr[n-1:], " "))
			}
			return ocr
		}
	}
	return parts
}

// periodBeforePostRE is a period OCR read for the comma before a post code and its city
// ("…Heerstr. 50. 60488 Frankfurt").
var periodBeforePostRE = lazyre.New(`([\pL\d])\.\s+(\d{4,5}\s+\pL)`)

// periodsAsCommas is a one-line address with the periods OCR read for its commas made
// commas again: the one before the post code, and the one before the street's word
// ("Steuerberater Hartmut Ahting. Heerstr. 50. 60488 Frankfurt"); the abbreviation's
// period inside the street ("Heerstr. 50") stays.
func periodsAsCommas(s string) string {
	s = periodBeforePostRE.ReplaceAllString(s, "$1, $2")
	if at := streetRE.FindStringIndex(s); at != nil {
		word := strings.LastIndexByte(s[:at[0]], ' ') + 1
		if word >= 2 && s[word-2:word] == ". " {
			s = s[:word-2] + ", " + s[word:]
		}
	}
	return s
}

// letterheadName is the name of a one-line address in the page's top fifth or bottom
// fifth: the sender's, as letterheads and footers print it.
//
// OCR may part the line into segments at its bullets: a bullet's box is a few points
// high, so the gap beside it is wide for its height ("Bei Spiel GmbH", "e", "Ecke12",
// "e", "12345 Stadthausen"). The segments on the row that follow one another closely
// (bulletGap) are read as one line too.
func letterheadName(segs []segment, height float64) string {
	for i, s := range segs {
		if height > 0 && s.Y0 > 0.2*height && s.Y1 < 0.8*height {
			continue
		}
		line := s.text
		for j := i + 1; j < len(segs) && j < i+maxLineSegments; j++ {
			prev, t := segs[j-1], segs[j]
			if !sameRow(s.Box, t.Box) || t.X0-prev.X1 > bulletGap*max(s.h(), t.h()) {
				break
			}
			line += " " + t.text
		}
		for _, l := range []string{s.text, line} {
			if oneLineAddress(l) {
				return strings.TrimSpace(addressParts(l, 2)[0])
			}
		}
	}
	return ""
}

// bulletGap is the widest gap, in the taller one's height, between two segments of a
// sender's line that OCR parted at a bullet; maxLineSegments bounds the segments joined.
const bulletGap, maxLineSegments = 3.0, 12

// badPartyName: what the text lines gave as a name is none: empty, two columns' text run
// together, a web or mail address, an address line, a whole address on one line, a
// labelled field ("Tel : 0758282674"), a country's name alone (the last line of an address
// whose name is a logo).
func badPartyName(s string) bool {
	s = strings.TrimSpace(s)
	_, country := countryCodes[strings.ToLower(s)]
	return !hasLetters(s, 2) || country || oneLineAddress(s) || strings.Contains(s, ":") || partyHeading(s) != "" || strings.Contains(s, "   ") || webAddressRE.MatchString(s) || postRE.MatchString(s) || s[0] >= '0' && s[0] <= '9'
}

// apply puts the layout's parties over the text lines' reading: a party whose role
// the layout is sure of (a heading, the sender's line) always, another only where the text
// lines gave no usable name.
func (g geoParties) apply(inv *einvoice.Invoice) {
	// A text line that holds both blocks' names ran across the two (OCR's lines join side
	// by side blocks with a single space: "Adatum Corporation CRONUS DE"): it names neither.
	across := func(name string) bool {
		k := nameKey(name)
		return g.seller != nil && g.buyer != nil && g.seller.name != "" && g.buyer.name != "" &&
			strings.Contains(k, nameKey(g.seller.name)) && strings.Contains(k, nameKey(g.buyer.name))
	}
	// A name the page prints again (in its footer, its web address, its bank details) is a
	// party's; a contact person or a street without its number is printed once.
	recurs := func(name string) bool {
		k := nameKey(name)
		return len(k) >= 3 && strings.Count(nameKey(g.lowerText), k) >= 2
	}
	set := func(p *einvoice.Party, b *addrBlock, strong bool) {
		if b != nil && !strong && p.Name != b.name && slices.ContainsFunc(b.lines, func(l string) bool { return sameName(l, p.Name) }) && recurs(b.name) && !recurs(p.Name) {
			p.Name = b.name // the text lines took another line of the block
		}
		if b == nil || !strong && !badPartyName(p.Name) && !across(p.Name) {
			return
		}
		// A name the text lines took from the block's own lines stands (of a name printed
		// over two lines either may be the one that names the party), unless the block's
		// name has a legal form and it has none (a contact person under the company).
		own := slices.ContainsFunc(b.lines, func(l string) bool { return sameName(l, p.Name) })
		if badPartyName(p.Name) || !own || across(p.Name) || legalRE.MatchString(b.name) && !legalRE.MatchString(p.Name) {
			p.Name = b.name
		}
		if b.address.City != "" {
			country := p.Address.Country
			p.Address = b.address
			if p.Address.Country == "" {
				p.Address.Country = country
			}
		}
	}
	set(&inv.Seller, g.seller, g.sellerStrong)
	set(&inv.Buyer, g.buyer, g.buyerStrong)
	for _, p := range []*einvoice.Party{&inv.Seller, &inv.Buyer} {
		if _, country := countryCodes[strings.ToLower(strings.TrimSpace(p.Name))]; country {
			p.Name = "" // missing, rather than a country for a name
		}
	}
	if g.seller == nil && g.buyer != nil && g.sellerName == "" && sameName(firstCell(inv.Seller.Name), g.buyer.name) {
		// The text lines took the recipient's address, the only one printed, for the
		// sender's: the seller is missing, not the buyer.
		inv.Seller.Name, inv.Seller.Address = "", einvoice.Address{}
	}
	// The sender's one-line address names the seller where the text lines' seller is no
	// name or one of the buyer's lines (its contact person, its street: "Neben dem Bach
	// 12", a street whose word streetRE does not know).
	buyerLine := func(name string) bool {
		return g.buyer != nil && (slices.ContainsFunc(g.buyer.lines, func(l string) bool { return sameName(l, name) }) || g.buyer.address.Line1 != "" && sameName(g.buyer.address.Line1, name))
	}
	if g.seller == nil && g.sellerName != "" && (badPartyName(inv.Seller.Name) || !sameName(inv.Seller.Name, g.sellerName) && buyerLine(inv.Seller.Name)) {
		inv.Seller.Name = g.sellerName
	}
}

// firstCell is a text line's first cell (cells are parted by wide gaps).
func firstCell(s string) string {
	return cellSepRE.Split(strings.TrimSpace(s), 2)[0]
}
