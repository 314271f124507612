package conform

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/pdf"
)

// Profile is a conformance level to check against.
type Profile string

// The profiles Check knows. Auto takes the one the file claims in its XMP (pdfaid:part
// and conformance), and PDF/A-3B when it claims none.
const (
	Auto   Profile = "auto"
	PDFA2B Profile = "PDF/A-2B"
	PDFA2U Profile = "PDF/A-2U"
	PDFA3B Profile = "PDF/A-3B"
	PDFA3U Profile = "PDF/A-3U"
)

// Profiles are the profiles a caller may name (and PDFUA1, added by ua.go).
var Profiles = []Profile{Auto, PDFA2B, PDFA2U, PDFA3B, PDFA3U}

// ParseProfile reads a profile name case-insensitively ("pdf/a-3b", "PDF/A-3b", "auto").
func ParseProfile(s string) (Profile, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Auto, nil
	}
	for _, p := range Profiles {
		if strings.EqualFold(s, string(p)) {
			return p, nil
		}
	}
	return "", fault.New(fault.InvalidInput, "unknown profile %q: use %s", s, strings.Join(names(), ", ")).With("field", "profile")
}

func names() []string {
	var out []string
	for _, p := range Profiles {
		out = append(out, string(p))
	}
	return out
}

// part is 2 or 3; unicode is level U.
func (p Profile) part() int {
	if strings.HasPrefix(string(p), "PDF/A-2") {
		return 2
	}
	return 3
}

// ConformanceReport is the outcome of a check, shaped like veraPDF's validation report.
type ConformanceReport struct {
	Profile   Profile `json:"profile" doc:"The profile the file was checked against."`
	Claimed   string  `json:"claimed,omitempty" doc:"What the file's XMP claims (pdfaid:part and conformance), e.g. PDF/A-3B; empty when it claims nothing."`
	Compliant bool    `json:"compliant" doc:"True when no checked rule failed."`
	// Failed lists each failed rule once, in clause order.
	Failed []Failure `json:"failed" doc:"Each failed rule once, in clause order, with how often it failed and where (first occurrences)."`
	// Checked is the number of rules the profile has and this validator checks.
	Checked int `json:"checkedRules" doc:"How many rules of the profile were checked."`
}

// Failure is one failed rule.
type Failure struct {
	Rule        string   `json:"rule" doc:"Clause and test number as veraPDF names them, e.g. 6.2.4.3-2."`
	Clause      string   `json:"clause" example:"6.2.4.3"`
	Test        int      `json:"test" example:"2"`
	Description string   `json:"description"`
	Count       int      `json:"count" doc:"How many objects failed the rule."`
	Locations   []string `json:"locations" doc:"Where, for the first few: an object number, a page, an XMP property."`
}

// maxLocations bounds the locations kept per rule: a rule failing on every glyph of a
// thousand-page file says enough after a few.
const maxLocations = 5

