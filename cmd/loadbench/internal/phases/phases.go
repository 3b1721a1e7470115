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
	"os"
	"runtime"
	"runtime/pprof"
	"strings"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/fixture"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
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
