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
	"github.com/hearthwallet/hearth/internal/poll"
)

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
		logs := &logBuffer{}
		h.restart(&withdraw.Config{GuardedEvery: time.Hour}, logs)
		poll.Until(t, 30*time.Second, func() error { return logs.has("the node asks before it accepts") })

		alice, bob := h.wallet("alice"), h.wallet("bob")
		h.fund(bob, 300_000) // an open invoice: the guard lets the peer pay it
		inv := h.invoice(alice, 40_000)
		if _, _, err := h.led.Pay(ctx, bob, ledger.PayRequest{Input: inv.LnInvoice.Bolt11}); err != nil {
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
		if err := logs.has("refund"); err == nil {
			t.Fatal("a refund was asked for a payment the node refused")
		}
		if b := h.balance(alice); b.AvailableMsat != 40_000 || b.ReceivedMsat != 40_000 {
			t.Fatalf("payee balance = %+v, want 40,000 once", b)
		}
		h.check()
	})
}
