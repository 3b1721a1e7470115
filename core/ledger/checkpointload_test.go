package ledger_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// Checks that run while payments commit read one snapshot each, and a
// checkpoint moved meanwhile misses no payment: no check finds a breach,
// during the payments or after them.
func TestCheckDuringPayments(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		ctx := context.Background()
		f := newFixture(t, db, 1)
		bob := f.funded(t, "bob", 1)
		const payers, atLeast, checksDuring = 4, 15, 12
		var (
			checks atomic.Int64 // checks done while the payers ran
			moved  atomic.Int64 // incremental checks that moved the checkpoint
			done   = make(chan struct{})
			wg     sync.WaitGroup
			errs   = make(chan error, payers+2)
		)
		// The payers, and the node's receipts into bob's wallet, go on until
		// enough checks ran beside them.
		work := func(name string, step func(i int) error) {
			defer wg.Done()
			for i := 0; i < atLeast || checks.Load() < checksDuring; i++ {
				if err := step(i); err != nil {
					errs <- fmt.Errorf("%s, step %d: %w", name, i, err)
					return
				}
			}
		}
		for p := range payers {
			payer := f.funded(t, fmt.Sprintf("payer-%d", p), 1_000_000_000)
			wg.Add(1)
			go work(payer, func(int) error {
				inv, err := f.ledger.CreateInvoice(ctx, bob, ledger.NewInvoice{AmountMsat: 1_000})
				if err != nil {
					return err
				}
				_, _, err = f.ledger.Pay(ctx, payer, ledger.PayRequest{Input: inv.LnInvoice.Bolt11})
				return err
			})
		}
		wg.Add(1)
		go work("receipts", func(int) error {
			inv, err := f.ledger.CreateInvoice(ctx, bob, ledger.NewInvoice{AmountMsat: 2_000})
			if err != nil {
				return err
			}
			_, err = f.ledger.SettleInvoice(ctx, ledger.InvoiceSettlement{PaymentHash: inv.LnInvoice.PaymentHash, AmountMsat: 2_000})
			return err
		})
		go func() { wg.Wait(); close(done) }()
		for running := true; running; {
			select {
			case <-done:
				running = false
			default:
			}
			check := f.ledger.CheckIncremental
			if checks.Load()%4 == 3 {
				check = f.ledger.CheckFull
			}
			rep, err := check(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Breaches) > 0 {
				t.Fatalf("check %d during payments (full %v): breaches %+v", checks.Load(), rep.Full, rep.Breaches)
			}
			if rep.Moved && !rep.Full {
				moved.Add(1)
			}
			checks.Add(1)
		}
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		if moved.Load() == 0 {
			t.Fatalf("no incremental check of %d moved the checkpoint", checks.Load())
		}
		noBreach(t, checked(t, f.ledger, false, false))
		noBreach(t, checked(t, f.ledger, true, true))
		if db.Dialect == store.Postgres {
			// PostgreSQL's internal payments give their invoices no event id
			// of their own: the check found them through their payments.
			var paired int
			err := db.W.QueryRowContext(ctx, "SELECT count(*) FROM invoices WHERE status = 'Settled' AND event_id IS NULL").Scan(&paired)
			if err != nil || paired == 0 {
				t.Fatalf("invoices settled by internal payments without an event id: %d, %v", paired, err)
			}
		}
	})
}
