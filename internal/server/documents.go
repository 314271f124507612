package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/convert/document"
	"github.com/papierkram/papierkram/convert/tmpl"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/jobs"
)

func (s *Server) registerDocuments() {
	register(s, huma.Operation{
		OperationID: "postDocumentsGenerate", Method: http.MethodPost, Path: "/api/documents/generate", Tags: []string{"Documents"},
		Summary:   "Generate a PDF from an HTML template and data",
		Responses: binaryResponse(pdfResponse),
	}, func(ctx context.Context, in *struct{ Body document.Request }) (*fileOutput, error) {
		run, err := s.documentJob(ctx, keyFrom(ctx).ID, &in.Body)
		if err != nil {
			return nil, err
		}
		return run(ctx)
	}, bodyLimit(maxHTMLBody+1<<20), conversion())
}

func (s *Server) registerCompose() {
	register(s, huma.Operation{
		OperationID: "postDocumentsCompose", Method: http.MethodPost, Path: "/api/documents/compose", Tags: []string{"Documents"},
		Summary:   "Compose several parts into one PDF",
		Responses: binaryResponse(pdfResponse),
	}, func(ctx context.Context, in *struct{ Body document.ComposeRequest }) (*fileOutput, error) {
		r := &in.Body
		for i := range r.Parts {
			p := &r.Parts[i]
			if p.Template == "" {
				continue
			}
			if p.HTML != "" {
				return nil, fault.New(fault.InvalidInput, "part %d: give template or html, not both", i+1)
			}
			t, err := s.store.Template(ctx, keyFrom(ctx).ID, p.Template)
			if err != nil {
				return nil, err
			}
			switch t.Kind {
			case tmpl.KindHTML:
				p.HTML = string(t.Data)
			case tmpl.KindZip:
				if p.HTML, err = tmpl.Bundle(t.Data); err != nil {
					return nil, err
				}
			default:
				return nil, fault.New(fault.InvalidInput, "part %d: the template %q is %s; compose takes html and zip templates (send Word documents as docx)", i+1, p.Template, t.Kind)
			}
		}
		if s.cfg.Printer == nil {
			return nil, fault.New(fault.EngineUnavailable, "Chromium is not configured")
		}
		fonts, err := s.keyFonts(ctx)
		if err != nil {
			return nil, err
		}
		r.Fonts = fonts
		out, err := document.Compose(ctx, document.Engines{Printer: s.cfg.Printer, Office: s.cfg.Office, Network: s.cfg.Network}, r)
		if err != nil {
			return nil, err
		}
		return pdfOutput("document.pdf", out), nil
	}, bodyLimit(s.cfg.MaxUploadBytes), conversion())
}

// documentOutput names a generated document by its format.
func documentOutput(to string, b []byte) *fileOutput {
	ct := map[string]string{"pdf": "application/pdf", "docx": templateTypes[tmpl.KindDOCX], "odt": "application/vnd.oasis.opendocument.text"}[to]
	return &fileOutput{ContentType: ct, ContentDisposition: `attachment; filename="document.` + to + `"`, Body: b}
}

