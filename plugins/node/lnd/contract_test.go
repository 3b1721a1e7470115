package lnd_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/internal/nodecontract"
	"github.com/hearthwallet/hearth/internal/regtest"
	"github.com/hearthwallet/hearth/plugins/node/lnd"
)

// The backend contract that the cln backend passes too, on the regtest
// network, on SQLite and PostgreSQL.
func TestContract(t *testing.T) {
	nodecontract.Run(t, func(t *testing.T) nodecontract.Network {
		return &regtestNetwork{net: network.Get(t), holds: map[string]*regtest.HoldInvoice{}}
	})
}

// regtestNetwork is the contract's Network on the regtest network:
// Hearth's lnd and its channel peer.
type regtestNetwork struct {
	net   *regtest.Network
	mu    sync.Mutex
	holds map[string]*regtest.HoldInvoice
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

func (r *regtestNetwork) HoldInvoice(ctx context.Context, msat int64) (string, string, error) {
	h, err := r.net.Peer.AddHoldInvoice(ctx, msat)
	if err != nil {
		return "", "", err
	}
	r.mu.Lock()
	r.holds[h.Hash] = h
	r.mu.Unlock()
	return h.Bolt11, h.Hash, nil
}

func (r *regtestNetwork) WaitHeld(ctx context.Context, hash string) error {
	return r.net.Peer.WaitInvoiceState(ctx, hash, "ACCEPTED")
}

func (r *regtestNetwork) SettleHold(ctx context.Context, hash string) error {
	r.mu.Lock()
	h := r.holds[hash]
	r.mu.Unlock()
	if h == nil {
		return fmt.Errorf("no hold invoice %s", hash)
	}
	return r.net.Peer.SettleHoldInvoice(ctx, h)
}

func (r *regtestNetwork) CancelHold(ctx context.Context, hash string) error {
	return r.net.Peer.CancelInvoice(ctx, hash)
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
