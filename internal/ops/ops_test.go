package ops

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
	"testing"
)

// TestAllIsComplete: every Operation this package declares is in All, has prose, and its
// names are unique, so the server's and the command line's mount tests see all of them.
func TestAllIsComplete(t *testing.T) {
	pkgs, err := parser.ParseDir(token.NewFileSet(), ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := 0
	for _, f := range pkgs["ops"].Files {
		ast.Inspect(f, func(n ast.Node) bool {
			if u, ok := n.(*ast.UnaryExpr); ok {
				if cl, ok := u.X.(*ast.CompositeLit); ok {
					if ix, ok := cl.Type.(*ast.IndexExpr); ok {
						if id, ok := ix.X.(*ast.Ident); ok && id.Name == "Operation" {
							declared++
						}
					}
				}
			}
			return true
		})
	}
	all := All()
	if declared != len(all) || declared < 15 {
		t.Fatalf("%d operations declared, %d in All", declared, len(all))
	}
	names, commands := map[string]bool{}, map[string]bool{}
	for _, m := range all {
		if names[m.Group+"/"+m.Name] || commands[m.Command] {
			t.Errorf("%s/%s (%s) twice", m.Group, m.Name, m.Command)
		}
		names[m.Group+"/"+m.Name], commands[m.Command] = true, true
		if strings.Contains(m.Command, "/") {
			t.Errorf("%s: command name %q has a slash", m.Name, m.Command)
		}
		if len(prose(m.Group, m.Name)) < 40 {
			t.Errorf("%s/%s: prose too short", m.Group, m.Name)
		}
	}
	for group, ss := range groups {
		for name := range ss {
			if !names[group+"/"+name] {
				t.Errorf("prose for %s/%s, which is no operation", group, name)
			}
		}
	}
}

// TestSignaturesSaid: an operation that rewrites a PDF says in its prose what becomes of
// the PDF's signatures (the rule: keep them or say that they break).
func TestSignaturesSaid(t *testing.T) {
	for name, text := range groups["pdf-tools"] {
		if name == "bookmarks" || name == "images-to-pdf" { // reads only; makes a new PDF
			continue
		}
		if !strings.Contains(text, "signatures") {
			t.Errorf("%s does not say what happens to signatures", name)
		}
	}
}
