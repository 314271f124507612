// Package version holds the build's version, set at link time.
package version

// Version is set with -ldflags "-X github.com/papierkram/papierkram/internal/version.Version=...".
var Version = "0.1.0-dev"

// API is the version of the HTTP interface description (the spec's 0.1.0).
const API = "0.1.0"
