package convert

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/engine/pygments"
	"github.com/papierkram/papierkram/fault"
)

const sample = "---\ntitle: Projektbericht\nauthor: Eva Beispiel\ndate: 2026-01-15\n---\n" +
	"# Einleitung\n\nText mit Fußnote[^1] und ~~alt~~.\n\n" +
	"| Pos | Artikel | Preis |\n|---|---|---:|\n| 1 | Papier | 4,99 € |\n\n" +
	"```go\nfunc main() { fmt.Println(\"hallo\") }\n```\n\n" +
	"- [x] erledigt\n- [ ] offen\n\nBegriff\n: Erklärung\n\n" +
	"<script>alert('x')</script><b onclick=\"steal()\">fett</b> <iframe src=\"https://example.org\"></iframe>\n\n[^1]: Die Fußnote.\n"

func TestRenderMarkdown(t *testing.T) {
	hl := pygments.New(engine.Config{Concurrency: 1, JobTimeout: time.Minute, TempRoot: t.TempDir()})
	defer hl.Stop(context.Background())
	r := &MarkdownRequest{Markdown: sample, ColumnWidths: []string{"10%", "60%", "30%"}}
	doc, fm, err := RenderMarkdown(t.Context(), hl, r)
	if err != nil {
		t.Fatal(err)
	}
	if fm.Title != "Projektbericht" || fm.Author != "Eva Beispiel" || fm.Date != "2026-01-15" {
		t.Fatalf("front matter %+v", fm)
	}
	for _, want := range []string{"<title>Projektbericht</title>", `<h1 id="einleitung">`, "<table>", "<del>alt</del>",
		`<pre class="highlight"><code><span class="kd">func</span>`, `<span class="s">&#34;hallo&#34;</span>`,
		`type="checkbox"`, "<dl>", "<dt>Begriff</dt>", "footnote",
		"<b>fett</b>", "table th:nth-child(2),table td:nth-child(2){width:60%}", ".highlight .kd,"} {
		if !strings.Contains(doc, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	for _, bad := range []string{"<script", "alert(", "onclick", "<iframe"} {
		if strings.Contains(doc, bad) {
			t.Errorf("sanitised HTML keeps %q", bad)
		}
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings %q", r.Warnings)
	}
	unsafe, _, _ := RenderMarkdown(t.Context(), nil, &MarkdownRequest{Markdown: sample, AllowUnsafeHTML: true})
	if !strings.Contains(unsafe, "<script>alert('x')</script>") {
		t.Error("allowUnsafeHtml did not keep the script")
	}
}

// failing is a highlighter that cannot run.
type failing struct{ err error }

func (f failing) Highlight(context.Context, []pygments.Block) ([]string, error) { return nil, f.err }

// Code that cannot be coloured is printed plain, escaped, and the caller is told why; a
// fence that names no language, or something that is not one, asks for no colours.
func TestRenderMarkdownPlainCode(t *testing.T) {
	src := "```go\nif a < b {}\n```\n\n```\n<b>x</b>\n```\n\n```go;rm -rf\ny\n```\n"
	r := &MarkdownRequest{Markdown: src}
	doc, _, err := RenderMarkdown(t.Context(), failing{fault.New(fault.EngineUnavailable, "Pygments is not installed")}, r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<pre class="highlight"><code>if a &lt; b {}`, `<pre class="highlight"><code>&lt;b&gt;x&lt;/b&gt;`, `<code>y`} {
		if !strings.Contains(doc, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if len(r.Warnings) != 1 || r.Warnings[0] != "code blocks are printed without colours: Pygments is not installed" {
		t.Errorf("warnings %q", r.Warnings)
	}
	// Only the fence that names a language went to the highlighter.
	var asked []pygments.Block
	rec := recording(func(b []pygments.Block) { asked = b })
	if _, _, err := RenderMarkdown(t.Context(), rec, &MarkdownRequest{Markdown: src}); err != nil {
		t.Fatal(err)
	}
	if len(asked) != 1 || asked[0].Language != "go" || asked[0].Code != "if a < b {}\n" {
		t.Errorf("asked to highlight %+v", asked)
	}
	// A request that ended is not printed plain: it ends.
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := RenderMarkdown(ctx, failing{context.Canceled}, &MarkdownRequest{Markdown: src}); !errors.Is(err, context.Canceled) {
		t.Errorf("ended request: %v", err)
	}
}

// blocking is a highlighter that never answers: a lexer stuck on a block.
type blocking struct{}

func (blocking) Highlight(ctx context.Context, _ []pygments.Block) ([]string, error) {
	<-ctx.Done()
	return nil, fault.Wrap(fault.Timeout, ctx.Err(), "the job ran out of time")
}

// A highlighter that takes longer than its budget leaves the code plain and the request
// going.
func TestRenderMarkdownHighlightBudget(t *testing.T) {
	defer func(d time.Duration) { highlightBudget = d }(highlightBudget)
	highlightBudget = 50 * time.Millisecond
	r := &MarkdownRequest{Markdown: "```go\nx := 1\n```\n"}
	doc, _, err := RenderMarkdown(t.Context(), blocking{}, r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(doc, "<code>x := 1") || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "without colours: the job ran out of time") {
		t.Fatalf("warnings %q", r.Warnings)
	}
}

type recording func([]pygments.Block)

func (f recording) Highlight(_ context.Context, b []pygments.Block) ([]string, error) {
	f(b)
	return make([]string, len(b)), nil
}

func TestRenderMarkdownErrors(t *testing.T) {
	for name, c := range map[string]struct {
		r    MarkdownRequest
		code fault.Code
	}{
		"theme":        {MarkdownRequest{Markdown: "x", Theme: "neon"}, fault.InvalidInput},
		"column width": {MarkdownRequest{Markdown: "x", ColumnWidths: []string{"1px;}body{display:none"}}, fault.InvalidInput},
		"front matter": {MarkdownRequest{Markdown: "---\ntitle: [unclosed\n---\nx"}, fault.InvalidInput},
	} {
		if _, _, err := RenderMarkdown(t.Context(), nil, &c.r); fault.CodeOf(err) != c.code {
			t.Errorf("%s: %v, want %s", name, err, c.code)
		}
	}
	// The custom stylesheet cannot close the style element.
	doc, _, _ := RenderMarkdown(t.Context(), nil, &MarkdownRequest{Markdown: "x", Theme: "custom", CustomCSS: "</style><script>alert(1)</script>"})
	if strings.Contains(doc, "</style><script>") {
		t.Fatal("customCss escaped its style element")
	}
}

func TestLength(t *testing.T) {
	for in, want := range map[string]float64{"25.4mm": 1, "2.54cm": 1, "1in": 1, "72pt": 1, "96px": 1, "96": 1, " 1IN ": 1} {
		if got, err := Length(in); err != nil || got < want-1e-9 || got > want+1e-9 {
			t.Errorf("Length(%q) = %v, %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "ten", "-5mm", "5 furlongs", "1e9mm"} {
		if _, err := Length(bad); fault.CodeOf(err) != fault.InvalidInput {
			t.Errorf("Length(%q): %v", bad, err)
		}
	}
}

func FuzzRenderMarkdown(f *testing.F) {
	f.Add(sample, false)
	f.Add("<scr<script>ipt>alert(1)</script>", false)
	f.Add("---\n---\n", true)
	f.Fuzz(func(t *testing.T, src string, unsafe bool) {
		doc, _, err := RenderMarkdown(context.Background(), nil, &MarkdownRequest{Markdown: src, AllowUnsafeHTML: unsafe})
		if err != nil {
			if fault.CodeOf(err) == fault.Internal {
				t.Fatalf("uncoded error %v", err)
			}
			return
		}
		if !unsafe && (strings.Contains(strings.ToLower(doc), "<script") || strings.Contains(strings.ToLower(doc), "<iframe")) {
			t.Fatalf("sanitised output keeps a script or frame: %q", src)
		}
	})
}
