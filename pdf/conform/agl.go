package conform

import (
	"bufio"
	_ "embed"
	"github.com/papierkram/papierkram/internal/lazyre"
	"strings"
	"sync"
)

// The Adobe Glyph List (glyphlist.txt, version 2.0, BSD-licensed by Adobe, kept as
// published with its notice; github.com/adobe-type-tools/agl-aglfn @ 4036a9c): the glyph
// names a non-symbolic TrueType font's Differences may use (ISO 19005-2, 6.2.11.6).
//
//go:embed glyphlist.txt
var glyphList string

var aglNames = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(glyphList))
	for sc.Scan() {
		if line := sc.Text(); line != "" && line[0] != '#' {
			if name, _, ok := strings.Cut(line, ";"); ok {
				names[name] = true
			}
		}
	}
	return names
})

// reUniName matches the names the glyph list's rules derive from code points (uniXXXX,
// uXXXX to uXXXXXX).
var reUniName = lazyre.New(`^(uni[0-9A-F]{4}|u[0-9A-F]{4,6})$`)

// inAGL tells whether name is in the Adobe Glyph List or names a code point by its rules.
func inAGL(name string) bool {
	return aglNames()[name] || reUniName.MatchString(name)
}