// documentJob checks a generate request and resolves the key's stored template and fonts,
// and returns the generation to run, now or in a job.
func (s *Server) documentJob(ctx context.Context, keyID string, r *document.Request) (func(context.Context) (*fileOutput, error), error) {
	fonts, err := s.fontsOf(ctx, keyID)
	if err != nil {
		return nil, err
	}
	r.Fonts = fonts
	out := strings.ToLower(r.Output)
	if out == "" {
		out = "pdf"
	}
	if out != "pdf" && out != "docx" && out != "odt" {
		return nil, fault.New(fault.InvalidInput, "output must be PDF, DOCX or ODT, not %q", r.Output).With("field", "output")
	}
	src := r.HTML
	switch {
	case r.Template != "" && r.HTML != "":
		return nil, fault.New(fault.InvalidInput, "give template or html, not both")
	case r.Template != "":
		t, err := s.store.Template(ctx, keyID, r.Template)
		if err != nil {
			return nil, err
		}
		switch t.Kind {
		case tmpl.KindHTML:
			src = string(t.Data)
		case tmpl.KindZip:
			if src, err = tmpl.Bundle(t.Data); err != nil {
				return nil, err
			}
		case tmpl.KindDOCX:
			if r.Watermark != nil {
				return nil, fault.New(fault.InvalidInput, "a watermark is for HTML templates; put it into the Word template")
			}
			return func(ctx context.Context) (*fileOutput, error) {
				b, err := document.GenerateWord(ctx, s.cfg.Office, r, t.Data, out)
				if err != nil {
					return nil, err
				}
				return documentOutput(out, b), nil
			}, nil
		default:
			return nil, fault.New(fault.InvalidInput, "the template %q is %s; generate takes html, zip and docx templates", r.Template, t.Kind)
		}
	case r.HTML == "":
		return nil, fault.New(fault.InvalidInput, "give template (a stored HTML or Word template's name) or html")
	}
	if out != "pdf" {
		return func(ctx context.Context) (*fileOutput, error) {
			b, err := document.GenerateAs(ctx, s.cfg.Office, r, src, out)
			if err != nil {
				return nil, err
			}
			return documentOutput(out, b), nil
		}, nil
	}
	if s.cfg.Printer == nil {
		return nil, fault.New(fault.EngineUnavailable, "Chromium is not configured")
	}
	return func(ctx context.Context) (*fileOutput, error) {
		b, err := document.Generate(ctx, s.cfg.Printer, s.cfg.PDFA, s.cfg.Network, r, src)
		if err != nil {
			return nil, err
		}
		return pdfOutput("document.pdf", b), nil
	}, nil
}

// AsyncDocumentRequest is a generate request with a webhook.
type AsyncDocumentRequest struct {
	document.Request
	CallbackURL    string `json:"callbackUrl,omitempty" maxLength:"2048" doc:"Where to POST the document.generation.completed or .failed event; the same outbound policy as renderers applies (no internal addresses unless allowed)." example:"https://erp.example.org/hooks/papierkram"`
	CallbackSecret string `json:"callbackSecret,omitempty" maxLength:"256" doc:"Signs the webhook: header X-Service-Signature is the hex HMAC-SHA256 of the exact body with this secret. Never stored beyond the job."`
}

// DocumentJob is the state of an asynchronous generation.
type DocumentJob struct {
	jobs.Job
	StatusURL string `json:"statusUrl" example:"/api/documents/jobs/job_4f2a"`
	ResultURL string `json:"resultUrl" doc:"The document, once status is completed." example:"/api/documents/jobs/job_4f2a/result"`
}

type jobPath struct {
	JobID string `path:"jobId" maxLength:"64" example:"job_4f2a"`
}

func documentJobView(j jobs.Job) *DocumentJob {
	return &DocumentJob{Job: j, StatusURL: "/api/documents/jobs/" + j.ID, ResultURL: "/api/documents/jobs/" + j.ID + "/result"}
}

