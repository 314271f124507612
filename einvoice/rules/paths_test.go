package rules

import (
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// pathLike is a string that reads as a rule path: steps of prefixed names, "..", "*", "."
// or "@attr", optionally anchored with "/" or "//".
var pathLike = regexp.MustCompile(`^(/{1,2})?(\.\.|\*|\.|[a-z]{2,4}:[A-Za-z]+|@[A-Za-z]+)(/(\.\.|\*|\.|[a-z]{2,4}:[A-Za-z]+|@[A-Za-z]+))*/?$`)

// TestEveryPathCompiles finds every string constant in the rules that reads as a path
// (most are compiled only when a rule first runs) and compiles it, so a bad prefix fails
// here and not on a customer's invoice; each element name must also be one the UBL 2.1
// or CII D16B schema knows, which catches a misspelt name that would silently never
// match.
func TestEveryPathCompiles(t *testing.T) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, f := range pkgs["rules"].Files {
		files = append(files, f)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	if _, err := conf.Check("rules", fset, files, info); err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, ts := range []map[string]xsdType{ublTypes(), ciiTypes()} {
		for _, typ := range ts {
			for _, p := range typ.kids {
				_, local, _ := strings.Cut(p.name, ":")
				known[local] = true
			}
		}
	}
	for _, root := range []string{"Invoice", "CreditNote", "CrossIndustryInvoice"} {
		known[root] = true
	}
	checked := 0
	var bad []string
	for expr, tv := range info.Types {
		if tv.Value == nil || tv.Value.Kind() != constant.String {
			continue
		}
		if _, isLit := expr.(*ast.BasicLit); !isLit {
			if _, isBin := expr.(*ast.BinaryExpr); !isBin {
				continue
			}
		}
		p := constant.StringVal(tv.Value)
		if !pathLike.MatchString(p) || !strings.Contains(p, ":") {
			continue
		}
		checked++
		where := fset.Position(expr.Pos()).String()
		if strings.Contains(where, "_gen.go") {
			continue // generated tables: type names and schema facts, not rule paths
		}
		if err := tryCompile(p); err != "" {
			bad = append(bad, where+": "+err)
			continue
		}
		for _, step := range strings.Split(strings.TrimLeft(p, "/"), "/") {
			_, local, ok := strings.Cut(step, ":")
			if typ, isType := strings.CutSuffix(local, "Type"); isType && known[typ] {
				continue // a schema type name (newSchemaCheck's root types)
			}
			if ok && !known[local] {
				bad = append(bad, where+": "+p+": no element "+step+" in UBL 2.1 or CII D16B")
			}
		}
	}
	slices.Sort(bad)
	if checked < 500 {
		t.Errorf("only %d paths found in the rules; the finder is broken", checked)
	}
	for _, b := range bad {
		t.Error(b)
	}
}

// tryCompile compiles a path as the rules would, turning compile's panic into a message.
func tryCompile(p string) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = p + ": " + r.(string)
		}
	}()
	if i := strings.LastIndex(p, "/@"); i >= 0 {
		p = p[:i] // the attribute step is read by the caller
	}
	if strings.HasPrefix(p, "@") {
		return ""
	}
	compile(p)
	return ""
}
