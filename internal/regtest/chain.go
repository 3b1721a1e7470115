package regtest

import (
	"context"
	"fmt"

	"github.com/lightningnetwork/lnd/lnrpc"
)

// SendCoins pays sat to addr on-chain from the node's wallet, at a low
// fee rate, and returns the transaction id. The transaction is in the
// mempool; Mine confirms it.
func (n *Node) SendCoins(ctx context.Context, addr string, sat int64) (string, error) {
	res, err := n.ln.SendCoins(ctx, &lnrpc.SendCoinsRequest{Addr: addr, Amount: sat, SatPerVbyte: 2})
	if err != nil {
		return "", fmt.Errorf("%s send coins: %w", n.Name, err)
	}
	return res.Txid, nil
}

// SendMany pays each address its amount in one transaction and returns
// its id.
func (n *Node) SendMany(ctx context.Context, amounts map[string]int64) (string, error) {
	res, err := n.ln.SendMany(ctx, &lnrpc.SendManyRequest{AddrToAmount: amounts, SatPerVbyte: 2})
	if err != nil {
		return "", fmt.Errorf("%s send many: %w", n.Name, err)
	}
	return res.Txid, nil
}

// Height returns the chain's height as btcd sees it.
func (n *Network) Height() (int64, error) { return n.Btcd.height() }
