package lnd_test

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/core/store"
	"github.com/hearthwallet/hearth/core/withdraw"
	"github.com/hearthwallet/hearth/plugins/node/lnd"
	"github.com/hearthwallet/hearth/testkit/ledgertest"
	"github.com/hearthwallet/hearth/testkit/logtest"
	"github.com/hearthwallet/hearth/testkit/regtest"
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
	*ledgertest.Books
	net  *regtest.Network
	node *lnd.Node
	stop func()
}

func newHearth(t testing.TB, net *regtest.Network, db *store.DB) *hearth {
	t.Helper()
	node, err := lnd.New(lnd.Config{Address: net.Hearth.RPCAddress, TLSCert: net.Hearth.TLSCertPath(), Macaroon: net.Hearth.MacaroonPath()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { node.Close() })
	h := &hearth{Books: &ledgertest.Books{T: t, DB: db}, net: net, node: node}
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
	h.T.Helper()
	if w != nil {
		cfg := *w
		cfg.RetryMax = time.Second
		w = &cfg
	}
	stop := h.Start(h.node, w, log)
	h.stop = func() { stop(); h.stop = func() {} }
}

// restart stops h and starts it again as startWith(w, …) does, logging
// to logs.
func (h *hearth) restart(w *withdraw.Config, logs *logtest.Buffer) {
	h.T.Helper()
	h.stop()
	h.startWith(w, slog.New(slog.NewTextHandler(logs, nil)))
}

// fund has the peer pay an invoice of walletID, for real, and waits until
// the ledger credited it.
func (h *hearth) fund(walletID string, msat int64) *ledger.Invoice {
	h.T.Helper()
	inv := h.Invoice(walletID, msat)
	if _, err := h.net.Peer.Pay(context.Background(), inv.LnInvoice.Bolt11, 10_000); err != nil {
		h.T.Fatal(err)
	}
	h.WaitInvoice(inv.ID, ledger.StatusSettled)
	return inv
}
