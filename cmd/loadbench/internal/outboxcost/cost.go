// Package outboxcost is loadbench -outbox-rounds: what the outbox costs.
//
// Hearth over HTTP flat out, in 2n
// rounds over one database and one server, the outbox on in one round of
// each pair and off in the other, the order turning from pair to pair
// (on-off, off-on, …). Two shared cores here change speed by tens of per
// cent from one minute to the next (the same CPU-bound loop took 2.5–4.2 s
// in three runs in a row), so builds measured one after the other differ
// by more than the 10 % in question; rounds of a few seconds side by side
// in one process meet the same machine.
//
// Off is Hearth as it was before the outbox, as nearly as one build can
// be: its reader (outbox.Run, as hearth serve runs it) stopped and, on
// PostgreSQL, its writes too: hearth_event_id() is replaced for the round
// by a function that returns NULL, which the planner folds away, so status
// changes take no sequence value, name no writer and add no entry to the
// partial indexes on event_id. SQLite's event ids are an expression in the
// ledger's prepared statements (store.EventID), which a round cannot take
// out: there off stops the reader only.
package outboxcost

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/fixture"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/load"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/machine"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/stats"
	"github.com/hearthwallet/hearth/core/store"
)

// costRound is one round's result.
type costRound struct {
	outbox bool
	events int64 // the span of event ids the round's payments took (their number: nothing else writes)
	load.Result
}

// Run runs o.OutboxRounds pairs of rounds on each of databases (comma
// separated) and prints them on stdout. A database that fails is said on
// stderr and the others still run.
func Run(ctx context.Context, databases, pgURL string, o fixture.Options) error {
	fmt.Printf("loadbench -outbox-rounds: %d clients, %d pairs of rounds of %d payments (after %d warm-up) flat out, the outbox on and off; GOMAXPROCS %d, %s\n\n",
		o.Clients, o.OutboxRounds, o.Payments, o.Warmup, runtime.GOMAXPROCS(0), machine.Model())
	failed := false
	for _, name := range strings.Split(databases, ",") {
		name = strings.TrimSpace(name)
		rounds, err := measure(ctx, name, pgURL, o)
		if err != nil {
			fmt.Fprintf(os.Stderr, "loadbench: %s: %v\n", name, err)
			failed = true
			continue
		}
		printCostRounds(os.Stdout, name, rounds)
	}
	if failed {
		return errors.New("a database's rounds failed")
	}
	return nil
}

// measure runs the rounds on one database.
func measure(ctx context.Context, name, pgURL string, o fixture.Options) ([]costRound, error) {
	o.NoOutbox = false
	db, closeDB, err := fixture.OpenDB(ctx, name, pgURL, o.Pool)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	f, err := fixture.New(ctx, db, o)
	if err != nil {
		return nil, fmt.Errorf("preparing: %w", err)
	}
	defer f.Close()
	if err := f.Connect(); err != nil {
		return nil, err
	}
	sw, err := newOutboxSwitch(ctx, db, f.Events())
	if err != nil {
		return nil, err
	}
	var rounds []costRound
	for pair := range o.OutboxRounds {
		order := []bool{true, false}
		if pair%2 == 1 {
			order = []bool{false, true}
		}
		for k, on := range order {
			if err := sw.set(ctx, on); err != nil {
				return nil, err
			}
			before, err := lastEventID(ctx, db)
			if err != nil {
				return nil, err
			}
			r, err := f.Run(ctx, outboxName(on), f.HTTP, 2*pair+k, 0)
			if err != nil {
				return nil, err
			}
			after, err := lastEventID(ctx, db)
			if err != nil {
				return nil, err
			}
			rounds = append(rounds, costRound{outbox: on, events: after - before, Result: r})
		}
	}
	if err := sw.set(ctx, true); err != nil {
		return nil, err
	}
	if err := f.Verify(ctx); err != nil {
		return nil, err
	}
	return rounds, nil
}

// outboxName names a round with the outbox on or off.
func outboxName(on bool) string {
	if on {
		return "outbox on"
	}
	return "outbox off"
}

