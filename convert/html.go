package convert

import (
	"context"
	"fmt"
	"github.com/papierkram/papierkram/internal/lazyre"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/cdproto/page"

	"github.com/papierkram/papierkram/engine/chromium"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/netguard"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/conform"
	"github.com/papierkram/papierkram/pdf/pdfa"
)

// Printer prints a page (engine/chromium does).
type Printer interface {
	Print(ctx context.Context, j chromium.Job) ([]byte, error)
}

// Margins are page margins, each a length with a unit: "20mm", "2cm", "1in", "72pt", "96px".
type Margins struct {
	Top    string `json:"top,omitempty" example:"20mm"`
	Bottom string `json:"bottom,omitempty" example:"20mm"`
	Left   string `json:"left,omitempty" example:"15mm"`
	Right  string `json:"right,omitempty" example:"15mm"`
}

// Band is a running header or footer.
type Band struct {
	HTML   string `json:"html" doc:"HTML of the band; elements with class pageNumber and totalPages get the page number and total. Use an explicit font-size of 8 to 9 pt." example:"<div style=\"font-size:9pt;width:100%;text-align:center\"><span class=\"pageNumber\"></span> / <span class=\"totalPages\"></span></div>"`
	Height string `json:"height,omitempty" doc:"Height of the band (the page margin grows to fit it)." example:"15mm"`
}

// HTMLRequest is the body of /v1/convert/html-to-pdf.
type HTMLRequest struct {
	HTML          string   `json:"html,omitempty" maxLength:"26214400" doc:"The HTML to render (at most 25 MB). Give html or url."`
	URL           string   `json:"url,omitempty" maxLength:"8192" doc:"An https:// page to render instead of html; the same network policy applies as for sub-resources." example:"https://example.org/invoice/42"`
	Format        string   `json:"format,omitempty" enum:"A3,A4,A5,Letter,Legal,Tabloid" default:"A4" doc:"Page size."`
	Orientation   string   `json:"orientation,omitempty" enum:"portrait,landscape" default:"portrait"`
	Margins       *Margins `json:"margins,omitempty" doc:"Page margins; default 10 mm each."`
	Header        *Band    `json:"header,omitempty"`
	Footer        *Band    `json:"footer,omitempty"`
	OutputProfile string   `json:"outputProfile,omitempty" enum:"PDF/A-3b,PDF/UA-1" doc:"PDF/A-3b: archival PDF (made PDF/A in place when the page allows, else re-rendered by Ghostscript; checked by our validator before it is returned). PDF/UA-1: tagged PDF with the heading structure, an outline, pdfuaid and dc:title in XMP, checked against PDF/UA-1; images without alt text are named in the X-Service-Warning header."`
	WaitUntil     string   `json:"waitUntil,omitempty" enum:"load,domcontentloaded,networkidle0,networkidle2" default:"load" doc:"When the page counts as ready. networkidle0 waits until no request has been open for 500 ms (web fonts loaded)."`
	ExecuteJS     bool     `json:"executeJs,omitempty" doc:"Run the page's JavaScript. Default false."`
	// Waiting for late content, after waitUntil, in this order.
	WaitForSelector   string      `json:"waitForSelector,omitempty" maxLength:"1000" doc:"A CSS selector that must match an element before printing (read through the DOM: works without executeJs)." example:"#chart svg"`
	WaitForExpression string      `json:"waitForExpression,omitempty" maxLength:"10000" doc:"A JavaScript expression polled every 50 ms until it is true (needs executeJs), e.g. for a chart library's done flag." example:"window.chartsReady === true"`
	WaitDelay         string      `json:"waitDelay,omitempty" maxLength:"20" doc:"A pause before printing, e.g. 500ms or 2s (at most 30s), for animations that run out." example:"800ms"`
	PreferCSSPageSize bool        `json:"preferCssPageSize,omitempty" doc:"Use the page's CSS @page size (e.g. @page { size: A5 landscape }) instead of format and orientation."`
	Title             string      `json:"title,omitempty" maxLength:"1000" doc:"Document title for the metadata (PDF/A output)."`
	Stationery        *Stationery `json:"stationery,omitempty" doc:"Letterhead PDFs laid under the content."`

	// Fonts are the calling key's uploaded fonts, usable by family name in the HTML.
	Fonts []FontFace `json:"-"`
	// Stamp is a PDF whose first page is laid over every page (a watermark), with
	// StampOpacity.
	Stamp        []byte  `json:"-"`
	StampOpacity float64 `json:"-"`
	// Warnings is set by the conversion: what the caller should know of a result that was
	// made all the same (images without alternate text in PDF/UA output).
	Warnings []string `json:"-"`
}

