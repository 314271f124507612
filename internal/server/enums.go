package server

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
)

// foldEnums lets enum values arrive in any case, as the multipart options always have
// (format "a4" is A4, to "CSV" is csv): before huma validates a request, a query parameter
// or JSON member whose value matches one of its schema's enum values but for case is
// rewritten to that value. Anything else is left for validation to judge.
func (s *Server) foldEnums(hctx huma.Context, next func(huma.Context)) {
	op := hctx.Operation()
	r, _ := humago.Unwrap(hctx)
	if q := r.URL.Query(); len(q) > 0 {
		changed := false
		for _, p := range op.Parameters {
			if p.In != "query" || p.Schema == nil || len(p.Schema.Enum) == 0 || !q.Has(p.Name) {
				continue
			}
			vs := q[p.Name]
			for i, v := range vs {
				if c, ok := foldTo(v, p.Schema.Enum); ok && c != v {
					vs[i], changed = c, true
				}
			}
		}
		if changed {
			r.URL.RawQuery = q.Encode()
		}
	}
	if schema := s.jsonBodySchema(op); schema != nil && r.Body != nil && r.Body != http.NoBody {
		r.Body = &foldingBody{orig: r.Body, fold: func(b []byte) ([]byte, bool) { return s.foldBody(b, schema) }}
	}
	next(hctx)
}

// foldingBody reads the request body on its first Read, when the handler reads it, and hands
// on the folded bytes. Reading it ahead, in the middleware, made the request's context end
// in the middle of a long job (html-to-pdf answered 499 after 5 s instead of its 504):
// read when the handler reads it, the body behaves as it did before folding.
type foldingBody struct {
	orig io.ReadCloser
	fold func([]byte) ([]byte, bool)
	r    io.Reader
}

func (f *foldingBody) Read(p []byte) (int, error) {
	if f.r == nil {
		body, err := io.ReadAll(f.orig)
		switch folded, ok := f.fold(body); {
		case err != nil:
			// A read error (a body over the limit) stays for the reader to report.
			f.r = io.MultiReader(bytes.NewReader(body), errReader{err})
		case ok:
			f.r = bytes.NewReader(folded)
		default:
			f.r = bytes.NewReader(body)
		}
	}
	return f.r.Read(p)
}

func (f *foldingBody) Close() error { return f.orig.Close() }

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// foldTo finds the enum value v matches but for case.
func foldTo(v string, enum []any) (string, bool) {
	for _, e := range enum {
		if es, ok := e.(string); ok && strings.EqualFold(es, v) {
			return es, true
		}
	}
	return "", false
}

func (s *Server) jsonBodySchema(op *huma.Operation) *huma.Schema {
	if v, ok := s.enumSchemas.Load(op); ok {
		return v.(*huma.Schema)
	}
	var found *huma.Schema
	if op.RequestBody != nil {
		if mt := op.RequestBody.Content["application/json"]; mt != nil && mt.Schema != nil && s.hasEnum(mt.Schema, map[*huma.Schema]bool{}) {
			found = mt.Schema
		}
	}
	s.enumSchemas.Store(op, found)
	return found
}

func (s *Server) resolve(sc *huma.Schema) *huma.Schema {
	for sc != nil && sc.Ref != "" {
		sc = s.api.OpenAPI().Components.Schemas.SchemaFromRef(sc.Ref)
	}
	return sc
}

func (s *Server) hasEnum(sc *huma.Schema, seen map[*huma.Schema]bool) bool {
	sc = s.resolve(sc)
	if sc == nil || seen[sc] {
		return false
	}
	seen[sc] = true
	if len(sc.Enum) > 0 {
		return true
	}
	for _, p := range sc.Properties {
		if s.hasEnum(p, seen) {
			return true
		}
	}
	ap, _ := sc.AdditionalProperties.(*huma.Schema)
	return s.hasEnum(sc.Items, seen) || s.hasEnum(ap, seen)
}

// foldBody rewrites enum values of a JSON body; ok is false when nothing changed (the
// original bytes then go on untouched) or the body is no JSON (validation says so).
func (s *Server) foldBody(body []byte, schema *huma.Schema) ([]byte, bool) {
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber() // amounts keep every digit
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false // more after the value: not JSON, for validation to refuse as sent
	}
	v, changed := s.foldValue(v, schema, 0)
	if !changed {
		return nil, false
	}
	var out bytes.Buffer
	e := json.NewEncoder(&out)
	e.SetEscapeHTML(false)
	if e.Encode(v) != nil {
		return nil, false
	}
	return out.Bytes(), true
}

func (s *Server) foldValue(v any, sc *huma.Schema, depth int) (any, bool) {
	sc = s.resolve(sc)
	if sc == nil || depth > 32 {
		return v, false
	}
	changed := false
	switch x := v.(type) {
	case string:
		if c, ok := foldTo(x, sc.Enum); ok && c != x {
			return c, true
		}
	case map[string]any:
		for k, val := range x {
			ps, ok := sc.Properties[k]
			if !ok {
				if ap, isSchema := sc.AdditionalProperties.(*huma.Schema); isSchema {
					ps = ap
				} else {
					continue
				}
			}
			if nv, c := s.foldValue(val, ps, depth+1); c {
				x[k], changed = nv, true
			}
		}
	case []any:
		for i, val := range x {
			if nv, c := s.foldValue(val, sc.Items, depth+1); c {
				x[i], changed = nv, true
			}
		}
	}
	return v, changed
}
