// Package phases is loadbench's default run: for each database, one fresh
// fixture (internal/fixture) and three phases with the same number of
// concurrent clients:
//
//   - bare: a Go loop per client runs the ledger's writes for an internal
//     payment directly on the database connection — the conditional debit,
//     the single-winner invoice update, the credit and the payment insert, in
//     one transaction. No HTTP, no decoding, no reads: the limit.
//   - hearth: each client sends POST /v1/me/payments {input: bolt11} with its
//     API key to a Hearth server on 127.0.0.1, over a keep-alive connection,
//     as fast as the answers come (the throughput).
//   - hearth at -rate: the same, the clients together starting -rate
//     payments a second on a fixed schedule (the latency at that load).
//
// On PostgreSQL the replica phases follow (replicas.go), with the
// deadlocks PostgreSQL broke in each. Every phase reports payments per
// second, latency percentiles and the processor time per payment; the
// ledger is checked afterwards, and every payment must have succeeded.
package phases

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/fixture"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
	"github.com/hearthwallet/hearth/core/store"
)

// Options shape a run.
type Options struct {
	fixture.Options
	Rate       float64 // payments per second of the fixed-rate phase
	CPUProfile string  // where a CPU profile of the Hearth phase goes (suffixed with the database), or ""
}

// Run measures each of databases (comma separated) and prints its phases
// on stdout. A database that fails is said on stderr and the others still
// run; the error returned then says only that one failed.
func Run(ctx context.Context, databases, pgURL string, o Options) error {
	fmt.Printf("loadbench: %d clients, %d payments per phase (after %d warm-up), GOMAXPROCS %d, %s\n\n",
		o.Clients, o.Payments, o.Warmup, runtime.GOMAXPROCS(0), machine.Model())
	failed := false
	for _, name := range strings.Split(databases, ",") {
		rows, reps, err := measure(ctx, strings.TrimSpace(name), pgURL, o)
		if err != nil {
			fmt.Fprintf(os.Stderr, "loadbench: %s: %v\n", name, err)
			failed = true
			continue
		}
		printRows(os.Stdout, name, rows)
		printReplicas(os.Stdout, reps)
	}
	if failed {
		return errors.New("a database's phases failed")
	}
	return nil
}

// measure runs the phases on one database.
func measure(ctx context.Context, name, pgURL string, o Options) ([]load.Result, []replicaResult, error) {
	db, closeDB, err := fixture.OpenDB(ctx, name, pgURL, o.Pool)
	if err != nil {
		return nil, nil, err
	}
	defer closeDB()
	f, err := fixture.New(ctx, db, o.Options)
	if err != nil {
		return nil, nil, fmt.Errorf("preparing: %w", err)
	}
	defer f.Close()
	bare, err := f.Run(ctx, "bare database", f.Bare, 0, 0)
	if err != nil {
		return nil, nil, err
	}
	if err := f.Connect(); err != nil {
		return nil, nil, err
	}
	stop, err := profile(o.CPUProfile, name)
	if err != nil {
		return nil, nil, err
	}
	hearth, err := f.Run(ctx, "hearth over HTTP", f.HTTP, 1, 0)
	stop()
	if err != nil {
		return nil, nil, err
	}
	fixed, err := f.Run(ctx, fmt.Sprintf("hearth at %.0f/s", o.Rate), f.HTTP, 2, o.Rate)
	if err != nil {
		return nil, nil, err
	}
	var reps []replicaResult
	if db.Dialect == store.Postgres {
		if reps, err = measureReplicas(ctx, f, db, pgURL, o.Options); err != nil {
			return nil, nil, err
		}
	}
	if err := f.Verify(ctx); err != nil {
		return nil, nil, err
	}
	if o.Stream && f.Events() != nil {
		streamed, err := f.Events().CaughtUp(ctx)
		if err != nil {
			return nil, nil, err
		}
		fmt.Printf("%s: the admin's event stream read %d events, up to the outbox's head\n", name, streamed)
	}
	return []load.Result{bare, hearth, fixed}, reps, nil
}

// profile starts a CPU profile into path (suffixed with the database name)
// when path is set, and returns what stops it.
func profile(path, db string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	out, err := os.Create(path + "." + db)
	if err != nil {
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); out.Close() }, nil
}

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
