package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/lib/poll"
)

// deadlocks is PostgreSQL's count of deadlocks broken in the database.
func deadlocks(t *testing.T, db *store.DB) int64 {
	t.Helper()
	var n int64
	if _, err := db.W.ExecContext(context.Background(), "SELECT pg_stat_clear_snapshot()"); err != nil {
		t.Fatal(err)
	}
	if err := db.W.QueryRowContext(context.Background(),
		"SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// batchRun is one batch of payments inside the instance, sent when all
// have queued.
type batchRun struct {
	mu      sync.Mutex
	wg      sync.WaitGroup
	answers map[string]error
	n       int // payments added
}

func (r *batchRun) add(name string, pay func() error) {
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		err := pay()
		r.mu.Lock()
		r.answers[name] = err
		r.mu.Unlock()
	}()
}

// batch queues the payments of pays in one batch, runs meanwhile (given
// the function that sends the batch and returns once it is answered), and
// returns each payment's answer by name.
func batch(t *testing.T, f *fixture, pays func(r *batchRun), meanwhile func(send func())) map[string]error {
	t.Helper()
	queued, release := ledger.HoldBatches(f.ledger)
	r := &batchRun{answers: map[string]error{}}
	pays(r)
	poll.Until(t, 10*time.Second, func() error {
		if n := queued(); n != r.n-len(r.answers) {
			return fmt.Errorf("%d queued", n)
		}
		return nil
	})
	meanwhile(release)
	r.wg.Wait()
	return r.answers
}

// A batch of payments inside the instance on PostgreSQL, with a failing
// payment of every kind among valid ones: a text that jsonb cannot hold
// (NUL, in the invoice text and in the idempotency key, which fail the
// batch's statement as a whole), a constraint violation (a payment id
// already taken), a payment whose context ends while it waits, and a
// deadlock between the batch and a writer outside it. Only the bad
// payments fail; every valid one is paid once; the ledger balances.
func TestBatchKeepsEachPaymentsFailureItsOwn(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	ctx := context.Background()
	f := newFixture(t, db, 100_000)
	bob, err := wallet.NewService(db).Ensure(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	invoice := func() *ledger.Invoice {
		inv, err := f.ledger.CreateInvoice(ctx, bob.ID, ledger.NewInvoice{AmountMsat: 1_000})
		if err != nil {
			t.Fatal(err)
		}
		return inv
	}
	first, _, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: invoice().LnInvoice.Bolt11})
	if err != nil {
		t.Fatal(err)
	}
	paid := 1
	valid := func(r *batchRun, name string, inv *ledger.Invoice) {
		r.add(name, func() error {
			_, _, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: inv.LnInvoice.Bolt11})
			return err
		})
	}
	expect := func(answers map[string]error, bad ...string) {
		t.Helper()
		for name, err := range answers {
			switch {
			case name == "cancelled":
				if !errors.Is(err, context.Canceled) {
					t.Errorf("%s: %v, want context.Canceled", name, err)
				}
			case slices.Contains(bad, name):
				if err == nil {
					t.Errorf("%s: paid", name)
				}
			case err != nil:
				t.Errorf("%s: %v", name, err)
			default:
				paid++
			}
		}
		if b := f.balance(t); b.SentMsat != int64(paid)*1_000 {
			t.Errorf("payer = %+v, want %d sent", b, paid*1_000)
		}
		f.check(t)
	}

	// Bad text, a taken id, a cancelled payment.
	taken := invoice()
	cctx, cancel := context.WithCancel(ctx)
	answers := batch(t, f, func(r *batchRun) {
		r.n = 8
		for i := range 4 {
			valid(r, fmt.Sprint("valid ", i), invoice())
		}
		r.add("NUL in the text", func() error {
			return ledger.PayRaw(ctx, f.ledger, "lnbcrt1\x00x", f.wallet, "nul-text", "")
		})
		nulKey := invoice()
		r.add("NUL in the key", func() error {
			return ledger.PayRaw(ctx, f.ledger, nulKey.LnInvoice.Bolt11, f.wallet, "nul-key", "k\x00")
		})
		r.add("id taken", func() error {
			return ledger.PayRaw(ctx, f.ledger, taken.LnInvoice.Bolt11, f.wallet, first.ID, "")
		})
		inv := invoice()
		r.add("cancelled", func() error {
			_, _, err := f.ledger.Pay(cctx, f.wallet, ledger.PayRequest{Input: inv.LnInvoice.Bolt11})
			return err
		})
	}, func(send func()) {
		cancel()
		send()
	})
	expect(answers, "NUL in the text", "NUL in the key", "id taken")
	if got, err := f.ledger.Invoice(ctx, "", taken.ID); err != nil || got.Status != ledger.StatusPending {
		t.Errorf("the invoice paid with a taken id = %+v, %v", got, err)
	}

	// A taken id again, in a batch that a writer outside it deadlocks
	// with: the writer takes the row of one of the batch's invoices, then,
	// once the batch waits for it, the lock that batches take of the payer
	// (as ledger.payInternal does), which the batch holds.
	var invs []*ledger.Invoice
	for range 6 {
		invs = append(invs, invoice())
	}
	before := deadlocks(t, db)
	answers = batch(t, f, func(r *batchRun) {
		r.n = len(invs) + 1
		for i, inv := range invs {
			valid(r, fmt.Sprint("valid ", i), inv)
		}
		r.add("id taken", func() error {
			return ledger.PayRaw(ctx, f.ledger, taken.LnInvoice.Bolt11, f.wallet, first.ID, "")
		})
	}, func(send func()) {
		tx, err := db.W.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback() //nolint:errcheck // rolled back below
		if _, err := tx.ExecContext(ctx, "UPDATE invoices SET updated_at = updated_at WHERE id = ?", invs[3].ID); err != nil {
			t.Fatal(err)
		}
		var pid int
		if err := tx.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
			t.Fatal(err)
		}
		sent := make(chan struct{})
		go func() { defer close(sent); send() }()
		poll.Until(t, 10*time.Second, func() error {
			var n int
			err := db.W.QueryRowContext(ctx, waitingFor, pid).Scan(&n)
			if err == nil && n == 0 {
				err = errors.New("the batch does not wait for the outside writer yet")
			}
			return err
		})
		// Either side may be the one PostgreSQL undoes; the writer then
		// rolls back, and the batch (or its retry) goes on.
		_, err = tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(1213355080, hashtext(?))", f.wallet)
		t.Logf("the outside writer's second lock: %v", err)
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		<-sent
	})
	expect(answers, "id taken")
	poll.Until(t, 10*time.Second, func() error {
		if n := deadlocks(t, db); n == before {
			return errors.New("no deadlock counted yet")
		}
		return nil
	})
}

// A payment input with a NUL is refused as unsupported input on both
// databases: on PostgreSQL, whose batch cannot carry it, not as an error of
// the server.
func TestInputWithNULIsUnsupported(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		f := newFixture(t, db, 1_000)
		_, _, err := f.ledger.Pay(context.Background(), f.wallet, ledger.PayRequest{Input: "lnbcrt1\x00x"})
		if !errors.Is(err, ledger.ErrUnsupportedInput) {
			t.Fatalf("Pay = %v, want ErrUnsupportedInput", err)
		}
		f.check(t)
	})
}
