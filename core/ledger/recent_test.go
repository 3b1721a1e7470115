package ledger_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/budget"
	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
)

// An invoice this process issued is paid without reading it (recent.go),
// but what it remembers is no authority: an invoice paid meanwhile through
// the node, or by another process of the instance, is refused as paid,
// moves no money, and stays paid once.
func TestRecalledInvoicePaidElsewhere(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		ctx := context.Background()
		f := newFixture(t, db, 50_000)
		bob := f.funded(t, "bob", 1)
		carol := f.funded(t, "carol", 50_000)
		// other remembers nothing of f.ledger's invoices.
		other := f.another(t)
		byNode, err := f.ledger.CreateInvoice(ctx, bob, ledger.NewInvoice{AmountMsat: 1_000})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := other.SettleInvoice(ctx, ledger.InvoiceSettlement{PaymentHash: byNode.LnInvoice.PaymentHash, AmountMsat: 1_000}); err != nil {
			t.Fatal(err)
		}
		byCarol, err := f.ledger.CreateInvoice(ctx, bob, ledger.NewInvoice{AmountMsat: 2_000})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := other.Pay(ctx, carol, ledger.PayRequest{Input: byCarol.LnInvoice.Bolt11}); err != nil {
			t.Fatal(err)
		}
		for _, inv := range []*ledger.Invoice{byNode, byCarol} {
			_, _, err := f.ledger.Pay(ctx, f.wallet, ledger.PayRequest{Input: inv.LnInvoice.Bolt11})
			if !errors.Is(err, ledger.ErrInvoicePaid) {
				t.Fatalf("paying an invoice paid elsewhere: %v, want %v", err, ledger.ErrInvoicePaid)
			}
		}
		if b := f.balance(t); b.AvailableMsat != 50_000 || b.SentMsat != 0 {
			t.Fatalf("alice's balance = %+v", b)
		}
		f.check(t)
	})
}

// A payment of a recalled invoice tells the same invoice as the database
// holds: its invoice.settled event carries the record a reader gets.
func TestRecalledInvoiceSettledAsStored(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Parallel()
		ctx := context.Background()
		f := newFixture(t, db, 50_000)
		bus := event.NewBus()
		events := bus.Subscribe(t.Context(), 16)
		led := ledger.New(db, f.node, bus, ledger.Config{}, nil)
		bob := f.funded(t, "bob", 1)
		desc := "a tagged one"
		inv, err := led.CreateInvoice(ctx, bob, ledger.NewInvoice{AmountMsat: 3_000, Description: &desc,
			Tag: &ledger.Tag{Plugin: "lnurl", Value: "bob"}})
		if err != nil {
			t.Fatal(err)
		}
		// A budget takes PostgreSQL's payments the way of SQLite's, which
		// recalls the invoice.
		k := newBudget(t, db, 10_000, budget.Daily, time.Now)
		if _, _, err := led.Pay(ctx, f.wallet, k.req(inv.LnInvoice.Bolt11)); err != nil {
			t.Fatal(err)
		}
		stored, err := led.Invoice(ctx, bob, inv.ID)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(stored)
		// The ledger publishes before Pay returns: the event is waiting.
		for settled := false; !settled; {
			select {
			case e := <-events:
				if e.Type != event.InvoiceSettled {
					continue
				}
				settled = true
				if got, _ := json.Marshal(e.Data); string(got) != string(want) {
					t.Fatalf("invoice.settled's invoice\n%s\nthe stored one\n%s", got, want)
				}
			default:
				t.Fatal("no invoice.settled was published")
			}
		}
		f.check(t)
	})
}
