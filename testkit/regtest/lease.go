package regtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/lightningnetwork/lnd/lnrpc"
	"github.com/lightningnetwork/lnd/lnrpc/walletrpc"
)

// Coin leases: what another program of the node's wallet can do to the
// coins Hearth spends. It can hold them (then the node cannot fund a
// spend), or take a coin from under a lease and spend it (then a
// transaction prepared with that coin is refused when published).

// Lease is one coin of the node's wallet leased now.
type Lease struct {
	// ID is the lock id the lease was taken under.
	ID []byte
	// Outpoint is the coin.
	Outpoint *lnrpc.OutPoint
	// ValueSat is the coin's value.
	ValueSat int64
}

// LeaseList returns the coins of the node's wallet leased now.
func (n *Node) LeaseList(ctx context.Context) ([]Lease, error) {
	res, err := walletrpc.NewWalletKitClient(n.conn).ListLeases(ctx, &walletrpc.ListLeasesRequest{})
	if err != nil {
		return nil, fmt.Errorf("%s list leases: %w", n.Name, err)
	}
	out := make([]Lease, len(res.LockedUtxos))
	for i, l := range res.LockedUtxos {
		out[i] = Lease{ID: l.Id, Outpoint: l.Outpoint, ValueSat: int64(l.Value)}
	}
	return out, nil
}

// Leases counts the coins of the node's wallet leased now.
func (n *Node) Leases(ctx context.Context) (int, error) {
	l, err := n.LeaseList(ctx)
	return len(l), err
}

// HoldCoins leases every unspent coin of the node's wallet, confirmed or
// not, except those paid to the addresses in keep, under a lock id of its
// own for ten minutes, as another program of the node might. It returns
// the lock id and a function that releases them.
func (n *Node) HoldCoins(ctx context.Context, keep ...string) (id []byte, release func(context.Context) error, err error) {
	wk := walletrpc.NewWalletKitClient(n.conn)
	coins, err := wk.ListUnspent(ctx, &walletrpc.ListUnspentRequest{MinConfs: 0, MaxConfs: math.MaxInt32})
	if err != nil {
		return nil, nil, fmt.Errorf("%s list unspent: %w", n.Name, err)
	}
	id = make([]byte, 32)
	if _, err := rand.Read(id); err != nil {
		return nil, nil, err
	}
	var held []*lnrpc.OutPoint
	release = func(ctx context.Context) error {
		var errs []error
		for _, op := range held {
			if _, err := wk.ReleaseOutput(ctx, &walletrpc.ReleaseOutputRequest{Id: id, Outpoint: op}); err != nil {
				errs = append(errs, fmt.Errorf("%s release output: %w", n.Name, err))
			}
		}
		return errors.Join(errs...)
	}
	for _, c := range coins.Utxos {
		if slices.Contains(keep, c.Address) {
			continue
		}
		if _, err := wk.LeaseOutput(ctx, &walletrpc.LeaseOutputRequest{Id: id, Outpoint: c.Outpoint, ExpirationSeconds: 600}); err != nil {
			return nil, nil, errors.Join(fmt.Errorf("%s lease output: %w", n.Name, err), release(ctx))
		}
		held = append(held, c.Outpoint)
	}
	return id, release, nil
}

// LeasedBy returns the coins leased now under a lock id other than those
// in except.
func (n *Node) LeasedBy(ctx context.Context, except ...[]byte) ([]Lease, error) {
	all, err := n.LeaseList(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(l Lease) bool {
		return slices.ContainsFunc(except, func(id []byte) bool { return bytes.Equal(id, l.ID) })
	}), nil
}

// TakeCoin releases the leased coin l from whoever leased it and spends it
// whole to addr at satPerVByte, as another program of the node's wallet
// might; it returns the transaction id. The transaction is in the mempool.
func (n *Node) TakeCoin(ctx context.Context, l Lease, addr string, satPerVByte uint64) (string, error) {
	wk := walletrpc.NewWalletKitClient(n.conn)
	if _, err := wk.ReleaseOutput(ctx, &walletrpc.ReleaseOutputRequest{Id: l.ID, Outpoint: l.Outpoint}); err != nil {
		return "", fmt.Errorf("%s release output: %w", n.Name, err)
	}
	res, err := n.ln.SendCoins(ctx, &lnrpc.SendCoinsRequest{Addr: addr, SendAll: true, SatPerVbyte: satPerVByte,
		Outpoints: []*lnrpc.OutPoint{l.Outpoint}, MinConfs: 0, SpendUnconfirmed: true})
	if err != nil {
		return "", fmt.Errorf("%s send the coin: %w", n.Name, err)
	}
	return res.Txid, nil
}

// Mempool returns the ids of the transactions in btcd's mempool.
func (n *Network) Mempool() ([]string, error) {
	c, err := n.Btcd.client()
	if err != nil {
		return nil, err
	}
	defer c.Shutdown()
	hashes, err := c.GetRawMempool()
	if err != nil {
		return nil, fmt.Errorf("btcd mempool: %w", err)
	}
	out := make([]string, len(hashes))
	for i, h := range hashes {
		out[i] = h.String()
	}
	return out, nil
}
