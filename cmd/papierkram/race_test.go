//go:build race

package main

// raceBuild: the race detector's instrumentation roughly doubles what initialisers allocate.
const raceBuild = true
