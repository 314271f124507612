package fault

import (
	"context"
	"errors"
	"fmt"
)

// Code is a stable, machine-readable error code. Codes are part of the API contract:
// never rename one, only add.
type Code string

// The codes. Each has one HTTP status, chosen in internal/server.
const (
	Internal             Code = "internal"
	InvalidInput         Code = "invalid_input"
	UnsupportedMediaType Code = "unsupported_media_type"
	InvalidPDF           Code = "invalid_pdf"
	EncryptedPDF         Code = "encrypted_pdf"
	InvalidPageSpec      Code = "invalid_page_spec"
	PayloadTooLarge      Code = "payload_too_large"
	QuotaExceeded        Code = "quota_exceeded"
	RateLimited          Code = "rate_limited"
	Unauthorized         Code = "unauthorized"
	Forbidden            Code = "forbidden"
	NotFound             Code = "not_found"
	MethodNotAllowed     Code = "method_not_allowed"
	Conflict             Code = "conflict"
	Timeout              Code = "timeout"
	Busy                 Code = "engine_busy"
	EngineUnavailable    Code = "engine_unavailable"
	NotImplemented       Code = "not_implemented"
	ValidationFailed     Code = "validation_failed"
	Unprocessable        Code = "unprocessable"
	InvalidCertificate   Code = "invalid_certificate"
	InvalidCertPassword  Code = "invalid_certificate_password"
	InvalidPDFPassword   Code = "invalid_pdf_password"
	ExtractionFailed     Code = "extraction_failed"
	Canceled             Code = "canceled"
)

// Kind says whose fault an error is, which decides how callers react to it: a client
// fixes its input, retries later, or reports a server fault.
type Kind uint8

const (
	ServerFault Kind = iota // our fault or an engine's: 5xx, exit status 1
	ClientFault             // the input or the caller is at fault: 4xx, exit status 2
	Transient               // the same request may succeed later: 429, 503
)

// Info is a code's row of the one table: its HTTP status (a number, so that domain packages
// need not know net/http), whose fault it is, and what it means.
type Info struct {
	Code    Code
	Status  int
	Kind    Kind
	Meaning string
}

// Codes is the one table of codes: the server maps codes to statuses with it, the CLI to exit
// statuses, and the API documentation lists it.
var Codes = []Info{
	{InvalidInput, 400, ClientFault, "The request is malformed or misses something: a field, a part, a query value."},
	{UnsupportedMediaType, 415, ClientFault, "The body or an uploaded file has a type this endpoint does not take."},
	{InvalidPDF, 400, ClientFault, "The file is not a PDF, or it is damaged beyond reading."},
	{EncryptedPDF, 400, ClientFault, "The PDF is encrypted and needs a password to open; give it (where the endpoint takes one) or upload the file without its protection."},
	{InvalidPDFPassword, 400, ClientFault, "The password given for an encrypted PDF is wrong."},
	{InvalidPageSpec, 400, ClientFault, "A page specification does not parse, or names pages the document does not have."},
	{PayloadTooLarge, 413, ClientFault, "The body, a part or a document is larger than the endpoint's limit."},
	{Unauthorized, 401, ClientFault, "The X-API-Key header is missing, unknown or revoked."},
	{Forbidden, 403, ClientFault, "The key is valid but may not use this endpoint (admin endpoints)."},
	{NotFound, 404, ClientFault, "No such route or resource."},
	{MethodNotAllowed, 405, ClientFault, "The path exists, but not for this HTTP method."},
	{Conflict, 409, ClientFault, "The resource exists already."},
	{Unprocessable, 422, ClientFault, "The input is well-formed but cannot be processed as asked."},
	{InvalidCertificate, 400, ClientFault, "The certificate is not a usable PKCS#12 file."},
	{InvalidCertPassword, 400, ClientFault, "The certificate password is wrong."},
	{QuotaExceeded, 429, Transient, "The key's monthly conversion allowance is used up; resetAt says when it returns."},
	{RateLimited, 429, Transient, "Too many requests from this key; retry after the Retry-After header's seconds."},
	{Busy, 503, Transient, "The engine's queue is full; retry after the Retry-After header's seconds."},
	{EngineUnavailable, 503, Transient, "An external engine is not installed, not running or failed to start."},
	// 499: the client closed the request; nobody reads the answer, but logs and metrics do.
	{Canceled, 499, ClientFault, "The client closed the request before it finished."},
	{Timeout, 504, ServerFault, "The job ran over its time limit and was stopped."},
	{NotImplemented, 501, ServerFault, "The route is part of the API but not built yet."},
	// 500 for these two is the spec's status on its routes.
	{ValidationFailed, 500, ServerFault, "The document failed the rules of its standard; the report lists them."},
	{ExtractionFailed, 500, ServerFault, "Receipt or invoice extraction failed."},
	{Internal, 500, ServerFault, "An unexpected failure; the requestId finds it in the server log."},
}

var byCode = func() map[Code]Info {
	m := make(map[Code]Info, len(Codes))
	for _, i := range Codes {
		m[i.Code] = i
	}
	return m
}()

// Lookup is code's row of the table; an unknown code is Internal's.
func Lookup(c Code) Info {
	if i, ok := byCode[c]; ok {
		return i
	}
	return byCode[Internal]
}

// Error is an error with a code, a message meant for the API caller, optional details
// (field names, rule ids, locations) and an optional cause kept for logs and errors.Is.
type Error struct {
	Code    Code
	Message string         // safe to show to the caller
	Details map[string]any // optional machine-readable context, rendered as problem extensions
	Err     error          // the cause, for logs and errors.Is/As; not shown to the caller
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// New returns an error with a code and a caller-facing message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an error with a code and message that keeps err as its cause.
func Wrap(code Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// With returns a copy of e with key set to value in its details.
func (e *Error) With(key string, value any) *Error {
	c := *e
	c.Details = make(map[string]any, len(e.Details)+1)
	for k, v := range e.Details {
		c.Details[k] = v
	}
	c.Details[key] = value
	return &c
}

// As returns the first *Error in err's chain, or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// CodeOf returns the code of the first *Error in err's chain, Canceled or Timeout for
// context errors, and Internal for anything else.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	if e := As(err); e != nil {
		return e.Code
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return Timeout
	case errors.Is(err, context.Canceled):
		return Canceled
	}
	return Internal
}

// FromContext is the error of work that stopped because ctx ended: Timeout when its
// deadline passed, Canceled when the caller went away. doing says what was under way.
func FromContext(ctx context.Context, doing string) *Error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return Wrap(Timeout, ctx.Err(), "%s when the time limit ran out", doing)
	}
	return Wrap(Canceled, ctx.Err(), "%s when the request ended", doing)
}

// Is reports whether err carries code.
func Is(err error, code Code) bool { return err != nil && CodeOf(err) == code }