// Check validates data against p. A file that cannot be read at all is the error of
// pdf.ReadLenient (fault.InvalidPDF, EncryptedPDF, PayloadTooLarge); every defect of a
// file that can be read is a failed rule in the report.
func Check(ctx context.Context, data []byte, p Profile) (*ConformanceReport, error) {
	if p == "" {
		p = Auto
	}
	if !slices.Contains(Profiles, p) {
		return nil, fault.New(fault.InvalidInput, "unknown profile %q: use %s", p, strings.Join(names(), ", ")).With("field", "profile")
	}
	// Leniently: what pdfcpu's own validation would refuse is for the rules to report.
	d, err := pdf.ReadLenient(data)
	if fault.CodeOf(err) == fault.EncryptedPDF {
		// Encryption is itself the failure (6.1.3-2); nothing else can be read.
		c := newChecker(ctx, nil, data)
		c.profile = p
		c.fail("6.1.3-2", "trailer Encrypt")
		return c.report(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("conform: read: %w", err)
	}
	c := newChecker(ctx, d, data)
	c.readMetadata()
	if p == Auto {
		p = c.claimedProfile()
	}
	c.profile = p
	if err := c.run(); err != nil {
		return nil, err
	}
	return c.report(), nil
}

// checker holds one check's state.
type checker struct {
	ctx     context.Context
	doc     *pdf.Doc
	raw     []byte
	profile Profile
	fails   map[string]*Failure
	meta    *metadata
	walk    *walker
}

func newChecker(ctx context.Context, d *pdf.Doc, raw []byte) *checker {
	return &checker{ctx: ctx, doc: d, raw: raw, fails: map[string]*Failure{}}
}

// active tells whether rule belongs to the profile checked.
func (c *checker) active(rule string) bool {
	return isUA(rule) == (c.profile == PDFUA1)
}

// fail records that rule (clause-test) failed at loc; a rule of the other standard (a
// pass shared by both finds it) is not this check's business.
func (c *checker) fail(rule, loc string) {
	if !c.active(rule) {
		if _, ok := rules[rule]; !ok {
			panic("conform: unknown rule " + rule)
		}
		return
	}
	f := c.fails[rule]
	if f == nil {
		r, ok := rules[rule]
		if !ok {
			panic("conform: unknown rule " + rule) // a typo in this package, caught by tests
		}
		f = &Failure{Rule: rule, Clause: r.clause, Test: r.test, Description: r.text}
		c.fails[rule] = f
	}
	f.Count++
	if len(f.Locations) < maxLocations && loc != "" && !slices.Contains(f.Locations, loc) {
		f.Locations = append(f.Locations, loc)
	}
}

// check records a failure of rule at loc unless ok.
func (c *checker) check(ok bool, rule, loc string) {
	if !ok {
		c.fail(rule, loc)
	}
}

func (c *checker) run() (err error) {
	// A panic here is a bug of this package, never a verdict on the file.
	defer func() {
		if v := recover(); v != nil {
			err = fault.New(fault.Internal, "the PDF/A check failed on this file: %v", v)
		}
	}()
	c.walk = &walker{c: c, xref: c.doc.Context().XRefTable, seen: map[string]bool{}, transparent: map[int]bool{}, pageGroupCS: map[int]bool{}, pagesWithAnnots: map[int]types.Dict{}}
	passes := []func(){c.checkFile, c.checkObjects, c.checkContent, c.checkMetadata}
	if c.profile == PDFUA1 {
		passes = []func(){c.checkObjects, c.checkContent, c.checkUA}
	}
	for _, pass := range passes {
		if err := c.ctx.Err(); err != nil {
			return fault.FromContext(c.ctx, "the PDF/A check")
		}
		pass()
	}
	return nil
}

func (c *checker) report() *ConformanceReport {
	r := &ConformanceReport{Profile: c.profile, Failed: []Failure{}}
	if c.meta != nil && c.meta.part != "" {
		r.Claimed = "PDF/A-" + c.meta.part + strings.ToUpper(c.meta.conformance)
	}
	for _, f := range c.fails {
		r.Failed = append(r.Failed, *f)
	}
	slices.SortFunc(r.Failed, func(a, b Failure) int { return compareRules(a.Rule, b.Rule) })
	r.Compliant = len(r.Failed) == 0
	for id := range rules {
		if c.active(id) {
			r.Checked++
		}
	}
	return r
}

// compareRules orders rule ids by their numbers: 6.2.10-1 after 6.2.9-3.
func compareRules(a, b string) int {
	na, nb := ruleNumbers(a), ruleNumbers(b)
	return slices.Compare(na, nb)
}

func ruleNumbers(id string) []int {
	var out []int
	for _, f := range strings.FieldsFunc(id, func(r rune) bool { return r == '.' || r == '-' }) {
		n, _ := strconv.Atoi(f)
		out = append(out, n)
	}
	return out
}

// claimedProfile is the profile the XMP claims, PDF/A-3B when none (or one this package
// does not check: PDF/A-1, level A is checked as level B).
func (c *checker) claimedProfile() Profile {
	if c.meta == nil {
		return PDFA3B
	}
	switch c.meta.part + strings.ToUpper(c.meta.conformance) {
	case "2U":
		return PDFA2U
	case "2B", "2A":
		return PDFA2B
	case "3U":
		return PDFA3U
	}
	return PDFA3B
}

// Require checks a PDF this service made against p before it leaves: a file that fails is
// fault.Internal naming the failed rules (our defect, never the caller's), so no
// non-conforming PDF/A is returned as if it conformed.
//
// Rules named in accepted are the caller's to report (a PDF/UA figure without alternate
// text, when the caller's HTML gave none): they do not make the check fail.
func Require(ctx context.Context, data []byte, p Profile, what string, accepted ...string) error {
	r, err := Check(ctx, data, p)
	if err != nil {
		return fault.Wrap(fault.Internal, err, "%s cannot be checked against %s", what, p)
	}
	var ids []string
	var failed []Failure
	for _, f := range r.Failed {
		if slices.Contains(accepted, f.Rule) {
			continue
		}
		ids = append(ids, fmt.Sprintf("%s (%s)", f.Rule, f.Description))
		failed = append(failed, f)
	}
	if len(failed) == 0 {
		return nil
	}
	return fault.New(fault.Internal, "%s fails %s: %s", what, r.Profile, strings.Join(ids, "; ")).With("failedRules", failed)
}
