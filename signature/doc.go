// Package signature signs PDFs with PKCS#12 credentials (PAdES-style CMS signatures written
// as an incremental update, optionally visible and with an RFC 3161 timestamp), verifies
// the signatures of a PDF, and describes certificates.
//
// Passwords are used to open a PKCS#12 file and dropped; nothing here logs or keeps them.
package signature
