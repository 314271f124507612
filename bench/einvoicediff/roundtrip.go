package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/papierkram/papierkram/einvoice"
	"github.com/papierkram/papierkram/einvoice/syntax"
)

// roundTrip reads each officially valid input, generates it again and judges the output
// officially: what the official rules accepted must stay acceptable after parse and
// generate. Inputs are officially valid, so every fatal id on an output is a new one.
func roundTrip(work string, sets map[string]string, docs []*doc) {
	var (
		valid, readErrs, genErrs []string
		outs                     []*doc
		srcOf                    = map[*doc]*doc{}
		changed                  = map[string][]string{} // model path → files whose second reading differs there
		lost, added              = map[string][]string{}, map[string][]string{}
	)
	for _, d := range docs {
		if !d.offOK {
			continue
		}
		valid = append(valid, d.name)
		out, inv, err := regenerate(d.data)
		switch {
		case err != nil && strings.HasPrefix(err.Error(), "read: "):
			readErrs = append(readErrs, fmt.Sprintf("%s: %v", d.name, err))
			continue
		case err != nil:
			genErrs = append(genErrs, fmt.Sprintf("%s: %v", d.name, err))
			continue
		}
		o := newDoc(d.name, out)
		if o == nil {
			genErrs = append(genErrs, d.name+": the output is no e-invoice this harness judges")
			continue
		}
		if !slices.Equal(o.sets, d.sets) {
			// Not an error in itself, but the output is then held to other rules.
			fmt.Printf("  %s: judged by %v after the round trip, by %v before\n", d.name, o.sets, d.sets)
		}
		srcOf[o] = d
		outs = append(outs, o)
		before, after := leafPaths(d.data), leafPaths(o.data)
		for p := range before {
			if !after[p] {
				lost[p] = append(lost[p], d.name)
			}
		}
		for p := range after {
			if !before[p] {
				added[p] = append(added[p], d.name)
			}
		}
		if again, _, err := syntax.Read(context.Background(), out); err != nil {
			readErrs = append(readErrs, fmt.Sprintf("%s: reading the generated file: %v", d.name, err))
		} else {
			// What generate adds when the input had none is no change of content.
			if inv.BusinessProcess == "" {
				again.BusinessProcess = ""
			}
			if inv.TypeCode == "" {
				again.TypeCode = ""
			}
			for _, p := range modelDiff(inv, again) {
				changed[p] = append(changed[p], d.name)
			}
		}
	}
	judge(work, sets, outs)

	clean := 0
	byID := map[string][]string{}
	oursRefuse := map[string]int{}
	refused := 0
	for _, o := range outs {
		var ids []string
		switch {
		case o.unjudged:
			ids = []string{"(official stylesheet failed on it)"}
		case !o.schemaOK:
			ids = append(ids, "(schema: "+xsdReason(o.schemaErr)+")")
		}
		for id := range o.official {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		if len(ids) == 0 && o.offOK {
			clean++
		}
		for _, id := range ids {
			byID[id] = append(byID[id], o.name)
		}
		if !o.ourValid {
			// rules.Generate would refuse it: the generate endpoint answers 422.
			refused++
			for id := range o.ours {
				oursRefuse[id]++
			}
		}
		if *verbose && len(ids) > 0 {
			fmt.Printf("  %s: %v\n", o.name, ids)
		}
		if *rtout != "" {
			keep(o, srcOf[o], ids)
		}
	}
	fmt.Printf("\nround trip (read, JSON, generate in the same syntax, judge officially):\n")
	fmt.Printf("  inputs officially valid          %d\n", len(valid))
	fmt.Printf("  our Read failed                  %d\n", len(readErrs))
	fmt.Printf("  our Generate failed              %d\n", len(genErrs))
	fmt.Printf("  round-tripped officially clean   %d of %d (%.1f %%)\n", clean, len(valid), 100*float64(clean)/float64(max(len(valid), 1)))
	fmt.Printf("  refused by our validator         %d (rules.Generate would answer 422)\n", refused)
	for _, e := range append(readErrs, genErrs...) {
		fmt.Printf("    %s\n", e)
	}
	if len(byID) > 0 {
		fmt.Printf("  official fatal ids on the round-tripped files (files):\n")
		keys := make([]string, 0, len(byID))
		for k := range byID {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool {
			return len(byID[keys[i]]) > len(byID[keys[j]]) || len(byID[keys[i]]) == len(byID[keys[j]]) && keys[i] < keys[j]
		})
		for _, k := range keys {
			fmt.Printf("    %-40s %4d  e.g. %s\n", k, len(byID[k]), byID[k][0])
		}
	}
	listFiles("model read again from the generated file differs", changed, 0)
	listFiles("element or attribute paths with content in the input, none in the output", lost, 60)
	listFiles("element or attribute paths with content in the output, none in the input", added, 30)
	if len(oursRefuse) > 0 {
		fmt.Printf("  our fatal ids on the round-tripped files (files):\n")
		keys := make([]string, 0, len(oursRefuse))
		for k := range oursRefuse {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Printf("    %-40s %4d\n", k, oursRefuse[k])
		}
	}
}

// regenerate is what a client of the API does: parse (JSON out), then generate from that
// JSON in the document's own syntax, its BT-24 kept.
func regenerate(data []byte) ([]byte, *einvoice.Invoice, error) {
	inv, in, err := syntax.Read(context.Background(), data)
	if err != nil {
		return nil, nil, fmt.Errorf("read: %w", err)
	}
	b, err := json.Marshal(inv)
	if err != nil {
		return nil, nil, fmt.Errorf("read: to JSON: %w", err)
	}
	var again einvoice.Invoice
	if err := json.Unmarshal(b, &again); err != nil {
		return nil, nil, fmt.Errorf("read: from JSON: %w", err)
	}
	out, err := syntax.Generate(&again, in.Syntax, "")
	if err != nil {
		return nil, nil, fmt.Errorf("generate: %w", err)
	}
	return out, inv, nil
}

// modelDiff names the JSON paths (list indices as []) where two models differ.
func modelDiff(a, b *einvoice.Invoice) []string {
	fa, fb := flatJSON(a), flatJSON(b)
	seen := map[string]bool{}
	for k, v := range fa {
		if fb[k] != v {
			seen[listIndex.ReplaceAllString(k, "[]")] = true
		}
	}
	for k := range fb {
		if _, ok := fa[k]; !ok {
			seen[listIndex.ReplaceAllString(k, "[]")] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	return out
}

var listIndex = regexp.MustCompile(`\[\d+\]`)

// flatJSON lists a model as path → value, numbers as written (a changed scale counts).
func flatJSON(inv *einvoice.Invoice) map[string]string {
	b, _ := json.Marshal(inv)
	var v any
	_ = json.Unmarshal(b, &v)
	out := map[string]string{}
	var walk func(v any, p string)
	walk = func(v any, p string) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(e, p+"."+k)
			}
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprintf("%s[%d]", p, i))
			}
		default:
			s, _ := json.Marshal(x)
			out[p] = string(s)
		}
	}
	walk(v, "")
	return out
}

