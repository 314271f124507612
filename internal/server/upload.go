package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/b64"
	"github.com/papierkram/papierkram/pdf"
)

// part describes one part of a multipart upload. The same description reads the request and
// documents it in the OpenAPI document, so the two cannot disagree.
type part struct {
	Name     string
	Doc      string
	File     bool     // a file (binary) rather than a text field
	Required bool     // missing -> 400
	Max      int      // more than one allowed, up to Max (e.g. 20 receipts); 0 = exactly one
	Types    []string // documented media types of a file part
	Limit    int      // a text field's limit in bytes when it may hold more than maxFieldBytes
}

// form is a multipart upload's parts, in the order of the spec.
type form []part

// File is an uploaded file.
type File struct {
	Name        string // the part name
	Filename    string // the client's file name, base name only
	ContentType string // as the client declared it; check the bytes, not this
	Data        []byte
}

// Upload is a read multipart request.
type Upload struct {
	Files  map[string][]*File
	Fields map[string]string
}

// File returns the first file of part name, or nil.
func (u *Upload) File(name string) *File {
	if fs := u.Files[name]; len(fs) > 0 {
		return fs[0]
	}
	return nil
}

// Limits of the multipart reader beyond the request's body limit.
const (
	maxFieldBytes  = 1 << 20 // a text field (JSON options, variables)
	maxParts       = 64
	maxPreallocate = 256 << 20 // never trust Content-Length beyond this for one allocation
)

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// read reads the request's multipart body with limits: the body limit of the route (set by
// the guard), 1 MiB per text field, 64 parts, the documented part names only, each at most as
// often as allowed, required parts present.
func (f form) read(ctx context.Context) (*Upload, error) {
	r := requestFrom(ctx)
	if r == nil {
		return nil, errors.New("server: no request in context")
	}
	ct := r.Header.Get("Content-Type")
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != "multipart/form-data" {
		return nil, fault.New(fault.UnsupportedMediaType, "the request must be multipart/form-data, not %q", ct)
	}
	if params["boundary"] == "" {
		return nil, fault.New(fault.InvalidInput, "the multipart Content-Type has no boundary")
	}
	// multipart reads through a 4 KiB buffer; a larger one in front of the socket saves
	// thousands of small reads on a big upload. The count tells each file part how much of
	// the body is left, so its buffer is allocated once instead of grown by doubling.
	body := &countingReader{r: bufio.NewReaderSize(r.Body, 256<<10)}
	mr := multipart.NewReader(body, params["boundary"])
	u := &Upload{Files: map[string][]*File{}, Fields: map[string]string{}}
	byName := map[string]part{}
	for _, p := range f {
		byName[p.Name] = p
	}
	for n := 0; ; n++ {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, multipartErr(err)
		}
		if n >= maxParts {
			p.Close()
			return nil, fault.New(fault.InvalidInput, "more than %d multipart parts", maxParts)
		}
		name := p.FormName()
		spec, ok := byName[name]
		if !ok {
			p.Close()
			return nil, fault.New(fault.InvalidInput, "unknown multipart part %q; this endpoint takes %s", name, f.names()).With("field", name)
		}
		count := len(u.Files[name])
		if _, dup := u.Fields[name]; dup {
			count = 1
		}
		if limit := max(spec.Max, 1); count >= limit {
			p.Close()
			if spec.Max > 1 {
				return nil, fault.New(fault.InvalidInput, "part %q: at most %d allowed", name, spec.Max).With("field", name)
			}
			return nil, fault.New(fault.InvalidInput, "part %q was sent more than once", name).With("field", name)
		}
		if spec.File {
			var buf bytes.Buffer
			if r.ContentLength > 0 {
				buf.Grow(int(max(min(r.ContentLength-body.n, maxPreallocate), 0)) + bytes.MinRead)
			}
			if _, err := buf.ReadFrom(p); err != nil {
				return nil, multipartErr(err)
			}
			u.Files[name] = append(u.Files[name], &File{Name: name, Filename: baseName(p.FileName()), ContentType: p.Header.Get("Content-Type"), Data: buf.Bytes()})
			continue
		}
		limit := max(spec.Limit, maxFieldBytes)
		data, err := io.ReadAll(io.LimitReader(p, int64(limit)+1))
		if err != nil {
			return nil, multipartErr(err)
		}
		if len(data) > limit {
			return nil, fault.New(fault.PayloadTooLarge, "part %q is larger than %d bytes", name, limit).With("field", name)
		}
		u.Fields[name] = string(data)
	}
	for _, p := range f {
		if !p.Required {
			continue
		}
		if _, ok := u.Fields[p.Name]; ok {
			continue
		}
		if fs := u.Files[p.Name]; len(fs) > 0 && (len(fs[0].Data) > 0 || !p.File) {
			continue
		}
		return nil, fault.New(fault.InvalidInput, "the multipart part %q is required and was missing or empty", p.Name).With("field", p.Name)
	}
	if err := f.open(ctx, u); err != nil {
		return nil, err
	}
	return u, nil
}

// passwordPart lets a form take the password of a PDF that needs one to open.
var passwordPart = part{Name: "password", Doc: "The password of a PDF that needs one to open (a user password); the PDF is decrypted with it before anything else, and the result is not encrypted. Used once, never logged or stored."}

