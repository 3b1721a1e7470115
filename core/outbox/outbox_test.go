package outbox_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/uptrace/bun"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// readAll returns every event after after.
func readAll(t *testing.T, box *outbox.Outbox, after int64, f outbox.Filter) []outbox.Event {
	t.Helper()
	evs, _, err := box.Read(context.Background(), after, f, 1000)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// sameJSON fails t unless a and b encode alike.
func sameJSON(t *testing.T, what string, a, b any) {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if string(ja) != string(jb) {
		t.Fatalf("%s:\n got %s\nwant %s", what, ja, jb)
	}
}

// Every settlement and failure writes its event, whichever path made it
// (hearth_pay_own_batch on PostgreSQL, Go on SQLite), carrying the record
// exactly as the API shows it: the settled invoice with its preimage, the
// internal payment with its own.
func TestEventsCarryTheRecordAsTheAPIShowsIt(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		evs := readAll(t, f.box, 0, outbox.Filter{})
		if len(evs) != 1 || evs[0].Type != event.InvoiceSettled || evs[0].WalletID != f.alice {
			t.Fatalf("funding events = %+v", evs)
		}
		inv, p := f.payInternal(t, 25_000)
		head := waitHead(t, f.box, f.fundingEvent+2)
		evs = readAll(t, f.box, f.fundingEvent, outbox.Filter{})
		if len(evs) != 2 || head != evs[1].ID {
			t.Fatalf("events after an internal payment = %+v (head %d)", evs, head)
		}
		byType := map[string]outbox.Event{evs[0].Type: evs[0], evs[1].Type: evs[1]}
		ie, pe := byType[event.InvoiceSettled], byType[event.PaymentSettled]
		if ie.WalletID != f.bob || ie.SubjectID != inv.ID || pe.WalletID != f.alice || pe.SubjectID != p.ID {
			t.Fatalf("events = %+v", evs)
		}
		wantInv, err := f.ledger.Invoice(ctx, f.bob, inv.ID)
		if err != nil {
			t.Fatal(err)
		}
		if wantInv.LnInvoice.PaymentPreimage == nil {
			t.Fatal("the settled invoice shows no preimage")
		}
		sameJSON(t, "invoice.settled data", ie.Data, wantInv)
		wantPay, err := f.ledger.Payment(ctx, f.alice, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, "payment.settled data", pe.Data, wantPay)

		// An external payment that fails, then succeeds late.
		f.node.mu.Lock()
		f.node.fail = true
		f.node.mu.Unlock()
		bolt11 := f.node.external(5_000)
		failed, _, err := f.ledger.Pay(ctx, f.alice, ledger.PayRequest{Input: bolt11})
		if err != nil || failed.Status != ledger.StatusFailed {
			t.Fatalf("Pay = %+v, %v; want Failed", failed, err)
		}
		waitHead(t, f.box, head+1)
		evs = readAll(t, f.box, head, outbox.Filter{WalletID: f.alice})
		if len(evs) != 1 || evs[0].Type != event.PaymentFailed || evs[0].SubjectID != failed.ID {
			t.Fatalf("events of a failed payment = %+v", evs)
		}
		sameJSON(t, "payment.failed data", evs[0].Data, failed)
		before, _ := f.box.Head()
		if err := f.ledger.SettlePayment(ctx, failed.ID, 10, "aa"); err != nil {
			t.Fatal(err)
		}
		waitHead(t, f.box, before+1)
		late := readAll(t, f.box, evs[0].ID, outbox.Filter{Types: []string{event.PaymentSettled}})
		if len(late) != 1 || late[0].SubjectID != failed.ID {
			t.Fatalf("events of a late success = %+v", late)
		}
		settled, err := f.ledger.Payment(ctx, f.alice, failed.ID)
		if err != nil || settled.Status != ledger.StatusSettled {
			t.Fatalf("payment after its late success = %+v, %v", settled, err)
		}
		sameJSON(t, "late payment.settled data", late[0].Data, settled)
	})
}

// An event is written in the transaction of its change: seen inside it,
// and gone with it when it rolls back.
func TestEventsRollBackWithTheirChange(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		f := newFixture(t, db)
		inv, err := f.ledger.CreateInvoice(ctx, f.bob, ledger.NewInvoice{AmountMsat: 1000})
		if err != nil {
			t.Fatal(err)
		}
		count := func(ctx context.Context, idb bun.IDB) int {
			var n int
			err := idb.NewRaw(`SELECT (SELECT COUNT(*) FROM invoices WHERE event_id IS NOT NULL) +
				(SELECT COUNT(*) FROM payments WHERE event_id IS NOT NULL)`).Scan(ctx, &n)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		before := count(ctx, db.W)
		undo := errors.New("undo")
		err = db.Tx(ctx, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.NewUpdate().Table("invoices").Set("status = 'Settled'").Set("event_id = "+db.EventID()).
				Where("id = ?", inv.ID).Exec(ctx); err != nil {
				return err
			}
			if n := count(ctx, tx); n != before+1 {
				t.Errorf("inside the transaction: %d events, want %d", n, before+1)
			}
			return undo
		})
		if !errors.Is(err, undo) {
			t.Fatal(err)
		}
		// A payment refused for want of funds writes none either.
		big := f.node.external(1_000_000_000)
		if _, _, err := f.ledger.Pay(ctx, f.alice, ledger.PayRequest{Input: big}); err == nil {
			t.Fatal("a payment beyond the balance was accepted")
		}
		if n := count(ctx, db.W); n != before {
			t.Fatalf("%d events after rolled back changes, want %d", n, before)
		}
	})
}
