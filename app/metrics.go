package app

import (
	"context"
	"fmt"
	"time"

	"github.com/hearthwallet/hearth/lib/metrics"
)

// The application's metrics: the ledger counts its payments and
// invoices, the API times its requests, the runtime counts the calls
// into WebAssembly plugins, the built-ins count their deliveries, and at
// each scrape the outbox, the node and the database pools are read. They
// are counted whether or not metrics.listen is set (the counting
// allocates nothing and its cost is within noise: docs/performance.md),
// so that the dashboard's admin Home reads them (GET /v1/system/stats);
// cmd/hearth serves the scrape, on a listener of its own, only when
// metrics.listen is set.

// openMetrics sets a.Metrics: o.Metrics, else a new registry, else nil
// with o.NoMetrics or metrics.off; o carries it on to the parts New builds.
func (a *App) openMetrics(o *Options) {
	if o.Metrics == nil && !o.NoMetrics && !a.Config.Metrics.Off {
		o.Metrics = metrics.New(o.Version)
	}
	a.Metrics, a.opts.Metrics = o.Metrics, o.Metrics
}

// runMetrics samples, until ctx ends, the payment counters into the
// history of the last hour that the stats read (per process: each
// replica its own).
func (a *App) runMetrics(ctx context.Context) {
	if m := a.Metrics; m != nil {
		a.goRun("metrics history", func() { m.RunHistory(ctx) })
	}
}

// watch has the metrics read, at each scrape, the database's pools, the
// node and the outbox (when there is one).
func (a *App) watch() {
	m := a.Metrics
	if m == nil {
		return
	}
	m.WatchPools(func() []metrics.PoolStats {
		var out []metrics.PoolStats
		for _, p := range a.DB.PoolStats() {
			out = append(out, metrics.PoolStats(p))
		}
		return out
	})
	m.WatchNode(a.Config.Node.Backend, func(ctx context.Context) (metrics.NodeState, error) {
		info, err := a.Node.Info(ctx)
		if err != nil {
			return metrics.NodeState{}, fmt.Errorf("reading the node's info: %w", err)
		}
		return metrics.NodeState{BlockHeight: info.BlockHeight, Channels: info.Channels}, nil
	})
	if a.Outbox == nil {
		return
	}
	m.WatchOutbox(func(ctx context.Context) (metrics.OutboxState, error) {
		head, lags, err := a.Outbox.Lags(ctx)
		if err != nil {
			return metrics.OutboxState{}, err
		}
		st := metrics.OutboxState{Head: head}
		now := time.Now()
		for _, l := range lags {
			c := metrics.ConsumerLag{Name: l.Name, Events: l.Events, Off: l.Off}
			if !l.Oldest.IsZero() {
				c.Seconds = max(0, now.Sub(l.Oldest).Seconds())
			}
			st.Consumers = append(st.Consumers, c)
		}
		return st, nil
	})
}
