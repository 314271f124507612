package pagerange

import (
	"reflect"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/fault"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		spec  string
		n     int
		want  Spec
		pages []int
	}{
		{"all", 3, Spec{{1, 1}, {2, 2}, {3, 3}}, []int{1, 2, 3}},
		{"", 2, Spec{{1, 1}, {2, 2}}, []int{1, 2}},
		{"ALL", 1, Spec{{1, 1}}, []int{1}},
		{"1", 5, Spec{{1, 1}}, []int{1}},
		{"1-3", 5, Spec{{1, 3}}, []int{1, 2, 3}},
		{"1,3,5", 5, Spec{{1, 1}, {3, 3}, {5, 5}}, []int{1, 3, 5}},
		{"1-3,7", 9, Spec{{1, 3}, {7, 7}}, []int{1, 2, 3, 7}},
		{"1-3,4-6", 6, Spec{{1, 3}, {4, 6}}, []int{1, 2, 3, 4, 5, 6}},
		{" 2 - 3 , 1 ", 3, Spec{{2, 3}, {1, 1}}, []int{2, 3, 1}},
		{"4-", 6, Spec{{4, 6}}, []int{4, 5, 6}},
		{"2-2", 3, Spec{{2, 2}}, []int{2}},
	} {
		got, err := Parse(c.spec, c.n)
		if err != nil {
			t.Errorf("Parse(%q, %d): %v", c.spec, c.n, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) || !reflect.DeepEqual(got.Pages(), c.pages) || got.Count() != len(c.pages) {
			t.Errorf("Parse(%q, %d) = %v pages %v", c.spec, c.n, got, got.Pages())
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		spec string
		n    int
		msg  string
	}{
		{"0", 5, "count from 1"},
		{"3-1", 5, "backwards"},
		{"7", 5, "beyond the last page (5)"},
		{"1-9", 5, "beyond the last page (5)"},
		{"abc", 5, `cannot read "abc"`},
		{"1,,2", 5, "empty item"},
		{"1-2-3", 5, "cannot read"},
		{"-3", 5, "cannot read"},
		{"+3", 5, "cannot read"},
		{"1.5", 5, "cannot read"},
		{"99999999999999999999", 5, "cannot read"},
		{"1", 0, "no pages"},
		{strings.Repeat("1,", 3000), 5, "longer than"},
	} {
		_, err := Parse(c.spec, c.n)
		if fault.CodeOf(err) != fault.InvalidPageSpec || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Parse(%q, %d) = %v, want invalid_page_spec with %q", c.spec, c.n, err, c.msg)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"all", "1", "1-3", "1,3,5", "1-3,7", "4-", "3-1", "0", "x", " 1 - 2 "} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, spec string, n int) {
		if n > 10000 {
			n = 10000
		}
		s, err := Parse(spec, n)
		if err != nil {
			if fault.CodeOf(err) != fault.InvalidPageSpec {
				t.Fatalf("uncoded error %v", err)
			}
			return
		}
		for _, r := range s {
			if r.From < 1 || r.To > n || r.From > r.To {
				t.Fatalf("Parse(%q, %d) gave out-of-range %v", spec, n, r)
			}
		}
		// The canonical form parses to the same spec (where it fits the length limit).
		if len(s.String()) > maxSpecLen {
			return
		}
		again, err := Parse(s.String(), n)
		if err != nil || !equal(again, s) {
			t.Fatalf("round trip of %q: %v %v", s.String(), again, err)
		}
	})
}

func equal(a, b Spec) bool { return reflect.DeepEqual(a, b) }
