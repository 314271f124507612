// Package pdf works on PDF structure in process: page count, split, rotate, page extraction,
// merge, and metadata (read, and set as an incremental update that keeps the Info dictionary
// and the XMP packet in agreement).
//
// Parsing and rewriting use pdfcpu. Every entry point takes the whole document as bytes,
// refuses encrypted files with fault.EncryptedPDF and damaged ones with fault.InvalidPDF, and
// never lets a panic inside the parser escape.
package pdf
