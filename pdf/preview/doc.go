// Package preview renders PDF pages as PNG or JPEG images within limits: at most MaxPages
// pages per call and a pixel budget per image, so that a poster-sized page at 300 dpi cannot
// take the renderer's memory. The HTTP previews and the command line's `pdf preview` call
// Render, so both keep the same bounds.
package preview
