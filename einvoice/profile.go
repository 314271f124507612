package einvoice

import (
	"fmt"
	"strings"
)

// Profile is a ZUGFeRD / Factur-X profile, or XRechnung.
type Profile string

// The profiles, by their ZUGFeRD names.
const (
	Minimum   Profile = "MINIMUM"
	BasicWL   Profile = "BASICWL"
	Basic     Profile = "BASIC"
	EN16931   Profile = "EN16931"
	Extended  Profile = "EXTENDED"
	XRechnung Profile = "XRECHNUNG"
)

// Profiles in order of content, smallest first.
var Profiles = []Profile{Minimum, BasicWL, Basic, EN16931, Extended, XRechnung}

// Guideline ids (BT-24) of the profiles and of the CIUS the product knows.
const (
	GuidelineMinimum      = "urn:factur-x.eu:1p0:minimum"
	GuidelineBasicWL      = "urn:factur-x.eu:1p0:basicwl"
	GuidelineBasic        = "urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic"
	GuidelineEN16931      = "urn:cen.eu:en16931:2017"
	GuidelineExtended     = "urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended"
	GuidelineXRechnung30  = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0"
	GuidelineXRechnung23  = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_2.3"
	GuidelineXRechnungExt = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0#conformant#urn:xeinkauf.de:kosit:extension:xrechnung_3.0"
	GuidelinePeppolBIS3   = "urn:cen.eu:en16931:2017#compliant#urn:fdc:peppol.eu:2017:poacc:billing:3.0"
	// ProcessPeppol is the BT-23 of PEPPOL BIS Billing 3.0, also the usual one of XRechnung.
	ProcessPeppol = "urn:fdc:peppol.eu:2017:poacc:billing:01.0"
)

// ParseProfile accepts a profile name in any case, with or without spaces or dashes
// ("basic wl", "en-16931", "xrechnung").
func ParseProfile(s string) (Profile, error) {
	n := strings.ToUpper(strings.NewReplacer(" ", "", "-", "", "_", "").Replace(strings.TrimSpace(s)))
	if n == "" {
		return EN16931, nil
	}
	for _, p := range Profiles {
		if string(p) == n {
			return p, nil
		}
	}
	if n == "COMFORT" {
		return EN16931, nil
	}
	return "", fmt.Errorf("unknown profile %q; one of MINIMUM, BASICWL, BASIC, EN16931, EXTENDED, XRECHNUNG", s)
}

// Guideline is the profile's BT-24; XRechnung in its current version 3.0.
func (p Profile) Guideline() string {
	switch p {
	case Minimum:
		return GuidelineMinimum
	case BasicWL:
		return GuidelineBasicWL
	case Basic:
		return GuidelineBasic
	case Extended:
		return GuidelineExtended
	case XRechnung:
		return GuidelineXRechnung30
	}
	return GuidelineEN16931
}

// ProfileOf names the profile a guideline id belongs to, "" when none of ours.
func ProfileOf(guideline string) Profile {
	g := strings.TrimSpace(guideline)
	switch {
	case g == GuidelineMinimum:
		return Minimum
	case g == GuidelineBasicWL:
		return BasicWL
	case g == GuidelineBasic:
		return Basic
	case g == GuidelineEN16931:
		return EN16931
	case strings.HasPrefix(g, GuidelineExtended), strings.Contains(g, "urn:zugferd.de:2p0:extended"):
		return Extended
	case strings.Contains(g, "urn:xeinkauf.de:kosit:xrechnung_"), strings.Contains(g, "urn:xoev-de:kosit:standard:xrechnung"):
		return XRechnung
	case strings.Contains(g, "urn:zugferd.de:2p0:basic"), strings.Contains(g, "urn:factur-x.eu:1p0:basic"):
		if strings.Contains(g, "basicwl") {
			return BasicWL
		}
		return Basic
	case strings.Contains(g, "urn:zugferd.de:2p0:minimum"):
		return Minimum
	}
	return ""
}

// XRechnungVersion is the XRechnung version named by a guideline id ("3.0", "2.3"), or "".
func XRechnungVersion(guideline string) string {
	_, v, ok := strings.Cut(guideline, "kosit:xrechnung_")
	if !ok {
		return ""
	}
	v, _, _ = strings.Cut(v, "#")
	return v
}

// XRechnungGuideline is the BT-24 of an XRechnung version, "3.0" (default) or "2.3".
func XRechnungGuideline(version string) (string, error) {
	switch version {
	case "", "3.0":
		return GuidelineXRechnung30, nil
	case "2.3":
		return GuidelineXRechnung23, nil
	}
	return "", fmt.Errorf("unknown XRechnung version %q; 3.0 or 2.3", version)
}
