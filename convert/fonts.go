package convert

import (
	"encoding/base64"
	"fmt"
	"strings"

	"golang.org/x/image/font/sfnt"

	"github.com/papierkram/papierkram/fault"
)

// FontFace is an uploaded font a key's HTML renders can use by its family name.
type FontFace struct {
	Family string
	Weight int  // CSS weight: 400 regular, 700 bold, ...
	Italic bool // italic or oblique
	Format string
	Data   []byte
}

// MaxFont bounds an uploaded font file.
const MaxFont = 20 << 20

// ReadFont parses a TrueType or OpenType font (a .ttf/.otf file, not a collection) and reads
// its family, weight and style from its name table. Anything else is fault.InvalidInput.
func ReadFont(data []byte) (f FontFace, err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fault.New(fault.InvalidInput, "the font cannot be read: %v", v)
		}
	}()
	if len(data) > MaxFont {
		return f, fault.New(fault.PayloadTooLarge, "a font is at most %d MB", MaxFont>>20)
	}
	font, err := sfnt.Parse(data)
	if err != nil {
		return f, fault.Wrap(fault.InvalidInput, err, "not a TrueType or OpenType font: %v", err)
	}
	name := func(id sfnt.NameID) string {
		s, err := font.Name(nil, id)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(s)
	}
	f.Family = name(sfnt.NameIDTypographicFamily)
	if f.Family == "" {
		f.Family = name(sfnt.NameIDFamily)
	}
	if f.Family == "" {
		return f, fault.New(fault.InvalidInput, "the font names no family")
	}
	style := strings.ToLower(name(sfnt.NameIDTypographicSubfamily) + " " + name(sfnt.NameIDSubfamily))
	f.Weight = 400
	for _, w := range []struct {
		word   string
		weight int
	}{{"thin", 100}, {"extralight", 200}, {"light", 300}, {"medium", 500}, {"semibold", 600}, {"extrabold", 800}, {"black", 900}, {"bold", 700}} {
		if strings.Contains(strings.ReplaceAll(style, " ", ""), w.word) {
			f.Weight = w.weight
			break
		}
	}
	f.Italic = strings.Contains(style, "italic") || strings.Contains(style, "oblique")
	f.Format = "truetype"
	if len(data) >= 4 && string(data[:4]) == "OTTO" {
		f.Format = "opentype"
	}
	f.Data = data
	return f, nil
}

// fontCSS declares the faces for the page.
func fontCSS(faces []FontFace) string {
	if len(faces) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("<style>")
	for _, f := range faces {
		style := "normal"
		if f.Italic {
			style = "italic"
		}
		mime := "font/ttf"
		if f.Format == "opentype" {
			mime = "font/otf"
		}
		fmt.Fprintf(&b, "@font-face{font-family:%q;font-weight:%d;font-style:%s;src:url(data:%s;base64,%s) format(%q)}",
			f.Family, f.Weight, style, mime, base64.StdEncoding.EncodeToString(f.Data), f.Format)
	}
	b.WriteString("</style>")
	return b.String()
}

// withFonts puts the font declarations into the page's head, or before everything else
// when it has none (after a doctype, so the page keeps its standards mode).
func withFonts(html string, faces []FontFace) string {
	css := fontCSS(faces)
	if css == "" {
		return html
	}
	lower := strings.ToLower(html)
	if i := strings.Index(lower, "<head"); i >= 0 {
		if j := strings.IndexByte(lower[i:], '>'); j >= 0 {
			at := i + j + 1
			return html[:at] + css + html[at:]
		}
	}
	if strings.HasPrefix(strings.TrimSpace(lower), "<!doctype") {
		if j := strings.IndexByte(html, '>'); j >= 0 {
			return html[:j+1] + css + html[j+1:]
		}
	}
	return css + html
}
