package main

import (
	"math"
	"testing"
)

// TestMedianInterval checks the sign test's interval against the tables:
// for 20 values the 6th and the 15th (P(B ≤ 5) = 2.07 %), for 40 the 14th
// and the 27th (P(B ≤ 13) = 1.92 %), for 6 the extremes (1/64 each side),
// and none for 5.
func TestMedianInterval(t *testing.T) {
	for _, tc := range []struct{ n, lo, hi int }{{6, 1, 6}, {10, 2, 9}, {20, 6, 15}, {40, 14, 27}} {
		xs := make([]float64, tc.n)
		for i := range xs {
			xs[i] = float64((i*7)%tc.n + 1) // 1 … n, shuffled
		}
		lo, hi, ok := medianInterval(xs)
		if !ok || lo != float64(tc.lo) || hi != float64(tc.hi) {
			t.Errorf("%d values: interval %v to %v (%v), want those ranked %d and %d", tc.n, lo, hi, ok, tc.lo, tc.hi)
		}
	}
	if _, _, ok := medianInterval([]float64{1, 2, 3, 4, 5}); ok {
		t.Error("5 values gave an interval")
	}
	if p := binomialHalf(20, 10); math.Abs(p-0.176197) > 1e-6 {
		t.Errorf("P(B = 10) for 20 = %v, want 0.176197", p)
	}
}
