package lnd_test

import (
	"context"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/plugins/node/lnd"
	"github.com/hearthwallet/hearth/testkit/nodecontract"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

// The backend contract that the cln backend passes too, on the regtest
// network, on SQLite and PostgreSQL.
func TestContract(t *testing.T) {
	nodecontract.Run(t, func(t *testing.T) nodecontract.Network {
		net := network.Get(t)
		return &regtestNetwork{net: net, Holds: regtest.NewHolds(net.Peer)}
	})
}

// regtestNetwork is the contract's Network on the regtest network:
// Hearth's lnd and its channel peer.
type regtestNetwork struct {
	net            *regtest.Network
	*regtest.Holds // the peer's hold invoices
}

func (r *regtestNetwork) Backend(t testing.TB) ledger.Node {
	n, err := lnd.New(lnd.Config{Address: r.net.Hearth.RPCAddress, TLSCert: r.net.Hearth.TLSCertPath(), Macaroon: r.net.Hearth.MacaroonPath()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

func (r *regtestNetwork) PeerPays(ctx context.Context, bolt11 string) error {
	_, err := r.net.Peer.Pay(ctx, bolt11, 10_000)
	return err
}

func (r *regtestNetwork) PeerInvoice(ctx context.Context, msat int64, desc string) (string, string, error) {
	return r.net.Peer.AddInvoice(ctx, msat, desc)
}

func (r *regtestNetwork) UnroutableInvoice(t testing.TB, msat int64) string {
	return strangerInvoice(t.(*testing.T), msat)
}

func (r *regtestNetwork) KillNode(t testing.TB) {
	r.net.Hearth.Kill()
	t.Cleanup(func() { r.net.Hearth.Restart(context.Background()) }) //nolint:errcheck // running already when the test went on
}

func (r *regtestNetwork) RestartNode(ctx context.Context) error { return r.net.Hearth.Restart(ctx) }

func (r *regtestNetwork) InvoiceWithdrawn(ctx context.Context, hash string) (bool, error) {
	state, err := r.net.Hearth.InvoiceState(ctx, hash)
	return state == "CANCELED", err
}

func (r *regtestNetwork) PaymentCount(ctx context.Context, hash string) (int, error) {
	all, _, err := r.net.Hearth.PaymentCount(ctx, hash)
	return all, err
}

func (r *regtestNetwork) Verify(testing.TB) {}

func (r *regtestNetwork) Mine(ctx context.Context, blocks int) error { return r.net.Mine(ctx, blocks) }
