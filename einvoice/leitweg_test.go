package einvoice

import (
	"strings"
	"testing"
)

// TestCheckLeitwegID: the ids of the XRechnung test suite pass; a changed digit, a missing
// part, a wrong alphabet or length fails with a message saying which.
func TestCheckLeitwegID(t *testing.T) {
	for _, s := range []string{"04011000-12345-03", "991-33333TEST-33", "90000000-03083-72", "12345678-12345-83", "04011000-12349-88"} {
		if err := CheckLeitwegID(s); err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
	for s, want := range map[string]string{
		"04011000-12345-04": "check digits", "04011000-12346-03": "check digits", "": "dashes", "0401100012345": "dashes",
		"1-12345-03": "coarse", "04011000-123_45-03": "fine", "04011000-12345-3": "two check digits",
		"04011000--03": "fine", "a-b-c-d": "dashes", "0401100012345678-1-03": "coarse",
	} {
		err := CheckLeitwegID(s)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", s, err, want)
		}
	}
}

func FuzzCheckLeitwegID(f *testing.F) {
	for _, s := range []string{"04011000-12345-03", "991-33333TEST-33", "x", "--", "1-2-3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if CheckLeitwegID(s) == nil && (strings.Count(s, "-") < 1 || len(s) > 12+30+4) {
			t.Fatalf("%q accepted", s)
		}
	})
}
