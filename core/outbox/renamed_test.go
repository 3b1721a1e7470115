package outbox_test

import (
	"context"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// settleWithEvent settles inv through idb in one statement that takes the
// next event id, as the ledger does, and returns the id.
func settleWithEvent(t *testing.T, db *store.DB, idb bun.IDB, inv *ledger.Invoice) int64 {
	t.Helper()
	var id int64
	if err := idb.NewRaw("UPDATE invoices SET status = 'Settled', event_id = "+db.EventID()+" WHERE id = ? RETURNING event_id",
		inv.ID).Scan(context.Background(), &id); err != nil {
		t.Fatal(err)
	}
	return id
}

// heldBelow advances box by hand ten times, and fails t if its head
// reaches id, an event still in flight (what says why).
func heldBelow(t *testing.T, box *outbox.Outbox, id int64, what string) {
	t.Helper()
	for range 10 {
		if err := outbox.Advance(context.Background(), box); err != nil {
			t.Fatal(err)
		}
		if head, _ := box.Head(); head >= id {
			t.Fatalf("head %d while event %d is in flight %s", head, id, what)
		}
	}
}

// handBox returns an outbox on PostgreSQL that is not running (a test
// advances it by hand), its head, and n Pending invoices to settle.
func handBox(t *testing.T, n int) (db *store.DB, box *outbox.Outbox, start int64, invs []*ledger.Invoice) {
	t.Helper()
	db = storetest.Postgres(t)
	ctx := context.Background()
	f := newFixture(t, db)
	box, err := outbox.New(ctx, db, outbox.Config{})
	if err != nil {
		t.Fatal(err)
	}
	start, _ = box.Head()
	for range n {
		inv, err := f.ledger.CreateInvoice(ctx, f.bob, ledger.NewInvoice{AmountMsat: 1000})
		if err != nil {
			t.Fatal(err)
		}
		invs = append(invs, inv)
	}
	return db, box, start, invs
}

// A session renamed between its transactions (a pooler sets each client's
// application_name on the connection it lends) is named a writer again by
// the next event id it takes, so the head still waits for its transaction.
func TestRenamedWriterIsWaitedFor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, box, _, invs := handBox(t, 3)
	conn, err := db.W.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	settleWithEvent(t, db, conn, invs[0])
	if _, err := conn.ExecContext(ctx, "SET application_name = 'pooler'"); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // committed below
	waiting := settleWithEvent(t, db, tx, invs[1])
	last := settleWithEvent(t, db, db.W, invs[2]) // committed by another session
	heldBelow(t, box, waiting, "in a renamed session")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	advanceTo(t, box, last)
}

// A transaction whose naming as a writer was undone (a savepoint rolled
// back, taking its event id with it) is named again by the next event id
// it takes, though it has its transaction id by then: a hearth_event_id
// that named only transactions without one would leave it unnamed, and
// the head would pass its event.
func TestWriterNamedAgainAfterASavepointRolledBack(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, box, start, invs := handBox(t, 3)
	tx, err := db.W.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback() //nolint:errcheck // committed below
	for _, q := range []string{"SELECT pg_current_xact_id()", "SAVEPOINT first"} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	settleWithEvent(t, db, tx, invs[0]) // undone below
	if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT first"); err != nil {
		t.Fatal(err)
	}
	waiting := settleWithEvent(t, db, tx, invs[1])
	last := settleWithEvent(t, db, db.W, invs[2]) // committed by another session
	heldBelow(t, box, waiting, "after a savepoint rolled back")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	advanceTo(t, box, last)
	if evs := readAll(t, box, start, outbox.Filter{}); len(evs) != 2 || evs[0].SubjectID != invs[1].ID || evs[1].SubjectID != invs[2].ID {
		t.Fatalf("events after the commit = %+v", evs)
	}
}

// advanceTo advances box by hand until its head reaches want, for ten
// seconds at most.
func advanceTo(t *testing.T, box *outbox.Outbox, want int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for head, _ := box.Head(); head < want; head, _ = box.Head() {
		if time.Now().After(deadline) {
			t.Fatalf("head %d after every commit, want %d", head, want)
		}
		if err := outbox.Advance(context.Background(), box); err != nil {
			t.Fatal(err)
		}
	}
}
