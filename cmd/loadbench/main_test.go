package main

import (
	"context"
	"os"
	"testing"

	"github.com/hearthwallet/hearth/core/store/storetest"
)

// TestMeasure runs a small load on each database: every phase must pay
// every invoice, and the books must balance afterwards (measure verifies
// both and fails otherwise).
func TestMeasure(t *testing.T) {
	t.Parallel()
	o := options{clients: 4, payments: 40, warmup: 8, rate: 400}
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) {
			t.Parallel()
			pgURL := os.Getenv(storetest.PostgresEnv)
			if db == "postgres" && pgURL == "" {
				t.Skipf("%s is not set", storetest.PostgresEnv)
			}
			rows, reps, err := measure(context.Background(), db, pgURL, o)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != phases {
				t.Fatalf("%d rows, want %d", len(rows), phases)
			}
			if want := map[string]int{"sqlite": 0, "postgres": 2}[db]; len(reps) != want {
				t.Fatalf("%d replica rows, want %d", len(reps), want)
			}
			for _, r := range reps {
				rows = append(rows, r.result)
			}
			for _, r := range rows {
				if len(r.latencies) != o.payments || r.rate() <= 0 {
					t.Errorf("%s: %d payments at %.0f/s, want %d", r.name, len(r.latencies), r.rate(), o.payments)
				}
			}
		})
	}
}
