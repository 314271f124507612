package convert

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"strings"
	"sync"
	"time"

	"github.com/alecthomas/chroma/v2"
	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer"
	ghtml "github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"
	"go.abhg.dev/goldmark/frontmatter"

	"github.com/papierkram/papierkram/fault"
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

// codeStyle is the highlighting palette: dark, saturated colours that stay readable in
// print and tell kinds apart by weight and slant in black and white. It is our own and
// built on first use, so that chroma's style registry (all its styles parsed from XML at
// start, 5–15 ms of every process, also of CLI commands that print nothing) is not linked.
var codeStyle = sync.OnceValue(func() *chroma.Style {
	return chroma.MustNewStyle("papierkram-print", chroma.StyleEntries{
		chroma.Background:         "#1f2328 bg:#f6f8fa",
		chroma.Comment:            "italic #57606a",
		chroma.CommentPreproc:     "noitalic bold #57606a",
		chroma.Keyword:            "bold #a0111f",
		chroma.KeywordType:        "nobold #6f42c1",
		chroma.NameFunction:       "#6639ba",
		chroma.NameClass:          "bold #6639ba",
		chroma.NameBuiltin:        "#0550ae",
		chroma.NameTag:            "#116329",
		chroma.NameAttribute:      "#0550ae",
		chroma.LiteralString:      "#0a3069",
		chroma.LiteralNumber:      "#0550ae",
		chroma.Operator:           "#a0111f",
		chroma.GenericDeleted:     "#82071e bg:#ffebe9",
		chroma.GenericInserted:    "#116329 bg:#dafbe1",
		chroma.GenericHeading:     "bold",
		chroma.GenericEmph:        "italic",
		chroma.GenericStrong:      "bold",
		chroma.Error:              "#82071e",
		chroma.LineNumbers:        "#6e7781",
		chroma.LineHighlight:      "bg:#eaeef2",
		chroma.NameVariableMagic:  "#953800",
		chroma.LiteralStringRegex: "#116329",
	})
})

// codeCSS is the style sheet of codeStyle's classes, written once.
var codeCSS = sync.OnceValue(func() string {
	var b strings.Builder
	chromahtml.New(chromahtml.WithClasses(true)).WriteCSS(&b, codeStyle())
	return b.String()
})

var md = goldmark.New(
	goldmark.WithExtensions(extension.GFM, extension.Footnote, extension.DefinitionList, &frontmatter.Extender{}),
	goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	goldmark.WithRendererOptions(ghtml.WithUnsafe(), // sanitised afterwards unless allowUnsafeHtml
		renderer.WithNodeRenderers(util.Prioritized(codeRenderer{}, 100))),
)

// codeRenderer highlights fenced code blocks with chroma (more than 180 languages), as
// spans with classes so that the sanitiser keeps them.
type codeRenderer struct{}

func (codeRenderer) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindFencedCodeBlock, func(w util.BufWriter, src []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		cb := n.(*ast.FencedCodeBlock)
		var code bytes.Buffer
		for i := 0; i < cb.Lines().Len(); i++ {
			seg := cb.Lines().At(i)
			code.Write(seg.Value(src))
		}
		lexer := lexers.Fallback
		if lang := string(cb.Language(src)); lang != "" {
			if l := lexers.Get(lang); l != nil {
				lexer = l
			}
		}
		it, err := lexer.Tokenise(nil, code.String())
		if err != nil {
			fmt.Fprintf(w, "<pre><code>%s</code></pre>", html.EscapeString(code.String()))
			return ast.WalkSkipChildren, nil
		}
		f := chromahtml.New(chromahtml.WithClasses(true))
		if err := f.Format(w, codeStyle(), it); err != nil {
			return ast.WalkStop, err
		}
		return ast.WalkSkipChildren, nil
	})
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

// RenderMarkdown turns r's Markdown into a complete HTML document with its theme, and
// returns the front matter it found.
func RenderMarkdown(r *MarkdownRequest) (string, frontMatter, error) {
	var fm frontMatter
	theme, ok := themes[r.Theme]
	if r.Theme == "" {
		theme, ok = themes["default"], true
	}
	if !ok {
		return "", fm, fault.New(fault.InvalidInput, "unknown theme %q: use default, technical, stationery or custom", r.Theme)
	}
	ctx := parser.NewContext()
	var body bytes.Buffer
	if err := md.Convert([]byte(r.Markdown), &body, parser.WithContext(ctx)); err != nil {
		return "", fm, fault.Wrap(fault.InvalidInput, err, "the Markdown cannot be rendered: %v", err)
	}
	if d := frontmatter.Get(ctx); d != nil {
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
	css.WriteString(codeCSS())
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
	doc := `<!doctype html><html lang="de"><head><meta charset="utf-8">` + title + `<style>` +
		css.String() + `</style></head><body>` + content + `</body></html>`
	return doc, fm, nil
}

// Markdown converts r to PDF: Markdown to themed HTML, printed by Chromium, with the front
// matter's title, author and date in the metadata.
func Markdown(ctx context.Context, p Printer, a pdfa.Converter, policy netguard.Policy, r *MarkdownRequest) ([]byte, error) {
	doc, fm, err := RenderMarkdown(r)
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
	r.Warnings = h.Warnings
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
