package startup

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
)

// gcPercent reads the collector setting.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

func TestOffUntilTheFirstCollection(t *testing.T) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		t.Fatal("run without GOGC and GOMEMLIMIT: the test checks the defaults come back")
	}
	if percent != 100 {
		t.Fatalf("setting before init = %d, want GOGC's default 100", percent)
	}
	if p := gcPercent(); p != -1 {
		t.Fatalf("collector setting after init = %d, want off", p)
	}
	restored := make(chan struct{})
	done(32<<20, func() { close(restored) })
	if got := debug.SetMemoryLimit(-1); got != 32<<20 {
		t.Fatalf("limit after Done = %d, want the headroom", got)
	}
	if p := gcPercent(); p != -1 {
		t.Fatalf("collector setting before the first collection = %d, want off", p)
	}
	// Allocating past the headroom starts the collection that brings the settings back.
	var keep [][]byte
	for {
		select {
		case <-restored:
			if p := gcPercent(); p != 100 {
				t.Fatalf("collector setting after the first collection = %d, want 100", p)
			}
			if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
				t.Fatalf("limit after the first collection = %d, want none", got)
			}
			return
		default:
		}
		keep = append(keep, make([]byte, 1<<20))
		if len(keep) > 64 { // 64 MB: well past the headroom; drop them, collect, wait
			keep = nil
			runtime.GC()
			<-restored
		}
	}
}
