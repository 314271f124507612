// Package zugferd joins e-invoices and PDFs. It finds the invoice XML inside a ZUGFeRD /
// Factur-X (or XRechnung-in-PDF) file and extracts it; validates the file as one document
// (the XML against the rules of its profile, the container against PDF/A-3 and the
// Factur-X XMP properties, and the visible page against the XML); embeds an invoice into a
// PDF (Embed), makes a hybrid PDF from an XML invoice alone (Create), shows an invoice as
// HTML or PDF (View) and turns a ZUGFeRD invoice into an XRechnung (ToXRechnung).
package zugferd
