// Package office converts Word, Excel and OpenDocument files to PDF with a pool of warm
// LibreOffice processes under an engine.Supervisor. Each soffice has its own user profile
// and UNO pipe and a long-lived Python bridge of ours (bridge.py, python3-uno) that loads
// one document at a time with macros and link updates off and exports it with LibreOffice's
// PDF filter, PDF/A-3b on request. A conversion that hangs is killed with its soffice and
// the slot refills; a soffice is recycled after MaxJobs conversions.
package office
