package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/ops"
)

// mount serves an operation of the shared operation layer as POST /api/<group>/<name>: its
// options are query parameters (huma decodes and validates them from P's tags), its inputs
// multipart parts read by the one upload reader; the handler only decodes, runs and encodes.
func mount[P any](s *Server, o *ops.Operation[P]) {
	f := formOf(o.Parts)
	op := huma.Operation{
		Method: http.MethodPost, Path: "/api/" + o.Group + "/" + o.Name, Tags: []string{tagOf[o.Group]},
		Summary: o.Summary, Description: o.Description(), RequestBody: f.body(),
	}
	if len(o.Produces) > 0 {
		types := map[string]*huma.MediaType{}
		for _, t := range o.Produces {
			types[t] = &huma.MediaType{Schema: &huma.Schema{Type: "string", Format: "binary"}}
		}
		if o.Result != nil {
			// A report that also comes as a page: JSON by its schema, the rest as documents.
			types["application/json"] = &huma.MediaType{Schema: s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(o.Result), true, "")}
		}
		op.Responses = binaryResponse(types)
	} else {
		schema := s.api.OpenAPI().Components.Schemas.Schema(reflect.TypeOf(o.Result), true, "")
		op.Responses = map[string]*huma.Response{"200": {Description: "The result.", Content: map[string]*huma.MediaType{"application/json": {Schema: schema}}}}
	}
	engines := &ops.Engines{PDFA: s.cfg.PDFA, Printer: s.cfg.Printer, Renderer: s.cfg.Renderer, Distiller: s.cfg.Distiller, OCR: s.cfg.TextLayer}
	opts := []opt{s.uploads()}
	if o.Conversion {
		opts = append(opts, conversion())
	}
	register(s, op, func(ctx context.Context, p *P) (*fileOutput, error) {
		up, err := f.read(ctx)
		if err != nil {
			return nil, err
		}
		in := &ops.Input{Files: map[string][]ops.File{}, Fields: up.Fields}
		for name, files := range up.Files {
			for _, file := range files {
				in.Files[name] = append(in.Files[name], ops.File{Name: file.Filename, Data: file.Data})
			}
		}
		out, err := o.Run(ctx, engines, in, p)
		if err != nil {
			return nil, err
		}
		return encodeOutput(ctx, out)
	}, opts...)
}

// tagOf is the OpenAPI tag of each operation group.
var tagOf = map[string]string{"pdf-tools": "PDF tools", "xrechnung": "XRechnung", "zugferd": "ZUGFeRD"}

// formOf is the upload reader of an operation's parts.
func formOf(parts []ops.Part) form {
	f := make(form, len(parts))
	for i, p := range parts {
		f[i] = part{Name: p.Name, Doc: p.Doc, File: p.File, Required: p.Required, Max: p.Max, Types: p.Types}
	}
	return f
}

// encodeOutput writes an operation's result: a document with its name, or JSON; facts go
// to X-Service-<Key> headers.
func encodeOutput(ctx context.Context, out *ops.Output) (*fileOutput, error) {
	if ri := requestInfoFrom(ctx); ri != nil && ri.reply != nil {
		for _, f := range out.Facts {
			ri.reply.Header().Set("X-Service-"+f[0], f[1])
		}
	}
	if out.Data == nil {
		b, err := json.Marshal(out.Value)
		if err != nil {
			return nil, fault.Wrap(fault.Internal, err, "the result cannot be encoded")
		}
		return &fileOutput{ContentType: "application/json", Body: b}, nil
	}
	return &fileOutput{ContentType: out.ContentType, ContentDisposition: fmt.Sprintf("attachment; filename=%q", out.Name), Body: out.Data}, nil
}
