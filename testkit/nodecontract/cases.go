package nodecontract

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/lib/poll"
)

// contractCase is one behaviour of the contract.
type contractCase struct {
	Name string
	Run  func(t *testing.T, h *hearth)
}

// cases is the contract every backend passes.
var cases = []contractCase{
	{"Receive", receive},
	{"Send", send},
	{"Fail", fail},
	{"Refusals", refusals},
	{"AmbiguousThenResolved", ambiguousThenResolved},
	{"ReconcileAfterRestart", reconcileAfterRestart},
	{"InternalPaymentCancelsNodeInvoice", internalPayment},
	{"Concurrent", concurrent},
	{"HoldInvoices", holdInvoices},
}

// Run runs every case on SQLite and PostgreSQL, each over the Network
// that newNetwork returns for it.
func Run(t *testing.T, newNetwork func(t *testing.T) Network) { RunSome(t, newNetwork) }

// Scripted are the cases that need a network which holds payments and
// kills and restarts the node (a test double, or the regtest network).
var Scripted = []string{"AmbiguousThenResolved", "ReconcileAfterRestart"}

// RunSome is Run without the cases named in skip, which are reported as
// skipped.
func RunSome(t *testing.T, newNetwork func(t *testing.T) Network, skip ...string) {
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			for _, s := range skip {
				if s == c.Name {
					t.Skip("this network cannot script the case")
				}
			}
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				net := newNetwork(t)
				h := newHearth(t, net, db)
				c.Run(t, h)
				h.Check()
				net.Verify(t)
			})
		})
	}
}

// The peer pays an invoice: Settled, credited once. Then Hearth is
// stopped, the peer pays another, and the restarted Hearth credits it at
// start, once.
func receive(t *testing.T, h *hearth) {
	ctx := context.Background()
	alice := h.Wallet("alice")
	first := h.fund(alice, 150_000)
	if b := h.Balance(alice); b != (wallet.Balance{AvailableMsat: 150_000, ReceivedMsat: 150_000}) {
		t.Fatalf("balance after the first payment = %+v", b)
	}
	got, err := h.Led.Invoice(ctx, alice, first.ID)
	if err != nil || got.Ledger != ledger.LedgerLightning || *got.AmountReceivedMsat != 150_000 || got.PaymentTime == nil {
		t.Fatalf("invoice = %+v %v", got, err)
	}
	h.stop()
	second := h.Invoice(alice, 70_000)
	if err := h.net.PeerPays(ctx, second.LnInvoice.Bolt11); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.Led.Invoice(ctx, alice, second.ID); got.Status != ledger.StatusPending {
		t.Fatalf("invoice paid while Hearth was stopped = %s before the restart", got.Status)
	}
	h.start()
	h.WaitInvoice(second.ID, ledger.StatusSettled)
	if err := h.Led.Reconcile(ctx); err != nil {
		t.Fatal(err)
	}
	if b := h.Balance(alice); b != (wallet.Balance{AvailableMsat: 220_000, ReceivedMsat: 220_000}) {
		t.Fatalf("balance after the restart = %+v", b)
	}
}

