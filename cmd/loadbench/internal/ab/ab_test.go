package ab

import (
	"context"
	"strings"
	"testing"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/dbtest"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/hearthbin"
)

// TestAB runs a small A/B run of the working tree against its own binary
// on each database: the servers start on fresh databases, the set-up over
// HTTP works, the rounds alternate which build goes first, every phase
// makes its payments, and the books balance through the API (database
// verifies them). It builds cmd/hearth, so it is not run with -short.
func TestAB(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/hearth")
	}
	t.Parallel()
	ctx := context.Background()
	b, err := hearthbin.Make(ctx, "A", ".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Remove)
	// B counts no metrics: a build's variables reach its server alone.
	bOff := hearthbin.Build{Label: "B", Name: "the same", Bin: b.Bin, Env: []string{"HEARTH_METRICS_OFF=true"}}
	dbtest.Each(t, func(t *testing.T, db, pgURL string) {
		for n, fresh := range []bool{true, false} {
			o := Options{Rounds: 2, Clients: 4, Warmup: 8, Payments: 40, Rate: 400, RatePayments: 20, Quiet: 1e9, Fresh: fresh}
			run(ctx, t, db, pgURL, o, []hearthbin.Build{b, bOff}, 3*dbtest.Index(db)+n)
		}
		// A variable meant for B alone reaches B's server and not A's:
		// one B cannot start with stops the run at B.
		bad := hearthbin.Build{Label: "B", Name: "the same", Bin: b.Bin, Env: []string{"HEARTH_METRICS_LISTEN=nonsense"}}
		o := Options{Rounds: 1, Clients: 4, Warmup: 8, Payments: 40, Rate: 400, RatePayments: 20, Quiet: 1e9, Fresh: true}
		_, err := database(ctx, db, pgURL, o, []hearthbin.Build{b, bad}, 3*dbtest.Index(db)+2)
		if err == nil || !strings.Contains(err.Error(), "metrics.listen") {
			t.Errorf("B with a bad variable: %v, want its server refusing metrics.listen", err)
		}
	})
}

// run runs database with o and checks its rounds.
func run(ctx context.Context, t *testing.T, db, pgURL string, o Options, builds []hearthbin.Build, n int) {
	t.Helper()
	rounds, err := database(ctx, db, pgURL, o, builds, n)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if len(rounds[i]) != o.Rounds {
			t.Fatalf("build %d: %d rounds, want %d", i, len(rounds[i]), o.Rounds)
		}
		for k, r := range rounds[i] {
			if len(r.closed.Latencies) != o.Payments || len(r.fixed.Latencies) != o.RatePayments {
				t.Errorf("build %d round %d: %d and %d payments measured, want %d and %d", i, k+1,
					len(r.closed.Latencies), len(r.fixed.Latencies), o.Payments, o.RatePayments)
			}
		}
	}
	if a, b := rounds[0], rounds[1]; a[0].turn > b[0].turn || a[1].turn < b[1].turn {
		t.Errorf("fresh %v: turns A %d, %d and B %d, %d: the order is not swapped", o.Fresh, a[0].turn, a[1].turn, b[0].turn, b[1].turn)
	}
}
