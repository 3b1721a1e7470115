package signals

import (
	"context"
	"testing"

	"github.com/hearthwallet/hearth/cmd/loadbench/internal/dbtest"
	"github.com/hearthwallet/hearth/cmd/loadbench/internal/hearthbin"
)

// TestSignals runs loadbench -signals small on each database: every
// payment's invoice.settled reaches the webhook of its payee and the
// admin's stream (on fails the run when one does not within 30 s),
// and the books balance. It builds cmd/hearth, so it is not run with -short.
func TestSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/hearth")
	}
	t.Parallel()
	ctx := context.Background()
	b, err := hearthbin.Make(ctx, "B", ".")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Remove)
	dbtest.Each(t, func(t *testing.T, db, pgURL string) {
		o := Options{Clients: 4, Warmup: 8, Payments: 40, Rate: 200, RatePayments: 20, Quiet: 1e9}
		if err := on(ctx, db, pgURL, b, o, dbtest.Index(db)); err != nil {
			t.Fatal(err)
		}
	})
}
