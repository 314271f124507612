package server

import (
	"github.com/papierkram/papierkram/engine/office"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

// TestPDFForms: fields are listed with types and options; filling shows the values in
// pdftotext, flattening removes the form; bad values are 400 naming the fields.
func TestPDFForms(t *testing.T) {
	e := newTestEnv(t)
	pdfForm := testpdf.Form()
	got := decode(t, e.upload("/api/pdf-forms/fields", [2]any{"file", pdfForm}))
	fields, _ := got["fields"].([]any)
	if got["count"] != float64(6) || len(fields) != 6 {
		t.Fatalf("fields: %v", got)
	}
	country := fields[5].(map[string]any)
	if country["name"] != "country" || country["type"] != "choice" || len(country["options"].([]any)) != 3 {
		t.Errorf("country: %v", country)
	}
	none := decode(t, e.upload("/api/pdf-forms/fields", [2]any{"file", testpdf.New(1)}))
	if none["count"] != float64(0) || none["fields"] == nil {
		t.Errorf("no form: %v", none)
	}

	out := pdfBody(t, e.uploadAs(testKey, "/api/pdf-forms/fill", [2]any{"@file", pdfForm}, [2]any{"values", `{"name":"Erika","country":"CH","agree":true}`}, [2]any{"flatten", "true"}))
	if text := testtool.Text(t, out); !strings.Contains(text, "Erika") || !strings.Contains(text, "CH") {
		t.Errorf("filled text: %s", text)
	}
	if info := testtool.Info(t, out); info["Form"] != "none" {
		t.Errorf("flattened, yet Form %q", info["Form"])
	}
	p := wantProblem(t, e.uploadAs(testKey, "/api/pdf-forms/fill", [2]any{"@file", pdfForm}, [2]any{"values", `{"nope":"x","country":"FR"}`}), 400, "invalid_input")
	if list, _ := p["fields"].([]any); len(list) != 2 {
		t.Errorf("problem fields: %v", p["fields"])
	}
	wantProblem(t, e.uploadAs(testKey, "/api/pdf-forms/fill", [2]any{"@file", pdfForm}, [2]any{"values", `[1]`}), 400, "invalid_input")
	wantProblem(t, e.uploadAs(testKey, "/api/pdf-forms/fill", [2]any{"@file", pdfForm}), 400, "invalid_input")
	wantProblem(t, e.uploadAs(testKey, "/api/pdf-forms/fill", [2]any{"@file", []byte("no pdf")}, [2]any{"values", `{}`}), 400, "invalid_pdf")
}

// TestFillLibreOfficeForm: a form LibreOffice wrote (its combo box options are UTF-16 hex
// strings) is filled: a text field alone, then with the combo box on a non-ASCII option.
func TestFillLibreOfficeForm(t *testing.T) {
	e := newTestEnv(t)
	page := `<html><body><form><p>Kunde: <input type="text" name="kunde" size="30"></p><p>Ansprechpartner: <select name="person"><option>Müller</option><option>Schäfer</option><option>Öztürk</option></select></p></form></body></html>`
	form, err := e.srv.cfg.Office.Convert(t.Context(), office.Job{Document: []byte(page), Ext: "html"}, "pdf")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(form), "/Opt") || !strings.Contains(string(form), "<FEFF") {
		t.Fatalf("LibreOffice wrote no UTF-16 options; the test needs them")
	}
	for name, values := range map[string]string{
		"text only":       `{"kunde":"Stadtwerke Köln"}`,
		"text and choice": `{"kunde":"Stadtwerke Köln","person":"Schäfer"}`,
	} {
		res := e.uploadAs(testKey, "/api/pdf-forms/fill", [2]any{"@file", form}, [2]any{"values", values})
		pdf := pdfBody(t, res)
		testtool.QPDFCheck(t, pdf)
		list, _ := decode(t, e.upload("/api/pdf-forms/fields", [2]any{"file", pdf}))["fields"].([]any)
		got := map[string]any{}
		for _, f := range list {
			m := f.(map[string]any)
			got[m["name"].(string)] = m["value"]
		}
		if got["kunde"] != "Stadtwerke Köln" || name == "text and choice" && got["person"] != "Schäfer" {
			t.Errorf("%s: fields %v", name, got)
		}
		if text := testtool.Text(t, pdf); !strings.Contains(text, "Stadtwerke Köln") {
			t.Errorf("%s: the value is not shown: %q", name, text)
		}
	}
}
