package cln_test

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/plugins/node/cln"
	"github.com/hearthwallet/hearth/plugins/node/cln/clntest"
	"github.com/hearthwallet/hearth/testkit/nodecontract"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

// network is the real Core Lightning network of the package's tests:
// bitcoind, Hearth's lightningd, an outside lightningd and an outside lnd
// (testkit/regtest), started by the first test that needs it.
var network regtest.SharedCLN

func TestMain(m *testing.M) {
	code := m.Run()
	network.Close()
	os.Exit(code)
}

// The backend contract on a real lightningd, on SQLite and PostgreSQL,
// with the outside lnd as the peer that pays and is paid: every case,
// payments held at the peer (lnd's hold invoices) and Hearth's lightningd
// killed and restarted among them.
func TestRealContractWithLND(t *testing.T) {
	nodecontract.Run(t, func(t *testing.T) nodecontract.Network {
		net := network.Get(t)
		return &realNetwork{net: net, peer: lndPeer{net.LND}, Holds: regtest.NewHolds(net.LND)}
	})
}

// The contract again with the outside lightningd as the peer: payments
// between two Core Lightning nodes. Stock lightningd holds no payment, so
// the cases that need one are lnd's alone.
func TestRealContractWithCLN(t *testing.T) {
	nodecontract.RunSome(t, func(t *testing.T) nodecontract.Network {
		net := network.Get(t)
		return &realNetwork{net: net, peer: clnPeer{net.Peer}, Holds: regtest.NewHolds(net.LND)}
	}, nodecontract.Scripted...)
}

// peer is the side of the channel that pays Hearth's node and is paid.
type peer interface {
	pay(ctx context.Context, bolt11 string) error
	invoice(ctx context.Context, msat int64, desc string) (bolt11, hash string, err error)
}

type lndPeer struct{ n *regtest.Node }

func (p lndPeer) pay(ctx context.Context, bolt11 string) error {
	_, err := p.n.Pay(ctx, bolt11, 10_000)
	return err
}

func (p lndPeer) invoice(ctx context.Context, msat int64, desc string) (string, string, error) {
	return p.n.AddInvoice(ctx, msat, desc)
}

type clnPeer struct{ n *regtest.CLNNode }

// labels numbers the outside lightningd's invoices (a label is unique).
var labels atomic.Int64

func (p clnPeer) pay(ctx context.Context, bolt11 string) error {
	_, err := p.n.Pay(ctx, bolt11, 10_000)
	return err
}

func (p clnPeer) invoice(ctx context.Context, msat int64, desc string) (string, string, error) {
	return p.n.Invoice(ctx, msat, fmt.Sprintf("contract-%d", labels.Add(1)), desc)
}

// realNetwork is the contract's Network on the real nodes.
type realNetwork struct {
	net  *regtest.CLNNetwork
	peer peer
	// Holds are the outside lnd's hold invoices (the cases that need one
	// run with lnd as the peer).
	*regtest.Holds
}

func (r *realNetwork) Backend(t testing.TB) ledger.Node {
	n, err := cln.New(cln.Config{RPCFile: r.net.Hearth.RPCPath(), GuardPlugin: r.net.GuardPlugin})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

func (r *realNetwork) PeerPays(ctx context.Context, bolt11 string) error {
	return r.peer.pay(ctx, bolt11)
}

func (r *realNetwork) PeerInvoice(ctx context.Context, msat int64, desc string) (string, string, error) {
	return r.peer.invoice(ctx, msat, desc)
}

func (r *realNetwork) UnroutableInvoice(t testing.TB, msat int64) string {
	s, err := clntest.StrangerInvoice(msat)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (r *realNetwork) KillNode(t testing.TB) {
	r.net.Hearth.Kill()
	t.Cleanup(func() { r.net.Hearth.Restart(context.Background()) }) //nolint:errcheck // running already when the test went on
}

func (r *realNetwork) RestartNode(ctx context.Context) error { return r.net.Hearth.Restart(ctx) }

func (r *realNetwork) InvoiceWithdrawn(ctx context.Context, hash string) (bool, error) {
	status, err := r.net.Hearth.InvoiceStatus(ctx, hash)
	return status == "", err
}

func (r *realNetwork) PaymentCount(ctx context.Context, hash string) (int, error) {
	return r.net.Hearth.PaymentCount(ctx, hash)
}

func (r *realNetwork) Verify(testing.TB) {}

// Mine moves the chain, for the deadline of a hold invoice.
func (r *realNetwork) Mine(ctx context.Context, blocks int) error { return r.net.Mine(ctx, blocks) }
