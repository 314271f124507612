package rules

import (
	"testing"

	"github.com/papierkram/papierkram/internal/lazyre"
)

// The package's expressions compile on first use; this compiles them all.
func TestExpressionsCompile(t *testing.T) {
	if lazyre.Len() == 0 {
		t.Fatal("no expressions declared")
	}
	if err := lazyre.Check(); err != nil {
		t.Fatal(err)
	}
}
