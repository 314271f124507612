package server

import (
	"fmt"
	"testing"

	"github.com/papierkram/papierkram/internal/testoffice"
)

// TestFaultyFieldLocation: whoever finds the fault (huma's schema checks, the multipart
// reader, the binder, the JSON reader or a handler), the problem names the field in
// errors[].location, as query.x or body.x.
func TestFaultyFieldLocation(t *testing.T) {
	e := newTestEnv(t)
	receipts := `[{"date":"2020-03-02","gross":"1.00"}]`
	for _, c := range []struct {
		name, where string
		res         func() map[string]any
	}{
		{"huma query check", "query.dpi", func() map[string]any {
			return wantProblem(t, e.upload("/api/preview/pages?dpi=999", [2]any{"file", []byte("%PDF-1.4")}), 400, "invalid_input")
		}},
		{"handler query", "query.fiscalYearStart", func() map[string]any {
			return wantProblem(t, e.do("POST", "/api/receipts/export/datev?fiscalYearStart=2020-13-01", testKey, receipts), 400, "invalid_input")
		}},
		{"handler query rune", "query.delimiter", func() map[string]any {
			return wantProblem(t, e.do("POST", "/api/receipts/export/csv?delimiter=ab", testKey, receipts), 400, "invalid_input")
		}},
		{"missing part", "body.file", func() map[string]any {
			return wantProblem(t, e.uploadAs(testKey, "/api/preview/page-count"), 400, "invalid_input")
		}},
		{"binder", "body.locale", func() map[string]any {
			return wantProblem(t, e.uploadAs(testKey, "/v1/convert/word-to-pdf", [2]any{"@document", testoffice.Simple("x")}, [2]any{"locale", "not a locale!"}), 400, "invalid_input")
		}},
		{"JSON unknown member", "body.colour", func() map[string]any {
			return wantProblem(t, e.do("POST", "/v1/convert/html-to-pdf", testKey, `{"html":"<p>x</p>","colour":"red"}`), 400, "invalid_input")
		}},
		{"unknown part", "body.other", func() map[string]any {
			return wantProblem(t, e.uploadAs(testKey, "/api/preview/page-count", [2]any{"other", "x"}), 400, "invalid_input")
		}},
		{"JSON type", "body.issuer", func() map[string]any {
			return wantProblem(t, e.do("POST", "/api/receipts/export/csv", testKey, `[{"issuer":5}]`), 400, "invalid_input")
		}},
	} {
		p := c.res()
		errs, _ := p["errors"].([]any)
		var locs []string
		for _, x := range errs {
			locs = append(locs, fmt.Sprint(x.(map[string]any)["location"]))
		}
		if len(locs) == 0 || locs[0] != c.where {
			t.Errorf("%s: locations %q, want %s (%v)", c.name, locs, c.where, p)
		}
	}
}

// TestMissingFieldsShape: missingFields is [{bt, name}] in a problem as in an extraction result.
func TestMissingFieldsShape(t *testing.T) {
	e := newTestEnv(t)
	p := wantProblem(t, e.do("POST", "/api/xrechnung/generate", testKey, `{"number":"R-1","currency":"EUR","xrechnungFormat":"UBL"}`), 400, "invalid_input")
	missing, _ := p["missingFields"].([]any)
	var bts []string
	for _, m := range missing {
		f, _ := m.(map[string]any)
		if name, _ := f["name"].(string); name == "" {
			t.Errorf("missing field without a name: %v", m)
		}
		bts = append(bts, fmt.Sprint(f["bt"]))
	}
	if fmt.Sprint(bts) != "[BT-2 BT-27 BT-44]" {
		t.Errorf("missingFields %v", p["missingFields"])
	}
}
