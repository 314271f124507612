package conform

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// colorSpace checks a colour space's own structure (ICC profiles, DeviceN, Separation).
func (w *walker) colorSpace(o types.Object, loc string, depth int) {
	if depth > 8 {
		return
	}
	a := w.array(o)
	if len(a) == 0 {
		return
	}
	if !w.first("colorspace", o) {
		return
	}
	switch w.name(a[0]) {
	case "ICCBased":
		if len(a) < 2 {
			return
		}
		s := w.stream(a[1])
		h, ok := iccHeader(decoded(s))
		w.c.check(ok && (h.class == "prtr" || h.class == "mntr" || h.class == "scnr" || h.class == "spac") &&
			(h.space == "RGB " || h.space == "CMYK" || h.space == "GRAY" || h.space == "Lab ") && h.major < 5, "6.2.4.2-1", where(a[1], loc+" ICC profile"))
		if s != nil && s.Dict["Alternate"] != nil {
			w.colorSpace(s.Dict["Alternate"], loc+" Alternate", depth+1)
		}
	case "Indexed":
		if len(a) > 1 {
			w.colorSpace(a[1], loc+" base", depth+1)
		}
	case "Pattern":
		if len(a) > 1 {
			w.colorSpace(a[1], loc+" base", depth+1)
		}
	case "Separation":
		if len(a) < 4 {
			return
		}
		name := w.name(a[1])
		w.c.check(utf8.ValidString(name), "6.1.8-1", loc+" colourant name")
		w.separation(name, a[2], a[3], loc)
		w.colorSpace(a[2], loc+" alternate", depth+1)
	case "DeviceN":
		if len(a) < 4 {
			return
		}
		names := w.array(a[1])
		w.c.check(len(names) <= 32, "6.1.13-9", loc)
		for _, n := range names {
			w.c.check(utf8.ValidString(w.name(n)), "6.1.8-1", loc+" colourant name")
		}
		w.colorSpace(a[2], loc+" alternate", depth+1)
		attrs := types.Dict(nil)
		if len(a) > 4 {
			attrs = w.dict(a[4])
		}
		colorants := w.dict(attrs["Colorants"])
		for _, n := range names {
			s := w.name(n)
			if s == "None" || s == "All" || s == "Cyan" || s == "Magenta" || s == "Yellow" || s == "Black" {
				continue
			}
			_, ok := colorants[s]
			w.c.check(ok, "6.2.4.4-1", fmt.Sprintf("%s colourant %s", loc, s))
		}
		for cn, cs := range colorants {
			if ca := w.array(cs); len(ca) >= 4 && w.name(ca[0]) == "Separation" {
				w.separation(cn, ca[2], ca[3], loc+" Colorants "+cn)
			}
		}
	}
}

// separation remembers each Separation name's alternate space and tint transform; the same
// name must always come with the same ones (6.2.4.4-2), compared as PDF objects.
func (w *walker) separation(name string, alt, tint types.Object, loc string) {
	if name == "" || name == "All" || name == "None" {
		return
	}
	key := w.objKey(alt, 0) + "|" + w.objKey(tint, 0)
	if w.separations == nil {
		w.separations = map[string]string{}
	}
	if prev, ok := w.separations[name]; ok {
		w.c.check(prev == key, "6.2.4.4-2", loc+" "+name)
		return
	}
	w.separations[name] = key
}

// objKey serialises an object for comparison as ISO 19005-2, 6.2.4.4 asks: references
// resolved (direct or indirect does not matter), streams by their dictionary without the
// filter and length and by their decoded data (compression does not matter).
func (w *walker) objKey(o types.Object, depth int) string {
	if depth > 16 {
		return "…"
	}
	switch v := w.deref(o).(type) {
	case nil:
		return "null"
	case types.Dict:
		return w.dictKey(v, depth)
	case types.StreamDict:
		return w.dictKey(v.Dict, depth) + "stream" + string(decoded(&v))
	case types.Array:
		var b strings.Builder
		b.WriteString("[")
		for _, x := range v {
			b.WriteString(w.objKey(x, depth+1) + " ")
		}
		return b.String() + "]"
	default:
		return v.PDFString()
	}
}

func (w *walker) dictKey(d types.Dict, depth int) string {
	keys := slices.Sorted(maps.Keys(d))
	var b strings.Builder
	b.WriteString("<<")
	for _, k := range keys {
		switch k {
		case "Length", "Filter", "DecodeParms":
			continue
		}
		b.WriteString("/" + k + " " + w.objKey(d[k], depth+1) + " ")
	}
	return b.String() + ">>"
}

// iccCMYK tells whether o is an ICCBased colour space with four components.
func (w *walker) iccCMYK(o types.Object) bool {
	a := w.array(o)
	if len(a) < 2 || w.name(a[0]) != "ICCBased" {
		return false
	}
	s := w.stream(a[1])
	if s == nil {
		return false
	}
	n, _ := w.number(s.Dict["N"])
	return n == 4
}

// useColorSpace records that content uses the colour space o, with the resources res (for
// its Default colour spaces): the device spaces need an output intent (6.2.4.3).
func (w *walker) useColorSpace(o types.Object, res types.Dict, loc string) {
	w.useDevice(w.deviceFamily(o, 0), res, loc)
}

// deviceFamily is DeviceRGB, DeviceCMYK or DeviceGray when o is one of them, or based on
// one (Indexed, Pattern with a base, the alternate of Separation and DeviceN); "" else.
func (w *walker) deviceFamily(o types.Object, depth int) string {
	if depth > 8 {
		return ""
	}
	switch n := w.name(o); n {
	case "DeviceRGB", "RGB":
		return "DeviceRGB"
	case "DeviceCMYK", "CMYK":
		return "DeviceCMYK"
	case "DeviceGray", "G":
		return "DeviceGray"
	case "":
	default:
		return ""
	}
	a := w.array(o)
	if len(a) < 2 {
		return ""
	}
	switch w.name(a[0]) {
	case "Indexed", "I", "Pattern":
		return w.deviceFamily(a[1], depth+1)
	case "Separation", "DeviceN":
		if len(a) > 2 {
			return w.deviceFamily(a[2], depth+1)
		}
	}
	return ""
}

// useDevice checks a device colour space's use against the output intent and the
// resources' Default colour spaces.
func (w *walker) useDevice(family string, res types.Dict, loc string) {
	if family == "" {
		return
	}
	defaults := w.dict(res["ColorSpace"])
	switch family {
	case "DeviceRGB":
		_, def := defaults["DefaultRGB"]
		w.c.check(def || w.outputCS == "RGB ", "6.2.4.3-2", loc)
	case "DeviceCMYK":
		_, def := defaults["DefaultCMYK"]
		w.c.check(def || w.outputCS == "CMYK", "6.2.4.3-3", loc)
	case "DeviceGray":
		_, def := defaults["DefaultGray"]
		w.c.check(def || w.hasIntent, "6.2.4.3-4", loc)
	}
}
