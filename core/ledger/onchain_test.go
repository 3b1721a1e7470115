package ledger_test

import (
	"context"
	"sync"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// A deposit seen again and again (the stream, a rescan, another replica,
// all at once) is one Onchain invoice, Pending until credited, credited
// once: the wallet's received grows by its amount exactly once.
func TestDepositCreditedOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		ctx := context.Background()
		f := newFixture(t, db, 1_000)
		other := f.another(t)
		out := ledger.BitcoinOutput{TxID: "ab12", Vout: 1, Address: "bcrt1qdeposit", AmountSat: 5_000}
		d, err := f.ledger.Deposit(ctx, f.wallet, out, false)
		if err != nil {
			t.Fatal(err)
		}
		inv := d.Invoice
		if !d.New || d.Credited || inv.Status != ledger.StatusPending || inv.Ledger != ledger.LedgerOnchain ||
			inv.LnInvoice != nil || inv.BitcoinOutput == nil || inv.BitcoinOutput.Confirmations != 0 ||
			inv.BitcoinOutput.BlockHeight != nil || *inv.AmountMsat != 5_000_000 {
			t.Fatalf("pending deposit = %+v", inv)
		}
		if b := f.balance(t); b.AvailableMsat != 1_000 {
			t.Fatalf("an unconfirmed deposit was credited: %+v", b)
		}
		height := int64(700)
		out.BlockHeight, out.Confirmations = &height, 1
		var wg sync.WaitGroup
		var mu sync.Mutex
		credited, fresh := 0, 0
		for i := range 16 {
			led := f.ledger
			if i%2 == 1 {
				led = other
			}
			wg.Go(func() {
				d, err := led.Deposit(ctx, f.wallet, out, true)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if d.Credited {
					credited++
				}
				if d.New {
					fresh++
				}
				if d.Invoice.ID != inv.ID || d.Invoice.Status != ledger.StatusSettled {
					t.Errorf("deposit = %+v", d.Invoice)
				}
			})
		}
		wg.Wait()
		if credited != 1 || fresh != 0 {
			t.Fatalf("credited %d times, recorded %d more times", credited, fresh)
		}
		if b := f.balance(t); b.AvailableMsat != 1_000+5_000_000 || b.ReceivedMsat != 1_000+5_000_000 {
			t.Fatalf("balance = %+v", b)
		}
		got, err := f.ledger.Invoice(ctx, f.wallet, inv.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.BitcoinOutput == nil || got.BitcoinOutput.BlockHeight == nil || *got.BitcoinOutput.BlockHeight != 700 ||
			got.BitcoinOutput.Confirmations != 1 || got.BitcoinOutput.TxID != "ab12" || got.BitcoinOutput.Vout != 1 ||
			got.AmountReceivedMsat == nil || *got.AmountReceivedMsat != 5_000_000 {
			t.Fatalf("settled deposit = %+v %+v", got, got.BitcoinOutput)
		}
		pending, err := f.ledger.PendingDeposits(ctx)
		if err != nil || len(pending) != 0 {
			t.Fatalf("pending deposits = %v, %v", pending, err)
		}
		f.check(t)
	})
}

// An output first seen by many at once (the chain's stream, an admin's
// sync, another replica) is recorded by exactly one of them; the others
// find it recorded, and none fails.
func TestDepositFirstSeenByManyAtOnce(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		ctx := context.Background()
		f := newFixture(t, db, 1_000)
		other := f.another(t)
		for round := range 100 {
			out := ledger.BitcoinOutput{TxID: "cd34", Vout: uint32(round), Address: "bcrt1qdeposit", AmountSat: 1_000}
			var wg sync.WaitGroup
			var mu sync.Mutex
			fresh, ids := 0, map[string]bool{}
			start := make(chan struct{})
			for i := range 8 {
				led := f.ledger
				if i%2 == 1 {
					led = other
				}
				wg.Go(func() {
					<-start
					d, err := led.Deposit(ctx, f.wallet, out, false)
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					defer mu.Unlock()
					ids[d.Invoice.ID] = true
					if d.New {
						fresh++
					}
				})
			}
			close(start)
			wg.Wait()
			if t.Failed() {
				t.FailNow()
			}
			if fresh != 1 || len(ids) != 1 {
				t.Fatalf("output %d: recorded %d times, as %d invoices", round, fresh, len(ids))
			}
		}
		pending, err := f.ledger.PendingDeposits(ctx)
		if err != nil || len(pending) != 100 {
			t.Fatalf("pending deposits = %d, %v", len(pending), err)
		}
		f.check(t)
	})
}
