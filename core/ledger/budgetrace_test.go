package ledger_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// 100 external payments at once on one budget, which no wallet lock
// serializes (unlike payments inside the instance on PostgreSQL): each
// reserves 1000 msat + 5000 of maximum fee, left Pending by the node, so
// that a budget of 50000 holds exactly 8 of them. The rest are refused
// before the node is asked; failing the 8 gives the budget back whole.
func TestBudgetHoldsAgainstConcurrentExternalPayments(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 10_000_000)
		k := newBudget(t, db, 50_000, budget.Yearly, time.Now)
		f.node.pay = func(ledger.NodePayment) (*ledger.NodePaymentResult, error) {
			return nil, errors.New("timeout") // in flight: Pending
		}
		bolt11s := make([]string, 100)
		for i := range bolt11s {
			bolt11s[i] = f.node.external(1_000)
		}
		var (
			mu      sync.Mutex
			pending []string
			refused int
			wg      sync.WaitGroup
		)
		for _, b := range bolt11s {
			wg.Go(func() {
				p, _, err := f.ledger.Pay(ctx, f.wallet, k.req(b))
				mu.Lock()
				defer mu.Unlock()
				switch {
				case errors.Is(err, ledger.ErrBudgetExceeded):
					refused++
				case err != nil:
					t.Errorf("pay: %v", err)
				default:
					pending = append(pending, p.ID)
				}
			})
		}
		wg.Wait()
		if len(pending) != 8 || refused != 92 || f.node.payCalls != 8 {
			t.Fatalf("%d pending, %d refused, %d node calls; want 8, 92, 8", len(pending), refused, f.node.payCalls)
		}
		if u := k.used(t); u != 48_000 {
			t.Fatalf("used = %d, want 48000", u)
		}
		if b := f.balance(t); b.ReservedMsat != 48_000 {
			t.Fatalf("reserved = %d, want 48000", b.ReservedMsat)
		}
		for _, id := range pending {
			if err := f.ledger.FailPayment(ctx, id, "no route"); err != nil {
				t.Fatal(err)
			}
		}
		if u := k.used(t); u != 0 {
			t.Fatalf("used after the failures = %d", u)
		}
		f.check(t)
	})
}
