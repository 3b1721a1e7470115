package main

import (
	"context"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/dbtest"
)

// TestAB runs a small A/B run of the working tree against its own binary
// on each database: the servers start on fresh databases, the set-up over
// HTTP works, the rounds alternate which build goes first, every phase
// makes its payments, and the books balance through the API (abDatabase
// verifies them). It builds cmd/hearth, so it is not run with -short.
func TestAB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/hearth")
	}
	t.Parallel()
	ctx := context.Background()
	b, err := buildHearth(ctx, "A", ".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.remove)
	// B counts no metrics: a build's variables reach its server alone.
	bOff := build{label: "B", name: "the same", bin: b.bin, env: []string{"HEARTH_METRICS_OFF=true"}}
	dbtest.Each(t, func(t *testing.T, db, pgURL string) {
		for n, fresh := range []bool{true, false} {
			o := abOptions{rounds: 2, clients: 4, warmup: 8, payments: 40, rate: 400, ratePayments: 20, quiet: 1e9, fresh: fresh}
			abRun(ctx, t, db, pgURL, o, []build{b, bOff}, 3*map[string]int{"sqlite": 0, "postgres": 1}[db]+n)
		}
		// A variable meant for B alone reaches B's server and not A's:
		// one B cannot start with stops the run at B.
		bad := build{label: "B", name: "the same", bin: b.bin, env: []string{"HEARTH_METRICS_LISTEN=nonsense"}}
		o := abOptions{rounds: 1, clients: 4, warmup: 8, payments: 40, rate: 400, ratePayments: 20, quiet: 1e9, fresh: true}
		_, err := abDatabase(ctx, db, pgURL, o, []build{b, bad}, 3*map[string]int{"sqlite": 0, "postgres": 1}[db]+2)
		if err == nil || !strings.Contains(err.Error(), "metrics.listen") {
			t.Errorf("B with a bad variable: %v, want its server refusing metrics.listen", err)
		}
	})
}

// abRun runs abDatabase with o and checks its rounds.
func abRun(ctx context.Context, t *testing.T, db, pgURL string, o abOptions, builds []build, n int) {
	t.Helper()
	rounds, err := abDatabase(ctx, db, pgURL, o, builds, n)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if len(rounds[i]) != o.rounds {
			t.Fatalf("build %d: %d rounds, want %d", i, len(rounds[i]), o.rounds)
		}
		for k, r := range rounds[i] {
			if len(r.closed.Latencies) != o.payments || len(r.fixed.Latencies) != o.ratePayments {
				t.Errorf("build %d round %d: %d and %d payments measured, want %d and %d", i, k+1,
					len(r.closed.Latencies), len(r.fixed.Latencies), o.payments, o.ratePayments)
			}
		}
	}
	if a, b := rounds[0], rounds[1]; a[0].turn > b[0].turn || a[1].turn < b[1].turn {
		t.Errorf("fresh %v: turns A %d, %d and B %d, %d: the order is not swapped", o.fresh, a[0].turn, a[1].turn, b[0].turn, b[1].turn)
	}
}

// TestSignals runs loadbench -signals small on each database: every
// payment's invoice.settled reaches the webhook of its payee and the
// admin's stream (signalsOn fails the run when one does not within 30 s),
// and the books balance. It builds cmd/hearth, so it is not run with -short.
func TestSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/hearth")
	}
	t.Parallel()
	ctx := context.Background()
	b, err := buildHearth(ctx, "B", ".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.remove)
	dbtest.Each(t, func(t *testing.T, db, pgURL string) {
		o := abOptions{clients: 4, warmup: 8, payments: 40, rate: 200, ratePayments: 20, quiet: 1e9}
		if err := signalsOn(ctx, db, pgURL, b, o, map[string]int{"sqlite": 0, "postgres": 1}[db]); err != nil {
			t.Fatal(err)
		}
	})
}
