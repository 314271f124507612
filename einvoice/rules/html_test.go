package rules

import (
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// TestHTMLBannerMatchesTable: the banner counts each severity as the table names it; a
// failed information rule is not called a warning.
func TestHTMLBannerMatchesTable(t *testing.T) {
	r := &Report{Valid: true, Syntax: "CII", Summary: Summary{Checked: 4, Passed: 1, Warnings: 3}, Results: []Result{
		{ID: "BR-OK", Severity: Fatal, Passed: true},
		{ID: "BR-W1", Severity: Warning, Message: "eine Warnung"},
		{ID: "BR-I1", Severity: Info, Message: "ein Hinweis"},
		{ID: "BR-I2", Severity: Info, Message: "noch ein Hinweis"},
	}}
	doc, err := html.Parse(strings.NewReader(string(r.HTML())))
	if err != nil {
		t.Fatal(err)
	}
	var banner string
	severities := map[string]int{}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			for _, a := range n.Attr {
				if a.Key == "class" && strings.HasPrefix(a.Val, "verdict") && n.FirstChild != nil {
					banner = n.FirstChild.Data
				}
				if a.Key == "class" && n.Data == "td" && (a.Val == "warning" || a.Val == "information" || a.Val == "fatal") && n.FirstChild != nil {
					severities[n.FirstChild.Data]++
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	if severities["warning"] != 1 || severities["information"] != 2 {
		t.Fatalf("table severities %v", severities)
	}
	if banner != "Valid: no fatal rule failed, 1 warning(s), 2 information note(s)." {
		t.Errorf("banner %q", banner)
	}
}
