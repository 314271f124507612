package office

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/archive"
)

// Binaries: Debian's LibreOffice and the system Python that has python3-uno (a Python
// from elsewhere on PATH would not find the uno module).
const (
	Binary = "soffice"
	Python = "/usr/bin/python3"
)

//go:embed bridge.py
var bridgeSource []byte

// Office converts documents with a pool of warm LibreOffice processes.
type Office struct {
	sup *engine.Supervisor
	dir string // where bridge.py is written once

	def        defences
	noIsolated atomic.Bool // the kernel refused a network namespace (warned once)

	mu    sync.Mutex
	procs []*process // every process made, for tests that kill their own
}

// defences are the layers between a document and anything outside it; New turns all on.
// Each holds on its own where it applies (tests turn the others off to show it).
type defences struct {
	isolate  bool      // soffice runs in an empty network namespace
	settings []setting // LibreOffice's configuration in each profile (hardening)
	sanitize bool      // references outside the document are removed before loading
}

// defended is what New runs with.
var defended = defences{isolate: true, settings: hardening, sanitize: true}

// New returns an Office whose pool is built from cfg (Name, Binary and New are set here;
// MaxJobs defaults to 200: LibreOffice grows with every document it has loaded).
func New(cfg engine.Config) (*Office, error) { return newOffice(cfg, defended) }

func newOffice(cfg engine.Config, def defences) (*Office, error) {
	dir, err := os.MkdirTemp(cfg.TempRoot, "papierkram-office-")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "bridge.py"), bridgeSource, 0o600); err != nil {
		return nil, err
	}
	o := &Office{dir: dir, def: def}
	cfg.Name, cfg.Binary = "office", Binary
	if cfg.MaxJobs == 0 {
		cfg.MaxJobs = 200
	}
	if cfg.StartTimeout == 0 {
		// A first start builds the user profile: ~4 s idle on 2 cores, far more when
		// the machine is busy converting.
		cfg.StartTimeout = 90 * time.Second
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	cfg.New = func(slot int) engine.Process {
		p := &process{owner: o, bridge: filepath.Join(dir, "bridge.py"), root: cfg.TempRoot, log: log}
		o.mu.Lock()
		o.procs = append(o.procs[max(len(o.procs)-64, 0):], p)
		o.mu.Unlock()
		return p
	}
	o.sup = engine.New(cfg)
	return o, nil
}

// Supervisor is the engine behind o.
func (o *Office) Supervisor() *engine.Supervisor { return o.sup }

// Name is the engine's name.
func (o *Office) Name() string { return o.sup.Name() }

var _ engine.Engine = (*Office)(nil)

// Ready reports whether LibreOffice is installed and the pool takes work.
func (o *Office) Ready(ctx context.Context) error {
	if _, err := os.Stat(Python); err != nil {
		return fault.New(fault.EngineUnavailable, "%s (with python3-uno) is not installed on this server", Python)
	}
	return o.sup.Ready(ctx)
}

// Stop is Close, for the server's list of engines.
func (o *Office) Stop(ctx context.Context) error { return o.Close(ctx) }

// Close stops the pool and removes the bridge.
func (o *Office) Close(ctx context.Context) error {
	err := o.sup.Stop(ctx)
	os.RemoveAll(o.dir)
	return err
}

// Job is one conversion to PDF.
type Job struct {
	Document []byte
	Ext      string // the document's type by extension: docx, doc, odt, rtf, docm, xlsx, xlsm, ods, ...
	PDFA     bool   // PDF/A-3b through LibreOffice's own export
	// TrackChanges "visualize" prints tracked changes as markup; anything else accepts them.
	TrackChanges string
	HideComments bool // leave comments out (else they become PDF annotations)
	// JoinSheets prints a workbook's visible sheets one after the other on the same pages
	// instead of each from a new page.
	JoinSheets bool
	// Name is the document's file name without extension, as headers and footers show it
	// (&F, the FileName field); empty: "document".
	Name string
	// Locale (BCP 47, e.g. de-DE) decides number and date formats that follow the system,
	// and the default paper; empty: the engine's (Config.Locale, default de-DE).
	Locale string
	// Recalculate recomputes every formula of a workbook; by default stored results stay
	// and only formulas without one are computed.
	Recalculate bool
	// UpdateIndexes rebuilds a text document's tables of contents and other indexes.
	UpdateIndexes bool

	weaken weakening // tests only: defences left out for this job
}

// weakening leaves out the per-job defences, for tests that show what each layer holds.
type weakening struct {
	noSanitize  bool // the document goes to LibreOffice as it is
	updateLinks bool // LibreOffice may update links on load (as far as its settings allow)
}

