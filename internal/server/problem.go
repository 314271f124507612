package server

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/fault"
)

// statusOf is the HTTP status of an error code, from fault's one table.
func statusOf(c fault.Code) int { return fault.Lookup(c).Status }

// codeOfStatus names errors that huma raises itself (it knows statuses, not our codes).
func codeOfStatus(status int) fault.Code {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return fault.InvalidInput
	case http.StatusUnauthorized:
		return fault.Unauthorized
	case http.StatusNotFound:
		return fault.NotFound
	case http.StatusMethodNotAllowed:
		return fault.MethodNotAllowed
	case http.StatusRequestEntityTooLarge:
		return fault.PayloadTooLarge
	case http.StatusUnsupportedMediaType, http.StatusNotAcceptable:
		return fault.UnsupportedMediaType
	case http.StatusRequestTimeout:
		return fault.Timeout
	default:
		return fault.Internal
	}
}

// Problem is an RFC 9457 problem details object, with our stable code and the request id.
type Problem struct {
	Type      string              `json:"type" doc:"URI reference naming the problem type; resolves to its entry in /docs." example:"/docs#problem-invalid_input"`
	Title     string              `json:"title" doc:"Short summary of the problem type." example:"Bad Request"`
	Status    int                 `json:"status" doc:"The HTTP status code." example:"400"`
	Detail    string              `json:"detail,omitempty" doc:"What went wrong in this request." example:"query parameter dpi: must be at most 300"`
	Instance  string              `json:"instance,omitempty" doc:"The request path." example:"/api/preview"`
	Code      fault.Code          `json:"code" doc:"Stable machine-readable error code." example:"invalid_input"`
	RequestID string              `json:"requestId,omitempty" doc:"The request id, also in the X-Request-Id response header." example:"01JD3X8Z3W6Q2N5V7T1R0B9K4M"`
	Errors    []*huma.ErrorDetail `json:"errors,omitempty" doc:"Individual problems, e.g. one per invalid field."`
	// Details carries code-specific members (e.g. resetAt for quota_exceeded); they are
	// rendered at the top level of the JSON object, as RFC 9457 extension members.
	Details map[string]any `json:"-"`
}

func (p *Problem) Error() string  { return p.Detail }
func (p *Problem) GetStatus() int { return p.Status }

// ContentType makes huma send problems as application/problem+json.
func (p *Problem) ContentType(ct string) string {
	if ct == "application/json" || ct == "" {
		return "application/problem+json"
	}
	return ct
}

func (p *Problem) MarshalJSON() ([]byte, error) {
	type plain Problem
	b, err := json.Marshal((*plain)(p))
	if err != nil || len(p.Details) == 0 {
		return b, err
	}
	ext := make(map[string]any, len(p.Details))
	for k, v := range p.Details {
		switch k { // never let an extension shadow a standard member
		case "type", "title", "status", "detail", "instance", "code", "requestId", "errors":
			continue
		}
		ext[k] = v
	}
	e, err := json.Marshal(ext)
	if err != nil || len(ext) == 0 {
		return b, err
	}
	return append(append(b[:len(b)-1], ','), e[1:]...), nil
}

