package server

import (
	"html/template"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/fault"
)

// docs serves a reference page built from the OpenAPI document on the server: no script, no
// CDN, so it works on a machine without internet.
func (s *Server) docs(w http.ResponseWriter, r *http.Request) {
	type param struct {
		Name, In, Doc, Type string
		Required            bool
	}
	type field struct {
		Name, Doc string
		Required  bool
	}
	type operation struct {
		Method, Path, Summary, Description, Anchor string
		Implemented                                bool
		Params                                     []param
		BodyTypes                                  []string
		Fields                                     []field
		Responses                                  []string
	}
	type group struct {
		Tag string
		Ops []operation
	}
	oapi := s.api.OpenAPI()
	byTag := map[string]*group{}
	var tags []string
	for path, item := range oapi.Paths {
		for method, op := range map[string]*huma.Operation{"GET": item.Get, "POST": item.Post, "PUT": item.Put, "DELETE": item.Delete, "PATCH": item.Patch} {
			if op == nil {
				continue
			}
			o := operation{Method: method, Path: path, Summary: op.Summary, Description: op.Description, Anchor: op.OperationID, Implemented: op.Extensions["x-implemented"] != false}
			for _, p := range op.Parameters {
				t := ""
				if p.Schema != nil {
					t = p.Schema.Type
					if len(p.Schema.Enum) > 0 {
						var vs []string
						for _, e := range p.Schema.Enum {
							vs = append(vs, strings.Trim(strings.ReplaceAll(toString(e), "\"", ""), " "))
						}
						t = strings.Join(vs, " | ")
					}
				}
				o.Params = append(o.Params, param{Name: p.Name, In: p.In, Doc: p.Description, Type: t, Required: p.Required})
			}
			if op.RequestBody != nil {
				for ct, mt := range op.RequestBody.Content {
					o.BodyTypes = append(o.BodyTypes, ct)
					sch := mt.Schema
					if sch != nil && sch.Ref != "" {
						sch = oapi.Components.Schemas.SchemaFromRef(sch.Ref)
					}
					if sch != nil {
						for name, ps := range sch.Properties {
							o.Fields = append(o.Fields, field{Name: name, Doc: ps.Description, Required: slices.Contains(sch.Required, name)})
						}
					}
				}
				slices.SortFunc(o.Fields, func(a, b field) int { return strings.Compare(a.Name, b.Name) })
			}
			for code, resp := range op.Responses {
				var cts []string
				for ct := range resp.Content {
					cts = append(cts, ct)
				}
				slices.Sort(cts)
				o.Responses = append(o.Responses, code+" "+strings.Join(cts, ", "))
			}
			slices.Sort(o.Responses)
			tag := "Other"
			if len(op.Tags) > 0 {
				tag = op.Tags[0]
			}
			if byTag[tag] == nil {
				byTag[tag] = &group{Tag: tag}
				tags = append(tags, tag)
			}
			byTag[tag].Ops = append(byTag[tag].Ops, o)
		}
	}
	slices.Sort(tags)
	var groups []*group
	for _, t := range tags {
		g := byTag[t]
		slices.SortFunc(g.Ops, func(a, b operation) int { return strings.Compare(a.Path+a.Method, b.Path+b.Method) })
		groups = append(groups, g)
	}
	type code struct {
		Code    fault.Code
		Status  int
		Meaning string
	}
	var codes []code
	for _, c := range fault.Codes {
		codes = append(codes, code{c.Code, statusOf(c.Code), c.Meaning})
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	docsPage().Execute(w, map[string]any{"Title": oapi.Info.Title, "Version": oapi.Info.Version, "Description": oapi.Info.Description, "Groups": groups, "Codes": codes})
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	default:
		b, _ := jsonMarshal(x)
		return string(b)
	}
}

var docsPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}} {{.Version}}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:70rem;margin:2rem auto;padding:0 1rem;color:#222}
h1{margin-bottom:0}h2{border-bottom:2px solid #ddd;margin-top:2.5rem}
.op{border:1px solid #ddd;border-radius:6px;padding:.6rem 1rem;margin:.8rem 0}
.m{display:inline-block;min-width:4.5rem;font-weight:700;font-family:monospace}
.GET{color:#1a7f37}.POST{color:#0550ae}.DELETE{color:#cf222e}
code,.path{font-family:ui-monospace,monospace}.path{font-weight:600}
.todo{background:#fff8c5;border-radius:4px;padding:0 .4rem;font-size:.85em;margin-left:.5rem}
table{border-collapse:collapse;margin:.4rem 0}td,th{border:1px solid #e5e5e5;padding:.2rem .5rem;text-align:left;vertical-align:top}
small{color:#666}
</style></head><body>
<h1>{{.Title}}</h1><small>API version {{.Version}} · machine-readable: <a href="/openapi.json">/openapi.json</a></small>
<p style="white-space:pre-line">{{.Description}}</p>
<p>Sections: {{range .Groups}}<a href="#{{.Tag}}">{{.Tag}}</a> · {{end}}<a href="#problems">Problems</a></p>
{{range .Groups}}<h2 id="{{.Tag}}">{{.Tag}}</h2>
{{range .Ops}}<div class="op" id="{{.Anchor}}"><span class="m {{.Method}}">{{.Method}}</span><span class="path">{{.Path}}</span>{{if not .Implemented}}<span class="todo">not implemented yet</span>{{end}}
<div><b>{{.Summary}}</b>. {{.Description}}</div>
{{if .Params}}<table><tr><th>parameter</th><th>in</th><th>type</th><th>meaning</th></tr>{{range .Params}}<tr><td><code>{{.Name}}</code>{{if .Required}} *{{end}}</td><td>{{.In}}</td><td>{{.Type}}</td><td>{{.Doc}}</td></tr>{{end}}</table>{{end}}
{{if .BodyTypes}}<div>Body: {{range .BodyTypes}}<code>{{.}}</code> {{end}}</div>{{if .Fields}}<table><tr><th>field</th><th>meaning</th></tr>{{range .Fields}}<tr><td><code>{{.Name}}</code>{{if .Required}} *{{end}}</td><td>{{.Doc}}</td></tr>{{end}}</table>{{end}}{{end}}
<div><small>Responses: {{range .Responses}}{{.}}; {{end}}</small></div></div>
{{end}}{{end}}
<h2 id="problems">Problems</h2>
<p>Every error is an RFC 9457 problem (<code>application/problem+json</code>): <code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code>, <code>instance</code>, and our <code>code</code> and <code>requestId</code>; <code>errors</code> lists individual problems where there are several.</p>
<table><tr><th>code</th><th>status</th><th>meaning</th></tr>
{{range .Codes}}<tr id="problem-{{.Code}}"><td><code>{{.Code}}</code></td><td>{{.Status}}</td><td>{{.Meaning}}</td></tr>{{end}}
</table></body></html>
`))
})
