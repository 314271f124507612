package server

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/fault"
)

func countGoroutines() int { runtime.GC(); return runtime.NumGoroutine() }

var testForm = form{
	{Name: "file", File: true, Required: true},
	{Name: "note"},
	{Name: "extra", File: true, Max: 3},
}

// echoUploads registers a route that reads testForm and reports what it got.
func echoUploads(e *testEnv) {
	register(e.srv, huma.Operation{Method: http.MethodPost, Path: "/api/test/upload", RequestBody: testForm.body()},
		func(ctx context.Context, _ *struct{}) (*struct{ Body map[string]any }, error) {
			u, err := testForm.read(ctx)
			if err != nil {
				return nil, err
			}
			return &struct{ Body map[string]any }{map[string]any{
				"file": string(u.File("file").Data), "filename": u.File("file").Filename,
				"note": u.Fields["note"], "extras": len(u.Files["extra"]),
			}}, nil
		}, bodyLimit(64<<10))
}

func postForm(e *testEnv, ct string, body io.Reader) *http.Response {
	req, _ := http.NewRequest("POST", e.http.URL+"/api/test/upload", body)
	req.Header.Set("X-API-Key", testKey)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	return res
}

func TestMultipartReader(t *testing.T) {
	e := newTestEnv(t)
	echoUploads(e)

	body, ct := multipartBody(t, [2]string{"@file", "%PDF-1.7 data"}, [2]string{"note", "hello"}, [2]string{"@extra", "1"}, [2]string{"@extra", "2"})
	res := postForm(e, ct, body)
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("valid upload: %d %s", res.StatusCode, b)
	}
	got := decode(t, res)
	if got["file"] != "%PDF-1.7 data" || got["filename"] != "file.pdf" || got["note"] != "hello" || got["extras"] != float64(2) {
		t.Fatalf("read %v", got)
	}

	cases := []struct {
		name, ct, code string
		body           io.Reader
		status         int
	}{
		{"json instead of multipart", "application/json", "unsupported_media_type", strings.NewReader(`{}`), 415},
		{"no content type", "", "unsupported_media_type", strings.NewReader(`x`), 415},
		{"no boundary", "multipart/form-data", "invalid_input", strings.NewReader(`x`), 400},
		{"garbage", "multipart/form-data; boundary=zz", "invalid_input", strings.NewReader("not multipart at all"), 400},
		{"truncated", "multipart/form-data; boundary=zz", "invalid_input", strings.NewReader("--zz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a\"\r\n\r\n%PDF-1"), 400},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { wantProblem(t, postForm(e, c.ct, c.body), c.status, c.code) })
	}
	check := func(name string, status int, code, detail string, parts ...[2]string) {
		t.Run(name, func(t *testing.T) {
			body, ct := multipartBody(t, parts...)
			p := wantProblem(t, postForm(e, ct, body), status, code)
			if !strings.Contains(p["detail"].(string), detail) {
				t.Fatalf("detail %q lacks %q", p["detail"], detail)
			}
		})
	}
	check("missing file", 400, "invalid_input", `"file" is required`, [2]string{"note", "x"})
	check("empty file", 400, "invalid_input", `"file" is required`, [2]string{"@file", ""})
	check("unknown part", 400, "invalid_input", `unknown multipart part "bogus"`, [2]string{"@file", "x"}, [2]string{"bogus", "x"})
	check("duplicate", 400, "invalid_input", "more than once", [2]string{"@file", "x"}, [2]string{"@file", "y"})
	check("duplicate field", 400, "invalid_input", "more than once", [2]string{"@file", "x"}, [2]string{"note", "a"}, [2]string{"note", "b"})
	check("too many", 400, "invalid_input", "at most 3", [2]string{"@file", "x"}, [2]string{"@extra", "1"}, [2]string{"@extra", "2"}, [2]string{"@extra", "3"}, [2]string{"@extra", "4"})
	check("too large", 413, "payload_too_large", "limit", [2]string{"@file", strings.Repeat("x", 70<<10)})
}

func TestBase64Body(t *testing.T) {
	for _, c := range []struct {
		in   map[string]string
		want string
		code fault.Code
	}{
		{map[string]string{"file": "JVBERi0xLjcK"}, "%PDF-1.7\n", ""},
		{map[string]string{"file": "JVBE\nRi0x LjcK"}, "%PDF-1.7\n", ""},
		{map[string]string{"file": "JVBERi0xLjc"}, "%PDF-1.7", ""},
		{map[string]string{"file": "JVBERi0xLjc=", "filename": "../../a.pdf"}, "%PDF-1.7", ""},
		{map[string]string{"file": "***"}, "", fault.InvalidInput},
		{map[string]string{}, "", fault.InvalidInput},
		{map[string]string{"pdf": "JVBERi0xLjcK"}, "", fault.InvalidInput},
	} {
		b := &Base64Body{Body: c.in}
		data, name, err := b.decode()
		if fault.CodeOf(err) != c.code || string(data) != c.want {
			t.Errorf("%v: %q %v", c.in, data, err)
		}
		if strings.Contains(name, "/") {
			t.Errorf("file name %q keeps a path", name)
		}
	}
}

// FuzzMultipart feeds arbitrary bodies and boundaries to the multipart reader: it must answer
// with a coded error or a result, never panic or hang.
func FuzzMultipart(f *testing.F) {
	f.Add("zz", "--zz\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.pdf\"\r\n\r\n%PDF-1.7\r\n--zz--\r\n")
	f.Add("zz", "--zz\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhi\r\n--zz\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nx\r\n--zz--")
	f.Add("b", "--b\r\n\r\n--b--")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, boundary, body string) {
		req := httptest.NewRequest("POST", "/x", strings.NewReader(body))
		req.Header.Set("Content-Type", "multipart/form-data; boundary="+boundary)
		w := httptest.NewRecorder()
		req.Body = http.MaxBytesReader(w, req.Body, 4096)
		ri := &requestInfo{req: req, reply: w}
		ctx := context.WithValue(req.Context(), requestInfoKey, ri)
		u, err := testForm.read(ctx)
		if err != nil {
			if c := fault.CodeOf(err); c == fault.Internal {
				t.Fatalf("uncoded error: %v", err)
			}
			return
		}
		if f := u.File("file"); f == nil || len(f.Data) == 0 {
			t.Fatal("success without the required file")
		}
	})
}

// FuzzJSONBody sends arbitrary JSON bodies through the whole stack to a JSON endpoint: the
// answer is a success or a 4xx problem, never a 5xx.
func FuzzJSONBody(f *testing.F) {
	for _, s := range []string{`{"name":"a"}`, `{"name":"a","plan":"admin","monthlyConversions":-1}`, `{`, `[]`, `null`, `{"name":1e400}`, "\x00"} {
		f.Add(s)
	}
	e := newTestEnv(f)
	f.Fuzz(func(t *testing.T, body string) {
		req := httptest.NewRequest("POST", "/api/admin/keys", strings.NewReader(body))
		req.Header.Set("X-API-Key", testKey)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		e.srv.Handler().ServeHTTP(w, req)
		if w.Code >= 500 {
			t.Fatalf("%d for %q: %s", w.Code, body, w.Body)
		}
		if w.Code >= 400 && !bytes.Contains(w.Body.Bytes(), []byte(`"code":"`)) {
			t.Fatalf("%d without a problem body: %s", w.Code, w.Body)
		}
	})
}