// open decrypts the PDFs of an upload with the password sent beside them, when the form
// takes one, and forgets the password.
func (f form) open(ctx context.Context, u *Upload) error {
	pw, ok := u.Fields[passwordPart.Name]
	if !ok || !slices.ContainsFunc(f, func(p part) bool { return p.Name == passwordPart.Name && !p.File }) {
		return nil
	}
	delete(u.Fields, passwordPart.Name)
	if pw == "" {
		return nil
	}
	for _, files := range u.Files {
		for _, file := range files {
			if !pdf.IsPDF(file.Data) {
				continue
			}
			plain, err := pdf.Decrypt(ctx, file.Data, pw)
			if err != nil {
				return err
			}
			file.Data = plain
		}
	}
	return nil
}

// multipartErr turns a reader error into a coded one: too large, or malformed.
func multipartErr(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return fault.Wrap(fault.PayloadTooLarge, err, "the request body is larger than this endpoint's limit of %d bytes", mbe.Limit)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fault.Wrap(fault.InvalidInput, err, "malformed multipart body: %v", err)
}

func baseName(s string) string {
	if i := strings.LastIndexAny(s, `/\`); i >= 0 {
		s = s[i+1:]
	}
	return s
}

func (f form) names() string {
	var b strings.Builder
	for i, p := range f {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", p.Name)
	}
	return b.String()
}

// body documents the form for OpenAPI.
func (f form) body() *huma.RequestBody {
	props := map[string]*huma.Schema{}
	var required []string
	encoding := map[string]*huma.Encoding{}
	for _, p := range f {
		var s *huma.Schema
		if p.File {
			s = &huma.Schema{Type: "string", Format: "binary", ContentEncoding: "binary", Description: p.Doc}
			if len(p.Types) > 0 {
				encoding[p.Name] = &huma.Encoding{ContentType: strings.Join(p.Types, ", ")}
			}
		} else {
			s = &huma.Schema{Type: "string", Description: p.Doc}
		}
		if p.Max > 1 {
			max := p.Max
			s = &huma.Schema{Type: "array", Items: s, MaxItems: &max, Description: p.Doc}
		}
		props[p.Name] = s
		if p.Required {
			required = append(required, p.Name)
		}
	}
	mt := &huma.MediaType{Schema: &huma.Schema{Type: "object", Properties: props, Required: required}}
	if len(encoding) > 0 {
		mt.Encoding = encoding
	}
	return &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{"multipart/form-data": mt}}
}

// base64Key is the one key of every /base64 endpoint's JSON object (see docs/decisions.md).
const base64Key = "file"

// Base64Body is the body of every /base64 endpoint.
type Base64Body struct {
	Body map[string]string `doc:"A JSON object of strings. The key \"file\" holds the document in standard Base64 (RFC 4648, padding optional, line breaks allowed); \"filename\" may name it." example:"{\"file\":\"JVBERi0xLjcK...\",\"filename\":\"invoice.pdf\"}"`
}

// decode returns the document of a /base64 body.
func (b *Base64Body) decode() ([]byte, string, error) {
	for k := range b.Body {
		if k != base64Key && k != "filename" {
			return nil, "", fault.New(fault.InvalidInput, "unknown key %q; the document goes under %q", k, base64Key).With("field", k)
		}
	}
	s, ok := b.Body[base64Key]
	if !ok || s == "" {
		return nil, "", fault.New(fault.InvalidInput, "the key %q with the Base64 document is missing", base64Key).With("field", base64Key)
	}
	data, err := decodeBase64(s)
	if err != nil {
		return nil, "", err
	}
	return data, baseName(b.Body["filename"]), nil
}

// decodeBase64 decodes a document or certificate of a request body.
func decodeBase64(s string) ([]byte, error) { return b64.Decode("the document", s) }

// readJSON decodes the request body into v: JSON only, unknown keys refused (decisions: typos
// fail loudly), errors naming the field and never echoing values.
func readJSON(ctx context.Context, v any) error {
	r := requestFrom(ctx)
	if r == nil {
		return errors.New("server: no request in context")
	}
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return fault.New(fault.UnsupportedMediaType, "the request must be application/json, not %q", r.Header.Get("Content-Type"))
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return bodyErr(err)
	}
	return decodeJSON(body, v)
}

// decodeJSON decodes one JSON value strictly, as readJSON does (also for JSON form fields).
func decodeJSON(body []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return jsonErr(err)
	}
	if d.More() {
		return fault.New(fault.InvalidInput, "the body holds more than one JSON value")
	}
	return nil
}

// bodyErr maps a failed body read: over the route's limit is 413, a dropped client is 400.
func bodyErr(err error) error {
	var mb *http.MaxBytesError
	if errors.As(err, &mb) {
		return fault.New(fault.PayloadTooLarge, "the body is larger than %d bytes", mb.Limit)
	}
	return fault.Wrap(fault.InvalidInput, err, "the body could not be read")
}

func jsonErr(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fault.New(fault.InvalidInput, "the body is not valid JSON (at byte %d): %v", se.Offset, se)
	case errors.As(err, &te):
		return fault.New(fault.InvalidInput, "field %q must be %s, not %s", te.Field, te.Type, te.Value).With("field", te.Field)
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		e := fault.New(fault.InvalidInput, "%s", strings.TrimPrefix(err.Error(), "json: "))
		if name, err := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field ")); err == nil {
			e = e.With("field", name)
		}
		return e
	case errors.Is(err, io.EOF):
		return fault.New(fault.InvalidInput, "the body is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fault.New(fault.InvalidInput, "the body is not valid JSON: it ends early")
	}
	return fault.Wrap(fault.InvalidInput, err, "the body cannot be read: %v", err)
}