func (s *Server) registerDocumentJobs() {
	tag := []string{"Documents"}
	register(s, huma.Operation{
		OperationID: "postDocumentsGenerateAsync", Method: http.MethodPost, Path: "/api/documents/generate-async", Tags: tag,
		Summary:       "Generate a document asynchronously",
		DefaultStatus: http.StatusAccepted,
	}, func(ctx context.Context, in *struct{ Body AsyncDocumentRequest }) (*struct {
		Location string `header:"Location"`
		Body     *DocumentJob
	}, error) {
		r := &in.Body
		key := keyFrom(ctx).ID
		if _, err := s.documentJob(ctx, key, &r.Request); err != nil {
			return nil, err
		}
		var hook *jobs.Webhook
		if r.CallbackURL != "" {
			hook = &jobs.Webhook{URL: r.CallbackURL, Secret: r.CallbackSecret, Event: "document.generation"}
			if err := s.jobs.CheckWebhook(ctx, hook); err != nil {
				return nil, err
			}
		}
		input, err := json.Marshal(&r.Request)
		if err != nil {
			return nil, fault.Wrap(fault.Internal, err, "generate-async: keep the request")
		}
		name := "document." + map[bool]string{true: strings.ToLower(r.Output), false: "pdf"}[r.Output != ""]
		rf := handOff(ctx) // the job, not the 202, decides whether a conversion was used
		params, err := json.Marshal(documentJobParams{Refund: rf})
		if err != nil {
			s.giveBack(ctx, key, rf)
			return nil, fault.Wrap(fault.Internal, err, "generate-async: keep the request")
		}
		j, err := s.jobs.Submit(ctx, jobs.Submission{Owner: key, Kind: documentJobKind, Filename: name, Input: input, Params: params, Hook: hook})
		if err != nil {
			s.giveBack(ctx, key, rf)
			return nil, err
		}
		v := documentJobView(j)
		return &struct {
			Location string `header:"Location"`
			Body     *DocumentJob
		}{v.StatusURL, v}, nil
	}, bodyLimit(maxHTMLBody+1<<20), conversion())

	register(s, huma.Operation{
		OperationID: "getDocumentsJob", Method: http.MethodGet, Path: "/api/documents/jobs/{jobId}", Tags: tag, Summary: "State of a generation job",
		Errors: []int{http.StatusNotFound},
	}, func(ctx context.Context, in *jobPath) (*struct{ Body *DocumentJob }, error) {
		j, err := s.jobs.Get(ctx, keyFrom(ctx).ID, in.JobID)
		if err != nil {
			return nil, err
		}
		return &struct{ Body *DocumentJob }{documentJobView(j)}, nil
	})

	register(s, huma.Operation{
		OperationID: "getDocumentsJobResult", Method: http.MethodGet, Path: "/api/documents/jobs/{jobId}/result", Tags: tag, Summary: "The document of a completed job",
		Errors: []int{http.StatusNotFound, http.StatusConflict}, Responses: binaryResponse(map[string]*huma.MediaType{"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary"}}}),
	}, func(ctx context.Context, in *jobPath) (*fileOutput, error) {
		j, err := s.jobs.Get(ctx, keyFrom(ctx).ID, in.JobID)
		if err != nil {
			return nil, err
		}
		res, err := s.jobs.Result(ctx, keyFrom(ctx).ID, in.JobID)
		if err != nil {
			return nil, err
		}
		return &fileOutput{ContentType: res.ContentType, ContentDisposition: `attachment; filename="` + j.Filename + `"`, Body: res.Data}, nil
	})
}

// documentJobKind is the job kind of an asynchronous generation.
const documentJobKind = "document.generation"

// documentJobParams is what a generation job needs beside its request.
type documentJobParams struct {
	Refund *refund `json:"refund,omitempty"`
}

// runDocumentJob generates a document of an accepted asynchronous request; the input is the
// request as JSON. The key's template and fonts are read now, from the shared store.
func (s *Server) runDocumentJob(ctx context.Context, j jobs.Info, input []byte, params json.RawMessage) (jobs.Result, error) {
	var p documentJobParams
	if err := json.Unmarshal(params, &p); err != nil {
		return jobs.Result{}, fault.Wrap(fault.Internal, err, "generation job %s: parameters", j.ID)
	}
	res, err := s.generateStored(ctx, j, input)
	if err != nil {
		s.giveBack(ctx, j.Owner, p.Refund)
	}
	return res, err
}

func (s *Server) generateStored(ctx context.Context, j jobs.Info, input []byte) (jobs.Result, error) {
	var r document.Request
	if err := json.Unmarshal(input, &r); err != nil {
		return jobs.Result{}, fault.Wrap(fault.Internal, err, "generation job %s: request", j.ID)
	}
	run, err := s.documentJob(ctx, j.Owner, &r)
	if err != nil {
		return jobs.Result{}, err
	}
	f, err := run(ctx)
	if err != nil {
		return jobs.Result{}, err
	}
	summary, err := json.Marshal(map[string]any{"url": "/api/documents/jobs/" + j.ID + "/result", "contentType": f.ContentType, "size": len(f.Body)})
	if err != nil {
		return jobs.Result{}, fault.Wrap(fault.Internal, err, "generation job %s: summary", j.ID)
	}
	return jobs.Result{Data: f.Body, ContentType: f.ContentType, Summary: summary}, nil
}