// printCostRounds writes each round, then each pair's change and the
// medians: payments/s and CPU per payment with the outbox on against off.
func printCostRounds(w io.Writer, db string, rounds []costRound) {
	fmt.Fprintf(w, "%-10s %-6s %-11s %12s %9s %9s %14s\n", "database", "round", "outbox", "payments/s", "p50", "p99", "cpu µs/payment")
	for i, r := range rounds {
		fmt.Fprintf(w, "%-10s %-6d %-11s %12.0f %9s %9s %14s\n", db, i+1, r.Name, r.Rate(),
			stats.Round(r.Percentile(50)), stats.Round(r.Percentile(99)), r.CPU.PerPayment(len(r.Latencies), r.PGCPU))
	}
	var rate, cpu []float64 // on against off, pair by pair
	var on, off []float64
	for i := 0; i+1 < len(rounds); i += 2 {
		a, b := rounds[i], rounds[i+1]
		if !a.outbox {
			a, b = b, a
		}
		rate = append(rate, a.Rate()/b.Rate()-1)
		cpu = append(cpu, a.CPUPerPayment()/b.CPUPerPayment()-1)
		on, off = append(on, a.Rate()), append(off, b.Rate())
	}
	changes := make([]string, len(rate))
	for i := range rate {
		changes[i] = fmt.Sprintf("%+.0f %%", 100*rate[i])
	}
	interval := "too few pairs for a 95 % interval"
	if lo, hi, ok := stats.MedianInterval(rate); ok {
		interval = fmt.Sprintf("95 %% interval %+.1f to %+.1f %%", 100*lo, 100*hi)
	}
	fmt.Fprintf(w, "%s: payments/s with the outbox against without, pair by pair: %s; median %+.1f %% (%s; medians %.0f/s against %.0f/s); CPU per payment median %+.1f %%\n\n",
		db, strings.Join(changes, ", "), 100*stats.Median(rate), interval, stats.Median(on), stats.Median(off), 100*stats.Median(cpu))
}

// outboxSwitch turns the outbox on and off between the rounds: its reader everywhere, and on
// PostgreSQL its writes, by replacing hearth_event_id() for the round.
type outboxSwitch struct {
	db     *store.DB
	events *fixture.Events
	// eventID is hearth_event_id()'s definition as the migrations left it
	// (PostgreSQL only), to put back when the outbox turns on.
	eventID string
	on      bool
}

// noEventID is hearth_event_id() of the rounds without the outbox: no
// event id, nothing named, nothing taken. Immutable, so the planner folds
// the call into a constant.
const noEventID = `CREATE OR REPLACE FUNCTION hearth_event_id() RETURNS BIGINT
LANGUAGE sql IMMUTABLE AS 'SELECT NULL::BIGINT'`

// newOutboxSwitch reads what it needs to turn the outbox of db back on;
// the outbox is on.
func newOutboxSwitch(ctx context.Context, db *store.DB, events *fixture.Events) (*outboxSwitch, error) {
	s := &outboxSwitch{db: db, events: events, on: true}
	if db.Dialect != store.Postgres {
		return s, nil
	}
	err := db.W.QueryRowContext(ctx, "SELECT pg_get_functiondef('hearth_event_id()'::regprocedure)").Scan(&s.eventID)
	if err != nil {
		return nil, fmt.Errorf("reading hearth_event_id(): %w", err)
	}
	return s, nil
}

// set turns the outbox on or off.
func (s *outboxSwitch) set(ctx context.Context, on bool) error {
	if on == s.on {
		return nil
	}
	if s.db.Dialect == store.Postgres {
		def := noEventID
		if on {
			def = s.eventID
		}
		if _, err := s.db.W.ExecContext(ctx, def); err != nil {
			return fmt.Errorf("replacing hearth_event_id(): %w", err)
		}
	}
	s.events.SetReader(on)
	s.on = on
	return nil
}

// lastEventID returns the last event id given out on db: on PostgreSQL
// the sequence's last value (which moves by 2 for each id, the id after it
// being its internal payment's second event), on SQLite the next id less
// one, as the outbox's head reads it.
func lastEventID(ctx context.Context, db *store.DB) (int64, error) {
	query := "SELECT " + db.EventID() + " - 1"
	if db.Dialect == store.Postgres {
		query = "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_id_seq"
	}
	var id int64
	if err := db.R.QueryRowContext(ctx, query).Scan(&id); err != nil {
		return 0, fmt.Errorf("reading the last event id: %w", err)
	}
	return id, nil
}
