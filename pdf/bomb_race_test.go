//go:build race

package pdf

// The race detector makes inflating about ten times slower; time bounds of the bomb tests
// scale with it.
const raceSlowdown = 10