// newProblem builds the problem for err. Every error response of the service goes through it.
func newProblem(ctx context.Context, status int, msg string, errs ...error) *Problem {
	p := &Problem{Status: status, Detail: msg}
	for _, err := range errs {
		if err == nil {
			continue
		}
		var existing *Problem
		if errors.As(err, &existing) {
			return existing
		}
		if fe := fault.As(err); fe != nil && p.Code == "" {
			p.Code = fe.Code
			p.Status = statusOf(fe.Code)
			p.Detail = fe.Message
			p.Details = fe.Details
			if fe.Code == fault.Internal && fe.Err != nil {
				logFrom(ctx).ErrorContext(ctx, "internal error", "error", err)
			}
			continue
		}
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			p.Code, p.Status = fault.PayloadTooLarge, http.StatusRequestEntityTooLarge
			p.Detail = "the request body is larger than this endpoint accepts"
			continue
		}
		if errors.Is(err, context.Canceled) {
			p.Code, p.Status, p.Detail = fault.Canceled, 499, "the request was canceled"
			continue
		}
		if errors.Is(err, context.DeadlineExceeded) {
			p.Code, p.Status, p.Detail = fault.Timeout, http.StatusGatewayTimeout, "the request ran over its time limit"
			continue
		}
		var ed huma.ErrorDetailer
		if errors.As(err, &ed) {
			d := ed.ErrorDetail()
			if d.Location == "body" || strings.HasPrefix(d.Location, "body.") {
				// The value may be a whole document or a password: never echo it back.
				d = &huma.ErrorDetail{Message: d.Message, Location: d.Location}
			}
			p.Errors = append(p.Errors, d)
			continue
		}
		if status >= 500 && p.Code == "" {
			// An error without a code is a bug or an unexpected failure: log the cause, tell the
			// caller only that it happened and under which request id.
			logFrom(ctx).ErrorContext(ctx, "unexpected error", "error", err)
			continue
		}
		p.Errors = append(p.Errors, &huma.ErrorDetail{Message: err.Error()})
	}
	if p.Code == "" {
		// huma answers 422 for a value that fails its schema; the spec's status for invalid
		// input is 400, so it becomes invalid_input like every other bad request.
		if p.Status == http.StatusUnprocessableEntity {
			p.Status = http.StatusBadRequest
		}
		p.Code = codeOfStatus(p.Status)
	}
	if p.Status == http.StatusInternalServerError && p.Code == fault.Internal && p.Detail == "" {
		p.Detail = "an unexpected error occurred; the request id identifies it in the server log"
	}
	if p.Detail == "" {
		p.Detail = http.StatusText(p.Status)
	}
	p.Title = titleOf(p.Status)
	p.Type = "/docs#problem-" + string(p.Code)
	if ri := requestInfoFrom(ctx); ri != nil {
		p.RequestID = ri.id
		p.Instance = ri.path
		if field, _ := p.Details["field"].(string); field != "" && len(p.Errors) == 0 {
			// The faulty field is always in errors[].location, where huma's own checks put it.
			p.Errors = []*huma.ErrorDetail{{Message: p.Detail, Location: locate(ri.req, field)}}
		}
		// Headers that belong to a problem go out with it, whoever writes the body.
		h := ri.reply.Header()
		switch p.Code {
		case fault.Unauthorized:
			h.Set("WWW-Authenticate", `APIKey header="X-API-Key"`)
		case fault.Busy, fault.EngineUnavailable:
			h.Set("Retry-After", "2")
		case fault.QuotaExceeded, fault.RateLimited:
			if s, ok := p.Details["retryAfterSeconds"].(int64); ok {
				h.Set("Retry-After", strconv.FormatInt(s, 10))
			}
		}
	}
	return p
}

// locate names where a field came from, as huma's locations do: query.x for a query
// parameter, header.x for a header, body.x for a JSON member or a multipart part.
func locate(r *http.Request, field string) string {
	for _, prefix := range []string{"query.", "header.", "path.", "body."} {
		if strings.HasPrefix(field, prefix) {
			return field
		}
	}
	if r != nil {
		if r.URL.Query().Has(field) {
			return "query." + field
		}
		if r.Header.Get(field) != "" && strings.HasPrefix(strings.ToLower(field), "x-") {
			return "header." + field
		}
	}
	return "body." + field
}

func titleOf(status int) string {
	if status == 499 {
		return "Client Closed Request"
	}
	return http.StatusText(status)
}

// writeProblem writes a problem outside huma (middleware, plain handlers).
func writeProblem(w http.ResponseWriter, r *http.Request, err error) {
	p := newProblem(r.Context(), http.StatusInternalServerError, "", err)
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(p.Status)
	b, _ := json.Marshal(p)
	w.Write(append(b, '\n'))
}

func logFrom(ctx context.Context) *slog.Logger {
	if ri := requestInfoFrom(ctx); ri != nil && ri.log != nil {
		return ri.log
	}
	return slog.Default()
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
