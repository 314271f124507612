package pdf

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

// TestFormFields: every field of a hand-written AcroForm with its full name, type, value,
// options, flags, page and rectangle.
func TestFormFields(t *testing.T) {
	fields, err := mustRead(t, testpdf.Form()).FormFields()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]FormField{}
	var names []string
	for _, f := range fields {
		got[f.Name] = f
		names = append(names, f.Name)
	}
	if want := []string{"name", "id", "address.city", "agree", "size", "country"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("names %v, want %v", names, want)
	}
	check := func(name, typ string, value any, opts []string, required, readOnly bool) {
		t.Helper()
		f := got[name]
		if f.Type != typ || !reflect.DeepEqual(f.Value, value) || !reflect.DeepEqual(f.Options, opts) || f.Required != required || f.ReadOnly != readOnly {
			t.Errorf("%s: %+v", name, f)
		}
		if len(f.Widgets) == 0 || f.Widgets[0].Page != 1 || f.Widgets[0].Rect[2] <= f.Widgets[0].Rect[0] {
			t.Errorf("%s widgets %+v", name, f.Widgets)
		}
	}
	check("name", FieldText, nil, nil, true, false)
	check("id", FieldText, "A-1", nil, false, true)
	check("address.city", FieldText, nil, nil, false, false)
	check("agree", FieldCheckbox, false, nil, false, false)
	check("size", FieldRadio, nil, []string{"M", "S"}, false, false)
	check("country", FieldChoice, nil, []string{"DE", "AT", "CH"}, false, false)
	if w := got["name"].Widgets[0].Rect; w != [4]float64{72, 700, 300, 720} {
		t.Errorf("rect %v", w)
	}
	if f, err := mustRead(t, testpdf.New(1)).FormFields(); err != nil || len(f) != 0 {
		t.Errorf("no form: %v %v", f, err)
	}
}

// TestFillForm: values show in pdftotext (appearance streams written), read back as the
// field values, and stay visible after flattening, which removes the form.
func TestFillForm(t *testing.T) {
	var values map[string]any
	json.Unmarshal([]byte(`{"name":"Erika Mustermann","address.city":"Köln","agree":true,"size":"M","country":"AT"}`), &values)
	out, err := mustRead(t, testpdf.Form()).FillForm(values, false)
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, out)
	text := testtool.Text(t, out)
	for _, want := range []string{"Erika Mustermann", "Köln", "AT", "A-1"} {
		if !strings.Contains(text, want) {
			t.Errorf("pdftotext lacks %q:\n%s", want, text)
		}
	}
	fields, err := mustRead(t, out).FormFields()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fields {
		want := map[string]any{"name": "Erika Mustermann", "address.city": "Köln", "agree": true, "size": "M", "country": "AT", "id": "A-1"}[f.Name]
		if !reflect.DeepEqual(f.Value, want) {
			t.Errorf("%s = %v, want %v", f.Name, f.Value, want)
		}
	}

	flat, err := mustRead(t, testpdf.Form()).FillForm(values, true)
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, flat)
	if info := testtool.Info(t, flat); info["Form"] != "none" {
		t.Errorf("pdfinfo Form: %q after flattening", info["Form"])
	}
	ftext := testtool.Text(t, flat)
	for _, want := range []string{"Erika Mustermann", "Köln", "AT", "A-1", "Form"} {
		if !strings.Contains(ftext, want) {
			t.Errorf("flattened text lacks %q:\n%s", want, ftext)
		}
	}
	if f, _ := mustRead(t, flat).FormFields(); len(f) != 0 {
		t.Errorf("%d fields left after flattening", len(f))
	}
}

// TestFillFormRefuses: every problem is named, nothing is written.
func TestFillFormRefuses(t *testing.T) {
	d := mustRead(t, testpdf.Form())
	var values map[string]any
	json.Unmarshal([]byte(`{"nope":"x","id":"B-2","agree":"yes","size":"XL","country":"FR","name":["a"]}`), &values)
	_, err := d.FillForm(values, false)
	e := fault.As(err)
	if e == nil || e.Code != fault.InvalidInput {
		t.Fatalf("%v", err)
	}
	for _, want := range []string{`"nope" is not a field`, `"id" is read-only`, `"agree": a check box takes true or false`, `"size": one of M, S`, `"country": one of DE, AT, CH`, `"name": a text field`} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("message lacks %q: %s", want, e.Message)
		}
	}
	if _, err := mustRead(t, testpdf.New(1)).FillForm(map[string]any{"a": "b"}, false); fault.CodeOf(err) != fault.InvalidInput {
		t.Errorf("no form: %v", err)
	}
}

// FuzzFillForm: any JSON object of values fills the form or is refused with a coded error.
func FuzzFillForm(f *testing.F) {
	for _, s := range []string{`{"name":"x"}`, `{"agree":true,"size":"S"}`, `{"country":"CH","address.city":"(a\\b)"}`, `{"name":"` + strings.Repeat("ü", 300) + `"}`, `{"size":1}`} {
		f.Add(s)
	}
	form := testpdf.Form()
	f.Fuzz(func(t *testing.T, s string) {
		var values map[string]any
		if json.Unmarshal([]byte(s), &values) != nil {
			return
		}
		d, err := Read(form)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := d.FillForm(values, len(s)%2 == 0); err != nil && fault.As(err) == nil {
			t.Fatalf("uncoded error: %v", err)
		}
	})
}

// FuzzFormFields: a damaged form lists fields or fails with a coded error, never panics.
func FuzzFormFields(f *testing.F) {
	form := testpdf.Form()
	f.Add(form)
	f.Add(form[:len(form)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Read(data)
		if err != nil {
			return
		}
		if _, err := d.FormFields(); err != nil && fault.As(err) == nil {
			t.Fatalf("uncoded error: %v", err)
		}
	})
}
