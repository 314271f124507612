package engine

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A SIGKILLed server left its browser and office profiles behind (about 13 MB an instance)
// and no later start removed them. Every temporary file now lives under a run directory whose
// lock dies with its process; the next start sweeps what dead instances left, and only that.
func TestRunDirSweepsOnlyDeadInstances(t *testing.T) {
	if root := os.Getenv("PAPIERKRAM_RUNDIR_CHILD"); root != "" {
		r, err := NewRunDir(root, nil)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		os.WriteFile(filepath.Join(r.Path, "profile.bin"), make([]byte, 1<<20), 0o600)
		fmt.Println(r.Path)
		select {} // until killed
	}
	root := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^TestRunDirSweepsOnlyDeadInstances$")
	child.Env = append(os.Environ(), "PAPIERKRAM_RUNDIR_CHILD="+root)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || strings.HasPrefix(line, "error") {
		t.Fatalf("child: %q %v", line, err)
	}
	theirs := strings.TrimSpace(line)

	// While the child lives, its directory is left alone.
	if n, err := SweepRunDirs(root); n != 0 || err != nil {
		t.Fatalf("swept a live instance's directory: %d %v", n, err)
	}
	ours, err := NewRunDir(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close()
	if _, err := os.Stat(filepath.Join(theirs, "profile.bin")); err != nil {
		t.Fatalf("live instance's files: %v", err)
	}

	child.Process.Signal(syscall.SIGKILL)
	child.Wait()
	if n, err := SweepRunDirs(root); n != 1 || err != nil {
		t.Fatalf("swept %d, %v", n, err)
	}
	if _, err := os.Stat(theirs); !os.IsNotExist(err) {
		t.Fatalf("the dead instance's directory is still there: %v", err)
	}
	// Our own (held by this process) stays, and goes with Close.
	if _, err := os.Stat(filepath.Join(ours.Path, "lock")); err != nil {
		t.Fatal(err)
	}
	if err := ours.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 0 {
		t.Fatalf("left under root: %v", entries)
	}
}
