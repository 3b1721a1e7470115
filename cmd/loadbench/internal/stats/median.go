package stats

import (
	"math"
	"slices"
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