// pdfuaID is the PDF/UA identification (ISO 14289-1, 5) written into PDF/UA-1 output's XMP.
var pdfuaID = &pdf.XMPSchema{Name: "PDF/UA identification", NamespaceURI: "http://www.aiim.org/pdfua/ns/id/", Prefix: "pdfuaid",
	Properties: []pdf.XMPProperty{{Name: "part", Value: "1", Description: "Part of ISO 14289 the file conforms to"}}}

// printHTML prints r and finishes the PDF with meta besides r's own edits.
func printHTML(ctx context.Context, p Printer, policy netguard.Policy, r *HTMLRequest, meta *pdf.Changes) ([]byte, error) {
	j, err := r.job(policy)
	if err != nil {
		return nil, err
	}
	out, err := p.Print(ctx, j)
	if err != nil {
		return nil, err
	}
	if len(out) > MaxPDF {
		return nil, fault.New(fault.PayloadTooLarge, "the PDF would be %d MB, over the limit of %d MB", len(out)>>20, MaxPDF>>20)
	}
	return r.finish(ctx, out, meta)
}

// finish does what the request asks of the printed PDF beyond the print, in one edit of
// it (one parse, one write): the title, metadata the caller adds (Markdown's front
// matter), the stationery under the pages and the stamp over them.
func (r *HTMLRequest) finish(ctx context.Context, out []byte, meta *pdf.Changes) ([]byte, error) {
	// Chromium names a page without a <title> after its address ("about:blank"): the title
	// is the request's, else the page's own, else none.
	retitle := r.Title != "" || r.URL == "" && !titled.MatchString(r.HTML)
	ua := r.OutputProfile == "PDF/UA-1"
	if !retitle && meta == nil && r.Stationery == nil && r.Stamp == nil && !ua {
		return out, nil
	}
	e := pdf.Edit(out)
	if ua {
		// Chromium tags the page but writes no XMP: PDF/UA-1 wants the identification
		// (pdfuaid:part) and dc:title there, and non-standard structure types mapped.
		st, err := e.MapRoles()
		if err != nil {
			return nil, err
		}
		if st.FiguresWithoutAlt > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%d image(s) have no alternate text (alt): PDF/UA-1 wants one for every figure that is not decoration", st.FiguresWithoutAlt))
		}
		e.SetXMPSchema(pdfuaID)
	}
	if retitle {
		e.SetMetadata(pdf.Changes{Title: &r.Title})
	}
	if meta != nil {
		e.SetMetadata(*meta)
	}
	if r.Stationery != nil {
		if err := r.Stationery.apply(e); err != nil {
			return nil, err
		}
	}
	if r.Stamp != nil {
		if err := e.Overlay(r.Stamp, r.StampOpacity); err != nil {
			return nil, err
		}
	}
	out, err := e.Bytes(time.Now())
	if err != nil {
		return nil, err
	}
	if ua {
		// Checked as every PDF/A is: a figure without alternate text is the caller's
		// (warned above), anything else ours.
		if err := conform.Require(ctx, out, conform.PDFUA1, "the PDF/UA-1 output", "7.3-1"); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// paper sizes in inches, portrait.
var paper = map[string][2]float64{
	"A3": {11.69, 16.54}, "A4": {8.27, 11.69}, "A5": {5.83, 8.27},
	"LETTER": {8.5, 11}, "LEGAL": {8.5, 14}, "TABLOID": {11, 17},
}

// MaxPDF is the spec's response size limit of HTML conversion.
const MaxPDF = 200 << 20

// Length converts "20mm", "2cm", "1in", "72pt", "96px" (or a bare number of pixels) to inches.
func Length(s string) (float64, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	units := []struct {
		suffix string
		inch   float64
	}{{"mm", 1 / 25.4}, {"cm", 1 / 2.54}, {"in", 1}, {"pt", 1.0 / 72}, {"px", 1.0 / 96}}
	for _, u := range units {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			return parseLength(s, strings.TrimSpace(v), u.inch)
		}
	}
	return parseLength(s, s, 1.0/96)
}

