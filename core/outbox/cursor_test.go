package outbox_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// skipAll reads no event: every event moves the position past it.
var skipAll = outbox.Nothing

// savedPosition reads what the database holds of consumer name's position.
func savedPosition(t *testing.T, db *store.DB, name string) int64 {
	t.Helper()
	var last int64
	if err := db.R.NewSelect().Table("event_cursors").Column("last_id").Where("name = ?", name).
		Scan(context.Background(), &last); err != nil {
		t.Fatal(err)
	}
	return last
}

// A consumer's position is saved while it waits, once per SaveEvery at
// most: under load the head moves forty times a second, and a save each
// time would be a commit each time. Once its SaveEvery has passed, a
// waiting consumer's position is saved.
func TestCursorSavesOncePerSaveEvery(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		f := newFixture(t, db)
		ctx := context.Background()

		// SaveEvery an hour: the position moves past the funding event,
		// and Next waits without saving it.
		slow := f.open(t, outbox.Config{SaveEvery: time.Hour})
		cur, err := slow.CursorFrom(ctx, "slow", 0)
		if err != nil {
			t.Fatal(err)
		}
		nctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			cur.Next(nctx, skipAll, 10) //nolint:errcheck // ends with nctx
		}()
		f.payInternal(t, 1000)
		waitHead(t, slow, f.fundingEvent+2)
		cancel()
		<-done
		if cur.Last() < f.fundingEvent {
			t.Fatalf("the position is %d, want past the funding event %d", cur.Last(), f.fundingEvent)
		}
		if got := savedPosition(t, db, "slow"); got != 0 {
			t.Fatalf("saved at %d within its hour", got)
		}

		// SaveEvery 50 ms: saved while it waits.
		quick := f.open(t, outbox.Config{SaveEvery: 50 * time.Millisecond, SkipSaveEvery: 50 * time.Millisecond})
		cur, err = quick.CursorFrom(ctx, "quick", 0)
		if err != nil {
			t.Fatal(err)
		}
		nctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go cur.Next(nctx, skipAll, 10) //nolint:errcheck // ends with nctx
		head := waitHead(t, quick, f.fundingEvent+2)
		deadline := time.Now().Add(10 * time.Second)
		for savedPosition(t, db, "quick") < head {
			if time.Now().After(deadline) {
				t.Fatalf("saved at %d, want %d once SaveEvery passed", savedPosition(t, db, "quick"), head)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// A consumer that only moves past events it does not want saves its
// position once per SkipSaveEvery, not per SaveEvery: each save is a
// commit, which under load slowed the payments' own (issue 38). Once it
// has dealt with an event it saves per SaveEvery again.
func TestSkippingCursorSavesOncePerSkipSaveEvery(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		f := newFixture(t, db)
		ctx := context.Background()
		box := f.open(t, outbox.Config{SaveEvery: time.Nanosecond, SkipSaveEvery: time.Hour})
		cur, err := box.CursorFrom(ctx, "skipping", 0)
		if err != nil {
			t.Fatal(err)
		}
		f.payInternal(t, 1000)
		head := waitHead(t, box, f.fundingEvent+2)
		if err := cur.Skip(ctx, head); err != nil {
			t.Fatal(err)
		}
		if got := savedPosition(t, db, "skipping"); got != 0 {
			t.Fatalf("saved at %d within its SkipSaveEvery", got)
		}
		if err := cur.Done(ctx, head); err != nil {
			t.Fatal(err)
		}
		if got := savedPosition(t, db, "skipping"); got != head {
			t.Fatalf("saved at %d after an event dealt with, want %d", got, head)
		}
	})
}

