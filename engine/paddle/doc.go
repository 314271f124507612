// Package paddle reads text from images with PaddleOCR's PP-OCRv4 detection and recognition
// models, run by onnxruntime-node from the npm registry (js/package.json pins them; setup
// installs them with npm ci into js/node_modules). A node process per slot of an
// engine.Supervisor loads the models once and reads one image per request
// (ocr.mjs --serve), single-threaded like Tesseract; it is recycled after 500 readings or
// when it holds more than its memory limit, and stopped under a reading past its time.
//
// It is the receipt pipeline's second reading, not its first: on the scans measured it reads
// totals and VAT tables better than Tesseract but dates and names worse (its dictionary has
// no ö, ß, Ä or Ö) and takes about twice Tesseract's time, so it reads only the receipts whose
// figures Tesseract's text leaves unsettled (receipt.Extractor.Second).
package paddle
