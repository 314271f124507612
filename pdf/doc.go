// Package pdf works on PDF structure in process: page count, split, rotate, page extraction,
// merge, metadata (read, and set as an incremental update that keeps the Info dictionary
// and the XMP packet in agreement), forms, attachments, and the toolbox operations: lossless
// optimisation, encryption (AES-256) and its removal, bookmarks, page deletion, insertion and
// reordering, stamps, watermarks and page numbers, flattening, and images to PDF. Lossy
// compression (pdf/compress) and OCR (pdf/ocr) need engines and live in subpackages.
//
// Parsing and rewriting use pdfcpu. Every entry point takes the whole document as bytes,
// checks it against the limits of Check before parsing, reads a file encrypted with
// an owner password only (it opens in every viewer) decrypted, refuses one that needs a
// password to open with fault.EncryptedPDF (Decrypt takes the password) and damaged ones with
// fault.InvalidPDF, and never lets a panic inside the parser escape.
package pdf
