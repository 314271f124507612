package server

import (
	"testing"

	"github.com/papierkram/papierkram/fault"
)

type bindTarget struct {
	Name     string         `form:"name"`
	Flag     bool           `form:"flag"`
	Maybe    *bool          `form:"maybe"`
	Count    int            `form:"count"`
	Sep      rune           `form:"sep"`
	Values   map[string]any `form:"values,json"`
	List     []string       `form:"list,json"`
	PDFA     pdfaOutput     `form:"outputProfile"`
	Untagged string
}

func TestBind(t *testing.T) {
	u := &Upload{Fields: map[string]string{"name": "  Müller ", "flag": "true", "maybe": "false", "count": " 42", "sep": "\t",
		"values": `{"a": 1}`, "list": `["x","y"]`, "outputProfile": "pdf/a-3b", "Untagged": "no"}}
	var got bindTarget
	if err := u.Bind(&got); err != nil {
		t.Fatal(err)
	}
	if got.Name != "Müller" || !got.Flag || got.Maybe == nil || *got.Maybe || got.Count != 42 || got.Sep != '\t' ||
		got.Values["a"] != 1.0 || len(got.List) != 2 || !bool(got.PDFA) || got.Untagged != "" {
		t.Fatalf("%+v", got)
	}
	var empty bindTarget
	if err := (&Upload{Fields: map[string]string{"maybe": ""}}).Bind(&empty); err != nil || empty.Maybe != nil {
		t.Fatalf("absent fields: %+v %v", empty, err)
	}
	for field, value := range map[string]string{
		"flag": "ja", "maybe": "1x", "count": "12.5", "sep": ";;", "values": `{"a":`, "list": `{"not":"a list"}`, "outputProfile": "PDF/A-1b",
	} {
		err := (&Upload{Fields: map[string]string{field: value}}).Bind(&bindTarget{})
		if fault.CodeOf(err) != fault.InvalidInput || fault.As(err).Details["field"] != field {
			t.Errorf("%s=%q: %v", field, value, err)
		}
	}
}

// FuzzBind: any field values give a value or a 400, never a panic.
func FuzzBind(f *testing.F) {
	f.Add("x", "true", "1", ",", `{"a":[1,2]}`, `["a"]`, "PDF/A-3b")
	f.Add("", "", "", "", "", "", "")
	f.Add("\x00", "TRUE", "-9999999999999999999", "ü", `{"a":1}{}`, `[1]`, "pdf/a-3")
	f.Fuzz(func(t *testing.T, name, flag, count, sep, values, list, profile string) {
		u := &Upload{Fields: map[string]string{"name": name, "flag": flag, "maybe": flag, "count": count, "sep": sep, "values": values, "list": list, "outputProfile": profile}}
		var got bindTarget
		if err := u.Bind(&got); err != nil && fault.CodeOf(err) != fault.InvalidInput {
			t.Fatalf("%v", err)
		}
	})
}
