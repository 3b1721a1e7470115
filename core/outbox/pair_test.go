package outbox_test

import (
	"context"
	"testing"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// An internal payment's two events, the payee's invoice.settled and the
// payer's payment.settled, are read in that order, each by its own
// wallet, type and Tagged filter, and a page may end between them. On
// PostgreSQL both come from the one event id its payment took
// (20261126000001_internal_event_pair): the invoice records none, so its
// UPDATE wrote no index entry, and is read through its payment.
func TestInternalPaymentsEventsFromOneID(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		inv, err := f.ledger.CreateInvoice(ctx, f.bob, ledger.NewInvoice{AmountMsat: 7_000, Tag: &ledger.Tag{Plugin: "p", Value: "addr"}})
		if err != nil {
			t.Fatal(err)
		}
		p, _, err := f.ledger.Pay(ctx, f.alice, ledger.PayRequest{Input: inv.LnInvoice.Bolt11})
		if err != nil {
			t.Fatal(err)
		}
		start := f.fundingEvent
		waitHead(t, f.box, start+2)

		evs := readAll(t, f.box, start, outbox.Filter{})
		if len(evs) != 2 || evs[0].Type != event.InvoiceSettled || evs[0].SubjectID != inv.ID || evs[0].WalletID != f.bob ||
			evs[1].Type != event.PaymentSettled || evs[1].SubjectID != p.ID || evs[1].WalletID != f.alice || evs[0].ID >= evs[1].ID {
			t.Fatalf("events of an internal payment = %+v", evs)
		}
		settled, err := f.ledger.Invoice(ctx, f.bob, inv.ID)
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, "invoice.settled data", evs[0].Data, settled)

		one := func(what string, fl outbox.Filter, want outbox.Event) {
			t.Helper()
			got := readAll(t, f.box, start, fl)
			if len(got) != 1 || got[0].ID != want.ID || got[0].Type != want.Type {
				t.Fatalf("%s: events %+v, want %d %s", what, got, want.ID, want.Type)
			}
		}
		one("payee's wallet", outbox.Filter{WalletID: f.bob}, evs[0])
		one("payer's wallet", outbox.Filter{WalletID: f.alice}, evs[1])
		one("invoice.settled", outbox.Filter{Types: []string{event.InvoiceSettled}}, evs[0])
		one("payment.settled", outbox.Filter{Types: []string{event.PaymentSettled}}, evs[1])
		one("Tagged", outbox.Filter{Types: []string{event.InvoiceSettled}, Tagged: true}, evs[0])
		one("TagPlugin", outbox.Filter{Types: []string{event.InvoiceSettled}, TagPlugin: "p"}, evs[0])
		if got := readAll(t, f.box, start, outbox.Filter{Types: []string{event.InvoiceSettled}, TagPlugin: "q"}); len(got) != 0 {
			t.Fatalf("another plugin's tags: events %+v, want none", got)
		}

		// A page of one ends between them; the next goes on after it.
		first, reached, err := f.box.Read(ctx, start, outbox.Filter{}, 1)
		if err != nil || len(first) != 1 || first[0].ID != evs[0].ID || reached != evs[0].ID {
			t.Fatalf("first page = %+v up to %d, %v", first, reached, err)
		}
		second, _, err := f.box.Read(ctx, reached, outbox.Filter{}, 1)
		if err != nil || len(second) != 1 || second[0].ID != evs[1].ID {
			t.Fatalf("second page = %+v, %v", second, err)
		}

		if db.Dialect != store.Postgres {
			return
		}
		var invID, payID *int64
		if err := db.R.NewRaw("SELECT (SELECT event_id FROM invoices WHERE id = ?), (SELECT event_id FROM payments WHERE id = ?)",
			inv.ID, p.ID).Scan(ctx, &invID, &payID); err != nil {
			t.Fatal(err)
		}
		if invID != nil || payID == nil || *payID != evs[1].ID || evs[0].ID != *payID-1 {
			t.Fatalf("invoice's event_id %v, payment's %v; events %d and %d", invID, payID, evs[0].ID, evs[1].ID)
		}
	})
}

// An invoice that an internal payment settled before the pair of ids
// (20261126000001), with an event id of its own, is read once, by it.
func TestInternalInvoiceWithItsOwnIDReadOnce(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	ctx := context.Background()
	f := newFixture(t, db)
	inv, _ := f.payInternal(t, 3_000)
	var id int64
	if err := db.W.NewRaw("UPDATE invoices SET event_id = "+db.EventID()+" WHERE id = ? RETURNING event_id", inv.ID).
		Scan(ctx, &id); err != nil {
		t.Fatal(err)
	}
	waitHead(t, f.box, id)
	var mine []outbox.Event
	for _, e := range readAll(t, f.box, f.fundingEvent, outbox.Filter{}) {
		if e.SubjectID == inv.ID {
			mine = append(mine, e)
		}
	}
	if len(mine) != 1 || mine[0].ID != id {
		t.Fatalf("events of the invoice = %+v, want one, %d", mine, id)
	}
}
