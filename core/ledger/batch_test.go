package ledger_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
)

// TestConcurrentPaymentsGetTheirOwnAnswers pays, all at once, payments of
// every outcome from one payer: some it can afford, more than it can, some
// with the wrong amount, several of one invoice. On PostgreSQL they go in
// batches (fewer than the payments); on either database each payment gets
// its own answer, a refused one moves nothing, and the ledger balances.
func TestConcurrentPaymentsGetTheirOwnAnswers(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db, 15_000)
		bob, err := wallet.NewService(db).Ensure(ctx, "bob")
		if err != nil {
			t.Fatal(err)
		}
		invoice := func(amount int64) string {
			inv, err := f.ledger.CreateInvoice(ctx, bob.ID, ledger.NewInvoice{AmountMsat: amount})
			if err != nil {
				t.Fatal(err)
			}
			return inv.LnInvoice.Bolt11
		}
		type payment struct {
			req ledger.PayRequest
			err error
		}
		var payments []*payment
		for range 20 { // 1,000 msat each: 15 are paid (14 with the shared one), the rest refused
			payments = append(payments, &payment{req: ledger.PayRequest{Input: invoice(1_000)}})
		}
		wrong := int64(999)
		for range 5 {
			payments = append(payments, &payment{req: ledger.PayRequest{Input: invoice(1_000), AmountMsat: &wrong}})
		}
		shared := invoice(1_000)
		for range 5 {
			payments = append(payments, &payment{req: ledger.PayRequest{Input: shared}})
		}
		before, paying := ledger.OwnBatches(f.ledger), f.ledger.PayingTime()
		var wg sync.WaitGroup
		start := make(chan struct{})
		for _, p := range payments {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, _, p.err = f.ledger.Pay(ctx, f.wallet, p.req)
			}()
		}
		close(start)
		wg.Wait()

		var paid, poor, sharedPaid int
		for i, p := range payments {
			switch {
			case i < 20 && p.err == nil:
				paid++
			case i < 20 && errors.Is(p.err, ledger.ErrInsufficientFunds):
				poor++
			case i < 20:
				t.Errorf("payment %d: %v", i, p.err)
			case i < 25 && !errors.Is(p.err, ledger.ErrAmountMismatch):
				t.Errorf("payment %d of the wrong amount: %v, want ErrAmountMismatch", i, p.err)
			case i >= 25 && p.err == nil:
				sharedPaid++
			case i >= 25 && !errors.Is(p.err, ledger.ErrInvoiceRace) && !errors.Is(p.err, ledger.ErrInvoicePaid) &&
				!errors.Is(p.err, ledger.ErrInsufficientFunds):
				t.Errorf("payment %d of the shared invoice: %v", i, p.err)
			}
		}
		if sharedPaid > 1 {
			t.Errorf("the shared invoice was paid %d times", sharedPaid)
		}
		if paid+sharedPaid != 15 || poor != 20-paid {
			t.Errorf("%d paid, %d of them the shared invoice, %d refused for funds; want 15 paid", paid+sharedPaid, sharedPaid, poor)
		}
		if b := f.balance(t); b != (wallet.Balance{ReceivedMsat: 15_000, SentMsat: 15_000}) {
			t.Errorf("payer = %+v", b)
		}
		f.check(t)
		// The time they spent being paid, at once, is at least each
		// one's: the streams read it to give way to payments.
		if spent := f.ledger.PayingTime() - paying; spent <= 0 {
			t.Errorf("30 payments spent %v being paid", spent)
		}
		if db.Dialect == store.Postgres {
			if n := ledger.OwnBatches(f.ledger) - before; n >= int64(len(payments)) || n == 0 {
				t.Errorf("%d payments went in %d batches", len(payments), n)
			}
		}
	})
}

// TestPaymentCancelledBeforeItsBatchWritesNothing checks that a payment
// whose context ends while it waits is refused and moves nothing.
func TestPaymentCancelledBeforeItsBatchWritesNothing(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, 5_000)
		bob, err := wallet.NewService(db).Ensure(context.Background(), "bob")
		if err != nil {
			t.Fatal(err)
		}
		inv, err := f.ledger.CreateInvoice(context.Background(), bob.ID, ledger.NewInvoice{AmountMsat: 1_000})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, _, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: inv.LnInvoice.Bolt11}); !errors.Is(err, context.Canceled) {
			t.Fatalf("Pay = %v, want context.Canceled", err)
		}
		if b := f.balance(t); b.AvailableMsat != 5_000 {
			t.Fatalf("payer = %+v", b)
		}
		f.check(t)
	})
}