// filters are LibreOffice's export filters for the formats Convert writes besides PDF.
var filters = map[string]string{
	"ods":  "calc8",
	"xlsx": "Calc MS Excel 2007 XML",
	"odt":  "writer8",
	"docx": "MS Word 2007 XML",
}

// request and response are the bridge's protocol, one JSON object per line.
type request struct {
	Input        string `json:"input"`
	Output       string `json:"output"`
	PDFA         bool   `json:"pdfa,omitempty"`
	TrackChanges string `json:"trackChanges,omitempty"`
	HideComments bool   `json:"hideComments,omitempty"`
	JoinSheets   bool   `json:"joinSheets,omitempty"`
	Locale       string `json:"locale,omitempty"`
	Recalculate  bool   `json:"recalculate,omitempty"`
	UpdateIdx    bool   `json:"updateIndexes,omitempty"`
	Filter       string `json:"filter,omitempty"`
	UpdateLinks  bool   `json:"updateLinks,omitempty"` // tests only (weakening)
}

type response struct {
	Ready bool   `json:"ready"`
	OK    bool   `json:"ok"`
	Pages int    `json:"pages"`
	Kind  string `json:"kind"`
	Error string `json:"error"`
}

// ToPDF converts a document. A document LibreOffice cannot open is fault.Unprocessable; a
// conversion over the job time limit is fault.Timeout and its soffice is replaced.
func (o *Office) ToPDF(ctx context.Context, j Job) ([]byte, error) { return o.Convert(ctx, j, "pdf") }

