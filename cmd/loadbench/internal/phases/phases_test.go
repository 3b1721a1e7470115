package phases

import (
	"context"
	"testing"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/dbtest"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/fixture"
)

// TestMeasure runs a small load on each database: every phase must pay
// every invoice, and the books must balance afterwards (measure verifies
// both and fails otherwise).
func TestMeasure(t *testing.T) {
	t.Parallel()
	o := Options{Options: fixture.Options{Clients: 4, Payments: 40, Warmup: 8, ReplicaRounds: 2}, Rate: 400}
	dbtest.Each(t, func(t *testing.T, db, pgURL string) {
		rows, reps, err := measure(context.Background(), db, pgURL, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != fixture.Phases {
			t.Fatalf("%d rows, want %d", len(rows), fixture.Phases)
		}
		if want := map[string]int{"sqlite": 0, "postgres": 4}[db]; len(reps) != want {
			t.Fatalf("%d replica rows, want %d", len(reps), want)
		}
		for i, want := range []int{1, 2, 2, 1}[:len(reps)] {
			if reps[i].replicas != want {
				t.Errorf("replica phase %d ran %d replicas, want %d", i, reps[i].replicas, want)
			}
		}
		for _, r := range reps {
			rows = append(rows, r.Result)
		}
		for _, r := range rows {
			if len(r.Latencies) != o.Payments || r.Rate() <= 0 {
				t.Errorf("%s: %d payments at %.0f/s, want %d", r.Name, len(r.Latencies), r.Rate(), o.Payments)
			}
		}
	})
}
