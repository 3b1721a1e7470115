package stats

import "time"

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
