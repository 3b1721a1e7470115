package outbox_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// Pruning deletes the events older than the cutoff but the newest, and a
// stream resumed from a pruned position is told to read its records
// again (a reset event carrying the last pruned id), then goes on.
func TestPrunedPositionGetsAReset(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		f.payInternal(t, 1000)
		f.payInternal(t, 2000)
		head := f.waitHead(t, f.box, f.fundingEvent+4)
		n, err := f.box.Prune(ctx, time.Now().Add(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		left := readAll(t, f.box, 0, outbox.Filter{})
		if n != 4 || len(left) != 1 || left[0].ID != head {
			t.Fatalf("pruned %d, left %+v; want all but the newest, %d", n, left, head)
		}
		pruned, err := f.box.Pruned(ctx)
		if err != nil || pruned != head-1 {
			t.Fatalf("Pruned = %d, %v; want %d", pruned, err, head-1)
		}

		hub := runHub(t, f.box)
		c := newClient()
		stop := serve(hub, c, outbox.Stream{WalletID: f.bob, After: f.fundingEvent, Resume: true})
		waitClients(t, hub, 1)
		f.payInternal(t, 3000)
		got := c.waitEvents(t, 2)
		if err := stop(); err != nil {
			t.Fatal(err)
		}
		if got[0].typ != outbox.ResetEvent || got[0].id != pruned || !strings.Contains(got[0].data, "read the wallet's invoices and payments again") {
			t.Fatalf("first event %+v, want a reset", got[0])
		}
		if got[1].typ != "invoice.settled" || got[1].id <= head {
			t.Fatalf("after the reset: %+v", got[1])
		}
	})
}

// A consumer that dies before saving its position gets the events after
// the saved one again (at least once); one that saved does not.
func TestCursorResumesFromWhatItSaved(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		cur, err := f.box.Cursor(ctx, "test")
		if err != nil {
			t.Fatal(err)
		}
		f.payInternal(t, 1000)
		evs, err := cur.Next(ctx, outbox.Filter{}, 10)
		if err != nil || len(evs) != 2 {
			t.Fatalf("Next = %+v, %v", evs, err)
		}
		for _, e := range evs {
			if err := cur.Done(ctx, e.ID); err != nil {
				t.Fatal(err)
			}
		}
		// Dies here: a new process reads the cursor again.
		again, err := f.box.Cursor(ctx, "test")
		if err != nil {
			t.Fatal(err)
		}
		if again.Last() != evs[0].ID-1 {
			t.Fatalf("after a crash the cursor is at %d, want %d", again.Last(), evs[0].ID-1)
		}
		if err := cur.Save(ctx); err != nil {
			t.Fatal(err)
		}
		saved, err := f.box.Cursor(ctx, "test")
		if err != nil || saved.Last() != evs[1].ID {
			t.Fatalf("after Save the cursor is at %d (%v), want %d", saved.Last(), err, evs[1].ID)
		}
	})
}
