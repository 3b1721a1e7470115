package phases

import (
	"fmt"
	"io"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
)

// printRows writes db's phases, each flat-out rate as a share of the
// first's (the bare database's, the limit).
func printRows(w io.Writer, db string, rows []load.Result) {
	limit := rows[0].Rate()
	fmt.Fprintf(w, "%-10s %-20s %9s %12s %9s %9s %9s %10s %14s\n", "database", "run", "payments", "payments/s", "p50", "p99", "max", "of limit", "cpu µs/payment")
	for _, r := range rows {
		share := fmt.Sprintf("%.0f%%", 100*r.Rate()/limit)
		if r.FixedRate {
			share = "-"
		}
		fmt.Fprintf(w, "%-10s %-20s %9d %12.0f %9s %9s %9s %10s %14s\n", db, r.Name, len(r.Latencies), r.Rate(),
			stats.Round(r.Percentile(50)), stats.Round(r.Percentile(99)), stats.Round(r.Percentile(100)), share, r.CPU.PerPayment(len(r.Latencies), r.PGCPU))
	}
	fmt.Fprintln(w)
}

// printReplicas writes the replica phases: two replicas' rate as a share
// of one's in the same pair, and the deadlocks PostgreSQL broke meanwhile;
// then, for more than one pair, the medians of the rates, their ratio and
// the median of the pairs' own shares.
func printReplicas(w io.Writer, rows []replicaResult) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "%-10s %-20s %9s %12s %9s %9s %9s %10s %9s\n", "database", "replicas (ring)", "payments", "payments/s", "p50", "p99", "max", "of one", "deadlocks")
	var ones, twos, shares []float64
	for i, r := range rows {
		// rows come in pairs (measureReplicas), one replica first or second.
		pair := rows[i&^1 : min(i&^1+2, len(rows))]
		one := pair[0].Rate()
		if pair[0].replicas != 1 && len(pair) == 2 {
			one = pair[1].Rate()
		}
		if r.replicas == 1 {
			ones = append(ones, r.Rate())
		} else {
			twos = append(twos, r.Rate())
			shares = append(shares, r.Rate()/one)
		}
		fmt.Fprintf(w, "%-10s %-20d %9d %12.0f %9s %9s %9s %9.0f%% %9d\n", "postgres", r.replicas, len(r.Latencies), r.Rate(),
			stats.Round(r.Percentile(50)), stats.Round(r.Percentile(99)), stats.Round(r.Percentile(100)), 100*r.Rate()/one, r.deadlocks)
	}
	if len(shares) > 1 {
		fmt.Fprintf(w, "two replicas' share of one over %d pairs: %.0f%% (medians %.0f and %.0f/s); the pairs' own shares' median %.0f%%\n",
			len(shares), 100*stats.Median(twos)/stats.Median(ones), stats.Median(twos), stats.Median(ones), 100*stats.Median(shares))
	}
	fmt.Fprintln(w)
}
