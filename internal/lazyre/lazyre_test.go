package lazyre

import (
	"sync"
	"testing"
)

var word = New(`\pL+`)

func TestCompilesOnFirstUse(t *testing.T) {
	if word.re != nil {
		t.Fatal("compiled before first use")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := word.FindAllString("Rechnung Nr. 42", -1); len(got) != 2 || got[0] != "Rechnung" || got[1] != "Nr" {
				t.Errorf("FindAllString = %q", got)
			}
		})
	}
	wg.Wait()
	if word.String() != `\pL+` || word.Regexp() != word.re {
		t.Fatal("not the expression compiled once")
	}
}

func TestCheck(t *testing.T) {
	if err := Check(); err != nil {
		t.Fatal(err)
	}
	bad := New(`(unclosed`)
	defer func() { declared = declared[:len(declared)-1] }()
	if err := Check(); err == nil {
		t.Fatalf("Check passed %q", bad)
	}
}
