package rules

import (
	"sync"

	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
)

// Rule sets by syntax, built once.
var (
	ublRules = sync.OnceValue(func() []pattern { return []pattern{ublModel(), ublSyntax(), ublCodes()} })
)

// check runs the rule sets that apply to the root element.
func check(root *xmlc.Node) []Result {
	d := newDocument(root, prefixes)
	switch root.Space {
	case prefixes["ubl"], prefixes["cn"]:
		return run(d, ublRules(), nil)
	}
	return nil
}
