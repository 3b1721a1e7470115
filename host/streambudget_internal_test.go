package host

import (
	"testing"

	"golang.org/x/time/rate"
)

// While payments queue the pace drops to the floor at once; while they
// do not it grows by half each look until it is lifted; in between it
// stays.
func TestStreamBudgetPaces(t *testing.T) {
	b := newStreamBudget(nil)
	b.adjust(3)
	if got := b.lim.Limit(); got != rate.Inf {
		t.Fatalf("a few payments at once: pace %v, want unlimited", got)
	}
	b.adjust(40)
	if got := b.lim.Limit(); got != streamFloor {
		t.Fatalf("payments queueing: pace %v, want the floor %d at once", got, streamFloor)
	}
	b.adjust(12)
	if got := b.lim.Limit(); got != streamFloor {
		t.Fatalf("between: pace %v, want it kept", got)
	}
	b.adjust(2)
	if got := b.lim.Limit(); got != streamFloor*1.5 {
		t.Fatalf("no longer queueing: pace %v, want %v", got, streamFloor*1.5)
	}
	for range 20 {
		b.adjust(2)
	}
	if got := b.lim.Limit(); got != rate.Inf {
		t.Fatalf("on: pace %v, want unlimited", got)
	}
	b.adjust(pressAbove)
	if got := b.lim.Limit(); got != streamFloor {
		t.Fatalf("queueing again: pace %v, want the floor", got)
	}
}
