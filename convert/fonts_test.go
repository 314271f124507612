package convert

import (
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/gobolditalic"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/papierkram/papierkram/fault"
)

func TestReadFont(t *testing.T) {
	f, err := ReadFont(gobolditalic.TTF)
	if err != nil || f.Family != "Go" || f.Weight != 700 || !f.Italic || f.Format != "truetype" {
		t.Fatalf("%+v %v", f, err)
	}
	if _, err := ReadFont([]byte("OTTOnope")); fault.CodeOf(err) != fault.InvalidInput {
		t.Errorf("broken font: %v", err)
	}
	html := withFonts("<!doctype html><html><head><title>x</title></head><body>a</body></html>", []FontFace{{Family: "Go", Weight: 400, Format: "truetype", Data: goregular.TTF}})
	if i, j := strings.Index(html, "@font-face{font-family:\"Go\";font-weight:400;font-style:normal"), strings.Index(html, "<head>"); i < j || j < 0 {
		t.Errorf("the face is not in the head: %.200s", html)
	}
	if got := withFonts("<p>x</p>", nil); got != "<p>x</p>" {
		t.Errorf("no fonts changed the page: %s", got)
	}
}

func FuzzReadFont(f *testing.F) {
	f.Add(goregular.TTF[:2000])
	f.Add([]byte("OTTO\x00\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := ReadFont(data); err != nil && fault.As(err) == nil {
			t.Fatalf("uncoded error: %v", err)
		}
	})
}
