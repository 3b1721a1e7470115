package main

import (
	"runtime/debug"
	"testing"
)

// Without GOGC the collector runs at defaultGCPercent; an operator's GOGC
// (which the runtime applied at start) stays in force.
func TestGCTargetIsTheOperatorsOrHearths(t *testing.T) {
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })
	current := func() int {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	if got := tuneGC([]string{"HOME=/root"}); got != defaultGCPercent || current() != defaultGCPercent {
		t.Fatalf("without GOGC: tuneGC says %d, the runtime runs at %d; want %d", got, current(), defaultGCPercent)
	}
	debug.SetGCPercent(50) // as GOGC=50 would have set it at start
	if got := tuneGC([]string{"GOGC=50"}); got != 50 || current() != 50 {
		t.Fatalf("with GOGC=50: tuneGC says %d, the runtime runs at %d; want 50", got, current())
	}
}
