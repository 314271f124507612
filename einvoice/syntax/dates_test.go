package syntax_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice/internal/corpus"
	"github.com/papierkram/papierkram/einvoice/syntax"
	"github.com/papierkram/papierkram/fault"
)

// TestUBLDateWithZone: dates with a time zone (2016-01-01+01:00, a valid xs:date) read
// into the same model as without one, and transform into the same, schema-valid CII.
// Before, parse and transform refused them as "not a date".
func TestUBLDateWithZone(t *testing.T) {
	for _, rel := range corpus.ZonedUBL {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			data, doc := corpus.Zoned(t, rel)
			want, _, err := syntax.Read(context.Background(), data)
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := syntax.Read(context.Background(), doc)
			if err != nil {
				t.Fatalf("dates with a time zone refused: %v", err)
			}
			a, _ := json.Marshal(want)
			b, _ := json.Marshal(got)
			if string(a) != string(b) {
				t.Errorf("the model differs:\n%s\n%s", a, b)
			}
			if !strings.Contains(string(b), `"issueDate":"`) {
				t.Errorf("no issue date in the model: %s", b)
			}
			plain, _, err := syntax.Transform(context.Background(), data, syntax.CII)
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := syntax.Transform(context.Background(), doc, syntax.CII)
			if err != nil {
				t.Fatalf("transform refused dates with a time zone: %v", err)
			}
			xsdValid(t, out, corpus.SchemaCII)
			if string(out) != string(plain) {
				t.Errorf("the CII differs from the one without time zones")
			}
		})
	}
}

// TestUBLDateInvalid: what is not an xs:date (month 13, zone +25:00) is an input error
// naming the line and the element, in parse and transform.
func TestUBLDateInvalid(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpus.Dir(t), corpus.ZonedUBL[0]))
	if err != nil {
		t.Fatal(err)
	}
	const issue = "<cbc:IssueDate>2019-02-28</cbc:IssueDate>"
	if !strings.Contains(string(data), issue) {
		t.Fatalf("%s not in %s", issue, corpus.ZonedUBL[0])
	}
	for _, bad := range []string{"2016-13-01+01:00", "2016-01-01+25:00", "2015-02-29Z", "2016-01-01+1:00"} {
		doc := strings.Replace(string(data), issue, "<cbc:IssueDate>"+bad+"</cbc:IssueDate>", 1)
		_, _, errRead := syntax.Read(context.Background(), []byte(doc))
		_, _, errTransform := syntax.Transform(context.Background(), []byte(doc), syntax.CII)
		for what, err := range map[string]error{"read": errRead, "transform": errTransform} {
			if err == nil {
				t.Errorf("%s: %s accepted", bad, what)
				continue
			}
			if fault.CodeOf(err) != fault.InvalidInput {
				t.Errorf("%s: %s: code %s (%v)", bad, what, fault.CodeOf(err), err)
			}
			for _, w := range []string{"line 6", "cbc:IssueDate", bad, "not a date"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: %s: %q does not say %q", bad, what, err, w)
				}
			}
			if l, _ := fault.As(err).Details["line"].(int); l != 6 {
				t.Errorf("%s: %s: line detail %v", bad, what, fault.As(err).Details["line"])
			}
		}
	}
}
