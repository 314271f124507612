// Package document generates documents from templates and data (HTML templates printed by
// Chromium, or written as DOCX and ODT by LibreOffice) and composes several parts (HTML,
// PDF, Word) into one PDF with page numbers, a table of contents and bookmarks.
package document
