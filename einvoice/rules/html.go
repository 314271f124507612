package rules

import (
	"bytes"
	"html/template"
	"slices"
	"sync"
)

// The report as a page for people: the failed rules first, then the counts of what passed.
var page = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>E-invoice validation report</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:70rem;color:#1b1b1b}
h1{font-size:1.4rem}.verdict{padding:.6rem 1rem;border-radius:.4rem;font-weight:600}
.ok{background:#e3f4e6;color:#135c22}.bad{background:#fbe4e4;color:#8a1010}
table{border-collapse:collapse;width:100%;margin-top:1rem}th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #ddd;vertical-align:top}
td.id{white-space:nowrap;font-weight:600}.fatal{color:#8a1010}.warning{color:#8a5a00}.information{color:#1f4e8a}code{font-size:.85em;color:#555;word-break:break-all}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{color:#666}
</style></head><body>
<h1>E-invoice validation report</h1>
<p class="verdict {{if .Valid}}ok{{else}}bad{{end}}">{{if .Valid}}Valid: no fatal rule failed{{else if eq .Summary.Verdict "notAnEInvoice"}}Not an e-invoice: the document fails the schema of its format; {{.Summary.Errors}} fatal rule violation(s){{else}}An e-invoice with errors: {{.Summary.Errors}} fatal business rule violation(s){{end}}{{if .Warnings}}, {{.Warnings}} warning(s){{end}}{{if .Notes}}, {{.Notes}} information note(s){{end}}.</p>
<dl><dt>Syntax</dt><dd>{{.Syntax}} {{.DocumentType}}</dd>
{{with .Guideline}}<dt>Guideline (BT-24)</dt><dd><code>{{.}}</code></dd>{{end}}
{{with .Profile}}<dt>Profile</dt><dd>{{.}}</dd>{{end}}
<dt>Judged by</dt><dd>{{.RuleSet.Name}} {{.RuleSet.Version}} ({{if eq .RuleSet.ChosenBy "request"}}asked for{{else}}named by the document{{end}})</dd>
<dt>Rule sets</dt><dd>{{range $i, $r := .RuleSets}}{{if $i}}, {{end}}{{$r}}{{end}}</dd>
<dt>Checks</dt><dd>{{.Summary.Checked}} ({{.Summary.Passed}} passed)</dd></dl>
{{with .Failed}}<table><thead><tr><th>Rule</th><th>Severity</th><th>What is wrong</th><th>Where</th></tr></thead><tbody>
{{range .}}<tr><td class="id">{{.ID}}</td><td class="{{.Severity}}">{{.Severity}}</td><td>{{.Message}}</td><td><code>{{.Location}}</code>{{with .Line}} (line {{.}}){{end}}</td></tr>
{{end}}</tbody></table>{{end}}
</body></html>
`))
})

// HTML renders the report as a page, fatal failures first.
func (r *Report) HTML() []byte {
	failed := r.Failed()
	slices.SortStableFunc(failed, func(x, y Result) int {
		if (x.Severity == Fatal) != (y.Severity == Fatal) {
			if x.Severity == Fatal {
				return -1
			}
			return 1
		}
		return 0
	})
	// The banner counts by the severities the table shows: a failed information rule is
	// not a warning.
	var warnings, notes int
	for _, f := range failed {
		switch f.Severity {
		case Warning:
			warnings++
		case Info:
			notes++
		}
	}
	var b bytes.Buffer
	if err := page().Execute(&b, struct {
		*Report
		Failed          []Result
		Warnings, Notes int
	}{r, failed, warnings, notes}); err != nil {
		panic(err) // the template is ours and the data plain: a failure is a bug
	}
	return b.Bytes()
}
