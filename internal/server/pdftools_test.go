package server

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

// upload posts files (part name -> contents, in order) to path with a query.
func (e *testEnv) upload(path string, files ...[2]any) *http.Response {
	e.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, f := range files {
		w, _ := mw.CreateFormFile(f[0].(string), "in.pdf")
		w.Write(f[1].([]byte))
	}
	mw.Close()
	req, _ := http.NewRequest("POST", e.http.URL+path, &buf)
	req.Header.Set("X-API-Key", testKey)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

func pdfBody(t *testing.T, res *http.Response) []byte {
	t.Helper()
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("status %d, type %q: %.300s", res.StatusCode, res.Header.Get("Content-Type"), b)
	}
	testtool.QPDFCheck(t, b)
	return b
}

func TestSplitEndpoint(t *testing.T) {
	e := newTestEnv(t)
	res := e.upload("/api/pdf-tools/split?pages=1-2,4", [2]any{"file", testpdf.New(5)})
	var out SplitResult
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("%d %s", res.StatusCode, b)
	}
	json.NewDecoder(res.Body).Decode(&out)
	res.Body.Close()
	if out.Count != 2 || out.Parts[0].Pages != "1-2" || out.Parts[1].From != 4 {
		t.Fatalf("split %+v", out)
	}
	want := [][]string{{"Page 1", "Page 2"}, {"Page 4"}}
	for i, p := range out.Parts {
		b, err := base64.StdEncoding.DecodeString(p.File)
		if err != nil {
			t.Fatal(err)
		}
		testtool.QPDFCheck(t, b)
		if got := testtool.PageTexts(t, b); !reflect.DeepEqual(got, want[i]) {
			t.Fatalf("part %d pages %q", i, got)
		}
	}
	// Default: every page.
	res = e.upload("/api/pdf-tools/split", [2]any{"file", testpdf.New(3)})
	json.NewDecoder(res.Body).Decode(&out)
	res.Body.Close()
	if out.Count != 3 {
		t.Fatalf("default split: %d parts", out.Count)
	}
}

func TestRotateEndpoint(t *testing.T) {
	e := newTestEnv(t)
	b := pdfBody(t, e.upload("/api/pdf-tools/rotate?degrees=270&pages=2", [2]any{"file", testpdf.New(3)}))
	info := testtool.Info(t, b, "-f", "1", "-l", "3")
	if info["Page    1 rot"] != "0" || info["Page    2 rot"] != "270" || info["Page    3 rot"] != "0" {
		t.Fatalf("rotation %v", info)
	}
	wantProblem(t, e.upload("/api/pdf-tools/rotate?degrees=45", [2]any{"file", testpdf.New(1)}), 400, "invalid_input")
	wantProblem(t, e.upload("/api/pdf-tools/rotate", [2]any{"file", testpdf.New(1)}), 400, "invalid_input")
}

func TestMetadataEndpoints(t *testing.T) {
	e := newTestEnv(t)
	src := testpdf.Make(testpdf.Options{Pages: 2, Title: "Before"})
	b := pdfBody(t, e.upload("/api/pdf-tools/metadata/set?title=Rechnung%20%C3%84&author=Anna&keywords=a,b&producer=Papierkram", [2]any{"file", src}))
	info := testtool.Info(t, b)
	if info["Title"] != "Rechnung Ä" || info["Author"] != "Anna" || info["Keywords"] != "a,b" || info["Producer"] != "Papierkram" {
		t.Fatalf("pdfinfo %v", info)
	}
	meta := testtool.Run(t, "pdfinfo", "-meta", testtool.File(t, "m.pdf", b))
	for _, want := range []string{"Rechnung Ä", "Anna", "Papierkram", "2026-11-22T12:00:00Z"} {
		if !strings.Contains(meta, want) {
			t.Fatalf("XMP lacks %q:\n%s", want, meta)
		}
	}
	res := e.upload("/api/pdf-tools/metadata", [2]any{"file", b})
	m := decode(t, res)
	if m["title"] != "Rechnung Ä" || m["author"] != "Anna" || m["pages"] != float64(2) || m["encrypted"] != false || m["pdfVersion"] != info["PDF version"] || m["modDate"] != "2026-11-22T12:00:00Z" {
		t.Fatalf("metadata %v", m)
	}
}

func TestMergeAndExtractEndpoints(t *testing.T) {
	e := newTestEnv(t)
	b := pdfBody(t, e.upload("/api/pdf-tools/merge", [2]any{"files", testpdf.New(1)}, [2]any{"files", testpdf.New(2)}))
	if got := testtool.PageTexts(t, b); !reflect.DeepEqual(got, []string{"Page 1", "Page 1", "Page 2"}) {
		t.Fatalf("merged %q", got)
	}
	wantProblem(t, e.upload("/api/pdf-tools/merge", [2]any{"files", testpdf.New(1)}), 400, "invalid_input")
	b = pdfBody(t, e.upload("/api/pdf-tools/extract-pages?pages=3,1", [2]any{"file", testpdf.New(3)}))
	if got := testtool.PageTexts(t, b); !reflect.DeepEqual(got, []string{"Page 3", "Page 1"}) {
		t.Fatalf("extracted %q", got)
	}
}

func TestPDFToolsBadInput(t *testing.T) {
	e := newTestEnv(t)
	full := testpdf.New(5)
	plain := testtool.File(t, "p.pdf", full)
	encPath := filepath.Join(t.TempDir(), "e.pdf")
	testtool.Run(t, "qpdf", "--encrypt", "u", "o", "256", "--", plain, encPath)
	enc, _ := os.ReadFile(encPath)
	for _, c := range []struct {
		path   string
		data   []byte
		status int
		code   string
	}{
		{"/api/pdf-tools/split", []byte("not a pdf"), 400, "invalid_pdf"},
		{"/api/pdf-tools/split", full[:len(full)/3], 400, "invalid_pdf"},
		{"/api/pdf-tools/split", enc, 400, "encrypted_pdf"},
		{"/api/pdf-tools/metadata", enc, 400, "encrypted_pdf"},
		{"/api/pdf-tools/split?pages=7", full, 400, "invalid_page_spec"},
		{"/api/pdf-tools/split?pages=3-1", full, 400, "invalid_page_spec"},
		{"/api/pdf-tools/split?pages=0", full, 400, "invalid_page_spec"},
		{"/api/pdf-tools/rotate?degrees=90&pages=x", full, 400, "invalid_page_spec"},
		{"/api/pdf-tools/extract-pages?pages=9", full, 400, "invalid_page_spec"},
	} {
		t.Run(c.path+"/"+c.code, func(t *testing.T) {
			wantProblem(t, e.upload(c.path, [2]any{"file", c.data}), c.status, c.code)
		})
	}
	// A PDF over the page cap.
	wantProblem(t, e.upload("/api/pdf-tools/split", [2]any{"file", testpdf.New(5001)}), 400, "invalid_pdf")
}
