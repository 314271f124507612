package einvoice

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shopspring/decimal"
)

// Decimal is an exact decimal number that keeps the scale it was written with ("19.00"
// stays "19.00"), so an invoice read and written again carries the same figures. The zero
// value is an absent number, which is not the same as a present 0.
type Decimal struct {
	d   decimal.Decimal
	set bool
}

// ErrDecimal reports a number that is not an XML Schema decimal.
var ErrDecimal = errors.New("not a decimal number (digits with an optional sign and a '.' as the decimal separator, no exponent, no thousands separator)")

// maxDigits bounds a number's length: no amount, quantity or percentage needs more, and
// arithmetic on hostile million-digit numbers must stay cheap.
const maxDigits = 40

// ParseDecimal reads the xsd:decimal form: [+-]digits[.digits].
func ParseDecimal(s string) (Decimal, error) {
	if !isDecimal(s) {
		return Decimal{}, ErrDecimal
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return Decimal{}, ErrDecimal
	}
	return Decimal{d: d, set: true}, nil
}

func isDecimal(s string) bool {
	if len(s) == 0 || len(s) > maxDigits+2 {
		return false
	}
	if s[0] == '+' || s[0] == '-' {
		s = s[1:]
	}
	digits, dot := 0, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return digits > 0
}

// MustDecimal is ParseDecimal for constants; it panics on a malformed literal.
func MustDecimal(s string) Decimal {
	d, err := ParseDecimal(s)
	if err != nil {
		panic(fmt.Sprintf("einvoice.MustDecimal(%q): %v", s, err))
	}
	return d
}

// NewDecimal wraps a shopspring decimal.
func NewDecimal(d decimal.Decimal) Decimal { return Decimal{d: d, set: true} }

// IsZero reports whether the number is absent (it is what JSON's omitzero asks).
func (d Decimal) IsZero() bool { return !d.set }

// Valid reports whether the number is present.
func (d Decimal) Valid() bool { return d.set }

// Value is the number for arithmetic; an absent number is 0.
func (d Decimal) Value() decimal.Decimal { return d.d }

// Scale is the number of digits after the decimal point as written.
func (d Decimal) Scale() int {
	if e := d.d.Exponent(); e < 0 {
		return int(-e)
	}
	return 0
}

// String is the number with its scale; "" when absent.
func (d Decimal) String() string {
	if !d.set {
		return ""
	}
	if e := d.d.Exponent(); e < 0 {
		return d.d.StringFixed(-e)
	}
	return d.d.String()
}

// Equal compares values, ignoring scale (19 equals 19.00); two absent numbers are equal.
func (d Decimal) Equal(o Decimal) bool {
	return d.set == o.set && d.d.Equal(o.d)
}

// MarshalJSON writes the number as a JSON string ("119.00"): exact in every client, where a
// JSON number becomes a binary float in most.
func (d Decimal) MarshalJSON() ([]byte, error) {
	if !d.set {
		return []byte("null"), nil
	}
	return []byte(`"` + d.String() + `"`), nil
}

// UnmarshalJSON accepts a string or a JSON number, both in decimal notation.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*d = Decimal{}
		return nil
	}
	s := string(b)
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		s = string(b[1 : len(b)-1])
	}
	v, err := ParseDecimal(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("%q: %w", s, err)
	}
	*d = v
	return nil
}
