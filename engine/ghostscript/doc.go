// Package ghostscript runs Ghostscript's pdfwrite device for two jobs: converting PDFs to
// PDF/A-3b (fonts embedded, an sRGB OutputIntent with its ICC profile, XMP identification
// part 3, conformance B), and distilling PDFs for lossy compression (images downsampled and
// re-encoded as JPEG, optionally as PDF/A of a given part). One process per job under an
// engine.Supervisor, with -dSAFER and read access only to the ICC profile.
package ghostscript
