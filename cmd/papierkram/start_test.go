package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/internal/lazyre"
)

// The binary's own packages build their tables, templates and expressions on first use:
// every command pays their initialisation, `xrechnung validate FILE` included (#24). This
// reads what each package's initialiser allocated (GODEBUG=inittrace, in a fresh copy of
// this test binary, which links what main links) and holds the module's total to a bound
// just above what it is now, so that a new eager table shows up here.
func TestStartIsLazy(t *testing.T) {
	if err := lazyre.Check(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	const module = "github.com/papierkram/papierkram/"
	total, all, seen := 0, 0, 0
	var lines []string
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init github.com/papierkram/papierkram/receipt @17 ms, 1.3 ms clock, 1428008 bytes, 8219 allocs
		f := strings.Fields(sc.Text())
		if len(f) < 10 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		seen++
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		all += n
		if !strings.HasPrefix(f[1], module) {
			continue
		}
		total += n
		lines = append(lines, sc.Text())
	}
	if seen < 50 || len(lines) < 5 {
		t.Fatalf("read %d initialisers, %d of ours: the trace format changed?\n%s", seen, len(lines), stderr.String())
	}
	const bound = 320 << 10
	if total > bound {
		t.Errorf("the module's packages allocate %d KB at start, more than %d KB:\n%s", total>>10, bound>>10, strings.Join(lines, "\n"))
	}
	// Dependencies count too: chroma's lexer registry alone allocated 2.7 MB and took a
	// third of a one-file command's start, which is why code is coloured by Pygments in its
	// own process (engine/pygments).
	boundAll := 6 << 20 // 4.0 MB now, 6.7 MB with chroma
	if raceBuild {
		boundAll = 10 << 20 // 7.1 MB now
	}
	if all > boundAll {
		t.Errorf("all packages allocate %d KB at start, more than %d KB: a dependency with an eager initialiser?\n%s", all>>10, boundAll>>10, stderr.String())
	}
	t.Logf("the module's packages allocate %d KB at start, all packages %d KB", total>>10, all>>10)
}
