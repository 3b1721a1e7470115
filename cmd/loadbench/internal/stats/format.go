package stats

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

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
