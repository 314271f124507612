package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Measured is a Process that can tell what memory it holds (engine.Child.Memory of its
// programs); the supervisor recycles it when that passes Config.MaxMemory.
type Measured interface {
	Memory() (int64, error)
}

// pageSize is the unit of /proc/<pid>/statm.
var pageSize = int64(os.Getpagesize())

// treeMemory sums the anonymous resident memory (resident minus shared pages) of pid and its
// descendants, found through /proc/<pid>/task/*/children: a handful of small reads, about
// a millisecond, cheap enough after every job (smaps' proportional sizes took 80-120 ms for
// a browser; plain RSS counted the shared libraries once per process, four times a
// browser's proportional size).
func treeMemory(pid int) (int64, error) {
	var total int64
	seen := map[int]bool{}
	stack := []int{pid}
	for len(stack) > 0 && len(seen) < 4096 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[p] {
			continue
		}
		seen[p] = true
		dir := filepath.Join("/proc", strconv.Itoa(p))
		statm, err := os.ReadFile(filepath.Join(dir, "statm"))
		if err != nil {
			if p == pid {
				return 0, err
			}
			continue // gone meanwhile
		}
		// resident minus shared (file-backed) pages: the memory the process made itself
		// (heaps, JIT code, caches), which is what grows when a browser leaks.
		if f := bytes.Fields(statm); len(f) > 2 {
			resident, _ := strconv.ParseInt(string(f[1]), 10, 64)
			shared, _ := strconv.ParseInt(string(f[2]), 10, 64)
			total += max(resident-shared, 0) * pageSize
		}
		tasks, _ := os.ReadDir(filepath.Join(dir, "task"))
		for _, t := range tasks {
			children, _ := os.ReadFile(filepath.Join(dir, "task", t.Name(), "children"))
			for _, c := range strings.Fields(string(children)) {
				if n, err := strconv.Atoi(c); err == nil {
					stack = append(stack, n)
				}
			}
		}
	}
	return total, nil
}
