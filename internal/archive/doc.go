// Package archive reads zip packages from uploads — Word and Excel files (OOXML),
// OpenDocument files and zip templates — with limits against zip bombs: the number of
// entries, the bytes one entry unpacks to and the bytes all of them unpack to, counted as
// they are read (a declared size may lie). It is the one zip reader of the project; each
// kind of input names its own limits.
package archive
