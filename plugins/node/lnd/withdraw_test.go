package lnd_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/withdraw"
	"github.com/hearthwallet/hearth/lib/poll"
	"github.com/hearthwallet/hearth/testkit/logtest"
)

// Internal payments made while Hearth's node is down are answered at once
// (nothing waits for the node); their invoices stay queued for withdrawal
// across a restart of Hearth, and the node cancels every one of them once
// it is back, so that the peer can pay none.
func TestWithdrawalWaitsForTheNode(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		h := newHearth(t, net, db)
		alice, bob := h.Wallet("alice"), h.Wallet("bob")
		h.fund(bob, 300_000)
		var invs []*ledger.Invoice
		for range 3 {
			invs = append(invs, h.Invoice(alice, 50_000))
		}

		net.Hearth.Kill()
		t.Cleanup(func() { net.Hearth.Restart(ctx) }) //nolint:errcheck // running already when the test went on
		for _, inv := range invs {
			p, _, err := h.Led.Pay(ctx, bob, ledger.PayRequest{Input: inv.LnInvoice.Bolt11})
			if err != nil {
				t.Fatalf("paying inside the instance while the node is down: %v", err)
			}
			if p.Ledger != ledger.LedgerInternal || p.Status != ledger.StatusSettled {
				t.Fatalf("payment = %+v", p)
			}
		}
		// Hearth restarts while the node is still down: the queue is the
		// outbox, and the withdrawal's cursor has not moved past it.
		h.stop()
		h.start()
		if err := net.Hearth.Restart(ctx); err != nil {
			t.Fatal(err)
		}
		for _, inv := range invs {
			if err := net.Hearth.WaitInvoiceState(ctx, inv.LnInvoice.PaymentHash, "CANCELED"); err != nil {
				t.Fatalf("invoice %s at the node: %v", inv.ID, err)
			}
		}
		if _, err := net.Peer.Pay(ctx, invs[0].LnInvoice.Bolt11, 10_000); err == nil {
			t.Fatal("the peer paid an invoice settled inside the instance")
		}
		if b := h.Balance(alice); b.AvailableMsat != 150_000 || b.ReceivedMsat != 150_000 {
			t.Fatalf("payee balance = %+v", b)
		}
		h.Check()
	})
}

// An outside payer pays at the node an invoice already settled inside the
// instance, before the withdrawal reached it (here it was not running):
// the payee is credited once, the operator is told what to refund, and the
// withdrawal counts the node's "already settled" as done and goes on to
// the invoices queued after it.
func TestOutsidePayerBeforeTheWithdrawal(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		h := newHearth(t, net, db)
		logs := &logtest.Buffer{}
		h.restart(nil, logs)
		alice, bob := h.Wallet("alice"), h.Wallet("bob")
		h.fund(bob, 300_000)
		first, second := h.Invoice(alice, 70_000), h.Invoice(alice, 30_000)
		for _, inv := range []*ledger.Invoice{first, second} {
			if _, _, err := h.Led.Pay(ctx, bob, ledger.PayRequest{Input: inv.LnInvoice.Bolt11}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := net.Peer.Pay(ctx, first.LnInvoice.Bolt11, 10_000); err != nil {
			t.Fatalf("the peer could not pay the invoice still open at the node: %v", err)
		}
		refund := "refund the outside payer"
		poll.Until(t, 30*time.Second, func() error { return logs.Has(refund, first.PaymentHash) })

		h.restart(&withdraw.Config{}, logs)
		for _, inv := range []*ledger.Invoice{first, second} {
			want := map[*ledger.Invoice]string{first: "SETTLED", second: "CANCELED"}[inv]
			if err := net.Hearth.WaitInvoiceState(ctx, inv.LnInvoice.PaymentHash, want); err != nil {
				t.Fatalf("invoice %s at the node: %v", inv.ID, err)
			}
		}
		poll.Until(t, 30*time.Second, func() error { return logs.Has("paid at the node before it was withdrawn", first.PaymentHash) })
		if b := h.Balance(alice); b.AvailableMsat != 100_000 || b.ReceivedMsat != 100_000 {
			t.Fatalf("payee balance = %+v: credited twice?", b)
		}
		if got, err := h.Led.Invoice(ctx, "", first.ID); err != nil || got.Ledger != ledger.LedgerInternal || *got.AmountReceivedMsat != 70_000 {
			t.Fatalf("invoice paid twice = %+v (%v)", got, err)
		}
		h.Check()
	})
}

