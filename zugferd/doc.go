// Package zugferd joins e-invoices and PDFs: it finds the invoice XML inside a ZUGFeRD /
// Factur-X (or XRechnung-in-PDF) file and checks the file as one document, the XML against
// the rules of its profile and the PDF against what the standard asks of the container
// (PDF/A-3, the associated file, the Factur-X XMP properties).
package zugferd
