package engine

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// runPrefix names the directory under which one server process keeps every temporary file of
// its engines (browser profiles, office profiles, job directories).
const runPrefix = "papierkram-run-"

// RunDir is a process's temporary root. It holds an exclusive lock on a file inside for as long
// as the process lives; the kernel releases it when the process dies, however it dies, so a
// later start can tell a dead instance's directory from a running one's.
type RunDir struct {
	Path string
	lock *os.File
}

// NewRunDir sweeps the directories that dead instances left under root (a SIGKILL leaves
// browser and office profiles of some megabytes each), then makes this process's own.
func NewRunDir(root string, log *slog.Logger) (*RunDir, error) {
	if root == "" {
		root = os.TempDir()
	}
	if log == nil {
		log = slog.Default()
	}
	if n, err := SweepRunDirs(root); err != nil {
		log.Warn("stale temporary directories not removed", "root", root, "error", err)
	} else if n > 0 {
		log.Info("removed temporary directories of instances that are gone", "root", root, "count", n)
	}
	// Made under another name and locked before it is renamed into view, so that a sweep
	// by another instance starting at the same moment never sees it unlocked.
	tmp, err := os.MkdirTemp(root, "papierkram-starting-")
	if err != nil {
		return nil, fmt.Errorf("temporary directory: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(tmp, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	dir := filepath.Join(root, runPrefix+strings.TrimPrefix(filepath.Base(tmp), "papierkram-starting-"))
	if err == nil {
		err = os.Rename(tmp, dir)
	}
	if err != nil {
		if f != nil {
			f.Close()
		}
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("temporary directory: %w", err)
	}
	return &RunDir{Path: dir, lock: f}, nil
}

// Close removes the directory and gives up its lock.
func (r *RunDir) Close() error {
	err := os.RemoveAll(r.Path)
	r.lock.Close()
	return err
}

// SweepRunDirs removes the run directories under root whose owner is gone (their lock can
// be taken) and answers how many. A directory whose lock is held belongs to a running
// instance and stays.
func SweepRunDirs(root string) (int, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), runPrefix) {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if held(filepath.Join(dir, "lock")) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// held tells whether a live process holds the lock file. A directory without one (its owner
// died between making it and locking) counts as not held.
func held(path string) bool {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	return false
}
