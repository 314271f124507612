package server

import (
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
)

// specRoutes is every method and path the service spec names (service-spec.md, "Endpoints").
var specRoutes = []string{
	"POST /v1/convert/word-to-pdf", "POST /v1/convert/html-to-pdf", "POST /v1/convert/excel-to-pdf",
	"POST /v1/convert/markdown-to-pdf", "POST /v1/convert/zugferd-to-xrechnung",
	"POST /api/zugferd/validate", "POST /api/zugferd/validate/base64", "POST /api/zugferd/extract",
	"POST /api/zugferd/extract/base64", "POST /api/zugferd/embed", "POST /api/zugferd/embed/base64",
	"POST /api/xrechnung/validate", "POST /api/xrechnung/transform", "POST /api/xrechnung/parse",
	"POST /api/xrechnung/generate", "POST /api/xrechnung/extract", "POST /api/xrechnung/detect",
	"GET /api/templates", "POST /api/templates",
	"POST /api/signatures/verify", "POST /api/signatures/verify/base64", "POST /api/signatures/sign",
	"POST /api/signatures/sign/upload", "GET /api/signatures/certificates", "POST /api/signatures/certificates",
	"POST /api/signatures/certificates/info",
	"POST /api/receipts/extract", "POST /api/receipts/extract-batch", "POST /api/receipts/extract-async",
	"POST /api/receipts/to-document", "POST /api/receipts/export/xlsx", "POST /api/receipts/export/csv",
	"POST /api/preview", "POST /api/preview/base64", "POST /api/preview/pages", "POST /api/preview/pages/base64",
	"POST /api/preview/page-count",
	"POST /api/pdf-tools/split", "POST /api/pdf-tools/rotate", "POST /api/pdf-tools/pdfa",
	"POST /api/pdf-tools/pdfa/base64", "POST /api/pdf-tools/metadata", "POST /api/pdf-tools/metadata/set",
}

// plainRoutes are served outside the API document on purpose.
var plainRoutes = []string{"GET /{$}", "GET /app/", "GET /health", "GET /ready", "GET /metrics", "GET /docs", "GET /openapi.json", "GET /openapi.yaml", "GET /openapi-3.0.json", "GET /openapi-3.0.yaml", "/"}

// documented returns "METHOD /path" for every operation of the served OpenAPI document.
func documented(t *testing.T, e *testEnv) (map[string]map[string]any, []string) {
	t.Helper()
	res := e.do("GET", "/openapi.json", "", nil)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var doc struct {
		OpenAPI string                               `json:"openapi"`
		Paths   map[string]map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	ops := map[string]map[string]any{}
	var keys []string
	for path, item := range doc.Paths {
		for method, op := range item {
			k := strings.ToUpper(method) + " " + path
			ops[k] = op
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return ops, keys
}

func TestRouterMatchesOpenAPI(t *testing.T) {
	e := newTestEnv(t)
	ops, keys := documented(t, e)
	routes := e.srv.Routes()
	for _, r := range routes {
		if slices.Contains(plainRoutes, r) {
			continue
		}
		if _, ok := ops[r]; !ok {
			t.Errorf("route %q is served but not in the OpenAPI document", r)
		}
	}
	for _, k := range keys {
		if !slices.Contains(routes, k) {
			t.Errorf("operation %q is documented but not routed", k)
		}
		// And the mux really dispatches it to that pattern.
		method, path, _ := strings.Cut(k, " ")
		req, _ := http.NewRequest(method, strings.ReplaceAll(path, "{id}", "key_x"), nil)
		if _, pattern := e.srv.mux.Handler(req); pattern != k {
			t.Errorf("%s dispatches to %q", k, pattern)
		}
	}
	for _, p := range plainRoutes {
		if !slices.Contains(routes, p) {
			t.Errorf("plain route %q missing", p)
		}
	}
}

func TestOpenAPICoversSpec(t *testing.T) {
	e := newTestEnv(t)
	ops, _ := documented(t, e)
	for _, r := range specRoutes {
		op, ok := ops[r]
		if !ok {
			t.Errorf("spec route %q is not in the OpenAPI document", r)
			continue
		}
		if op["summary"] == nil || op["operationId"] == nil || op["tags"] == nil {
			t.Errorf("%s lacks summary, operationId or tags", r)
		}
		resp, _ := op["responses"].(map[string]any)
		bad, _ := resp["400"].(map[string]any)
		if bad == nil {
			t.Errorf("%s documents no 400", r)
			continue
		}
		if _, ok := bad["content"].(map[string]any)["application/problem+json"]; !ok {
			t.Errorf("%s: 400 is not a problem+json response: %v", r, bad)
		}
		if strings.HasPrefix(r, "POST") {
			if op["requestBody"] == nil {
				t.Errorf("%s documents no request body", r)
			}
		}
	}
	// Multipart bodies name their parts.
	body := ops["POST /api/preview/page-count"]["requestBody"].(map[string]any)
	mp := body["content"].(map[string]any)["multipart/form-data"].(map[string]any)["schema"].(map[string]any)
	if _, ok := mp["properties"].(map[string]any)["file"]; !ok {
		t.Fatalf("page-count body: %v", mp)
	}
	// Unique operation ids.
	seen := map[string]string{}
	for k, op := range ops {
		id := op["operationId"].(string)
		if other, dup := seen[id]; dup {
			t.Errorf("operationId %q used by %s and %s", id, k, other)
		}
		seen[id] = k
	}
}
