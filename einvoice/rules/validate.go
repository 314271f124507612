package rules

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
	"github.com/papierkram/papierkram/einvoice/syntax"
)

// Rule sets by syntax, built once.
var fxRules sync.Map // profile → []*compiled

// facturXRules is the rule set a Factur-X profile adds, built once per profile.
func facturXRules(p einvoice.Profile) []*compiled {
	if c, ok := fxRules.Load(p); ok {
		return c.([]*compiled)
	}
	// Rules a profile's Schematron does not list are turned off by facturXOff, these as
	// the CEN ones.
	ps := []pattern{facturXProfile(p), facturXDelivery(), facturXPaymentDue(), facturXOwn()}
	if p == einvoice.Extended {
		ps = append(ps, facturXExtended())
	}
	c := compileAll(ps...)
	fxRules.Store(p, c)
	return c
}

// xrechnungCIIRules is xrechnungRules for CII.
func xrechnungCIIRules(guideline string) []*compiled {
	if c, ok := xrCIIRules.Load(guideline); ok {
		return c.([]*compiled)
	}
	c := compileAll(append(xrCII(guideline), peppolCII()...)...)
	xrCIIRules.Store(guideline, c)
	return c
}

var (
	ublRules = sync.OnceValue(func() []*compiled {
		return compileAll(ublModel(), ublSyntax(), ublCodes(),
			schemaPattern("UBL-XSD", newSchemaCheck(ublTypes, "ubl:Invoice", "ubl:InvoiceType"), newSchemaCheck(ublTypes, "cn:CreditNote", "cn:CreditNoteType")))
	})
	ublModelRules = sync.OnceValue(func() []*compiled { return compileAll(ublModel(), ublCodes()) })
	ciiRules      = sync.OnceValue(func() []*compiled {
		return compileAll(ciiModel(), ciiSyntax(), ciiCodes(),
			schemaPattern("CII-XSD", newSchemaCheck(ciiTypes, "rsm:CrossIndustryInvoice", "rsm:CrossIndustryInvoiceType")))
	})
	// XRechnung rule sets by guideline (CIUS, extension, CVD).
	xrUBLRules, xrCIIRules sync.Map // guideline → []*compiled
)

func compileAll(ps ...pattern) []*compiled {
	out := make([]*compiled, len(ps))
	for i, p := range ps {
		out[i] = compilePattern(p)
	}
	return out
}

// xrechnungRules is the XRechnung 3.0 rule set of a guideline, built once per guideline.
func xrechnungRules(guideline string) []*compiled {
	if c, ok := xrUBLRules.Load(guideline); ok {
		return c.([]*compiled)
	}
	c := compileAll(append(xrUBL(guideline), peppolUBL()...)...)
	xrUBLRules.Store(guideline, c)
	return c
}

// Report is the verdict on one document.
type Report struct {
	// Valid means no fatal rule failed.
	Valid        bool             `json:"valid"`
	Syntax       syntax.Syntax    `json:"syntax"`
	DocumentType string           `json:"documentType"`
	Guideline    string           `json:"guideline,omitempty"`
	Profile      einvoice.Profile `json:"profile,omitempty"`
	// RuleSets names what was checked, e.g. "EN16931-UBL-model".
	RuleSets []string `json:"ruleSets"`
	Summary  Summary  `json:"summary"`
	Results  []Result `json:"results"`
}

// Summary counts the results.
type Summary struct {
	Checked  int `json:"checked"`
	Passed   int `json:"passed"`
	Errors   int `json:"errors"`   // failed fatal rules
	Warnings int `json:"warnings"` // failed warnings and information
	// Verdict makes the distinction the German tax administration makes in its letters on
	// e-invoicing: a document that fails the schema of its syntax is not an e-invoice at
	// all (notAnEInvoice); one that is well-formed but fails business rules is an
	// e-invoice with errors (businessRuleErrors); otherwise valid.
	Verdict string `json:"verdict"`
}

// Verdicts of Summary.Verdict.
const (
	VerdictValid              = "valid"
	VerdictBusinessRuleErrors = "businessRuleErrors"
	VerdictNotAnEInvoice      = "notAnEInvoice"
)

// Validate checks an e-invoice (CII or UBL) against the rules of EN 16931. A document that
// is not XML, or neither CII nor UBL, is an error; everything else is a report.
func Validate(ctx context.Context, data []byte) (*Report, error) {
	root, err := xmlc.Parse(ctx, data)
	if err != nil {
		return nil, err
	}
	in, err := syntax.Describe(root)
	if err != nil {
		return nil, err
	}
	r := &Report{Syntax: in.Syntax, DocumentType: in.DocumentType, Guideline: in.Guideline, Profile: in.Profile}
	guideline := strings.TrimSpace(in.Guideline)
	var patterns []*compiled
	switch in.Syntax {
	case syntax.UBL:
		r.RuleSets = []string{"EN16931-UBL-model", "EN16931-UBL-syntax", "EN16931-UBL-codes", "UBL 2.1 schema"}
		patterns = ublRules()
		if isXRechnung3(guideline) {
			r.RuleSets = append(r.RuleSets, "XRechnung-UBL 3.0")
			patterns = append(slices.Clip(patterns), xrechnungRules(guideline)...)
		}
	case syntax.CII:
		r.RuleSets = []string{"EN16931-CII-model", "EN16931-CII-syntax", "EN16931-CII-codes", "CII D16B schema"}
		patterns = ciiRules()
		if isXRechnung3(guideline) {
			r.RuleSets = append(r.RuleSets, "XRechnung-CII 3.0")
			patterns = append(slices.Clip(patterns), xrechnungCIIRules(guideline)...)
		} else if isFacturX(in.Profile) {
			r.RuleSets = append(r.RuleSets, "Factur-X 1.08 "+string(in.Profile))
			patterns = append(slices.Clip(patterns), facturXRules(in.Profile)...)
			off := facturXOff(in.Profile, patterns)
			r.Results, err = run(ctx, newDocument(root, prefixes), patterns, off)
			if err != nil {
				return nil, err
			}
			r.tally()
			return r, nil
		}
	}
	if r.Results, err = run(ctx, newDocument(root, prefixes), patterns, nil); err != nil {
		return nil, err
	}
	if isXRechnung3(guideline) {
		relevel(r.Results, scenarioLevels(guideline, in.Syntax))
	}
	r.tally()
	return r, nil
}

func (r *Report) tally() {
	r.Summary = Summary{}
	for _, x := range r.Results {
		switch {
		case x.Passed:
			r.Summary.Checked += x.Count
			r.Summary.Passed += x.Count
			continue
		case x.Severity == Fatal:
			r.Summary.Errors++
			if strings.HasSuffix(x.ID, "-XSD") || x.ID == "FX-PROFILE" { // the syntax's schema, the profile's
				r.Summary.Verdict = VerdictNotAnEInvoice
			} else if r.Summary.Verdict == "" {
				r.Summary.Verdict = VerdictBusinessRuleErrors
			}
		default:
			r.Summary.Warnings++
		}
		r.Summary.Checked++
	}
	r.Valid = r.Summary.Errors == 0
	if r.Valid {
		r.Summary.Verdict = VerdictValid
	}
}

// Failed is the results that did not pass.
func (r *Report) Failed() []Result {
	var out []Result
	for _, x := range r.Results {
		if !x.Passed {
			out = append(out, x)
		}
	}
	return out
}
