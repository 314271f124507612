package conform

import (
	"bytes"
	"html/template"
	"sync"
)

// reportPage renders a report for people: the verdict, then each failed rule with its
// clause, what it asks, how often and where.
var reportPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Profile}} validation</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1d1d1f}
.ok{color:#0a6b2d}.bad{color:#a4161a}table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid #ddd;padding:.4rem .5rem;text-align:left;vertical-align:top}
th{background:#f4f4f5}code{font-size:90%}
</style></head><body>
<h1>{{.Profile}}: {{if .Compliant}}<span class="ok">compliant</span>{{else}}<span class="bad">not compliant</span>{{end}}</h1>
<p>{{if .Claimed}}The file claims {{.Claimed}}.{{else}}The file claims no PDF/A conformance.{{end}}
{{len .Failed}} of {{.Checked}} checked rules failed.</p>
{{if .Failed}}<table><thead><tr><th>Rule</th><th>Requirement</th><th>Count</th><th>Where (first occurrences)</th></tr></thead><tbody>
{{range .Failed}}<tr><td><code>{{.Rule}}</code></td><td>{{.Description}}</td><td>{{.Count}}</td><td>{{range .Locations}}<div>{{.}}</div>{{end}}</td></tr>
{{end}}</tbody></table>{{end}}
</body></html>
`))
})

// HTML is the report as a web page.
func (r *ConformanceReport) HTML() []byte {
	var b bytes.Buffer
	if err := reportPage().Execute(&b, r); err != nil {
		panic(err) // the template and the report's fields are ours: a test renders both
	}
	return b.Bytes()
}
