package rules

import (
	"path/filepath"
	"runtime"
	"strings"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/syntax"
)

// Binding is one rule of one rule set as we bind it: where it is declared, and the Go
// function (and file) that binds it to its context in that syntax.
type Binding struct {
	ID       string
	Severity Severity
	Syntax   syntax.Syntax
	RuleSet  string // as the report names it, e.g. "EN16931-UBL", "XRechnung 3.0", "Factur-X 1.08 BASIC"
	Declared string // the file that declares the rule
	File     string // the file and function that bind it
	Func     string
}

// ruleSet is one rule set the validator can apply, with its rules built.
type ruleSet struct {
	name     string
	syntax   syntax.Syntax
	patterns func() []*compiled
	// off lists rules of the patterns the rule set turns off (a Factur-X profile's).
	off func([]*compiled) map[string]bool
}

// ruleSets lists every rule set, each XRechnung guideline and Factur-X profile apart; the
// rule index and the tests that every official rule is bound walk it.
func ruleSets() []ruleSet {
	sets := []ruleSet{
		{name: "EN16931-UBL", syntax: syntax.UBL, patterns: ublRules},
		{name: "EN16931-CII", syntax: syntax.CII, patterns: ciiRules},
	}
	for _, g := range []string{xrCIUS, xrExtension, xrCVD} {
		sets = append(sets,
			ruleSet{name: "XRechnung 3.0 " + g, syntax: syntax.UBL, patterns: func() []*compiled { return xrechnungRules(g) }},
			ruleSet{name: "XRechnung 3.0 " + g, syntax: syntax.CII, patterns: func() []*compiled { return xrechnungCIIRules(g) }})
	}
	sets = append(sets,
		ruleSet{name: "Peppol BIS 3.0", syntax: syntax.UBL, patterns: func() []*compiled { return peppolPatterns(syntax.UBL) }},
		ruleSet{name: "Peppol BIS 3.0", syntax: syntax.CII, patterns: func() []*compiled { return peppolPatterns(syntax.CII) }})
	for _, v := range []string{facturX108, facturX107} {
		for _, p := range []einvoice.Profile{einvoice.Minimum, einvoice.BasicWL, einvoice.Basic, einvoice.EN16931, einvoice.Extended} {
			sets = append(sets, ruleSet{name: "Factur-X " + v + " " + string(p), syntax: syntax.CII,
				patterns: func() []*compiled { c, _ := facturXPatterns(v, p); return c },
				off:      func([]*compiled) map[string]bool { _, off := facturXPatterns(v, p); return off }})
		}
	}
	return sets
}

// Bindings is the rule index: every rule of every rule set, where it is declared and
// where it is bound. go generate writes it to rule_index.md (internal/ruleindex).
func Bindings() []Binding {
	var out []Binding
	for _, s := range ruleSets() {
		ps := s.patterns()
		var off map[string]bool
		if s.off != nil {
			off = s.off(ps)
		}
		for _, c := range ps {
			for _, r := range c.rules {
				for _, x := range r.asserts {
					if off[x.id] {
						continue
					}
					b := Binding{ID: x.id, Severity: x.flag, Syntax: s.syntax, RuleSet: s.name}
					b.File, b.Func = boundAt(x.at[0])
					b.Declared = declaredIn(x.id, b.File)
					out = append(out, b)
				}
			}
		}
	}
	return out
}

// boundAt resolves the program counter a binding recorded to its file and function.
func boundAt(pc uintptr) (file, fn string) {
	if pc == 0 {
		return "", ""
	}
	f, _ := runtime.CallersFrames([]uintptr{pc}).Next()
	fn = f.Function[strings.LastIndex(f.Function, "/")+1:]
	fn = strings.TrimPrefix(fn, "rules.")
	if i := strings.Index(fn, ".func"); i > 0 {
		fn = fn[:i] // a closure: the function that wrote it
	}
	return filepath.Base(f.File), fn
}

// declaredIn names the file that declares a rule: declared.go, the VAT category template,
// a generated table of an official binding, or (for the schema checks) the binding itself.
func declaredIn(id, boundIn string) string {
	switch {
	case declared[id].msg != "":
		return "declared.go"
	case declaredPeppol[id].msg != "" || declaredNational[id].msg != "":
		return "declared_peppol.go"
	case templated()[id].msg != "":
		return "declare.go"
	case strings.HasPrefix(id, "UBL-CR-"):
		return "ublcr_gen.go"
	case strings.HasPrefix(id, "CII-"):
		return "ciisyntax_gen.go"
	}
	return boundIn
}
