package stats

import (
	"testing"
	"time"
)

// TestPercentile: nearest rank over sorted values, the maximum at 100,
// the first value at 0 and for tiny shares, 0 for no values.
func TestPercentile(t *testing.T) {
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = ms(i + 1) // 1 … 100 ms
	}
	for _, tc := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"none", nil, 50, 0},
		{"one value, any p", []time.Duration{ms(5)}, 99, ms(5)},
		{"p50 of 100", hundred, 50, ms(50)},
		{"p99 of 100", hundred, 99, ms(99)},
		{"p100 is the maximum", hundred, 100, ms(100)},
		{"p0 is the minimum", hundred, 0, ms(1)},
		{"p0.1 rounds down to the first", hundred, 0.1, ms(1)},
		{"p50 of 4: the 2nd", []time.Duration{ms(1), ms(2), ms(3), ms(4)}, 50, ms(2)},
		{"p99 of 4: the 4th", []time.Duration{ms(1), ms(2), ms(3), ms(4)}, 99, ms(4)},
		{"p50 of 3: rank 2 (1.5 rounds up)", []time.Duration{ms(1), ms(2), ms(3)}, 50, ms(2)},
		{"p99 of 10: the 10th", hundred[:10], 99, ms(10)},
		{"p90 of 10: the 9th", hundred[:10], 90, ms(9)},
	} {
		if got := Percentile(tc.sorted, tc.p); got != tc.want {
			t.Errorf("%s: Percentile(p%v) = %v, want %v", tc.name, tc.p, got, tc.want)
		}
	}
}
