package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestCommandsBuildNoEngines: commands decode, call one domain function and encode; the
// engines they use are built in one place (engines.go: the server's pools and a command's
// local set), and serve.go prepares the engines' run directory. No other file of the
// command line imports engine/....
func TestCommandsBuildNoEngines(t *testing.T) {
	allowed := map[string]bool{"engines.go": true, "serve.go": true}
	files, err := filepath.Glob("*.go")
	if err != nil || len(files) < 10 {
		t.Fatalf("%d files: %v", len(files), err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || allowed[f] {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		af, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range af.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if path == "github.com/papierkram/papierkram/engine" || strings.HasPrefix(path, "github.com/papierkram/papierkram/engine/") {
				t.Errorf("%s imports %s: use the engines of engines.go", f, path)
			}
		}
	}
}
