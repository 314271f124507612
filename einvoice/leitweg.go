package einvoice

import (
	"fmt"
	"math/big"
	"strings"
)

// CheckLeitwegID tells whether s is a well-formed Leitweg-ID, the routing id German public
// buyers give as the buyer reference (BT-10): a coarse address of 2 to 12 digits, an
// optional fine address of up to 30 letters and digits, and two check digits, joined by
// dashes ("04011000-12345-03"). The check digits follow ISO/IEC 7064 MOD 97-10 over the
// whole id, letters counting 10 to 35 as in an IBAN: the remainder is 1.
func CheckLeitwegID(s string) error {
	parts := strings.Split(s, "-")
	if len(parts) < 2 || len(parts) > 3 {
		return fmt.Errorf("Leitweg-ID %q: want coarse address, optional fine address and check digits joined by dashes, e.g. 04011000-12345-03", s)
	}
	coarse, check := parts[0], parts[len(parts)-1]
	if len(coarse) < 2 || len(coarse) > 12 || !allOf(coarse, isDigit) {
		return fmt.Errorf("Leitweg-ID %q: the coarse address must be 2 to 12 digits", s)
	}
	if len(parts) == 3 {
		if fine := parts[1]; fine == "" || len(fine) > 30 || !allOf(fine, func(c byte) bool { return isDigit(c) || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }) {
			return fmt.Errorf("Leitweg-ID %q: the fine address must be 1 to 30 letters or digits", s)
		}
	}
	if len(check) != 2 || !allOf(check, isDigit) {
		return fmt.Errorf("Leitweg-ID %q: it must end in two check digits", s)
	}
	var digits strings.Builder
	for _, c := range strings.ToUpper(strings.ReplaceAll(s, "-", "")) {
		if c >= 'A' {
			fmt.Fprintf(&digits, "%d", c-'A'+10)
		} else {
			digits.WriteRune(c)
		}
	}
	n, _ := new(big.Int).SetString(digits.String(), 10)
	if new(big.Int).Mod(n, big.NewInt(97)).Int64() != 1 {
		return fmt.Errorf("Leitweg-ID %q: the check digits %s do not match (ISO/IEC 7064 MOD 97-10)", s, check)
	}
	return nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func allOf(s string, f func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !f(s[i]) {
			return false
		}
	}
	return true
}
