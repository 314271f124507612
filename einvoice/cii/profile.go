package cii

//go:generate go run ./internal/profilegen -schemas ../../../shared/corpus/schemas/factur-x-1.08 -out profiles_gen.go

import (
	"strings"
	"sync"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
)

var (
	allowedOnce sync.Once
	allowed     map[einvoice.Profile]map[string]bool
)

// prune removes what the profile's schema does not allow. XRechnung uses the full D16B
// schema, whose content the binding never exceeds, so nothing is removed for it.
func prune(root *xmlc.Node, p einvoice.Profile) {
	allowedOnce.Do(func() {
		allowed = make(map[einvoice.Profile]map[string]bool, len(profilePaths))
		for prof, list := range profilePaths {
			set := make(map[string]bool, strings.Count(list, "\n")+1)
			for _, path := range strings.Split(list, "\n") {
				set[path] = true
			}
			allowed[prof] = set
		}
	})
	set, ok := allowed[p]
	if !ok || root == nil {
		return
	}
	pruneNode(root, "", set)
}

func pruneNode(n *xmlc.Node, prefix string, set map[string]bool) {
	kids := n.Kids[:0]
	for _, k := range n.Kids {
		path := prefix + k.Local
		if !set[path] {
			continue
		}
		attrs := k.Attrs[:0]
		for _, a := range k.Attrs {
			if set[path+"/@"+a.Local] {
				attrs = append(attrs, a)
			}
		}
		k.Attrs = attrs
		pruneNode(k, path+"/", set)
		if k.Text != "" || len(k.Kids) > 0 || k.Keep {
			kids = append(kids, k)
		}
	}
	n.Kids = kids
}

// Allowed reports whether a profile's schema allows the element (or "@attribute") path,
// given as local names below the root: "ExchangedDocument/IncludedNote/ContentCode".
// XRechnung, whose schema is the full D16B one, allows every path.
func Allowed(p einvoice.Profile, path string) bool {
	prune(nil, "") // loads the tables
	set, ok := allowed[p]
	return !ok || set[path]
}
