package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/convert/tmpl"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/store"
)

// maxTemplate bounds a stored template.
const maxTemplate = 20 << 20

var (
	templateUpload = form{
		{Name: "file", Doc: "The template: HTML, .docx, .xlsx, or a zip of HTML and its assets.", File: true, Required: true},
		{Name: "name", Doc: "Name to refer to it by (1 to 100 letters, digits, dots, underscores, hyphens); default the file name without its extension."},
	}
	templateTypes = map[string]string{
		tmpl.KindHTML: "text/html; charset=utf-8",
		tmpl.KindDOCX: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
		tmpl.KindXLSX: xlsxType,
		tmpl.KindZip:  "application/zip",
	}
)

type templatePath struct {
	Name string `path:"name" maxLength:"100" example:"rechnung"`
}

// storedTemplate reads a template of the calling key and checks its kind.
func (s *Server) storedTemplate(ctx context.Context, name, kind string) ([]byte, error) {
	t, err := s.store.Template(ctx, keyFrom(ctx).ID, name)
	if err != nil {
		return nil, err
	}
	if kind != "" && t.Kind != kind {
		return nil, fault.New(fault.InvalidInput, "the template %q is %s, not %s", name, t.Kind, kind)
	}
	return t.Data, nil
}

func (s *Server) registerTemplates() {
	tag := []string{"Templates"}
	register(s, huma.Operation{
		OperationID: "getTemplates", Method: http.MethodGet, Path: "/api/templates", Tags: tag, Summary: "List templates",
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body []string }, error) {
		list, err := s.store.Templates(ctx, keyFrom(ctx).ID)
		if err != nil {
			return nil, err
		}
		names := []string{}
		for _, t := range list {
			names = append(names, t.Name)
		}
		return &struct{ Body []string }{names}, nil
	})

	register(s, huma.Operation{
		OperationID: "postTemplates", Method: http.MethodPost, Path: "/api/templates", Tags: tag, Summary: "Upload a template",
		RequestBody: templateUpload.body(),
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body map[string]string }, error) {
		u, err := templateUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		f := u.File("file")
		if len(f.Data) > maxTemplate {
			return nil, fault.New(fault.PayloadTooLarge, "a template is at most %d MB", maxTemplate>>20)
		}
		kind, err := tmpl.Detect(f.Data)
		if err != nil {
			return nil, err
		}
		name := u.Fields["name"]
		if name == "" {
			name = strings.TrimSuffix(f.Filename, path.Ext(f.Filename))
		}
		if !certName.MatchString(name) {
			return nil, fault.New(fault.InvalidInput, "template name %q: use 1 to 100 letters, digits, dots, underscores or hyphens", name).With("field", "name")
		}
		sum := sha256.Sum256(f.Data)
		t := &store.Template{KeyID: keyFrom(ctx).ID, Name: name, Kind: kind, Data: f.Data, SHA256: hex.EncodeToString(sum[:]), UploadedAt: s.now().UTC()}
		if err := s.store.PutTemplate(ctx, t); err != nil {
			return nil, err
		}
		// The spec's answer is an object of string values: the size too.
		return &struct{ Body map[string]string }{map[string]string{"name": t.Name, "kind": t.Kind, "size": strconv.Itoa(len(f.Data)), "sha256": t.SHA256, "uploadedAt": t.UploadedAt.Format(time.RFC3339)}}, nil
	}, s.uploads())

	register(s, huma.Operation{
		OperationID: "getTemplatesByName", Method: http.MethodGet, Path: "/api/templates/{name}", Tags: tag, Summary: "Download a template",
		Errors: []int{http.StatusNotFound}, Responses: binaryResponse(map[string]*huma.MediaType{"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary"}}}),
	}, func(ctx context.Context, in *templatePath) (*fileOutput, error) {
		t, err := s.store.Template(ctx, keyFrom(ctx).ID, in.Name)
		if err != nil {
			return nil, err
		}
		ext := map[string]string{tmpl.KindHTML: ".html", tmpl.KindDOCX: ".docx", tmpl.KindXLSX: ".xlsx", tmpl.KindZip: ".zip"}[t.Kind]
		return &fileOutput{ContentType: templateTypes[t.Kind], ContentDisposition: `attachment; filename="` + t.Name + ext + `"`, Body: t.Data}, nil
	})

	register(s, huma.Operation{
		OperationID: "deleteTemplatesByName", Method: http.MethodDelete, Path: "/api/templates/{name}", Tags: tag, Summary: "Delete a template",
		DefaultStatus: http.StatusNoContent, Errors: []int{http.StatusNotFound},
	}, func(ctx context.Context, in *templatePath) (*struct{}, error) {
		return nil, s.store.DeleteTemplate(ctx, keyFrom(ctx).ID, in.Name)
	})
}
