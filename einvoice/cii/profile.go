package cii

//go:generate go run ./internal/profilegen -schemas ../../../shared/corpus/schemas/factur-x-1.08 -out profiles_gen.go
//go:generate go run ./internal/profilegen -schemas ../../../shared/corpus/schemas/factur-x-1.07.2 -var profilePaths107 -out profiles107_gen.go

import (
	"strings"
	"sync"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/internal/xmlc"
)

var (
	allowedOnce sync.Once
	allowed     map[einvoice.Profile]map[string]bool

	// The 1.07 tables are only read by AllowedIn, so writing never pays for building them.
	allowed107Once sync.Once
	allowed107     map[einvoice.Profile]map[string]bool
)

// pathSets turns a generated table (one path a line per profile) into sets.
func pathSets(table map[einvoice.Profile]string) map[einvoice.Profile]map[string]bool {
	sets := make(map[einvoice.Profile]map[string]bool, len(table))
	for prof, list := range table {
		set := make(map[string]bool, strings.Count(list, "\n")+1)
		for _, path := range strings.Split(list, "\n") {
			set[path] = true
		}
		sets[prof] = set
	}
	return sets
}

// prune removes what the profile's schema does not allow. XRechnung uses the full D16B
// schema, whose content the binding never exceeds, so nothing is removed for it.
func prune(root *xmlc.Node, p einvoice.Profile) {
	allowedOnce.Do(func() { allowed = pathSets(profilePaths) })
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
// It answers for Factur-X 1.08 (ZUGFeRD 2.4), the version Write emits.
func Allowed(p einvoice.Profile, path string) bool {
	prune(nil, "") // loads the tables
	set, ok := allowed[p]
	return !ok || set[path]
}

// AllowedIn is Allowed for a given Factur-X version: "1.07" (ZUGFeRD 2.3, schemas 1.07.2)
// or "1.08" (ZUGFeRD 2.4). Any other version is taken as 1.08, the newest we know, so
// that a caller passing a version read from elsewhere still gets an answer.
func AllowedIn(version string, p einvoice.Profile, path string) bool {
	if version != "1.07" {
		return Allowed(p, path)
	}
	allowed107Once.Do(func() { allowed107 = pathSets(profilePaths107) })
	set, ok := allowed107[p]
	return !ok || set[path]
}
