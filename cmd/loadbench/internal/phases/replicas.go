package phases

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/hearthwallet/hearth/app"
	"github.com/hearthwallet/hearth/app/server"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/fixture"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
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

// measureReplicas runs the replica phases on f's database db:
// o.ReplicaRounds pairs of one replica and two, the order swapped every
// other pair.
func measureReplicas(ctx context.Context, f *fixture.Fixture, db *store.DB, pgURL string, o fixture.Options) ([]replicaResult, error) {
	var out []replicaResult
	for round := range max(o.ReplicaRounds, 1) {
		order := []int{1, 2}
		if round%2 == 1 {
			order = []int{2, 1}
		}
		for _, n := range order {
			r, err := runReplicas(ctx, f, db, pgURL, o.Pool, n, fixture.Phases+2*round+n-1)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// runReplicas pays the ring's invoices of phase through n replicas, each
// with pool connections.
func runReplicas(ctx context.Context, f *fixture.Fixture, db *store.DB, pgURL string, pool, n, phase int) (replicaResult, error) {
	var schema string
	if err := db.W.QueryRowContext(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return replicaResult{}, fmt.Errorf("reading the schema: %w", err)
	}
	name := fmt.Sprintf("loadbench-%s-%d", schema, phase) // of this phase alone
	before, err := deadlocks(ctx, db, name)
	if err != nil {
		return replicaResult{}, err
	}
	var reps []*replica
	defer func() {
		for _, r := range reps {
			r.close()
		}
	}()
	addrs := make([]string, 0, n)
	for range n {
		r, err := openReplica(ctx, pgURL, schema, name, pool)
		if err != nil {
			return replicaResult{}, fmt.Errorf("starting a replica: %w", err)
		}
		reps, addrs = append(reps, r), append(addrs, r.addr)
	}
	res, err := f.RunAt(ctx, fmt.Sprintf("%d replica(s)", n), addrs, phase)
	if err != nil {
		return replicaResult{}, err
	}
	for _, r := range reps {
		r.close()
	}
	reps = nil
	after, err := deadlocks(ctx, db, name)
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

// openReplica starts a replica over the database of pgURL and schema,
// with pool connections named name (application_name) so that their end
// can be awaited.
func openReplica(ctx context.Context, pgURL, schema, name string, pool int) (*replica, error) {
	u, err := url.Parse(pgURL)
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL URL: %w", err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	db, err := store.Open(ctx, store.Options{PostgresURL: u.String(), MaxConns: pool})
	if err != nil {
		return nil, err
	}
	a, err := app.New(ctx, config.Default(), db, app.Options{Builtins: []app.Builtin{app.EmbeddedNode()}, NoWasm: true, NoOutbox: true})
	if err != nil {
		db.Close()
		return nil, err
	}
	srv, addr, err := fixture.Listen(server.New(a, "loadbench", ""))
	if err != nil {
		a.Close()
		db.Close()
		return nil, err
	}
	return &replica{db: db, app: a, srv: srv, addr: addr}, nil
}

// deadlocks is PostgreSQL's count of deadlocks in db's database, once no
// connection named name is left: a server process counts its deadlocks
// when it ends, or now and then while it runs.
func deadlocks(ctx context.Context, db *store.DB, name string) (int64, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		var left int
		if err := db.W.QueryRowContext(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = ?", name).Scan(&left); err != nil {
			return 0, fmt.Errorf("counting the replicas' connections: %w", err)
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			return 0, errors.New("the replicas' connections did not end")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := db.W.ExecContext(ctx, "SELECT pg_stat_clear_snapshot()"); err != nil {
		return 0, fmt.Errorf("clearing the statistics' snapshot: %w", err)
	}
	var n int64
	if err := db.W.QueryRowContext(ctx, "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()").Scan(&n); err != nil {
		return 0, fmt.Errorf("reading the deadlocks: %w", err)
	}
	return n, nil
}
