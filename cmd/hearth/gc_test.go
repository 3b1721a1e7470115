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
	tuneGC([]string{"HOME=/root"})
	if got := current(); got != defaultGCPercent {
		t.Fatalf("without GOGC: the runtime runs at %d; want %d", got, defaultGCPercent)
	}
	debug.SetGCPercent(50) // as GOGC=50 would have set it at start
	tuneGC([]string{"GOGC=50"})
	if got := current(); got != 50 {
		t.Fatalf("with GOGC=50: the runtime runs at %d; want 50", got)
	}
}