// The peer pays an invoice the moment after it was settled inside the
// instance, while the withdrawal runs: whichever reaches the node first,
// the payee is credited once, and an outside payment that got there first
// is reported for a refund.
func TestOutsidePayerRacingTheWithdrawal(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		h := newHearth(t, net, db)
		logs := &logtest.Buffer{}
		h.restart(&withdraw.Config{}, logs)
		alice, bob := h.Wallet("alice"), h.Wallet("bob")
		h.fund(bob, 300_000)
		const rounds = 3
		var received int64
		for round := range rounds {
			inv := h.Invoice(alice, 10_000)
			if _, _, err := h.Led.Pay(ctx, bob, ledger.PayRequest{Input: inv.LnInvoice.Bolt11}); err != nil {
				t.Fatal(err)
			}
			received += 10_000
			_, payErr := net.Peer.Pay(ctx, inv.LnInvoice.Bolt11, 10_000)
			state := "CANCELED"
			if payErr == nil {
				state = "SETTLED"
				poll.Until(t, 30*time.Second, func() error { return logs.Has("refund the outside payer", inv.PaymentHash) })
			}
			if err := net.Hearth.WaitInvoiceState(ctx, inv.LnInvoice.PaymentHash, state); err != nil {
				t.Fatalf("round %d: invoice at the node: %v", round, err)
			}
			t.Logf("round %d: the node's invoice ended %s (peer: %v)", round, state, payErr)
		}
		if b := h.Balance(alice); b.AvailableMsat != received || b.ReceivedMsat != received {
			t.Fatalf("payee balance = %+v, want %d received once", b, received)
		}
		h.Check()
	})
}

// While Hearth runs, lnd asks it before accepting a payment to one of its
// invoices: the peer cannot pay an invoice settled inside the instance,
// even while the node still holds it open (here the withdrawal waits an
// hour between cancels), and nobody has to refund anything; an invoice
// still open in the ledger is paid at the node as usual.
func TestGuardRefusesInvoicesSettledInside(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		h := newHearth(t, net, db)
		logs := &logtest.Buffer{}
		h.restart(&withdraw.Config{GuardedEvery: time.Hour}, logs)
		poll.Until(t, 30*time.Second, func() error { return logs.Has("the node asks before it accepts") })

		alice, bob := h.Wallet("alice"), h.Wallet("bob")
		h.fund(bob, 300_000) // an open invoice: the guard lets the peer pay it
		inv := h.Invoice(alice, 40_000)
		if _, _, err := h.Led.Pay(ctx, bob, ledger.PayRequest{Input: inv.LnInvoice.Bolt11}); err != nil {
			t.Fatal(err)
		}
		_, err := net.Peer.Pay(ctx, inv.LnInvoice.Bolt11, 10_000)
		if err == nil {
			t.Fatal("the peer paid at the node an invoice settled inside the instance")
		}
		if !strings.Contains(err.Error(), "INCORRECT_PAYMENT_DETAILS") {
			t.Fatalf("the peer's payment failed with %v, want the node's refusal", err)
		}
		if state, err := net.Hearth.InvoiceState(ctx, inv.LnInvoice.PaymentHash); err != nil || state != "OPEN" {
			t.Fatalf("invoice at the node = %s (%v), want still OPEN: the guard refused, not a cancel", state, err)
		}
		if err := logs.Has("refund"); err == nil {
			t.Fatal("a refund was asked for a payment the node refused")
		}
		if b := h.Balance(alice); b.AvailableMsat != 40_000 || b.ReceivedMsat != 40_000 {
			t.Fatalf("payee balance = %+v, want 40,000 once", b)
		}
		h.Check()
	})
}
