// Package ocr makes scanned PDFs searchable: every selected page is rendered (poppler),
// read by Tesseract, and gets the words it read as an invisible text layer over its
// unchanged content, in register with the image, as OCRmyPDF's sandwich renderer does.
//
// The layer is Tesseract's own text-only PDF page (GlyphLessFont, text render mode 3),
// drawn as a form XObject after the page's content, which stays byte for byte as it was
// and is only wrapped in q/Q. Pages that already have text are left alone; a page lying on
// its side or upside down gets a /Rotate that makes it read upright. Small skew needs
// nothing: Tesseract reads slanted lines and places their words slanted.
//
// Images are made into a PDF by the caller first (pdf.ImagesToPDF); PDF/A is a step after
// this one (pdfa.Convert).
package ocr
