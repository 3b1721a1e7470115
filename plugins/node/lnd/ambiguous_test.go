package lnd_test

import (
	"context"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

// Hearth's node is killed while a payment is in flight (the peer holds the
// HTLC of a hold invoice): the payment stays Pending with its reserve, and
// once the node is back it resolves as the peer decides — settled at the
// real fee, or failed with the reserve released — exactly once.
func TestNodeKilledMidPayment(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		h := newHearth(t, net, db)
		alice := h.Wallet("alice")
		h.fund(alice, 2_000_000)

		for _, settle := range []bool{true, false} {
			before := h.Balance(alice)
			hold, err := net.Peer.AddHoldInvoice(ctx, 300_000)
			if err != nil {
				t.Fatal(err)
			}
			p := h.payHeldAndKill(alice, hold)
			reserve := int64(300_000 + 5_000)
			if b := h.Balance(alice); b.ReservedMsat != reserve || b.AvailableMsat != before.AvailableMsat-reserve {
				t.Fatalf("while the node is down: balance = %+v, want %d reserved", b, reserve)
			}
			if err := h.node.Ping(ctx); err == nil {
				t.Fatal("ping succeeded while the node is down")
			}
			h.Check()

			if err := net.Hearth.Restart(ctx); err != nil {
				t.Fatal(err)
			}
			// Back, reconciled, and still in flight: nothing moves yet.
			if err := h.Led.Reconcile(ctx); err != nil {
				t.Fatal(err)
			}
			if got, _ := h.Led.Payment(ctx, alice, p.ID); got.Status != ledger.StatusPending {
				t.Fatalf("after the restart, before the peer decides: %s", got.Status)
			}
			if settle {
				if err := net.Peer.SettleHoldInvoice(ctx, hold); err != nil {
					t.Fatal(err)
				}
				got := h.WaitPayment(p.ID, ledger.StatusSettled)
				fee := *got.FeeMsat
				if b := h.Balance(alice); b.ReservedMsat != 0 || b.AvailableMsat != before.AvailableMsat-300_000-fee || b.SentMsat != before.SentMsat+300_000 {
					t.Fatalf("after settlement: balance = %+v (fee %d)", b, fee)
				}
			} else {
				if err := net.Peer.CancelInvoice(ctx, hold.Hash); err != nil {
					t.Fatal(err)
				}
				got := h.WaitPayment(p.ID, ledger.StatusFailed)
				if got.Error == nil || *got.Error == "" {
					t.Fatalf("failed payment without a reason: %+v", got)
				}
				if b := h.Balance(alice); b != before {
					t.Fatalf("after cancellation: balance = %+v, want %+v", b, before)
				}
			}
			if all, _, err := net.Hearth.PaymentCount(ctx, hold.Hash); err != nil || all != 1 {
				t.Fatalf("the node made %d payments of the hold invoice (%v)", all, err)
			}
			if err := h.Led.Reconcile(ctx); err != nil {
				t.Fatal(err)
			}
			h.Check()
		}
	})
}

// payHeldAndKill pays the hold invoice, waits until the peer holds the
// HTLC, kills Hearth's node and returns the payment the ledger answered.
func (h *hearth) payHeldAndKill(walletID string, hold *regtest.HoldInvoice) *ledger.Payment {
	h.T.Helper()
	ctx := context.Background()
	type outcome struct {
		p   *ledger.Payment
		err error
	}
	paid := make(chan outcome, 1)
	go func() {
		p, _, err := h.Led.Pay(ctx, walletID, ledger.PayRequest{Input: hold.Bolt11})
		paid <- outcome{p, err}
	}()
	if err := h.net.Peer.WaitInvoiceState(ctx, hold.Hash, "ACCEPTED"); err != nil {
		h.T.Fatal(err)
	}
	h.net.Hearth.Kill()
	h.T.Cleanup(func() { h.net.Hearth.Restart(ctx) }) //nolint:errcheck // running already when the test went on
	o := <-paid
	if o.err != nil {
		h.T.Fatalf("pay: %v", o.err)
	}
	if o.p.Status != ledger.StatusPending {
		h.T.Fatalf("payment whose node died = %+v, want Pending", o.p)
	}
	return o.p
}
