package llm

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Config says which provider and model to use.
type Config struct {
	BaseURL string        // e.g. https://api.openai.com/v1 or http://localhost:11434/v1
	APIKey  string        // sent as a bearer token; empty for local servers
	Model   string        // e.g. gpt-4o-mini, llama3.2-vision
	Timeout time.Duration // per request; default 60 s
}

// Enabled reports whether a provider is configured.
func (c Config) Enabled() bool { return c.BaseURL != "" && c.Model != "" }

// Client talks to one provider.
type Client struct {
	cfg  Config
	http *http.Client
}

// New returns a client; the provider is the operator's choice, so no outbound policy applies.
func New(cfg Config) *Client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 60 * time.Second
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return &Client{cfg: cfg, http: &http.Client{Timeout: cfg.Timeout}}
}

// Model is the configured model's name.
func (c *Client) Model() string { return c.cfg.Model }

// Request is one structured-output question.
type Request struct {
	System     string
	Text       string
	Image      []byte // PNG or JPEG, optional: sent as a data URL (vision models)
	ImageType  string // image/png or image/jpeg
	SchemaName string
	Schema     map[string]any // JSON schema the answer must fit
}

// Answer is the model's JSON and what it cost.
type Answer struct {
	JSON   json.RawMessage
	Tokens int
}

// ErrProvider marks failures of the provider (transport, status, malformed envelope), as
// opposed to a context cancelled by the caller.
var ErrProvider = errors.New("language model provider")

// maxAnswer bounds what is read of a provider's answer.
const maxAnswer = 4 << 20

// Ask sends the request and returns the answer's JSON content, checked to be a JSON object.
func (c *Client) Ask(ctx context.Context, r Request) (*Answer, error) {
	content := []map[string]any{{"type": "text", "text": r.Text}}
	if len(r.Image) > 0 {
		content = append(content, map[string]any{"type": "image_url", "image_url": map[string]any{
			"url": "data:" + r.ImageType + ";base64," + base64.StdEncoding.EncodeToString(r.Image)}})
	}
	body, err := json.Marshal(map[string]any{
		"model":       c.cfg.Model,
		"temperature": 0,
		"messages": []map[string]any{
			{"role": "system", "content": r.System},
			{"role": "user", "content": content},
		},
		"response_format": map[string]any{"type": "json_schema", "json_schema": map[string]any{
			"name": r.SchemaName, "strict": true, "schema": r.Schema}},
	})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.BaseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrProvider, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	res, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w: %v", ErrProvider, redact(err))
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return nil, fmt.Errorf("%w: reading the answer: %v", ErrProvider, err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%w: status %d: %.200s", ErrProvider, res.StatusCode, bytes.TrimSpace(raw))
	}
	var env struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
				Refusal string `json:"refusal"`
			} `json:"message"`
		} `json:"choices"`
		Usage struct {
			TotalTokens int `json:"total_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("%w: the answer is not a chat completion: %v", ErrProvider, err)
	}
	if len(env.Choices) == 0 {
		return nil, fmt.Errorf("%w: the answer has no choices", ErrProvider)
	}
	msg := env.Choices[0].Message
	if msg.Refusal != "" {
		return nil, fmt.Errorf("%w: the model refused: %.200s", ErrProvider, msg.Refusal)
	}
	content2 := strings.TrimSpace(msg.Content)
	// Some servers wrap JSON in a Markdown fence despite the schema.
	content2 = strings.TrimPrefix(strings.TrimSuffix(strings.TrimPrefix(content2, "```json"), "```"), "```")
	content2 = strings.TrimSpace(content2)
	if !json.Valid([]byte(content2)) || !strings.HasPrefix(content2, "{") {
		return nil, fmt.Errorf("%w: the model's answer is not a JSON object: %.120q", ErrProvider, content2)
	}
	return &Answer{JSON: json.RawMessage(content2), Tokens: env.Usage.TotalTokens}, nil
}

// redact keeps a transport error's kind but not a URL that might carry credentials.
func redact(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return inner
		}
	}
	return err
}
