package nodes

import (
	"context"
	"time"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
)

// idleRates are the processor time spent per second of wall time while
// no payment is made: by the network's processes (the nodes polling the
// chain, gossip), this process (the applications' background work) and
// the PostgreSQL server (other databases of it too). What a payment costs
// is what is spent above them.
type idleRates struct{ nodes, self, pg float64 }

// measureIdle measures the idle rates over d, with meter reading this
// process and PostgreSQL.
func measureIdle(ctx context.Context, net *realNet, meter machine.Meter, d time.Duration) (idleRates, error) {
	n0, c0, t0 := net.cpu(), meter.Read(), time.Now()
	select {
	case <-ctx.Done():
		return idleRates{}, ctx.Err()
	case <-time.After(d):
	}
	n1, c1, span := net.cpu(), meter.Read(), float64(time.Since(t0))
	return idleRates{nodes: float64(n1-n0) / span, self: float64(c1.Self-c0.Self) / span, pg: float64(c1.PG-c0.PG) / span}, nil
}

// busyCPU is the network's processor time above its idle rate over span,
// since at (a reading of cpu).
func (n *realNet) busyCPU(at, span time.Duration, idle idleRates) time.Duration {
	return max(n.cpu()-at-time.Duration(idle.nodes*float64(span)), 0)
}

// busy takes the idle rates over the result's measured span off its
// processor time.
func (idle idleRates) busy(r load.Result) load.Result {
	span := float64(r.Elapsed)
	r.CPU.Self = max(r.CPU.Self-time.Duration(idle.self*span), 0)
	r.CPU.PG = max(r.CPU.PG-time.Duration(idle.pg*span), 0)
	return r
}
