package docx

import (
	"bytes"
	"github.com/papierkram/papierkram/internal/lazyre"
)

var (
	blipEl  = lazyre.New(`(?s)<a:blip\b[^>]*>.*?</a:blip>`)
	svgBlip = lazyre.New(`<(?:\w+:)?svgBlip\b[^>]*\br:embed="([^"]+)"`)
	embedAt = lazyre.New(`\br:embed="[^"]*"`)
)

// PreferVector points every picture that Word stored twice, as SVG and as a raster
// fallback (asvg:svgBlip inside a:blip), at its SVG: LibreOffice prints the blip it is
// given, which is the fallback, while it draws an SVG blip as vectors.
func PreferVector(data []byte) ([]byte, error) {
	p, err := Open(data)
	if err != nil {
		return nil, err
	}
	changed := false
	for _, name := range p.templated() {
		part := p.parts[name]
		if !bytes.Contains(part, []byte("svgBlip")) {
			continue
		}
		p.put(name, blipEl.ReplaceAllFunc(part, func(blip []byte) []byte {
			m := svgBlip.FindSubmatch(blip)
			if m == nil {
				return blip
			}
			end := bytes.IndexByte(blip, '>')
			open := embedAt.ReplaceAll(blip[:end], []byte(`r:embed="`+string(m[1])+`"`))
			if bytes.Equal(open, blip[:end]) {
				return blip
			}
			changed = true
			return append(open, blip[end:]...)
		}))
	}
	if !changed {
		return data, nil
	}
	return p.Bytes()
}
