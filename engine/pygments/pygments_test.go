package pygments

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
)

func TestHighlight(t *testing.T) {
	p := New(engine.Config{Concurrency: 1, JobTimeout: time.Minute, TempRoot: t.TempDir()})
	defer p.Stop(context.Background())
	got, err := p.Highlight(t.Context(), []Block{
		{Language: "go", Code: "func main() { if a < b { fmt.Println(\"<hallo>\") } }\n"},
		{Language: "klingon", Code: "Qapla'"},
		{Language: "yml", Code: "key: value\n"}, // a file extension, not a lexer name
		{Language: "py", Code: "def f():\n    return 1\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d blocks back for 4", len(got))
	}
	for _, want := range []string{`<span class="kd">func</span>`, `<span class="k">if</span>`, "&lt;", `<span class="s">&quot;&lt;hallo&gt;&quot;</span>`} {
		if !strings.Contains(got[0], want) {
			t.Errorf("Go block lacks %q: %s", want, got[0])
		}
	}
	if strings.Contains(got[0], "<hallo>") {
		t.Errorf("the code's markup is not escaped: %s", got[0])
	}
	if got[1] != "" {
		t.Errorf("an unknown language was coloured: %q", got[1])
	}
	if !strings.Contains(got[2], `<span class="nt">key</span>`) {
		t.Errorf("yml (an extension) was not read as YAML: %s", got[2])
	}
	if !strings.Contains(got[3], `<span class="k">def</span>`) || !strings.Contains(got[3], `<span class="nf">f</span>`) {
		t.Errorf("py (an alias) was not read as Python: %s", got[3])
	}
}

func TestHighlightBounds(t *testing.T) {
	p := New(engine.Config{Concurrency: 1, JobTimeout: time.Minute, TempRoot: t.TempDir()})
	defer p.Stop(context.Background())
	if got, err := p.Highlight(t.Context(), nil); err != nil || len(got) != 0 {
		t.Fatalf("no blocks: %q, %v", got, err)
	}
	big := []Block{{Language: "go", Code: strings.Repeat("x := 1\n", MaxCode/7+1)}}
	if _, err := p.Highlight(t.Context(), big); fault.CodeOf(err) != fault.PayloadTooLarge {
		t.Fatalf("more code than MaxCode: %v", err)
	}
	// A job that runs out of time is the engine's timeout, and its process is gone.
	short := New(engine.Config{Concurrency: 1, JobTimeout: time.Millisecond, TempRoot: t.TempDir()})
	defer short.Stop(context.Background())
	if _, err := short.Highlight(t.Context(), []Block{{Language: "go", Code: "x"}}); fault.CodeOf(err) != fault.Timeout {
		t.Fatalf("a job over its time limit: %v", err)
	}
}
