package tmpl

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"testing"
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
