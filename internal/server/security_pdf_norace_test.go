//go:build !race

package server

const raceSlowdown = 1
