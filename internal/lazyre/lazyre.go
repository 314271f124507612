// Package lazyre is a regular expression compiled on first use.
//
// One binary carries every capability, and a package-level regexp.MustCompile runs at
// every start, also of `papierkram xrechnung validate FILE`, which uses few of them: the
// receipt reader alone compiled about eighty at start (#24). A Regexp from New compiles
// when it is first matched. A bad expression would panic at first use, so every package
// that declares some calls Check in a test.
package lazyre

import (
	"fmt"
	"regexp"
	"sync"
)

// Regexp is a regexp.Regexp compiled on first use. Its methods are regexp.Regexp's.
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
}

// declared is every Regexp New made, for Check. Package initialisation is serial, and New
// is meant for package variables only.
var declared []*Regexp

// New returns expr, to be compiled on first use. Call it for package variables only.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr}
	declared = append(declared, r)
	return r
}

// Check compiles every expression declared with New in the program (a test binary: the
// package under test and what it imports) and reports the first that does not compile.
func Check() error {
	for _, r := range declared {
		if _, err := regexp.Compile(r.expr); err != nil {
			return fmt.Errorf("lazyre: %w", err)
		}
	}
	return nil
}

// Len is how many expressions New declared.
func Len() int { return len(declared) }

// Regexp is the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.expr) })
	return r.re
}

func (r *Regexp) String() string                       { return r.expr }
func (r *Regexp) MatchString(s string) bool            { return r.Regexp().MatchString(s) }
func (r *Regexp) Match(b []byte) bool                  { return r.Regexp().Match(b) }
func (r *Regexp) FindString(s string) string           { return r.Regexp().FindString(s) }
func (r *Regexp) FindStringIndex(s string) []int       { return r.Regexp().FindStringIndex(s) }
func (r *Regexp) FindStringSubmatch(s string) []string { return r.Regexp().FindStringSubmatch(s) }
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.Regexp().FindStringSubmatchIndex(s)
}
func (r *Regexp) FindAllString(s string, n int) []string { return r.Regexp().FindAllString(s, n) }
func (r *Regexp) FindAllStringIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringIndex(s, n)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.Regexp().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.Regexp().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.Regexp().ReplaceAllString(src, repl)
}
func (r *Regexp) ReplaceAllLiteralString(src, repl string) string {
	return r.Regexp().ReplaceAllLiteralString(src, repl)
}
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.Regexp().ReplaceAllStringFunc(src, repl)
}
func (r *Regexp) Find(b []byte) []byte             { return r.Regexp().Find(b) }
func (r *Regexp) FindIndex(b []byte) []int         { return r.Regexp().FindIndex(b) }
func (r *Regexp) FindSubmatch(b []byte) [][]byte   { return r.Regexp().FindSubmatch(b) }
func (r *Regexp) FindAll(b []byte, n int) [][]byte { return r.Regexp().FindAll(b, n) }
func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	return r.Regexp().FindAllSubmatch(b, n)
}
func (r *Regexp) FindAllSubmatchIndex(b []byte, n int) [][]int {
	return r.Regexp().FindAllSubmatchIndex(b, n)
}
func (r *Regexp) ReplaceAll(src, repl []byte) []byte { return r.Regexp().ReplaceAll(src, repl) }
func (r *Regexp) ReplaceAllFunc(src []byte, repl func([]byte) []byte) []byte {
	return r.Regexp().ReplaceAllFunc(src, repl)
}
func (r *Regexp) FindAllIndex(b []byte, n int) [][]int { return r.Regexp().FindAllIndex(b, n) }
func (r *Regexp) FindSubmatchIndex(b []byte) []int     { return r.Regexp().FindSubmatchIndex(b) }
func (r *Regexp) Split(s string, n int) []string       { return r.Regexp().Split(s, n) }
func (r *Regexp) SubexpIndex(name string) int          { return r.Regexp().SubexpIndex(name) }
func (r *Regexp) SubexpNames() []string                { return r.Regexp().SubexpNames() }
