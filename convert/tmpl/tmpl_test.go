package tmpl

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/fault"
)

func TestScope(t *testing.T) {
	var data map[string]any
	json.Unmarshal([]byte(`{"customer":{"name":"Erika"},"items":[{"name":"A","qty":2},{"name":"B"}],"tags":["x","y"],"vip":true,"empty":[],"zero":0}`), &data)
	s := New(data)
	if v, _ := s.Lookup("customer.name"); v != "Erika" {
		t.Errorf("dotted name: %v", v)
	}
	items := s.Expand("#", "items")
	if len(items) != 2 {
		t.Fatalf("%d item scopes", len(items))
	}
	if v, _ := items[0].Lookup("name"); v != "A" {
		t.Errorf("item name %v", v)
	}
	if v, ok := items[1].Lookup("qty"); ok {
		t.Errorf("B has no qty, got %v", v)
	}
	if v, _ := items[1].Lookup("customer.name"); v != "Erika" {
		t.Errorf("outer scope from an item: %v", v)
	}
	if tags := s.Expand("#", "tags"); len(tags) != 2 || Format(must(tags[1].Lookup("this"))) != "y" {
		t.Errorf("plain list items")
	}
	for name, want := range map[string]int{"vip": 1, "empty": 0, "zero": 0, "missing": 0, "customer": 1} {
		if got := len(s.Expand("#", name)); got != want {
			t.Errorf("#%s: %d scopes, want %d", name, got, want)
		}
		if got := len(s.Expand("^", name)); got != 1-want {
			t.Errorf("^%s: %d scopes, want %d", name, got, 1-want)
		}
	}
	for v, want := range map[any]string{2.5: "2.5", 1e21: "1000000000000000000000", true: "true", "s": "s", nil: ""} {
		if got := Format(v); got != want {
			t.Errorf("Format(%v) = %q", v, got)
		}
	}
}

func must(v any, _ bool) any { return v }

func TestDetect(t *testing.T) {
	zipOf := func(names ...string) []byte {
		var b bytes.Buffer
		w := zip.NewWriter(&b)
		for _, n := range names {
			f, _ := w.Create(n)
			f.Write([]byte("x"))
		}
		w.Close()
		return b.Bytes()
	}
	for want, data := range map[string][]byte{
		KindDOCX: zipOf("[Content_Types].xml", "word/document.xml"),
		KindXLSX: zipOf("xl/workbook.xml"),
		KindZip:  zipOf("index.html", "img/logo.png"),
		KindHTML: []byte("\ufeff  <!doctype html><p>{{x}}</p>"),
	} {
		if got, err := Detect(data); got != want || err != nil {
			t.Errorf("%s: %q %v", want, got, err)
		}
	}
	for name, data := range map[string][]byte{"empty zip": zipOf("a.txt"), "binary": {0, 1, 2}, "text": []byte("hello"), "broken zip": []byte("PK\x03\x04xx")} {
		if _, err := Detect(data); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

// TestRenderHTML: escaping, nested sections, locale formatting and the helpers' errors.
func TestRenderHTML(t *testing.T) {
	var data map[string]any
	json.Unmarshal([]byte(`{"title":"<Rechnung & Co>","issued":"2026-11-22","total":1234.5,"items":[{"name":"Papier","tags":["a","b"]},{"name":"Toner","tags":[]}],"paid":false}`), &data)
	src := `<h1>{{title}}</h1><p>{{date issued}} {{money total}} {{number total 1}}</p><ul>{#items}<li>{{name}}{#tags}[{{this}}]{/tags}{^tags}(none){/tags}</li>{/items}</ul>{^paid}<b>offen</b>{/paid}`
	got, err := RenderHTML(src, data, "de-DE")
	if err != nil {
		t.Fatal(err)
	}
	want := "<h1>&lt;Rechnung &amp; Co&gt;</h1><p>22.11.2026 1.234,50\u00a0€ 1.234,5</p><ul><li>Papier[a][b]</li><li>Toner(none)</li></ul><b>offen</b>"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if en, _ := RenderHTML(`{{money total "USD"}} {{date issued}}`, data, "en-US"); en != "$1,234.50 11/22/2026" {
		t.Errorf("en-US: %q", en)
	}
	qr, err := RenderHTML(`{{qr title 64}}`, data, "")
	if err != nil || !strings.HasPrefix(qr, `<img class="qr" width="64" height="64" alt="QR code" src="data:image/png;base64,`) {
		t.Errorf("qr: %.80s %v", qr, err)
	}
	for src, want := range map[string]string{
		"{#a}x":               "never closed",
		"x{/a}":               "closes no open",
		"{{nope x}}":          "unknown helper",
		`{{money title}}`:     "is not a number",
		`{{date total}}`:      "not a date",
		`{{image title}}`:     "data:image",
		`{{qr title 5}}`:      "32 to 2000",
		`{{money "unclosed}}`: "unclosed quote",
	} {
		if _, err := RenderHTML(src, data, ""); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", src, err, want)
		}
	}
}

func FuzzRenderHTML(f *testing.F) {
	f.Add(`<p>{{a}}{#l}{{this}}{/l}{{money n "EUR"}}{{date d}}</p>`, `{"a":"<x>","l":[1,2],"n":3.5,"d":"2026-01-01"}`)
	f.Fuzz(func(t *testing.T, src, js string) {
		var data map[string]any
		if json.Unmarshal([]byte(js), &data) != nil {
			return
		}
		out, err := RenderHTML(src, data, "de-DE")
		if err != nil {
			if fault.As(err) == nil {
				t.Fatalf("uncoded error: %v", err)
			}
			return
		}
		if s, ok := data["a"].(string); ok && strings.Contains(s, "<") && strings.Contains(src, "{{a}}") && strings.Contains(out, s) && !strings.Contains(src, s) {
			t.Fatalf("value %q not escaped", s)
		}
	})
}

func FuzzBundle(f *testing.F) {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	p, _ := w.Create("index.html")
	p.Write([]byte(`<img src="a.png"><link href='s.css'>`))
	a, _ := w.Create("a.png")
	a.Write([]byte("png"))
	w.Close()
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := Bundle(data); err != nil && fault.As(err) == nil {
			t.Fatalf("uncoded error: %v", err)
		}
	})
}
