// Package compress makes PDFs smaller, losslessly or by giving up image detail.
//
// The lossless level is pdf.Optimize, in process: object streams, identical fonts and images
// stored once, unreferenced objects and earlier revisions dropped, raw streams compressed.
// The lossy levels first have Ghostscript's pdfwrite downsample colour and grey images to a
// target resolution and re-encode them as JPEG (monochrome images keep their pixels), then
// run the lossless pass on its output. What Ghostscript drops of the document around the
// pages (XMP extension schemas such as Factur-X's, the catalog's associated files, the
// Info dictionary's dates) is restored from the input, and the result is checked: pages,
// attachments byte for byte, metadata, and for PDF/A input the identification, the
// OutputIntent and embedded fonts. Whenever a check fails, or the lossy result is not
// smaller, the lossless result is returned with a note saying why. No result is ever larger
// than the input.
package compress
