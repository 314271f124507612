// Command sets rebuilds the evaluation sets of receiptcheck and invoicecheck from their
// manifests, so that a figure in the README can be measured again on a new machine.
//
// The documents are other projects' files and are not copied into this repository; each
// manifest (bench/sets/receipts/*.tsv, bench/sets/invoices/*.tsv) names where each one lies
// (a public repository, a commit and a path), its SHA-256 and the name it gets in the set.
// A receipt's name carries its truth (merchant_DDMMYYYY_totalcents.jpg, read off the image by
// a person); an invoice carries its own truth as XML and keeps its name, whose hash decides
// whether it is held out (extracteval.HeldOut).
//
// The repositories are read from local git mirrors (-mirrors, one bare repository per
// owner+name, as the workplace's fetch tool leaves them): this command downloads nothing.
// -missing lists the repositories a manifest needs and the mirrors lack.
//
//	go run ./bench/sets [-mirrors DIR] [-out DIR] [-missing] MANIFEST...
//	go run ./bench/sets -line OWNER/NAME COMMIT PATH NAME   (prints one manifest line)
//
// Each manifest becomes the directory OUT/<manifest's name without .tsv>. A file whose bytes
// do not match the manifest's SHA-256 is an error: the set would no longer be the one measured.
package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// entry is one manifest line.
type entry struct {
	repo, commit, path, sum, name string
	line                          int
}

func main() {
	mirrors := flag.String("mirrors", "/work/.mirror", "directory of the git mirrors, one per owner+name")
	out := flag.String("out", filepath.Join(os.TempDir(), "sets"), "directory the sets are written into")
	missing := flag.Bool("missing", false, "only list the repositories the manifests need and the mirrors lack")
	line := flag.Bool("line", false, "print the manifest line of OWNER/NAME COMMIT PATH NAME")
	flag.Parse()
	var err error
	switch {
	case *line && flag.NArg() == 4:
		err = printLine(*mirrors, flag.Arg(0), flag.Arg(1), flag.Arg(2), flag.Arg(3))
	case *line, flag.NArg() == 0:
		fmt.Fprintln(os.Stderr, "usage: sets [-mirrors DIR] [-out DIR] [-missing] MANIFEST...\n       sets -line OWNER/NAME COMMIT PATH NAME")
		os.Exit(2)
	case *missing:
		err = listMissing(*mirrors, flag.Args())
	default:
		err = build(*mirrors, *out, flag.Args())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sets:", err)
		os.Exit(1)
	}
}

// read parses a manifest: tab-separated repo, commit, path, sha256, name; '#' starts a comment.
func read(manifest string) ([]entry, error) {
	f, err := os.Open(manifest)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var es []entry
	names := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		cols := strings.Split(text, "\t")
		if len(cols) != 5 {
			return nil, fmt.Errorf("%s:%d: %d columns, want 5 (repo, commit, path, sha256, name)", manifest, n, len(cols))
		}
		e := entry{repo: cols[0], commit: cols[1], path: cols[2], sum: cols[3], name: cols[4], line: n}
		if e.name != filepath.Base(e.name) || e.name == "." || e.name == ".." {
			return nil, fmt.Errorf("%s:%d: name %q is not a plain file name", manifest, n, e.name)
		}
		if names[e.name] {
			return nil, fmt.Errorf("%s:%d: name %q twice", manifest, n, e.name)
		}
		names[e.name] = true
		es = append(es, e)
	}
	return es, sc.Err()
}

// gitDir is where the fetch tool leaves a repository's mirror: a bare repository, or for
// some repositories a work tree whose .git holds it.
func gitDir(mirrors, repo string) string {
	dir := filepath.Join(mirrors, strings.Replace(repo, "/", "+", 1), "repo")
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		return filepath.Join(dir, ".git")
	}
	return dir
}

// show returns a file's bytes at a commit.
func show(mirrors, repo, commit, path string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.Command("git", "--git-dir", gitDir(mirrors, repo), "show", commit+":"+path)
	cmd.Stderr = &stderr
	data, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s@%s:%s: %w: %s", repo, commit, path, err, strings.TrimSpace(stderr.String()))
	}
	return data, nil
}

func sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

func printLine(mirrors, repo, commit, path, name string) error {
	data, err := show(mirrors, repo, commit, path)
	if err != nil {
		return err
	}
	fmt.Printf("%s\t%s\t%s\t%s\t%s\n", repo, commit, path, sum(data), name)
	return nil
}

func listMissing(mirrors string, manifests []string) error {
	var lack []string
	for _, m := range manifests {
		es, err := read(m)
		if err != nil {
			return err
		}
		for _, e := range es {
			if _, err := os.Stat(gitDir(mirrors, e.repo)); err != nil && !slices.Contains(lack, e.repo) {
				lack = append(lack, e.repo)
			}
		}
	}
	slices.Sort(lack)
	for _, r := range lack {
		fmt.Println("github:" + r)
	}
	return nil
}

func build(mirrors, out string, manifests []string) error {
	var errs []error
	for _, m := range manifests {
		es, err := read(m)
		if err != nil {
			return err
		}
		dir := filepath.Join(out, strings.TrimSuffix(filepath.Base(m), ".tsv"))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		wrote := 0
		for _, e := range es {
			data, err := show(mirrors, e.repo, e.commit, e.path)
			if err == nil && sum(data) != e.sum {
				err = fmt.Errorf("%s@%s:%s: SHA-256 %s, the manifest has %s", e.repo, e.commit, e.path, sum(data), e.sum)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("%s:%d: %w", m, e.line, err))
				continue
			}
			if err := os.WriteFile(filepath.Join(dir, e.name), data, 0o644); err != nil {
				return err
			}
			wrote++
		}
		fmt.Printf("%s: %d of %d files\n", dir, wrote, len(es))
	}
	return errors.Join(errs...)
}
