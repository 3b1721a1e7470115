package outbox_test

import (
	"context"
	"sync"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// Every record that reached Settled or Failed, by whichever path (payments
// racing each other, which PostgreSQL pays in batches of hearth_pay_own_batch,
// a refused payment undoing only its own subtransaction; external payments
// settled or failed; invoices settled by the node), carries an event, and
// no record without such a change does: the outbox reads exactly them, each
// once, in the order of their ids.
func TestEveryChangeHasItsEventAndNoOtherHasOne(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		const payers = 16
		var invs []*ledger.Invoice
		for range payers * 3 {
			inv, err := f.ledger.CreateInvoice(ctx, f.bob, ledger.NewInvoice{AmountMsat: 1000})
			if err != nil {
				t.Fatal(err)
			}
			invs = append(invs, inv)
		}
		var wg sync.WaitGroup
		for i := range payers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := range 3 {
					// Two payers race for every other invoice: one wins.
					inv := invs[(i*3+j)%len(invs)]
					if i%2 == 1 {
						inv = invs[((i-1)*3+j)%len(invs)]
					}
					f.ledger.Pay(ctx, f.alice, ledger.PayRequest{Input: inv.LnInvoice.Bolt11}) //nolint:errcheck // losers are refused
				}
			}()
		}
		wg.Wait()
		ext, _, err := f.ledger.Pay(ctx, f.alice, ledger.PayRequest{Input: f.node.external(2000)})
		if err != nil {
			t.Fatal(err)
		}
		f.node.mu.Lock()
		f.node.fail = true
		f.node.mu.Unlock()
		if _, _, err := f.ledger.Pay(ctx, f.alice, ledger.PayRequest{Input: f.node.external(3000)}); err != nil {
			t.Fatal(err)
		}

		var settledInv, terminalPay, strays int
		err = db.R.NewRaw(`SELECT
			(SELECT COUNT(*) FROM invoices WHERE status = 'Settled'),
			(SELECT COUNT(*) FROM payments WHERE status IN ('Settled', 'Failed')),
			(SELECT COUNT(*) FROM invoices AS i WHERE (status = 'Settled') <> (event_id IS NOT NULL OR EXISTS (
				SELECT 1 FROM payments AS p WHERE p.payment_hash = i.payment_hash AND p.ledger = 'Internal'
				   AND p.status = 'Settled' AND p.event_id IS NOT NULL)))
			+ (SELECT COUNT(*) FROM payments WHERE (status IN ('Settled', 'Failed')) <> (event_id IS NOT NULL))`).
			Scan(ctx, &settledInv, &terminalPay, &strays)
		if err != nil {
			t.Fatal(err)
		}
		if strays != 0 {
			t.Fatalf("%d records whose event does not match their status", strays)
		}
		// payers/2 invoices won once each, half paid by one payer alone
		// (payers*3/2 in all), plus the funding invoice.
		if settledInv != payers*3/2+1 || terminalPay != payers*3/2+2 {
			t.Fatalf("%d settled invoices, %d settled or failed payments (external %s)", settledInv, terminalPay, ext.Status)
		}
		var last, top int64
		topQuery := "SELECT " + db.EventID() + " - 1"
		if db.Dialect == store.Postgres {
			topQuery = "SELECT last_value FROM events_id_seq"
		}
		if err := db.R.NewRaw(topQuery).Scan(ctx, &top); err != nil {
			t.Fatal(err)
		}
		waitHead(t, f.box, top)
		evs := readAll(t, f.box, 0, outbox.Filter{})
		if len(evs) != settledInv+terminalPay {
			t.Fatalf("%d events, want %d", len(evs), settledInv+terminalPay)
		}
		seen := map[string]bool{}
		for _, e := range evs {
			if e.ID <= last || seen[e.SubjectID] {
				t.Fatalf("event %d (%s %s) after %d, or twice", e.ID, e.Type, e.SubjectID, last)
			}
			last, seen[e.SubjectID] = e.ID, true
		}
	})
}
