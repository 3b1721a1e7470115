package main

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"

	"github.com/hearthwallet/hearth/core/store/storetest"
	"github.com/hearthwallet/hearth/testkit/regtest"
)

// chainNet is a regtest network under `hearth serve`'s on-chain wallet:
// lnd's (btcd, Hearth's lnd, an outside lnd) or Core Lightning's
// (bitcoind, Hearth's lightningd, an outside lnd). The on-chain tests run
// on each and assert each node's own truth where the two differ (traits).
type chainNet interface {
	// backend is node.backend: "lnd" or "cln".
	backend() string
	// traits are what the node's wallet does its own way.
	traits() chainTraits
	// environ is the environment of `hearth serve` on Hearth's node, on
	// db ("sqlite" or "postgres"), in a new data folder.
	environ(t *testing.T, db string) []string
	// height is the chain's height.
	height(ctx context.Context) (int64, error)
	// mine mines blocks and waits until every node has seen them.
	mine(ctx context.Context, blocks int) error
	// reorgTip reorganises the best block away, its transactions back in
	// the mempool, and waits until every node has followed; it returns
	// the height of the block removed.
	reorgTip(ctx context.Context) (int64, error)
	// mempool lists the ids of the transactions in the mempool.
	mempool(ctx context.Context) ([]string, error)
	// send pays each address its amount from the outside lnd's wallet, in
	// one transaction, and returns its id; it is in the mempool.
	send(ctx context.Context, amounts map[string]int64) (string, error)
	// outsideAddress is a new address of the outside lnd's wallet.
	outsideAddress(ctx context.Context) (string, error)
	// outsideInvoice is an invoice of the outside lnd, which Hearth's node
	// has a channel to.
	outsideInvoice(ctx context.Context, msat int64, memo string) (string, error)
	// nodeAddress is a new address of Hearth's node's wallet that is no
	// wallet's deposit address: coins of the node, not of Hearth's users.
	nodeAddress(ctx context.Context) (string, error)
	// held counts the coins of Hearth's node held now for spends (lnd's
	// leases, lightningd's reservations).
	held(ctx context.Context) (int, error)
	// holdCoins holds every coin of Hearth's node except those paid to the
	// addresses in keep, as another program of the node might, which may
	// later take one of the coins kept.
	holdCoins(ctx context.Context, keep ...string) (coinHold, error)
}

// chainTraits are where the nodes' wallets differ.
type chainTraits struct {
	// prefixes are the address types the node makes, with the prefix of
	// their regtest addresses; unsupported those it does not make (Hearth
	// answers 422), of the types the API knows.
	prefixes    map[string]string
	unsupported []string
	// mempool is whether the node's wallet lists a deposit while it is
	// unconfirmed (lnd); lightningd's lists it from its first block.
	mempool bool
	// reorgType is the type of the deposit address that the reorg test
	// pays: the one type of the node that the other tests do not pay.
	reorgType string
}

// coinHold is coins of Hearth's node held by another program.
type coinHold interface {
	// others lists the coins held now by anyone but this hold.
	others(ctx context.Context) ([]heldCoin, error)
	// take spends the coin c whole at takeRate to an address of the node,
	// from under whoever holds it now; it returns the transaction id. The
	// transaction is in the mempool.
	take(ctx context.Context, c heldCoin) (string, error)
	// release frees the coins this hold holds.
	release(ctx context.Context) error
}

// takeRate is the fee rate, sat/vB, of the other program's spend of a
// coin it takes: well above Hearth's, so that Hearth's cannot replace it.
const takeRate = 20

// heldCoin is a coin held by somebody.
type heldCoin struct {
	// outpoint is "txid:vout".
	outpoint string
	// holder is who holds it: lnd's lease id (hex); "" for lightningd,
	// whose reservations name nobody.
	holder string
}

// serveEnviron is the environment of `hearth serve` on a new data folder
// and db, with node.
func serveEnviron(t *testing.T, db string, node ...string) []string {
	t.Helper()
	environ := append([]string{"HEARTH_LISTEN=127.0.0.1:0", "HEARTH_DATA_DIR=" + t.TempDir()}, node...)
	if db == "postgres" {
		environ = append(environ, "HEARTH_DATABASE_URL="+storetest.EmptySchemaURL(t))
	}
	return environ
}