func parseLength(orig, num string, perUnit float64) (float64, error) {
	f, err := strconv.ParseFloat(num, 64)
	if err != nil || f < 0 || f > 10000 {
		return 0, fault.New(fault.InvalidInput, "%q is not a length: write a number with mm, cm, in, pt or px, such as 20mm", orig)
	}
	return f * perUnit, nil
}

// job builds the print job of r, after checking every field.
func (r *HTMLRequest) job(policy netguard.Policy) (chromium.Job, error) {
	var j chromium.Job
	switch {
	case r.HTML == "" && r.URL == "":
		return j, fault.New(fault.InvalidInput, "give html or url")
	case r.HTML != "" && r.URL != "":
		return j, fault.New(fault.InvalidInput, "give html or url, not both")
	}
	j.HTML, j.URL, j.JavaScript, j.WaitUntil = withFonts(r.HTML, r.Fonts), r.URL, r.ExecuteJS, r.WaitUntil
	j.Allow = func(ctx context.Context, u string) bool { _, err := policy.CheckURL(ctx, u); return err == nil }
	if r.URL != "" {
		if !strings.HasPrefix(strings.ToLower(r.URL), "https://") {
			return j, fault.New(fault.InvalidInput, "url must be an https:// address")
		}
	}
	format := strings.ToUpper(r.Format)
	if format == "" {
		format = "A4"
	}
	size, ok := paper[format]
	if !ok {
		return j, fault.New(fault.InvalidInput, "unknown format %q: use A3, A4, A5, Letter, Legal or Tabloid", r.Format)
	}
	p := page.PrintToPDFParams{PaperWidth: size[0], PaperHeight: size[1], PrintBackground: new(true)}
	switch strings.ToLower(r.Orientation) {
	case "", "portrait":
	case "landscape":
		p.Landscape = new(true)
	default:
		return j, fault.New(fault.InvalidInput, "orientation must be portrait or landscape, not %q", r.Orientation)
	}
	m := [4]float64{10 / 25.4, 10 / 25.4, 10 / 25.4, 10 / 25.4} // top, bottom, left, right
	if r.Margins != nil {
		for i, v := range []string{r.Margins.Top, r.Margins.Bottom, r.Margins.Left, r.Margins.Right} {
			if v == "" {
				continue
			}
			l, err := Length(v)
			if err != nil {
				return j, fault.New(fault.InvalidInput, "margins: %s", fault.As(err).Message)
			}
			m[i] = l
		}
	}
	if r.Header != nil || r.Footer != nil {
		p.DisplayHeaderFooter = new(true)
		p.HeaderTemplate, p.FooterTemplate = "<span></span>", "<span></span>" // Chromium's defaults print the URL and date
		for i, b := range []*Band{r.Header, r.Footer} {
			if b == nil {
				continue
			}
			if b.Height != "" {
				h, err := Length(b.Height)
				if err != nil {
					return j, fault.New(fault.InvalidInput, "header/footer height: %s", fault.As(err).Message)
				}
				m[i] = max(m[i], h)
			}
			// Chromium lays a band across the whole paper width: the padding puts it inside the
			// page's left and right margins, where the text of the page is.
			tmpl := fmt.Sprintf(`<div style="font-size:9pt;width:100%%;box-sizing:border-box;padding:0 %.4fin 0 %.4fin;-webkit-print-color-adjust:exact">`, m[3], m[2]) + b.HTML + `</div>`
			if i == 0 {
				p.HeaderTemplate = tmpl
			} else {
				p.FooterTemplate = tmpl
			}
		}
	}
	p.MarginTop, p.MarginBottom, p.MarginLeft, p.MarginRight = &m[0], &m[1], &m[2], &m[3]
	if (m[0]+m[1]) >= size[1] || (m[2]+m[3]) >= size[0] {
		return j, fault.New(fault.InvalidInput, "the margins leave no room on a %s page", format)
	}
	switch r.OutputProfile {
	case "", "PDF/A-3b":
		// Untagged unless PDF/UA-1 is asked for: Chromium tags by default, and its structure
		// tree made a 20-page report 12 times the size (634 KB against 51 KB) and cost 80 %
		// more of the browser's CPU (277 ms against 152 ms) — Gotenberg's default is untagged too.
		p.GenerateTaggedPDF = new(false)
	case "PDF/UA-1":
		p.GenerateTaggedPDF, p.GenerateDocumentOutline = new(true), new(true)
	default:
		return j, fault.New(fault.InvalidInput, "unknown outputProfile %q: use PDF/A-3b or PDF/UA-1", r.OutputProfile)
	}
	switch r.WaitUntil {
	case "", "load", "domcontentloaded", "networkidle0", "networkidle2":
	default:
		return j, fault.New(fault.InvalidInput, "unknown waitUntil %q: use load, domcontentloaded, networkidle0 or networkidle2", r.WaitUntil)
	}
	if err := r.waits(&j); err != nil {
		return j, err
	}
	if r.PreferCSSPageSize {
		p.PreferCSSPageSize = new(true)
	}
	j.PDF = p
	return j, nil
}

