package poppler

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
)

// Poppler runs poppler's tools.
type Poppler struct{ sup *engine.Supervisor }

// New returns a Poppler whose jobs run under a supervisor built from cfg (Name and Binary
// are set here).
func New(cfg engine.Config) *Poppler {
	cfg.Name, cfg.Binary = "poppler", "pdftoppm"
	return &Poppler{sup: engine.New(cfg)}
}

// Supervisor is the engine behind p, for readiness, metrics and shutdown.
func (p *Poppler) Supervisor() *engine.Supervisor { return p.sup }

// Name is the engine's name.
func (p *Poppler) Name() string { return p.sup.Name() }

// Ready reports whether the engine can take work.
func (p *Poppler) Ready(ctx context.Context) error { return p.sup.Ready(ctx) }

// Stop refuses new jobs, waits for running ones as long as ctx allows, and stops the processes.
func (p *Poppler) Stop(ctx context.Context) error { return p.sup.Stop(ctx) }

var _ engine.Engine = (*Poppler)(nil)

// Format is an image format of Render.
type Format string

const (
	PNG  Format = "PNG"
	JPEG Format = "JPEG"
)

// RenderOptions shape a rendered page. ScaleToWidth, when set, makes the image exactly that
// wide (the caller decides when to scale).
type RenderOptions struct {
	DPI          int
	Format       Format
	ScaleToWidth int
}

// Render renders the given 1-based pages, one image each, in order, in one job.
func (p *Poppler) Render(ctx context.Context, pdf []byte, pages []int, o RenderOptions) ([][]byte, error) {
	var out [][]byte
	err := p.sup.Run(ctx, func(ctx context.Context, w *engine.Worker) error {
		in, err := input(w, pdf)
		if err != nil {
			return err
		}
		for _, page := range pages {
			args := []string{"-r", strconv.Itoa(o.DPI), "-f", strconv.Itoa(page), "-l", strconv.Itoa(page), "-singlefile"}
			if o.Format == JPEG {
				args = append(args, "-jpeg", "-jpegopt", "quality=85")
			} else {
				args = append(args, "-png")
			}
			if o.ScaleToWidth > 0 {
				args = append(args, "-scale-to-x", strconv.Itoa(o.ScaleToWidth), "-scale-to-y", "-1")
			}
			img, _, err := w.Exec(ctx, engine.Command{Name: "pdftoppm", Args: append(args, in)})
			if err != nil {
				return mapErr(err)
			}
			if len(img) == 0 {
				return fault.New(fault.InvalidPDF, "page %d could not be rendered", page)
			}
			out = append(out, img)
		}
		return nil
	})
	return out, err
}

// Text extracts the text of pages first..last, one string per page. With layout, the
// physical layout is kept (columns, alignment).
func (p *Poppler) Text(ctx context.Context, pdf []byte, first, last int, layout bool) ([]string, error) {
	var pages []string
	err := p.sup.Run(ctx, func(ctx context.Context, w *engine.Worker) error {
		in, err := input(w, pdf)
		if err != nil {
			return err
		}
		args := []string{"-enc", "UTF-8", "-f", strconv.Itoa(first), "-l", strconv.Itoa(last)}
		if layout {
			args = append(args, "-layout")
		}
		out, _, err := w.Exec(ctx, engine.Command{Name: "pdftotext", Args: append(args, in, "-")})
		if err != nil {
			return mapErr(err)
		}
		// pdftotext ends every page with a form feed.
		parts := strings.Split(string(out), "\f")
		if n := last - first + 1; len(parts) > n {
			parts = parts[:n]
		}
		pages = parts
		return nil
	})
	return pages, err
}

func input(w *engine.Worker, pdf []byte) (string, error) {
	in := filepath.Join(w.TempDir(), "in.pdf")
	if err := os.WriteFile(in, pdf, 0o600); err != nil {
		return "", err
	}
	return in, nil
}

// mapErr names poppler's failures: a file it cannot read is the input's fault.
func mapErr(err error) error {
	var ee *engine.ExitError
	if !errors.As(err, &ee) {
		return err
	}
	msg := strings.TrimSpace(ee.Stderr)
	switch {
	case strings.Contains(msg, "Incorrect password"):
		return fault.Wrap(fault.EncryptedPDF, err, "the PDF is encrypted")
	case ee.Code == 1 || ee.Code == 2 || bytes.Contains([]byte(msg), []byte("Syntax Error")):
		return fault.Wrap(fault.InvalidPDF, err, "the PDF cannot be rendered: %s", firstLine(msg))
	}
	return err
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