// Hearth pays the peer's invoice: Settled at the node's fee, paid once,
// the reserve released.
func send(t *testing.T, h *hearth) {
	ctx := context.Background()
	alice := h.Wallet("alice")
	h.fund(alice, 1_000_000)
	bolt11, hash, err := h.net.PeerInvoice(ctx, 250_000, "coffee")
	if err != nil {
		t.Fatal(err)
	}
	est, err := h.Led.EstimateFee(ctx, alice, ledger.PayRequest{Input: bolt11})
	if err != nil || est.MaximumFeeMsat != 5_000 || est.Ledger != ledger.LedgerLightning || est.EstimatedFeeMsat == nil {
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
	if n, err := h.net.PaymentCount(ctx, hash); n != 1 || err != nil {
		t.Fatalf("the node made %d payments (%v)", n, err)
	}
	fee := *p.FeeMsat
	if fee != *est.EstimatedFeeMsat {
		t.Fatalf("paid a fee of %d, estimated %d", fee, *est.EstimatedFeeMsat)
	}
	if b := h.Balance(alice); b.ReservedMsat != 0 || b.AvailableMsat != 1_000_000-250_000-fee || b.SentMsat != 250_000 || b.FeesPaidMsat != fee {
		t.Fatalf("balance = %+v (fee %d)", b, fee)
	}
}

// A payment nobody can route fails with the node's reason, and the
// reserve goes back.
func fail(t *testing.T, h *hearth) {
	ctx := context.Background()
	alice := h.Wallet("alice")
	h.fund(alice, 200_000)
	before := h.Balance(alice)
	p, _, err := h.Led.Pay(ctx, alice, ledger.PayRequest{Input: h.net.UnroutableInvoice(t, 50_000)})
	if err != nil {
		t.Fatal(err)
	}
	if p.Status != ledger.StatusFailed || p.Error == nil || *p.Error == "" {
		t.Fatalf("unroutable payment = %+v", p)
	}
	t.Logf("unroutable payment failed: %s", *p.Error)
	if b := h.Balance(alice); b != before {
		t.Fatalf("balance after the unroutable payment = %+v, want %+v", b, before)
	}
}

// The node is killed while a payment is in flight (the peer holds it):
// the payment stays Pending with its reserve, and once the node is back it
// resolves as the peer decides — settled at the real fee, or failed with
// the reserve released — exactly once.
func ambiguousThenResolved(t *testing.T, h *hearth) {
	ctx := context.Background()
	alice := h.Wallet("alice")
	h.fund(alice, 2_000_000)
	for _, settle := range []bool{true, false} {
		before := h.Balance(alice)
		bolt11, hash, err := h.net.HoldInvoice(ctx, 300_000)
		if err != nil {
			t.Fatal(err)
		}
		p := h.payHeldAndKill(alice, bolt11, hash)
		reserve := int64(300_000 + 5_000)
		if b := h.Balance(alice); b.ReservedMsat != reserve || b.AvailableMsat != before.AvailableMsat-reserve {
			t.Fatalf("while the node is down: balance = %+v, want %d reserved", b, reserve)
		}
		h.Check()
		if err := h.net.RestartNode(ctx); err != nil {
			t.Fatal(err)
		}
		if err := h.Led.Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
		if got, _ := h.Led.Payment(ctx, alice, p.ID); got.Status != ledger.StatusPending {
			t.Fatalf("after the restart, before the peer decides: %s", got.Status)
		}
		if settle {
			if err := h.net.SettleHold(ctx, hash); err != nil {
				t.Fatal(err)
			}
			got := h.WaitPayment(p.ID, ledger.StatusSettled)
			fee := *got.FeeMsat
			if b := h.Balance(alice); b.ReservedMsat != 0 || b.AvailableMsat != before.AvailableMsat-300_000-fee || b.SentMsat != before.SentMsat+300_000 {
				t.Fatalf("after settlement: balance = %+v (fee %d)", b, fee)
			}
		} else {
			if err := h.net.CancelHold(ctx, hash); err != nil {
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
		if n, err := h.net.PaymentCount(ctx, hash); err != nil || n != 1 {
			t.Fatalf("the node made %d payments of the hold invoice (%v)", n, err)
		}
		if err := h.Led.Reconcile(ctx); err != nil {
			t.Fatal(err)
		}
		h.Check()
	}
}

// A payment is left in flight by a dying node, and the peer settles it
// while Hearth is stopped: nothing streams the outcome to anyone, and the
// restarted Hearth settles it from the node's record, once.
func reconcileAfterRestart(t *testing.T, h *hearth) {
	ctx := context.Background()
	alice := h.Wallet("alice")
	h.fund(alice, 1_000_000)
	before := h.Balance(alice)
	bolt11, hash, err := h.net.HoldInvoice(ctx, 100_000)
	if err != nil {
		t.Fatal(err)
	}
	p := h.payHeldAndKill(alice, bolt11, hash)
	h.stop()
	if err := h.net.RestartNode(ctx); err != nil {
		t.Fatal(err)
	}
	if err := h.net.SettleHold(ctx, hash); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.Led.Payment(ctx, alice, p.ID); got.Status != ledger.StatusPending {
		t.Fatalf("settled while Hearth was stopped = %s before the restart", got.Status)
	}
	h.start()
	got := h.WaitPayment(p.ID, ledger.StatusSettled)
	fee := *got.FeeMsat
	if b := h.Balance(alice); b.ReservedMsat != 0 || b.AvailableMsat != before.AvailableMsat-100_000-fee || b.SentMsat != 100_000 {
		t.Fatalf("after the restart: balance = %+v (fee %d)", b, fee)
	}
	if n, err := h.net.PaymentCount(ctx, hash); err != nil || n != 1 {
		t.Fatalf("the node made %d payments (%v)", n, err)
	}
}

// A Hearth wallet pays another's invoice: settled inside the instance, and
// the node's invoice is withdrawn so nobody can pay it again over the
// network.
func internalPayment(t *testing.T, h *hearth) {
	ctx := context.Background()
	alice, bob := h.Wallet("alice"), h.Wallet("bob")
	h.fund(bob, 500_000)
	inv := h.Invoice(alice, 120_000)
	p, _, err := h.Led.Pay(ctx, bob, ledger.PayRequest{Input: inv.LnInvoice.Bolt11})
	if err != nil {
		t.Fatal(err)
	}
	if p.Ledger != ledger.LedgerInternal || p.Status != ledger.StatusSettled || *p.FeeMsat != 0 {
		t.Fatalf("payment = %+v", p)
	}
	// Withdrawn from the node after the answer, off the payer's path.
	poll.Until(t, 30*time.Second, func() error {
		if gone, err := h.net.InvoiceWithdrawn(ctx, inv.LnInvoice.PaymentHash); !gone || err != nil {
			return fmt.Errorf("the node's invoice is still payable (%v)", err)
		}
		return nil
	})
	if n, _ := h.net.PaymentCount(ctx, inv.LnInvoice.PaymentHash); n != 0 {
		t.Fatalf("the node made %d payments", n)
	}
	if err := h.net.PeerPays(ctx, inv.LnInvoice.Bolt11); err == nil {
		t.Fatal("the peer paid an invoice already settled inside the instance")
	}
	if b := h.Balance(alice); b.AvailableMsat != 120_000 || b.ReceivedMsat != 120_000 {
		t.Fatalf("payee balance = %+v", b)
	}
	if b := h.Balance(bob); b.AvailableMsat != 380_000 || b.SentMsat != 120_000 {
		t.Fatalf("payer balance = %+v", b)
	}
}
