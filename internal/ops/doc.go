// Package ops is the operation layer that the HTTP server and the command line share.
//
// An Operation declares one capability once: its name, its inputs (uploaded files and text
// parts such as passwords), its options as a tagged struct, its prose, and Run, which calls
// the capability's one domain function. internal/server mounts every operation as
// POST /api/<group>/<name> (options as query parameters, inputs as multipart parts, the
// struct tags documenting and validating both); cmd/papierkram mounts the same operation as
// `papierkram <command> <name>` (options as flags built from the same tags, the first file
// part as positional arguments). Neither side does more than decode, call Run and encode, so
// the two cannot drift apart.
//
// The prose of each group's operations lives in an embedded Markdown file beside this code
// (pdftools.md, xrechnung.md, zugferd.md), one "## name" section per operation.
package ops
