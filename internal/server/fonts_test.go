package server

import (
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"

	"github.com/papierkram/papierkram/internal/testtool"
	"github.com/papierkram/papierkram/store"
)

// TestFonts: an uploaded font (the Go font, installed nowhere on the system) is listed with
// what its name table says and embedded in that key's HTML renders, not another key's.
func TestFonts(t *testing.T) {
	e := newTestEnv(t)
	reg := decode(t, e.uploadAs(testKey, "/api/fonts", [2]any{"@file", goregular.TTF}, [2]any{"name", "go-regular"}))
	if reg["family"] != "Go" || reg["weight"] != float64(400) || reg["italic"] != false || reg["format"] != "truetype" {
		t.Fatalf("upload: %v", reg)
	}
	if b := decode(t, e.uploadAs(testKey, "/api/fonts", [2]any{"@file", gobold.TTF}, [2]any{"name", "go-bold"})); b["weight"] != float64(700) {
		t.Errorf("bold: %v", b)
	}
	wantProblem(t, e.uploadAs(testKey, "/api/fonts", [2]any{"@file", goregular.TTF}, [2]any{"name", "go-regular"}), 409, "conflict")
	wantProblem(t, e.uploadAs(testKey, "/api/fonts", [2]any{"@file", []byte("not a font at all")}, [2]any{"name", "x"}), 400, "invalid_input")

	list := decode(t, e.do("GET", "/api/fonts", testKey, nil))
	if fonts := list["fonts"].([]any); len(fonts) != 2 || !strings.Contains(strings.Join(anyStrings(list["pool"]), ","), "Liberation Sans") || len(list["substitutions"].([]any)) < 5 {
		t.Errorf("list: %v", list)
	}
	page := `{"html":"<html><head></head><body><p style=\"font-family:'Go'\">Hallo <b>fett</b></p></body></html>"}`
	pdf := pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, page))
	fonts := testtool.Run(t, "pdffonts", testtool.File(t, "f.pdf", pdf))
	if !strings.Contains(fonts, "Go-Regular") && !strings.Contains(fonts, "+Go") {
		t.Errorf("the uploaded font is not in the PDF:\n%s", fonts)
	}
	if !strings.Contains(fonts, "Go-Bold") {
		t.Errorf("the bold face is not in the PDF:\n%s", fonts)
	}
	other := store.NewSecret()
	e.store.CreateKey(t.Context(), &store.Key{Hash: store.Hash(other), ID: store.IDOf(store.Hash(other)), Name: "other", Plan: store.PlanFree})
	otherPDF := pdfBody(t, e.do("POST", "/v1/convert/html-to-pdf", other, page))
	if f := testtool.Run(t, "pdffonts", testtool.File(t, "o.pdf", otherPDF)); strings.Contains(f, "Go-") {
		t.Errorf("another key's render used the font:\n%s", f)
	}
	if res := e.do("DELETE", "/api/fonts/go-bold", testKey, nil); res.StatusCode != 204 {
		t.Errorf("delete: %d", res.StatusCode)
	}
	wantProblem(t, e.do("DELETE", "/api/fonts/go-bold", testKey, nil), 404, "not_found")
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
