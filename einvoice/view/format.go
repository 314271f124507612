package view

import (
	"strings"
	"time"

	"github.com/papierkram/papierkram/einvoice"
)

// format turns the model's values into the words of one language. Values are shown with
// every digit and character they were written with: the view must never change what the
// invoice says, only how it reads.
type format struct {
	lang   int
	labels map[string]string
}

// Group and decimal separators per language; French groups with U+202F (narrow no-break
// space), as the Imprimerie nationale and CLDR do.
var (
	groupSep   = [3]string{".", ",", "\u202f"}
	decimalSep = [3]string{",", ".", ","}
	monthsEN   = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
)

// num writes a decimal with its written scale, grouped per language; "" when absent.
func (f format) num(d einvoice.Decimal) string {
	return f.numString(d.String())
}

func (f format) numString(s string) string {
	if s == "" {
		return ""
	}
	sign := ""
	if s[0] == '-' || s[0] == '+' {
		if s[0] == '-' {
			sign = "-"
		}
		s = s[1:]
	}
	intPart, frac, hasFrac := strings.Cut(s, ".")
	for _, c := range intPart + frac {
		if c < '0' || c > '9' {
			return sign + s // not a plain number: as written
		}
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/3*3 + 2)
	b.WriteString(sign)
	for i := 0; i < len(intPart); i++ {
		if i > 0 && (len(intPart)-i)%3 == 0 {
			b.WriteString(groupSep[f.lang])
		}
		b.WriteByte(intPart[i])
	}
	if hasFrac {
		b.WriteString(decimalSep[f.lang])
		b.WriteString(frac)
	}
	return b.String()
}

// money is an amount followed by its currency code.
func (f format) money(d einvoice.Decimal, currency string) string {
	s := f.num(d)
	if s == "" || currency == "" {
		return s
	}
	return s + "\u00a0" + currency
}

// pct is a rate or percentage, "19,00 %".
func (f format) pct(d einvoice.Decimal) string {
	s := f.num(d)
	if s == "" {
		return ""
	}
	return s + "\u00a0%"
}

// date is a calendar date in the language's usual form; anything that is not YYYY-MM-DD
// is shown as written.
func (f format) date(d einvoice.Date) string {
	t, err := time.Parse(time.DateOnly, string(d))
	if err != nil {
		return string(d)
	}
	switch f.lang {
	case 1:
		return itoa(t.Day()) + " " + monthsEN[t.Month()-1] + " " + pad(t.Year(), 4)
	case 2:
		return pad(t.Day(), 2) + "/" + pad(int(t.Month()), 2) + "/" + pad(t.Year(), 4)
	}
	return pad(t.Day(), 2) + "." + pad(int(t.Month()), 2) + "." + pad(t.Year(), 4)
}

// period is a start and end date, either of which may be missing.
func (f format) period(p einvoice.Period) string {
	s, e := f.date(p.Start), f.date(p.End)
	switch {
	case s != "" && e != "":
		return s + " – " + e
	case s != "":
		return f.labels["from"] + " " + s
	case e != "":
		return f.labels["until"] + " " + e
	}
	return ""
}

// coded is a code with its words, "Rechnung (380)", or the bare code when it has none.
func (f format) coded(list, code string) string {
	if code == "" {
		return ""
	}
	if w, ok := words[list][strings.TrimSpace(code)]; ok {
		return w[f.lang] + " (" + code + ")"
	}
	return code
}

// id is an identifier with its scheme in brackets.
func (f format) id(i einvoice.Identifier) string {
	switch {
	case i.ID == "" && i.Scheme == "":
		return ""
	case i.Scheme == "":
		return i.ID
	}
	return strings.TrimSpace(i.ID + " (" + f.labels["scheme"] + " " + i.Scheme + ")")
}

// iban groups an IBAN in blocks of four as it is printed on paper; anything that does not
// look like an IBAN written without spaces stays as written.
func iban(s string) string {
	if len(s) < 15 || len(s) > 34 || !isUpper(s[0]) || !isUpper(s[1]) || !isDigit(s[2]) || !isDigit(s[3]) {
		return s
	}
	for i := 4; i < len(s); i++ {
		if !isUpper(s[i]) && !isDigit(s[i]) {
			return s
		}
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if i > 0 && i%4 == 0 {
			b.WriteByte(' ')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func itoa(n int) string { return pad(n, 1) }

func pad(n, width int) string {
	var buf [20]byte
	i := len(buf)
	for n > 0 || i == len(buf) {
		i--
		buf[i] = byte('0' + n%10)
		n /= 10
	}
	for len(buf)-i < width {
		i--
		buf[i] = '0'
	}
	return string(buf[i:])
}

// sizeText is a byte count in the language's number format.
func (f format) size(n int) string {
	return f.numString(itoa(n)) + " " + f.labels["bytes"]
}
