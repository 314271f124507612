// Package b64 is the API's one Base64 decoder: standard alphabet, padding optional,
// whitespace ignored, errors with code invalid_input.
package b64

import (
	"encoding/base64"
	"strings"

	"github.com/papierkram/papierkram/fault"
)

// Decode decodes s; what names the value in the error message.
func Decode(what, s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\n', '\r', '\t':
			return -1
		}
		return r
	}, s)
	data, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		return nil, fault.Wrap(fault.InvalidInput, err, "%s is not valid Base64: %v", what, err)
	}
	return data, nil
}