// Convert converts a document into another format LibreOffice writes: pdf, or ods, xlsx,
// odt, docx (the document's kind must fit: a workbook becomes ods or xlsx).
func (o *Office) Convert(ctx context.Context, j Job, to string) ([]byte, error) {
	filter, ok := filters[to]
	if !ok && to != "pdf" {
		return nil, fault.New(fault.InvalidInput, "cannot convert into %q", to)
	}
	ext := strings.ToLower(strings.TrimPrefix(j.Ext, "."))
	if ext == "html" && to == "odt" {
		filter = "writerweb8_writer" // LibreOffice opens HTML as a Writer/Web document
	}
	if ext == "" || strings.ContainsAny(ext, `/\`) {
		return nil, fault.New(fault.InvalidInput, "the document type is unknown")
	}
	doc := j.Document
	if o.def.sanitize && !j.weaken.noSanitize {
		// Every document LibreOffice opens passes here: what it would fetch from outside
		// (pictures, linked sections, other workbooks, web queries) is taken out first.
		var err error
		if doc, err = sanitize(doc, ext); err != nil {
			return nil, err
		}
	}
	var out []byte
	err := o.sup.Run(ctx, func(ctx context.Context, w *engine.Worker) error {
		in, res := filepath.Join(w.TempDir(), fileStem(j.Name)+"."+ext), filepath.Join(w.TempDir(), "converted."+to)
		if err := os.WriteFile(in, doc, 0o600); err != nil {
			return err
		}
		if embedsFonts(doc) {
			// LibreOffice keeps a document's embedded fonts for the rest of the process's
			// life: no later document (another key's) may draw with them.
			w.Retire("the document brought embedded fonts")
		}
		proc := w.Process().(*process)
		r, err := proc.do(ctx, request{Input: in, Output: res, PDFA: j.PDFA, TrackChanges: j.TrackChanges, HideComments: j.HideComments, JoinSheets: j.JoinSheets,
			Locale: cmp.Or(j.Locale, DefaultLocale), Recalculate: j.Recalculate, UpdateIdx: j.UpdateIndexes, Filter: filter, UpdateLinks: j.weaken.updateLinks})
		if err != nil {
			return err
		}
		if !r.OK && r.Kind != "crashed" && (r.Kind != "load" && r.Kind != "encrypted" || unoTransport(r.Error)) {
			// A soffice killed mid-job shows first as a UNO error from the bridge ("illegal
			// object given", "DisposedException"); its exit follows a moment later. Wait for
			// it, so that the caller hears "retry" rather than "your document is bad".
			select {
			case <-proc.office.Done():
			case <-time.After(time.Second):
			}
		}
		if !r.OK && (r.Kind == "crashed" || proc.Healthy(ctx) != nil) {
			proc.log.Warn("office process failed during a conversion", "kind", r.Kind, "error", clip(r.Error), "stderr", clip(proc.stderr.String()))
			proc.Stop() // the supervisor's health check then replaces it
			return fault.New(fault.EngineUnavailable, "the office process stopped during the conversion; retry")
		}
		if !r.OK {
			switch r.Kind {
			case "encrypted":
				return fault.New(fault.InvalidInput, "the document is password-protected; remove the password and upload it again")
			case "load":
				return fault.New(fault.Unprocessable, "the document cannot be opened: it is damaged or not a %s file (%s)", ext, clip(r.Error))
			}
			return fault.New(fault.Unprocessable, "the document could not be converted: %s", clip(r.Error))
		}
		out, err = os.ReadFile(res)
		if err == nil && len(out) == 0 {
			err = fault.New(fault.Unprocessable, "the conversion produced no %s", strings.ToUpper(to))
		}
		return err
	})
	return out, err
}

// DefaultLocale is the locale of a job that names none: German number and date formats and
// A4 paper, for the service's users.
const DefaultLocale = "de-DE"

// fileStem is a safe file name for a document's own name: what headers print as &F. Path
// separators, control characters and leading dots go; a name that is then empty or
// clashes with the output file becomes "document".
func fileStem(name string) string {
	name = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < 0x20 || r == 0x7f {
			return '_'
		}
		return r
	}, name)
	name = strings.TrimLeft(strings.TrimSpace(name), ".")
	for len(name) > 120 { // a byte limit of file names is 255; leave room for the extension
		_, size := utf8.DecodeLastRuneInString(name)
		name = name[:len(name)-size]
	}
	if name == "" || name == "converted" {
		return "document"
	}
	return name
}

// unoTransport: the bridge lost soffice (as opposed to soffice refusing a document).
func unoTransport(msg string) bool {
	for _, s := range []string{"DisposedException", "illegal object given", "Binary URP bridge", "broken pipe", "Connection"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// embedsFonts tells whether an OOXML or ODF package carries fonts (word/fonts/, Fonts/).
func embedsFonts(doc []byte) bool {
	z, err := archive.Open(doc, archive.Limits{Noun: "the document", Entries: sanMaxEntries})
	if err != nil {
		return false
	}
	for _, f := range z.Files {
		if strings.HasPrefix(f.Name, "word/fonts/") || strings.HasPrefix(f.Name, "Fonts/") {
			return true
		}
	}
	return false
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// process is one soffice with its bridge, an engine.Process.
type process struct {
	owner        *Office
	bridge, root string
	log          *slog.Logger

	dir     string
	sockets []string     // the OSL pipe files of this soffice
	pid     atomic.Int64 // soffice's pid (and process group), for tests
	office  *engine.Child
	py      *engine.Child
	stdin   io.WriteCloser
	stderr  *tail
	mu      sync.Mutex
	replies chan response
}

// tail keeps the last bytes written to it: the bridge's and soffice's complaints.
type tail struct {
	mu sync.Mutex
	b  []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = t.b[len(t.b)-4096:]
	}
	return len(p), nil
}

func (t *tail) String() string { t.mu.Lock(); defer t.mu.Unlock(); return string(t.b) }

// startMu serialises starts, so that the socket files a starting soffice creates in /tmp
// (LibreOffice puts its OSL pipes there whatever TMPDIR says) can be told apart and
// removed with it.
var startMu sync.Mutex

const socketDir = "/tmp"

func oslSockets() map[string]bool {
	m := map[string]bool{}
	entries, _ := os.ReadDir(socketDir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "OSL_PIPE_") {
			m[e.Name()] = true
		}
	}
	return m
}

func (p *process) Start(ctx context.Context) error {
	startMu.Lock()
	defer startMu.Unlock()
	before := oslSockets()
	defer func() {
		for name := range oslSockets() {
			if !before[name] {
				p.sockets = append(p.sockets, filepath.Join(socketDir, name))
			}
		}
	}()
	dir, err := os.MkdirTemp(p.root, "papierkram-office-profile-")
	if err != nil {
		return err
	}
	p.dir = dir
	var rnd [8]byte
	rand.Read(rnd[:])
	pipe := "papierkram-office-" + hex.EncodeToString(rnd[:])
	p.stderr = &tail{}
	profile := filepath.Join(dir, "profile")
	if err := writeProfile(profile, p.owner.def.settings); err != nil {
		return err
	}
	office := engine.Command{Name: Binary, Args: []string{
		"--headless", "--invisible", "--nologo", "--norestore", "--nodefault", "--nolockcheck", "--nofirststartwizard",
		"-env:UserInstallation=file://" + profile,
		"--accept=pipe,name=" + pipe + ";urp;StarOffice.ComponentContext",
	}, Env: []string{"HOME=" + dir, "TMPDIR=" + dir}}
	// No network for soffice: whatever a document makes it fetch finds no host, not even
	// this one. The bridge reaches it over the OSL pipe, a unix socket in /tmp, which
	// works across network namespaces. Only soffice: the bridge needs no isolation.
	office.NoNetwork = p.owner.def.isolate && !p.owner.noIsolated.Load()
	p.office, err = engine.StartProcess(ctx, office, nil, p.stderr)
	if err != nil && office.NoNetwork && namespaceRefused(err) {
		// Without the namespace, once: if that starts, the namespace was the trouble, and
		// the rest of the pool's starts go without it (with one warning).
		refused := err
		office.NoNetwork = false
		if p.office, err = engine.StartProcess(ctx, office, nil, p.stderr); err == nil && p.owner.noIsolated.CompareAndSwap(false, true) {
			p.log.Warn("office: the kernel refuses soffice a network namespace; it runs with the server's network, kept from fetching by its settings and the document sanitiser only", "error", refused)
		}
	}
	if err != nil {
		return err
	}
	p.pid.Store(int64(p.office.Pid()))
	deadline, ok := ctx.Deadline()
	wait := 30 * time.Second
	if ok {
		wait = time.Until(deadline)
	}
	pr, pw := io.Pipe()   // the bridge's answers
	inR, inW := io.Pipe() // the requests
	p.py, err = engine.StartProcess(ctx, engine.Command{Name: Python, Args: []string{p.bridge, pipe, fmt.Sprintf("%.1f", wait.Seconds())},
		Env: []string{"HOME=" + dir, "TMPDIR=" + dir}, Stdin: inR}, pw, p.stderr)
	if err != nil {
		return err
	}
	p.stdin = inW
	// The goroutines get their own copies of what they use, not p's fields.
	py, replies := p.py, make(chan response, 1)
	go func() { // the answers end when the bridge does
		<-py.Done()
		pw.Close()
		inR.Close()
	}()
	p.replies = replies
	go p.read(pr, replies)
	select {
	case r, ok := <-replies:
		if !ok || !r.Ready {
			return fmt.Errorf("office bridge did not connect: %s %s", r.Error, clip(p.stderr.String()))
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("office did not start in time: %w", ctx.Err())
	}
}

// namespaceRefused: starting in a new namespace failed for want of permission or support
// (no CAP_SYS_ADMIN, user namespaces off or used up, a seccomp filter), not because
// soffice is missing.
func namespaceRefused(err error) bool {
	for _, e := range []error{syscall.EPERM, syscall.EINVAL, syscall.ENOSPC, syscall.EUSERS} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// read delivers the bridge's answers; it ends when the bridge's stdout closes.
func (p *process) read(r io.Reader, replies chan<- response) {
	defer close(replies)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var res response
		if err := json.Unmarshal(sc.Bytes(), &res); err != nil {
			p.log.Warn("office bridge: unreadable answer", "line", clip(sc.Text()))
			continue
		}
		replies <- res
	}
	io.Copy(io.Discard, r)
}

// do sends one request and waits for its answer or the end of ctx (then the supervisor
// replaces the process: it may still be busy).
func (p *process) do(ctx context.Context, req request) (response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, _ := json.Marshal(req)
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		return response{}, fmt.Errorf("office bridge: %w", err)
	}
	select {
	case r, ok := <-p.replies:
		if !ok {
			return response{}, fmt.Errorf("office bridge exited: %s", clip(p.stderr.String()))
		}
		return r, nil
	case <-p.office.Done():
		return response{OK: false, Kind: "crashed", Error: "soffice exited: " + clip(p.stderr.String())}, nil
	case <-ctx.Done():
		return response{}, ctx.Err()
	}
}

// Memory is what soffice and the bridge hold (PSS of their process groups).
func (p *process) Memory() (int64, error) {
	var sum int64
	for _, c := range []*engine.Child{p.office, p.py} {
		if c != nil {
			m, err := c.Memory()
			if err != nil {
				return 0, err
			}
			sum += m
		}
	}
	return sum, nil
}

var _ engine.Measured = (*process)(nil)

func (p *process) Healthy(context.Context) error {
	switch {
	case p.office == nil || p.py == nil:
		return errors.New("not started")
	case p.office.Exited():
		return errors.New("soffice exited")
	case p.py.Exited():
		return errors.New("office bridge exited")
	}
	return nil
}

func (p *process) Stop() error {
	if p.stdin != nil {
		p.stdin.Close()
	}
	if p.py != nil {
		p.py.Kill()
	}
	if p.office != nil {
		p.office.Kill()
	}
	if p.dir != "" {
		os.RemoveAll(p.dir)
	}
	for _, s := range p.sockets {
		os.Remove(s)
	}
	return nil
}
