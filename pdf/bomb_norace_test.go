//go:build !race

package pdf

const raceSlowdown = 1
