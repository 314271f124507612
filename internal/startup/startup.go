// Package startup keeps the garbage collector out of the start of the process.
//
// The papierkram binary links every capability (Chromium and Office clients, the e-invoice
// rule sets, Markdown, spreadsheets), and package initialisers allocate about 4.6 MB before
// main runs (9 MB while chroma's lexer registry was linked), much of it garbage at once.
// With the default settings that is a collection during initialisation and another as
// soon as main allocates, a fifth of the whole-process cost of `papierkram xrechnung
// validate FILE` (#24: under 20 ms).
//
// So the collector is off from this package's initialiser on, and Done, called first thing
// in main, lets it start again only once the process has used Headroom: a command that
// reads one file exits before that, and the first collection (of a server, a batch, a large
// PDF) restores GOGC's and GOMEMLIMIT's settings. The Go specification initialises, at each
// step, the first package in import-path order whose imports are ready; this one imports
// only the runtime's packages, so it runs before every module package that allocates much,
// though after some of the dependencies whose paths sort before ours.
package startup

import (
	"math"
	"runtime"
	"runtime/debug"
)

// Headroom is how much memory (as GOMEMLIMIT counts it) the process may use before its first
// collection.
const Headroom = 64 << 20

// percent is the collector setting in force before init turned it off: GOGC's, or 100.
var percent = debug.SetGCPercent(-1)

// Done lets the collector run again: first when the process uses Headroom (or GOMEMLIMIT,
// if lower), then as GOGC and GOMEMLIMIT say. Call it once, first thing in main.
func Done() { done(Headroom, nil) }

// done is Done with restored called once the settings are back (for tests).
func done(headroom int64, restored func()) {
	limit := debug.SetMemoryLimit(-1) // -1 reads the setting
	if percent < 0 && limit == math.MaxInt64 {
		return // GOGC=off without a limit: the user's choice
	}
	debug.SetMemoryLimit(min(limit, headroom))
	// The cleanup runs after the first collection that finds s unreachable, which is the
	// first collection: s is referenced by nothing. 32 bytes keep it out of the tiny
	// allocator, whose blocks may never be collected.
	s := new([32]byte)
	runtime.AddCleanup(s, func(limit int64) {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
		if restored != nil {
			restored()
		}
	}, limit)
}
