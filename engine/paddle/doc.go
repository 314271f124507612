// Package paddle reads text from images with PaddleOCR's PP-OCRv4 detection and recognition
// models, run by onnxruntime-node from the npm registry (js/package.json pins them; setup
// installs them with npm ci into js/node_modules). One short node process per image under an
// engine.Supervisor, single-threaded like Tesseract.
//
// It is the receipt pipeline's second reading, not its first: on the scans measured it reads
// totals and VAT tables better than Tesseract but dates and names worse (its dictionary has
// no ö, ß, Ä or Ö) and takes about twice Tesseract's time, so it reads only the receipts whose
// figures Tesseract's text leaves unsettled (receipt.Extractor.Second).
package paddle
