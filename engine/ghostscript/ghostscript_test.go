package ghostscript

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

// Ghostscript writes its command line into the PDF ("%%Invocation: gs -q -dBATCH ..."): a
// reader of our output learned how the server runs its tools. The lines are blanked in
// place, and the file stays intact.
func TestPDFAOutputCarriesNoCommandLine(t *testing.T) {
	g := New(engine.Config{Concurrency: 1, JobTimeout: 60 * time.Second, TempRoot: t.TempDir()})
	t.Cleanup(func() { g.Supervisor().Stop(context.Background()) })
	out, err := g.ToPDFA3B(context.Background(), testpdf.New(2))
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"Invocation", "-dBATCH", "-sDEVICE", "pdfwrite", "permit-file-read"} {
		if bytes.Contains(out, []byte(leak)) {
			t.Errorf("the PDF contains %q", leak)
		}
	}
	testtool.QPDFCheck(t, out)
	if info := testtool.Info(t, out); info["Pages"] != "2" {
		t.Fatalf("pdfinfo %v", info)
	}
}

func TestScrubInvocation(t *testing.T) {
	in := "%PDF-1.7\n%\xc7\xec\x8f\xa2\n%%Invocation: gs -q -dBATCH -sOutputFile=? ?\n%%+ -dMore\r\n5 0 obj\n% %%Invocation: in a stream stays\n"
	b := []byte(in)
	scrubInvocation(b)
	want := "%PDF-1.7\n%\xc7\xec\x8f\xa2\n%" + string(bytes.Repeat([]byte(" "), len("%Invocation: gs -q -dBATCH -sOutputFile=? ?"))) + "\n%" + "         " + "\r\n5 0 obj\n% %%Invocation: in a stream stays\n"
	if string(b) != want || len(b) != len(in) {
		t.Fatalf("got %q\nwant %q", b, want)
	}
}
