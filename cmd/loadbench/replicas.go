package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/app/server"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
	"github.com/hearthwallet/hearth/core/config"
	"github.com/hearthwallet/hearth/core/store"
)

// The replica phases, on PostgreSQL only, measure Hearth flat out through
// one replica, then through two on the same database, over the same
// wallets: client i pays into the wallet that client i+1 pays from (a
// ring), and in the two-replica phase the clients alternate between the
// replicas, so that each replica's payment batches lock wallets that the
// other's batches lock too. Each replica has its own connection pool,
// ledger (hence its own batches) and HTTP server, in this process, as two
// Hearth processes behind a load balancer would. PostgreSQL's count of
// deadlocks over each phase is reported beside it. With -replica-rounds
// above 1 the pair runs that many times, two replicas first in every
// other pair, and the share is also given as medians: one pair says
// little on a shared machine.

// replicaResult is a replica phase's measurements.
type replicaResult struct {
	load.Result
	replicas  int
	deadlocks int64
}

// measureReplicas runs the replica phases: o.replicaRounds pairs of one
// replica and two, the order swapped every other pair.
func (f *fixture) measureReplicas(ctx context.Context) ([]replicaResult, error) {
	var out []replicaResult
	for round := range max(f.o.replicaRounds, 1) {
		order := []int{1, 2}
		if round%2 == 1 {
			order = []int{2, 1}
		}
		for _, n := range order {
			r, err := f.runReplicas(ctx, n, phases+2*round+n-1)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// runReplicas pays the ring's invoices of phase through n replicas.
func (f *fixture) runReplicas(ctx context.Context, n, phase int) (replicaResult, error) {
	var schema string
	if err := f.db.W.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return replicaResult{}, fmt.Errorf("reading the schema: %w", err)
	}
	name := fmt.Sprintf("loadbench-%s-%d", schema, phase) // of this phase alone
	before, err := f.deadlocks(ctx, name)
	if err != nil {
		return replicaResult{}, err
	}
	var reps []*replica
	closeAll := func() {
		for _, r := range reps {
			r.close()
		}
	}
	for range n {
		r, err := f.openReplica(ctx, schema, name)
		if err != nil {
			closeAll()
			return replicaResult{}, fmt.Errorf("starting a replica: %w", err)
		}
		reps = append(reps, r)
	}
	conns := f.conns
	defer func() { f.conns = conns }()
	f.conns = nil
	for i := range f.o.clients {
		c, err := load.Dial(reps[i%n].addr)
		if err != nil {
			closeAll()
			return replicaResult{}, err
		}
		f.conns = append(f.conns, c)
	}
	res, err := f.run(ctx, fmt.Sprintf("%d replica(s)", n), f.http, phase, 0)
	for _, c := range f.conns {
		c.Close()
	}
	closeAll()
	if err != nil {
		return replicaResult{}, err
	}
	after, err := f.deadlocks(ctx, name)
	if err != nil {
		return replicaResult{}, err
	}
	return replicaResult{Result: res, replicas: n, deadlocks: after - before}, nil
}

// replica is one Hearth replica: its own pool, ledger and server.
type replica struct {
	db   *store.DB
	app  *app.App
	srv  *http.Server
	addr string
}

func (r *replica) close() {
	r.srv.Close()
	r.app.Close()
	r.db.Close()
}

// openReplica starts a replica over f's database and schema, its
// connections named name (application_name) so that their end can be
// awaited.
func (f *fixture) openReplica(ctx context.Context, schema, name string) (*replica, error) {
	u, err := url.Parse(f.pgURL)
	if err != nil {
		return nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	db, err := store.Open(ctx, store.Options{PostgresURL: u.String(), MaxConns: f.o.pool})
	if err != nil {
		return nil, err
	}
	a, err := app.New(ctx, config.Default(), db, app.Options{Builtins: []app.Builtin{app.EmbeddedNode()}, NoWasm: true, NoOutbox: true})
	if err != nil {
		db.Close()
		return nil, err
	}
	srv := &fixture{} // for its listen
	if err := srv.listen(server.New(a, "loadbench", "")); err != nil {
		a.Close()
		db.Close()
		return nil, err
	}
	return &replica{db: db, app: a, srv: srv.srv, addr: srv.addr}, nil
}

// deadlocks is PostgreSQL's count of deadlocks in the database, once no
// connection named name is left: a server process counts its deadlocks
// when it ends, or now and then while it runs.
func (f *fixture) deadlocks(ctx context.Context, name string) (int64, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		var left int
		if err := f.db.W.QueryRowContext(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?", name).Scan(&left); err != nil {
			return 0, err
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			return 0, errors.New("the replicas' connections did not end")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := f.db.W.ExecContext(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
		return 0, err
	}
	var n int64
	err := f.db.W.QueryRowContext(ctx, "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()").Scan(&n)
	return n, err
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
