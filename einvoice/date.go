package einvoice

import (
	"encoding/json"
	"fmt"
	"time"
)

// Date is a calendar date, "YYYY-MM-DD" (ISO 8601), in JSON and in this package; each
// syntax converts it to its own form (CII: format 102, YYYYMMDD).
type Date string

// ParseDate checks an ISO date.
func ParseDate(s string) (Date, error) {
	if _, err := time.Parse(time.DateOnly, s); err != nil {
		return "", fmt.Errorf("%q is not a date in the form YYYY-MM-DD", s)
	}
	return Date(s), nil
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
