package pagerange

import (
	"strconv"
	"strings"

	"github.com/papierkram/papierkram/fault"
)

// Range is an inclusive run of 1-based pages.
type Range struct{ From, To int }

// Len is the number of pages in r.
func (r Range) Len() int { return r.To - r.From + 1 }

func (r Range) String() string {
	if r.From == r.To {
		return strconv.Itoa(r.From)
	}
	return strconv.Itoa(r.From) + "-" + strconv.Itoa(r.To)
}

// Spec is a parsed page specification.
type Spec []Range

// maxSpecLen bounds the text of a specification; a longer one is surely not meant.
const maxSpecLen = 4096

// Parse reads spec for a document of pageCount pages. An empty spec means "all".
// Every error has code fault.InvalidPageSpec and says what is wrong.
func Parse(spec string, pageCount int) (Spec, error) {
	spec = strings.TrimSpace(spec)
	if len(spec) > maxSpecLen {
		return nil, fault.New(fault.InvalidPageSpec, "the page specification is longer than %d characters", maxSpecLen)
	}
	if pageCount < 1 {
		return nil, fault.New(fault.InvalidPageSpec, "the document has no pages")
	}
	if spec == "" || strings.EqualFold(spec, "all") {
		s := make(Spec, pageCount)
		for i := range s {
			s[i] = Range{i + 1, i + 1}
		}
		return s, nil
	}
	var s Spec
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fault.New(fault.InvalidPageSpec, "page specification %q has an empty item; use all, N, N-M or a comma-separated list such as 1-3,7", spec)
		}
		from, to, isRange := strings.Cut(item, "-")
		a, err := page(from, item, pageCount)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if strings.TrimSpace(to) == "" {
				b = pageCount // "5-": to the last page
			} else if b, err = page(to, item, pageCount); err != nil {
				return nil, err
			}
		}
		if b < a {
			return nil, fault.New(fault.InvalidPageSpec, "range %q runs backwards; write the lower page first", item)
		}
		s = append(s, Range{a, b})
	}
	return s, nil
}

func page(text, item string, pageCount int) (int, error) {
	text = strings.TrimSpace(text)
	n, err := strconv.Atoi(text)
	if err != nil || text == "" || text[0] == '+' || text[0] == '-' {
		return 0, fault.New(fault.InvalidPageSpec, "cannot read %q as a page or range; use all, N, N-M or a comma-separated list such as 1-3,7", item)
	}
	if n < 1 {
		return 0, fault.New(fault.InvalidPageSpec, "page %d does not exist: pages count from 1", n)
	}
	if n > pageCount {
		return 0, fault.New(fault.InvalidPageSpec, "page %d is beyond the last page (%d)", n, pageCount)
	}
	return n, nil
}

// Pages lists every page of s in order, repeats included.
func (s Spec) Pages() []int {
	var out []int
	for _, r := range s {
		for p := r.From; p <= r.To; p++ {
			out = append(out, p)
		}
	}
	return out
}

// Count is the number of pages Pages returns, without building the list.
func (s Spec) Count() int {
	n := 0
	for _, r := range s {
		n += r.Len()
	}
	return n
}

// Set reports the distinct pages of s.
func (s Spec) Set() map[int]bool {
	m := make(map[int]bool, s.Count())
	for _, r := range s {
		for p := r.From; p <= r.To; p++ {
			m[p] = true
		}
	}
	return m
}

func (s Spec) String() string {
	parts := make([]string, len(s))
	for i, r := range s {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}
