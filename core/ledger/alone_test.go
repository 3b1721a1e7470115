package ledger_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/lib/poll"
)

// A ledger alone on its PostgreSQL pays its batches without up-front
// locks, and its budgeted payments (payInternal, which moves money between
// two wallets outside the batches) wait for its batch instead of
// deadlocking with it: alice and bob pay each other in batches while
// alice also pays bob with a budgeted key, all at once; every payment is
// paid, none is undone by a deadlock, the books are exact. A second
// replica joining is seen within a poll, and from then on both lock up
// front; once it leaves, the first is alone again.
func TestAloneBatchesSkipTheirLocks(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f := newFixture(t, db, 10_000_000)
	a := f.ledger
	if a.Alone() {
		t.Fatal("a ledger that has not joined counts itself alone")
	}
	if err := a.Join(ctx); err != nil {
		t.Fatal(err)
	}
	go a.FollowReplicas(ctx)
	if !a.Alone() {
		t.Fatal("the one ledger that joined does not count itself alone")
	}
	bob := f.funded(t, "bob", 10_000_000)
	k := newBudget(t, db, 1_000_000, budget.Yearly, time.Now)

	const each = 60
	var wg sync.WaitGroup
	errs := make(chan error, 3*each)
	pay := func(led *ledger.Service, from, to string, budgeted bool) {
		inv, err := led.CreateInvoice(ctx, to, ledger.NewInvoice{AmountMsat: 1_000})
		if err != nil {
			t.Fatal(err)
		}
		req := ledger.PayRequest{Input: inv.LnInvoice.Bolt11}
		if budgeted {
			req = k.req(inv.LnInvoice.Bolt11)
		}
		wg.Go(func() {
			if _, _, err := led.Pay(ctx, from, req); err != nil {
				errs <- fmt.Errorf("%s → %s (budgeted %v): %w", from, to, budgeted, err)
			}
		})
	}
	for range each {
		pay(a, f.wallet, bob, false)
		pay(a, bob, f.wallet, false)
		pay(a, f.wallet, bob, true)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if n := ledger.OwnDeadlocks(a); n != 0 {
		t.Errorf("PostgreSQL undid %d batches or payments to break deadlocks", n)
	}
	if ledger.UnlockedBatches(a) == 0 {
		t.Error("no batch went without its up-front locks")
	}
	if got, want := f.balance(t).AvailableMsat, int64(10_000_000-each*1_000); got != want {
		t.Errorf("alice holds %d msat, want %d", got, want)
	}
	f.check(t)

	// A second replica joins: both lock up front, within a poll.
	bctx, leave := context.WithCancel(ctx)
	b := ledger.New(storetest.Replica(t, db), f.node, nil, ledger.Config{}, nil)
	if err := b.Join(bctx); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); b.FollowReplicas(bctx) }()
	if b.Alone() {
		t.Error("a ledger joining another counts itself alone")
	}
	if a.Alone() {
		t.Error("a ledger still counts itself alone once another has joined (its grace is past)")
	}
	before := ledger.UnlockedBatches(a)
	pay(a, f.wallet, bob, false)
	wg.Wait()
	if n := ledger.UnlockedBatches(a); n != before {
		t.Errorf("%d batches without up-front locks beside another replica", n-before)
	}
	// It leaves: the first is alone again.
	leave()
	<-done
	poll.Until(t, 10*time.Second, func() error {
		if !a.Alone() {
			return errors.New("not alone yet")
		}
		return nil
	})
	// Its mark's session is killed: it locks up front until it has made
	// its mark anew, then is alone again.
	pid := ledger.PresencePID(a)
	if _, err := db.W.ExecContext(ctx, "SELECT pg_terminate_backend(?)", pid); err != nil {
		t.Fatal(err)
	}
	poll.Until(t, 10*time.Second, func() error {
		if a.Alone() {
			return errors.New("still alone with its mark gone")
		}
		return nil
	})
	poll.Until(t, 10*time.Second, func() error {
		if !a.Alone() {
			return errors.New("not alone again yet")
		}
		return nil
	})
}