// Tagged reads, of the invoices' events, only those of invoices a plugin
// tagged, and TagPlugin those of one plugin's tags: an internal payment to
// an invoice of no tag gives such a reader nothing, and moves its position
// past it.
func TestTaggedReadsOnlyTaggedInvoices(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		ctx := context.Background()
		f := newFixture(t, db)
		f.payInternal(t, 1000) // to an invoice of no tag
		var tagged []*ledger.Invoice
		for _, plugin := range []string{"lnurl", "tipjar"} {
			inv, err := f.ledger.CreateInvoice(ctx, f.bob, ledger.NewInvoice{AmountMsat: 2000, Tag: &ledger.Tag{Plugin: plugin, Value: "page-1"}})
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := f.ledger.Pay(ctx, f.alice, ledger.PayRequest{Input: inv.LnInvoice.Bolt11}); err != nil {
				t.Fatal(err)
			}
			tagged = append(tagged, inv)
		}
		head := waitHead(t, f.box, f.fundingEvent+6)
		settled := []string{event.InvoiceSettled}
		evs, upTo, err := f.box.Read(ctx, 0, outbox.Filter{Types: settled, Tagged: true}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 2 || evs[0].SubjectID != tagged[0].ID || evs[1].SubjectID != tagged[1].ID || upTo != head {
			t.Fatalf("Tagged read %+v up to %d, want the two tagged invoices up to %d", evs, upTo, head)
		}
		evs, upTo, err = f.box.Read(ctx, 0, outbox.Filter{Types: settled, TagPlugin: "tipjar"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(evs) != 1 || evs[0].SubjectID != tagged[1].ID || upTo != head {
			t.Fatalf("TagPlugin tipjar read %+v up to %d, want its invoice %s up to %d", evs, upTo, tagged[1].ID, head)
		}
		if tag := evs[0].Data.(*ledger.Invoice).Tag; tag == nil || *tag != (ledger.Tag{Plugin: "tipjar", Value: "page-1"}) {
			t.Fatalf("the event's invoice has tag %+v", tag)
		}
		if all := readAll(t, f.box, 0, outbox.Filter{Types: settled}); len(all) != 4 {
			t.Fatalf("invoice.settled without Tagged: %d events, want 4", len(all))
		}
	})
}

// A consumer that has caught up reads again once the head moves and
// ReadEvery has passed since its last read, not at each move: here,
// within an hour, not at all. (Its position is saved at each wait, so
// what it read shows in the database.)
func TestCursorReadsOncePerReadEvery(t *testing.T) {
	t.Parallel()
	readsNotWithin(t, outbox.Config{ReadEvery: time.Hour, SaveEvery: time.Nanosecond}, 0, "ReadEvery")
}

// A cursor's own Every stands in for the outbox's ReadEvery: a consumer
// whose events may wait (zap receipts) reads less often than the others.
func TestCursorEveryStandsInForReadEvery(t *testing.T) {
	t.Parallel()
	readsNotWithin(t, outbox.Config{ReadEvery: time.Millisecond, SaveEvery: time.Nanosecond}, time.Hour, "its Every")
}

// readsNotWithin checks, on each database, that a cursor of an outbox
// with cfg and of its own every, which has caught up, does not read again
// within an hour of the head's move: had it read, it would have saved the
// new head at once.
func readsNotWithin(t *testing.T, cfg outbox.Config, every time.Duration, what string) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		f := newFixture(t, db)
		box := f.open(t, cfg)
		cur, err := box.CursorFrom(context.Background(), "hourly", 0)
		if err != nil {
			t.Fatal(err)
		}
		cur.Every = every
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go cur.Next(ctx, skipAll, 10) //nolint:errcheck // ends with ctx
		first, _ := box.Head()
		deadline := time.Now().Add(10 * time.Second)
		for savedPosition(t, db, "hourly") < first {
			if time.Now().After(deadline) {
				t.Fatalf("the consumer never read up to the head %d", first)
			}
			time.Sleep(10 * time.Millisecond)
		}
		f.payInternal(t, 1000)
		moved := waitHead(t, box, first+2)
		time.Sleep(300 * time.Millisecond) // the absence of a read: no condition to wait on
		if got := savedPosition(t, db, "hourly"); got != first {
			t.Fatalf("saved %d after the head moved to %d: the consumer read again within %s", got, moved, what)
		}
	})
}

// The Tagged page of invoices walks the index of the tagged invoices
// alone (invoices_tagged_event_idx), not every invoice's event
// since the last read (issue 38). PostgreSQL is told to avoid a scan of a
// table this small, as it would of a large one.
func TestTaggedPageUsesItsIndex(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		ctx := context.Background()
		f := newFixture(t, db)
		q := outbox.InvoicePageSQL(f.box, 0, 100, outbox.Filter{Types: []string{event.InvoiceSettled}, Tagged: true}, 10)
		tx, err := db.R.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback() //nolint:errcheck // read only
		explain := "EXPLAIN QUERY PLAN "
		if db.Dialect == store.Postgres {
			explain = "EXPLAIN "
			if _, err := tx.ExecContext(ctx, "SET LOCAL enable_seqscan = off"); err != nil {
				t.Fatal(err)
			}
		}
		rows, err := tx.QueryContext(ctx, explain+q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var plan strings.Builder
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&plan, vals...)
		}
		if !strings.Contains(plan.String(), "invoices_tagged_event_idx") {
			t.Fatalf("the Tagged page of\n%s\nis planned as\n%s", q, plan.String())
		}
	})
}
