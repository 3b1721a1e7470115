package outboxcost

import (
	"context"
	"testing"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/dbtest"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/fixture"
)

// TestMeasure runs the rounds with the outbox on and off on each
// database: every round pays its invoices, the rounds alternate as
// planned, each internal payment takes its two event ids (the invoice's
// and the payment's; on PostgreSQL one step of 2 of the sequence) when
// the outbox is on, and none when it is off on PostgreSQL, and the books
// balance (measure verifies them).
func TestMeasure(t *testing.T) {
	t.Parallel()
	o := fixture.Options{Clients: 4, Payments: 40, Warmup: 8, OutboxRounds: 2}
	dbtest.Each(t, func(t *testing.T, db, pgURL string) {
		rounds, err := measure(context.Background(), db, pgURL, o)
		if err != nil {
			t.Fatal(err)
		}
		want := []bool{true, false, false, true}
		if len(rounds) != len(want) {
			t.Fatalf("%d rounds, want %d", len(rounds), len(want))
		}
		paid := int64(o.Warmup + o.Payments)
		for i, r := range rounds {
			if r.outbox != want[i] || len(r.Latencies) != o.Payments {
				t.Errorf("round %d: outbox %v with %d payments, want outbox %v with %d", i+1, r.outbox, len(r.Latencies), want[i], o.Payments)
			}
			events := 2 * paid
			if !r.outbox && db == "postgres" {
				events = 0
			}
			if r.events != events {
				t.Errorf("round %d (outbox %v): %d event ids taken, want %d", i+1, r.outbox, r.events, events)
			}
		}
	})
}
