package host

import (
	"testing"

	"golang.org/x/time/rate"
)

// While payments queue for the processors two looks in a row the pace
// drops to the floor at once; one look, or a queue while the processors
// idle (a stall of the database's disk), does not; once they stop
// queueing, or the processors have time to spare, it doubles each look
// until it is lifted; in between it stays. The tail's readings follow.
func TestStreamBudgetPaces(t *testing.T) {
	b := newStreamBudget(nil)
	pace := func(want rate.Limit, why string) {
		t.Helper()
		if got := b.lim.Limit(); got != want {
			t.Fatalf("%s: pace %v, want %v", why, got, want)
		}
		// The tail reads twice what the streams may send, unlimited with them.
		reads := 2 * want
		if want == rate.Inf {
			reads = rate.Inf
		}
		if got := b.reads.Limit(); got != reads || b.paced() != (want != rate.Inf) {
			t.Fatalf("%s: the tail reads at %v (paced %v), want %v", why, got, b.paced(), reads)
		}
	}
	b.adjust(3, 0.7)
	pace(rate.Inf, "a few payments at once")
	b.adjust(40, 0.95)
	pace(rate.Inf, "one look of payments queueing")
	b.adjust(4, 0.9)
	b.adjust(40, 0.3)
	b.adjust(40, 0.3)
	pace(rate.Inf, "payments queueing for the disk")
	b.adjust(40, 0.8)
	b.adjust(40, 0.8)
	pace(streamFloor, "payments queueing for the processors two looks in a row")
	b.adjust(12, 0.6)
	pace(streamFloor, "between")
	b.adjust(2, 0.9)
	pace(streamFloor*2, "no longer queueing")
	b.adjust(30, 0.4)
	pace(streamFloor*4, "the processors with time to spare")
	for range 10 {
		b.adjust(2, 0.9)
	}
	pace(rate.Inf, "on")
	b.adjust(pressAbove, busyAbove)
	b.adjust(pressAbove, busyAbove)
	pace(streamFloor, "queueing again")
}
