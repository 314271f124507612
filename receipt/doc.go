// Package receipt turns photos, scans and PDFs of receipts into bookkeeping data: text from
// the PDF or from OCR, a rules engine of its own that finds the issuer, date, amounts, VAT
// breakdown, payment method and receipt type, optionally a language model that reads the
// receipt and is reconciled with those figures, SKR03/SKR04 account suggestions,
// plausibility checks, image quality hints, and exports to CSV and XLSX.
package receipt
