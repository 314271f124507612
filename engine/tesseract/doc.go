// Package tesseract reads text from images with Tesseract OCR: one short-lived process per
// job under an engine.Supervisor, each single-threaded (OMP_THREAD_LIMIT=1) so that the
// supervisor's concurrency alone decides the load on the machine.
package tesseract
