package pygments

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
)

// Binary is the Python that runs Pygments: the system's, which has Debian's python3-pygments
// (a Python from elsewhere on PATH may not have it), as engine/office's has python3-uno.
const Binary = "/usr/bin/python3"

//go:embed highlight.py
var script string

// Block is one piece of code and the language it is written in, as a Markdown fence names
// it: a name ("go"), an alias ("py") or a file extension ("yml").
type Block struct {
	Language string `json:"language"`
	Code     string `json:"code"`
}

// MaxCode bounds the code of one Highlight call, in bytes: Pygments lexes about a megabyte
// a second, and a document with more code than this is printed without colours rather
// than holding a process for a minute.
const MaxCode = 1 << 20

// Pygments runs Pygments.
type Pygments struct{ sup *engine.Supervisor }

// New returns a Pygments whose jobs run under a supervisor built from cfg (Name and Binary
// are set here).
func New(cfg engine.Config) *Pygments {
	cfg.Name, cfg.Binary = "pygments", Binary
	return &Pygments{sup: engine.New(cfg)}
}

// Supervisor is the engine behind p, for readiness, metrics and shutdown.
func (p *Pygments) Supervisor() *engine.Supervisor { return p.sup }

// Name is the engine's name.
func (p *Pygments) Name() string { return p.sup.Name() }

// Ready reports whether the engine can take work.
func (p *Pygments) Ready(ctx context.Context) error { return p.sup.Ready(ctx) }

// Stop refuses new jobs, waits for running ones as long as ctx allows, and stops the processes.
func (p *Pygments) Stop(ctx context.Context) error { return p.sup.Stop(ctx) }

var _ engine.Engine = (*Pygments)(nil)

// Highlight returns each block's code as HTML: the code escaped, its tokens in spans whose
// classes are Pygments' short token names ("k" a keyword, "s2" a double-quoted string),
// without the surrounding pre element. A block in a language Pygments does not know is "".
// All blocks are coloured by one process.
func (p *Pygments) Highlight(ctx context.Context, blocks []Block) ([]string, error) {
	if len(blocks) == 0 {
		return nil, nil
	}
	size := 0
	for _, b := range blocks {
		size += len(b.Code)
	}
	if size > MaxCode {
		return nil, fault.New(fault.PayloadTooLarge, "the code blocks hold %d bytes; at most %d are highlighted", size, MaxCode)
	}
	in, err := json.Marshal(blocks)
	if err != nil {
		return nil, fmt.Errorf("pygments: encode blocks: %w", err)
	}
	var out []*string
	err = p.sup.Run(ctx, func(ctx context.Context, w *engine.Worker) error {
		// -I: no environment variables, user site or working directory on the module path
		// (the job's directory cannot shadow a module); -B: nothing written beside the
		// modules. The program reaches no network.
		stdout, _, err := w.Exec(ctx, engine.Command{Name: Binary, Args: []string{"-I", "-B", "-c", script},
			Stdin: bytes.NewReader(in), NoNetwork: true, MaxOutput: 32 * MaxCode})
		if err != nil {
			return mapErr(err)
		}
		if err := json.Unmarshal(stdout, &out); err != nil {
			return fault.Wrap(fault.EngineUnavailable, err, "pygments answered something other than the highlighted blocks")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) != len(blocks) {
		return nil, fault.New(fault.EngineUnavailable, "pygments answered %d blocks for %d", len(out), len(blocks))
	}
	html := make([]string, len(out))
	for i, h := range out {
		if h != nil {
			html[i] = *h
		}
	}
	return html, nil
}

// mapErr names a failed run: Pygments missing is the server's setup, anything else the
// engine's failure (the blocks are valid JSON whatever the caller wrote).
func mapErr(err error) error {
	var ee *engine.ExitError
	if !errors.As(err, &ee) {
		return err // already a fault: not installed, timeout, cancelled
	}
	if strings.Contains(ee.Stderr, "No module named 'pygments'") {
		return fault.Wrap(fault.EngineUnavailable, err, "Pygments is not installed on this server (Debian: python3-pygments)")
	}
	return fault.Wrap(fault.EngineUnavailable, err, "pygments failed: %s", engine.LastLine(ee.Stderr))
}
