package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed static
var files embed.FS

// csp allows the page's own files only: no inline script, no other origin; blob: frames
// show the e-invoice view and PDFs the page fetched, data: images the previews; blob: reads
// back a result the page holds (the tests read downloads that way).
const csp = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; frame-src blob:; " +
	"connect-src 'self' blob:; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// Handler serves the workbench: index.html at / and its files under /app/; what is not
// there goes to notFound (the service's problem answer).
func Handler(notFound http.Handler) http.Handler {
	static, _ := fs.Sub(files, "static")
	etags := map[string]string{}
	fs.WalkDir(static, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(static, p)
			sum := sha256.Sum256(b)
			etags[p] = `"` + hex.EncodeToString(sum[:8]) + `"`
		}
		return nil
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/app/")
		if r.URL.Path == "/" {
			name = "index.html"
		}
		name = path.Clean(name)
		b, err := fs.ReadFile(static, name)
		if err != nil || strings.HasPrefix(name, ".") {
			notFound.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", etags[name])
		if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
			h.Set("Content-Type", ct)
		}
		if r.Header.Get("If-None-Match") == etags[name] {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Write(b)
	})
}
