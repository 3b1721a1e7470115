//go:build cln_real

package cln

// The real-node suite: the backend contract against a running lightningd
// (v24.11 or newer) instead of the double. It needs two nodes with a
// funded channel between them, balanced enough to pay both ways:
//
//	HEARTH_CLN_RPC       the socket of the node under test (Hearth's)
//	HEARTH_CLN_PEER_RPC  the socket of its channel peer
//
// and, like every ledger test, HEARTH_TEST_POSTGRES_URL for PostgreSQL:
//
//	go test -tags cln_real -race -run TestRealNode ./plugins/node/cln/
//
// The cases that hold a payment at the peer or kill the node are skipped:
// stock lightningd has no hold invoices, and the suite does not own the
// node's process.

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"os"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/ecdsa"
	"github.com/btcsuite/btcd/chaincfg/chainhash"
	"github.com/lightningnetwork/lnd/lnwire"
	"github.com/lightningnetwork/lnd/zpay32"

	"github.com/hearthwallet/hearth/core/ledger"
	"github.com/hearthwallet/hearth/internal/nodecontract"
)

func TestRealNode(t *testing.T) {
	rpc, peerRPC := os.Getenv("HEARTH_CLN_RPC"), os.Getenv("HEARTH_CLN_PEER_RPC")
	if rpc == "" || peerRPC == "" {
		t.Fatal("the cln_real suite needs HEARTH_CLN_RPC and HEARTH_CLN_PEER_RPC: the sockets of two lightningd with a channel between them")
	}
	ctx := context.Background()
	node, peer := &Node{path: rpc}, &Node{path: peerRPC}
	info, err := node.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Backend != "cln" || info.Channels < 1 || info.LocalMsat <= 0 || info.RemoteMsat <= 0 {
		t.Fatalf("the node under test has no balanced channel: %+v", info)
	}
	if err := node.Ping(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("node %s on %s at height %d", info.Pubkey, info.Network, info.BlockHeight)
	nodecontract.RunSome(t, func(t *testing.T) nodecontract.Network {
		return &realNetwork{node: node, peer: peer}
	}, nodecontract.Scripted...)
}

// realNetwork is the contract's Network over two real nodes.
type realNetwork struct{ node, peer *Node }

func (r *realNetwork) Backend(testing.TB) ledger.Node { return &Node{path: r.node.path} }

func (r *realNetwork) PeerPays(ctx context.Context, bolt11 string) error {
	_, err := r.peer.Pay(ctx, ledger.NodePayment{Bolt11: bolt11, MaxFeeMsat: 10_000, Timeout: time.Minute})
	return err
}

func (r *realNetwork) PeerInvoice(ctx context.Context, msat int64, desc string) (string, string, error) {
	inv, err := r.peer.CreateInvoice(ctx, ledger.NodeInvoiceRequest{AmountMsat: msat, Description: desc, Expiry: time.Hour})
	if err != nil {
		return "", "", err
	}
	return inv.Bolt11, inv.PaymentHash, nil
}

// UnroutableInvoice signs an invoice of a key no node has, on the node's
// network.
func (r *realNetwork) UnroutableInvoice(t testing.TB, msat int64) string {
	_, params, err := r.node.identity(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	key, err := btcec.NewPrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	var pre, secret [32]byte
	rand.Read(pre[:])
	rand.Read(secret[:])
	inv, err := zpay32.NewInvoice(params, sha256.Sum256(pre[:]), time.Now(), zpay32.Amount(lnwire.MilliSatoshi(msat)),
		zpay32.Description("nowhere"), zpay32.PaymentAddr(secret),
		zpay32.Features(lnwire.NewFeatureVector(lnwire.NewRawFeatureVector(lnwire.TLVOnionPayloadRequired, lnwire.PaymentAddrRequired), lnwire.Features)))
	if err != nil {
		t.Fatal(err)
	}
	s, err := inv.Encode(zpay32.MessageSigner{SignCompact: func(msg []byte) ([]byte, error) {
		return ecdsa.SignCompact(key, chainhash.HashB(msg), true), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (r *realNetwork) HoldInvoice(context.Context, int64) (string, string, error) {
	panic("skipped: stock lightningd has no hold invoices")
}
func (r *realNetwork) WaitHeld(context.Context, string) error   { panic("skipped") }
func (r *realNetwork) SettleHold(context.Context, string) error { panic("skipped") }
func (r *realNetwork) CancelHold(context.Context, string) error { panic("skipped") }
func (r *realNetwork) KillNode(testing.TB)                      { panic("skipped: the suite does not own the node") }
func (r *realNetwork) RestartNode(context.Context) error        { panic("skipped") }

func (r *realNetwork) InvoiceWithdrawn(ctx context.Context, hash string) (bool, error) {
	var res listinvoicesResponse
	err := r.node.call(ctx, listinvoicesRequest{PaymentHash: hash}, &res)
	return err == nil && len(res.Invoices) == 0, err
}

func (r *realNetwork) PaymentCount(ctx context.Context, hash string) (int, error) {
	var res listpaysResponse
	err := r.node.call(ctx, listpaysRequest{PaymentHash: hash}, &res)
	return len(res.Pays), err
}

func (r *realNetwork) Verify(testing.TB) {}
