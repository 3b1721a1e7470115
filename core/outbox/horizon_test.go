package outbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// On PostgreSQL a transaction that took an event id and has not committed
// holds the head below that id, even when a later id has committed:
// otherwise a consumer would read the later one, move past, and never see
// the earlier. Once it commits, both are read, in id order.
func TestHeadWaitsForAnEarlierIDStillInFlight(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, box, start, invs := handBox(t, 2)
	early, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer early.Rollback() //nolint:errcheck // committed below
	waiting := settleWithEvent(t, db, early, invs[0])
	last := settleWithEvent(t, db, db.W, invs[1]) // committed
	heldBelow(t, box, waiting, "")
	if err := early.Commit(); err != nil {
		t.Fatal(err)
	}
	advanceTo(t, box, last)
	evs := readAll(t, box, start, outbox.Filter{})
	if len(evs) != 2 || evs[0].SubjectID != invs[0].ID || evs[1].SubjectID != invs[1].ID {
		t.Fatalf("events after both commits = %+v", evs)
	}
}

// On PostgreSQL another replica hears of an event at once (NOTIFY), not
// at its next poll.
func TestReplicaHearsOfEventsAtOnce(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	f := newFixture(t, db) // its outbox is woken by the ledger's bus
	ctx, cancel := context.WithCancel(context.Background())
	replica, err := outbox.New(ctx, storetest.Replica(t, db), outbox.Config{Poll: time.Hour, Wake: event.NewBus()})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); replica.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	start, _ := replica.Head()
	f.payInternal(t, 1000)
	waitHead(t, replica, start+2)
}

// A transaction that writes no events holds the head back for a few
// readings at most, however long it runs: the readings that wait for it on
// the snapshot alone ask, after writersAfter of them, which transactions
// write events, and wait for those only.
func TestLongTransactionWithoutEventsDoesNotHoldTheHead(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, f, box := handAdvanced(t)
	start, _ := box.Head()
	other, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Rollback() //nolint:errcheck // never committed
	if _, err := other.ExecContext(ctx, "SELECT pg_current_xact_id()"); err != nil {
		t.Fatal(err)
	}
	inv, err := f.ledger.CreateInvoice(ctx, f.bob, ledger.NewInvoice{AmountMsat: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var id int64
	if err := db.W.NewRaw("UPDATE invoices SET status = 'Settled', event_id = "+db.EventID()+" WHERE id = ? RETURNING event_id",
		inv.ID).Scan(ctx, &id); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if err := outbox.Advance(ctx, box); err != nil {
			t.Fatal(err)
		}
	}
	if head, _ := box.Head(); head < id {
		t.Fatalf("head %d with a transaction without events running, want %d (from %d)", head, id, start)
	}
}

// A writer of events whose transaction id is the newest given out, still
// running, is in no snapshot's list of running transactions (their xmax is
// one past the latest transaction to end): the head must wait for it all
// the same.
func TestHeadWaitsForTheNewestTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, f, box := handAdvanced(t)
	start, _ := box.Head()
	inv, err := f.ledger.CreateInvoice(ctx, f.bob, ledger.NewInvoice{AmountMsat: 1000})
	if err != nil {
		t.Fatal(err)
	}
	early, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer early.Rollback() //nolint:errcheck // committed below
	if _, err := early.NewUpdate().Table("invoices").Set("status = 'Settled'").Set("event_id = "+db.EventID()).
		Where("id = ?", inv.ID).Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for range 10 {
		if err := outbox.Advance(ctx, box); err != nil {
			t.Fatal(err)
		}
		if head, _ := box.Head(); head > start {
			t.Fatalf("head %d while event %d is in flight", head, start+1)
		}
	}
	if err := early.Commit(); err != nil {
		t.Fatal(err)
	}
	for head, _ := box.Head(); head < start+1; head, _ = box.Head() {
		if err := outbox.Advance(ctx, box); err != nil {
			t.Fatal(err)
		}
	}
	if evs := readAll(t, box, start, outbox.Filter{}); len(evs) != 1 || evs[0].SubjectID != inv.ID {
		t.Fatalf("events after the commit = %+v", evs)
	}
}

// A reading of the horizon writes nothing: its mark is the next
// transaction id, read without taking one (readings that took one wrote a
// commit each, up to a hundred a second under load). The mark is above
// every transaction id given out before the reading, and not above the
// first one given out after it.
func TestHorizonReadingTakesNoTransactionID(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	ctx := context.Background()
	f := newFixture(t, db)
	f.payInternal(t, 1000) // the sequence moved: the reading takes a mark
	xid := func(q bun.IDB) uint64 {
		var x uint64
		if err := q.QueryRowContext(ctx, "SELECT pg_current_xact_id()::text::bigint").Scan(&x); err != nil {
			t.Fatal(err)
		}
		return x
	}
	before := xid(db.W)
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // nothing to commit
	var mark uint64
	if err := tx.QueryRowContext(ctx, "SELECT mark_xid::bigint FROM hearth_events_horizon(0, false)").Scan(&mark); err != nil {
		t.Fatal(err)
	}
	var own *string
	if err := tx.QueryRowContext(ctx, "SELECT pg_current_xact_id_if_assigned()::text").Scan(&own); err != nil {
		t.Fatal(err)
	}
	if own != nil {
		t.Fatalf("the reading took transaction id %s", *own)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	after := xid(db.W)
	if mark <= before || mark > after {
		t.Fatalf("mark %d, want above %d (given out before the reading) and at most %d (after it)", mark, before, after)
	}
}

// A reading that takes its mark while no transaction runs settles it
// itself, through the snapshot it takes after the mark: at low rates the
// head moves in one reading, not in two a retry apart.
func TestQuietReadingSettlesItsOwnMark(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, f, box := handAdvanced(t)
	// The transactions of other tests, in any database of the cluster,
	// hold every snapshot's xmin back while they run: the test waits for a
	// reading taken in a quiet moment, which on a busy machine (make test's
	// other packages, a benchmark beside it) can be a minute away.
	deadline := time.Now().Add(2 * time.Minute)
	for tries := 1; ; tries++ {
		f.payInternal(t, 1000)
		var last int64
		if err := db.W.NewRaw("SELECT max(event_id) FROM payments").Scan(ctx, &last); err != nil {
			t.Fatal(err)
		}
		if err := outbox.Advance(ctx, box); err != nil {
			t.Fatal(err)
		}
		head, _ := box.Head()
		if head >= last {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %d payments, each followed by one reading, the head is %d, below the last event %d", tries, head, last)
		}
	}
}

// handAdvanced returns a PostgreSQL database, its fixture, and an outbox
// of it that is not running: a test advances it by hand.
func handAdvanced(t *testing.T) (*store.DB, *fixture, *outbox.Outbox) {
	t.Helper()
	db := storetest.Postgres(t)
	f := newFixture(t, db)
	box, err := outbox.New(context.Background(), db, outbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return db, f, box
}
