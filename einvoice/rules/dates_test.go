package rules

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/einvoice/internal/corpus"
)

// failedIDs are the ids of the failed rules with their severity, sorted.
func failedIDs(t *testing.T, doc string) []string {
	t.Helper()
	r, err := Validate(context.Background(), []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, x := range r.Failed() {
		out = append(out, x.ID+" "+string(x.Severity)+" "+x.Location)
	}
	slices.Sort(out)
	return out
}

// TestDatesWithZone: dates with a time zone (a valid xs:date) get the same verdict as
// without one: no false BR-29 or BR-30 (period end before start), PEPPOL R110 or R111 (line
// period outside the invoice's) or UBL-XSD (data type). Before, each of them failed.
func TestDatesWithZone(t *testing.T) {
	for _, rel := range corpus.ZonedUBL {
		data, doc := corpus.Zoned(t, rel)
		want, got := failedIDs(t, string(data)), failedIDs(t, string(doc))
		if !slices.Equal(want, got) {
			t.Errorf("%s: with time zones the failed rules are\n%s\nwithout\n%s", rel, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestDateOrderByCalendarDate: BR-29 compares calendar dates, zones aside (an EN 16931
// date is a calendar date): an end on the start's day passes whatever the zones; an end
// on the day before fails even where the zones would make its instant later.
func TestDateOrderByCalendarDate(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpus.Dir(t), "en16931/examples-ubl/ubl-tc434-example5.xml"))
	if err != nil {
		t.Fatal(err)
	}
	const period = "<cbc:StartDate>2013-03-10</cbc:StartDate>\n        <cbc:EndDate>2013-04-10</cbc:EndDate>"
	if !strings.Contains(string(data), period) {
		t.Fatal("the invoice period is not where expected")
	}
	for _, c := range []struct {
		start, end string
		fails      bool
	}{
		{"2013-03-10-05:00", "2013-03-10Z", false},
		{"2013-03-10+14:00", "2013-03-10-14:00", false},
		{"2013-03-11-14:00", "2013-03-10+14:00", true},
		{"2013-03-11", "2013-03-10Z", true},
	} {
		doc := strings.Replace(string(data), period, "<cbc:StartDate>"+c.start+"</cbc:StartDate><cbc:EndDate>"+c.end+"</cbc:EndDate>", 1)
		failed := slices.ContainsFunc(failedIDs(t, doc), func(s string) bool { return strings.HasPrefix(s, "BR-29 ") })
		if failed != c.fails {
			t.Errorf("%s to %s: BR-29 failed %v, want %v", c.start, c.end, failed, c.fails)
		}
	}
}

// TestDateDataType: the schema check of xs:date checks the calendar and the zone, as
// libxml2 does: a month 13, a 30 February or a zone beyond ±14:00 fail UBL-XSD (and
// xmllint), a zone within it passes (both).
func TestDateDataType(t *testing.T) {
	const file = "xrechnung-testsuite/business-cases/standard/01.01a-INVOICE_ubl.xml"
	data, err := os.ReadFile(filepath.Join(corpus.Dir(t), file))
	if err != nil {
		t.Fatal(err)
	}
	const issue = "<cbc:IssueDate>2016-04-04</cbc:IssueDate>"
	if !strings.Contains(string(data), issue) {
		t.Fatalf("%s not in %s", issue, file)
	}
	xsd := filepath.Join(corpus.Dir(t), corpus.SchemaUBLInvoice)
	for date, valid := range map[string]bool{
		"2016-04-04+01:00": true, "2016-04-04Z": true, "2016-04-04-14:00": true,
		"2016-13-01+01:00": false, "2016-01-01+25:00": false, "2016-02-30": false, "2016-04-04+14:30": false,
	} {
		doc := strings.Replace(string(data), issue, "<cbc:IssueDate>"+date+"</cbc:IssueDate>", 1)
		failed := slices.ContainsFunc(failedIDs(t, doc), func(s string) bool {
			return s == "UBL-XSD fatal /Invoice[1]/cbc:IssueDate[1]"
		})
		if failed == valid {
			t.Errorf("%s: UBL-XSD failed %v, want %v", date, failed, !valid)
		}
		f := filepath.Join(t.TempDir(), "d.xml")
		if err := os.WriteFile(f, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("xmllint", "--noout", "--schema", xsd, f).CombinedOutput()
		if (err == nil) != valid {
			t.Errorf("%s: xmllint disagrees (valid %v): %s", date, err == nil, out)
		}
	}
}
