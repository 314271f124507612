package llm

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func server(t *testing.T, status int, body string) *Client {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req map[string]any
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &req); err != nil || req["model"] != "m" || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "bad request", 400)
			return
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return New(Config{BaseURL: srv.URL + "/v1/", Model: "m"})
}

func completion(content string) string {
	b, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": content}}}, "usage": map[string]any{"total_tokens": 42}})
	return string(b)
}

// TestAsk: a JSON answer (also inside a Markdown fence) comes back with its tokens; every
// kind of provider failure is an ErrProvider.
func TestAsk(t *testing.T) {
	for _, content := range []string{`{"a":1}`, "```json\n{\"a\":1}\n```"} {
		a, err := server(t, 200, completion(content)).Ask(t.Context(), Request{Text: "x", Schema: map[string]any{"type": "object"}})
		if err != nil || string(a.JSON) != `{"a":1}` || a.Tokens != 42 {
			t.Errorf("%q: %v %v", content, a, err)
		}
	}
	for name, c := range map[string]*Client{
		"status":   server(t, 429, `{"error":{"message":"rate limited"}}`),
		"envelope": server(t, 200, `not json`),
		"choices":  server(t, 200, `{"choices":[]}`),
		"content":  server(t, 200, completion("Sorry, I cannot read this.")),
		"refusal":  server(t, 200, `{"choices":[{"message":{"content":"","refusal":"no"}}]}`),
		"down":     New(Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m"}),
	} {
		_, err := c.Ask(t.Context(), Request{Text: "x"})
		if !errors.Is(err, ErrProvider) || strings.Contains(err.Error(), "127.0.0.1:1/v1") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
