package convert

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"strings"
	"sync"
	"time"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
	"go.abhg.dev/goldmark/frontmatter"

	"github.com/papierkram/papierkram/engine/pygments"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/lazyre"
	"github.com/papierkram/papierkram/netguard"
	"github.com/papierkram/papierkram/pdf"
	"github.com/papierkram/papierkram/pdf/pdfa"
)

// MarkdownRequest is the body of /v1/convert/markdown-to-pdf.
type MarkdownRequest struct {
	Markdown        string       `json:"markdown" minLength:"1" maxLength:"26214400" doc:"CommonMark or GitHub-flavoured Markdown, optionally with YAML front matter (title, author, date become metadata)."`
	Format          string       `json:"format,omitempty" enum:"A3,A4,A5,Letter,Legal,Tabloid" default:"A4"`
	Theme           string       `json:"theme,omitempty" enum:"default,technical,stationery,custom" default:"default" doc:"Print stylesheet. custom uses customCss only."`
	CustomCSS       string       `json:"customCss,omitempty" maxLength:"1048576" doc:"CSS for theme custom (added after the theme otherwise)."`
	OutputProfile   string       `json:"outputProfile,omitempty" enum:"PDF/A-3b,PDF/UA-1" doc:"PDF/UA-1: tagged PDF with the heading structure and an outline, identified in XMP and checked against PDF/UA-1 (images without alt text are named in X-Service-Warning). PDF/A-3b: archival PDF, checked by our validator."`
	ColumnWidths    []string     `json:"columnWidths,omitempty" maxItems:"50" doc:"Widths of table columns in order, as CSS lengths (\"30%\", \"45mm\", \"auto\"); applied to every table." example:"[\"15%\",\"55%\",\"30%\"]"`
	AllowUnsafeHTML bool         `json:"allowUnsafeHtml,omitempty" doc:"Keep inline HTML as written. Otherwise it is sanitised: script, iframe, event handlers and the like are removed."`
	Stationery      *Stationery  `json:"stationery,omitempty" doc:"Letterhead PDFs laid under the content."`
	ContentArea     *ContentArea `json:"contentArea,omitempty" doc:"Where the text flows (mm from the top-left corner); default margins otherwise."`

	// Fonts are the calling key's uploaded fonts.
	Fonts []FontFace `json:"-"`
	// Warnings is set by the conversion, as HTMLRequest's.
	Warnings []string `json:"-"`
}

// frontMatter is what a document's YAML header may say.
type frontMatter struct {
	Title  string `yaml:"title"`
	Author string `yaml:"author"`
	Date   string `yaml:"date"`
}

// Highlighter colours code blocks: one HTML fragment per block, "" for a language it does
// not know (engine/pygments).
type Highlighter interface {
	Highlight(ctx context.Context, blocks []pygments.Block) ([]string, error)
}

// codeCSS is the highlighting palette, over Pygments' short token classes: dark, saturated
// colours that stay readable in print and tell kinds apart by weight and slant in black and
// white.
const codeCSS = `pre.highlight{color:#1f2328;background:#f6f8fa}
.highlight .c,.highlight .ch,.highlight .cm,.highlight .c1,.highlight .cs{font-style:italic;color:#57606a}
.highlight .cp,.highlight .cpf{font-weight:bold;color:#57606a}
.highlight .k,.highlight .kc,.highlight .kd,.highlight .kn,.highlight .kp,.highlight .kr,.highlight .o,.highlight .ow{color:#a0111f}
.highlight .k,.highlight .kc,.highlight .kd,.highlight .kn,.highlight .kp,.highlight .kr{font-weight:bold}
.highlight .kt{color:#6f42c1}
.highlight .nf,.highlight .fm{color:#6639ba}
.highlight .nc{font-weight:bold;color:#6639ba}
.highlight .nb,.highlight .bp,.highlight .na,.highlight .m,.highlight .mb,.highlight .mf,.highlight .mh,.highlight .mi,.highlight .il,.highlight .mo{color:#0550ae}
.highlight .nt,.highlight .sr{color:#116329}
.highlight .vm{color:#953800}
.highlight .s,.highlight .sa,.highlight .sb,.highlight .sc,.highlight .dl,.highlight .sd,.highlight .s2,.highlight .se,.highlight .sh,.highlight .si,.highlight .sx,.highlight .s1,.highlight .ss{color:#0a3069}
.highlight .gd{color:#82071e;background:#ffebe9}
.highlight .gi{color:#116329;background:#dafbe1}
.highlight .gh,.highlight .gs{font-weight:bold}
.highlight .ge{font-style:italic}
.highlight .err{color:#82071e}
`

