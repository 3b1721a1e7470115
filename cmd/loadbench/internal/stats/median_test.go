package stats

import (
	"math"
	"slices"
	"testing"
)

// TestMedian: the middle value of an odd count, the mean of the two
// middle ones of an even count, whatever the order, 0 for none; and the
// values given are left as they were.
func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{7}, 7},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{10, -5, 10, 0, 10}, 10},
		{[]float64{1.5, 1.5}, 1.5},
	} {
		before := slices.Clone(tc.xs)
		if got := Median(tc.xs); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
		if !slices.Equal(tc.xs, before) {
			t.Errorf("Median sorted its argument: %v, was %v", tc.xs, before)
		}
	}
}

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
		lo, hi, ok := MedianInterval(xs)
		if !ok || lo != float64(tc.lo) || hi != float64(tc.hi) {
			t.Errorf("%d values: interval %v to %v (%v), want those ranked %d and %d", tc.n, lo, hi, ok, tc.lo, tc.hi)
		}
	}
	for n := range 6 {
		if _, _, ok := MedianInterval(make([]float64, n)); ok {
			t.Errorf("%d values gave an interval", n)
		}
	}
	if p := binomialHalf(20, 10); math.Abs(p-0.176197) > 1e-6 {
		t.Errorf("P(B = 10) for 20 = %v, want 0.176197", p)
	}
	sum := 0.0
	for j := range 31 {
		sum += binomialHalf(30, j)
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("P(B = j) for 30 sums to %v over j, want 1", sum)
	}
}
