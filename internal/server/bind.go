package server

import (
	"encoding"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/language"

	"github.com/papierkram/papierkram/fault"
)

// Bind decodes an upload's text fields into the struct dst points to, by its fields' tags:
// `form:"name"` reads the field called name, `form:"name,json"` decodes it as JSON (strictly,
// as request bodies are). By type: a string is trimmed; a rune is exactly one character, as
// sent (a tab is a delimiter); bool and *bool take true/false (a missing field leaves *bool
// nil); int is a whole number; a type with UnmarshalText decides itself. An absent or empty
// field leaves the value as it is. Every bad value is 400 invalid_input naming the field.
// Handlers bind into one struct instead of parsing fields one by one.
func (u *Upload) Bind(dst any) error {
	v := reflect.ValueOf(dst)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("server: Bind needs a pointer to a struct, not %T", dst))
	}
	v = v.Elem()
	for i := range v.NumField() {
		tag, ok := v.Type().Field(i).Tag.Lookup("form")
		if !ok {
			continue
		}
		name, opt, _ := strings.Cut(tag, ",")
		raw, present := u.Fields[name]
		if !present || raw == "" {
			continue
		}
		if err := bindField(v.Field(i), name, raw, opt == "json"); err != nil {
			return err
		}
	}
	return nil
}

var runeType = reflect.TypeFor[rune]()

func bindField(f reflect.Value, name, raw string, isJSON bool) error {
	bad := func(format string, args ...any) error {
		return fault.New(fault.InvalidInput, "%s "+format, append([]any{name}, args...)...).With("field", name)
	}
	if isJSON {
		return jsonValue(name, raw, f.Addr().Interface())
	}
	if tu, ok := f.Addr().Interface().(encoding.TextUnmarshaler); ok {
		if err := tu.UnmarshalText([]byte(strings.TrimSpace(raw))); err != nil {
			return bad("%v", err)
		}
		return nil
	}
	if f.Type() == runeType {
		if utf8.RuneCountInString(raw) != 1 {
			return bad("must be one character, not %q", raw)
		}
		r, _ := utf8.DecodeRuneInString(raw)
		f.SetInt(int64(r))
		return nil
	}
	s := strings.TrimSpace(raw)
	switch {
	case f.Kind() == reflect.String:
		f.SetString(s)
	case f.Kind() == reflect.Bool, f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return bad("must be true or false, not %q", s)
		}
		if f.Kind() == reflect.Pointer {
			f.Set(reflect.ValueOf(&b))
		} else {
			f.SetBool(b)
		}
	case f.Kind() == reflect.Int:
		n, err := strconv.Atoi(s)
		if err != nil {
			return bad("must be a whole number, not %q", s)
		}
		f.SetInt(int64(n))
	default:
		panic(fmt.Sprintf("server: Bind cannot fill a %s (field %s)", f.Type(), name))
	}
	return nil
}

// jsonValue decodes a JSON form field; the body's wording ("the body is ...") is named for
// the part.
func jsonValue(name, raw string, v any) error {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil
	}
	if err := decodeJSON([]byte(s), v); err != nil {
		msg := strings.Replace(fault.As(err).Message, "the body", "the part", 1)
		return fault.New(fault.InvalidInput, "%s: %s", name, msg).With("field", name)
	}
	return nil
}

// pdfaOutput is the outputProfile field of LibreOffice conversions: PDF/A-3b or nothing.
type pdfaOutput bool

func (p *pdfaOutput) UnmarshalText(b []byte) error {
	switch strings.ToUpper(string(b)) {
	case "":
		*p = false
	case "PDF/A-3B", "PDFA-3B", "PDF/A-3":
		*p = true
	default:
		return fmt.Errorf("%q is not supported; PDF/A-3b", b)
	}
	return nil
}

// localeTag is a BCP 47 locale field, canonical (de-DE, en-US): it reaches LibreOffice's
// configuration, so nothing but a parsed tag may pass.
type localeTag string

func (l *localeTag) UnmarshalText(b []byte) error {
	if len(b) == 0 {
		*l = ""
		return nil
	}
	tag, err := language.Parse(string(b))
	if err != nil || len(b) > 35 {
		return fmt.Errorf("%q is not a BCP 47 locale such as de-DE or en-US", b)
	}
	*l = localeTag(tag.String())
	return nil
}