// titled matches a document with a non-empty <title>.
var titled = lazyre.New(`(?is)<title\b[^>]*>\s*[^<\s]`)

// MaxWaitDelay bounds waitDelay; the render's time limit bounds every wait as well.
const MaxWaitDelay = 30 * time.Second

// waits checks and sets the waits for late content.
func (r *HTMLRequest) waits(j *chromium.Job) error {
	if r.WaitDelay != "" {
		d, err := time.ParseDuration(strings.TrimSpace(r.WaitDelay))
		if err != nil || d < 0 {
			return fault.New(fault.InvalidInput, "waitDelay %q is not a duration such as 500ms or 2s", r.WaitDelay).With("field", "waitDelay")
		}
		if d > MaxWaitDelay {
			return fault.New(fault.InvalidInput, "waitDelay %s is over the limit of %s", d, MaxWaitDelay).With("field", "waitDelay")
		}
		j.WaitDelay = d
	}
	if r.WaitForExpression != "" && !r.ExecuteJS {
		return fault.New(fault.InvalidInput, "waitForExpression runs JavaScript: set executeJs to true").With("field", "waitForExpression")
	}
	j.WaitForSelector, j.WaitForExpression = strings.TrimSpace(r.WaitForSelector), strings.TrimSpace(r.WaitForExpression)
	return nil
}

// HTML converts r to PDF with p; PDF/A output goes through a.
func HTML(ctx context.Context, p Printer, a pdfa.Converter, policy netguard.Policy, r *HTMLRequest) ([]byte, error) {
	out, err := printHTML(ctx, p, policy, r, nil)
	if err != nil {
		return nil, err
	}
	if r.OutputProfile == "PDF/A-3b" {
		if a == nil {
			return nil, fault.New(fault.EngineUnavailable, "PDF/A conversion is not configured on this server")
		}
		return pdfa.Convert(ctx, a, out, pdfa.Options{Title: r.Title})
	}
	return out, nil
}
