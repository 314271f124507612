package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/xuri/excelize/v2"

	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

// TestEnumsAnyCase: enum values are accepted in any case, in JSON bodies and in query
// parameters, and mean the same as the canonical value; values outside the enum still fail.
func TestEnumsAnyCase(t *testing.T) {
	e := newTestEnv(t)
	res := e.do("POST", "/v1/convert/html-to-pdf", testKey, `{"html":"<p>Querformat</p>","format":"a5","orientation":"LANDSCAPE"}`)
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("html-to-pdf with a5/LANDSCAPE: %d %s", res.StatusCode, b)
	}
	out, err := exec.Command("pdfinfo", testtool.File(t, "q.pdf", b)).CombinedOutput()
	// A5 landscape: 595 x 420 pt.
	if info := strings.Join(strings.Fields(string(out)), " "); err != nil || !strings.Contains(info, "Page size: 595.") || !strings.Contains(info, "x 419.") && !strings.Contains(info, "x 420") {
		t.Errorf("pdfinfo: %v %s", err, info)
	}
	res = e.upload("/api/preview?format=jpeg", [2]any{"file", testpdf.New(1)})
	b, _ = io.ReadAll(res.Body)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/jpeg" {
		t.Errorf("preview format=jpeg: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	// The rest of a folded body keeps every digit and character.
	res = e.do("POST", "/api/spreadsheets/generate", testKey, `{"sheets":[{"name":"A<&>","columns":[{"header":"Betrag","type":"CURRENCY"},{"header":"Text"}],"rows":[["12345678901.17","<b>&amp;</b>"]]}]}`)
	b, _ = io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("spreadsheets/generate with type CURRENCY: %d %s", res.StatusCode, b)
	}
	f, err := excelize.OpenReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := f.GetCellValue("A<&>", "A2", excelize.Options{RawCellValue: true})
	text, _ := f.GetCellValue("A<&>", "B2")
	if typ, _ := f.GetCellType("A<&>", "A2"); raw != "12345678901.17" || text != "<b>&amp;</b>" || typ == excelize.CellTypeSharedString {
		t.Errorf("cells %q (%v) %q", raw, typ, text)
	}
	p := wantProblem(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, `{"html":"<p>x</p>","format":"B7"}`), 400, "invalid_input")
	if !strings.Contains(p["detail"].(string)+strings.Join(locations(p), " "), "format") {
		t.Errorf("B7: %v", p)
	}
	wantProblem(t, e.upload("/api/preview?format=gif", [2]any{"file", testpdf.New(1)}), 400, "invalid_input")
}

func locations(p map[string]any) []string {
	var out []string
	errs, _ := p["errors"].([]any)
	for _, x := range errs {
		if m, ok := x.(map[string]any); ok {
			out = append(out, m["location"].(string))
		}
	}
	return out
}

// FuzzFoldBody: any body, against the html-to-pdf schema, comes back either untouched or as
// JSON that decodes to the same value but for enum case; never a panic.
func FuzzFoldBody(f *testing.F) {
	e := newTestEnv(f)
	var op *huma.Operation
	for _, p := range e.srv.api.OpenAPI().Paths {
		if p.Post != nil && p.Post.OperationID == "postConvertHtmlToPdf" {
			op = p.Post
		}
	}
	if op == nil {
		f.Fatal("no html-to-pdf operation")
	}
	schema := e.srv.jsonBodySchema(op)
	if schema == nil {
		f.Fatal("html-to-pdf's body has enums")
	}
	for _, s := range []string{`{"html":"x","format":"a4"}`, `{"format":["a4"]}`, `[1,2]`, `{"html":"<&>","waitUntil":"LOAD","margins":{"top":"1cm"}}`, `{`, `"a4"`, `{"format":1e400}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		out, ok := e.srv.foldBody(body, schema)
		if !ok {
			return
		}
		var before, after any
		if json.Unmarshal(body, &before) != nil || json.Unmarshal(out, &after) != nil {
			t.Fatalf("folded %q into %q", body, out)
		}
		if !strings.EqualFold(fmt.Sprint(before), fmt.Sprint(after)) {
			t.Errorf("%q became %q", body, out)
		}
	})
}
