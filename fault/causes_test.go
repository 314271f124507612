package fault

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNoLostCauses: an error formatted into a new fault keeps its cause (Wrap), so logs and
// errors.Is/As still reach it; fault.New(code, "…%v…", …, err) drops it.
func TestNoLostCauses(t *testing.T) {
	lost := regexp.MustCompile(`fault\.New\([^\n]*%v[^\n]*, err\)`)
	root := ".."
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			if lost.MatchString(line) {
				t.Errorf("%s:%d: use fault.Wrap to keep the cause: %s", p, i+1, strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
