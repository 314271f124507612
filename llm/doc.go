// Package llm is a client for language models behind the OpenAI-compatible chat completions
// API (OpenAI, Azure OpenAI, Ollama, vLLM, LM Studio, ...): one request with text and an
// optional image, answered as JSON that fits a given JSON schema (structured output).
package llm
