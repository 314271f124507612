package server

import (
	"bytes"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/papierkram/papierkram/internal/ops"
	"github.com/papierkram/papierkram/internal/testpdf"
	"github.com/papierkram/papierkram/internal/testtool"
)

// post sends a multipart request of parts (names starting with "@" are files) to path.
func (e *testEnv) post(path string, parts ...[2]string) *http.Response {
	e.t.Helper()
	body, ct := multipartBody(e.t.(*testing.T), parts...)
	return e.do("POST", path, testKey, body, "Content-Type", ct)
}

// readBack feeds a PDF one of our endpoints wrote to the endpoints that read PDFs: each must
// take it (the house rule that every PDF we write is readable by every endpoint).
func (e *testEnv) readBack(t *testing.T, doc []byte, pages int) {
	t.Helper()
	for _, path := range []string{"/api/pdf-tools/split", "/api/pdf-tools/rotate?degrees=90", "/api/pdf-tools/metadata",
		"/api/preview/page-count", "/api/pdf-tools/text", "/api/pdf-tools/compress", "/api/pdf-tools/bookmarks"} {
		res := e.upload(path, [2]any{"file", doc})
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("%s refuses our own output: %d %.300s", path, res.StatusCode, b)
		}
		if path == "/api/preview/page-count" && !strings.Contains(string(b), `"pages":`+itoa(pages)) {
			t.Fatalf("page count %s, want %d", b, pages)
		}
	}
	res := e.upload("/api/pdf-tools/merge", [2]any{"files", doc}, [2]any{"files", doc})
	pdfBody(t, res)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestToolboxEndToEnd(t *testing.T) {
	e := newTestEnv(t, noRateLimit)
	src := testpdf.New(3)

	t.Run("compress", func(t *testing.T) {
		res := e.upload("/api/pdf-tools/compress", [2]any{"file", src})
		before, after := res.Header.Get("X-Service-Size-Before"), res.Header.Get("X-Service-Size-After")
		out := pdfBody(t, res)
		if before != itoa(len(src)) || after != itoa(len(out)) {
			t.Fatalf("sizes %s -> %s, have %d -> %d", before, after, len(src), len(out))
		}
		if got := testtool.PageTexts(t, out); len(got) != 3 || got[2] != "Page 3" {
			t.Fatalf("pages %q", got)
		}
		wantProblem(t, e.upload("/api/pdf-tools/compress?level=extreme", [2]any{"file", src}), 400, "invalid_input")
	})

	t.Run("encrypt, decrypt, unlock", func(t *testing.T) {
		enc := encryptedBody(t, e.post("/api/pdf-tools/encrypt?allowCopy=false", [2]string{"@file", string(src)}, [2]string{"userPassword", "Geheim-4711"}, [2]string{"ownerPassword", "Chef-0815"}), "Chef-0815")
		show := testtool.Run(t, "qpdf", "--password=Chef-0815", "--show-encryption", testtool.File(t, "enc.pdf", enc))
		if !strings.Contains(show, "AESv3") || !strings.Contains(show, "extract for any purpose: not allowed") || !strings.Contains(show, "print high resolution: allowed") {
			t.Fatalf("qpdf --show-encryption:\n%s", show)
		}
		wantProblem(t, e.upload("/api/pdf-tools/split", [2]any{"file", enc}), 400, "encrypted_pdf")
		wantProblem(t, e.post("/api/pdf-tools/decrypt", [2]string{"@file", string(enc)}, [2]string{"password", "falsch"}), 400, "invalid_pdf_password")
		wantProblem(t, e.upload("/api/pdf-tools/unlock", [2]any{"file", enc}), 400, "encrypted_pdf")
		for _, pw := range []string{"Geheim-4711", "Chef-0815"} {
			dec := pdfBody(t, e.post("/api/pdf-tools/decrypt", [2]string{"@file", string(enc)}, [2]string{"password", pw}))
			if got := testtool.PageTexts(t, dec); len(got) != 3 || got[0] != "Page 1" {
				t.Fatalf("decrypted with %s: %q", pw, got)
			}
			e.readBack(t, dec, 3)
		}
		// A password in the URL would end up in access logs: only the body carries it.
		wantProblem(t, e.upload("/api/pdf-tools/decrypt?password=x", [2]any{"file", enc}), 400, "invalid_input")
		if logs := e.logs.String(); strings.Contains(logs, "Geheim-4711") || strings.Contains(logs, "Chef-0815") || strings.Contains(logs, "falsch") {
			t.Fatal("a password reached the log")
		}

		owner := encryptedBody(t, e.post("/api/pdf-tools/encrypt?allowPrint=false", [2]string{"@file", string(src)}, [2]string{"ownerPassword", "Chef-0815"}), "")
		unlocked := pdfBody(t, e.upload("/api/pdf-tools/unlock", [2]any{"file", owner}))
		if show := testtool.Run(t, "qpdf", "--show-encryption", testtool.File(t, "u.pdf", unlocked)); !strings.Contains(show, "not encrypted") {
			t.Fatalf("unlocked file still encrypted:\n%s", show)
		}
		e.readBack(t, unlocked, 3)
	})

	t.Run("owner restrictions", func(t *testing.T) {
		// Many supplier invoices forbid printing or copying with an owner password only; they
		// open in every viewer, and every endpoint that reads a PDF reads them.
		owner := encryptedBody(t, e.post("/api/pdf-tools/encrypt?allowPrint=false&allowCopy=false", [2]string{"@file", string(src)}, [2]string{"ownerPassword", "Chef-0815"}), "")
		e.readBack(t, owner, 3)
		for _, path := range []string{"/api/preview?page=2", "/api/pdf-tools/pdfa", "/api/pdf-tools/stamp?text=Eingang"} {
			res := e.upload(path, [2]any{"file", owner})
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != 200 {
				t.Fatalf("%s: %d %.300s", path, res.StatusCode, b)
			}
		}
		xr := corpusFile(t, "zugferd/2.3-examples/5. XRECHNUNG/XRECHNUNG_Einfach/XRECHNUNG_Einfach.pdf")
		restricted := testtool.File(t, "r.pdf", nil)
		testtool.Run(t, "qpdf", "--encrypt", "", "owner", "256", "--print=none", "--", testtool.File(t, "x.pdf", xr), restricted)
		rb, _ := os.ReadFile(restricted)
		res := e.upload("/api/zugferd/extract", [2]any{"file", rb})
		if m := decode(t, res); res.StatusCode != 200 || m["xml"] == nil {
			t.Fatalf("zugferd extract of a restricted invoice: %d %v", res.StatusCode, m)
		}
		res = e.upload("/api/pdf-tools/text", [2]any{"file", rb})
		if !strings.Contains(string(must(io.ReadAll(res.Body))), "Rechnung") {
			t.Fatal("no text from the restricted invoice")
		}
		res.Body.Close()
	})

	t.Run("bookmarks", func(t *testing.T) {
		tree := `[{"title":"Rechnung","page":1,"children":[{"title":"Positionen über 1.000 €","page":2}]},{"title":"Anhang","page":3,"bold":true}]`
		marked := pdfBody(t, e.post("/api/pdf-tools/bookmarks/set", [2]string{"@file", string(src)}, [2]string{"bookmarks", tree}))
		res := e.upload("/api/pdf-tools/bookmarks", [2]any{"file", marked})
		var got ops.BookmarkList
		if err := json.NewDecoder(res.Body).Decode(&got); err != nil || res.StatusCode != 200 {
			t.Fatalf("%d %v", res.StatusCode, err)
		}
		res.Body.Close()
		if got.Count != 3 || got.Bookmarks[0].Children[0].Title != "Positionen über 1.000 €" || got.Bookmarks[0].Children[0].Page != 2 || !got.Bookmarks[1].Bold {
			t.Fatalf("bookmarks %+v", got)
		}
		// What bookmarks answers goes back into bookmarks/set as it is.
		answer, _ := json.Marshal(got)
		again := pdfBody(t, e.post("/api/pdf-tools/bookmarks/set?replace=false", [2]string{"@file", string(marked)}, [2]string{"bookmarks", string(answer)}))
		var twice ops.BookmarkList
		res = e.upload("/api/pdf-tools/bookmarks", [2]any{"file", again})
		json.NewDecoder(res.Body).Decode(&twice)
		res.Body.Close()
		if twice.Count != 6 || len(twice.Bookmarks) != 4 || len(twice.Bookmarks[2].Children) != 1 || twice.Bookmarks[2].Children[0].Title != "Positionen über 1.000 €" {
			t.Fatalf("appended bookmarks %+v", twice)
		}
		wantProblem(t, e.post("/api/pdf-tools/bookmarks/set", [2]string{"@file", string(src)}, [2]string{"bookmarks", `[{"title":"x","page":9}]`}), 400, "invalid_page_spec")
		wantProblem(t, e.post("/api/pdf-tools/bookmarks/set", [2]string{"@file", string(src)}, [2]string{"bookmarks", `[{"titel":"x","page":1}]`}), 400, "invalid_input")
		e.readBack(t, marked, 3)
	})

	t.Run("page editing", func(t *testing.T) {
		cases := []struct {
			name  string
			res   *http.Response
			pages []string
		}{
			{"delete", e.upload("/api/pdf-tools/delete-pages?pages=2", [2]any{"file", src}), []string{"Page 1", "Page 3"}},
			{"reorder", e.upload("/api/pdf-tools/reorder?order=3,1,2", [2]any{"file", src}), []string{"Page 3", "Page 1", "Page 2"}},
			{"insert pdf", e.upload("/api/pdf-tools/insert?after=1", [2]any{"file", src}, [2]any{"insert", testpdf.New(1)}), []string{"Page 1", "Page 1", "Page 2", "Page 3"}},
			{"insert blank", e.upload("/api/pdf-tools/insert?after=0&blank=1", [2]any{"file", src}), []string{"", "Page 1", "Page 2", "Page 3"}},
		}
		for _, c := range cases {
			out := pdfBody(t, c.res)
			if got := testtool.PageTexts(t, out); strings.Join(got, "|") != strings.Join(c.pages, "|") {
				t.Errorf("%s: pages %q, want %q", c.name, got, c.pages)
			}
			e.readBack(t, out, len(c.pages))
		}
		wantProblem(t, e.upload("/api/pdf-tools/delete-pages?pages=all", [2]any{"file", src}), 400, "invalid_page_spec")
		wantProblem(t, e.upload("/api/pdf-tools/reorder?order=3,1", [2]any{"file", src}), 400, "invalid_page_spec")
	})

	t.Run("stamps", func(t *testing.T) {
		stamped := pdfBody(t, e.upload("/api/pdf-tools/stamp?text=Gepr%C3%BCft%2C+bezahlt&pages=2&position=tr&color=%23C00000", [2]any{"file", src}))
		got := testtool.PageTexts(t, stamped)
		if strings.Contains(got[0], "Geprüft") || !strings.Contains(got[1], "Geprüft, bezahlt") {
			t.Fatalf("stamp on %q", got)
		}
		numbered := pdfBody(t, e.upload("/api/pdf-tools/page-numbers?pattern=Seite+%7Bpage%7D+von+%7Bpages%7D", [2]any{"file", src}))
		if got := testtool.PageTexts(t, numbered); !strings.Contains(got[1], "Seite 2 von 3") {
			t.Fatalf("page numbers %q", got)
		}
		marked := pdfBody(t, e.upload("/api/pdf-tools/watermark?text=ENTWURF", [2]any{"file", src}))
		if got := testtool.PageTexts(t, marked); !strings.Contains(got[2], "ENTWURF") || !strings.Contains(got[2], "Page 3") {
			t.Fatalf("watermark %q", got)
		}
		wantProblem(t, e.upload("/api/pdf-tools/stamp?text=x&position=middle", [2]any{"file", src}), 400, "invalid_input")
		e.readBack(t, stamped, 3)
		e.readBack(t, numbered, 3)
	})

	t.Run("flatten", func(t *testing.T) {
		filled := pdfBody(t, e.post("/api/pdf-forms/fill", [2]string{"@file", string(testpdf.Form())}, [2]string{"values", `{"name":"Erika Mustermann"}`}))
		flat := pdfBody(t, e.upload("/api/pdf-tools/flatten", [2]any{"file", filled}))
		if !strings.Contains(testtool.Text(t, flat), "Erika Mustermann") {
			t.Fatal("the value is gone")
		}
		res := e.upload("/api/pdf-forms/fields", [2]any{"file", flat})
		if m := decode(t, res); m["count"] != float64(0) {
			t.Fatalf("fields left: %v", m)
		}
		e.readBack(t, flat, 1)
	})

	t.Run("images and ocr", func(t *testing.T) {
		img := pngOf(t, 400, 300)
		out := pdfBody(t, e.post("/api/pdf-tools/images-to-pdf?pageSize=A4", [2]string{"@images", string(img)}, [2]string{"@images", string(img)}))
		// A landscape image gets a landscape A4 page.
		if info := testtool.Info(t, out); info["Pages"] != "2" || !strings.HasPrefix(info["Page size"], "841.89 x 595.276") {
			t.Fatalf("pdfinfo %v", info)
		}
		e.readBack(t, out, 2)
		wantProblem(t, e.post("/api/pdf-tools/images-to-pdf", [2]string{"@images", "GIF89a not an image we take"}), 415, "unsupported_media_type")

		scan := scanOf(t, testpdf.New(1))
		res := e.post("/api/pdf-tools/ocr?outputProfile=PDF/A-3b", [2]string{"@file", string(scan)})
		searchable := pdfBody(t, res)
		if !strings.Contains(testtool.Text(t, searchable), "Page 1") {
			t.Fatalf("no text layer: %q", testtool.Text(t, searchable))
		}
		if x := testtool.Run(t, "exiftool", "-XMP-pdfaid:Part", "-s3", testtool.File(t, "ocr.pdf", searchable)); strings.TrimSpace(x) != "3" {
			t.Fatalf("pdfaid:part %q", x)
		}
		e.readBack(t, searchable, 1)
	})
}

