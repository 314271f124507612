// Command pdfacheck measures the PDF/A validator (pdf/conform) on test files it was not
// tuned on: every PDF under the directories given whose name says pass or fail and which
// PDF/A part it is for (veraPDF-corpus's PDF_A-2u folder and TWG test files, the BFO
// PDF/A test suite). It prints the files where our verdict differs and the agreement.
//
//	go run ./bench/pdfacheck DIR...
//
// The tuning corpus, ../shared/corpus/verapdf, is measured by TestVeraPDFCorpus.
package main

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/papierkram/papierkram/pdf/conform"
)

var (
	rePass = regexp.MustCompile(`(?i)[-_]pass[-_.]`)
	reFail = regexp.MustCompile(`(?i)[-_]fail[-_.]`)
)

// profileOf is the profile a test file is for, from its folder or name; "" to skip it.
func profileOf(path string) conform.Profile {
	name := strings.ToLower(filepath.Base(path))
	switch {
	case strings.Contains(path, "PDF_A-2u"):
		return conform.PDFA2U
	case strings.Contains(path, "PDF_A-2b"), strings.Contains(name, "pdfa2"):
		return conform.PDFA2B
	case strings.Contains(path, "PDF_A-3b"), strings.Contains(name, "pdfa3"):
		return conform.PDFA3B
	}
	return ""
}

func main() {
	verbose := flag.Bool("v", false, "list every file")
	flag.Parse()
	var n, agree, pass, passAgree int
	for _, dir := range flag.Args() {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".pdf") {
				return err
			}
			p := profileOf(path)
			wantPass, wantFail := rePass.MatchString(filepath.Base(path)), reFail.MatchString(filepath.Base(path))
			if p == "" || wantPass == wantFail {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			r, err := conform.Check(context.Background(), data, p)
			compliant := err == nil && r.Compliant
			ok := compliant == wantPass
			n++
			if wantPass {
				pass++
			}
			if ok {
				agree++
				if wantPass {
					passAgree++
				}
			}
			if !ok || *verbose {
				var got []string
				if err != nil {
					got = append(got, "error: "+err.Error())
				} else {
					for _, f := range r.Failed {
						got = append(got, f.Rule)
					}
				}
				fmt.Printf("%-5v %s (%s): %s\n", ok, filepath.Base(path), p, strings.Join(got, " "))
			}
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if n == 0 {
		fmt.Fprintln(os.Stderr, "no test files found")
		os.Exit(1)
	}
	fmt.Printf("agreement %d/%d = %.1f %%; files that must pass %d/%d\n", agree, n, 100*float64(agree)/float64(n), passAgree, pass)
}
