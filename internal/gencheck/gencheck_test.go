package gencheck

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedCodeIsCurrent runs each generator that names its output (-out) and
// compares what it writes with the committed file.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	root := filepath.Join("..", "..")
	n := 0
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "//go:generate go run ")
			if !ok {
				continue
			}
			args := strings.Fields(line)
			out := -1
			for i, a := range args {
				if a == "-out" && i+1 < len(args) {
					out = i + 1
				}
			}
			if out < 0 {
				continue // a generator that does not name its output is not checked here
			}
			n++
			dir := filepath.Dir(p)
			committed, err := os.ReadFile(filepath.Join(dir, args[out]))
			if err != nil {
				t.Errorf("%s: %v", p, err)
				continue
			}
			tmp := filepath.Join(t.TempDir(), filepath.Base(args[out]))
			run := append([]string{"run"}, args...)
			run[out+1] = tmp
			cmd := exec.Command("go", run...)
			cmd.Dir = dir
			if msg, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s: go %s: %v\n%s", p, strings.Join(run, " "), err, msg)
				continue
			}
			fresh, err := os.ReadFile(tmp)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(fresh, committed) {
				t.Errorf("%s is not what its generator writes now: run go generate in %s", filepath.Join(dir, args[out]), dir)
			}
		}
		return nil
	})
	if n < 4 {
		t.Fatalf("found %d generators with -out; expected the e-invoice tables", n)
	}
}