// encryptedBody is the PDF of an encrypt answer, checked by qpdf with password.
func encryptedBody(t *testing.T, res *http.Response, password string) []byte {
	t.Helper()
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("status %d, type %q: %.300s", res.StatusCode, res.Header.Get("Content-Type"), b)
	}
	testtool.Run(t, "qpdf", "--password="+password, "--check", testtool.File(t, "enc.pdf", b))
	return b
}

// pngOf is a w×h PNG with a colour gradient.
func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	m := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			m.Set(x, y, color.RGBA{uint8(x), uint8(y), 128, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, m); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// scanOf is the first page of doc as a 200 dpi grey PNG, as a scanner makes it.
func scanOf(t *testing.T, doc []byte) []byte {
	t.Helper()
	out, err := exec.Command("pdftoppm", "-png", "-gray", "-r", "200", "-f", "1", "-l", "1", testtool.File(t, "scan.pdf", doc)).Output()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestToolboxMounted: every operation of the operation layer is a route with its prose.
func TestToolboxMounted(t *testing.T) {
	e := newTestEnv(t)
	paths := e.srv.api.OpenAPI().Paths
	for _, m := range ops.All() {
		item := paths["/api/"+m.Group+"/"+m.Name]
		if item == nil || item.Post == nil || len(item.Post.Description) < 40 || item.Post.RequestBody == nil {
			t.Errorf("%s/%s is not mounted with its prose and body", m.Group, m.Name)
		}
	}
}
