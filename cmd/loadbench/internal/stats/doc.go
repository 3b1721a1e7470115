// Package stats holds loadbench's arithmetic on its measurements, apart
// from how they were taken: the median and its interval, percentiles of
// latencies, and how figures are written in its reports.
package stats
