// Package ghostscript converts PDFs to PDF/A-3b with Ghostscript's pdfwrite device: fonts
// embedded, an sRGB OutputIntent with its ICC profile, XMP identification part 3,
// conformance B. One process per job under an engine.Supervisor, with -dSAFER and read
// access only to the ICC profile.
package ghostscript
