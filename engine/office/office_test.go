package office

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/papierkram/papierkram/engine"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/internal/testoffice"
	"github.com/papierkram/papierkram/internal/testtool"
)

func pool(t *testing.T, cfg engine.Config) *Office {
	t.Helper()
	o, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		o.Close(context.Background())
		o.mu.Lock()
		defer o.mu.Unlock()
		for _, p := range o.procs {
			if pid := int(p.pid.Load()); pid > 0 && syscall.Kill(pid, 0) == nil {
				t.Errorf("soffice %d still running after Close", pid)
			}
		}
	})
	return o
}

func manyPages(n int) []byte {
	var body strings.Builder
	for i := range n {
		body.WriteString(testoffice.Paragraphs(fmt.Sprintf("Seite %d", i+1), strings.Repeat("Lorem ipsum dolor sit amet. ", 40)))
		body.WriteString(testoffice.PageBreak)
	}
	return testoffice.Docx(body.String(), nil, nil)
}

func TestConvertDocx(t *testing.T) {
	o := pool(t, engine.Config{Concurrency: 1})
	pdf, err := o.ToPDF(context.Background(), Job{Document: testoffice.Simple("Hallo Welt", "Zweiter Absatz mit Umlauten: äöü ß"), Ext: "docx"})
	if err != nil {
		t.Fatal(err)
	}
	testtool.QPDFCheck(t, pdf)
	text := testtool.Text(t, pdf)
	for _, w := range []string{"Hallo Welt", "Umlauten: äöü ß"} {
		if !strings.Contains(text, w) {
			t.Errorf("PDF text lacks %q: %q", w, text)
		}
	}
	if info := testtool.Info(t, pdf); info["Pages"] != "1" {
		t.Errorf("pages %q", info["Pages"])
	}
}

func TestPDFA(t *testing.T) {
	o := pool(t, engine.Config{Concurrency: 1})
	pdf, err := o.ToPDF(context.Background(), Job{Document: testoffice.Simple("Archiv"), Ext: "docx", PDFA: true})
	if err != nil {
		t.Fatal(err)
	}
	f := testtool.File(t, "a.pdf", pdf)
	xmp := testtool.Run(t, "pdfinfo", "-meta", f)
	if !strings.Contains(xmp, "<pdfaid:part>3</pdfaid:part>") || !strings.Contains(xmp, "<pdfaid:conformance>B</pdfaid:conformance>") {
		t.Errorf("no PDF/A-3b identification in XMP:\n%.2000s", xmp)
	}
	// pdffonts: the "emb" column is yes for every font.
	for _, line := range strings.Split(testtool.Run(t, "pdffonts", f), "\n")[2:] {
		if fs := strings.Fields(line); len(fs) >= 5 && fs[len(fs)-5] != "yes" {
			t.Errorf("font not embedded: %s", line)
		}
	}
}

func TestBadDocuments(t *testing.T) {
	o := pool(t, engine.Config{Concurrency: 1})
	for name, doc := range map[string][]byte{
		"corrupt zip": append([]byte("PK\x03\x04"), make([]byte, 200)...),
		"truncated":   testoffice.Simple("x")[:300],
	} {
		_, err := o.ToPDF(context.Background(), Job{Document: doc, Ext: "docx"})
		if c := fault.CodeOf(err); c != fault.Unprocessable && c != fault.InvalidInput {
			t.Errorf("%s: %v (code %s), want a 4xx", name, err, c)
		}
	}
	// The pool is still healthy.
	if _, err := o.ToPDF(context.Background(), Job{Document: testoffice.Simple("danach"), Ext: "docx"}); err != nil {
		t.Fatal(err)
	}
}

func TestKilledOfficeIsReplaced(t *testing.T) {
	o := pool(t, engine.Config{Concurrency: 1})
	if _, err := o.ToPDF(context.Background(), Job{Document: testoffice.Simple("warm"), Ext: "docx"}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := o.ToPDF(context.Background(), Job{Document: manyPages(1500), Ext: "docx"})
		done <- err
	}()
	// Kill only once the big job runs in soffice: killed before, the job would simply run on
	// the replacement.
	for deadline := time.Now().Add(10 * time.Second); o.Supervisor().Stats().Running == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	// Kill this pool's soffice only (other packages' tests may run office pools too).
	killed := 0
	o.mu.Lock()
	for _, p := range o.procs {
		if pid := int(p.pid.Load()); pid > 0 && syscall.Kill(pid, 0) == nil {
			syscall.Kill(-pid, syscall.SIGKILL)
			killed++
		}
	}
	o.mu.Unlock()
	if killed == 0 {
		t.Fatal("no soffice found")
	}
	err := <-done
	if err == nil {
		t.Fatal("the job whose soffice was killed succeeded")
	}
	if c := fault.CodeOf(err); c != fault.EngineUnavailable && c != fault.Internal {
		t.Errorf("code %s (%v)", c, err)
	}
	pdf, err := o.ToPDF(context.Background(), Job{Document: testoffice.Simple("wieder da"), Ext: "docx"})
	if err != nil {
		t.Fatalf("next job: %v", err)
	}
	if !strings.Contains(testtool.Text(t, pdf), "wieder da") {
		t.Error("next job's PDF is wrong")
	}
	if st := o.Supervisor().Stats(); st.Restarts < 1 {
		t.Errorf("restarts %d", st.Restarts)
	}
}

func TestHungConversionTimesOut(t *testing.T) {
	// 8,000 pages take LibreOffice minutes, so 8 s ends the job surely; the small document
	// after it (~0.1 s idle) still fits on a busy machine, where 800 ms did not.
	o := pool(t, engine.Config{Concurrency: 1, JobTimeout: 8 * time.Second})
	_, err := o.ToPDF(context.Background(), Job{Document: manyPages(8000), Ext: "docx"})
	if fault.CodeOf(err) != fault.Timeout {
		t.Fatalf("err %v, want timeout", err)
	}
	if _, err := o.ToPDF(context.Background(), Job{Document: testoffice.Simple("ok"), Ext: "docx"}); err != nil {
		t.Fatalf("after a timeout: %v", err)
	}
}

func TestParallel(t *testing.T) {
	o := pool(t, engine.Config{Concurrency: 2})
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() {
			pdf, err := o.ToPDF(context.Background(), Job{Document: testoffice.Simple(fmt.Sprintf("Dokument %d", i)), Ext: "docx"})
			if err == nil && !strings.Contains(testtool.Text(t, pdf), fmt.Sprintf("Dokument %d", i)) {
				err = fmt.Errorf("wrong text")
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("job %d: %v", i, err)
		}
	}
}
