package lnd_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
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
	"github.com/hearthwallet/hearth/internal/regtest"
	"github.com/hearthwallet/hearth/plugins/node/lnd"
)

// network is one regtest network for every test of the package: btcd,
// Hearth's lnd and an outside peer with a channel between them. The tests
// do not run in parallel: one of them kills Hearth's node.
var network regtest.Shared

func TestMain(m *testing.M) {
	code := m.Run()
	network.Close()
	os.Exit(code)
}

// hearth is a Hearth instance on the regtest network: a database, the
// LND backend on the network's Hearth node, and a ledger whose Run follows
// the node in the background.
type hearth struct {
	t    testing.TB
	net  *regtest.Network
	db   *store.DB
	node *lnd.Node
	led  *ledger.Service
	stop func()
}

// ledgerConfig reconnects quickly, so tests wait seconds, not minutes.
var ledgerConfig = ledger.Config{PayTimeout: 30 * time.Second, ReconnectMax: time.Second, LeaderPoll: 200 * time.Millisecond}

func newHearth(t testing.TB, net *regtest.Network, db *store.DB) *hearth {
	t.Helper()
	node, err := lnd.New(lnd.Config{Address: net.Hearth.RPCAddress, TLSCert: net.Hearth.TLSCertPath(), Macaroon: net.Hearth.MacaroonPath()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { node.Close() })
	h := &hearth{t: t, net: net, db: db, node: node}
	h.start()
	t.Cleanup(func() { h.stop() })
	return h
}

// start runs a new ledger over the same database and node, as a restarted
// Hearth would, with its outbox and the withdrawal of internally settled
// invoices from the node (core/withdraw), as hearth serve runs them.
func (h *hearth) start() { h.startWith(&withdraw.Config{}, nil) }

// startWith starts as start does, with the withdrawal only if w is set
// (its retries capped at a second), logging to log (nil: the default).
func (h *hearth) startWith(w *withdraw.Config, log *slog.Logger) {
	h.t.Helper()
	bus := event.NewBus()
	h.led = ledger.New(h.db, h.node, bus, ledgerConfig, log)
	ctx, cancel := context.WithCancel(context.Background())
	box, err := outbox.New(ctx, h.db, outbox.Config{Wake: bus, Log: log})
	if err != nil {
		cancel()
		h.t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { h.led.Run(ctx) }) //nolint:errcheck // ends with ctx
	wg.Go(func() { box.Run(ctx) })   //nolint:errcheck // ends with ctx
	if w != nil {
		cfg := *w
		cfg.RetryMax, cfg.Log = time.Second, log
		wg.Go(func() { withdraw.Run(ctx, box, h.node, h.led, cfg) })
	}
	h.stop = func() { cancel(); wg.Wait(); h.stop = func() {} }
}

// restart stops h and starts it again as startWith(w, …) does, logging
// to logs.
func (h *hearth) restart(w *withdraw.Config, logs *logBuffer) {
	h.t.Helper()
	h.stop()
	h.startWith(w, slog.New(slog.NewTextHandler(logs, nil)))
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

// fund has the peer pay an invoice of walletID, for real, and waits until
// the ledger credited it.
func (h *hearth) fund(walletID string, msat int64) *ledger.Invoice {
	h.t.Helper()
	inv := h.invoice(walletID, msat)
	if _, err := h.net.Peer.Pay(context.Background(), inv.LnInvoice.Bolt11, 10_000); err != nil {
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