// highlighted is the attribute of a fenced code block that holds its coloured HTML.
var highlighted = []byte("papierkram-highlighted")

var md = goldmark.New(
	goldmark.WithExtensions(extension.GFM, extension.Footnote, extension.DefinitionList, &frontmatter.Extender{}),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	goldmark.WithRendererOptions(ghtml.WithUnsafe(), // sanitised afterwards unless allowUnsafeHtml
		renderer.WithNodeRenderers(util.Prioritized(codeRenderer{}, 100))),
)

// codeRenderer writes fenced code blocks: coloured where highlight gave them their HTML,
// escaped otherwise, in a pre element the palette styles.
type codeRenderer struct{}

func (codeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		w.WriteString(`<pre class="highlight"><code>`)
		if h, ok := n.Attribute(highlighted); ok {
			w.WriteString(h.(string))
		} else {
			w.WriteString(html.EscapeString(codeOf(n.(*ast.FencedCodeBlock), src)))
		}
		w.WriteString("</code></pre>\n")
		return ast.WalkSkipChildren, nil
	})
}

func codeOf(cb *ast.FencedCodeBlock, src []byte) string {
	var code strings.Builder
	for i := 0; i < cb.Lines().Len(); i++ {
		seg := cb.Lines().At(i)
		code.Write(seg.Value(src))
	}
	return code.String()
}

// fenceLanguage is what a fence may name for highlighting: a language, an alias or a file
// extension ("c++", "objective-c", "yml").
var fenceLanguage = lazyre.New(`^[A-Za-z0-9][A-Za-z0-9_+#.-]{0,39}$`)

// highlightBudget bounds the colouring of one document: Pygments lexes a megabyte (the most
// it is given) in a second or two, and a block that makes a lexer backtrack for longer is
// printed plain rather than holding the request until the engine's job limit.
var highlightBudget = 10 * time.Second

// highlight colours doc's fenced code blocks that name a language, in one call of h, and
// keeps each block's HTML on its node. Without h, or when h fails, the code stays plain: a
// document is not refused for its colours, and the warning says why.
func highlight(ctx context.Context, h Highlighter, doc ast.Node, src []byte) (warning string, err error) {
	var nodes []ast.Node
	var blocks []pygments.Block
	ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if cb, ok := n.(*ast.FencedCodeBlock); ok && entering {
			if lang := string(cb.Language(src)); fenceLanguage.MatchString(lang) {
				nodes = append(nodes, n)
				blocks = append(blocks, pygments.Block{Language: strings.ToLower(lang), Code: codeOf(cb, src)})
			}
		}
		return ast.WalkContinue, nil
	})
	if len(blocks) == 0 || h == nil {
		return "", nil
	}
	hctx, cancel := context.WithTimeout(ctx, highlightBudget)
	defer cancel()
	out, err := h.Highlight(hctx, blocks)
	if err != nil {
		if ctx.Err() != nil {
			return "", err // the request ended: nothing to print
		}
		why := "the highlighter failed"
		if fe := fault.As(err); fe != nil {
			why = fe.Message
		}
		return "code blocks are printed without colours: " + why, nil
	}
	for i, n := range nodes {
		if i < len(out) && out[i] != "" {
			n.SetAttribute(highlighted, out[i])
		}
	}
	return "", nil
}

// sanitizer keeps what Markdown produces (tables, footnotes, task lists, highlighted code)
// and drops scripts, frames, forms and event handlers.
var sanitizer = sync.OnceValue(func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowAttrs("class").Globally()
	p.AllowAttrs("id").Globally()
	p.AllowAttrs("type", "checked", "disabled").OnElements("input")
	p.AllowElements("input")
	p.AllowAttrs("style").OnElements("span", "div", "p", "td", "th")
	p.AllowDataURIImages()
	return p
}) // built on first use: its expressions cost every process start a millisecond

