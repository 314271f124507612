// Package convert turns documents into PDF. This package builds print jobs from HTML, URL
// and Markdown requests (themes, stationery, output profiles) for a Printer such as the
// Chromium engine, and declares Office, the interface through which Word and Excel files
// reach LibreOffice. Its subpackages do the rest: docx (Word templates), xlsx (workbook
// print options and font embedding), tmpl (HTML templates and zip bundles) and document
// (generation and composition of multi-part documents). It knows nothing of HTTP.
package convert
