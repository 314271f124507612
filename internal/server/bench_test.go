package server

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/papierkram/papierkram/internal/testpdf"
)

// BenchmarkMetadataUpload20MB measures the whole HTTP path of a 20 MB upload in process.
func BenchmarkMetadataUpload20MB(b *testing.B) {
	e := newTestEnv(b)
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	w, _ := mw.CreateFormFile("file", "a.pdf")
	w.Write(testpdf.Make(testpdf.Options{Pages: 20, Filler: 1 << 20}))
	mw.Close()
	body, ct := buf.Bytes(), mw.FormDataContentType()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		req := httptest.NewRequest("POST", "/api/pdf-tools/metadata", bytes.NewReader(body))
		req.Header.Set("X-API-Key", testKey)
		req.Header.Set("Content-Type", ct)
		rec := httptest.NewRecorder()
		e.srv.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatal(rec.Code, rec.Body.String())
		}
	}
}
