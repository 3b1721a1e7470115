package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
)

// The outbox's cost (-outbox-rounds n): Hearth over HTTP flat out, in 2n
// rounds over one database and one server, the outbox's reader (what keeps
// its head current: outbox.Run, as hearth serve runs it) running in one
// round of each pair and stopped in the other, the order turning from pair
// to pair (on-off, off-on, …). Two shared cores here change speed by tens
// of per cent from one minute to the next (the same CPU-bound loop took
// 2.5–4.2 s in three runs in a row), so builds measured one after the
// other differ by more than the 10 % in question; rounds of a few seconds
// side by side in one process meet the same machine. The writes of the
// events are in every round: they are the ledger's own statements.

// costRound is one round's result.
type costRound struct {
	reader bool
	result
}

// outboxCost runs the rounds on each database and prints them.
func outboxCost(ctx context.Context, databases, pgURL string, o options) error {
	fmt.Printf("loadbench -outbox-rounds: %d clients, %d pairs of rounds of %d payments (after %d warm-up) flat out, the outbox's reader on and off; GOMAXPROCS %d, %s\n\n",
		o.clients, o.outboxRounds, o.payments, o.warmup, runtime.GOMAXPROCS(0), cpuModel())
	failed := false
	for _, name := range strings.Split(databases, ",") {
		name = strings.TrimSpace(name)
		rounds, err := measureOutboxCost(ctx, name, pgURL, o)
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

// measureOutboxCost runs the rounds on one database.
func measureOutboxCost(ctx context.Context, name, pgURL string, o options) ([]costRound, error) {
	o.noOutbox = false
	db, closeDB, err := openDB(ctx, name, pgURL, o.pool)
	if err != nil {
		return nil, err
	}
	defer closeDB()
	f, err := newFixture(ctx, db, pgURL, o)
	if err != nil {
		return nil, fmt.Errorf("preparing: %w", err)
	}
	defer f.close()
	if err := f.connect(); err != nil {
		return nil, fmt.Errorf("connecting: %w", err)
	}
	var rounds []costRound
	for pair := range o.outboxRounds {
		order := []bool{true, false}
		if pair%2 == 1 {
			order = []bool{false, true}
		}
		for k, on := range order {
			f.events.setReader(on)
			r, err := f.run(ctx, readerName(on), f.http, 2*pair+k, 0)
			if err != nil {
				return nil, err
			}
			rounds = append(rounds, costRound{reader: on, result: r})
		}
	}
	f.events.setReader(true)
	if err := f.verify(ctx); err != nil {
		return nil, err
	}
	return rounds, nil
}

func readerName(on bool) string {
	if on {
		return "reader on"
	}
	return "reader off"
}

// printCostRounds writes each round, then each pair's change and the
// medians: payments/s and CPU per payment with the reader on against off.
func printCostRounds(w io.Writer, db string, rounds []costRound) {
	fmt.Fprintf(w, "%-10s %-6s %-11s %12s %9s %9s %14s\n", "database", "round", "outbox", "payments/s", "p50", "p99", "cpu µs/payment")
	for i, r := range rounds {
		fmt.Fprintf(w, "%-10s %-6d %-11s %12.0f %9s %9s %14s\n", db, i+1, r.name, r.rate(),
			round(r.percentile(50)), round(r.percentile(99)), r.cpu.perPayment(len(r.latencies), r.pgCPU))
	}
	var rate, cpu []float64 // on against off, pair by pair
	var on, off []float64
	for i := 0; i+1 < len(rounds); i += 2 {
		a, b := rounds[i], rounds[i+1]
		if !a.reader {
			a, b = b, a
		}
		rate = append(rate, a.rate()/b.rate()-1)
		cpu = append(cpu, a.cpuPerPayment()/b.cpuPerPayment()-1)
		on, off = append(on, a.rate()), append(off, b.rate())
	}
	changes := make([]string, len(rate))
	for i := range rate {
		changes[i] = fmt.Sprintf("%+.0f %%", 100*rate[i])
	}
	fmt.Fprintf(w, "%s: payments/s with the reader against without, pair by pair: %s; median %+.1f %% (medians %.0f/s against %.0f/s); CPU per payment median %+.1f %%\n\n",
		db, strings.Join(changes, ", "), 100*median(rate), median(on), median(off), 100*median(cpu))
}

// cpuPerPayment is the processor time of one payment, Hearth's and the
// database's, in seconds.
func (r result) cpuPerPayment() float64 {
	if len(r.latencies) == 0 {
		return 0
	}
	return (r.cpu.self + r.cpu.pg).Seconds() / float64(len(r.latencies))
}

// median returns the median of xs (0 for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
