// Package convert turns documents into PDF: HTML and URLs on Chromium (this package builds
// the print job from a request and applies the output profile), Markdown, and Office
// documents in later steps. It knows nothing of HTTP.
package convert