// xsdElem shortens an xmllint complaint to its element and kind, so that files group.
var xsdElem = regexp.MustCompile(`Element '([^']+)'(?:, attribute '([^']+)')?: ([^.:]+)`)

func xsdReason(s string) string {
	m := xsdElem.FindStringSubmatch(s)
	if m == nil {
		return s
	}
	el := m[1]
	if i := strings.LastIndexByte(el, '}'); i >= 0 {
		el = el[i+1:]
	}
	if m[2] != "" {
		el += "/@" + m[2]
	}
	return el + ": " + m[3]
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// keep writes a round-tripped file beside its source, for reading the failures.
func keep(o, src *doc, ids []string) {
	check(os.MkdirAll(*rtout, 0o755))
	base := unsafeName.ReplaceAllString(strings.TrimPrefix(src.name, "/"), "_")
	if len(base) > 150 {
		// The end names the file; the hash keeps two files with the same end apart.
		base = fmt.Sprintf("%x", sha256.Sum256([]byte(src.name)))[:8] + "-" + base[len(base)-140:]
	}
	check(os.WriteFile(filepath.Join(*rtout, base+".in.xml"), src.data, 0o644))
	check(os.WriteFile(filepath.Join(*rtout, base+".out.xml"), o.data, 0o644))
	if len(ids) > 0 {
		check(os.WriteFile(filepath.Join(*rtout, base+".ids"), []byte(strings.Join(ids, "\n")+"\n"+o.schemaErr+"\n"), 0o644))
	}
}

// listFiles prints what maps to files, most files first, at most n lines (0: all).
func listFiles(title string, m map[string][]string, n int) {
	if len(m) == 0 {
		return
	}
	files := map[string]bool{}
	for _, fs := range m {
		for _, f := range fs {
			files[f] = true
		}
	}
	fmt.Printf("  %s: %d files; by path (files):\n", title, len(files))
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return len(m[keys[i]]) > len(m[keys[j]]) || len(m[keys[i]]) == len(m[keys[j]]) && keys[i] < keys[j]
	})
	for i, k := range keys {
		if n > 0 && i == n {
			fmt.Printf("    … %d more\n", len(keys)-n)
			break
		}
		fmt.Printf("    %-90s %4d  e.g. %s\n", k, len(m[k]), m[k][0])
	}
}

// leafPaths are the paths (local names below the root) of the elements with text and of
// the attributes, namespace declarations aside.
func leafPaths(b []byte) map[string]bool {
	out := map[string]bool{}
	dec := xml.NewDecoder(bytes.NewReader(b))
	var path []string
	var text []string
	for {
		t, err := dec.Token()
		if err != nil {
			return out
		}
		switch t := t.(type) {
		case xml.StartElement:
			path = append(path, t.Name.Local)
			text = append(text, "")
			p := strings.Join(path[1:], "/")
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || a.Name.Local == "xmlns" || a.Name.Space != "" {
					continue
				}
				out[p+"/@"+a.Name.Local] = true
			}
		case xml.CharData:
			if len(text) > 0 {
				text[len(text)-1] += string(t)
			}
		case xml.EndElement:
			if strings.TrimSpace(text[len(text)-1]) != "" {
				out[strings.Join(path[1:], "/")] = true
			}
			path, text = path[:len(path)-1], text[:len(text)-1]
		}
	}
}
