package host

import (
	"testing"

	"golang.org/x/time/rate"
)

// While the machine is busy the pace starts from what was sent and halves
// down to the floor; while it has time to spare the pace grows by half
// until it is lifted; in between it stays.
func TestStreamBudgetPaces(t *testing.T) {
	b := newStreamBudget()
	b.adjust(0.5, 3000)
	if got := b.lim.Limit(); got != rate.Inf {
		t.Fatalf("idle: pace %v, want unlimited", got)
	}
	b.adjust(0.95, 3000)
	if got := b.lim.Limit(); got != 1500 {
		t.Fatalf("busy, 3000/s sent: pace %v, want 1500", got)
	}
	for range 10 {
		b.adjust(0.99, 0)
	}
	if got := b.lim.Limit(); got != streamFloor {
		t.Fatalf("busy on: pace %v, want the floor %d", got, streamFloor)
	}
	b.adjust(0.8, 0)
	if got := b.lim.Limit(); got != streamFloor {
		t.Fatalf("between: pace %v, want it kept", got)
	}
	b.adjust(0.3, 0)
	if got := b.lim.Limit(); got != streamFloor*1.5 {
		t.Fatalf("idle again: pace %v, want %v", got, streamFloor*1.5)
	}
	for range 20 {
		b.adjust(0.3, 0)
	}
	if got := b.lim.Limit(); got != rate.Inf {
		t.Fatalf("idle on: pace %v, want unlimited", got)
	}
}
