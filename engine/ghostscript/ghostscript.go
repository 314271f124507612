package ghostscript

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
)

// SRGBProfile is Debian's sRGB ICC profile (package libgs-common, via ghostscript).
const SRGBProfile = "/usr/share/color/icc/ghostscript/srgb.icc"

// Ghostscript runs gs.
type Ghostscript struct{ sup *engine.Supervisor }

// New returns a Ghostscript whose jobs run under a supervisor built from cfg.
func New(cfg engine.Config) *Ghostscript {
	cfg.Name, cfg.Binary = "ghostscript", "gs"
	return &Ghostscript{sup: engine.New(cfg)}
}

// Supervisor is the engine behind g.
func (g *Ghostscript) Supervisor() *engine.Supervisor { return g.sup }

// pdfaDef declares the OutputIntent: the sRGB profile as an ICC stream, referenced from the
// catalog's /OutputIntents (ISO 19005-3, 6.2.3).
const pdfaDef = `/ICCProfile (%s) def
[/_objdef {icc_PDFA} /type /stream /OBJ pdfmark
[{icc_PDFA} << /N 3 >> /PUT pdfmark
[{icc_PDFA} ICCProfile (r) file /PUT pdfmark
[/_objdef {OutputIntent_PDFA} /type /dict /OBJ pdfmark
[{OutputIntent_PDFA} << /Type /OutputIntent /S /GTS_PDFA1 /DestOutputProfile {icc_PDFA}
  /OutputConditionIdentifier (sRGB IEC61966-2.1) /Info (sRGB IEC61966-2.1) /RegistryName (http://www.color.org) >> /PUT pdfmark
[{Catalog} << /OutputIntents [ {OutputIntent_PDFA} ] >> /PUT pdfmark
`

// ToPDFA3B converts pdf to PDF/A-3b. The caller has checked that pdf is a readable,
// unencrypted PDF.
func (g *Ghostscript) ToPDFA3B(ctx context.Context, pdf []byte) ([]byte, error) {
	var out []byte
	err := g.sup.Run(ctx, func(ctx context.Context, w *engine.Worker) error {
		dir := w.TempDir()
		in, def, res := filepath.Join(dir, "in.pdf"), filepath.Join(dir, "pdfa.ps"), filepath.Join(dir, "out.pdf")
		if err := os.WriteFile(in, pdf, 0o600); err != nil {
			return err
		}
		if err := os.WriteFile(def, fmt.Appendf(nil, pdfaDef, SRGBProfile), 0o600); err != nil {
			return err
		}
		_, _, err := w.Exec(ctx, engine.Command{Name: "gs", Args: []string{
			"-q", "-dBATCH", "-dNOPAUSE", "-dSAFER", "--permit-file-read=" + SRGBProfile,
			"-sDEVICE=pdfwrite", "-dPDFA=3", "-dPDFACompatibilityPolicy=1",
			"-sColorConversionStrategy=RGB", "-dEmbedAllFonts=true",
			"-sOutputFile=" + res, def, in,
		}})
		if err != nil {
			var ee *engine.ExitError
			if errors.As(err, &ee) {
				return fault.Wrap(fault.InvalidPDF, err, "the PDF cannot be converted to PDF/A: %s", firstLine(ee.Stderr))
			}
			return err
		}
		out, err = os.ReadFile(res)
		if err == nil && len(out) == 0 {
			err = fault.New(fault.InvalidPDF, "the PDF could not be converted to PDF/A (empty result)")
		}
		scrubInvocation(out)
		return err
	})
	return out, err
}

// scrubInvocation blanks the comment lines in which Ghostscript records its command line
// ("%%Invocation: gs -q -dBATCH ...", continued by "%%+" lines) at the top of its output: they
// tell a reader of the PDF how the server runs its tools. Overwritten with spaces, in place,
// so every byte offset of the file stays valid.
func scrubInvocation(pdf []byte) {
	head := pdf[:min(len(pdf), 64<<10)]
	for i := 0; i < len(head) && head[i] == '%'; {
		end := i + bytes.IndexAny(head[i:], "\r\n")
		if end < i {
			end = len(head)
		}
		line := head[i:end]
		if bytes.HasPrefix(line, []byte("%%Invocation")) || bytes.HasPrefix(line, []byte("%%+")) {
			for k := 1; k < len(line); k++ {
				line[k] = ' '
			}
		}
		for i = end; i < len(head) && (head[i] == '\r' || head[i] == '\n'); i++ {
		}
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}
