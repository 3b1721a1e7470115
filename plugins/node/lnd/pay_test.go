package lnd_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/testkit/nodecontract"
)

// Hearth pays the peer's invoice: Settled at the node's real fee, the
// reserve released.
func TestSend(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		h := newHearth(t, net, db)
		alice := h.Wallet("alice")
		h.fund(alice, 1_000_000)
		bolt11, hash, err := net.Peer.AddInvoice(ctx, 250_000, "coffee")
		if err != nil {
			t.Fatal(err)
		}
		est, err := h.Led.EstimateFee(ctx, alice, ledger.PayRequest{Input: bolt11})
		if err != nil || est.EstimatedFeeMsat == nil || est.MaximumFeeMsat != 5_000 {
			t.Fatalf("estimate = %+v %v", est, err)
		}
		p, _, err := h.Led.Pay(ctx, alice, ledger.PayRequest{Input: "lightning:" + bolt11})
		if err != nil {
			t.Fatal(err)
		}
		if p.Status != ledger.StatusSettled || p.Ledger != ledger.LedgerLightning || p.FeeMsat == nil ||
			p.Lightning.PaymentPreimage == nil || p.Description == nil || *p.Description != "coffee" {
			t.Fatalf("payment = %+v", p)
		}
		if state, _ := net.Peer.InvoiceState(ctx, hash); state != "SETTLED" {
			t.Fatalf("the peer's invoice is %s", state)
		}
		if all, ok, _ := net.Hearth.PaymentCount(ctx, hash); all != 1 || ok != 1 {
			t.Fatalf("the node made %d payments (%d succeeded)", all, ok)
		}
		fee := *p.FeeMsat
		if b := h.Balance(alice); b.ReservedMsat != 0 || b.AvailableMsat != 1_000_000-250_000-fee || b.SentMsat != 250_000 || b.FeesPaidMsat != fee {
			t.Fatalf("balance = %+v (fee %d)", b, fee)
		}
		h.Check()
	})
}

// An unroutable payment and one over the channel's capacity fail with the
// node's reason, and the reserve goes back.
func TestPaymentFailures(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		h := newHearth(t, net, db)
		alice := h.Wallet("alice")
		// A test-only credit the node does not back: enough to ask for
		// more than the channel holds, so that the node, not the ledger,
		// refuses.
		credit := h.Invoice(alice, 1_000)
		if _, err := h.Led.SettleInvoice(ctx, ledger.InvoiceSettlement{PaymentHash: credit.LnInvoice.PaymentHash, AmountMsat: 9_000_000_000}); err != nil {
			t.Fatal(err)
		}
		if err := h.node.CancelInvoice(ctx, credit.LnInvoice.PaymentHash); err != nil {
			t.Fatal(err)
		}
		before := h.Balance(alice)

		unroutable := strangerInvoice(t, 50_000)
		p, _, err := h.Led.Pay(ctx, alice, ledger.PayRequest{Input: unroutable})
		if err != nil {
			t.Fatal(err)
		}
		if p.Status != ledger.StatusFailed || p.Error == nil || *p.Error != "no route" {
			t.Fatalf("unroutable payment = %+v (error %v)", p, deref(p.Error))
		}
		if b := h.Balance(alice); b != before {
			t.Fatalf("balance after the unroutable payment = %+v, want %+v", b, before)
		}

		// An invoice without an amount, paid beyond the channel's capacity.
		open, _, err := net.Peer.AddInvoice(ctx, 0, "anything")
		if err != nil {
			t.Fatal(err)
		}
		amount := int64(8_000_000_000)
		p, _, err = h.Led.Pay(ctx, alice, ledger.PayRequest{Input: open, AmountMsat: &amount})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("over-capacity payment failed: %s", deref(p.Error))
		if p.Status != ledger.StatusFailed || p.Error == nil || !strings.Contains(*p.Error, "insufficient balance") && *p.Error != "no route" {
			t.Fatalf("over-capacity payment = %+v (error %v)", p, deref(p.Error))
		}
		if b := h.Balance(alice); b != before {
			t.Fatalf("balance after the over-capacity payment = %+v, want %+v", b, before)
		}
		h.Check()
	})
}

// strangerInvoice is a valid regtest invoice of a node nobody knows.
func strangerInvoice(t *testing.T, msat int64) string {
	return nodecontract.StrangerInvoice(t, msat, time.Now(), time.Hour)
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
