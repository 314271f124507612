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

// Name is the engine's name.
func (g *Ghostscript) Name() string { return g.sup.Name() }

// Ready reports whether the engine can take work.
func (g *Ghostscript) Ready(ctx context.Context) error { return g.sup.Ready(ctx) }

// Stop refuses new jobs, waits for running ones as long as ctx allows, and stops the processes.
func (g *Ghostscript) Stop(ctx context.Context) error { return g.sup.Stop(ctx) }

var _ engine.Engine = (*Ghostscript)(nil)

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

// SRGB is the sRGB ICC profile the PDF/A output intents use (pdfa.Profiler).
func (g *Ghostscript) SRGB() ([]byte, error) { return os.ReadFile(SRGBProfile) }

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

// DistillSettings steer Distill. Colour and grey images are downsampled and re-encoded as
// JPEG; monochrome images (scans of text, CCITT or JBIG2) keep their pixels.
type DistillSettings struct {
	// DPI is the resolution colour and grey images above it are downsampled to (bicubic);
	// 0 keeps every image's resolution. Images up to 1.2 × DPI are left alone: resampling
	// them would cost quality for little gain.
	DPI int
	// Quality is the JPEG quality, 1 to 100 (IJG scale), colour and grey images are
	// re-encoded at, JPEG images included; 0 leaves the encoding to Ghostscript's defaults.
	Quality int
	// PDFA, when 1, 2 or 3, makes the output PDF/A of that part, conformance B, with the sRGB
	// OutputIntent; Ghostscript fails rather than drop what PDF/A does not allow. Colours
	// become RGB.
	PDFA int
	// RGB converts every colour to RGB: CMYK images lose a channel, spot colours their
	// separations. For screens, not for print.
	RGB bool
}

// Distill rewrites pdf with Ghostscript's pdfwrite device as s says, to make it smaller.
// The caller has checked that pdf is a readable, unencrypted PDF. Ghostscript rebuilds the
// whole file: the caller restores what it drops (XMP extension schemas, the catalog's /AF,
// document information dates) and checks what it keeps.
func (g *Ghostscript) Distill(ctx context.Context, pdf []byte, s DistillSettings) ([]byte, error) {
	if s.DPI < 0 || s.Quality < 0 || s.Quality > 100 || s.PDFA < 0 || s.PDFA > 3 {
		return nil, fault.New(fault.InvalidInput, "distill settings out of range: %+v", s)
	}
	var out []byte
	err := g.sup.Run(ctx, func(ctx context.Context, w *engine.Worker) error {
		dir := w.TempDir()
		in, def, res := filepath.Join(dir, "in.pdf"), filepath.Join(dir, "settings.ps"), filepath.Join(dir, "out.pdf")
		if err := os.WriteFile(in, pdf, 0o600); err != nil {
			return err
		}
		var ps []byte
		if s.Quality > 0 {
			ps = fmt.Appendf(ps, "<< %s >> setdistillerparams\n", jpegParams(s.Quality))
		}
		if s.PDFA > 0 {
			ps = fmt.Appendf(ps, pdfaDef, SRGBProfile)
		}
		if err := os.WriteFile(def, ps, 0o600); err != nil {
			return err
		}
		args := []string{"-q", "-dBATCH", "-dNOPAUSE", "-dSAFER", "-sDEVICE=pdfwrite",
			// Mono images are line art and text scans: downsampling or JPEG would blur them.
			"-dDownsampleMonoImages=false", "-dEmbedAllFonts=true", "-dDetectDuplicateImages=true"}
		for _, kind := range []string{"Color", "Gray"} {
			if s.DPI > 0 {
				args = append(args, "-dDownsample"+kind+"Images=true", fmt.Sprintf("-d%sImageResolution=%d", kind, s.DPI),
					"-d"+kind+"ImageDownsampleType=/Bicubic", "-d"+kind+"ImageDownsampleThreshold=1.2")
			} else {
				args = append(args, "-dDownsample"+kind+"Images=false")
			}
			if s.Quality > 0 {
				// JPEG for every colour and grey image, at the quality asked: Ghostscript's
				// automatic choice would keep some photos lossless.
				args = append(args, "-dAutoFilter"+kind+"Images=false", "-d"+kind+"ImageFilter=/DCTEncode")
			}
		}
		if s.Quality > 0 {
			args = append(args, "-dPassThroughJPEGImages=false", "-dPassThroughJPXImages=false")
		}
		if s.PDFA > 0 {
			args = append(args, "--permit-file-read="+SRGBProfile, fmt.Sprintf("-dPDFA=%d", s.PDFA), "-dPDFACompatibilityPolicy=2")
		}
		if s.PDFA > 0 || s.RGB {
			args = append(args, "-sColorConversionStrategy=RGB")
		}
		args = append(args, "-sOutputFile="+res, def, in)
		stdout, stderr, err := w.Exec(ctx, engine.Command{Name: "gs", Args: args})
		if err != nil {
			var ee *engine.ExitError
			if errors.As(err, &ee) {
				return fault.Wrap(fault.InvalidPDF, err, "the PDF cannot be distilled: %s", firstLine(ee.Stderr))
			}
			return err
		}
		// Ghostscript reports what it could not read ("**** Error: ... Output may be
		// incorrect", on standard output) and exits 0, with pages left out or blank: no
		// result to shrink to.
		for _, msg := range [][]byte{stdout, stderr} {
			if i := bytes.Index(msg, []byte("**** Error")); i >= 0 {
				return fault.New(fault.InvalidPDF, "the PDF cannot be distilled: %s", firstLine(strings.TrimLeft(string(msg[i+len("**** Error"):]), ": ")))
			}
		}
		out, err = os.ReadFile(res)
		if err == nil && len(out) == 0 {
			err = fault.New(fault.InvalidPDF, "the PDF could not be distilled (empty result)")
		}
		scrubInvocation(out)
		return err
	})
	return out, err
}

// jpegParams are the distiller parameters for JPEG at IJG quality q. pdfwrite scales the
// standard JPEG tables by QFactor, as libjpeg scales them by its quality: 50 / q below 50,
// (200 - 2q) / 100 from 50 on. A QFactor of exactly 1 is ignored (libjpeg's default, quality
// 75, applies), so quality 50 asks for 1.001, which scales the tables alike. Below quality
// 90 colour is subsampled 2×2, as libjpeg does.
func jpegParams(q int) string {
	qf := (200 - 2*float64(q)) / 100
	if q < 50 {
		qf = 50 / float64(q)
	}
	qf = max(qf, 0.01)
	if qf == 1 {
		qf = 1.001
	}
	samples := "/HSamples [2 1 1 2] /VSamples [2 1 1 2]"
	if q >= 90 {
		samples = "/HSamples [1 1 1 1] /VSamples [1 1 1 1]"
	}
	var b strings.Builder
	for _, kind := range []string{"Color", "Gray"} {
		for _, d := range []string{"ImageDict", "ACSImageDict"} {
			fmt.Fprintf(&b, "/%s%s << /QFactor %.3f /Blend 1 %s >> ", kind, d, qf, samples)
		}
	}
	return b.String()
}
