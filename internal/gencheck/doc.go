// Package gencheck holds the test that keeps generated code in step with its generators:
// every `//go:generate go run … -out FILE` line of the module is run into a temporary
// file and compared with the committed one, so that `make test` fails when a generator,
// or the official artefact it reads from the corpus, changed and nobody ran go generate.
package gencheck