// lndEnviron is the environment of `hearth serve` on the network's Hearth
// node, on db ("sqlite" or "postgres"), in a new data folder.
func lndEnviron(t *testing.T, net *regtest.Network, db string) []string {
	t.Helper()
	return serveEnviron(t, db, "HEARTH_NODE_BACKEND=lnd",
		"HEARTH_NODE_LND_ADDRESS="+net.Hearth.RPCAddress,
		"HEARTH_NODE_LND_TLS_CERT="+net.Hearth.TLSCertPath(),
		"HEARTH_NODE_LND_MACAROON="+net.Hearth.MacaroonPath())
}

// onBoth runs fn on each database.
func onBoth(t *testing.T, fn func(t *testing.T, db string)) {
	for _, db := range []string{"sqlite", "postgres"} {
		t.Run(db, func(t *testing.T) { fn(t, db) })
	}
}

// lndChain is the lnd network.
type lndChain struct{ net *regtest.Network }

func (l lndChain) backend() string { return "lnd" }

func (l lndChain) traits() chainTraits {
	return chainTraits{prefixes: map[string]string{"p2wpkh": "bcrt1q", "p2sh": "2", "p2tr": "bcrt1p"},
		unsupported: []string{"p2pkh"}, mempool: true, reorgType: "p2sh"}
}

func (l lndChain) environ(t *testing.T, db string) []string { return lndEnviron(t, l.net, db) }

func (l lndChain) height(context.Context) (int64, error) { return l.net.Height() }

func (l lndChain) mine(ctx context.Context, blocks int) error { return l.net.Mine(ctx, blocks) }

func (l lndChain) reorgTip(ctx context.Context) (int64, error) { return l.net.InvalidateTip(ctx) }

func (l lndChain) mempool(context.Context) ([]string, error) { return l.net.Mempool() }

func (l lndChain) send(ctx context.Context, amounts map[string]int64) (string, error) {
	return l.net.Peer.SendMany(ctx, amounts)
}

func (l lndChain) outsideAddress(ctx context.Context) (string, error) {
	return l.net.Peer.NewAddress(ctx)
}

func (l lndChain) outsideInvoice(ctx context.Context, msat int64, memo string) (string, error) {
	bolt11, _, err := l.net.Peer.AddInvoice(ctx, msat, memo)
	return bolt11, err
}

func (l lndChain) nodeAddress(ctx context.Context) (string, error) {
	return l.net.Hearth.NewAddress(ctx)
}

func (l lndChain) held(ctx context.Context) (int, error) { return l.net.Hearth.Leases(ctx) }

func (l lndChain) holdCoins(ctx context.Context, keep ...string) (coinHold, error) {
	id, release, err := l.net.Hearth.HoldCoins(ctx, keep...)
	if err != nil {
		return nil, err
	}
	return &lndHold{node: l.net.Hearth, id: id, free: release}, nil
}

// lndHold is coins leased under a lock id of the test's.
type lndHold struct {
	node *regtest.Node
	id   []byte
	free func(context.Context) error
}

func lndOutpoint(l regtest.Lease) string {
	return fmt.Sprintf("%s:%d", l.Outpoint.TxidStr, l.Outpoint.OutputIndex)
}

func (h *lndHold) others(ctx context.Context) ([]heldCoin, error) {
	leases, err := h.node.LeasedBy(ctx, h.id)
	if err != nil {
		return nil, err
	}
	out := make([]heldCoin, len(leases))
	for i, l := range leases {
		out[i] = heldCoin{outpoint: lndOutpoint(l), holder: hex.EncodeToString(l.ID)}
	}
	return out, nil
}

// take releases the coin's lease and spends it (lnd's SendCoins).
func (h *lndHold) take(ctx context.Context, c heldCoin) (string, error) {
	addr, err := h.node.NewAddress(ctx)
	if err != nil {
		return "", err
	}
	leases, err := h.node.LeasedBy(ctx, h.id)
	if err != nil {
		return "", err
	}
	for _, l := range leases {
		if lndOutpoint(l) == c.outpoint {
			return h.node.TakeCoin(ctx, l, addr, takeRate)
		}
	}
	return "", fmt.Errorf("coin %s is not leased", c.outpoint)
}

func (h *lndHold) release(ctx context.Context) error { return h.free(ctx) }

// clnChain is the Core Lightning network; the outside lnd is the outside
// wallet.
type clnChain struct{ net *regtest.CLNNetwork }

