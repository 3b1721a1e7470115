package cln_test

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
	"github.com/hearthwallet/hearth/plugins/node/cln"
	"github.com/hearthwallet/hearth/testkit/ledgertest"
	"github.com/hearthwallet/hearth/testkit/logtest"
)

// While Hearth runs on lightningd, lightningd asks it, through the guard
// plugin it started (this test binary, as hearth would be), before it
// accepts a payment to one of Hearth's invoices: the peer cannot pay an
// invoice settled inside the instance, even while the node still holds it
// unpaid (here the withdrawal waits an hour between deletes), and nobody
// has to refund anything; an invoice still open in the ledger is paid at
// the node as usual. A second Hearth cannot take the guard from the first.
func TestGuardRefusesInvoicesSettledInside(t *testing.T) {
	net := network.Get(t)
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		node, err := cln.New(cln.Config{RPCFile: net.Hearth.RPCPath(), GuardPlugin: net.GuardPlugin})
		if err != nil {
			t.Fatal(err)
		}
		logs := &logtest.Buffer{}
		b := &ledgertest.Books{T: t, DB: db}
		t.Cleanup(b.Start(node, &withdraw.Config{GuardedEvery: time.Hour}, logs.Logger()))
		poll.Until(t, 30*time.Second, func() error { return logs.Has("the node asks before it accepts") })

		alice, bob := b.Wallet("alice"), b.Wallet("bob")
		fund := b.Invoice(bob, 300_000) // an open invoice: the guard lets the peer pay it
		if _, err := net.LND.Pay(ctx, fund.LnInvoice.Bolt11, 10_000); err != nil {
			t.Fatalf("the peer paid an open invoice: %v", err)
		}
		b.WaitInvoice(fund.ID, ledger.StatusSettled)

		inv := b.Invoice(alice, 40_000)
		if _, _, err := b.Led.Pay(ctx, bob, ledger.PayRequest{Input: inv.LnInvoice.Bolt11}); err != nil {
			t.Fatal(err)
		}
		_, err = net.LND.Pay(ctx, inv.LnInvoice.Bolt11, 10_000)
		if err == nil {
			t.Fatal("the peer paid at the node an invoice settled inside the instance")
		}
		if !strings.Contains(err.Error(), "INCORRECT_PAYMENT_DETAILS") {
			t.Fatalf("the peer's payment failed with %v, want the node's refusal", err)
		}
		if status, err := net.Hearth.InvoiceStatus(ctx, inv.LnInvoice.PaymentHash); err != nil || status != "unpaid" {
			t.Fatalf("invoice at the node = %q (%v), want still unpaid: the guard refused, not a delete", status, err)
		}
		if err := logs.Has("refund"); err == nil {
			t.Fatal("a refund was asked for a payment the node refused")
		}

		second, err := cln.New(cln.Config{RPCFile: net.Hearth.RPCPath(), GuardPlugin: net.GuardPlugin})
		if err != nil {
			t.Fatal(err)
		}
		err = second.GuardInvoices(ctx, func(context.Context, string) bool { return true }, func() {
			t.Error("a second Hearth took the guard")
		})
		if err == nil || !strings.Contains(err.Error(), "another Hearth holds the invoice guard") {
			t.Fatalf("a second Hearth's guard = %v, want refused", err)
		}

		if b := b.Balance(alice); b.AvailableMsat != 40_000 || b.ReceivedMsat != 40_000 {
			t.Fatalf("payee balance = %+v, want 40,000 once", b)
		}
		b.Check()
	})
}
