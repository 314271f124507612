package testinvoice

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"
	"time"
	"unicode"

	"golang.org/x/net/html"

	"github.com/papierkram/papierkram/einvoice"
)

// The check that a human-readable view of an invoice shows everything the invoice says:
// every non-empty leaf of the model, found in the page's visible text in the form a reader
// of that language expects. The formats are written here again on purpose, apart from the
// renderer, so that a formatting bug there cannot hide itself.

// Value is one non-empty leaf of an invoice model.
type Value struct {
	// Path is where it sits, e.g. "Lines[3].Item.Classifications[0].Scheme".
	Path string
	// Kind is "string", "decimal", "date" or "account" (an account number, which a view
	// may group in blocks as it is printed on paper), or "unsupported" for a field type
	// the walk does not know: a new model field must be taught here, not skipped.
	Kind string
	// Raw is the value as the model holds it (a decimal with its written scale).
	Raw string
}

// Skipped are the model's leaves that are not text, with the reason they are not looked
// for in a page. Nothing else is skipped.
var Skipped = map[string]string{
	"Invoice.Test":               "a flag: a view shows it as a test banner, not as a value",
	"CreditTransfer.Proprietary": "a flag: it decides whether an account is grouped like an IBAN",
	"Attachment.File":            "the file's bytes: a view shows its name, type and size (and may offer it for download)",
}

// accounts are the fields a view may print grouped in fours (IBAN paper format).
var accounts = map[string]bool{"CreditTransfer.AccountID": true, "DirectDebit.DebitedAccountID": true}

var (
	decimalType = reflect.TypeFor[einvoice.Decimal]()
	dateType    = reflect.TypeFor[einvoice.Date]()
)

// Values lists the invoice's non-empty leaves in model order.
func Values(inv *einvoice.Invoice) []Value {
	var out []Value
	walk(reflect.ValueOf(inv).Elem(), "", "Invoice", &out)
	return out
}

func walk(v reflect.Value, path, typeName string, out *[]Value) {
	t := v.Type()
	switch {
	case t == decimalType:
		if d := v.Interface().(einvoice.Decimal); d.Valid() {
			*out = append(*out, Value{Path: path, Kind: "decimal", Raw: d.String()})
		}
		return
	case t == dateType:
		if s := v.String(); s != "" {
			*out = append(*out, Value{Path: path, Kind: "date", Raw: s})
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			key := t.Name() + "." + f.Name
			if _, skip := Skipped[key]; skip {
				continue
			}
			p := f.Name
			if path != "" {
				p = path + "." + f.Name
			}
			fv := v.Field(i)
			if accounts[key] {
				if s := fv.String(); strings.TrimSpace(s) != "" {
					*out = append(*out, Value{Path: p, Kind: "account", Raw: s})
				}
				continue
			}
			walk(fv, p, f.Type.Name(), out)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i), t.Elem().Name(), out)
		}
	case reflect.String:
		if s := v.String(); strings.TrimSpace(s) != "" {
			*out = append(*out, Value{Path: path, Kind: "string", Raw: s})
		}
	default:
		*out = append(*out, Value{Path: path, Kind: "unsupported", Raw: t.String()})
	}
}

// Collapse joins the words of s with single spaces: how a browser shows white space.
func Collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// VisibleText is the text a reader sees in an HTML page: the body's text nodes (not
// <head>, <title>, <style>, <script> or attributes), joined with spaces, white space
// collapsed, entities decoded.
func VisibleText(page []byte) (string, error) {
	z := html.NewTokenizer(bytes.NewReader(page))
	var b strings.Builder
	hidden := 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			if err := z.Err(); err != io.EOF {
				return "", err
			}
			return Collapse(b.String()), nil
		case html.StartTagToken:
			if name, _ := z.TagName(); isHidden(string(name)) {
				hidden++
			}
		case html.EndTagToken:
			if name, _ := z.TagName(); isHidden(string(name)) && hidden > 0 {
				hidden--
			}
		case html.TextToken:
			if hidden == 0 {
				b.WriteByte(' ')
				b.Write(z.Text())
			}
		}
	}
}

func isHidden(tag string) bool {
	switch tag {
	case "head", "title", "style", "script", "template", "noscript":
		return true
	}
	return false
}

// Expect is how a value reads in a page of language lang (de, en, fr), white space
// collapsed: strings as written; decimals with every written digit, grouped in thousands
// (de 1.234,56; en 1,234.56; fr 1 234,56 with U+202F); dates de 23.11.2026, en 23 Nov 2026,
// fr 23/11/2026 (as written when not YYYY-MM-DD).
func Expect(v Value, lang string) string {
	switch v.Kind {
	case "decimal":
		return Collapse(decimal(v.Raw, lang))
	case "date":
		t, err := time.Parse("2006-01-02", v.Raw)
		if err != nil {
			return Collapse(v.Raw)
		}
		return map[string]string{"de": t.Format("02.01.2006"), "en": t.Format("2 Jan 2006"), "fr": t.Format("02/01/2006")}[lang]
	}
	return Collapse(v.Raw)
}

func decimal(s, lang string) string {
	seps := map[string][2]string{"de": {".", ","}, "en": {",", "."}, "fr": {"\u202f", ","}}[lang]
	group, point := seps[0], seps[1]
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(s, "+-")
	whole, frac, hasFrac := strings.Cut(s, ".")
	// Thousands from the right: split the whole part into groups of three.
	var groups []string
	for len(whole) > 3 {
		groups = append([]string{whole[len(whole)-3:]}, groups...)
		whole = whole[:len(whole)-3]
	}
	groups = append([]string{whole}, groups...)
	out := strings.Join(groups, group)
	if hasFrac {
		out += point + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

// Missing lists the values of inv that the page does not show in language lang, as
// "path: expected text"; a value of a field type the walk does not know is always missing.
func Missing(inv *einvoice.Invoice, page []byte, lang string) ([]string, error) {
	text, err := VisibleText(page)
	if err != nil {
		return nil, err
	}
	return missing(inv, text, lang, false), nil
}

// MissingInPDF is Missing for the text of a printed page (pdftotext's): lines wrap inside
// long values there, so every value is looked for with all white space removed, and the
// footer lines "Seite 2 / 3" (Page …) that a value broken across pages encloses are dropped.
func MissingInPDF(inv *einvoice.Invoice, text, lang string) []string {
	return missing(inv, pageFooter.ReplaceAllString(text, ""), lang, true)
}

var pageFooter = regexp.MustCompile(`(?m)^(Seite|Page) \d+ / \d+$`)

func missing(inv *einvoice.Invoice, text, lang string, wrapped bool) []string {
	compact := strings.Map(dropSpace, text) // for grouped account numbers and wrapped lines
	var out []string
	for _, v := range Values(inv) {
		want := Expect(v, lang)
		found := false
		switch {
		case v.Kind == "unsupported":
		case v.Kind == "account" || wrapped:
			found = strings.Contains(compact, strings.Map(dropSpace, want))
		default:
			found = strings.Contains(text, want)
		}
		if !found {
			out = append(out, fmt.Sprintf("%s (%s): %q", v.Path, v.Kind, want))
		}
	}
	return out
}

func dropSpace(r rune) rune {
	if unicode.IsSpace(r) {
		return -1
	}
	return r
}
