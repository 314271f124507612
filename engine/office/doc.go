// Package office converts Word, Excel and OpenDocument files to PDF with a pool of warm
// LibreOffice processes under an engine.Supervisor. Each soffice has its own user profile
// and UNO pipe and a long-lived Python bridge of ours (bridge.py, python3-uno) that loads
// one document at a time with macros and link updates off and exports it with LibreOffice's
// PDF filter, PDF/A-3b on request. A conversion that hangs is killed with its soffice and
// the slot refills; a soffice is recycled after MaxJobs conversions.
//
// A document may reach outside itself (linked pictures, linked sections, other workbooks,
// web queries, WEBSERVICE, DDE). Three layers keep LibreOffice from loading any of it, each
// holding on its own where it applies: soffice runs in an empty network namespace (no host
// reachable, not even this one; where the kernel refuses, a warning and the other two);
// its profile is hardened (hardening: no macros, links never updated, linked content of
// untrusted documents blocked, a proxy that answers nothing); and Convert takes every
// reference outside the package out of OOXML and OpenDocument files before loading
// (sanitize). Formats without a package (.doc, .xls, .rtf, HTML) rely on the first two.
package office
