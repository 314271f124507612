// Package xmlc is the XML layer of the e-invoice syntaxes: a hardened parser into a small
// tree (no DOCTYPE, no entities beyond XML's five, bounded size and depth, line numbers kept)
// and a Codec that reads a tree or builds one from the same binding code, so each syntax
// states its element order and mapping once for both directions.
package xmlc