func (c clnChain) backend() string { return "cln" }

func (c clnChain) traits() chainTraits {
	return chainTraits{prefixes: map[string]string{"p2wpkh": "bcrt1q", "p2tr": "bcrt1p"},
		unsupported: []string{"p2sh", "p2pkh"}, mempool: false, reorgType: "p2tr"}
}

func (c clnChain) environ(t *testing.T, db string) []string {
	return serveEnviron(t, db, "HEARTH_NODE_BACKEND=cln", "HEARTH_NODE_CLN_RPC_FILE="+c.net.Hearth.RPCPath(), "HEARTH_NODE_CLN_GUARD_PLUGIN="+c.net.GuardPlugin)
}

func (c clnChain) height(ctx context.Context) (int64, error) { return c.net.Height(ctx) }

func (c clnChain) mine(ctx context.Context, blocks int) error { return c.net.Mine(ctx, blocks) }

func (c clnChain) reorgTip(ctx context.Context) (int64, error) { return c.net.ReorgTip(ctx) }

func (c clnChain) mempool(ctx context.Context) ([]string, error) { return c.net.Mempool(ctx) }

func (c clnChain) send(ctx context.Context, amounts map[string]int64) (string, error) {
	return c.net.LND.SendMany(ctx, amounts)
}

func (c clnChain) outsideAddress(ctx context.Context) (string, error) {
	return c.net.LND.NewAddress(ctx)
}

func (c clnChain) outsideInvoice(ctx context.Context, msat int64, memo string) (string, error) {
	bolt11, _, err := c.net.LND.AddInvoice(ctx, msat, memo)
	return bolt11, err
}

func (c clnChain) nodeAddress(ctx context.Context) (string, error) {
	return c.net.Hearth.NewAddress(ctx)
}

func (c clnChain) held(ctx context.Context) (int, error) { return c.net.Hearth.Reserved(ctx) }

// holdCoins reserves the coins (reserveinputs), and signs a spend of each
// coin kept, to be broadcast when it takes it.
func (c clnChain) holdCoins(ctx context.Context, keep ...string) (coinHold, error) {
	held, release, err := c.net.Hearth.HoldCoins(ctx, keep...)
	if err != nil {
		return nil, err
	}
	h := &clnHold{bitcoind: c.net.Bitcoind, node: c.net.Hearth, held: held, free: release, signed: map[string]string{}}
	coins, err := c.net.Hearth.Coins(ctx)
	if err != nil {
		return nil, errors.Join(err, release(ctx))
	}
	for _, coin := range coins {
		if coin.Reserved {
			continue
		}
		addr, err := c.net.Hearth.NewAddress(ctx)
		if err != nil {
			return nil, errors.Join(err, release(ctx))
		}
		if h.signed[coin.Outpoint], _, err = c.net.Hearth.PresignSpend(ctx, coin.Outpoint, addr, takeRate); err != nil {
			return nil, errors.Join(err, release(ctx))
		}
	}
	return h, nil
}

// clnHold is coins reserved by the test (reserveinputs), and a spend of
// each coin kept, signed when the coins were held.
type clnHold struct {
	bitcoind *regtest.Bitcoind
	node     *regtest.CLNNode
	held     []string
	free     func(context.Context) error
	signed   map[string]string // raw transactions by the outpoint they spend
}

func (h *clnHold) others(ctx context.Context) ([]heldCoin, error) {
	coins, err := h.node.ReservedCoins(ctx, h.held...)
	if err != nil {
		return nil, err
	}
	out := make([]heldCoin, len(coins))
	for i, c := range coins {
		out[i] = heldCoin{outpoint: c.Outpoint}
	}
	return out, nil
}

// take broadcasts the spend of c signed beforehand, straight to bitcoind:
// taking the coin through lightningd (unreserveinputs, withdraw) would
// make Hearth's signpsbt refuse the coin, if Hearth had not signed yet.
func (h *clnHold) take(ctx context.Context, c heldCoin) (string, error) {
	raw, ok := h.signed[c.outpoint]
	if !ok {
		return "", fmt.Errorf("no spend of %s signed", c.outpoint)
	}
	return h.bitcoind.SendRaw(ctx, raw)
}

func (h *clnHold) release(ctx context.Context) error { return h.free(ctx) }
