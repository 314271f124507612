package server

import (
	"context"
	"net/http"
	"reflect"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// opt adjusts an operation's metadata when it is registered.
type opt func(*routeMeta)

func conversion() opt          { return func(m *routeMeta) { m.conversion = true } }
func adminOnly() opt           { return func(m *routeMeta) { m.admin = true } }
func bodyLimit(n int64) opt    { return func(m *routeMeta) { m.maxBody = n } }
func (s *Server) uploads() opt { return bodyLimit(s.cfg.MaxUploadBytes) }

// familyOf is the usage family of a path: "/v1/convert/..." -> "convert", "/api/pdf-tools/..." -> "pdf-tools".
func familyOf(path string) string {
	parts := strings.Split(strings.Trim(path, "/"), "/")
	if len(parts) >= 2 && (parts[0] == "api" || parts[0] == "v1") {
		return parts[1]
	}
	return "other"
}

// errorStatuses are documented on every operation: the problem shape is the same everywhere.
var errorStatuses = []int{http.StatusBadRequest, http.StatusUnauthorized, http.StatusRequestEntityTooLarge,
	http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusServiceUnavailable}

// register adds one operation with its metadata; every API route goes through here.
func register[I, O any](s *Server, op huma.Operation, h func(context.Context, *I) (*O, error), opts ...opt) {
	m := &routeMeta{family: familyOf(op.Path), maxBody: maxJSONBody}
	if op.Description == "" {
		op.Description = prose()[op.OperationID]
	}
	for _, o := range opts {
		o(m)
	}
	if m.heavy = heavy(op.Path, m.conversion); m.heavy {
		op.Description = strings.TrimSpace(op.Description + " " + heavyNote)
	}
	if op.Metadata == nil {
		op.Metadata = map[string]any{}
	}
	op.Metadata[metaKey] = m
	op.MaxBodyBytes = m.maxBody
	if op.OperationID == "" {
		op.OperationID = operationID(op.Method, op.Path)
	}
	statuses := append([]int(nil), errorStatuses...)
	if m.admin {
		statuses = append(statuses, http.StatusForbidden)
	}
	op.Errors = append(op.Errors, statuses...)
	// A handler whose input has no Body reads the request body itself (uploads, with the one
	// multipart reader). huma would read and validate any body it sees documented, so the
	// documented body is attached to the OpenAPI operation only after registration.
	var ownBody *huma.RequestBody
	if _, ok := reflect.TypeFor[I]().FieldByName("Body"); !ok {
		ownBody, op.RequestBody = op.RequestBody, nil
	}
	huma.Register(s.api, op, h)
	if ownBody != nil {
		item := s.api.OpenAPI().Paths[op.Path]
		for _, o := range []*huma.Operation{item.Post, item.Put, item.Patch, item.Delete} {
			if o != nil && o.OperationID == op.OperationID {
				o.RequestBody = ownBody
			}
		}
	}
}

// operationID names an operation the one way: the method, then the path's words in
// camelCase without the /api or /v1 prefix: POST /api/pdf-tools/split -> postPdfToolsSplit.
func operationID(method, path string) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(method))
	for i, seg := range strings.Split(strings.Trim(path, "/"), "/") {
		if i == 0 && (seg == "api" || seg == "v1") {
			continue
		}
		seg = strings.Trim(seg, "{}")
		for _, w := range strings.FieldsFunc(seg, func(r rune) bool { return r == '-' || r == '_' }) {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return b.String()
}
