// Package stats holds loadbench's arithmetic on its measurements, apart
// from how they were taken: the median and its interval, percentiles of
// latencies, and how figures are written in its reports.
package stats

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Median returns the median of xs (0 for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// MedianInterval returns an interval that holds the median of the
// distribution xs are drawn from with a probability of 95 % at least,
// whatever that distribution: the order statistics k and n+1-k of the n
// values, for the largest k that leaves each side no more than 2.5 %
// (the sign test's interval: the count of values below the median is
// binomial(n, 1/2)). Pairs of rounds on a shared machine scatter widely,
// and a median alone does not say whether a budget is met. ok is false
// for fewer than 6 values, too few for any such interval.
func MedianInterval(xs []float64) (lo, hi float64, ok bool) {
	n := len(xs)
	k := 0 // the largest k with P(B ≤ k-1) ≤ 2.5 %
	below := 0.0
	for j := 0; j < n; j++ {
		below += binomialHalf(n, j) // P(B ≤ j)
		if below > 0.025 {
			break
		}
		k = j + 1
	}
	if k == 0 {
		return 0, 0, false
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[k-1], s[n-k], true
}

// binomialHalf returns P(B = j) for B binomial(n, 1/2).
func binomialHalf(n, j int) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x + 1)); return v }
	return math.Exp(lg(n) - lg(j) - lg(n-j) - float64(n)*math.Ln2)
}

// Percentile is the p-th percentile of sorted, ascending durations by
// nearest rank: the value ranked ⌊n·p/100 + ½⌋, clamped to the first and
// the last (100 is the maximum; 0 for no values).
func Percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(float64(len(sorted))*p/100+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// Round rounds a latency for a report: to 10 µs from a millisecond up,
// else to the microsecond.
func Round(d time.Duration) time.Duration {
	switch {
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	default:
		return d.Round(time.Microsecond)
	}
}

// Figure writes v with no decimals from 100 up, else with two.
func Figure(v float64) string {
	if v >= 100 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// JoinFigures writes each of vals as Figure does, joined by " · ".
func JoinFigures(vals []float64) string {
	s := make([]string, len(vals))
	for i, v := range vals {
		s[i] = Figure(v)
	}
	return strings.Join(s, " · ")
}

// Millis writes d in milliseconds, two significant figures below 10.
func Millis(d time.Duration) string {
	v := float64(d) / float64(time.Millisecond)
	if v < 10 {
		return fmt.Sprintf("%.1f ms", v)
	}
	return Thousands(int(v+0.5)) + " ms"
}

// Secs writes d in seconds: two decimals below 10 s, none from there.
func Secs(d time.Duration) string {
	if d < 10*time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.0f s", d.Seconds())
}

// Thousands writes n with commas between its thousands.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
