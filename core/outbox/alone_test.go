package outbox_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/lib/poll"
)

// A replica alone on its PostgreSQL tells nobody of its events (NOTIFY is
// a commit, and a wake-up of every listener, its own included); once
// another replica is there, it tells again at once.
func TestAloneReplicaNotifiesNobody(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	ctx, cancel := context.WithCancel(context.Background())
	// A ledger whose bus wakes no outbox: the invoices it makes, and the
	// events written beside it, wake this test's outbox only when it says.
	l := ledger.New(db, &testNode{decoded: map[string]*ledger.DecodedInvoice{}}, event.NewBus(), ledger.Config{}, nil)
	bob, err := wallet.NewService(db).Ensure(ctx, "bob")
	if err != nil {
		t.Fatal(err)
	}
	var invs []*ledger.Invoice
	for range 4 {
		inv, err := l.CreateInvoice(ctx, bob.ID, ledger.NewInvoice{AmountMsat: 1000})
		if err != nil {
			t.Fatal(err)
		}
		invs = append(invs, inv)
	}
	var heard atomic.Int64
	w := db.Watch(outbox.Topic, func() { heard.Add(1) })
	t.Cleanup(w.Close)
	poll.Until(t, 10*time.Second, func() error {
		if !w.Live() {
			return errors.New("not listening yet")
		}
		return nil
	})
	before := heard.Load()

	var alone atomic.Bool
	alone.Store(true)
	wake := event.NewBus()
	box, err := outbox.New(ctx, db, outbox.Config{Poll: time.Hour, Wake: wake, Alone: alone.Load})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); box.Run(ctx) }() //nolint:errcheck // ends with ctx
	t.Cleanup(func() { cancel(); <-done })
	write := func(inv *ledger.Invoice) {
		t.Helper()
		id := settleWithEvent(t, db, db.W, inv)
		wake.Publish(ctx, event.Event{Type: "kick"})
		waitHead(t, box, id)
	}

	// Alone: events written and read, nobody told.
	for _, inv := range invs[:3] {
		write(inv)
	}
	// Another replica: the next event is told, and it is the first.
	alone.Store(false)
	write(invs[3])
	poll.Until(t, 10*time.Second, func() error {
		if heard.Load() == before {
			return errors.New("no notification yet")
		}
		return nil
	})
	if got := heard.Load() - before; got != 1 {
		t.Fatalf("%d notifications, want the one after another replica came", got)
	}
}
