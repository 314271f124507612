// Package tiffdir reads the image directories of a TIFF file (and of a JPEG's EXIF block,
// which has the same form): the pages of a multi-page scan, their sizes and resolutions.
//
// golang.org/x/image/tiff decodes a file's first page only. A scanner's multi-page TIFF
// (an invoice of three pages, a fax) has each further page in a directory the previous
// one points to; [File.Page] gives the file as a decoder sees it with that page first,
// without copying it. The walk is bounded: a chain of directories that runs in a circle
// or past the file's end is an error, and so are more pages than the caller allows.
package tiffdir
