package load

import (
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
)

// Result is one phase's measurements.
type Result struct {
	Name      string
	FixedRate bool // paced, not flat out: its rate is not a capacity
	Elapsed   time.Duration
	Latencies []time.Duration // sorted
	CPU       machine.Reading // processor time of the measured payments
	PGCPU     bool            // CPU.PG was measured
}

// Rate is the payments measured per second.
func (r Result) Rate() float64 { return float64(len(r.Latencies)) / r.Elapsed.Seconds() }

// Percentile returns the p-th percentile latency (100 is the maximum).
func (r Result) Percentile(p float64) time.Duration { return stats.Percentile(r.Latencies, p) }

// CPUPerPayment is the processor time of one payment, Hearth's and the
// database's, in seconds (0 for none).
func (r Result) CPUPerPayment() float64 {
	if len(r.Latencies) == 0 {
		return 0
	}
	return (r.CPU.Self + r.CPU.PG).Seconds() / float64(len(r.Latencies))
}
