// Package conform checks a PDF against PDF/A-2 and PDF/A-3 (ISO 19005-2 and -3, levels B
// and U) natively, without a JVM: the rules are numbered by the standard's clauses and test
// numbers as veraPDF reports them (6.2.4.3-2, 6.6.2.1-1 …), so a report of ours reads like
// the reference validator's.
//
// Check parses the document once (pdf.Read, with its limits) and runs four passes over it:
// the file's bytes (header, trailer, cross-reference and object syntax, number and string
// limits), its objects reachable from the catalog (output intents and ICC profiles,
// annotations, actions, forms, embedded files, optional content, images, XObjects, graphics
// states, fonts), the content streams with the resources they name (colour spaces used
// without an output intent, transparency, operators) and the XMP metadata (well-formed
// RDF, predefined and extension schemas with value types, PDF/A identification).
//
// A rule this package does not check is not reported at all, never as passed: Report.Rules
// lists the rules that were checked.
package conform
