package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/lib/poll"
)

// waitingFor counts the sessions that wait for a lock of the session whose
// process id is its argument; waitingBehind, those that wait for a session
// that waits for it.
const (
	waitingFor    = `SELECT count(*) FROM pg_stat_activity WHERE ?::INT = ANY (pg_blocking_pids(pid))`
	waitingBehind = `SELECT count(*) FROM pg_stat_activity AS a, pg_stat_activity AS b
	WHERE ?::INT = ANY (pg_blocking_pids(a.pid)) AND a.pid = ANY (pg_blocking_pids(b.pid))`
)

// Two replicas' batches over the same wallets, on one PostgreSQL, set up
// so that batches locking wallets payment by payment deadlock: replica A's
// batch pays W0→W1 and then W2→W3, and waits for W2, which a writer outside
// holds; replica B's batch pays W3→W4 and then W1→W0. When the writer lets
// go, A wants W3, which B holds, and B wants W1, which A holds. Batches that
// take their wallets' locks up front in one order wait for each other
// instead: no payment is undone, and all are paid. (B's invoices are made while A's
// batch holds its locks: making an invoice or a payment of a wallet never
// waits for a batch.)
func TestBatchesOfTwoReplicasNeverDeadlock(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	ctx := context.Background()
	f := newFixture(t, db, 100_000)
	a := f.ledger
	b := ledger.New(storetest.Replica(t, db), f.node, nil, ledger.Config{}, nil)
	w := []string{f.wallet}
	for i := 1; i <= 4; i++ {
		w = append(w, f.funded(t, fmt.Sprint("w", i), 100_000))
	}
	invoice := func(into string) string {
		inv, err := a.CreateInvoice(ctx, into, ledger.NewInvoice{AmountMsat: 1_000})
		if err != nil {
			t.Fatal(err)
		}
		return inv.LnInvoice.Bolt11
	}
	var mu sync.Mutex
	var errs []error
	var paying sync.WaitGroup
	pay := func(led *ledger.Service, from, to string) {
		bolt11 := invoice(to)
		paying.Add(1)
		go func() {
			defer paying.Done()
			_, _, err := led.Pay(ctx, from, ledger.PayRequest{Input: bolt11})
			mu.Lock()
			errs = append(errs, err)
			mu.Unlock()
		}()
	}
	// send holds led's batches while pays queue their payments, then sends
	// them as one batch, and waits until it waits (as waiting says, of the
	// session pid) or has been answered.
	send := func(led *ledger.Service, waiting string, pid int, pays func()) chan struct{} {
		queued, release := ledger.HoldBatches(led)
		pays()
		poll.Until(t, 10*time.Second, func() error {
			if n := queued(); n != 2 {
				return fmt.Errorf("%d queued", n)
			}
			return nil
		})
		sent := make(chan struct{})
		go func() { defer close(sent); release() }()
		poll.Until(t, 10*time.Second, func() error {
			select {
			case <-sent:
				return nil
			default:
			}
			var n int
			if err := db.W.QueryRowContext(ctx, waiting, pid).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return errors.New("the batch does not wait yet")
			}
			return nil
		})
		return sent
	}

	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // rolled back below
	if _, err := tx.ExecContext(ctx, "UPDATE wallets SET updated_at = updated_at WHERE id = ?", w[2]); err != nil {
		t.Fatal(err)
	}
	var pid int
	if err := tx.QueryRowContext(ctx, "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	sentA := send(a, waitingFor, pid, func() { pay(a, w[0], w[1]); pay(a, w[2], w[3]) })
	sentB := send(b, waitingBehind, pid, func() { pay(b, w[3], w[4]); pay(b, w[1], w[0]) })
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	<-sentA
	<-sentB
	paying.Wait()

	for _, err := range errs {
		if err != nil {
			t.Errorf("payment: %v", err)
		}
	}
	if n := ledger.OwnDeadlocks(a) + ledger.OwnDeadlocks(b); n != 0 {
		t.Errorf("PostgreSQL undid %d batches or payments to break deadlocks", n)
	}
	for i, want := range []int64{100_000, 100_000, 99_000, 100_000, 101_000} {
		wl, err := wallet.NewService(db).Get(ctx, w[i])
		if err != nil {
			t.Fatal(err)
		}
		if wl.Balance.AvailableMsat != want {
			t.Errorf("W%d holds %d msat, want %d", i, wl.Balance.AvailableMsat, want)
		}
	}
	f.check(t)
}
