package einvoice

import (
	"strings"
	"testing"
	"time"
)

// TestParseXSDate: xs:date as libxml2 validates it against the UBL schema (each verdict
// checked with xmllint): a time zone is allowed, up to ±14:00; the calendar is checked.
func TestParseXSDate(t *testing.T) {
	valid := map[string]XSDate{
		"2016-04-04":       {Year: 2016, Month: 4, Day: 4},
		"2016-04-04Z":      {Year: 2016, Month: 4, Day: 4, Zone: "Z"},
		"2016-04-04+01:00": {Year: 2016, Month: 4, Day: 4, Zone: "+01:00"},
		"2016-04-04-05:00": {Year: 2016, Month: 4, Day: 4, Zone: "-05:00"},
		"2016-04-04+14:00": {Year: 2016, Month: 4, Day: 4, Zone: "+14:00"},
		"2016-04-04-14:00": {Year: 2016, Month: 4, Day: 4, Zone: "-14:00"},
		"2016-04-04+13:59": {Year: 2016, Month: 4, Day: 4, Zone: "+13:59"},
		"2016-04-04-00:00": {Year: 2016, Month: 4, Day: 4, Zone: "-00:00"},
		"2016-02-29":       {Year: 2016, Month: 2, Day: 29},
		"2000-02-29":       {Year: 2000, Month: 2, Day: 29},
		"0001-01-01":       {Year: 1, Month: 1, Day: 1},
		"-0001-01-01":      {Year: -1, Month: 1, Day: 1},
		"-0004-02-29":      {Year: -4, Month: 2, Day: 29},
		"10000-01-01":      {Year: 10000, Month: 1, Day: 1},
		"12000-02-29":      {Year: 12000, Month: 2, Day: 29},
	}
	for s, want := range valid {
		got, ok := ParseXSDate(s)
		if !ok || got != want {
			t.Errorf("%q: got %+v, %v; want %+v", s, got, ok, want)
		}
	}
	for _, s := range []string{
		"", "2016-04-04+14:01", "2016-04-04+15:00", "2016-04-04+25:00", "2016-04-04+01:60",
		"2016-13-01+01:00", "2016-00-01", "2016-04-00", "2015-02-29", "1900-02-29", "2016-04-31",
		"0000-01-01", "-0000-01-01", "-0001-02-29", "010000-01-01", "2016-4-04", "2016-04-04z",
		"2016-04-04+0100", "2016-04-04 ", " 2016-04-04", "+2016-01-01", "2016-04-04+14:00Z",
		"2016-04-04T00:00:00", "999999999999999999999-01-01", "2016-04-04+1:00", "２０１６-04-04",
	} {
		if got, ok := ParseXSDate(s); ok {
			t.Errorf("%q accepted as %+v", s, got)
		}
	}
}

// TestParseUBLDate: the model keeps the calendar date as written, whatever the zone; what
// is not an xs:date, or has a year a Date cannot hold, is refused with a message.
func TestParseUBLDate(t *testing.T) {
	for _, s := range []string{"2016-01-01", "2016-01-01Z", "2016-01-01+01:00", "2016-01-01-14:00", "2016-01-01+14:00"} {
		if d, err := ParseUBLDate(s); err != nil || d != "2016-01-01" {
			t.Errorf("%q: %q, %v", s, d, err)
		}
	}
	for s, want := range map[string]string{
		"2016-13-01+01:00": "not a date", "2016-01-01+25:00": "not a date", "01.01.2016": "not a date",
		"10000-01-01": "year outside 0001-9999", "-0001-01-01": "year outside 0001-9999",
	} {
		_, err := ParseUBLDate(s)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), s) {
			t.Errorf("%q: %v, want an error saying %q", s, err, want)
		}
	}
}

// TestParseDateYearZero: the model has no year 0000 (xs:date has none: a UBL invoice with
// it would be unreadable, also to us), from JSON or CII.
func TestParseDateYearZero(t *testing.T) {
	if _, err := ParseDate("0000-01-01"); err == nil || !strings.Contains(err.Error(), "year 0000") {
		t.Errorf("0000-01-01: %v", err)
	}
	if d, err := ParseDate("0001-01-01"); err != nil || d != "0001-01-01" {
		t.Errorf("0001-01-01: %q, %v", d, err)
	}
}

// TestXSDateCompare: dates compare by calendar date; the zone does not move the day.
func TestXSDateCompare(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"2016-01-01", "2016-01-01+01:00", 0},
		{"2016-01-01-05:00", "2016-01-01Z", 0},
		{"2016-01-01+14:00", "2016-01-02-14:00", -1},
		{"2016-02-01Z", "2016-01-31+01:00", 1},
		{"-0001-12-31", "0001-01-01", -1},
		{"10000-01-01", "9999-12-31", 1},
	} {
		a, okA := ParseXSDate(c.a)
		b, okB := ParseXSDate(c.b)
		if !okA || !okB {
			t.Fatalf("%s or %s not parsed", c.a, c.b)
		}
		if got := a.Compare(b); got != c.want {
			t.Errorf("%s vs %s: %d, want %d", c.a, c.b, got, c.want)
		}
		if got := b.Compare(a); got != -c.want {
			t.Errorf("%s vs %s: %d, want %d", c.b, c.a, got, -c.want)
		}
	}
}

// FuzzParseXSDate: no input panics; what is accepted is [-]YYYY-MM-DD with a zone, and on
// plain four-digit dates the verdict is Go's calendar (time.Parse) without the year 0000.
func FuzzParseXSDate(f *testing.F) {
	for _, s := range []string{"2016-01-01", "2016-01-01+01:00", "2016-01-01Z", "-0004-02-29", "12000-02-29-14:00", "2016-02-30"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		x, ok := ParseXSDate(s)
		if !ok {
			if len(s) == 10 {
				if _, err := time.Parse(time.DateOnly, s); err == nil && s[:4] != "0000" {
					t.Fatalf("%q refused, but it is a date", s)
				}
			}
			return
		}
		if x.Year == 0 || x.Month < 1 || x.Month > 12 || x.Day < 1 || x.Day > 31 {
			t.Fatalf("%q accepted as %+v", s, x)
		}
		d, inRange := x.CalendarDate()
		if !inRange {
			return
		}
		if !strings.HasPrefix(s, string(d)) || strings.TrimPrefix(s, string(d)) != x.Zone {
			t.Fatalf("%q read as %s with zone %q", s, d, x.Zone)
		}
		if _, err := ParseDate(string(d)); err != nil {
			t.Fatalf("%q: its calendar date %s is not a Date: %v", s, d, err)
		}
		if x.Compare(x) != 0 {
			t.Fatalf("%q does not equal itself", s)
		}
	})
}
