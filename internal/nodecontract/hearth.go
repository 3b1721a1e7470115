package nodecontract

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/event"
	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/outbox"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/wallet"
	"github.com/hearthwallet/hearth/core/withdraw"
	"github.com/hearthwallet/hearth/internal/poll"
)

// hearth is a Hearth instance over the node under test: a database, a
// backend and a ledger whose Run follows the node in the background.
type hearth struct {
	t    testing.TB
	net  Network
	db   *store.DB
	node ledger.Node
	led  *ledger.Service
	stop func()
}

// ledgerConfig reconnects quickly, so tests wait seconds, not minutes.
var ledgerConfig = ledger.Config{PayTimeout: 30 * time.Second, ReconnectMax: time.Second, LeaderPoll: 200 * time.Millisecond}

func newHearth(t testing.TB, net Network, db *store.DB) *hearth {
	t.Helper()
	h := &hearth{t: t, net: net, db: db, node: net.Backend(t)}
	h.start()
	t.Cleanup(func() { h.stop() })
	return h
}

// start runs a new ledger over the same database and node, as a restarted
// Hearth would, with the outbox and the withdrawal of internally settled
// invoices from the node that `hearth serve` runs beside it.
func (h *hearth) start() {
	bus := event.NewBus()
	h.led = ledger.New(h.db, h.node, bus, ledgerConfig, nil)
	ctx, cancel := context.WithCancel(context.Background())
	box, err := outbox.New(ctx, h.db, outbox.Config{Wake: bus})
	if err != nil {
		cancel()
		h.t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { h.led.Run(ctx) }) //nolint:errcheck // ends with ctx
	wg.Go(func() { box.Run(ctx) })   //nolint:errcheck // ends with ctx
	wg.Go(func() { withdraw.Run(ctx, box, h.node, h.led, withdraw.Config{}) })
	h.stop = func() { cancel(); wg.Wait(); h.stop = func() {} }
}

func (h *hearth) wallet(user string) string {
	h.t.Helper()
	w, err := wallet.NewService(h.db).Ensure(context.Background(), user)
	if err != nil {
		h.t.Fatal(err)
	}
	return w.ID
}

func (h *hearth) balance(walletID string) wallet.Balance {
	h.t.Helper()
	w, err := wallet.NewService(h.db).Get(context.Background(), walletID)
	if err != nil {
		h.t.Fatal(err)
	}
	return w.Balance
}

func (h *hearth) invoice(walletID string, msat int64) *ledger.Invoice {
	h.t.Helper()
	inv, err := h.led.CreateInvoice(context.Background(), walletID, ledger.NewInvoice{AmountMsat: msat})
	if err != nil {
		h.t.Fatal(err)
	}
	return inv
}

// fund has the peer pay an invoice of walletID and waits until the ledger
// credited it.
func (h *hearth) fund(walletID string, msat int64) *ledger.Invoice {
	h.t.Helper()
	inv := h.invoice(walletID, msat)
	if err := h.net.PeerPays(context.Background(), inv.LnInvoice.Bolt11); err != nil {
		h.t.Fatal(err)
	}
	h.waitInvoice(inv.ID, ledger.StatusSettled)
	return inv
}

func (h *hearth) waitInvoice(id, status string) {
	h.t.Helper()
	poll.Until(h.t, 30*time.Second, func() error {
		inv, err := h.led.Invoice(context.Background(), "", id)
		if err == nil && inv.Status != status {
			err = fmt.Errorf("invoice %s", inv.Status)
		}
		return err
	})
}

func (h *hearth) waitPayment(id, status string) *ledger.Payment {
	h.t.Helper()
	var p *ledger.Payment
	poll.Until(h.t, 60*time.Second, func() error {
		var err error
		p, err = h.led.Payment(context.Background(), "", id)
		if err == nil && p.Status != status {
			err = fmt.Errorf("payment %s", p.Status)
		}
		return err
	})
	return p
}

// payHeldAndKill pays the hold invoice, waits until the peer holds the
// HTLC, kills the node and returns the payment the ledger answered: it
// must be Pending.
func (h *hearth) payHeldAndKill(walletID, bolt11, hash string) *ledger.Payment {
	h.t.Helper()
	ctx := context.Background()
	type outcome struct {
		p   *ledger.Payment
		err error
	}
	paid := make(chan outcome, 1)
	go func() {
		p, _, err := h.led.Pay(ctx, walletID, ledger.PayRequest{Input: bolt11})
		paid <- outcome{p, err}
	}()
	if err := h.net.WaitHeld(ctx, hash); err != nil {
		h.t.Fatal(err)
	}
	h.net.KillNode(h.t)
	o := <-paid
	if o.err != nil {
		h.t.Fatalf("pay: %v", o.err)
	}
	if o.p.Status != ledger.StatusPending {
		h.t.Fatalf("payment whose node died = %+v, want Pending", o.p)
	}
	return o.p
}

// check fails the test on any ledger breach.
func (h *hearth) check() {
	h.t.Helper()
	breaches, err := h.led.Check(context.Background())
	if err != nil {
		h.t.Fatal(err)
	}
	for _, b := range breaches {
		h.t.Errorf("ledger breach: %+v", b)
	}
}
