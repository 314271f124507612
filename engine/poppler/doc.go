// Package poppler renders PDF pages to images (pdftoppm) and extracts their text (pdftotext),
// one short-lived process per job under an engine.Supervisor.
package poppler