// RenderMarkdown turns r's Markdown into a complete HTML document with its theme, its code
// coloured by h (plain without one), and returns the front matter it found.
func RenderMarkdown(ctx context.Context, h Highlighter, r *MarkdownRequest) (string, frontMatter, error) {
	var fm frontMatter
	theme, ok := themes[r.Theme]
	if r.Theme == "" {
		theme, ok = themes["default"], true
	}
	if !ok {
		return "", fm, fault.New(fault.InvalidInput, "unknown theme %q: use default, technical, stationery or custom", r.Theme)
	}
	pctx := parser.NewContext()
	src := []byte(r.Markdown)
	doc := md.Parser().Parse(text.NewReader(src), parser.WithContext(pctx))
	warning, err := highlight(ctx, h, doc, src)
	if err != nil {
		return "", fm, err
	}
	if warning != "" {
		r.Warnings = append(r.Warnings, warning)
	}
	var body bytes.Buffer
	if err := md.Renderer().Render(&body, src, doc); err != nil {
		return "", fm, fault.Wrap(fault.InvalidInput, err, "the Markdown cannot be rendered: %v", err)
	}
	if d := frontmatter.Get(pctx); d != nil {
		if err := d.Decode(&fm); err != nil {
			return "", fm, fault.Wrap(fault.InvalidInput, err, "the front matter is not valid YAML: %v", err)
		}
	}
	content := body.String()
	if !r.AllowUnsafeHTML {
		content = sanitizer().Sanitize(content)
	}
	var css strings.Builder
	css.WriteString(theme)
	css.WriteString(codeCSS)
	for i, w := range r.ColumnWidths {
		if strings.ContainsAny(w, ";{}<>") || len(w) > 40 {
			return "", fm, fault.New(fault.InvalidInput, "columnWidths[%d] %q is not a CSS width", i, w)
		}
		fmt.Fprintf(&css, "table th:nth-child(%d),table td:nth-child(%d){width:%s}\n", i+1, i+1, w)
	}
	if r.CustomCSS != "" {
		css.WriteString(strings.ReplaceAll(r.CustomCSS, "</", `<\/`))
	}
	title := ""
	if fm.Title != "" { // no front matter title, no title (not a made-up one)
		title = `<title>` + html.EscapeString(fm.Title) + `</title>`
	}
	page := `<!doctype html><html lang="de"><head><meta charset="utf-8">` + title + `<style>` +
		css.String() + `</style></head><body>` + content + `</body></html>`
	return page, fm, nil
}

// Markdown converts r to PDF: Markdown to themed HTML, printed by Chromium, with the front
// matter's title, author and date in the metadata.
func Markdown(ctx context.Context, p Printer, a pdfa.Converter, hl Highlighter, policy netguard.Policy, r *MarkdownRequest) ([]byte, error) {
	doc, fm, err := RenderMarkdown(ctx, hl, r)
	if err != nil {
		return nil, err
	}
	h := &HTMLRequest{HTML: doc, Format: r.Format, Fonts: r.Fonts, Margins: &Margins{Top: "20mm", Bottom: "20mm", Left: "20mm", Right: "20mm"},
		Footer: &Band{HTML: `<div style="text-align:center;color:#666"><span class="pageNumber"></span> / <span class="totalPages"></span></div>`, Height: "15mm"}}
	if r.Theme == "stationery" {
		h.Margins = &Margins{Top: "45mm", Bottom: "30mm", Left: "25mm", Right: "20mm"}
		h.Footer = nil
	}
	if r.ContentArea != nil {
		size, ok := paper[strings.ToUpper(r.Format)]
		if r.Format == "" {
			size, ok = paper["A4"], true
		}
		if !ok {
			return nil, fault.New(fault.InvalidInput, "unknown format %q: use A3, A4, A5, Letter, Legal or Tabloid", r.Format)
		}
		if h.Margins, err = r.ContentArea.margins(size[0], size[1]); err != nil {
			return nil, err
		}
		h.Footer = nil // the text area is the caller's; the letterhead has its own footer
	}
	h.Stationery = r.Stationery
	if r.OutputProfile == "PDF/UA-1" {
		h.OutputProfile = "PDF/UA-1"
	}
	// The front matter's metadata goes in with the title and stationery: one edit of the PDF.
	var meta *pdf.Changes
	if fm.Title != "" || fm.Author != "" || fm.Date != "" {
		meta = &pdf.Changes{}
		if fm.Title != "" {
			meta.Title = &fm.Title
		}
		if fm.Author != "" {
			meta.Author = &fm.Author
		}
		if fm.Date != "" {
			t, err := parseDate(fm.Date)
			if err != nil {
				return nil, err
			}
			meta.CreationDate = &t
		}
	}
	out, err := printHTML(ctx, p, policy, h, meta)
	if err != nil {
		return nil, err
	}
	r.Warnings = append(r.Warnings, h.Warnings...)
	if r.OutputProfile == "PDF/A-3b" {
		if a == nil {
			return nil, fault.New(fault.EngineUnavailable, "PDF/A conversion is not configured on this server")
		}
		return pdfa.Convert(ctx, a, out, pdfa.Options{Title: fm.Title, Author: fm.Author})
	}
	return out, nil
}

func parseDate(s string) (time.Time, error) {
	for _, layout := range []string{"2006-01-02", time.RFC3339, "2006-01-02 15:04", "02.01.2006"} {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fault.New(fault.InvalidInput, "front matter date %q: write YYYY-MM-DD", s)
}
