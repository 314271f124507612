package einvoice

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Date is a calendar date, "YYYY-MM-DD" (ISO 8601), in JSON and in this package; each
// syntax converts it to its own form (CII: format 102, YYYYMMDD).
type Date string

// ParseDate checks an ISO date. The year 0000, which Go accepts, is refused: xs:date has
// none, so UBL could not carry it.
func ParseDate(s string) (Date, error) {
	if _, err := time.Parse(time.DateOnly, s); err != nil {
		return "", fmt.Errorf("%q is not a date in the form YYYY-MM-DD", s)
	}
	if s[:4] == "0000" {
		return "", fmt.Errorf("%q has the year 0000; the years run from 0001", s)
	}
	return Date(s), nil
}

// XSDate is an xs:date (XML Schema 1.0, as UBL's dates are typed) split into its parts.
type XSDate struct {
	Year       int64 // signed; never 0 (XML Schema 1.0 has no year zero)
	Month, Day int
	// Zone is the time zone as written: "", "Z" or ±hh:mm.
	Zone string
}

// ParseXSDate reads an xs:date as XML Schema 1.0 (and libxml2) define it: [-]YYYY-MM-DD,
// a year of four digits or more (no leading zero beyond four), a day that exists in its
// month, and an optional time zone Z or ±hh:mm of at most 14:00. ok is false otherwise.
func ParseXSDate(s string) (x XSDate, ok bool) {
	i := 0
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		i = 1
	}
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	digits := s[i:j]
	if len(digits) < 4 || len(digits) > 4 && digits[0] == '0' {
		return x, false
	}
	year, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || year == 0 {
		return x, false
	}
	if neg {
		year = -year
	}
	rest := s[j:]
	if len(rest) < 6 || rest[0] != '-' || rest[3] != '-' {
		return x, false
	}
	month, ok1 := twoDigits(rest[1:3])
	day, ok2 := twoDigits(rest[4:6])
	if !ok1 || !ok2 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return x, false
	}
	zone := rest[6:]
	switch {
	case zone == "" || zone == "Z":
	case len(zone) == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':':
		h, okH := twoDigits(zone[1:3])
		m, okM := twoDigits(zone[4:6])
		if !okH || !okM || m > 59 || h*60+m > 14*60 {
			return x, false
		}
	default:
		return x, false
	}
	return XSDate{Year: year, Month: month, Day: day, Zone: zone}, true
}

// CalendarDate is the calendar date as written, without its time zone: what an EN 16931
// date (ISO 8601 calendar date) means. ok is false for a year outside 0001-9999, which a
// Date cannot hold.
func (x XSDate) CalendarDate() (Date, bool) {
	if x.Year < 1 || x.Year > 9999 {
		return "", false
	}
	return Date(fmt.Sprintf("%04d-%02d-%02d", x.Year, x.Month, x.Day)), true
}

// Compare orders two dates by calendar date, their time zones aside (see CalendarDate):
// -1, 0 or +1.
func (x XSDate) Compare(y XSDate) int {
	for _, d := range [][2]int64{{x.Year, y.Year}, {int64(x.Month), int64(y.Month)}, {int64(x.Day), int64(y.Day)}} {
		switch {
		case d[0] < d[1]:
			return -1
		case d[0] > d[1]:
			return 1
		}
	}
	return 0
}

// ParseUBLDate reads a UBL date (xs:date) into a Date: the calendar date as written; a
// time zone (2016-01-01+01:00, 2016-01-01Z), which xs:date allows, is dropped, since an
// EN 16931 date is a calendar date without one.
func ParseUBLDate(s string) (Date, error) {
	x, ok := ParseXSDate(s)
	if !ok {
		return "", fmt.Errorf("%q is not a date in the form YYYY-MM-DD (optionally with a time zone such as Z or +01:00)", s)
	}
	d, ok := x.CalendarDate()
	if !ok {
		return "", fmt.Errorf("%q has a year outside 0001-9999", s)
	}
	return d, nil
}

func twoDigits(s string) (int, bool) {
	if len(s) != 2 || !isDigit(s[0]) || !isDigit(s[1]) {
		return 0, false
	}
	return int(s[0]-'0')*10 + int(s[1]-'0'), true
}

// daysIn is the length of a month in the proleptic Gregorian calendar, leap years by the
// signed year as XML Schema 1.0 processors (libxml2) count them.
func daysIn(year int64, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// Time is the date at midnight UTC; the zero time when d is empty or malformed.
func (d Date) Time() time.Time {
	t, _ := time.Parse(time.DateOnly, string(d))
	return t
}

// UnmarshalJSON accepts only "YYYY-MM-DD" (or "").
func (d *Date) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a date must be a string YYYY-MM-DD")
	}
	if s == "" {
		*d = ""
		return nil
	}
	v, err := ParseDate(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}
