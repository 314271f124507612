package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// maxHandlerLines bounds a route handler: it decodes, calls one operation, encodes. Longer
// means domain work has crept into the HTTP layer (or fields are parsed by hand: Upload.Bind).
const maxHandlerLines = 40

// serverFiles parses this package's non-test files.
func serverFiles(t *testing.T) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = f
	}
	if len(files) < 10 {
		t.Fatalf("found only %d source files", len(files))
	}
	return fset, files
}

// TestHandlersAreShort fails when a handler given to register is over maxHandlerLines.
func TestHandlersAreShort(t *testing.T) {
	fset, files := serverFiles(t)
	handlers := 0
	for name, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := call.Fun
			if ix, ok := fn.(*ast.IndexExpr); ok {
				fn = ix.X
			}
			if id, ok := fn.(*ast.Ident); !ok || id.Name != "register" {
				return true
			}
			for _, a := range call.Args {
				if lit, ok := a.(*ast.FuncLit); ok {
					handlers++
					from, to := fset.Position(lit.Pos()).Line, fset.Position(lit.End()).Line
					if n := to - from + 1; n > maxHandlerLines {
						t.Errorf("%s:%d: handler of %d lines (at most %d): move the work into its operation", name, from, n, maxHandlerLines)
					}
				}
			}
			return true
		})
	}
	if handlers < 50 {
		t.Fatalf("found only %d handlers: the test no longer sees them", handlers)
	}
}

// TestNoEngineImports: the HTTP layer names no engine; engines are built in cmd (serve.go,
// engines.go) and reach handlers as the interfaces their operations declare.
func TestNoEngineImports(t *testing.T) {
	_, files := serverFiles(t)
	for name, f := range files {
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == "github.com/papierkram/papierkram/engine" || strings.HasPrefix(path, "github.com/papierkram/papierkram/engine/") {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}
