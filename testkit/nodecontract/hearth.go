package nodecontract

import (
	"context"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/withdraw"
	"github.com/hearthwallet/hearth/testkit/ledgertest"
)

// hearth is a Hearth instance over the node under test: a database, a
// backend and a ledger whose Run follows the node in the background.
type hearth struct {
	*ledgertest.Books
	net  Network
	node ledger.Node
	stop func()
}

func newHearth(t testing.TB, net Network, db *store.DB) *hearth {
	t.Helper()
	h := &hearth{Books: &ledgertest.Books{T: t, DB: db}, net: net, node: net.Backend(t)}
	h.start()
	t.Cleanup(func() { h.stop() })
	return h
}

// start runs a new ledger over the same database and node, as a restarted
// Hearth would, with the outbox and the withdrawal of internally settled
// invoices from the node that `hearth serve` runs beside it.
func (h *hearth) start() {
	stop := h.Start(h.node, &withdraw.Config{}, nil)
	h.stop = func() { stop(); h.stop = func() {} }
}

// fund has the peer pay an invoice of walletID and waits until the ledger
// credited it.
func (h *hearth) fund(walletID string, msat int64) *ledger.Invoice {
	h.T.Helper()
	inv := h.Invoice(walletID, msat)
	if err := h.net.PeerPays(context.Background(), inv.LnInvoice.Bolt11); err != nil {
		h.T.Fatal(err)
	}
	h.WaitInvoice(inv.ID, ledger.StatusSettled)
	return inv
}

// payHeldAndKill pays the hold invoice, waits until the peer holds the
// HTLC, kills the node and returns the payment the ledger answered: it
// must be Pending.
func (h *hearth) payHeldAndKill(walletID, bolt11, hash string) *ledger.Payment {
	h.T.Helper()
	ctx := context.Background()
	type outcome struct {
		p   *ledger.Payment
		err error
	}
	paid := make(chan outcome, 1)
	go func() {
		p, _, err := h.Led.Pay(ctx, walletID, ledger.PayRequest{Input: bolt11})
		paid <- outcome{p, err}
	}()
	if err := h.net.WaitHeld(ctx, hash); err != nil {
		h.T.Fatal(err)
	}
	h.net.KillNode(h.T)
	o := <-paid
	if o.err != nil {
		h.T.Fatalf("pay: %v", o.err)
	}
	if o.p.Status != ledger.StatusPending {
		h.T.Fatalf("payment whose node died = %+v, want Pending", o.p)
	}
	return o.p
}
