package ab

import (
	"fmt"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/hearthbin"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
)

// roundOf runs round r: both builds' closed-loop phases in order, then
// their phases at the fixed rate.
func roundOf(r int, order []int, insts []*instance, builds []hearthbin.Build, o Options) ([2]round, error) {
	var got [2]round
	for k, i := range order {
		got[i].turn = 2*r + k
		res, err := insts[i].measured(fmt.Sprintf("round %d %s flat out", r+1, builds[i].Label), o.Warmup/o.Clients, o.Payments/o.Clients, 0, o)
		if err != nil {
			return got, err
		}
		got[i].closed = res
	}
	for _, i := range order {
		res, err := insts[i].measured(fmt.Sprintf("round %d %s at %.0f/s", r+1, builds[i].Label, o.Rate), 0, o.RatePayments/o.Clients, o.Rate, o)
		if err != nil {
			return got, err
		}
		got[i].fixed = res
	}
	return got, nil
}

// measured runs one phase of in's build once the machine is quiet, with
// the build's process running only for it, and prints its line.
func (in *instance) measured(name string, warm, measured int, rate float64, o Options) (load.Result, error) {
	avg := machine.WaitQuiet(o.Quiet, o.QuietWait)
	in.srv.Resume()
	r, err := in.load.Phase(name, warm, measured, rate)
	in.srv.Pause()
	if err != nil {
		return r, fmt.Errorf("%s: %w; its log: %s", name, err, in.srv.Log())
	}
	fmt.Printf("  %-26s load %.2f  %7.0f/s  p50 %9s  p99 %9s  cpu µs/payment %s\n", name, avg, r.Rate(),
		stats.Round(r.Percentile(50)), stats.Round(r.Percentile(99)), r.CPU.PerPayment(len(r.Latencies), r.PGCPU))
	return r, nil
}
